"""Chapter 9: the self-test (chapter 4's cell on input a) and its checker, the deployment budget."""
import math
import numbers

from gleam import checks
from gleam import costs as counting
from gleam.examples.ch4_gru import CONVENTIONS, gru_example

__all__ = ['chapter9_self_test', 'chapter9_check_self_test', 'chapter9_deployment', 'SELF_TEST_ENTRIES',
           'SELF_TEST_TOLERANCE']

# the self-test's entries: (answer key, quantity, unit 1 or 2, field of chapter9_self_test)
SELF_TEST_ENTRIES = tuple((f"{q}{u}", q, u, field) for q, field in
                          (("z", "z"), ("r", "r"), ("htilde", "candidate"), ("h", "h")) for u in (1, 2))
SELF_TEST_TOLERANCE = 0.0005         # right to 4 decimals, as the syllabus prints the answers
# how far off an answer is, in words (first band whose bound exceeds the distance)
_OFF_BANDS = ((0.005, "only slightly (by less than 0.005): check the last digits"),
              (0.05, "by less than 0.05"), (0.2, "by less than 0.2"), (math.inf, "by 0.2 or more"))


def chapter9_self_test(convention="textbook"):
    return gru_example("a", convention)


def _parse(answer):
    """A typed answer -> (status, float or None): '' / None is missing; '−0.5' and '0,5' are read."""
    if answer is None or (isinstance(answer, str) and not answer.strip()):
        return "missing", None
    if isinstance(answer, numbers.Real) and not isinstance(answer, bool):
        value = float(answer)
    else:
        try:
            value = float(str(answer).strip().replace("\u2212", "-").replace(",", "."))
        except ValueError:
            return "not a number", None
    return ("not a number", None) if not math.isfinite(value) else ("given", value)


def _verdict(key, quantity, unit, status, value, want, tolerance, lookalikes):
    entry = {"key": key, "quantity": quantity, "unit": unit, "value": value, "direction": None}
    if status != "given":
        return {**entry, "status": status, "message": status}
    if abs(value - want) <= tolerance:
        return {**entry, "status": "correct", "message": "correct"}
    direction = "too high" if value > want else "too low"
    band = next(text for bound, text in _OFF_BANDS if abs(value - want) < bound)
    message = f"off: {direction}, {band}"
    for what, other in lookalikes:       # a right answer to a neighbouring question
        if abs(value - other) <= tolerance and abs(other - want) > tolerance:
            message += f"; that is {what}"
            break
    return {**entry, "status": "off", "direction": direction, "message": message}


def chapter9_check_self_test(answers, tolerance=SELF_TEST_TOLERANCE):
    """The learner's answers to the self-test, checked against chapter9_self_test (textbook).

    answers: {key: typed text or number} for the keys of SELF_TEST_ENTRIES (z1, z2, r1, r2,
    htilde1, htilde2, h1, h2; unit 1 and 2). Each entry is "correct" (within `tolerance`),
    "off" (with the direction and a rough size, never the answer; and a note when it is the
    right value of a neighbouring question: PyTorch's convention, or chapter 4's input b),
    "missing" or "not a number".
    """
    if not (isinstance(tolerance, numbers.Real) and math.isfinite(tolerance) and tolerance > 0):
        raise ValueError(f"tolerance must be a finite number > 0, got {tolerance!r}")
    if not isinstance(answers, dict):
        raise ValueError(f"answers must be a dict {{key: answer}}, got {type(answers).__name__}")
    want, torch, ch4 = chapter9_self_test(), chapter9_self_test("torch"), gru_example("b", "textbook")
    entries = []
    for key, quantity, unit, field in SELF_TEST_ENTRIES:
        status, value = _parse(answers.get(key))
        lookalikes = (("the PyTorch convention's value", torch[field][unit - 1]),
                      ("chapter 4's value (input b)", ch4[field][unit - 1]))
        entries.append(_verdict(key, quantity, unit, status, value, want[field][unit - 1], tolerance,
                                lookalikes))
    by_status = {s: [e["key"] for e in entries if e["status"] == s]
                 for s in ("correct", "off", "missing", "not a number")}
    return {"tolerance": tolerance, "entries": entries, "verdicts": {e["key"]: e for e in entries},
            "n_correct": len(by_status["correct"]), "n_entries": len(entries),
            "all_correct": len(by_status["correct"]) == len(entries), **by_status,
            "answers": {key: want[field][unit - 1] for key, _, unit, field in SELF_TEST_ENTRIES}}


def chapter9_deployment(d=256, n=512, layers=2, vocab=50_000, tokens=10_000):
    """gleam.costs.deployment_budget of a stacked GRU LM, with the ratios the chapter reads."""
    for name, value, low in (("d", d, 1), ("n", n, 1), ("layers", layers, 1), ("vocab", vocab, 1),
                             ("tokens", tokens, 0)):
        checks.integer(name, value, minimum=low, whole_floats=True)
    b = counting.deployment_budget("gru", d=d, n=n, layers=layers, vocab=vocab, tokens=tokens)
    return {**b, "d": d, "n": n, "layers": layers, "vocab": vocab,
            "kv_cache_megabytes": b["kv_cache_bytes"] / 1e6,
            "readout_over_recurrent_macs": b["readout_macs_per_token"] / b["recurrent_macs_per_token"],
            "kv_cache_over_state": b["kv_cache_bytes"] / b["state_bytes"]}


def examples():
    """What `python -m gleam.examples --json` prints for this chapter."""
    return {"chapter9_self_test": {c: chapter9_self_test(c) for c in CONVENTIONS},
            "chapter9_deployment": chapter9_deployment()}
