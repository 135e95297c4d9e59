"""Every worked example of the syllabus, computed through gleam and returned as plain data.

One module per chapter, named like the chapter's module in app/chapters (ch0_scalar …
ch9_cheatsheet, memory_lab, extrapolation_lab). Each lists its public functions in `__all__` — every one of them is
also `gleam.examples.<name>` — and says in `examples()` what it contributes to the JSON document.
Each `chapterN_*` function returns JSON-able dicts/lists/floats with descriptive keys; the
chapter pages show these numbers (a template names the function, see content.render) and
tests/core/test_syllabus.py holds them to the syllabus.
`python -m gleam.examples --json` prints `all_examples()` as one JSON document.
"""
import json
import sys

from gleam.examples import (ch0_scalar, ch1_elman, ch2_bptt, ch3_vanishing, ch4_gru, ch5_gru_lstm,
                            ch6_training, ch7_live, ch8_beyond, ch9_cheatsheet, extrapolation_lab,
                            memory_lab)
from gleam.examples.data import VOCAB_ABC, plain  # noqa: F401

CHAPTERS = (ch0_scalar, ch1_elman, ch2_bptt, ch3_vanishing, ch4_gru, ch5_gru_lstm, ch6_training,
            ch7_live, ch8_beyond, ch9_cheatsheet, memory_lab, extrapolation_lab)

for _module in CHAPTERS:                     # gleam.examples.<name> for every chapter's examples
    for _name in _module.__all__:
        globals()[_name] = getattr(_module, _name)
del _module, _name


def all_examples():
    """Every chapter's examples, as one dict."""
    out = {}
    for module in CHAPTERS:
        out.update(module.examples())
    return out


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv not in ([], ["--json"]):
        print("usage: python -m gleam.examples [--json]", file=sys.stderr)
        return 2
    doc = plain(all_examples())
    print(json.dumps(doc, indent=None if "--json" in argv else 2, allow_nan=False))
    return 0
