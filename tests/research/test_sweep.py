"""gleam.sweep on joblib and Dask, and its command line (needs the research extra:
`pip install -e .[research]`; tests/core/test_sweep.py covers the parts that need neither).

- The same sweep gives identical metrics, key by key, in this process (jobs=1), on joblib's
  process pool (the command line, --jobs 2), on a LocalCluster the runner starts
  (dask="local") and on one this test starts, reached by its scheduler address.
- A sweep killed (SIGKILL) halfway resumes: every key ends with exactly one ok record, and the
  lines written before the kill are kept byte for byte, not run again.
- Ctrl-C (SIGINT to the process group, as a terminal sends it) exits 130, keeps every line
  written and says how to resume.
Dask runs on 127.0.0.1 with no dashboard.
"""
import json
import os
import signal
import subprocess
import sys
import time

import distributed

from gleam.sweep import config_key, expand_grid, format_table, read_results, run_sweep, summarize

# six runs of a few hundred milliseconds each
SPEC = {"grid": {"cell": ["gru_torch", "lstm"], "seed": [0, 1, 2]},
        "fixed": {"task": "first_repeated", "n": 12, "length": 5, "epochs": 16,
                  "n_train": 96, "n_test": 64, "batch_size": 16}}
# ten runs of about 0.3 s each, to kill halfway
SLOW = {"grid": {"seed": list(range(10))},
        "fixed": {"n": 16, "length": 8, "epochs": 30, "n_train": 128, "n_test": 32}}


def write_spec(tmp_path, spec, name="spec.json"):
    path = tmp_path / name
    path.write_text(json.dumps(spec))
    return path


def cli(*args, **kwargs):
    """`python -m gleam.sweep ARGS` as a child in its own process group, Ctrl-C at its
    default (a shell's background job starts with SIGINT ignored, and a child inherits that;
    Python installs its KeyboardInterrupt handler only where SIGINT is at its default)."""
    return subprocess.Popen([sys.executable, "-m", "gleam.sweep", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
                            **kwargs)


def finish(process, timeout=120):
    out, err = process.communicate(timeout=timeout)
    return process.returncode, out, err


def metrics_by_key(path):
    records = read_results(path)
    assert all(r["status"] == "ok" for r in records), records
    return {r["key"]: r["metrics"] for r in records}


def whole_lines_when(path, at_least, process, timeout=60):
    """Wait until `path` holds at least `at_least` whole lines (or the process ended)."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if path.exists() and path.read_bytes().count(b"\n") >= at_least:
            return
        assert process.poll() is None, finish(process)
        time.sleep(0.01)
    raise AssertionError(f"no {at_least} lines in {path} after {timeout} s")


def kill_group(process, sig):
    os.killpg(process.pid, sig)          # the process and its workers: the group it leads


def test_the_same_sweep_gives_the_same_metrics_on_every_backend(tmp_path):
    spec = write_spec(tmp_path, SPEC)
    keys = {config_key(c) for c in expand_grid(SPEC["grid"], SPEC["fixed"])}
    assert len(keys) == 6
    run_sweep(spec, tmp_path / "serial.jsonl", jobs=1, progress=False)
    reference = metrics_by_key(tmp_path / "serial.jsonl")
    assert set(reference) == keys

    code, _, err = finish(cli(spec, "--out", tmp_path / "pool.jsonl", "--jobs", 2))
    assert code == 0, err
    assert "6 runs: 0 already done, 6 ran, errors: 0" in err
    assert metrics_by_key(tmp_path / "pool.jsonl") == reference

    report = run_sweep(spec, tmp_path / "local.jsonl", jobs=2, dask="local", progress=False)
    assert (report.ran, report.errors) == (6, 0)
    assert metrics_by_key(tmp_path / "local.jsonl") == reference

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://127.0.0.1:")
        report = run_sweep(spec, tmp_path / "cluster.jsonl", dask=address, progress=False)
        assert (report.ran, report.errors) == (6, 0)
    assert metrics_by_key(tmp_path / "cluster.jsonl") == reference

    # the summary of the command line is the library's table of these records
    code, table, err = finish(cli("summarize", tmp_path / "cluster.jsonl", "--by", "cell",
                                  "--metric", "test_accuracy"))
    assert code == 0, err
    rows = summarize(read_results(tmp_path / "serial.jsonl"), ["cell"], "test_accuracy")
    assert table.rstrip("\n") == format_table(rows)
    assert [r["count"] for r in rows] == [3, 3]


def test_a_sweep_killed_halfway_resumes_without_running_a_finished_run_again(tmp_path):
    spec, out = write_spec(tmp_path, SLOW), tmp_path / "r.jsonl"
    first = cli(spec, "--out", out, "--jobs", 2)
    whole_lines_when(out, 2, first)
    kill_group(first, signal.SIGKILL)
    first.wait(timeout=30)
    data = out.read_bytes()
    kept = data[: data.rfind(b"\n") + 1]                # a line cut mid-write does not count
    done = kept.count(b"\n")
    assert 2 <= done < 10
    code, _, err = finish(cli(spec, "--out", out, "--jobs", 2))
    assert code == 0, err
    assert f"10 runs: {done} already done, {10 - done} ran, errors: 0" in err
    final = out.read_bytes()
    assert final.startswith(kept)                       # the finished runs' lines untouched
    records = read_results(out)
    keys = [r["key"] for r in records]
    assert sorted(keys) == sorted(config_key(c) for c in expand_grid(SLOW["grid"],
                                                                     SLOW["fixed"]))
    assert len(set(keys)) == len(keys) == 10 and all(r["status"] == "ok" for r in records)


def test_ctrl_c_exits_130_keeps_the_lines_and_says_how_to_resume(tmp_path):
    spec, out = write_spec(tmp_path, SLOW), tmp_path / "r.jsonl"
    process = cli(spec, "--out", out, "--jobs", 2)
    whole_lines_when(out, 2, process)
    kill_group(process, signal.SIGINT)                  # what a terminal's Ctrl-C sends
    code, _, err = finish(process, timeout=60)
    assert code == 130, err
    records = read_results(out)
    assert 2 <= len(records) < 10 and all(r["status"] == "ok" for r in records)
    assert (f"interrupted: {len(records)} of 10 runs done" in err
            and "run the same command again to resume" in err)
    assert out.read_bytes().endswith(b"\n")             # stopped between lines, not in one
