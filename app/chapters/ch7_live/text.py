"""Chapter 7's text panes: the line of figures above the curve, the messages under it, the
header of the sampled text (and the styles of the sample and the curve's reference lines). Every value is a `gv` span (the tests read them); everything a learner
typed or the model wrote goes through html.escape."""
import html

from gleam_lab.app.widgets.page import gv
from gleam_lab.app.widgets.theme import PALETTE

SAMPLE_CSS = (".gl-ch7-sample { white-space: pre-wrap; font-family: var(--gl-mono); "
              "background: var(--gl-sunken); border: 1px solid var(--gl-border); border-radius: 6px; "
              "padding: 8px; min-height: 4.5em; overflow-wrap: anywhere; }")
# the chance label above its line, the unigram one (always lower) below its own: they never overlap
CURVE_LINES = {"chance": ("chance ln V", PALETTE.negative, "dashed", "above"),
               "unigram": ("unigram", PALETTE.secondary, "dotted", "below")}


def stats_html(v, status, rate, model, exact=None):
    """The figures line: status, steps, EMA and last chunk's loss, baselines, then the model's
    settings (B, the parallel streams, with them) and, while training, the speed. The last loss is
    shown to 4 significant digits, its `exact` 12 in its tooltip."""
    speed = ""
    if status == "training" and rate:
        speed = f" · {rate:,.0f} steps/s ({rate * model.B * model.K:,.0f} characters/s)"
    parts = [
        f"status: <b>{gv('ch7.status', v['ch7.status'], f'gl-status-{status}')}</b>",
        f"steps: {gv('ch7.steps', v['ch7.steps'])}",
        f"loss (EMA): {gv('ch7.loss', v['ch7.loss'])} nats",
        f"chance ln V: {gv('ch7.chance', v['ch7.chance'])} (V = {model.V})",
        f"unigram: {gv('ch7.unigram', v['ch7.unigram'])}",
        f"last {'chunk' if model.B == 1 else 'step'}: {gv('ch7.last_loss', v['ch7.last_loss'], exact=exact)}",
        f"<span class='gl-note'>H = {model.H} · B = {gv('ch7.streams', v['ch7.streams'])} · "
        f"lr = {html.escape(f'{model.lr:g}')} · seed = {gv('ch7.seed', v['ch7.seed'])}{speed}</span>",
    ]
    return " &nbsp;·&nbsp; ".join(parts)


def messages_html(v, divergence_factor, divergence_loss):
    """What went wrong or is pending, and what the chosen experiment should show."""
    out = ""
    if v["ch7.status"] == "diverged":
        out += ("<div class='gl-error'>Training diverged: the last chunk's loss was "
                f"{gv('ch7.diverged_loss', v['ch7.diverged_loss'])} nats per character, above "
                f"{divergence_factor:g} × ln V = {divergence_loss:.3f} (the EMA above lags behind a sudden "
                "jump). The learning rate is too large for this model: lower it and press Reset.</div>")
    out += f"<div class='gl-error'>{gv('ch7.error', v['ch7.error'])}</div>"
    out += f"<div class='gl-note'>{gv('ch7.pending', v['ch7.pending'])}</div>"
    out += f"<div class='gl-note'>{gv('ch7.experiment', v['ch7.experiment'])}</div>"
    out += f"<div class='gl-note'>{gv('ch7.file', v['ch7.file'])}</div>"
    return out


def sample_head_html(temperature_text):
    return (f"<b>Sampled text</b> at temperature {gv('ch7.temperature', temperature_text)} "
            "<span class='gl-note'>(the model writes one character at a time, feeding each back as the "
            "next input; the temperature is a setting of the sampler, not of the model)</span>")
