"""The chapters' prose: Markdown templates whose every computed number is a Jinja2 placeholder.

`render(chapter_id)` fills a chapter from `gleam.examples`: every bare name in a template that is
a function of `gleam.examples` is called with its defaults (so `{{ chapter1_hand_example.states[0][0]
| f4 }}` reads the hand example), and `ex` is the module itself for calls with arguments
(`{{ ex.chapter4_gru_hand_example("torch").h[0] | f4 }}`). Undefined names fail loudly.
The files are read with importlib.resources, so this works from a wheel inside Pyodide.
"""
import importlib.resources
import math

CHAPTERS = {
    "0": "One number of memory",
    "1": "The vanilla (Elman) RNN cell",
    "2": "Unrolling and backpropagation through time",
    "3": "Vanishing and exploding gradients",
    "4": "Gates: the GRU cell",
    "5": "GRU vs LSTM",
    "6": "Training a character-level GRU",
    "7": "The live lab",
    "8": "Beyond the cell",
    "9": "Cheat sheet and self-test",
    "memory": "Memory lab: what gates actually buy",
    "extrapolation": "Extrapolation lab: what a small GRU learns about mathematics",
}


def chapter_ids():
    """Chapter ids in reading order: "0" … "9", "memory", "extrapolation"."""
    return list(CHAPTERS)


def title(chapter_id):
    return CHAPTERS[_check(chapter_id)]


def titles():
    return dict(CHAPTERS)


def _check(chapter_id):
    chapter_id = str(chapter_id)
    if chapter_id not in CHAPTERS:
        raise ValueError(f"unknown chapter {chapter_id!r}; known: {', '.join(CHAPTERS)}")
    return chapter_id


def filename(chapter_id):
    chapter_id = _check(chapter_id)
    return f"ch{chapter_id}.md" if chapter_id.isdigit() else f"{chapter_id}.md"


def source(chapter_id):
    """The raw Markdown template of a chapter."""
    return importlib.resources.files(__name__).joinpath(filename(chapter_id)).read_text(encoding="utf-8")


# ---------------------------------------------------------------- number formatting
# One formatter per way the lab prints a number; the app's widgets and the tests use the same.

def fmt_fixed(x, decimals=4):
    """Fixed decimals, ASCII minus, no negative zero: -0.00001 -> "0.0000"."""
    s = f"{float(x):.{decimals}f}"
    return s[1:] if s.startswith("-") and float(s) == 0 else s


def fmt_gate(x):
    """4 decimals, or 3 significant digits for tiny nonzero values (9.5e-07 -> "9.54e-07")."""
    x = float(x)
    if x != 0 and abs(x) < 1e-3:
        return f"{x:.3g}"
    return fmt_fixed(x, 4)


def fmt_sig(x, digits=3):
    """`digits` significant digits in plain notation: 0.0011790 -> "0.00118", 69.0 -> "69.0"."""
    x = float(x)
    if x == 0:
        return "0"
    exponent = math.floor(math.log10(abs(x)))
    return fmt_fixed(x, max(digits - 1 - exponent, 0))


def fmt_sci(x, digits=3):
    """LaTeX scientific notation for use inside math: 1.1641e-07 -> "1.16 \\times 10^{-7}"."""
    mantissa, exponent = f"{float(x):.{digits - 1}e}".split("e")
    if mantissa in ("1", "1." + "0" * (digits - 1)) and digits > 1:
        return f"10^{{{int(exponent)}}}"
    return f"{mantissa} \\times 10^{{{int(exponent)}}}"


def fmt_num(x, digits=3):
    """For math: plain significant digits between 0.001 and 10^4, scientific outside."""
    x = float(x)
    if x == 0 or 1e-3 <= abs(x) < 1e4:
        return fmt_sig(x, digits)
    return fmt_sci(x, digits)


def fmt_comma(x):
    """A count with thousands separators: 1234567 -> "1,234,567"."""
    return f"{int(round(float(x))):,}"


def fmt_pct(x, decimals=1):
    """A fraction as a percentage number (no % sign): 0.25 -> "25.0"."""
    return fmt_fixed(100 * float(x), decimals)


def tex_matrix(m, decimals=1):
    """A matrix (or a vector, as a column) as LaTeX bmatrix with fixed decimals."""
    rows = [[v] for v in m] if all(not hasattr(v, "__len__") for v in m) else m
    body = r" \\ ".join(" & ".join(fmt_fixed(v, decimals) for v in row) for row in rows)
    return r"\begin{bmatrix} " + body + r" \end{bmatrix}"


def tex_tuple(v, decimals=4):
    """A vector as an inline, comma-separated tuple for use inside math: (0.5,\\ -0.2)."""
    return "(" + r",\ ".join(fmt_fixed(x, decimals) for x in v) + ")"


FILTERS = {
    "f0": lambda x: fmt_fixed(x, 0), "f1": lambda x: fmt_fixed(x, 1), "f2": lambda x: fmt_fixed(x, 2),
    "f3": lambda x: fmt_fixed(x, 3), "f4": lambda x: fmt_fixed(x, 4),
    "f5": lambda x: fmt_fixed(x, 5), "gate": fmt_gate, "sig": fmt_sig, "sci": fmt_sci, "num": fmt_num,
    "comma": fmt_comma, "pct": fmt_pct, "mat": tex_matrix, "tup": tex_tuple,
}


# ---------------------------------------------------------------- rendering

def _environment():
    import jinja2
    env = jinja2.Environment(undefined=jinja2.StrictUndefined, autoescape=False,
                             keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True)
    env.filters.update(FILTERS)
    env.globals["zip"] = zip
    return env


def _context(env, template_source):
    """Values for the names a template uses: gleam.examples functions, called with defaults."""
    import jinja2.meta
    from gleam import examples

    from gleam import cells, chargru, counting, dynamics

    context = {"ex": examples, "cells": cells, "chargru": chargru, "counting": counting,
               "dynamics": dynamics}
    for name in jinja2.meta.find_undeclared_variables(env.parse(template_source)):
        if name not in context and callable(getattr(examples, name, None)) and not name.startswith("_"):
            context[name] = getattr(examples, name)()
    return context


def render(chapter_id):
    """The chapter's Markdown with every placeholder filled from gleam.examples."""
    env = _environment()
    text = source(chapter_id)
    return env.from_string(text).render(**_context(env, text))
