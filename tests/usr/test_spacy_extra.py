"""spaCy is needed by USR only (issue 27 §3): it is the ``usr`` extra (in ``all`` too), not a base
dependency, and USR loaded without it is one line naming the extra, before any weights load."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import evaluate
import pytest
from packaging.requirements import Requirement

import nlgmetrics
from nlgmetrics.core import weight_cache
from nlgmetrics.usr import preprocess
from nlgmetrics.usr import usr as usr_function

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
ONE_LINE = r'^USR needs spaCy \(.*\), which is not installed: pip install "nlgmetrics\[usr\]"$'


def names(requirements: list[str]) -> set[str]:
    return {Requirement(r).name for r in requirements}


def test_spacy_is_the_usr_extra_not_a_base_dependency():
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    assert "spacy" not in names(project["dependencies"])
    assert names(extras["usr"]) == {"spacy"} and "spacy" in names(extras["test"])
    (everything,) = extras["all"]
    runtime_extras = set(extras) - {"all", "benchmarks", "test", "release"}
    assert Requirement(everything).name == "nlgmetrics" and Requirement(everything).extras == runtime_extras


@pytest.fixture
def without_spacy(monkeypatch, fresh_model_cache):
    """An environment where ``import spacy`` fails as it does when spaCy is not installed."""
    monkeypatch.setitem(sys.modules, "spacy", None)
    preprocess._spacy_tokenizer.cache_clear()
    yield
    preprocess._spacy_tokenizer.cache_clear()


@pytest.mark.parametrize(
    "load",
    [
        lambda: nlgmetrics.load("usr", device="cpu"),
        lambda: evaluate.load(str(REPO / "metrics" / "usr"), device="cpu"),
        lambda: usr_function(["a"], ["b"], ["c"], device="cpu"),
        lambda: preprocess.normalise("Isn't it?"),
    ],
    ids=["nlgmetrics.load", "evaluate.load", "functional", "preprocess"],
)
def test_usr_without_spacy_is_one_line_naming_the_extra_before_any_weights_load(without_spacy, load):
    loads = weight_cache.LOAD_COUNT["loads"]
    with pytest.raises(ModuleNotFoundError, match=ONE_LINE):
        load()
    assert weight_cache.LOAD_COUNT["loads"] == loads  # no weights loaded


CLI_WITHOUT_SPACY = """
import sys


class NotInstalled:
    def find_spec(self, name, path=None, target=None):
        if name == "spacy" or name.startswith("spacy."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


sys.meta_path.insert(0, NotInstalled())
from nlgmetrics.cli import main

sys.exit(main(sys.argv[1:]))
"""


def test_the_command_line_says_it_in_one_line_with_exit_status_2(tmp_path):
    data = tmp_path / "dialogs.jsonl"
    data.write_text('{"predictions": "sure .", "sources": "hi", "contexts": "a fact"}\n', encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", CLI_WITHOUT_SPACY, "score", str(data), "--metric", "usr", "--device", "cpu"],
        env=os.environ,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "nlgmetrics: error: USR needs spaCy (the released code's tokenizer), which is not installed: pip "
        'install "nlgmetrics[usr]"'
    ]
