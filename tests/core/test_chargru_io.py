"""Your own text, keeping the model, taking the code home: gleam.chargru.corpus (decode_corpus and
the limits of check_corpus), gleam.chargru.fileformat (a model as a file, and every way a file is refused)
and gleam.chargru.export (the standalone script, run here with this Python and NumPy only)."""
import ast
import copy
import codecs
import io
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from gleam import examples
from gleam.chargru import fileformat as chargru_io
from gleam.chargru import standalone as standalone_chargru
from gleam.chargru import (DEFAULT_CORPUS, MAX_CORPUS_CHARS, MAX_FILE_BYTES, MAX_VOCAB, CharGRU,
                           check_corpus, decode_corpus, export_script)

TEMPLATE = Path(standalone_chargru.__file__)
TEXT = "Über den Wassern: the river runs «fast» — and the wheel turns faster.\n" * 3


# --- your own text --------------------------------------------------------------------------------

def test_decode_corpus_reads_utf8_drops_a_bom_and_plain_line_ends():
    assert decode_corpus(TEXT.encode("utf-8")) == TEXT
    assert decode_corpus(codecs.BOM_UTF8 + TEXT.encode("utf-8")) == TEXT
    assert decode_corpus(TEXT.replace("\n", "\r\n").encode("utf-8")) == TEXT
    assert decode_corpus(bytearray(b"old mac\rline ends")) == "old mac\nline ends"


@pytest.mark.parametrize("data, message", [
    (b"", "the file is empty"),
    (b"x" * (MAX_FILE_BYTES + 1), f"the file is {MAX_FILE_BYTES + 1:,} bytes; the limit is {MAX_FILE_BYTES:,} bytes"),
    (TEXT.encode("utf-16"), "UTF-16 text .* byte-order mark.*save it as UTF-8"),
    (TEXT.encode("utf-16-be"), "looks like UTF-16 text.*save it as UTF-8"),
    (TEXT.encode("utf-16-le"), "looks like UTF-16 text.*save it as UTF-8"),
    (TEXT.encode("utf-32"), "UTF-32 text.*save it as UTF-8"),
    ("Мельница у реки, и мельник сидит на стене.".encode("utf-16-le"), "looks like UTF-16 text"),
    (b"\x00\x01\x02" * 20, "binary, not text: it has a NUL byte at byte 0"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(1, 200)), "binary, not text: it has a NUL byte at byte 8"),
    ("café au lait, the river runs".encode("latin-1"), "not UTF-8: byte 0xE9 at byte 3 cannot be decoded.*Latin-1"),
    (codecs.BOM_UTF8 + b"caf\xe9", "byte 0xE9 at byte 6"),
    (bytes(range(128, 256)) * 3, "not UTF-8: byte 0x80 at byte 0"),
    ("a str, not bytes", "expected the file's bytes, got str"),
])
def test_decode_corpus_refuses_what_is_not_utf8_text_and_says_which(data, message):
    with pytest.raises(ValueError, match=message):
        decode_corpus(data)


def test_a_file_under_the_byte_limit_is_never_over_the_character_limit():
    assert MAX_CORPUS_CHARS >= MAX_FILE_BYTES        # UTF-8: at least one byte a character
    text = decode_corpus(b"ab" * (MAX_FILE_BYTES // 2))
    check_corpus(text, 25)


@pytest.mark.parametrize("corpus, message", [
    ("ab" * (MAX_CORPUS_CHARS // 2) + "a", f"has {MAX_CORPUS_CHARS + 1:,} characters; the limit is {MAX_CORPUS_CHARS:,}"),
    ("".join(map(chr, range(0x4E00, 0x4E00 + MAX_VOCAB + 1))),
     f"has {MAX_VOCAB + 1} distinct characters; the limit is {MAX_VOCAB}"),
    ("abababab", "need at least seq_len \\+ 1 = 26"),
    ("a" * 40, "only one distinct character"),
])
def test_check_corpus_bounds_length_and_vocabulary_wherever_a_model_is_built(corpus, message):
    with pytest.raises(ValueError, match=message):
        check_corpus(corpus, 25)
    with pytest.raises(ValueError, match=message):
        CharGRU(corpus)


def test_the_largest_allowed_corpus_and_vocabulary_train():
    alphabet = "".join(map(chr, range(0x100, 0x100 + MAX_VOCAB)))
    m = CharGRU((alphabet * (MAX_CORPUS_CHARS // MAX_VOCAB + 1))[:MAX_CORPUS_CHARS], hidden=4)
    assert m.V == MAX_VOCAB and len(m.corpus) == MAX_CORPUS_CHARS
    assert m.step(2).n == 2


# --- keeping the model ------------------------------------------------------------------------------

def trained(steps=40, **kwargs):
    """A model trained across a wrap of the data, with the learning rate changed twice."""
    m = CharGRU(**kwargs)
    m.step(steps // 2)
    m.lr = 0.05
    m.step(steps - steps // 2)
    m.lr = 0.2
    m.sample(30)                               # the sampling generator has moved on
    return m


def assert_same_model(a, b):
    sa, sb = a.state_dict(), b.state_dict()
    for group in ("params", "memory"):
        for name in sa[group]:
            np.testing.assert_array_equal(sa[group][name], sb[group][name], err_msg=name)
    for key in ("h", "gates"):
        np.testing.assert_array_equal(sa[key], sb[key], err_msg=key)
    rest = [k for k in sa if k not in ("params", "memory", "h", "gates", "last_loss")]
    assert {k: sa[k] for k in rest} == {k: sb[k] for k in rest}
    assert sa["last_loss"] == sb["last_loss"] or (np.isnan(sa["last_loss"]) and np.isnan(sb["last_loss"]))


def test_a_loaded_model_continues_bit_for_bit_and_samples_the_same():
    a = trained()
    b = CharGRU.from_bytes(a.to_bytes())
    assert_same_model(a, b)
    assert (b.steps, b.position, b.lr, b.lr_history) == (a.steps, a.position, 0.2, ((0, 0.1), (20, 0.05), (40, 0.2)))
    assert b.last_loss == a.last_loss
    assert b.sample_preview(120, 0.8) == a.sample_preview(120, 0.8)
    assert b.sample(120) == a.sample(120)       # the model's own generator continues the same
    sa, sb = a.step(30), b.step(30)             # across another wrap of the data
    np.testing.assert_array_equal(sa.loss, sb.loss)
    np.testing.assert_array_equal(sa.grad_norm, sb.grad_norm)
    assert_same_model(a, b)


@pytest.mark.parametrize("how", [copy.copy, copy.deepcopy])
def test_a_copied_model_trains_as_the_original_would_and_apart_from_it(how):
    a = trained()
    b = how(a)
    assert_same_model(a, b)
    before = a.to_bytes()
    sb = b.step(30)
    assert a.to_bytes() == before                # training the copy leaves the original alone
    sa = a.step(30)
    np.testing.assert_array_equal(sa.loss, sb.loss)
    assert_same_model(a, b)


def test_the_file_is_an_npz_numpy_reads_without_pickle():
    m = trained(hidden=8, seq_len=10, clip=float("inf"), seed=12345)
    with np.load(io.BytesIO(m.to_bytes()), allow_pickle=False) as f:
        header = json.loads(str(f["header"]))
        assert set(f.files) == {"header", *chargru_io.ARRAYS}
        np.testing.assert_array_equal(f["param.Uh"], m.params["Uh"])
        np.testing.assert_array_equal(f["memory.Wy"], m.memory["Wy"])
    assert (header["format"], header["version"]) == ("gleam.chargru", 1)
    assert (header["hidden"], header["seq_len"], header["seed"], header["steps"]) == (8, 10, 12345, 40)
    assert header["clip"] is None and header["corpus"] == DEFAULT_CORPUS
    assert CharGRU.from_bytes(m.to_bytes()).clip == float("inf")


def test_a_diverged_model_stays_diverged_after_loading():
    m = CharGRU(lr=5.0)
    m.step(50)
    assert m.diverged
    b = CharGRU.from_bytes(m.to_bytes())
    assert b.diverged and b.last_loss == m.last_loss and b.steps == m.steps
    assert b.step(5).n == 0


def test_a_fresh_model_round_trips():
    m = CharGRU(corpus=TEXT, hidden=4)
    b = CharGRU.from_bytes(m.to_bytes())
    assert_same_model(m, b)
    assert np.isnan(b.last_loss) and b.steps == 0
    np.testing.assert_array_equal(m.step(3).loss, b.step(3).loss)


def test_chapter7_files_example_continues_with_the_same_loss():
    e = examples.chapter7_files()
    assert e["next_loss"] == e["next_loss_loaded"] and 0 < e["next_loss"] < 3
    assert e["model_file_bytes"] < chargru_io.MAX_MODEL_BYTES


def rewrite(data, header=None, drop=(), **arrays):
    """The .npz `data` with header fields and arrays replaced (None: removed)."""
    with np.load(io.BytesIO(data), allow_pickle=False) as f:
        content = {k: f[k] for k in f.files if k not in drop}
    h = json.loads(str(content["header"]))
    for k, v in (header or {}).items():
        if v is None:
            h.pop(k, None)
        else:
            h[k] = v
    content["header"] = np.array(json.dumps(h))
    content.update(arrays)
    out = io.BytesIO()
    np.savez(out, **content)
    return out.getvalue()


GOOD = trained(steps=12).to_bytes()
H, V = 32, 24


def zipped(**members):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return out.getvalue()


def npy_of(obj):
    out = io.BytesIO()
    np.save(out, obj, allow_pickle=True)
    return out.getvalue()


@pytest.mark.parametrize("data, message", [
    (b"\x00\x01garbage bytes, not a model" * 10, "not an .npz archive"),
    (b"", "not an .npz archive"),
    ("text".encode("utf-8") * 30, "not an .npz archive"),
    (GOOD[:len(GOOD) // 2], "cannot be read"),
    (GOOD[:200], "cannot be read"),
    (zipped(**{"x.npy": npy_of(np.zeros(3))}), "no header"),
    (zipped(), "no header"),
    (zipped(**{"header.npy": npy_of(np.array([{"format": "gleam.chargru"}], dtype=object))}), "cannot be read"),
    (zipped(**{"header.npy": npy_of(np.arange(3))}), "header is not one text"),
    (zipped(**{"header.npy": npy_of(np.array("{not json"))}), "header is not JSON"),
    (rewrite(GOOD, header={"format": "someone.else"}), "format is 'someone.else'"),
    (rewrite(GOOD, header={"version": 3}), "format version 3 of gleam.chargru; this lab reads versions 1 and 2"),
    (rewrite(GOOD, header={"version": 2}), "the file lacks batch"),    # version 2 is B > 1 streams
    (rewrite(GOOD, header={"steps": None}), "lacks steps"),
    (rewrite(GOOD, drop=("memory.Uz",)), "lacks memory.Uz"),
    (rewrite(GOOD, **{"param.Wy": np.zeros((V, H + 1))}), r"params.Wy has shape \(24, 33\), expected \(24, 32\)"),
    (rewrite(GOOD, **{"param.Uh": np.full((H, H), np.nan)}), "params.Uh has values that are not finite"),
    (rewrite(GOOD, **{"param.bz": np.zeros(H, dtype=np.float32)}), "params.bz must be a float64 array, got float32"),
    (rewrite(GOOD, **{"memory.Wz": -np.ones((H, V))}), r"memory.Wz has values outside \[0, inf\]"),
    (rewrite(GOOD, h=np.full(H, 1.5)), "h has values outside"),
    (rewrite(GOOD, h=np.zeros(H + 1)), r"h has shape \(33,\)"),
    (rewrite(GOOD, gates=np.full((25, 2 * H), 2.0)), "gates has values outside"),
    (rewrite(GOOD, last_loss=np.array([1.0, 2.0])), "last_loss must be one float64 number"),
    (rewrite(GOOD, header={"vocab": "abc"}), "vocabulary stored does not match the corpus"),
    (rewrite(GOOD, header={"vocab": "".join(sorted(set(DEFAULT_CORPUS)))[::-1]}), "does not match"),
    (rewrite(GOOD, header={"corpus": "xy"}), "need at least seq_len"),
    (rewrite(GOOD, header={"hidden": 0}), "hidden must be an integer >= 1, got 0"),
    (rewrite(GOOD, header={"hidden": 16}), r"params.Wz has shape \(32, 24\), expected \(16, 24\)"),
    (rewrite(GOOD, header={"seq_len": "25"}), "seq_len must be an integer"),
    (rewrite(GOOD, header={"lr": -1.0, "lr_history": [[0, 0.1]]}), "lr must be a finite number > 0"),
    (rewrite(GOOD, header={"steps": -3}), "steps must be an integer >= 0"),
    (rewrite(GOOD, header={"seed": -1}), "seed must be an integer >= 0"),
    (rewrite(GOOD, header={"position": 10_000}), "position must be an integer in"),
    (rewrite(GOOD, header={"position": 30}), "position must be a multiple of seq_len = 25, got 30"),
    (rewrite(GOOD, header={"diverged": "no"}), "diverged must be true or false"),
    (rewrite(GOOD, header={"lr_history": [[3, 0.1], [6, 0.2]]}), "must start at step 0"),
    (rewrite(GOOD, header={"lr_history": [[0, 0.1], [500, 0.2]]}), "steps in \\[0, 12\\]"),
    (rewrite(GOOD, header={"lr_history": [[0, 0.1]]}), "lr_history ends at lr = 0.1, but lr is 0.2"),
    (rewrite(GOOD, header={"lr_history": "fast"}), "lr_history must be"),
    (rewrite(GOOD, header={"sample_rng": {"bit_generator": "MT19937", "state": {}}}), "not the state of a PCG64"),
    (rewrite(GOOD, header={"sample_rng": {"bit_generator": "PCG64", "state": {"state": -1, "inc": 1},
                                          "has_uint32": 0, "uinteger": 0}}), "not the state of a PCG64"),
])
def test_a_file_that_is_not_a_model_to_continue_from_is_refused_with_a_reason(data, message):
    with pytest.raises(ValueError, match=message):
        CharGRU.from_bytes(data)


def test_a_huge_or_non_bytes_file_is_refused_before_it_is_read():
    with pytest.raises(ValueError, match="over the"):
        CharGRU.from_bytes(b"PK" + bytes(chargru_io.MAX_MODEL_BYTES))
    with pytest.raises(ValueError, match="got str"):
        CharGRU.from_bytes("PK...")
    bomb = io.BytesIO()
    np.savez_compressed(bomb, header=np.array("{}"), big=np.zeros(chargru_io.MAX_MODEL_BYTES // 8 + 1))
    with pytest.raises(ValueError, match="unpack to more than"):
        CharGRU.from_bytes(bomb.getvalue())


# --- the learning-rate history -----------------------------------------------------------------------

def test_lr_history_records_each_change_at_its_step():
    m = CharGRU()
    assert m.lr_history == ((0, 0.1),)
    m.lr = 0.1                                  # no change
    m.lr = 0.3                                  # before any step: replaces the start
    assert m.lr_history == ((0, 0.3),)
    m.step(4)
    m.lr = 0.05
    m.lr = 0.07                                 # twice between two steps: the last one counts
    m.step(1)
    m.lr = 0.3
    m.lr = 0.07                                 # and back again: no change at all
    assert m.lr_history == ((0, 0.3), (4, 0.07))
    m.reset()
    assert m.lr_history == ((0, 0.07),) and m.lr == 0.07


# --- taking the code home ------------------------------------------------------------------------------

def run_script(source, tmp_path, name="chargru_home.py"):
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    done = subprocess.run([sys.executable, "-I", str(path)], capture_output=True, text=True, timeout=300,
                          cwd=tmp_path)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    out = done.stdout
    losses = {int(s): float(v) for s, v in re.findall(r"^step (\d+): loss (\S+) nats", out, re.M)}
    last = re.search(r"^last chunk loss \(step (\d+)\): (\S+)$", out, re.M)
    sample = out.split("sample at temperature", 1)[1].split("\n", 1)[1].removesuffix("\n")
    return losses, (int(last.group(1)), float(last.group(2))), sample, out


def test_the_template_runs_as_it_is_and_trains_the_default_model(tmp_path):
    assert standalone_chargru.CORPUS == DEFAULT_CORPUS
    losses, (step, last), sample, _ = run_script(TEMPLATE.read_text(encoding="utf-8"), tmp_path)
    m = CharGRU()
    want = m.step(standalone_chargru.STEPS).loss
    assert step == standalone_chargru.STEPS and abs(last - want[-1]) < 1e-9
    assert all(abs(v - want[s - 1]) < 1e-9 for s, v in losses.items()) and len(losses) == 5
    assert sample == m.sample_preview(standalone_chargru.SAMPLE_CHARS)


def test_the_exported_script_replays_the_run_with_its_lr_changes(tmp_path):
    m = CharGRU(corpus=TEXT + 'quotes " \' and \\ backslashes\ttabs', hidden=16, seed=7)
    losses = list(m.step(90).loss)
    m.lr = 0.05
    losses += list(m.step(60).loss)
    m.lr = 0.3
    losses += list(m.step(50).loss)
    source = export_script(m, temperature=0.7)
    assert "STEPS = 200 " in source and "SEED = 7 " in source and "TEMPERATURE = 0.7 " in source
    assert "LR_SCHEDULE = [(0, 0.1), (90, 0.05), (150, 0.3)]" in source
    got, (step, last), sample, _ = run_script(source, tmp_path)
    assert step == 200 and abs(last - m.last_loss) < 1e-9
    assert sorted(got) == list(range(196, 201))
    assert all(abs(v - losses[s - 1]) < 1e-9 for s, v in got.items())
    assert sample == m.sample_preview(240, 0.7)


def test_a_diverged_run_stops_in_the_script_where_it_stopped_in_the_lab(tmp_path):
    m = CharGRU(lr=5.0)
    m.step(100)
    assert m.diverged
    _, (step, last), _, out = run_script(export_script(m), tmp_path)
    assert step == m.steps + 1 and last == pytest.approx(m.last_loss, rel=1e-9)
    assert f"diverged at step {m.steps + 1}" in out


def test_the_script_needs_only_numpy_and_the_standard_library():
    tree = ast.parse(export_script(trained()))
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported <= {"math", "numpy"} and "numpy" in imported
    assert "gleam" not in export_script(trained()).split("# </settings>")[1]


# --- found by fuzzing (tests/core/test_fuzz.py): each of these failed before its fix -------------

@pytest.mark.parametrize("seq_len", ["3", 2.5, float("nan"), 0, True])
def test_check_corpus_checks_seq_len_too(seq_len):
    # "3" was a TypeError, nan passed silently (len < nan + 1 is False)
    with pytest.raises(ValueError, match="^seq_len must be an integer >= 1, got"):
        check_corpus("abcabc", seq_len)


@pytest.mark.parametrize("temperature", [float("nan"), float("inf"), 0.0, -1.0, "1", None, True])
def test_the_script_is_written_only_for_a_temperature_it_can_sample_at(temperature):
    # nan was written as `TEMPERATURE = nan`, a script that stops at its first line of settings
    with pytest.raises(ValueError, match="^temperature must be a finite number > 0, got"):
        export_script(CharGRU(hidden=4), temperature=temperature)
    with pytest.raises(ValueError, match="^model must be a CharGRU, got NoneType$"):
        export_script(None)                          # was an AttributeError


def test_dumps_writes_only_what_it_can_write_and_names_the_part():
    state = CharGRU(hidden=4, seq_len=5).state_dict()
    with pytest.raises(ValueError, match=r"^state must be a dict \(a CharGRU.state_dict\(\)\), got NoneType$"):
        chargru_io.dumps(None)                       # was an AttributeError
    with pytest.raises(ValueError, match="^state lacks gates$"):
        chargru_io.dumps({k: v for k, v in state.items() if k != "gates"})     # was a KeyError
    with pytest.raises(ValueError, match="^state's settings must be plain JSON values, finite numbers"):
        chargru_io.dumps({**state, "lr": float("nan")})                         # was json's message
    with pytest.raises(ValueError, match=r"^state\['params'\]\['Wz'\] must be an array of numbers, got dtype object$"):
        chargru_io.dumps({**state, "params": {**state["params"], "Wz": np.array([None])}})  # was pickled
    with pytest.raises(ValueError, match=r"^state\['batch'\] must be an integer >= 1, got array"):
        chargru_io.dumps({**state, "batch": np.array([1, 2])})   # was "truth value ... is ambiguous"
    assert CharGRU.from_bytes(chargru_io.dumps(state)).to_bytes() == chargru_io.dumps(state)


def test_a_state_of_a_huge_model_is_refused_by_its_shapes_before_anything_is_allocated():
    state = CharGRU(hidden=4, seq_len=5).state_dict()
    # was numpy's "array is too big": check_state made a buffer of n_params(V, 10⁹) to read shapes from
    with pytest.raises(ValueError, match=r"^params.Wz has shape \(4, 24\), expected \(1000000000, 24\)$"):
        chargru_io.check_state({**state, "hidden": 10 ** 9})
