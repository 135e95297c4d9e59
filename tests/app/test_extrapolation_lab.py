"""The extrapolation lab without a browser: every number of its tables is the shipped records'
(tests/extrap_trained.py works them out from the records alone, not from the summary); every
published-beside-measured verdict is recomputed from the records; the prose's claims are the
records'; the retrain is a demonstration at the page's short budget: run to the end it is gleam's
run of that config, number for number, beside the shipped run of the same setting."""

import pytest

from gleam_lab.app.chapters.extrapolation_lab import ExtrapolationLabChapter
from gleam_lab.app.chapters.extrapolation_lab.retrain import DEMO, EXPERIMENTS, build_record, config_of, rows
from gleam import pretrained
from surface import find, set_value, shown
from tests.extrap_trained import KEY, SUMS, expected, seeds, verdicts


@pytest.fixture(scope="module")
def chapter():
    return ExtrapolationLabChapter()


@pytest.fixture(scope="module")
def text():
    from gleam_lab import content
    return " ".join(content.render("extrapolation").split())


def test_every_number_of_the_tables_is_the_records(chapter):
    want = expected()
    v = chapter.values()
    assert {k: v.get(k) for k in want} == want
    published = {k for k in v if ".published." in k}
    assert {k for k in v if k.startswith(f"{KEY}.")} == set(want) | published       # nothing else shown
    assert {k: x for k, x in shown(chapter).items() if k.startswith(f"{KEY}.")} == {
        k: x for k, x in v.items() if k.startswith(f"{KEY}.")}


def test_every_verdict_is_the_records(chapter):
    v = chapter.values()
    for name, want in verdicts().items():
        got = [v[f"{KEY}.{name}.published.{i}.verdict"] for i in range(len(want))]
        assert got == want, name
        assert f"{KEY}.{name}.published.{len(want)}.verdict" not in v


def test_the_digit_sum_automaton_is_exact_at_every_value():
    from gleam import tasks
    from gleam.examples.extrapolation_lab import digit_sum_mod10
    for e in tasks.nested_sums(200, 5, max_depth=4, max_operands=3, p_nest=0.3):
        assert digit_sum_mod10(e.text) == e.facts["value"] % 10 == e.target


def test_the_validation_curves_draw_every_seed(chapter):
    shipped = pretrained.results("extrapolation")
    for names, plot in ((("length_depth",), "ld-val"), (("predict",), "predict-val"), (tuple(SUMS.values()), "sums-val")):
        records = sorted((r for name in names for r in shipped[name]), key=lambda r: r["config"]["seed"])
        for cell in sorted({r["config"]["cell"] for r in records}):
            mine = [r for r in records if r["config"]["cell"] == cell]
            for i, r in enumerate(mine):
                assert chapter.trained.plots[plot].data(f"{cell}.{i}") == (
                    [float(u) for u, _ in r["curve"]], [s for _, s in r["curve"]])


def test_the_hard_set_curves_are_the_learned_seeds_beside_a_mod4_counter(chapter):
    ns = list(range(1, 17)) + [24, 32, 40, 48, 56, 64, 72, 80]
    ok = [m for m in seeds("counting", kind="anbn", cell="lstm") if m["learned"]]
    for i, m in enumerate(ok):
        assert chapter.trained.plots["hard-anbn"].data(f"lstm.{i}")[1] == [m[f"hard_{n}"] for n in ns]
    xs, ys = chapter.trained.plots["hard-anbn"].data("mod4.0")
    ms = seeds("counting", kind="anbn", cell="elman")
    assert ys == pytest.approx([sum(m[f"mod4_hard_{n}"] for m in ms) / len(ms) for n in ns])
    assert max(ys[8:]) < 0.95                            # the automaton fails the hard sets past small n


def test_the_prose_states_the_records(text):
    ld = {c: seeds("length_depth", cell=c) for c in ("elman", "gru_torch", "lstm")}
    n = {c: (sum(m["learned"] for m in ms), len(ms)) for c, ms in ld.items()}
    assert (f"Learned: {n['elman'][0]} of {n['elman'][1]} Elman seeds, {n['gru_torch'][0]} of {n['gru_torch'][1]} GRU "
            f"seeds and {n['lstm'][0]} of {n['lstm'][1]} LSTM seeds") in text
    shipped = pretrained.results("extrapolation")
    k = {c: [r["metrics"]["learned"] for r in shipped[name]] for c, name in SUMS.items()}
    assert (f"Learned: {sum(k['lstm'])} of {len(k['lstm'])} LSTM seeds (with the drop) and {sum(k['gru_torch'])} of "
            f"{len(k['gru_torch'])} GRU seeds.") in text
    constant = [r["metrics"]["learned"] for r in shipped["sums_lstm_constant"]]
    assert f"the LSTM learned in {sum(constant)} of {len(constant)} seeds" in text
    level = pretrained.SPECS["extrapolation"]["sums_lstm"]["fixed"]["lr_drop_at"]
    falls = []                                  # each constant-rate seed's largest fall once at the level
    for r in shipped["sums_lstm_constant"]:
        scores = [v for _, v in r["curve"]]
        i = next((j for j, v in enumerate(scores) if v >= level), len(scores))
        falls.append(max([0.0] + [a - b for a, b in zip(scores[i:], scores[i + 1:])]))
    assert (f"once its validation score had reached {level} it still fell between two checks, by as much as "
            f"{min(falls):.2f} to {max(falls):.2f}") in " ".join(text.split())
    assert "The two cells' schedules differ" in text
    below = [c for c in ("lstm", "gru_torch") if 0 < sum(k[c]) < 8 * len(k[c]) / 10]
    assert text.count("falls below the bar this lab sets") == len(below)
    for c in below:
        name = {"lstm": "LSTM", "gru_torch": "GRU"}[c]
        assert f"The {name} falls below the bar" in text and f"{sum(k[c])} of {len(k[c])} seeds learned" in text
        assert f"no claim about the {name} rests on them" in text
    failed = [c for c in ("lstm", "gru_torch") if not any(k[c])]
    assert ("learned: a failure to learn at this budget" in text) == bool(failed)
    lstm = [m for m in seeds("counting", kind="anbn", cell="lstm") if m["learned"]]
    k = sum(m["hard_largest_n"] >= 16 for m in lstm)
    assert f"{k} of the {len(lstm)} seeds that learned reach n = 16" in text
    assert "were artefacts" in text and "sections 1–4" in text
    for op, h in (("a + b", "linear"), ("a·b", "nmu")):
        name = "arith_add" if op == "a + b" else "arith_mul"
        assert f"{ {'linear': 'linear', 'nmu': 'NMU'}[h]} on {op} {sum(m['solved'] for m in seeds(name, head=h))}" in text


def test_the_retrain_opens_on_a_stated_demo_budget(chapter):
    v = chapter.values()
    assert v["extrapolation.retrain.demo"] == f"{DEMO['length_depth']['n_train']:,} examples, {DEMO['length_depth']['epochs']} epochs"
    assert chapter.retrain.run.config["n_val"] == 0 and chapter.retrain.run.config["check_every"] == 0


@pytest.mark.parametrize("experiment, choices, name", [
    ("1. length vs depth", {"cell": "lstm", "seed": 2}, "length_depth"),
    ("2. counting (accept)", {"kind": "anbncn", "cell": "gru_torch", "seed": 1}, "counting"),
    ("3. predicting aⁿbⁿ", {"cell": "elman", "seed": 0}, "predict")])
def test_a_retrain_to_the_end_is_gleams_run_beside_the_shipped_one(experiment, choices, name):
    c = ExtrapolationLabChapter()
    c.__panel__()
    set_value(c, "gl-chextrapolation-x", experiment)
    for key, value in choices.items():
        set_value(c, f"gl-chextrapolation-{key}", value)
    config = config_of(c.experiment, c.cell, c.kind, c.seed)
    module = EXPERIMENTS[experiment][1]
    assert c.retrain.run.config == module.normalized(config)
    where = {k: v for k, v in choices.items() if k != "seed"}
    assert build_record(config) == seeds(name, **where)[choices["seed"]]
    c.retrain.loop.tick(n=10 ** 5)
    v = c.values()
    assert v["extrapolation.retrain.status"] == "finished"
    mine = EXPERIMENTS[experiment][2](config)
    while mine.steps < mine.total_steps:
        mine.step(mine.total_steps)
    want = mine.metrics()
    from gleam_lab.app.widgets.retrain import metric_text
    for key, _, how in rows(c.retrain.run):
        assert v[f"extrapolation.retrain.mine.{key}"] == metric_text(want[key], how), key


def test_the_language_is_read_by_counting_only_and_a_seed_not_shipped_says_so():
    c = ExtrapolationLabChapter()
    c.__panel__()
    assert find(c, "gl-chextrapolation-kind").disabled
    set_value(c, "gl-chextrapolation-x", "2. counting (accept)")
    assert not find(c, "gl-chextrapolation-kind").disabled
    set_value(c, "gl-chextrapolation-x", "4. nested sums")
    assert find(c, "gl-chextrapolation-kind").disabled
    assert c.values()["extrapolation.retrain.demo"] == f"{DEMO['sums']['n_examples']} sums drawn, 1 epoch"
    set_value(c, "gl-chextrapolation-seed", 10)                    # the shipped records hold seeds 0-9
    assert c.retrain.build is None and c.values()["extrapolation.retrain.build"].startswith("The shipped results hold no run")


def test_the_sums_retrain_stands_beside_its_cells_own_shipped_run():
    # the LSTM's shipped runs at the drop, not those at the constant rate tried before it
    for cell, name in SUMS.items():
        assert config_of("4. nested sums", cell, "anbn", 3)["cell"] == cell
        assert build_record(config_of("4. nested sums", cell, "anbn", 3)) == seeds(name, cell=cell)[3]
