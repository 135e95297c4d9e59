"""gleam.sweep's dry run, provenance, summary formats and plot, through the command line
(gleam.sweep.__main__.main, in this process) and the library; the bootstrap interval itself and
the checks of a record's provenance are in tests/core/test_sweep.py.

Expected values come from elsewhere: the keys from expand_grid and config_key, the versions from
platform, numpy and importlib.metadata, the commit from git run here, the CSV read back with the
csv module and compared with summarize, the plot parsed with xml.etree. The runs are
tests.core.test_sweep's logged_run (milliseconds each). The Dask test (the dashboard) needs the
research extra, bokeh included, and is skipped without it.
"""
import csv
import datetime
import importlib.metadata
import io
import json
import os
import platform
import re
import shutil
import subprocess
import urllib.request
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from gleam.sweep import (config_key, expand_grid, format_table, plan_sweep, read_results,
                         run_sweep, summarize)
from gleam.sweep import runner
from gleam.sweep.__main__ import main
from gleam.sweep.results import check_record
from tests.core.test_sweep import logged_calls, small_spec

HERE = "tests.core.test_sweep_cli"
SVG = "{http://www.w3.org/2000/svg}"


def write_spec(tmp_path, spec):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    return path


def cli(capsys, *args):
    """main(args) -> (exit status, stdout, stderr)."""
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------- the dry run
def test_a_dry_run_lists_every_key_of_the_grid_and_runs_and_writes_nothing(tmp_path, capsys):
    spec = small_spec(tmp_path)
    path, out = write_spec(tmp_path, spec), tmp_path / "r.jsonl"
    before = sorted(os.listdir(tmp_path))
    code, text, _ = cli(capsys, path, "--out", out, "--dry-run")
    assert code == 0
    configs = expand_grid(spec["grid"], spec["fixed"])
    lines = text.splitlines()
    assert len(lines) == len(configs) + 1
    for line, c in zip(lines, configs):
        # the varying names only (x and seed), not the fixed log and fail_flag
        assert line.split() == [config_key(c), "to", "run", f"x={c['x']}", f"seed={c['seed']}"]
    assert lines[-1].startswith(f"8 runs: {out} does not exist yet; 8 would run")
    assert sorted(os.listdir(tmp_path)) == before and not logged_calls(tmp_path / "log.jsonl")
    # without --out: the same grid, nothing done
    code, text2, _ = cli(capsys, path, "--dry-run")
    assert code == 0 and text2.splitlines()[:-1] == lines[:-1]
    assert "no results file given; 8 would run" in text2


def test_a_dry_run_counts_what_is_done_as_the_run_then_does(tmp_path, capsys):
    spec = small_spec(tmp_path)
    path, out = write_spec(tmp_path, spec), tmp_path / "r.jsonl"
    (tmp_path / "fail").write_text("")
    run_sweep(spec, out, jobs=1, progress=False)                # x = 2 fails: 6 ok, 2 errors
    os.remove(tmp_path / "fail")
    with open(out, "a") as f:
        f.write('{"key": "half a li')                           # a run killed mid-write
    data, calls = out.read_bytes(), len(logged_calls(tmp_path / "log.jsonl"))
    code, text, _ = cli(capsys, path, "--out", out, "--dry-run")
    assert code == 0
    assert out.read_bytes() == data                             # not even the half line cut
    assert len(logged_calls(tmp_path / "log.jsonl")) == calls
    ok = {r["key"] for r in read_results(out) if r["status"] == "ok"}
    states = {line.split()[0]: line.split()[1] for line in text.splitlines()[:-1]}
    assert states == {config_key(c): "done" if config_key(c) in ok else "to"
                      for c in expand_grid(spec["grid"], spec["fixed"])}
    assert text.splitlines()[-1].startswith(f"8 runs: 6 already ok in {out}; 2 would run")
    plan = plan_sweep(path, out)
    report = run_sweep(spec, out, jobs=1, progress=False)
    assert (report.skipped, report.ran) == (len(plan.done), len(plan.todo)) == (6, 2)


def test_a_dry_run_of_a_big_grid_shows_fifty_lines_then_how_many_more(tmp_path, capsys):
    spec = small_spec(tmp_path, xs=range(30), seeds=(0, 1))
    code, text, _ = cli(capsys, write_spec(tmp_path, spec), "--dry-run")
    lines = text.splitlines()
    keys = [config_key(c) for c in expand_grid(spec["grid"], spec["fixed"])]
    assert code == 0 and [s.split()[0] for s in lines[:50]] == keys[:50]
    assert lines[50:-1] == ["… 10 more"] and "60 runs" in lines[-1]


def test_a_dry_run_refuses_what_the_run_would_refuse(tmp_path, capsys):
    bad = write_spec(tmp_path, {"run": "no_such_module_xyz:f", "grid": {"seed": [0]}})
    code, _, err = cli(capsys, bad, "--dry-run")
    assert code == 2 and "cannot import no_such_module_xyz" in err
    code, _, err = cli(capsys, write_spec(tmp_path, small_spec(tmp_path)), "--dry-run",
                       "--out", tmp_path / "no" / "r.jsonl")
    assert code == 2 and "must be a file in an existing directory" in err
    with pytest.raises(SystemExit) as e:                        # a run needs --out
        main([str(tmp_path / "spec.json")])
    assert e.value.code == 2 and "required without --dry-run: --out" in capsys.readouterr().err


# ---------------------------------------------------------------- provenance
def git(cwd, *args):
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout.strip()


def test_each_record_says_where_and_when_it_ran(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)                                 # not a git checkout
    calls = []
    real = runner._checkout
    monkeypatch.setattr(runner, "_checkout", lambda: calls.append(1) or real())
    start = datetime.datetime.now(datetime.timezone.utc)
    run_sweep(small_spec(tmp_path), tmp_path / "r.jsonl", jobs=1, progress=False)
    end = datetime.datetime.now(datetime.timezone.utc)
    assert calls == [1]                                         # once per sweep, not per run
    try:
        version = importlib.metadata.version("gleam")
    except importlib.metadata.PackageNotFoundError:
        version = None
    records = read_results(tmp_path / "r.jsonl")
    assert len(records) == 8
    for r in records:
        p = r["provenance"]
        assert set(p) == {"python", "numpy", "gleam", "host", "started", "commit", "dirty"}
        assert (p["python"], p["numpy"], p["gleam"], p["host"]) == (
            platform.python_version(), np.__version__, version, platform.node())
        assert p["commit"] is None and p["dirty"] is None
        started = datetime.datetime.fromisoformat(p["started"])
        # to the millisecond, cut (not rounded)
        assert started.utcoffset() == datetime.timedelta(0)
        assert start - datetime.timedelta(milliseconds=1) <= started <= end
        assert isinstance(r["seconds"], float) and 0 <= r["seconds"] < 60
        assert "versions" not in r
    run_sweep(small_spec(tmp_path), tmp_path / "r.jsonl", jobs=1, progress=False)
    assert calls == [1]                                         # nothing to run: no git


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_commit_is_the_checkouts_and_says_whether_a_tracked_file_changed(tmp_path,
                                                                          monkeypatch):
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "notes.txt").write_text("a\n")
    git(repo, "add", "notes.txt")
    git(repo, "commit", "-q", "-m", "first")
    head = git(repo, "rev-parse", "HEAD")
    monkeypatch.chdir(repo / ".")
    (repo / "untracked.txt").write_text("not part of the checkout\n")
    run_sweep(small_spec(tmp_path, xs=(0,)), tmp_path / "a.jsonl", jobs=1, progress=False)
    (repo / "notes.txt").write_text("b\n")
    run_sweep(small_spec(tmp_path, xs=(0,)), tmp_path / "b.jsonl", jobs=1, progress=False)
    for name, dirty in [("a.jsonl", False), ("b.jsonl", True)]:
        for r in read_results(tmp_path / name):
            assert (r["provenance"]["commit"], r["provenance"]["dirty"]) == (head, dirty)
    monkeypatch.setenv("PATH", str(tmp_path / "no-bin"))       # git absent
    run_sweep(small_spec(tmp_path, xs=(0,)), tmp_path / "c.jsonl", jobs=1, progress=False)
    assert {r["provenance"]["commit"] for r in read_results(tmp_path / "c.jsonl")} == {None}


def test_records_without_provenance_read_resume_and_summarise_as_before(tmp_path):
    spec, new = small_spec(tmp_path), tmp_path / "new.jsonl"
    run_sweep(spec, new, jobs=1, progress=False)
    records = read_results(new)
    old = tmp_path / "old.jsonl"                                # as written before provenance
    with open(old, "w") as f:
        for i, r in enumerate(records):
            r = {k: v for k, v in r.items() if k != "provenance"}
            if i % 2:
                r["versions"] = {"numpy": "2.0.2", "python": "3.11.7"}
            f.write(json.dumps(r, sort_keys=True) + "\n")
    assert [r["metrics"] for r in read_results(old)] == [r["metrics"] for r in records]
    calls = len(logged_calls(tmp_path / "log.jsonl"))
    report = run_sweep(spec, old, jobs=1, progress=False)
    assert (report.skipped, report.ran) == (8, 0)
    assert len(logged_calls(tmp_path / "log.jsonl")) == calls
    assert summarize(read_results(old)) == summarize(records)
    assert summarize(read_results(old), interval=True) == summarize(records, interval=True)


def test_the_shipped_records_still_read():
    from gleam import pretrained
    n = 0
    for lab in pretrained.SPECS:
        for records in pretrained.results(lab).values():
            for i, r in enumerate(records):
                assert check_record(f"{lab}[{i}]", r) is r
                n += 1
    assert n > 0


# ---------------------------------------------------------------- summary formats
def _hand_records(values, cell="lstm"):
    return [{"key": f"{cell}{i}", "config": {"cell": cell, "seed": i}, "status": "ok",
             "metrics": {"m": v}} for i, v in enumerate(values)]


def test_each_format_says_what_summarize_says(tmp_path, capsys):
    spec, out = small_spec(tmp_path), tmp_path / "r.jsonl"
    run_sweep(spec, out, jobs=1, progress=False)
    one = tmp_path / "one.jsonl"                                # a group of one run: std None
    with open(one, "w") as f:
        for r in read_results(out) + _hand_records([0.5], cell="gru_torch"):
            r = dict(r, config={**r["config"], "cell": r["config"].get("cell", "lstm")})
            r["key"] = config_key(r["config"])
            f.write(json.dumps(r) + "\n")
    records = read_results(one)
    code, table, _ = cli(capsys, "summarize", one)
    assert code == 0 and table == format_table(summarize(records)) + "\n"   # unchanged
    rows = summarize(records, by=["cell", "x"], interval=True)
    assert rows[0]["std"] is None and rows[0]["group"] == {"cell": "gru_torch", "x": None}
    code, text, _ = cli(capsys, "summarize", one, "--by", "cell,x", "--format", "csv")
    parsed = list(csv.DictReader(io.StringIO(text)))
    assert code == 0 and len(parsed) == len(rows)
    assert list(parsed[0]) == ["cell", "x", "metric", "mean", "std", "min", "max", "count",
                               "ci_low", "ci_high"]
    for p, r in zip(parsed, rows):
        assert (p["cell"], p["metric"]) == (r["group"]["cell"], r["metric"])
        assert p["x"] == json.dumps(r["group"]["x"])
        assert float(p["mean"]) == r["mean"] and int(p["count"]) == r["count"]
        assert (float(p["ci_low"]), float(p["ci_high"])) == (r["ci_low"], r["ci_high"])
        assert p["std"] == ("" if r["std"] is None else repr(r["std"]))
    code, text, _ = cli(capsys, "summarize", one, "--by", "cell,x", "--format", "json")
    assert code == 0 and json.loads(text) == rows
    code, text, _ = cli(capsys, "summarize", one, "--by", "cell,x", "--format", "markdown")
    lines = text.splitlines()
    assert code == 0 and len(lines) == 2 + len(rows)
    assert [c.strip() for c in lines[0].strip("|").split("|")][-2:] == ["count", "95% CI"]
    last = [c.strip() for c in lines[-1].strip("|").split("|")]
    assert last[-1] == f"[{rows[-1]['ci_low']:.6g}, {rows[-1]['ci_high']:.6g}]"
    with pytest.raises(SystemExit):
        main(["summarize", str(one), "--format", "xml"])
    assert "invalid choice: 'xml'" in capsys.readouterr().err


# ---------------------------------------------------------------- the plot
def _plot(capsys, results, out, *args):
    return cli(capsys, "plot", results, "--out", out, *args)


def _swept(tmp_path):
    """Results of the small spec with a failed and then retried x = 2: 10 lines, 8 ok keys."""
    spec, out = small_spec(tmp_path), tmp_path / "r.jsonl"
    (tmp_path / "fail").write_text("")
    run_sweep(spec, out, jobs=1, progress=False)
    os.remove(tmp_path / "fail")
    run_sweep(spec, out, jobs=1, progress=False)
    assert len(read_results(out)) == 10
    return out


def test_the_plot_has_a_point_per_run_and_a_mean_line_per_group(tmp_path, capsys):
    results = _swept(tmp_path)
    code, _, err = _plot(capsys, results, tmp_path / "p.svg", "--metric", "y", "--x", "x")
    assert code == 0, err
    svg = ET.parse(tmp_path / "p.svg").getroot()
    assert svg.tag == f"{SVG}svg"
    assert len(svg.findall(f".//{SVG}circle")) == 8                 # the ok runs, not the errors
    (line,) = svg.findall(f".//{SVG}polyline")
    points = [tuple(map(float, p.split(","))) for p in line.get("points").split()]
    assert len(points) == 4                                          # x = 0, 1, 2, 3
    assert [a for a, _ in points] == sorted(a for a, _ in points)
    assert [b for _, b in points] == sorted((b for _, b in points), reverse=True)   # y grows
    texts = [t.text for t in svg.iter(f"{SVG}text")]
    assert "y against x" in texts and "x" in texts and "y" in texts and "all runs" in texts

    code, _, err = _plot(capsys, results, tmp_path / "p.html", "--metric", "half", "--x",
                         "x", "--by", "seed")
    assert code == 0, err
    page = ET.parse(tmp_path / "p.html").getroot()                  # XHTML: XML as well
    (svg,) = page.iter(f"{SVG}svg")
    groups = svg.findall(f".//{SVG}g[@class='group']")
    assert len(groups) == 2 and len(svg.findall(f".//{SVG}polyline")) == 2
    assert [len(g.findall(f"{SVG}circle")) for g in groups] == [4, 4]
    texts = [t.text for t in svg.iter(f"{SVG}text")]
    assert "seed=0" in texts and "seed=1" in texts and "half against x, by seed" in texts


def test_text_values_of_x_are_categories_in_order_of_first_appearance(tmp_path, capsys):
    records = (_hand_records([0.3, 0.4], cell="lstm") + _hand_records([0.1], cell="gru_torch")
               + _hand_records([0.9, 0.8], cell="elman"))
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    code, _, err = _plot(capsys, path, tmp_path / "p.svg", "--metric", "m", "--x", "cell")
    assert code == 0, err
    svg = ET.parse(tmp_path / "p.svg").getroot()
    texts = [t.text for t in svg.iter(f"{SVG}text")]
    ticks = [t for t in texts if t in ("lstm", "gru_torch", "elman")]
    assert ticks == ["lstm", "gru_torch", "elman"]
    cx = [float(c.get("cx")) for c in svg.iter(f"{SVG}circle")]
    assert cx[0] == cx[1] < cx[2] < cx[3] == cx[4]


@pytest.mark.parametrize("args, message", [
    (["--metric", "nope", "--x", "x"], "metric must be one of .*'half', 'y'"),
    (["--metric", "y", "--x", "nope"], "x must be one of"),
    (["--metric", "y", "--x", "x", "--by", "seed,nope"], "by must be names of"),
])
def test_the_plot_refuses_an_unknown_name_or_extension(tmp_path, capsys, args, message):
    results = _swept(tmp_path)
    code, _, err = _plot(capsys, results, tmp_path / "p.svg", *args)
    assert code == 2 and re.search(message, err), err
    code, _, err = _plot(capsys, results, tmp_path / "p.png", "--metric", "y", "--x", "x")
    assert code == 2 and "out = " in err and "must end in .svg or .html" in err
    assert not (tmp_path / "p.svg").exists() and not (tmp_path / "p.png").exists()


# ---------------------------------------------------------------- Dask's dashboard
def dashboard_run(config):
    """Fetch the dashboard of the cluster this run is on -> its HTTP status and port."""
    from distributed import get_client
    link = get_client().dashboard_link
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))   # 127.0.0.1 direct
    with opener.open(link, timeout=30) as page:
        return {"status": page.status, "port": int(re.search(r":(\d+)/", link).group(1))}


def test_a_local_cluster_prints_its_dashboard_which_answers(tmp_path, capsys):
    pytest.importorskip("distributed")
    pytest.importorskip("joblib")
    pytest.importorskip("bokeh")
    spec = {"run": f"{HERE}:dashboard_run", "grid": {"seed": [0]}}
    report = run_sweep(spec, tmp_path / "r.jsonl", jobs=1, dask="local", progress=False)
    err = capsys.readouterr().err
    (r,) = read_results(tmp_path / "r.jsonl")
    assert report.errors == 0, r.get("error")
    found = re.search(r"^Dask dashboard: http://127\.0\.0\.1:(\d+)/status$", err, re.M)
    assert found, err
    assert r["metrics"] == {"status": 200, "port": int(found.group(1))}
