"""Take the code home: a CharGRU's run as a standalone Python + NumPy script.

The script is gleam/chargru/standalone.py, a real module (run it as it is: it trains the default
model), whose settings block between `# <settings>` and `# </settings>` is rewritten with the
model's corpus, sizes, seed, learning-rate history and step count.
"""
import math
import re
from pathlib import Path

from gleam import checks
from gleam.chargru.model import CharGRU

TEMPLATE = Path(__file__).with_name("standalone.py")
_BLOCK = re.compile(r"^# <settings>.*?^# </settings>$", re.M | re.S)
PIECE = 72                       # characters of the corpus per source line


def _corpus_literal(corpus):
    """CORPUS = ( 'piece' 'piece' ... ): the text as adjacent string literals, a line or so each."""
    pieces = []
    for line in corpus.splitlines(keepends=True):
        pieces += [line[i:i + PIECE] for i in range(0, len(line), PIECE)]
    return "CORPUS = (\n" + "".join(f"    {piece!r}\n" for piece in pieces) + ")"


def _setting(name, value, comment):
    return f"{f'{name} = {value}':<28} # {comment}"


def export_script(model, temperature=1.0):
    """The source of a script that trains `model`'s run again from its seed: the same corpus,
    H, K, clip, streams B, learning-rate changes (`model.lr_history`) and number of steps (a diverged model's
    refused step included, so the script stops there too), then prints the last losses and the
    sample the lab's page shows at `temperature` (`CharGRU.sample_preview`, so a finite number > 0)."""
    if not isinstance(model, CharGRU):
        raise ValueError(f"model must be a CharGRU, got {type(model).__name__}")
    temperature = checks.number("temperature", temperature, minimum=0, strict_min=True)
    clip = 'float("inf")' if math.isinf(model.clip) else repr(float(model.clip))
    schedule = ", ".join(f"({steps}, {float(lr)!r})" for steps, lr in model.lr_history)
    lines = [
        f"# <settings> what the lab trained: {model.steps} steps (written by gleam.chargru.export_script)",
        _corpus_literal(model.corpus),
        _setting("HIDDEN", model.H, "H, numbers of state"),
        _setting("SEQ_LEN", model.K, "K, characters per chunk"),
        _setting("LR_SCHEDULE", f"[{schedule}]", "(steps done, learning rate from then on)"),
        _setting("CLIP", clip, "each gradient entry is clipped to [-CLIP, CLIP]"),
        _setting("SEED", model.seed, "the random seed of the initial weights"),
        _setting("BATCH", model.B, "B, parallel streams trained together"),
        _setting("STEPS", model.steps + int(model.diverged),
                 "updates to make" + (" (the last one diverges)" if model.diverged else "")),
        _setting("TEMPERATURE", repr(float(temperature)), "of the sample printed at the end"),
        "# </settings>",
    ]
    template = TEMPLATE.read_text(encoding="utf-8")
    return _BLOCK.sub(lambda m: "\n".join(lines), template, count=1)
