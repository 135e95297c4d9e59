"""gleam.checkpoints against PyTorch and Hugging Face's safetensors: a torch.nn.GRU, LSTM or RNN
with random weights, saved by the reference writers (safetensors.torch.save, numpy.savez of its
state_dict) and loaded with NumPy alone, gives torch's states and outputs; every malformed file
is refused with a sentence that names the problem."""
import json

import numpy as np
import pytest
import safetensors.numpy
import safetensors.torch
import torch
from hypothesis import given, settings, strategies as hs

from gleam import checkpoints as ck
from gleam.checkpoints import safetensors as st

LAYERS = {"GRU": torch.nn.GRU, "LSTM": torch.nn.LSTM, "RNN": torch.nn.RNN}
ALPHABET = list("0123456789+-*")
VOCAB = {"alphabet": ALPHABET, "classes": [str(i) for i in range(10)]}


class Net(torch.nn.Module):
    """The layout a researcher saves: a recurrent layer and a linear read-out of its last state."""

    def __init__(self, layer, d, n, n_out, dtype, seed):
        super().__init__()
        torch.manual_seed(seed)
        self.rnn = LAYERS[layer](d, n, dtype=dtype)
        self.head = torch.nn.Linear(n, n_out, dtype=dtype)
        with torch.no_grad():          # twice the default init's scale: the states move well
            for p in self.parameters():  # away from zero, and float32 rounding still stays small
                p.uniform_(-0.5, 0.5)

    def forward(self, onehot):         # (T, B, d) -> states (T, B, n), logits (B, n_out)
        states, _ = self.rnn(onehot)
        return states, self.head(states[-1])


def _run_torch(net, ids, d, dtype):
    onehot = torch.nn.functional.one_hot(torch.from_numpy(ids), d).to(dtype)
    with torch.no_grad():
        states, logits = net(onehot)
    return states.double().numpy(), logits.double().numpy()


def _saved(net, how):
    if how == "safetensors":
        return safetensors.torch.save(net.state_dict())
    return ck.write_npz({k: v.numpy() for k, v in net.state_dict().items()})


@pytest.mark.parametrize("layer", list(LAYERS))
@pytest.mark.parametrize("how", ["safetensors", "npz", "from_torch"])
@pytest.mark.parametrize("dtype,tol", [(torch.float64, 1e-10), (torch.float32, 1e-5)])
def test_a_torch_model_loaded_gives_torchs_states_and_outputs(layer, how, dtype, tol):
    d, n, T, B = len(ALPHABET), 16, 24, 5
    net = Net(layer, d, n, 10, dtype, seed=len(layer) + T)
    if how == "from_torch":
        loaded = ck.from_torch(net.rnn, net.head, VOCAB)
    else:
        loaded = ck.load(_saved(net, how), json.dumps(VOCAB).encode())
    assert loaded.layer == layer
    assert loaded.dtype == str(dtype).removeprefix("torch.")
    ids = np.random.default_rng(7).integers(0, d, size=(T, B))
    want_states, want_logits = _run_torch(net, ids, d, dtype)
    logits, states, _ = loaded.model.forward(ids)
    assert np.abs(states - want_states).max() < tol
    assert np.abs(logits - want_logits).max() < tol
    # the states moved well away from zero: the comparison is not of near-zero numbers
    assert np.abs(want_states).mean() > 0.1
    assert (loaded.model.predict(ids) == want_logits.argmax(axis=1)).all()
    # the file's weights are read exactly: torch run in float64 on them agrees to 1e-10 too
    exact_states, exact_logits = _run_torch(net.double(), ids, d, torch.float64)
    assert np.abs(states - exact_states).max() < 1e-10
    assert np.abs(logits - exact_logits).max() < 1e-10


def test_an_lstm_cell_state_matches_torchs_too():
    d, n = len(ALPHABET), 8
    net = Net("LSTM", d, n, 10, torch.float64, seed=3)
    loaded = ck.load(_saved(net, "safetensors"), VOCAB)
    ids = np.random.default_rng(1).integers(0, d, size=(9, 2))
    onehot = torch.nn.functional.one_hot(torch.from_numpy(ids), d).double()
    c = []
    state = None
    with torch.no_grad():
        for t in range(len(ids)):
            _, state = net.rnn(onehot[t:t + 1], state)
            c.append(state[1][0].numpy())
    got = loaded.model.hidden_states(ids, cell_state=True)
    assert np.abs(got - np.stack(c)).max() < 1e-10


def test_the_reference_reader_reads_what_gleam_writes_and_the_other_way_round():
    rng = np.random.default_rng(0)
    tensors = {"a": rng.standard_normal((3, 4)), "b.c": rng.standard_normal(5).astype(np.float32),
               "e": rng.standard_normal((2, 0, 3)).astype(np.float16), "s": np.array(2.5)}
    theirs = safetensors.numpy.load(st.write_safetensors(tensors, {"by": "gleam"}))
    mine, meta = st.read_safetensors(safetensors.numpy.save(tensors, metadata={"by": "them"}))
    assert meta == {"by": "them"}
    for k, v in tensors.items():
        assert theirs[k].dtype == v.dtype and np.array_equal(theirs[k], v)
        assert mine[k].dtype == v.dtype and np.array_equal(mine[k], v)


def test_bfloat16_is_widened_to_float32_exactly():
    t = torch.tensor([[1.5, -2.25], [3e38, 1e-39]], dtype=torch.bfloat16)
    got, _ = st.read_safetensors(safetensors.torch.save({"w": t}))
    assert got["w"].dtype == np.float32
    assert np.array_equal(got["w"], t.float().numpy())


def test_a_bias_free_layer_is_taken_from_torch_with_zero_biases():
    rnn, head = torch.nn.GRU(3, 4, bias=False, dtype=torch.float64), torch.nn.Linear(4, 2)
    loaded = ck.from_torch(rnn, head, {"alphabet": list("abc")})
    assert not loaded.model.params["b_ih"].any() and loaded.classes == ("0", "1")


def test_encode_names_the_characters_outside_the_alphabet():
    loaded = ck.load(_saved(Net("GRU", 13, 4, 10, torch.float64, 0), "npz"), VOCAB)
    assert loaded.encode("12+3")[:, 0].tolist() == [1, 2, 10, 3]
    with pytest.raises(ValueError, match=r"'/', 'x', outside this model's alphabet"):
        loaded.encode("1x/2")


# ---------------------------------------------------------------- refusals

def _good():
    return {k: v.numpy() for k, v in Net("GRU", 13, 4, 10, torch.float32, 0).state_dict().items()}


def _file(tensors):
    return safetensors.numpy.save(tensors)


def _without(name):
    t = _good()
    del t[name]
    return t


def _with(name, value):
    return {**_good(), name: value}


def _nan():
    t = _good()
    t["rnn.weight_hh_l0"][2, 1] = np.nan
    return t


def _bidirectional():
    net = torch.nn.GRU(13, 4, bidirectional=True)
    return {**{f"rnn.{k}": v.numpy() for k, v in net.state_dict().items()},
            "head.weight": np.zeros((10, 4), np.float32), "head.bias": np.zeros(10, np.float32)}


def _two_layers():
    return {**_good(), "rnn.weight_ih_l1": np.zeros((12, 4), np.float32)}


def _header_lies():
    data = bytearray(_file(_good()))
    data[:8] = (10 ** 6).to_bytes(8, "little")
    return bytes(data)


def _not_json():
    return (16).to_bytes(8, "little") + b"this is not json" + b"\0" * 32


REFUSED = {
    "truncated": (lambda: _file(_good())[:-7], "truncated: tensor 'rnn.weight_ih_l0'"),
    "truncated header": (lambda: _file(_good())[:5], "truncated: 5 bytes"),
    "header longer than file": (_header_lies, "announce a header of 1,000,000 bytes"),
    "header not json": (_not_json, "header is not JSON"),
    "not a file at all": (lambda: b"GIF89a" + bytes(100), "truncated or not safetensors"),
    "damaged npz": (lambda: ck.write_npz(_good())[:200], "not a readable .npz"),
    "oversized": (lambda: bytes(ck.MAX_BYTES + 1), "over the limit of 67,108,864"),
    "missing tensor": (lambda: _file(_without("rnn.bias_hh_l0")), "missing bias_hh_l0"),
    "missing read-out": (lambda: _file(_without("head.bias")), "missing the read-out's bias"),
    "extra tensor": (lambda: _file(_with("emb.table", np.zeros(3, np.float32))),
                     "extra tensor 'emb.table'"),
    "wrong width": (lambda: _file(_with("rnn.weight_ih_l0", np.zeros((12, 7), np.float32))),
                    r"weight_ih_l0 has shape \(12, 7\), expected \(12, 13\)"),
    "wrong classes": (lambda: _file(_with("head.bias", np.zeros(9, np.float32))),
                      r"bias has shape \(9,\), expected \(10,\)"),
    "no layer fits": (lambda: _file(_with("rnn.weight_hh_l0", np.zeros((8, 4), np.float32))),
                      "not a GRU \\(3\\), LSTM \\(4\\) or RNN \\(1\\)"),
    "nan weights": (lambda: _file(_nan()), "weight_hh_l0 holds NaN or infinite values"),
    "integer weights": (lambda: _file(_with("head.bias", np.zeros(10, np.int64))),
                        "bias must be a floating-point array"),
    "bidirectional": (lambda: _file(_bidirectional()), "bidirectional models are not supported"),
    "two layers": (lambda: _file(_two_layers()), "multi-layer models are not supported"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_a_malformed_file_is_refused_with_a_sentence_naming_the_problem(case):
    make, message = REFUSED[case]
    with pytest.raises(ValueError, match=message):
        ck.load(make(), VOCAB)


@pytest.mark.parametrize("vocab,message", [
    ({"alphabet": ALPHABET[:-1]}, r"weight_ih_l0 has shape \(12, 13\), expected \(12, 12\)"),
    ({"alphabet": ALPHABET, "layer": "LSTM"}, "says LSTM, and weight_hh_l0's shape .* GRU's"),
    ({"alphabet": ALPHABET, "nonlinearity": "relu"}, "only a tanh RNN is supported"),
    ({"alphabet": ALPHABET + ["1"]}, "lists '1' more than once"),
    ({"alphabet": ["ab"] + ALPHABET[1:]}, "single characters"),
    ({"classes": ["a"]}, "lacks 'alphabet'"),
    ({"alphabet": ALPHABET, "colour": "red"}, "'colour', which it does not know"),
    (b"\xff\xfe", "not UTF-8"),
    ("{alphabet", "not JSON"),
])
def test_a_bad_vocabulary_is_refused_with_a_sentence(vocab, message):
    with pytest.raises(ValueError, match=message):
        ck.load(_file(_good()), vocab)


def test_unsupported_torch_layers_are_refused_by_name():
    head = torch.nn.Linear(4, 2)
    with pytest.raises(ValueError, match="nonlinearity 'relu'"):
        ck.from_torch(torch.nn.RNN(3, 4, nonlinearity="relu"), head, {"alphabet": list("abc")})
    with pytest.raises(ValueError, match="projection"):
        ck.from_torch(torch.nn.LSTM(3, 4, proj_size=2), head, {"alphabet": list("abc")})
    with pytest.raises(ValueError, match="must be a torch.nn.GRU, LSTM or RNN, got Linear"):
        ck.from_torch(head, head, {"alphabet": list("abc")})


@pytest.mark.parametrize("mangle,message", [
    (lambda h: {**h, "x": {"dtype": "C64", "shape": [1], "data_offsets": [0, 8]}}, "'C64'"),
    (lambda h: {**h, "x": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 4]}}, "shape"),
    (lambda h: {**h, "x": {"dtype": "F32", "shape": [2], "data_offsets": [4, 0]}},
     "data_offsets"),
    (lambda h: {**h, "x": {"dtype": "F32", "shape": [3], "data_offsets": [0, 8]}},
     "needs 12 bytes"),
    (lambda h: {**h, "x": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}, "overlap"),
    (lambda h: {**h, "__metadata__": {"a": 1}}, "__metadata__"),
    (lambda h: [1, 2], "JSON object"),
])
def test_a_header_that_does_not_describe_its_data_is_refused(mangle, message):
    body = np.arange(4, dtype="<f4").tobytes()
    header = json.dumps(mangle({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}))
    data = len(header).to_bytes(8, "little") + header.encode() + body
    with pytest.raises(ValueError, match=message):
        st.read_safetensors(data)


def test_bytes_after_the_last_tensor_are_refused():
    with pytest.raises(ValueError, match="4 bytes follow the last tensor"):
        st.read_safetensors(st.write_safetensors({"w": np.zeros(2)}) + bytes(4))


# ---------------------------------------------------------------- fuzzing (the house policy)

_GOOD_FILE = _file(_good())


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(hs.one_of(
    hs.binary(max_size=300),
    hs.tuples(hs.integers(0, len(_GOOD_FILE) - 1), hs.binary(min_size=1, max_size=8)).map(
        lambda cut: _GOOD_FILE[:cut[0]] + cut[1] + _GOOD_FILE[cut[0] + len(cut[1]):]),
    hs.integers(0, len(_GOOD_FILE)).map(lambda k: _GOOD_FILE[:k])))
def test_any_bytes_either_load_or_are_refused_with_a_value_error(data):
    """Random bytes, a good file with a few bytes overwritten, a good file cut short: a
    Checkpoint whose weights are finite, or a ValueError (never another exception)."""
    try:
        loaded = ck.load(data, VOCAB)
    except ValueError as e:
        assert str(e)
    else:
        assert all(np.isfinite(v).all() for v in loaded.model.params.values())
