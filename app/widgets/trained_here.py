"""The models trained in this page, offered to the model inspector: for each research lab whose
retrain trains a model the inspector reads (gleam.labs.subjects.from_run: the memory lab's
cue–delay runs, the extrapolation lab's counting runs in accept mode), the last one measured —
a copy of its weights when its training stopped (Pause, Step, its last epoch). It stays when the
lab's run is replaced or reset; a newer measurement of the same lab takes its place. One per Lab,
so one per session under `panel serve`: nothing is shared between visitors."""
import param


class TrainedHere(param.Parameterized):
    """lab (gleam's name of it) -> the Subject of its last measured model (`subjects`); `offered`
    counts the offers, for a viewer that follows them. gleam.labs.subjects is imported only when a
    lab's retrain has measured a model (a page that trains nothing never loads it)."""

    offered = param.Integer(default=0, precedence=-1)

    def __init__(self, **params):
        super().__init__(**params)
        self.subjects = {}

    def offer(self, lab, run, metrics):
        """A lab's retrain measured `run` (its `metrics`): keep a copy, if the inspector reads it.
        (The retrain says None when its run is replaced: the copy stays, watch_retrain skips it.)"""
        from gleam.labs import subjects
        try:
            self.subjects[lab] = subjects.from_run(run, metrics)
        except ValueError:          # a run of another kind (brackets, sums, predict): not offered
            return
        self.offered += 1

    def watch_retrain(self, lab, retrain):
        """Offer every model `retrain` (app.widgets.retrain.Retrain) measures from now on."""
        retrain.on_measured = lambda run: run is not None and self.offer(lab, run, retrain.tested[1])
