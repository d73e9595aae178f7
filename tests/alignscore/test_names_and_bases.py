"""The AlignScore card as pasted (issue 47 §10): a converted folder named like a registered checkpoint loads
by that name; a config and a model that agree are accepted and others refused naming both; the converter
and `nlgmetrics weights` name the base a checkpoint is converted with."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import nlgmetrics
from nlgmetrics import cli
from nlgmetrics.core.registry import WEIGHTS
from tests.alignscore.conftest import CLAIMS, CONTEXTS


def test_the_card_s_converted_folder_loads_by_its_bare_name(checkpoint_files, tmp_path, monkeypatch):
    checkpoint, _ = checkpoint_files["base"]
    monkeypatch.chdir(tmp_path)
    argv = ["convert", "alignscore", "--checkpoint", str(checkpoint), "--output", "alignscore-large"]
    assert cli.main(argv) == 0
    bare = nlgmetrics.load("alignscore", model="alignscore-large", device="cpu")
    dotted = nlgmetrics.load("alignscore", model="./alignscore-large", device="cpu")
    got = bare.compute(predictions=CLAIMS[:2], sources=CONTEXTS[:2])
    assert got["scores"] == dotted.compute(predictions=CLAIMS[:2], sources=CONTEXTS[:2])["scores"]
    assert f"{tmp_path / 'alignscore-large'}@local-folder" in got["signature"]
    with pytest.raises(
        ValueError, match=r"^config name 'large' and model='alignscore-large' disagree; give only"
    ):
        nlgmetrics.load("alignscore", "large", model="alignscore-large", device="cpu")


def test_a_config_and_the_checkpoint_it_loads_agree(tiny_snapshots, tmp_path):
    config = nlgmetrics.load("alignscore", "base", device="cpu")
    both = nlgmetrics.load("alignscore", "base", model="alignscore-base", device="cpu")
    alone = nlgmetrics.load("alignscore", model="alignscore-base", device="cpu")
    want = config.compute(predictions=CLAIMS[:2], sources=CONTEXTS[:2])
    for module in (both, alone):
        got = module.compute(predictions=CLAIMS[:2], sources=CONTEXTS[:2])
        assert got["scores"] == want["scores"] and got["signature"] == want["signature"]
    with pytest.raises(ValueError, match=r"^config name 'large' and model='alignscore-base' disagree"):
        nlgmetrics.load("alignscore", "large", model="alignscore-base", device="cpu")


def _cache_without_the_base(tmp_path: Path) -> dict[str, str]:
    """An offline Hugging Face cache holding the AlignScore checkpoints and no base model."""
    cache = tmp_path / "hub"
    repo = "models--" + WEIGHTS["alignscore-large"].repo_id.replace("/", "--")
    shutil.copytree(Path(os.environ["HF_HUB_CACHE"]) / repo, cache / repo, symlinks=True, dirs_exist_ok=True)
    return {**os.environ, "HF_HUB_CACHE": str(cache), "HF_HUB_OFFLINE": "1"}


def test_the_converter_names_base_when_the_base_is_missing(checkpoint_files, tmp_path):
    checkpoint, _ = checkpoint_files["large"]
    run = subprocess.run(
        [sys.executable, "-m", "nlgmetrics", "convert", "alignscore", "--checkpoint", str(checkpoint)]
        + ["--output", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        env=_cache_without_the_base(tmp_path),
    )
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert "its base 'roberta-large'" in run.stderr and "give --base FOLDER_OR_REPO" in run.stderr
    assert f"hf download {WEIGHTS['roberta-large'].repo_id}" in run.stderr


def test_weights_counts_the_base_and_its_get_it_line_names_both_repos(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "nlgmetrics", "weights", "alignscore"],
        capture_output=True,
        text=True,
        env=_cache_without_the_base(tmp_path),
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    for config, base in (("large", "roberta-large"), ("base", "roberta-base")):
        at = next(i for i, line in enumerate(lines) if line.strip().startswith(config))
        repo, get = lines[at + 1 : at + 3]
        base_repo = WEIGHTS[base].repo_id
        assert f"on this machine: no (its base {base_repo} is not)" in repo
        assert (
            f"hf download {WEIGHTS['alignscore-large'].repo_id} " in get
            and f"hf download {base_repo} " in get
        )
    probe = (
        "from nlgmetrics.availability import config_status as s; from nlgmetrics.modules import SPECS as S;"
    )
    probe += "print([w.name for w in s(S['alignscore'], 'large').missing])"
    missing = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env=_cache_without_the_base(tmp_path)
    )
    assert missing.stdout.strip() == "['roberta-large']", missing.stderr
