"""Writing a sweep's results per seed, for the research labs' tables: the cells' names and
colours, a setting's per-seed values and their spread as text, and the collapsed block that
shows the `python -m gleam.sweep` spec a table came from (escaped text, never markup)."""
import html
import json

from gleam_lab.app.widgets.theme import PALETTE
from gleam_lab.content import fmt_fixed

CELLS = {"elman": "Elman RNN", "gru_torch": "GRU", "lstm": "LSTM"}
CELL_COLOURS = {"elman": PALETTE.negative, "gru_torch": PALETTE.secondary, "lstm": PALETTE.positive}
DASHES = ("solid", "dashed", "dotted", "dotdash", "dashdot")     # one per seed, cycling


def per_seed(stats, decimals=2):
    """The per-seed values of a summary's stats, in seed order."""
    return ", ".join(fmt_fixed(v, decimals) for v in stats["values"])


def mean_sd(stats, decimals=3):
    return f"{fmt_fixed(stats['mean'], decimals)} ± {fmt_fixed(stats['std'], decimals)}"


def integers(stats):
    """Whole numbers per seed (horizons, largest n); −1 (never reached) as "none"."""
    return ", ".join("none" if v < 0 else str(int(v)) for v in stats["values"])


def spec_block(name, spec, css_class=""):
    """A collapsed block with the spec that reproduces a table."""
    text, name = html.escape(json.dumps(spec, indent=1)), html.escape(name)
    cls = f"gl-note {html.escape(css_class)}".strip()
    return (f"<details class='{cls}'><summary>Reproduce it: <code>python -m gleam.sweep {name}.json "
            f"--out {name}.jsonl</code> with this spec</summary><pre>{text}</pre></details>")
