"""End to end through evaluate: every module and config, from the checkout and from the package."""

from __future__ import annotations

import math
from pathlib import Path

import evaluate
import pytest
import transformers
from huggingface_hub import try_to_load_from_cache

import nlgmetrics
from nlgmetrics.core import weight_cache
from nlgmetrics.core.hub import WeightsUnavailableError
from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.ctc import ASPECTS, variants_for
from nlgmetrics.ctc.variants import CTC_VARIANTS
from references.examples import DIALOG, STYLE_TRANSFER, SUMMARIZATION
from tests.helpers import REORDERED_FLOAT32

REPO = Path(__file__).resolve().parents[2]
MODULES = [f"ctc_{aspect}" for aspect in ASPECTS]
INPUTS = {
    "ctc_consistency": {k: SUMMARIZATION[k][:2] for k in ("predictions", "sources")},
    "ctc_relevance": {k: v[:2] for k, v in SUMMARIZATION.items()},
    "ctc_preservation": {k: v[:2] for k, v in STYLE_TRANSFER.items()},
    "ctc_engagingness": {k: v[:2] for k, v in DIALOG.items()},
    "ctc_groundedness": {k: DIALOG[k][:2] for k in ("predictions", "contexts")},
}


@pytest.mark.parametrize("repo_name", sorted({spec.name for spec in WEIGHTS.values()}))
def test_every_registered_weight_resolves_offline(repo_name, tiny_snapshots):
    spec = WEIGHTS[repo_name]
    path = try_to_load_from_cache(spec.repo_id, spec.cached_file, revision=spec.revision)
    assert path is not None and Path(path).parent == tiny_snapshots[repo_name]
    if (
        spec.cached_file != "config.json"
    ):  # a released checkpoint, converted on first use (AlignScore's .ckpt)
        return
    config = transformers.AutoConfig.from_pretrained(spec.repo_id, revision=spec.revision)
    assert (
        config.num_hidden_layers == (spec.test_layers or spec.num_layers) >= (spec.hidden_layer or 0)
    )  # the tiny copy's depth (testing.py)


@pytest.mark.parametrize("name", MODULES)
def test_every_config_through_evaluate_load(name):
    """evaluate.load on the checkout's script, for every registered config, through the tiny cache."""
    for config in variants_for(name.removeprefix("ctc_")):
        metric = evaluate.load(str(REPO / "metrics" / name), config, device="cpu")
        assert type(metric).__name__ == "CTC" + name.removeprefix("ctc_").capitalize()
        assert metric.name == name and metric.config_name == config
        result = metric.compute(**INPUTS[name])
        assert set(result) == {"scores", "mean_score", "higher_is_better", "signature"}
        assert len(result["scores"]) == 2 and all(math.isfinite(s) for s in result["scores"])
        assert result["mean_score"] == pytest.approx(sum(result["scores"]) / 2)


@pytest.mark.parametrize("name", MODULES)
def test_default_config_is_the_best_variant_on_the_hub(name):
    metric = evaluate.load(str(REPO / "metrics" / name), device="cpu")
    assert metric.config_name == "default"
    assert metric.scorer.choice.name == ASPECTS[name.removeprefix("ctc_")].default_variant


def test_checkout_script_and_package_give_the_same_scores():
    from_checkout = evaluate.load(str(REPO / "metrics" / "ctc_relevance"), "E-roberta", device="cpu")
    from_package = nlgmetrics.load("ctc_relevance", "E-roberta", device="cpu")
    inputs = INPUTS["ctc_relevance"]
    assert from_checkout.compute(**inputs) == from_package.compute(**inputs)


def test_weights_load_once_across_computes_and_loads(fresh_model_cache, monkeypatch):
    calls = []
    original = transformers.AutoModel.from_pretrained.__func__

    def counting(cls, *args, **kwargs):
        calls.append(args[0])
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(transformers.AutoModel, "from_pretrained", classmethod(counting))
    before = weight_cache.LOAD_COUNT["loads"]
    for _ in range(3):
        metric = evaluate.load(str(REPO / "metrics" / "ctc_consistency"), "E-bert", device="cpu")
        for _ in range(2):
            metric.compute(**INPUTS["ctc_consistency"])
    nlgmetrics.load("ctc_consistency", "E-bert", device="cpu").compute(**INPUTS["ctc_consistency"])
    # relevance needs two alignment directions; E uses one backbone for both, loaded once
    nlgmetrics.load("ctc_relevance", "E-bert", device="cpu").compute(**INPUTS["ctc_relevance"])
    assert calls == [WEIGHTS["bert-base-uncased"].repo_id]
    assert weight_cache.LOAD_COUNT["loads"] - before == 1


def test_custom_aligner_from_a_folder_and_a_repo(tiny_snapshots):
    folder = tiny_snapshots["bert-base-uncased"]
    by_folder = nlgmetrics.load("ctc_consistency", aligner=f"E:{folder}@9", device="cpu")
    registered = nlgmetrics.load("ctc_consistency", "E-bert", device="cpu")
    inputs = INPUTS["ctc_consistency"]
    assert by_folder.compute(**inputs)["scores"] == registered.compute(**inputs)["scores"]
    last_layer = nlgmetrics.load("ctc_consistency", aligner=f"E:{folder}", device="cpu")
    assert last_layer.scorer.wrappers[last_layer.scorer.sources["doc_to_summ"]].layer == 12
    spec = WEIGHTS["roberta-large"]
    by_repo = nlgmetrics.load(
        "ctc_groundedness", aligner=f"E:{spec.repo_id}@3", aligner_revision=spec.revision, device="cpu"
    )
    assert len(by_repo.compute(**INPUTS["ctc_groundedness"])["scores"]) == 2


def test_bad_configs_are_clear_errors(tiny_snapshots):
    with pytest.raises(ValueError, match="valid configs are: E-bert, E-roberta, E-roberta-mnli, E-minilm"):
        nlgmetrics.load("ctc_consistency", "D-nonexistent")
    with pytest.raises(ValueError, match="layer 13 is out of range"):
        nlgmetrics.load(
            "ctc_consistency", aligner=f"E:{tiny_snapshots['bert-base-uncased']}@13", device="cpu"
        )
    with pytest.raises(ValueError, match="disagree"):
        nlgmetrics.load("ctc_consistency", "E-bert", aligner="E-roberta")
    with pytest.raises(ValueError, match="not understood"):
        nlgmetrics.load("ctc_consistency", aligner="X:foo")
    with pytest.raises(ValueError, match="unknown module"):
        nlgmetrics.load("ctc_fluency")


def test_missing_weights_error_names_repo_revision_and_offline_variables(monkeypatch):
    import dataclasses

    from nlgmetrics.core import registry

    spec = dataclasses.replace(
        WEIGHTS["bert-base-uncased"], revision="0123456789abcdef0123456789abcdef01234567"
    )
    monkeypatch.setitem(registry.WEIGHTS, "bert-base-uncased", spec)
    with pytest.raises(WeightsUnavailableError) as err:
        nlgmetrics.load("ctc_consistency", "E-bert", device="cpu")
    message = str(err.value)
    for expected in (spec.repo_id, spec.revision, "HF_HUB_OFFLINE=1", "HF_EVALUATE_OFFLINE=1", "hf download"):
        assert expected in message
    assert isinstance(err.value, OSError)


def test_evaluate_combine_with_add_batch_then_compute():
    """evaluate.combine passes compute() keywords to every module; add_batch filters them."""
    exact_match = evaluate.load(str(REPO / "tests" / "fixtures" / "exact_match"))
    consistency = nlgmetrics.load("ctc_consistency", "E-minilm")
    combined = evaluate.combine([exact_match, consistency])
    data = {
        "predictions": ["The cat sat on the mat.", "Dogs can fly."],
        "references": ["The cat sat on the mat.", "Dogs cannot fly."],
        "sources": ["A cat was sitting on the mat.", "Dogs are animals that walk and run."],
    }
    with pytest.raises(TypeError):
        combined.compute(**data)
    combined.add_batch(**data)
    result = combined.compute()
    assert result["exact_match"] == 0.5
    assert len(result["scores"]) == 2 and result["scores"][0] > result["scores"][1]
    assert result["mean_score"] == pytest.approx(sum(result["scores"]) / 2)


def test_add_and_add_batch_stream_examples():
    metric = nlgmetrics.load("ctc_consistency", "E-minilm")
    inputs = INPUTS["ctc_consistency"]
    whole = metric.compute(**inputs)["scores"]
    metric.add(prediction=inputs["predictions"][0], sources=inputs["sources"][0])
    metric.add_batch(predictions=inputs["predictions"][1:], sources=inputs["sources"][1:])
    assert metric.compute()["scores"] == pytest.approx(whole, abs=REORDERED_FLOAT32)


def test_details_explain_each_alignment():
    metric = nlgmetrics.load("ctc_relevance", "E-minilm")
    result = metric.compute(**INPUTS["ctc_relevance"], return_details=True)
    first = result["details"][0]
    assert list(first) == ["predictions→sources", "references[0]→predictions", "references[1]→predictions"]
    alignment = first["predictions→sources"]
    assert len(alignment["tokens"]) == len(alignment["token_scores"]) > 5
    assert alignment["score"] == pytest.approx(sum(alignment["token_scores"]) / len(alignment["tokens"]))
    refs = [first[k]["score"] for k in list(first)[1:]]
    assert result["scores"][0] == pytest.approx(alignment["score"] * sum(refs) / len(refs))


def test_every_variant_is_registered_once():
    from nlgmetrics.ctc.weights import CTC_CHECKPOINTS, CTC_RELEASE

    assert sorted(CTC_VARIANTS) == sorted(
        ["E-bert", "E-minilm", "E-roberta", "E-roberta-mnli", *CTC_CHECKPOINTS]
    )
    # one repo can hold several weights in files of their own (AlignScore's two checkpoints)
    repos = [(spec.repo_id, spec.revision, spec.cached_file) for spec in WEIGHTS.values()]
    assert len(repos) == len(set(repos))
    for spec in WEIGHTS.values():
        assert (
            len(spec.revision) == 40
            or (spec.repo_id.startswith("nlgmetrics/") and spec.revision == CTC_RELEASE)
            or (spec.awaiting_pin and spec.revision == "main")
        )
    for variant, directions in CTC_CHECKPOINTS.items():
        assert {d: CTC_VARIANTS[variant].weight_for(d).repo_id for d in directions} == {
            d: f"nlgmetrics/ctc-{variant}-{d}" for d in directions
        }


def test_release_racing_a_streamed_compute_scores_with_the_scorer_the_call_took():
    """release() from another thread between compute()'s taking the scorer and evaluate's _compute (after
    add_batch) used to end in "'NoneType' object has no attribute 'run'": the call keeps the scorer it
    took."""
    module = nlgmetrics.load("ctc_consistency", "E-minilm")
    expected = module.compute(**INPUTS["ctc_consistency"])["scores"]
    module.add_batch(**INPUTS["ctc_consistency"])
    take = module.ready_scorer

    def take_then_released_by_another_thread():
        scorer = take()
        nlgmetrics.release(module)  # the racing thread's release() lands right here
        return scorer

    module.ready_scorer = take_then_released_by_another_thread
    assert module.compute()["scores"] == expected
    assert module.scorer is None  # released: the next compute() loads the models again
    del module.ready_scorer
    assert module.compute(**INPUTS["ctc_consistency"])["scores"] == expected
