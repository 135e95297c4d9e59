"""Every worked example of the syllabus, computed through gleam and returned as plain data.

One module per chapter, named like the chapter's module in app/chapters (ch0_scalar …
ch9_cheatsheet, memory_lab, extrapolation_lab). Each lists its public functions in `__all__` — every one of them is
also `gleam.examples.<name>` — and says in `examples()` what it contributes to the JSON document.
Each `chapterN_*` function returns JSON-able dicts/lists/floats with descriptive keys; the
chapter pages show these numbers (a template names the function, see content.render) and
tests/core/test_syllabus.py holds them to the syllabus.
`python -m gleam.examples --json` prints `all_examples()` as one JSON document.

Each chapter's module is imported when first asked for (PEP 562's module `__getattr__`): a chapter
page needs its own examples only, not the char-level trainer's or the research labs' modules
(in the built site's worker under node, `python -m buildtools.trace_imports --profile 1`:
gleam.examples' imports 21 -> 7 ms). `gleam.examples.<name>` looks in the chapters' modules in
the order of CHAPTER_MODULES, importing each in turn, until one lists the name in its `__all__`.
"""
import importlib
import json
import sys

from gleam.examples.data import VOCAB_ABC, plain  # noqa: F401

CHAPTER_MODULES = ("ch0_scalar", "ch1_elman", "ch2_bptt", "ch3_vanishing", "ch4_gru", "ch5_gru_lstm",
                   "ch6_training", "ch7_live", "ch8_beyond", "ch9_cheatsheet", "memory_lab",
                   "extrapolation_lab")


def _chapter_module(name):
    """The module gleam.examples.<name> of one chapter (a name of CHAPTER_MODULES), imported."""
    return importlib.import_module(f"{__name__}.{name}")


def __getattr__(name):
    """A chapter's module, or a function of one, on first use (then kept as this module's own)."""
    if name in CHAPTER_MODULES:
        return _chapter_module(name)
    for module_name in CHAPTER_MODULES:
        module = _chapter_module(module_name)
        if name in module.__all__:
            value = globals()[name] = getattr(module, name)
            return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(CHAPTER_MODULES)
                  | {n for m in CHAPTER_MODULES for n in _chapter_module(m).__all__})


def all_examples():
    """Every chapter's examples, as one dict."""
    out = {}
    for name in CHAPTER_MODULES:
        out.update(_chapter_module(name).examples())
    return out


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv not in ([], ["--json"]):
        print("usage: python -m gleam.examples [--json]", file=sys.stderr)
        return 2
    doc = plain(all_examples())
    print(json.dumps(doc, indent=None if "--json" in argv else 2, allow_nan=False))
    return 0
