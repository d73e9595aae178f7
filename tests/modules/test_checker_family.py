"""The second family of docs/adding_a_family.md (issue 48): a claim checker with a model, declared as steps
of the claim-checking pipeline, written from the page into a temporary folder and registered with one line,
loads, scores each claim as its best chunk (the model run on each pair alone), and is NaN where the document
is blank."""

from __future__ import annotations

import math
import sys

import pytest
import torch

import nlgmetrics
from nlgmetrics.modules import FAMILIES
from tests.helpers import REORDERED_FLOAT32
from tests.modules.test_toy_family import toy_files


@pytest.fixture
def toy_check(tmp_path, monkeypatch):
    folder = tmp_path / "nlg_toy_check"
    folder.mkdir()
    for name, text in toy_files("CHECKER_FILES").items():
        (folder / name).write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(FAMILIES, "toy_check", "nlg_toy_check")
    yield nlgmetrics.load("toy_check", device="cpu")
    for name in [m for m in sys.modules if m == "nlg_toy_check" or m.startswith("nlg_toy_check.")]:
        del sys.modules[name]


def test_the_checker_family_scores_each_claim_as_its_best_chunk(toy_check):
    claims = ["The cat slept.", "Birds sang at night.", "A claim."]
    documents = ["The cat sat on the mat. It slept. Birds sang. The sun set.", "Birds sang. Rain fell.", " "]
    result = toy_check.compute(predictions=claims, sources=documents, return_details=True)
    scorer = toy_check.ready_scorer()
    assert type(scorer).__name__ == "ToyCheckScorer" and type(scorer.wrapper).__name__ == "ToyCheckWrapper"
    for claim, score, details in zip(claims[:2], result["scores"], result["details"]):
        alone = []
        for chunk in details["chunks"]:
            row = scorer.wrapper.encode([chunk], [claim])[0]
            tensors = {key: torch.tensor([ids]) for key, ids in row.items()}
            tensors["attention_mask"] = torch.ones_like(tensors["input_ids"])
            alone.append(scorer.wrapper.head(tensors)[0].item())
        assert [row[0] for row in details["matrix"]] == pytest.approx(alone, abs=REORDERED_FLOAT32)
        assert score == max(row[0] for row in details["matrix"])
    assert len(result["details"][0]["chunks"]) == 2
    assert math.isnan(result["scores"][2]) and result["details"][2] == {"chunks": [], "matrix": []}
