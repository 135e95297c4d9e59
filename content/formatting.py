"""One formatter per way the lab prints a number: the prose's Jinja filters and the widgets use
the same functions, so a page and its text always agree to the digit."""
import math


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


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def fmt_sci(x, digits=3, text=False):
    """Scientific notation. For use inside math (LaTeX): 1.1641e-07 -> "1.16 \\times 10^{-7}", a
    mantissa of exactly 1 alone: "10^{-20}". text=True: plain text for a widget, where LaTeX would
    not render: 3.4469e-09 -> "3.45×10⁻⁹", digits=1: 1e-06 -> "1×10⁻⁶", 0 -> "0"."""
    x = float(x)
    if text and x == 0:
        return "0"
    mantissa, exponent = f"{x:.{digits - 1}e}".split("e")
    if text:
        return f"{mantissa}×10{str(int(exponent)).translate(_SUPERSCRIPT)}"
    if mantissa in ("1", "1." + "0" * (digits - 1)) and digits > 1:
        return f"10^{{{int(exponent)}}}"
    return f"{mantissa} \\times 10^{{{int(exponent)}}}"


def fmt_num(x, digits=3, text=False):
    """Plain significant digits between 0.001 and 10⁴, scientific (fmt_sci) outside: 0.450,
    1.16 \\times 10^{-7} for math, or with text=True 1.16×10⁻⁷ for a widget."""
    x = float(x)
    if x == 0 or 1e-3 <= abs(x) < 1e4:
        return fmt_sig(x, digits)
    return fmt_sci(x, digits, text)


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


# The templates' filters: {{ value | f4 }}, {{ matrix | mat(1) }}, ...
FILTERS = {
    "f0": lambda x: fmt_fixed(x, 0), "f1": lambda x: fmt_fixed(x, 1), "f2": lambda x: fmt_fixed(x, 2),
    "f3": lambda x: fmt_fixed(x, 3), "f4": lambda x: fmt_fixed(x, 4),
    "f5": lambda x: fmt_fixed(x, 5), "gate": fmt_gate, "sig": fmt_sig, "sci": fmt_sci, "num": fmt_num,
    "comma": fmt_comma, "pct": fmt_pct, "mat": tex_matrix, "tup": tex_tuple,
}
