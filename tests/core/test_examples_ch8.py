"""Chapter 8's examples against the syllabus's printed numbers and against the weights counted
one array at a time here (shapes written out, sizes summed), not through gleam.costs."""
import math

import numpy as np
import pytest

from gleam import examples
from gleam import costs as counting

BLOCKS = {"elman": 1, "gru": 3, "lstm": 4}


def layer_arrays(cell, d_in, n, double_bias=False):
    """The weights of one cell reading d_in: per block W (n, d_in), U (n, n), b (n) [and a 2nd b]."""
    out = []
    for _ in range(BLOCKS[cell]):
        out += [np.zeros((n, d_in)), np.zeros((n, n)), np.zeros(n)] + ([np.zeros(n)] if double_bias else [])
    return out


def counted(cell, d_in, n, directions=1, double_bias=False):
    return directions * sum(a.size for a in layer_arrays(cell, d_in, n, double_bias))


def stack(cell, d, n, layers, bidirectional=False, double_bias=False):
    """Per-layer counts built the way the stack is wired: layer 1 reads x, each later layer the
    concatenated outputs of the layer below (both directions when bidirectional)."""
    dirs = 2 if bidirectional else 1
    out, width = [], d
    for _ in range(layers):
        out.append(counted(cell, width, n, dirs, double_bias))
        width = np.zeros(dirs * n).size          # h, or [h_fwd; h_bwd]
    return out


def test_syllabus_numbers():
    c = examples.chapter8_counts()
    assert (c["cell"], c["d"], c["n"], c["layers"]) == ("gru", 128, 256, 2)
    assert c["stack"]["layer_params"] == [295_680, 393_984]
    assert c["stack"]["total"] == 689_664 and c["stack"]["total_torch"] == 691_200
    assert c["bidirectional"]["output_width"] == 512
    assert c["bidirectional"]["layer_params"][0] == 591_360       # one bidirectional layer
    assert c["stack"]["inputs"] == [128, 256] and c["bidirectional"]["inputs"] == [128, 512]


@pytest.mark.parametrize("cell", ["gru", "lstm", "elman"])
@pytest.mark.parametrize("d,n,layers", [(128, 256, 2), (1, 1, 1), (7, 30, 4), (300, 64, 3)])
def test_counts_match_the_arrays(cell, d, n, layers):
    c = examples.chapter8_counts(cell, d, n, layers)
    for part, bi in (("stack", False), ("bidirectional", True)):
        want = stack(cell, d, n, layers, bi)
        assert c[part]["layer_params"] == want
        assert c[part]["total"] == sum(want)
        assert c[part]["total_torch"] == sum(stack(cell, d, n, layers, bi, double_bias=True))
        assert c[part]["output_width"] == (2 if bi else 1) * n
        assert c[part]["inputs"] == [d] + [(2 if bi else 1) * n] * (layers - 1)
    ed, V = c["encoder_decoder"], c["vocab"]
    assert ed["encoder"] == ed["decoder"] == sum(stack(cell, d, n, layers))
    assert ed["source_embedding"] == ed["target_embedding"] == np.zeros((V, d)).size
    assert ed["readout"] == np.zeros((V, n)).size + np.zeros(V).size
    assert ed["stacks"] == 2 * ed["encoder"]
    assert ed["total"] == ed["encoder"] + ed["decoder"] + ed["source_embedding"] + ed["target_embedding"] + ed["readout"]


def test_the_old_example_is_unchanged():
    b, c = examples.chapter8_beyond(), examples.chapter8_counts()
    assert b["layer_params"] == c["stack"]["layer_params"] and b["two_layer_params"] == c["stack"]["total"]
    assert b["two_layer_params_torch"] == c["stack"]["total_torch"]
    assert b["bidirectional_params"] == c["bidirectional"]["layer_params"][0] == 591_360
    assert b["bidirectional_width"] == c["bidirectional"]["output_width"]


@pytest.mark.parametrize("bad", [0, -1, None, 100_001, 10 ** 12, 1.5, "128", True, float("nan")])
@pytest.mark.parametrize("name", ["d", "n", "layers"])
def test_bad_sizes_are_refused_with_a_message(name, bad):
    if name == "layers" and bad == 100_001:
        bad = 101
    with pytest.raises(ValueError, match=f"^{name} must be an integer in \\[1, "):
        examples.chapter8_counts(**{name: bad})


def test_a_whole_float_counts_and_an_unknown_cell_is_refused():
    assert examples.chapter8_counts(d=128.0)["stack"]["total"] == 689_664
    with pytest.raises(ValueError, match="cell must be one of"):
        examples.chapter8_counts(cell="rnn")


def test_bottleneck_syllabus_numbers():
    k = examples.chapter8_bottleneck()
    assert k["words"] == 50 and k["context_floats"] == 256
    assert k["context_bytes"] == np.zeros(256, dtype=np.float32).nbytes == 1024
    assert k["context_bits"] == 8 * 1024
    assert round(k["bits_per_word"], 2) == 14.87
    assert math.floor(k["source_bits"]) == 743                        # "50 words ≈ 743 bits"
    assert math.floor(examples.chapter8_bottleneck(500)["source_bits"]) == 7_436
    # the same context for 5 or 500 words
    assert examples.chapter8_bottleneck(5)["context_bytes"] == examples.chapter8_bottleneck(500)["context_bytes"]


@pytest.mark.parametrize("words", [1, 20, 50, 551, 552, 1000])
def test_bottleneck_against_numpy(words):
    k = examples.chapter8_bottleneck(words)
    bits = words * np.log2(30_000)
    assert k["source_bits"] == pytest.approx(bits, rel=1e-12)
    assert k["bits_per_float"] == pytest.approx(bits / 256, rel=1e-12)
    assert k["capacity_ratio"] == pytest.approx(bits / (256 * 32), rel=1e-12)
    assert k["fits"] == (bits <= 256 * 32)
    assert k["curve_words"] == [0, 1000]
    assert k["curve_source_bits"][1] == pytest.approx(1000 * np.log2(30_000), rel=1e-12)


@pytest.mark.parametrize("bad", [0, -5, None, 2.5, "50"])
def test_bottleneck_refuses_bad_lengths(bad):
    with pytest.raises(ValueError, match="^words must be an integer >= 1"):
        examples.chapter8_bottleneck(bad)


def test_listed_and_in_the_json_document():
    for name in ("chapter8_counts", "chapter8_bottleneck"):
        assert callable(getattr(examples, name))
    doc = examples.all_examples()
    assert doc["chapter8_counts"] == examples.chapter8_counts()
    assert doc["chapter8_bottleneck"] == examples.chapter8_bottleneck()
    assert counting.embedding_params(30_000, 128) == np.zeros((30_000, 128)).size
