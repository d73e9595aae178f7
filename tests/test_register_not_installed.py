"""A registered module script loaded where nlgmetrics is not installed (issue 27 §3): the real
``evaluate.load`` reads the real registered script and fails with one line naming the version that
registered it and the two fixes, not a bare ``No module named 'nlgmetrics'``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from nlgmetrics.version import __version__

WITHOUT_NLGMETRICS = """
import sys


class NotInstalled:
    # What an environment without the package looks like to Python: no finder knows the name.
    def find_spec(self, name, path=None, target=None):
        if name == "nlgmetrics" or name.startswith("nlgmetrics."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, NotInstalled())
import evaluate

evaluate.load(sys.argv[1], "E-minilm")
"""


def run(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(args, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)


def test_registered_script_without_the_package_says_which_version_and_how_to_fix(tmp_path):
    env = {**os.environ, "HF_MODULES_CACHE": str(tmp_path / "modules"), "HF_EVALUATE_OFFLINE": "1"}
    registered = run([sys.executable, "-m", "nlgmetrics", "register"], env, tmp_path)
    assert registered.returncode == 0, registered.stderr

    done = run([sys.executable, "-c", WITHOUT_NLGMETRICS, "ctc_consistency"], env, tmp_path)

    assert done.returncode == 1
    assert "Using the latest cached version of the module" in done.stderr  # the registered script ran
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ModuleNotFoundError: ctc_consistency was registered for evaluate.load by ")
    assert f"nlgmetrics {__version__} (`nlgmetrics register`)" in last
    assert f"not installed for {sys.executable}" in last
    assert f"pip install nlgmetrics=={__version__}" in last
    assert "`nlgmetrics register --remove` where it was registered" in last
    assert "No module named" not in done.stderr  # the bare error is not chained onto ours
