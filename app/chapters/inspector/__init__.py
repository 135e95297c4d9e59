"""The model inspector: one trained recurrent network and one input, taken apart in the page.

The model is one of the research labs' shipped models (gleam.labs.subjects: each named by its
experiment, cell and seed, with its learned / not learned status), a model trained in this page by
a lab's retrain (app.widgets.trained_here: the last one measured), or your own PyTorch checkpoint
(.files). The input is typed (checked against the model's alphabet) or picked from the task's
sets, in and out of distribution. Shown (gleam.instruments.inspect, .views): the prediction and
the task's answer, the states as heatmaps, the probe's reading after each character beside the
true label with its control task's selectivity, the states' path on the first two principal
components of the first set's states, and the largest singular value of ∂h_{t+1}/∂h_t.
An intervention (clamp a unit, patch along the probe's direction, swap in another input's state,
erase a character) is shown beside the input without it, and said in words. Texts typed or
sampled reach the page escaped (gv); a refused one is said, and what was shown stays.
"""
import numpy as np
import panel as pn
import param

from gleam.instruments import inspect, interventions as iv
from gleam.labs import subjects
from gleam_lab.app.chapters.base import ChapterViewer
from gleam_lab.app.chapters.inspector.files import InspectorFiles
from gleam_lab.app.chapters.inspector import weights
from gleam_lab.app.chapters.inspector.views import InspectorViews
from gleam_lab.app.widgets.page import card, gv, html_pane, wrap_row
from gleam_lab.app.widgets.trained_here import TrainedHere
from gleam_lab.content import fmt_fixed

CHOICES = subjects.choices()
FILE = "file"
TRAINED = {f"trained/{lab}": lab for lab in subjects.SHIPPED}      # model id -> the lab whose retrain trained it
TRAINED_LABS = {lab: f"the {lab} lab's retrain" for lab in subjects.SHIPPED}
DEFAULT_MODEL = next(c.id for c in CHOICES if c.group == "counting · aⁿbⁿ · LSTM" and c.learned)
ACTIONS = {"none": "none", "clamp": "clamp a unit of h from a character on",
           "patch": "patch h along the probe's direction at a character",
           "swap": "swap in another input's state at a character", "erase": "erase a character (its input set to 0)"}
LABEL_NAMES = {"a_minus_b": "#a − #b", "b_minus_c": "#b − #c", "cue_in_force": "the cue in force",
               "steps_since_cue": "steps since the cue"}
PICKS = 12            # examples of each set offered in the picker


def _reads(subject, text):
    try:
        subject.encode(text)
        return True
    except ValueError:
        return False


class InspectorChapter(ChapterViewer):
    """One model, one input: what is in the state, and what an edit of it does."""

    chapter_id = "inspector"
    url_names = {"action": "do", "other": "with"}

    model = param.Selector(default=DEFAULT_MODEL, objects=[c.id for c in CHOICES] + list(TRAINED) + [FILE],
                           label="Model")
    text = param.String(default="", label="Input (empty: the first test example)")
    probe = param.Selector(default="a_minus_b", objects=list(LABEL_NAMES), label="Probe of h")
    action = param.Selector(default="none", objects=list(ACTIONS), label="Intervention")
    step = param.Integer(default=0, bounds=(0, subjects.MAX_TEXT - 1), label="At character (from 0)")
    unit = param.Integer(default=0, bounds=(0, 511), label="Unit (clamp)")
    value = param.Number(default=1.0, bounds=(-5.0, 5.0), step=0.1, label="Clamp to")
    alpha = param.Number(default=2.0, bounds=(-10.0, 10.0), step=0.5, label="Patch by α")
    other = param.String(default="", label="The other input (swap; empty: a test example with another answer)")

    def __init__(self, **params):
        super().__init__(**params)
        self.views, self.files = InspectorViews(), InspectorFiles(self)
        self._loaded, self._file_subject = {}, None
        self._trained = TrainedHere()        # the Lab's, once it shares it (share_trained)
        self._error = self._file_note = self._words = ""
        self._shown = {}
        self._summary, self._probe_note = html_pane(), html_pane()
        self._picker = pn.widgets.Select(label="…or pick an example", css_classes=["gl-chinspector-pick"], width=300)
        self._picker.param.watch(lambda e: e.new and setattr(self, "text", e.new), "value")
        self._use(self._subject_of(self.model))

    # ------------------------------------------------------------ the model
    def share_trained(self, trained_here):
        """Offer the models the labs' retrains train in this page (app.widgets.trained_here)."""
        self._trained = trained_here
        trained_here.param.watch(lambda event: self._on_trained(), "offered")

    def _on_trained(self):
        if self.model in TRAINED and self.subject is not self._subject_of(self.model):
            self._use(self._subject_of(self.model))      # the newer measurement of the model in use

    def _subject_of(self, model_id):
        if model_id == FILE:
            return self._file_subject
        if model_id in TRAINED:
            return self._trained.subjects.get(TRAINED[model_id])
        if model_id not in self._loaded:
            weights.ensure(model_id.split("/")[0])
            self._loaded[model_id] = subjects.shipped(model_id)
        return self._loaded[model_id]

    def _use(self, subject):
        self.subject, self._fit, self._readings, self._before = subject, None, {}, {}
        if subject.sets:
            self._fit = inspect.fit_reference(subject.reference())
        self._picker.groups = {"": {"— pick an example —": ""}, **{
            name: {f"{e.text[:40]} → {subject.classes[int(e.target)]}": e.text for e in examples[:PICKS]}
            for name, examples in subject.sets.items()}}
        labels, changes = list(subject.labels), {}
        if labels and self.probe not in labels:
            changes["probe"] = labels[0]
        if self.text and not _reads(subject, self.text):
            changes["text"] = ""           # a text this model cannot read: its first example instead
        if changes:
            self.param.update(**changes)   # (recomputes)
        else:
            self._recompute()

    @param.depends("model", watch=True)
    def _on_model(self):
        if self.model == FILE and self._file_subject is None:
            self.model = self._current_id()     # (shown again)
            self.say(error="No file is loaded yet: load a model and its vocabulary below. The model in use stays.")
            return
        if self.model in TRAINED and self._subject_of(self.model) is None:
            lab, self.model = TRAINED[self.model], self._current_id()
            self.say(error=f"Nothing is trained in this page yet in {TRAINED_LABS[lab]}: train a model there that "
                           "this page reads (cue–delay in the memory lab, experiment 2's counting in the extrapolation "
                           "lab), then Pause — it is measured and offered here. The model in use stays.")
            return
        try:
            subject = self._subject_of(self.model)
        except ValueError as e:
            self.model = self._current_id()
            self.say(error=f"Model not loaded: {e}. The model in use stays.")
            return
        self._use(subject)

    def _current_id(self):
        """The id of the model in use."""
        if self.subject is self._file_subject:
            return FILE
        mine = {**self._loaded, **{k: self._trained.subjects.get(lab) for k, lab in TRAINED.items()}}
        return next(k for k, s in mine.items() if s is self.subject)

    def install_file(self, subject):
        """Inspect a model loaded from a file (.files) from now on."""
        self._file_subject = subject
        if self.model == FILE:
            self._use(subject)
        else:
            self.model = FILE

    def say(self, error=None, file=None):
        """Show why something was refused (what is shown stays) and/or a note on files."""
        self._error = self._error if error is None else error
        self._file_note = self._file_note if file is None else file
        self._render()

    # ------------------------------------------------------------ what is shown
    def input_text(self):
        """The input shown: the typed text, or the first example of the first set."""
        if self.text or not self.subject.sets:
            return self.text
        return next(iter(self.subject.sets.values()))[0].text

    def other_text(self, text):
        """The swap's other input: the one typed, or the first example with another answer."""
        if self.other or not self.subject.sets:
            return self.other
        mine = self.subject.target(text)
        examples = next(iter(self.subject.sets.values()))
        return next((e.text for e in examples if e.target != mine and len(e.text) > self.step), examples[0].text)

    def reading(self):
        """The probe's Reading (fitted once per model and label), or None (no probe for this model)."""
        if self.probe not in self.subject.labels:
            return None
        if self.probe not in self._readings:
            self._readings[self.probe] = subjects.reading(self.subject, self.probe)
        return self._readings[self.probe]

    def intervention(self, text, ids):
        """The intervention the controls describe, as gleam makes it (None: none)."""
        T = len(text)
        if self.action == "none":
            return None
        if self.step >= T:
            raise ValueError(f"character {self.step} is past the input's last, {T - 1}")
        if self.action == "clamp":
            return iv.clamp_unit(self.unit, self.value, list(range(self.step, T)))
        if self.action == "patch":
            r = self.reading()
            if r is None:
                raise ValueError("this model has no probe (its vocabulary names no task): a patch needs one")
            return iv.add_along(r.direction, self.alpha, [self.step])
        if self.action == "swap":
            other = self.other_text(text)
            return inspect.transplant(self.subject.model, self.subject.encode(other), self.step)
        X = ids[:, None] if ids.ndim == 1 else ids[:, None, :]
        return iv.zero_input(X, [self.step], d=len(self.subject.alphabet) if ids.ndim == 1 else None)

    @param.depends("text", "probe", "action", "step", "unit", "value", "alpha", "other", watch=True)
    def _recompute(self):
        s = self.subject
        try:
            text = self.input_text()
            if not text:
                raise ValueError("type an input: this model's vocabulary names no task, so there are no examples")
            ids = s.encode(text)
            if text not in self._before:      # (the steps it shares with the last input keep their σ)
                known = next(((s.encode(t), lk) for t, lk in self._before.items()), None)
                self._before = {text: inspect.look(s.model, ids, self._fit, known=known)}
            before, after, words = self._before[text], self._before[text], ""
            reading = self.reading()
            intervention = self.intervention(text, ids)
            if intervention is not None:
                _, after = inspect.edit(s.model, ids, intervention, self._fit, before=before)
                words = inspect.in_words(before, after, s.classes, reading.probe if reading else None)
        except ValueError as e:
            self._error = f"Not shown: {e}. What was shown stays."
            self._render()
            return
        self._error, self._words = "", words
        truth = s.labels_of(text).get(self.probe) if reading else None
        self.views.show(before, after, reading, truth)
        self._shown = {"subject": s, "text": text, "before": before, "after": after, "reading": reading, "intervened": intervention is not None}
        self._render()

    def _render(self):
        v = self.values()
        self._summary.object = (
            f"<div>{gv('inspector.model', v['inspector.model'])} — {gv('inspector.status', v['inspector.status'])}</div>"
            f"<div>Input {gv('inspector.input', v['inspector.input'])}: the model answers "
            f"{gv('inspector.prediction', v['inspector.prediction'])}; the task's answer is "
            f"{gv('inspector.target', v['inspector.target'])}. With the intervention: "
            f"{gv('inspector.after', v['inspector.after'])}.</div>"
            f"<div><b>{gv('inspector.words', v['inspector.words'])}</b></div>"
            f"<div class='gl-error'>{gv('inspector.error', v['inspector.error'])}</div>"
            f"<div class='gl-note'>{gv('inspector.file', v['inspector.file'])}</div>")
        self._probe_note.object = (
            f"<div class='gl-note'>Probe of {gv('inspector.probe', v['inspector.probe'])}: held-out score "
            f"{gv('inspector.probe.accuracy', v['inspector.probe.accuracy'])}, control task "
            f"{gv('inspector.probe.control', v['inspector.probe.control'])}, selectivity "
            f"{gv('inspector.probe.selectivity', v['inspector.probe.selectivity'])}. The largest stretch of one step: "
            f"{gv('inspector.sigma_max', v['inspector.sigma_max'])}; the two components hold "
            f"{gv('inspector.explained', v['inspector.explained'])} of the first set's variance.</div>")

    def values(self):
        s, shown = self.subject, self._shown
        out = {"inspector.model": s.title, "inspector.status": s.status, "inspector.error": self._error,
               "inspector.file": self._file_note, "inspector.words": self._words}
        if not shown or shown["subject"] is not s:
            return {**out, **{k: "—" for k in ("inspector.input", "inspector.prediction", "inspector.target",
                                               "inspector.after", "inspector.probe", "inspector.probe.accuracy",
                                               "inspector.probe.control", "inspector.probe.selectivity",
                                               "inspector.sigma_max", "inspector.explained")}}
        before, after, r = shown["before"], shown["after"], shown["reading"]
        target = s.target(shown["text"])
        said = lambda look: f"{s.classes[look.prediction]} (p = {fmt_fixed(look.probabilities[look.prediction], 3)})"  # noqa: E731
        sigma = before.sensitivity
        return {**out, "inspector.input": shown["text"], "inspector.prediction": said(before),
                "inspector.target": "no rule for this text" if target is None else s.classes[target],
                "inspector.after": said(after) if shown["intervened"] else "none chosen",
                "inspector.probe": LABEL_NAMES[r.label] if r else "none (no task)",
                "inspector.probe.accuracy": fmt_fixed(r.report.accuracy, 3) if r else "—",
                "inspector.probe.control": fmt_fixed(r.report.control_accuracy, 3) if r else "—",
                "inspector.probe.selectivity": fmt_fixed(r.report.selectivity, 3) if r else "—",
                "inspector.sigma_max": fmt_fixed(float(np.max(sigma)), 3) if len(sigma) else "— (one character)",
                "inspector.explained": " and ".join(f"{fmt_fixed(100 * x, 1)}%" for x in before.explained)}

    # ------------------------------------------------------------ layout
    def widget(self):
        w = pn.widgets
        groups = {}
        for c in CHOICES:
            groups.setdefault(c.group, {})[c.name] = c.id
        groups["trained in this page"] = {name: f"trained/{lab}" for lab, name in TRAINED_LABS.items()}
        groups["your own model"] = {"the file you loaded": FILE}
        model = self.control("model", w.Select, options=[], groups=groups, width=300)
        chooser = pn.Column(model, *self.files.controls(), width=320)
        inputs = pn.Column(self.control("text", w.TextInput, width=300, max_length=subjects.MAX_TEXT), self._picker,
                           self.control("probe", w.Select, width=300, options={v: k for k, v in LABEL_NAMES.items()}),
                           width=320)
        acts = pn.Column(self.control("action", w.Select, width=300, options={v: k for k, v in ACTIONS.items()}),
                         self.control("step", w.IntInput, width=140), self.control("unit", w.IntInput, width=140),
                         self.control("value", w.FloatSlider, width=280), self.control("alpha", w.FloatSlider, width=280),
                         self.control("other", w.TextInput, width=300, max_length=subjects.MAX_TEXT), width=320)
        views = pn.Column(self._summary, self._probe_note, *self.views.panels(), sizing_mode="stretch_width")
        return pn.Column(card(wrap_row(chooser, inputs, acts, basis=320), layout=pn.Column, max_width=1100),
                         card(views, layout=pn.Column, max_width=1100), sizing_mode="stretch_width")
