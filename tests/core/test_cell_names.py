"""gleam.cells.names: the one vocabulary, and gleam.checks: the one wording of refusals."""
import numpy as np
import pytest

from gleam import checks
from gleam.cells import names as cell_names
from gleam.cells.names import BLOCKS, CELL_NAMES, KIND_OF, KINDS, check_cell, kind


def test_the_vocabulary():
    assert CELL_NAMES == ("elman", "gru_textbook", "gru_torch", "lstm")
    assert KINDS == ("elman", "gru", "lstm")
    assert KIND_OF == {"elman": "elman", "gru_textbook": "gru", "gru_torch": "gru", "lstm": "lstm"}
    assert BLOCKS == {"elman": 1, "gru": 3, "lstm": 4}
    assert set(KIND_OF.values()) == set(KINDS) == set(BLOCKS)


def test_check_cell_and_kind():
    for name in CELL_NAMES:
        assert check_cell(name) == name and kind(name) == KIND_OF[name]
    for k in KINDS:
        assert kind(k) == k
    with pytest.raises(ValueError, match="^unknown cell 'gru'; known cells: elman, gru_textbook, "
                                         "gru_torch, lstm$"):
        check_cell("gru")
    with pytest.raises(ValueError, match="^unknown cell 'rnn'; known: elman, gru, lstm, "
                                         "gru_textbook, gru_torch$"):
        kind("rnn")
    for bad in (None, 3, ["gru"]):
        with pytest.raises(ValueError, match="unknown cell"):
            check_cell(bad)
        with pytest.raises(ValueError, match="unknown cell"):
            cell_names.kind(bad)


# ---- gleam.checks -------------------------------------------------------------------------
def test_integer():
    assert checks.integer("n", 3) == 3 and type(checks.integer("n", np.int64(3))) is int
    assert checks.integer("n", 0, minimum=0) == 0
    assert checks.integer("k", None, minimum=1, none_ok=True) is None
    assert checks.integer("d", 4.0, minimum=1, whole_floats=True) == 4
    for value, message in [(-1, "n must be an integer >= 0, got -1"),
                           (True, "n must be an integer >= 0, got True"),
                           (2.0, "n must be an integer >= 0, got 2.0"),
                           ("2", "n must be an integer >= 0, got '2'"),
                           (None, "n must be an integer >= 0, got None")]:
        with pytest.raises(ValueError, match=f"^{message}$"):
            checks.integer("n", value, minimum=0)
    with pytest.raises(ValueError, match=r"^unit must be an integer in \[0, 1\], got 2$"):
        checks.integer("unit", 2, minimum=0, maximum=1)
    with pytest.raises(ValueError, match="^k must be None or an integer >= 1, got 0$"):
        checks.integer("k", 0, minimum=1, none_ok=True)
    for bad in (2.5, True, float("inf"), float("nan")):
        with pytest.raises(ValueError, match="d must be an integer >= 1"):
            checks.integer("d", bad, minimum=1, whole_floats=True)


def test_number():
    assert checks.number("lr", 1) == 1.0 and type(checks.number("lr", np.float32(0.5))) is float
    assert checks.number("clip", float("inf"), minimum=0, strict_min=True, allow_inf=True) == float("inf")
    assert checks.number("s", None, none_ok=True) is None
    assert checks.number("v", 1.0, minimum=0, maximum=1) == 1.0
    cases = [(dict(minimum=0, strict_min=True), -1.0, "lr must be a finite number > 0, got -1.0"),
             (dict(minimum=0, strict_min=True), 0, "lr must be a finite number > 0, got 0"),
             (dict(minimum=0), float("nan"), "lr must be a finite number >= 0, got nan"),
             (dict(minimum=0), float("inf"), "lr must be a finite number >= 0, got inf"),
             (dict(minimum=0), "0.1", "lr must be a finite number >= 0, got '0.1'"),
             (dict(minimum=0, maximum=1, strict_max=True), 1.0,
              r"lr must be a finite number in \[0, 1\), got 1.0"),
             (dict(maximum=1), 2, "lr must be a finite number <= 1, got 2"),
             (dict(minimum=0, strict_min=True, allow_inf=True), float("nan"),
              "lr must be a number > 0, got nan"),
             (dict(minimum=0, strict_min=True, allow_inf=True), -float("inf"),
              "lr must be a number > 0, got -inf"),
             (dict(none_ok=True, minimum=0), -2, "lr must be None or a finite number >= 0, got -2")]
    for kw, value, message in cases:
        with pytest.raises(ValueError, match=f"^{message}$"):
            checks.number("lr", value, **kw)


def test_generator_and_one_of():
    rng = np.random.default_rng(0)
    assert checks.generator("rng", rng) is rng
    with pytest.raises(ValueError, match="^rng must be a numpy.random.Generator, got int$"):
        checks.generator("rng", 3)
    assert checks.one_of("head", "regress", ("classify", "regress")) == "regress"
    with pytest.raises(ValueError, match="^head must be one of 'classify', 'regress', got 'x'$"):
        checks.one_of("head", "x", ("classify", "regress"))
    with pytest.raises(ValueError, match="^preset must be one of 'a', got \\['a'\\]$"):
        checks.one_of("preset", ["a"], {"a": 1})
