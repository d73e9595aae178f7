"""Issue 40 §1: every CTC module's default config loads weights that are on the Hub, so a module loaded with
no config scores on its first call; the paper's best variant stays documented with the way to select it."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
from pathlib import Path

import evaluate
import pytest

import nlgmetrics
import nlgmetrics.rewards
from nlgmetrics import cli
from nlgmetrics.core.hub import WeightsUnavailableError
from nlgmetrics.core.registry import WEIGHTS, is_published
from nlgmetrics.ctc import ASPECTS
from nlgmetrics.ctc.module import SPECS
from references.examples import DIALOG, SUMMARIZATION

REPO = Path(__file__).resolve().parents[2]
NOT_ON_THE_HUB = "f" * 40
"""A revision no cache holds: what an unpublished weight's tag is on the real Hub."""
INPUTS = {
    "ctc_consistency": {k: SUMMARIZATION[k][:2] for k in ("predictions", "sources")},
    "ctc_engagingness": {k: v[:2] for k, v in DIALOG.items()},
    "ctc_groundedness": {k: DIALOG[k][:2] for k in ("predictions", "contexts")},
}


@pytest.fixture
def hub_as_it_is(monkeypatch):
    """The test Hub cache as the Hub is today: the tiny copies of weights that are not published (the trained
    CTC aligners, USR's models) are out of reach, as their repos are for a user."""
    for name in list(WEIGHTS):
        if not is_published(WEIGHTS[name]):
            monkeypatch.setitem(WEIGHTS, name, dataclasses.replace(WEIGHTS[name], revision=NOT_ON_THE_HUB))


@pytest.mark.parametrize("name", sorted(SPECS))
def test_each_default_config_loads_registered_hub_weights(name):
    spec = SPECS[name]
    weights = spec.weights_of(spec.default_config)
    assert weights and spec.default_config in spec.configs
    for weight in weights:
        assert WEIGHTS[weight.name] == weight and is_published(weight), weight.name
        # a third-party repo at a commit, not a converted Drive checkpoint
        assert not weight.conversion and weight.pinned


@pytest.mark.parametrize("name", sorted(SPECS))
def test_the_card_names_the_papers_best_variant_and_how_to_select_it(name):
    aspect, spec = ASPECTS[name.removeprefix("ctc_")], SPECS[name]
    card = (REPO / "metrics" / name / "README.md").read_text()
    assert f"**Default: `{spec.default_config}`.**" in card and aspect.paper_variant in spec.configs
    if aspect.paper_variant != aspect.default_variant:
        assert f"The paper found `{aspect.paper_variant}` best" in card
        assert f'`evaluate.load("{name}", "{aspect.paper_variant}")`' in card and "`docs/weights.md`" in card


def test_the_papers_best_trained_aligner_still_says_how_to_get_it(hub_as_it_is):
    with pytest.raises(WeightsUnavailableError, match="not published on the Hub yet"):
        nlgmetrics.load("ctc_consistency", "D-cnndm").compute(**INPUTS["ctc_consistency"])


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_loaded_with_no_config_it_scores_on_the_first_call(name, hub_as_it_is):
    for metric in (evaluate.load(str(REPO / "metrics" / name), device="cpu"), nlgmetrics.load(name)):
        result = metric.compute(**INPUTS[name])
        assert len(result["scores"]) == 2 and all(math.isfinite(s) for s in result["scores"])
        assert f"|config:{SPECS[name].default_config}|" in result["signature"]


def test_the_command_line_scores_with_no_config(tmp_path, capsys, hub_as_it_is):
    data = tmp_path / "data.jsonl"
    rows = [dict(zip(("predictions", "sources"), pair)) for pair in zip(*INPUTS["ctc_consistency"].values())]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    assert cli.main(["score", str(data), "--metric", "ctc_consistency", "--no-progress"]) == 0
    assert "ctc_consistency with E-bert (default)" in capsys.readouterr().out
    scored = [json.loads(line) for line in (tmp_path / "data.ctc_consistency.jsonl").read_text().splitlines()]
    assert len(scored) == 2 and all(math.isfinite(row["ctc_consistency"]) for row in scored)


def test_the_ready_reward_scores_with_no_config(hub_as_it_is):
    reward = copy.deepcopy(nlgmetrics.rewards.ctc_consistency)  # the shared one keeps no model of this test
    assert reward.config is None
    summaries, documents = INPUTS["ctc_consistency"].values()
    rewards = reward(prompts=["Summarize."] * 2, completions=summaries, source=documents)
    assert len(rewards) == 2 and all(math.isfinite(r) for r in rewards)
