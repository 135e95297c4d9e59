"""The worker unpacks the site's pure-Python wheels itself (buildtools/unpack.py)."""
import base64
import io
import json
import re
import shutil
import subprocess
import zipfile

import numpy as np
import pytest

from buildtools import unpack
from buildtools.convert import PYODIDE_DIR
from buildtools.errors import BuildError
from tests.test_build import SITE, built, lock_of


def test_shared_libraries_and_what_links_to_them_go_to_pyodide_and_the_rest_to_the_worker():
    lock = lock_of(app=("app-1-py3-none-any.whl", ["numpy", "tool"]),
                   numpy=("numpy-2-cp312-cp312-pyodide_2024_0_wasm32.whl", []),
                   tool=("tool-1-py3-none-any.whl", ["helper"]),
                   helper=("helper-1-py3-none-any.whl", []),
                   fast=("fast-1-cp312-cp312-pyodide_2024_0_wasm32.whl", ["libfast", "pure"]),
                   libfast=("libfast-1.zip", []),
                   pure=("pure-1-py3-none-any.whl", []),
                   unused=("unused-1-py3-none-any.whl", []))
    lock["packages"]["libfast"]["package_type"] = "shared_library"
    # a compiled package of extension modules alone (numpy) is unpacked like a pure one
    assert unpack.split(lock, ["app"]) == ([], ["app", "helper", "numpy", "tool"])
    # one linking against a shared library is Pyodide's, with its closure (not unpacked twice)
    assert unpack.split(lock, ["app", "fast"]) == (["fast", "libfast", "pure"], ["app", "helper", "numpy", "tool"])
    assert unpack.split(lock, ["pure"]) == ([], ["pure"])
    with pytest.raises(BuildError, match="not in the site's lock"):
        unpack.split(lock, ["missing"])


def test_a_wheel_with_a_shared_library_that_is_no_extension_module_is_refused(tmp_path):
    ok = make_zip(tmp_path / "ok-1-cp312-cp312-pyodide_2024_0_wasm32.whl",
                  {"ok/__init__.py": b"", "ok/_core.cpython-312-wasm32-emscripten.so": b"\0asm"})
    unpack.check_stored(ok)
    bad = make_zip(tmp_path / "bad-1-cp312-cp312-pyodide_2024_0_wasm32.whl",
                   {"bad/__init__.py": b"", "bad.libs/libopenblas.so": b"\0asm"})
    with pytest.raises(BuildError, match="not extension modules"):
        unpack.check_stored(bad)


def make_zip(path, files, compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression) as z:
        for name, data in files.items():
            z.writestr(name, data)
    return path


def test_a_wheel_with_a_compressed_file_is_refused(tmp_path):
    unpack.check_stored(make_zip(tmp_path / "ok-1-py3-none-any.whl", {"ok/__init__.py": "x = 1\n"}))
    deflated = make_zip(tmp_path / "no-1-py3-none-any.whl", {"no/__init__.py": "x = 1\n" * 50},
                        zipfile.ZIP_DEFLATED)
    with pytest.raises(BuildError, match="1 are compressed"):
        unpack.check_stored(deflated)


# In the site's Pyodide: every wheel the worker unpacks, through glUnzip and through Python's
# zipfile (what loadPackage uses), then the two trees compared file by file; then numpy imported
# from glUnzip's tree (Pyodide loaded no package: its extension modules load as they are imported).
NODE_CHECK = unpack.UNZIP_JS + r"""
const fs = require("fs");
const { loadPyodide } = require(process.argv[1] + "/pyodide.js");
const args = JSON.parse(fs.readFileSync(0, "utf8"));
loadPyodide({ indexURL: process.argv[1] + "/" }).then((py) => {
  const refused = {};
  for (const [name, b64] of Object.entries(args.bad)) {
    try { glUnzip(new Uint8Array(Buffer.from(b64, "base64")), "/tmp/bad/", py.FS); refused[name] = null; }
    catch (e) { refused[name] = String(e.message); }
  }
  for (const file of args.wheels) {
    const bytes = new Uint8Array(fs.readFileSync(process.argv[1] + "/" + file));
    glUnzip(bytes, "/tmp/js/", py.FS);
    py.FS.writeFile("/tmp/" + file, bytes);
  }
  const same = py.runPython(`
import hashlib, json, os, zipfile
for f in ${JSON.stringify(args.wheels)}:
    zipfile.ZipFile("/tmp/" + f).extractall("/tmp/py")
def tree(root):
    out = {}
    for d, dirs, files in os.walk(root):
        out.update({os.path.relpath(os.path.join(d, x), root) + "/": None for x in dirs})
        out.update({os.path.relpath(os.path.join(d, x), root): hashlib.sha256(open(os.path.join(d, x), "rb").read()).hexdigest()
                    for x in files})
    return out
a, b = tree("/tmp/js"), tree("/tmp/py")
import sys
sys.path.insert(0, "/tmp/js")
import numpy
json.dumps({"same": a == b, "files": sum(v is not None for v in a.values()), "escaped": os.path.exists("/tmp/evil"),
            "numpy": [numpy.__file__, sorted(numpy.linalg.eigvals(numpy.array([[2.0, 1.0], [1.0, 2.0]])).tolist()),
                      numpy.random.default_rng(7).standard_normal(3).tolist(),
                      numpy.fft.rfft(numpy.arange(4.0)).real.tolist()]})
`);
  console.log(JSON.stringify({refused: refused, result: JSON.parse(same)}));
});
"""


@built
def test_glunzip_writes_the_same_files_as_pythons_zipfile_in_the_sites_pyodide(tmp_path):
    if shutil.which("node") is None:
        pytest.fail("node is needed to run the site's Pyodide")
    worker = (SITE / "main.js").read_text(encoding="utf-8")
    wheels = [f for f, _ in json.loads(re.search(r"const glWheels = (\[.*?\]).map", worker, re.S).group(1))]
    assert len(wheels) >= 10 and any(w.startswith("panel-") for w in wheels)
    bad = {}
    for name, files, compression in (("deflated", {"a/b.py": "x = 1\n" * 50}, zipfile.ZIP_DEFLATED),
                                     ("escape", {"../../evil": "x"}, zipfile.ZIP_STORED)):
        buf = io.BytesIO()
        make_zip(buf, files, compression)
        bad[name] = base64.b64encode(buf.getvalue()).decode()
    out = subprocess.run(["node", "-e", NODE_CHECK, str((SITE / PYODIDE_DIR).resolve())],
                         input=json.dumps({"wheels": wheels, "bad": bad}), capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["result"]["same"] and not got["result"]["escaped"]
    assert got["result"]["files"] > 1000
    where, eig, normal, fft = got["result"]["numpy"]
    assert where.startswith("/tmp/js/numpy/")
    assert eig == pytest.approx([1.0, 3.0])
    assert normal == np.random.default_rng(7).standard_normal(3).tolist()   # (the same generator as here)
    assert fft == [6.0, -2.0, -2.0]
    assert "compressed" in got["refused"]["deflated"]
    assert "not a relative path" in got["refused"]["escape"]


@built
def test_the_built_worker_unpacks_every_package_numpy_too_and_pyodide_loads_none():
    lock = json.loads((SITE / PYODIDE_DIR / "pyodide-lock.json").read_text())
    worker = (SITE / "main.js").read_text(encoding="utf-8")
    wheels = json.loads(re.search(r"const glWheels = (\[.*?\]).map", worker, re.S).group(1))
    compiled = sorted(k for k, e in lock["packages"].items() if "_wasm32.whl" in e["file_name"])
    assert compiled == ["numpy"]
    sri = lambda e: "sha256-" + base64.b64encode(bytes.fromhex(e["sha256"])).decode()  # noqa: E731
    assert wheels == [[lock["packages"][k]["file_name"], sri(lock["packages"][k])] for k in sorted(lock["packages"])]
    assert re.search(r'packages: \[\],', worker)
    for key in lock["packages"]:
        unpack.check_stored(SITE / PYODIDE_DIR / lock["packages"][key]["file_name"])
