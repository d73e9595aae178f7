"""Issue 41 §4: loading one family imports the other families' declarations only (their package, module.py,
weights.py, options.py, card.py), never their runtime: the registry reads every family's ``weights.py``, and
a family's ``__init__.py`` imports its names on first use, so reading those weights imports nothing else."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nlgmetrics.modules import FAMILIES, SPECS
from tests.helpers import config_of

REPO = Path(__file__).resolve().parents[2]
DECLARATIONS = ("module", "weights", "options", "card")
"""What of another family loading one may import (besides its package)."""

LOAD_AND_SCORE = """
import json, sys, warnings
import nlgmetrics
from references.examples import examples

name, config = json.loads(sys.argv[1])
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    nlgmetrics.load(name, config, device="cpu").compute(**examples(name, 2))
print(json.dumps(sorted(m for m in sys.modules if m.startswith("nlgmetrics."))))
"""


def modules_after(code: str, *args: str) -> list[str]:
    """The package's modules in ``sys.modules`` after ``code`` ran in a fresh process."""
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        env=os.environ,  # the tests' offline tiny Hub cache
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return json.loads(done.stdout.splitlines()[-1])


def others_runtime(family: str, loaded: list[str]) -> list[str]:
    """What of the other families ``loaded`` holds beyond their declarations."""
    allowed = {
        f"{package}{part}"
        for other, package in FAMILIES.items()
        if other != family
        for part in ("", *(f".{d}" for d in DECLARATIONS))
    }
    packages = tuple(f"{package}." for other, package in FAMILIES.items() if other != family)
    return [m for m in loaded if m.startswith(packages) and m not in allowed]


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_loading_one_family_imports_no_other_family_s_runtime(family):
    name = next(n for n in SPECS if SPECS[n].family == family)
    loaded = modules_after(LOAD_AND_SCORE, json.dumps([name, config_of(name)]))
    assert f"{FAMILIES[family]}.scorer" in loaded  # it did load and score
    assert others_runtime(family, loaded) == []
    runtime = ("nlgmetrics.usr.preprocess", "nlgmetrics.usr.regression", "nlgmetrics.unieval.tasks")
    assert [m for m in runtime if m in loaded and not m.startswith(f"{FAMILIES[family]}.")] == []


def test_the_registry_reads_each_family_s_weights_and_nothing_else_of_it():
    code = "import json, sys\nfrom nlgmetrics.core.registry import WEIGHTS\nlist(WEIGHTS)\n" + (
        'print(json.dumps(sorted(m for m in sys.modules if m.startswith("nlgmetrics."))))'
    )
    loaded = modules_after(code)
    for package in FAMILIES.values():
        assert f"{package}.weights" in loaded
        assert [m for m in loaded if m.startswith(f"{package}.") and m != f"{package}.weights"] == []
