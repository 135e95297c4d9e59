"""The core's tests run whole once, on numpy 2.0.2, the browser's (test.sh, beside the build of the
static site). On the current release, the served lab's, the main suite runs again only the files in
ON_EVERY_NUMPY: the numbers the learner reads (the syllabus and every chapter's worked example),
parity with PyTorch, and the sweep's command line (which needs the research extra, not in the
numpy 2.0.2 environment). test.sh leaves out the others with `-m "not core_once"`; a plain
`pytest` runs everything."""
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ON_EVERY_NUMPY = {"test_syllabus.py", "test_examples_ch0.py", "test_examples_ch2.py", "test_examples_ch3.py",
                  "test_examples_ch5.py", "test_examples_ch6.py", "test_examples_ch8.py", "test_examples_ch9.py",
                  "test_torch_parity.py", "test_checkpoints.py", "test_sweep_cli.py"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.path.parent == HERE and item.path.name not in ON_EVERY_NUMPY:
            item.add_marker(pytest.mark.core_once)
