"""One rule for a config and a weights option given together, in every module (issue 47 §10): accepted when
they agree, refused in one line naming both when they do not, before anything loads; an existing folder
wins over a registered name; messages name a role with the right article."""

from __future__ import annotations

import shutil

import pytest

import nlgmetrics
from nlgmetrics.core import weight_cache


def test_a_folder_named_like_a_registered_weight_wins_for_model_but_not_for_the_config(
    tiny_snapshots, tmp_path, monkeypatch
):
    shutil.copytree(tiny_snapshots["bert-base-uncased"], tmp_path / "bert-base-uncased")
    monkeypatch.chdir(tmp_path)
    inputs = {"predictions": ["the cat sat"], "references": ["a dog slept"], "idf": False}
    by_model = nlgmetrics.load("infolm", model="bert-base-uncased", device="cpu").compute(**inputs)
    by_config = nlgmetrics.load("infolm", "bert-base-uncased", device="cpu").compute(**inputs)
    assert f"{tmp_path / 'bert-base-uncased'}@local-folder" in by_model["signature"]
    assert (
        "google-bert/bert-base-uncased@" in by_config["signature"]
        and "local-folder" not in by_config["signature"]
    )
    with pytest.raises(ValueError, match=r"^config name 'bert-base-uncased' and model='bert-base-uncased'"):
        nlgmetrics.load("infolm", "bert-base-uncased", model="bert-base-uncased", device="cpu")


def test_minicheck_takes_a_model_of_its_config_s_kind_and_refuses_another(tiny_snapshots):
    loads = weight_cache.LOAD_COUNT["loads"]
    for model in ("minicheck-deberta-v3-large", str(tiny_snapshots["minicheck-deberta-v3-large"])):
        with pytest.raises(ValueError) as err:
            nlgmetrics.load("minicheck", "roberta-large", model=model, device="cpu")
        message = str(err.value)
        assert message.startswith(
            f"config name 'roberta-large' and model={model!r} disagree"
        ) and "\n" not in (message)
        assert "reads a 'roberta' model" in message and "holds a 'deberta-v2' model" in message
    assert weight_cache.LOAD_COUNT["loads"] == loads  # refused before anything loads
    folder = str(tiny_snapshots["minicheck-roberta-large"])
    inputs = {"predictions": ["A cat sat."], "sources": ["The cat sat on the mat."]}
    own = nlgmetrics.load("minicheck", "roberta-large", model=folder, device="cpu").compute(**inputs)
    registered = nlgmetrics.load(
        "minicheck", "roberta-large", model="minicheck-roberta-large", device="cpu"
    ).compute(**inputs)
    assert own["scores"] == registered["scores"]


def test_unieval_takes_another_t5_evaluator_for_its_task():
    inputs = {"predictions": ["A cat sat."], "sources": ["The cat sat on the mat."], "references": ["A cat."]}
    result = nlgmetrics.load("unieval", "summarization", model="unieval-fact", device="cpu").compute(**inputs)
    assert "config:custom" in result["signature"] and len(result["scores"]) == 1


@pytest.mark.parametrize(
    ("name", "option"), [("infolm", "model"), ("unieval", "model"), ("alignscore", "model")]
)
def test_a_revision_without_its_model_is_refused_in_one_wording(name, option):
    with pytest.raises(ValueError, match=rf"is registered at \w+ revisions; {option}_revision='v2' is for"):
        nlgmetrics.load(name, **{f"{option}_revision": "v2"})


def test_a_role_is_named_with_its_article(tiny_snapshots):
    with pytest.raises(ValueError, match="'unieval-sum' is a registered seq2seq model, not an encoder;"):
        nlgmetrics.load("alignscore", model="unieval-sum", device="cpu")
    with pytest.raises(ValueError, match=r"has no 2-way sequence-classification head \(missing"):
        nlgmetrics.load(
            "minicheck", "roberta-large", model=str(tiny_snapshots["roberta-large"]), device="cpu"
        )
