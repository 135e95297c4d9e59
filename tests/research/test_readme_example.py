"""The README's worked example, run as the README gives it (a tiny GRU trained in PyTorch on gleam's
aⁿbⁿ, saved, read by gleam and patched along its probe), and the same file in the inspector page:
it says the same sentence the example prints, and gleam's model answers as torch's does."""
import contextlib
import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")        # (in the test extra: CI has it)

from gleam import checkpoints  # noqa: E402
from gleam_lab.app.chapters.inspector import FILE, InspectorChapter  # noqa: E402

README = Path(__file__).resolve().parents[2] / "README.md"


def example():
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Your own model in the inspector"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_example_runs_and_the_inspector_says_what_it_prints(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out, scope = io.StringIO(), {}
    with contextlib.redirect_stdout(out):
        exec(compile(example(), "README.md", "exec"), scope)
    printed = out.getvalue().splitlines()
    assert printed[0].startswith("probe of #a - #b: held-out R²") and printed[1].startswith("The answer ")
    # gleam's model of the saved file answers as the trained torch modules do
    ck = checkpoints.load((tmp_path / "anbn_gru.npz").read_bytes(), (tmp_path / "anbn_gru.json").read_text())
    for text in ("aaaabbbb", "aab", "abab", "aaaaaaaaabbbbbbbbb"):
        x = torch.eye(2)[[ck.alphabet.index(c) for c in text]][:, None]
        with torch.no_grad():
            want = scope["readout"](scope["rnn"](x)[1][0]).double().softmax(-1).numpy()[0]
        got = ck.model.forward(ck.encode(text))[0][0]
        assert np.allclose(np.exp(got) / np.exp(got).sum(), want, atol=1e-5), text
    # the inspector page, with the same file and the controls the README names
    page = InspectorChapter()
    page.__panel__()
    page.files.read((tmp_path / "anbn_gru.npz").read_bytes(), "anbn_gru.npz",
                    (tmp_path / "anbn_gru.json").read_bytes(), "anbn_gru.json")
    assert page.model == FILE
    page.param.update(text="aaaabbbb", action="patch", step=5, alpha=2.0)
    assert page.values()["inspector.error"] == ""
    assert page.values()["inspector.words"] == printed[1]
    assert json.loads((tmp_path / "anbn_gru.json").read_text())["task"] == "anbn"
