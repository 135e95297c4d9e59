"""The packages with no pure wheel on PyPI, built pure from their sdists (buildtools/pins.py:
SDIST_WHEELS, SDIST_ENV)."""
from . import Patch

T = "tests/test_patches.py::test_an_sdist_is_built_with_its_pure_python_setting_and_must_come_out_pure"

PATCHES = (
    Patch("markupsafe.pure-build", "markupsafe", "3.0.3",
          target="markupsafe's optional C extension (_speedups)",
          what="built with CC=/bin/false, so its setup falls back to the pure-Python build",
          why="Pyodide's distribution has no markupsafe the site can ship, and the wheel must be py3-none-any",
          test=T, code="buildtools/pins.py: SDIST_ENV; buildtools/fetch.py: build_sdist_wheel"),
    Patch("pyyaml.pure-build", "pyyaml", "6.0.3",
          target="PyYAML's libyaml binding (yaml._yaml)",
          what="built with PYYAML_FORCE_LIBYAML=0, so it is the pure-Python PyYAML",
          why="the wheel must be py3-none-any to run in Pyodide",
          test=T, code="buildtools/pins.py: SDIST_ENV; buildtools/fetch.py: build_sdist_wheel"),
)
