"""InfoLM: the measures against the paper's Table 1, the bags, options, odd and bad input, the module."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path

import evaluate
import pytest
import torch
from transformers import AutoModelForMaskedLM, AutoTokenizer

import nlgmetrics
from nlgmetrics.core import weight_cache
from nlgmetrics.core.warnings import NLGMetricsWarning
from nlgmetrics.infolm import (
    MEASURES,
    UNIFORM,
    IdfWeights,
    InfoLMScorer,
    InfoLMWrapper,
    information_measure,
)
from nlgmetrics.infolm.module import top_tokens
from nlgmetrics.modules import SPECS
from references.examples import LONG_DOC
from references.infolm import PARAMETERS, stepwise_bag, table1

REPO = Path(__file__).resolve().parents[2]
FLOAT32_REL = 1e-5
"""Scores from float32 forward passes whose batches differ: a few float32 roundings (eps 1.2e-7) apart."""

# The paper's parameter choices (Appendix B.5): D_alpha 0.75, D_gamma 0.5, D_AB (3, 0.25).
REFERENCE_BAG = [0.5, 0.2, 0.15, 0.1, 0.05, 0.0]
PREDICTION_BAG = [0.3, 0.3, 0.05, 0.2, 0.15, 0.0]


def _ours(measure: str, p: list[float], r: list[float], **params) -> float:
    chosen = information_measure(measure, **params)
    return chosen(torch.tensor([p], dtype=torch.float64), torch.tensor([r], dtype=torch.float64)).item()


@pytest.mark.parametrize(
    ("measure", "params"),
    [
        ("kl_divergence", {}),
        ("alpha_divergence", {"alpha": 0.75}),
        ("alpha_divergence", {"alpha": 0.5}),
        ("alpha_divergence", {"alpha": 3}),
        ("alpha_divergence", {"alpha": -0.5}),
        ("beta_divergence", {"beta": 0.5}),
        ("beta_divergence", {"beta": 3.0}),
        ("beta_divergence", {"beta": -0.5}),
        ("ab_divergence", {"alpha": 3.0, "beta": 0.25}),
        ("ab_divergence", {"alpha": 0.5, "beta": 0.25}),
        ("ab_divergence", {"alpha": 2.0, "beta": -0.5}),
        ("renyi_divergence", {"alpha": 0.75}),
        ("renyi_divergence", {"alpha": 2.0}),
        ("l1_distance", {}),
        ("l2_distance", {}),
        ("l_infinity_distance", {}),
        ("fisher_rao_distance", {}),
    ],
)
def test_each_measure_equals_its_formula_on_hand_made_distributions(measure, params):
    expected = table1(measure, REFERENCE_BAG, PREDICTION_BAG, **params)
    assert _ours(measure, PREDICTION_BAG, REFERENCE_BAG, **params) == pytest.approx(
        expected, rel=1e-12, abs=1e-15
    )
    assert _ours(measure, REFERENCE_BAG, REFERENCE_BAG, **params) == pytest.approx(0.0, abs=1e-12)


def test_measure_identities_from_the_paper():
    p, r = PREDICTION_BAG, REFERENCE_BAG
    # KL is the α → 1 limit of the α-divergence (§3.3).
    limit = (
        _ours("alpha_divergence", p, r, alpha=1 - 1e-6) + _ours("alpha_divergence", p, r, alpha=1 + 1e-6)
    ) / 2
    assert _ours("kl_divergence", p, r) == pytest.approx(limit, abs=1e-9)
    # The β (γ) divergence is the AB divergence with α = 1, where the paper's printed AB row agrees.
    assert _ours("beta_divergence", p, r, beta=0.5) == pytest.approx(
        _ours("ab_divergence", p, r, alpha=1.0, beta=0.5)
    )
    # Rényi and the α-divergence share Σ r^α p^(1-α).
    alpha = 0.75
    d_alpha = _ours("alpha_divergence", p, r, alpha=alpha)
    assert _ours("renyi_divergence", p, r, alpha=alpha) == pytest.approx(
        math.log(1 - alpha * (alpha - 1) * d_alpha) / (alpha - 1)
    )
    # Directions: KL and α are ≤ 0 (higher is better); the others are ≥ 0.
    for measure, params in PARAMETERS.items():
        value = _ours(measure, p, r, **params)
        assert (value <= 0) == MEASURES[measure].higher_is_better, measure


def test_zero_probabilities_give_exact_values_not_patched_ones():
    # The prediction's bag misses a token the reference needs: −KL(r‖p) = −inf, not −3.4e38 or 0.
    assert _ours("kl_divergence", [0.5, 0.5, 0.0], [0.4, 0.4, 0.2]) == -math.inf
    # Tokens absent from both bags do not matter.
    assert _ours("alpha_divergence", [0.5, 0.5, 0.0], [0.4, 0.6, 0.0], alpha=2.0) == pytest.approx(
        _ours("alpha_divergence", [0.5, 0.5], [0.4, 0.6], alpha=2.0)
    )
    assert math.isnan(_ours("l1_distance", [math.nan] * 3, [0.2, 0.3, 0.5]))


@pytest.mark.parametrize(
    ("measure", "params", "message"),
    [
        ("kl", {}, "not one of kl_divergence, alpha_divergence"),
        ("alpha_divergence", {}, "needs alpha"),
        ("alpha_divergence", {"alpha": 1.0}, "other than 0 and 1"),
        ("alpha_divergence", {"alpha": 0}, "other than 0 and 1"),
        ("beta_divergence", {"beta": -1.0}, "other than 0 and -1"),
        ("beta_divergence", {"alpha": 0.5}, "needs beta"),
        ("ab_divergence", {"alpha": 0.5}, "needs alpha and beta"),
        ("ab_divergence", {"alpha": 0.5, "beta": -0.5}, "alpha \\+ beta not 0"),
        ("renyi_divergence", {"alpha": 1}, "other than 1"),
        ("renyi_divergence", {"alpha": True}, "finite real number"),
        ("alpha_divergence", {"alpha": math.nan}, "finite real number"),
        ("alpha_divergence", {"alpha": "0.5"}, "finite real number"),
    ],
)
def test_invalid_measures_and_parameters_are_clear_errors(measure, params, message):
    with pytest.raises(ValueError, match=message):
        information_measure(measure, **params)


def test_integer_parameters_are_accepted_and_unused_ones_ignored():
    assert information_measure("alpha_divergence", alpha=2).alpha == 2.0  # torchmetrics rejects ints
    assert information_measure("l2_distance", alpha=0.5, beta=2.0) == information_measure("l2_distance")


def test_idf_weights_follow_torchmetrics_formula():
    idf = IdfWeights.from_texts([[101, 7, 7, 8, 102], [101, 7, 9, 102], [101, 102]])
    n = 3
    assert idf([7, 8, 9, 5]) == pytest.approx(
        [math.log((n + 1) / 3), math.log((n + 1) / 2), math.log((n + 1) / 2), math.log(n + 1)]
    )


# --- the bags ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["bert-base-uncased", "roberta-large"])
def test_packed_masking_with_head_only_at_the_mask_equals_full_forward_passes(name, tiny_snapshots):
    """BERT and RoBERTa (<s>, </s>, <pad> as special tokens); the RoBERTa tiny model's head is random."""
    model = AutoModelForMaskedLM.from_pretrained(tiny_snapshots[name]).eval()
    tokenizer = AutoTokenizer.from_pretrained(tiny_snapshots[name])
    lm = InfoLMWrapper(model, tokenizer, batch_size=5, name=name)
    texts = [
        "The cat sat on the mat.",
        "Dogs bark.",
        "A much longer sentence about the weather in the hills.",
    ]
    bags = lm.bags([lm.text(ids, cut, UNIFORM) for ids, cut in lm.encode(texts)], 0.25)
    for text, bag in zip(texts, bags):
        expected = stepwise_bag(model, tokenizer, text, 0.25)
        assert torch.allclose(bag, expected, rtol=1e-5, atol=1e-9)
        # a float64 sum of ~30k float64 probabilities: within n·eps ≈ 7e-12 at worst
        assert bag.sum().item() == pytest.approx(1.0, abs=1e-10)


def test_memory_is_bounded_by_chunks_of_texts(monkeypatch):
    """Bags live one chunk of examples at a time, never one per example for the whole call."""
    import nlgmetrics.infolm.scorer as core

    scorer = InfoLMScorer(SPECS["infolm"], device="cpu")
    sizes = []
    original = scorer.wrapper.bags
    monkeypatch.setattr(
        scorer.wrapper, "bags", lambda texts, *rest: sizes.append(len(texts)) or original(texts, *rest)
    )
    monkeypatch.setattr(core, "TEXTS_PER_CHUNK", 6)
    predictions = [f"sentence number {i} about cats" for i in range(20)]
    chunked = scorer.score(predictions, [f"a text {i} about dogs" for i in range(20)])["scores"]
    assert max(sizes) <= 6 and sum(sizes) == 40 and all(math.isfinite(s) for s in chunked)


# --- scoring options and odd input ---------------------------------------------------------------


def test_scores_follow_the_inputs_whatever_the_order(scorer):
    preds = [
        "a cat",
        "the council approved a new library on elm street",
        "rain",
        "stocks rose in tokyo today",
    ]
    refs = ["the dog", "a library", "heavy rain fell all night over the hills", "markets"]
    forward = scorer.score(preds, refs, measure="l1_distance")["scores"]
    backward = scorer.score(preds[::-1], refs[::-1], measure="l1_distance")["scores"]
    assert backward[::-1] == pytest.approx(forward, rel=FLOAT32_REL, abs=1e-9)


def test_several_references_take_the_best_score_in_the_measures_direction(scorer):
    pred = ["the cat sat on the mat"]
    refs = ["a cat was sitting on the mat", "stock markets fell sharply", "cats"]
    for measure in ("kl_divergence", "fisher_rao_distance"):
        single = [scorer.score(pred, [r], measure=measure, idf=False)["scores"][0] for r in refs]
        result = scorer.score(pred, [refs], measure=measure, idf=False, return_details=True)
        best = max(single) if MEASURES[measure].higher_is_better else min(single)
        # float32 logits: another batch composition changes them by float32 rounding (relative ~1e-7)
        assert result["scores"][0] == pytest.approx(best, rel=FLOAT32_REL, abs=1e-9)
        assert result["details"][0]["reference_scores"] == pytest.approx(single, rel=FLOAT32_REL, abs=1e-9)
        assert single[result["details"][0]["best_reference"]] == pytest.approx(
            best, rel=FLOAT32_REL, abs=1e-9
        )


def test_details_list_the_tokens_whose_probability_differs_most(scorer):
    result = scorer.score(["the cat sat"], ["stock markets fell"], idf=False, return_details=True)
    top = result["details"][0]["top_tokens"]
    assert len(top) == 10 and all(isinstance(t["token"], str) for t in top)
    assert [abs(t["difference"]) for t in top] == sorted((abs(t["difference"]) for t in top), reverse=True)
    assert all(t["difference"] == pytest.approx(t["prediction"] - t["reference"]) for t in top)
    tokens = top_tokens(result["details"][0])  # what the widget shows (infolm's details renderer)
    assert max(abs(v) for _, v in tokens) == 1.0


def test_idf_from_a_corpus_or_a_mapping(scorer):
    preds, refs = ["the cat sat on the mat"], ["a cat lay on the rug"]
    uniform = scorer.score(preds, refs, idf=False)["scores"]
    # Every token equally weighted by a mapping is the same as no idf.
    vocab = scorer.wrapper.tokenizer.convert_ids_to_tokens(
        scorer.wrapper.tokenizer(preds + refs)["input_ids"][0]
    )
    assert scorer.score(preds, refs, idf=dict.fromkeys(vocab, 2.0))["scores"] == pytest.approx(uniform)
    corpus = ["the cat sat", "the dog ran", "a bird flew over the mat"]
    by_corpus = scorer.score(preds, refs, idf=corpus)["scores"]
    assert by_corpus != pytest.approx(uniform) and math.isfinite(by_corpus[0])
    with pytest.raises(ValueError, match="not a token of the model's vocabulary"):
        scorer.score(preds, refs, idf={"notawordpiecetoken": 1.0})
    with pytest.raises(ValueError, match="idf must be True"):
        scorer.score(preds, refs, idf="the cat")
    with pytest.raises(ValueError, match=r"idf\[1\] is None"):
        scorer.score(preds, refs, idf=["fine", None])


def test_empty_texts_score_nan_with_a_warning(scorer):
    blank = r"predictions\[1\], predictions\[3\], references\[2\]\[0\] have no words"
    with pytest.warns(NLGMetricsWarning, match=blank) as caught:
        result = scorer.score(
            ["the cat sat", "", "a dog barked", "   "],
            [["a cat"], ["x"], ["", "the dog barked"], "y"],
            return_details=True,
        )
    scores = result["scores"]
    assert (
        math.isfinite(scores[0])
        and math.isnan(scores[1])
        and math.isfinite(scores[2])
        and math.isnan(scores[3])
    )
    assert result["mean_score"] == pytest.approx((scores[0] + scores[2]) / 2)
    assert result["details"][2]["best_reference"] == 1 and result["details"][1]["top_tokens"] == []
    ours = [str(w.message) for w in caught if issubclass(w.category, NLGMetricsWarning)]
    assert len(ours) == 1 and "2 of 4 examples score NaN" in ours[0]


def test_degenerate_bags_are_reported_not_hidden(scorer):
    """At a tiny temperature each position is one-hot: a token the reference predicts is impossible given the
    prediction."""
    with pytest.warns(NLGMetricsWarning, match="kl_divergence is not finite for example at 0-based index 1:"):
        result = scorer.score(
            ["the cat sat", "rain fell"],
            ["the cat sat", "stock markets crashed"],
            temperature=1e-4,
            idf=False,
        )
    assert result["scores"][0] == pytest.approx(0.0, abs=1e-12) and result["scores"][1] == -math.inf
    assert result["mean_score"] == result["scores"][0]


def test_long_texts_are_truncated_to_the_model_window_with_a_warning(scorer):
    with pytest.warns(
        NLGMetricsWarning,
        match=r"references\[0\]\[0\] are longer than the window of google-bert/bert-base-uncased \(512 "
        r"tokens\)",
    ):
        result = scorer.score(["the harbour project costs rose"], [LONG_DOC], idf=False)
    assert math.isfinite(result["scores"][0])


def test_bad_options_are_value_errors_before_model_work(scorer, monkeypatch):
    monkeypatch.setattr(scorer.wrapper, "bags", lambda *a: pytest.fail("model work before validation"))
    for options, message in [
        ({"measure": "js"}, "is not one of"),
        ({"measure": "ab_divergence", "alpha": 1.0}, "needs alpha and beta"),
        ({"temperature": 0}, "must be positive"),
        ({"temperature": "hot"}, "finite real number"),
    ]:
        with pytest.raises(ValueError, match=message):
            scorer.score(["a"], ["b"], **options)


# --- the evaluate module -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def module():
    return evaluate.load(str(REPO / "metrics" / "infolm"), device="cpu")


@pytest.fixture
def forward_calls(module, monkeypatch):
    model = module.scorer.wrapper.model
    calls = []
    original = model.forward
    monkeypatch.setattr(model, "forward", lambda *a, **k: calls.append(1) or original(*a, **k))
    return calls


def test_module_through_evaluate_load_on_the_offline_cache(module):
    assert type(module).__name__ == "Infolm" and module.name == "infolm" and module.config_name == "default"
    result = module.compute(
        predictions=["he read the book because he was interested in world history", "the cat sat"],
        references=[["he was interested in world history because he read the book"], "a dog slept"],
        measure="fisher_rao_distance",
    )
    assert set(result) == {"scores", "mean_score", "measure", "higher_is_better", "signature"}
    assert result["measure"] == "fisher_rao_distance" and result["higher_is_better"] is False
    assert len(result["scores"]) == 2 and all(0 < s < math.pi for s in result["scores"])
    assert result["mean_score"] == pytest.approx(sum(result["scores"]) / 2)
    same = nlgmetrics.load("infolm", device="cpu").compute(
        predictions=["the cat sat"], references=["a dog slept"], measure="fisher_rao_distance", idf=False
    )
    assert (
        module.compute(
            predictions=["the cat sat"], references=["a dog slept"], measure="fisher_rao_distance", idf=False
        )
        == same
    )


def test_one_pair_alone_gives_a_meaningful_score(module):
    with pytest.warns(NLGMetricsWarning, match="weighted uniformly"):
        one = module.compute(predictions=["the cat sat on the mat"], references=["a dog slept in the garden"])
    assert one["scores"][0] < 0  # KL: 0 only for identical bags
    assert (
        one["scores"][0]
        == module.compute(
            predictions=["the cat sat on the mat"], references=["a dog slept in the garden"], idf=False
        )["scores"][0]
    )


@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"predictions": ["fine", None], "references": ["a", "b"]}, r"predictions\[1\] is None"),
        (
            {"predictions": ["a", "b", "c"], "references": ["a", "b"]},
            "references has 2 examples but predictions has 3",
        ),
        ({"predictions": ["a"], "references": [[]]}, r"references\[0\] is an empty list"),
        ({"predictions": ["a"], "references": [["r", 3]]}, r"references\[0\]\[1\] must be a string, got int"),
        ({"predictions": "one string", "references": ["a"]}, "predictions must be a list"),
        ({"predictions": ["a"], "references": None}, "references is missing"),
        ({"predictions": ["a"], "references": ["b"], "measure": "alpha_divergence"}, "needs alpha"),
    ],
)
def test_bad_input_is_a_value_error_before_model_work(module, forward_calls, inputs, message):
    with pytest.raises(ValueError, match=message):
        module.compute(**inputs)
    assert forward_calls == []


def test_add_and_add_batch_stream_examples(module):
    preds, refs = ["the cat sat", "rain fell", "stocks rose"], [["a cat"], ["snow fell", "rain"], ["markets"]]
    whole = module.compute(predictions=preds, references=refs, idf=False)["scores"]
    module.add(prediction=preds[0], reference=refs[0])
    module.add_batch(predictions=preds[1:], references=refs[1:])
    assert module.compute(idf=False)["scores"] == pytest.approx(whole, rel=FLOAT32_REL, abs=1e-9)
    with pytest.raises(ValueError, match=r"references\[0\] is None"):
        module.add_batch(predictions=["x"], references=[None])


def test_model_choice_at_load_time(tiny_snapshots, fresh_model_cache):
    before = weight_cache.LOAD_COUNT["loads"]
    registered = nlgmetrics.load("infolm", device="cpu")
    by_config = evaluate.load(str(REPO / "metrics" / "infolm"), "bert-base-uncased", device="cpu")
    by_folder = nlgmetrics.load("infolm", model=str(tiny_snapshots["bert-base-uncased"]), device="cpu")
    inputs = {"predictions": ["the cat sat"], "references": ["a dog slept"], "idf": False}
    assert by_config.compute(**inputs) == registered.compute(**inputs)
    assert by_folder.compute(**inputs)["scores"] == pytest.approx(
        registered.compute(**inputs)["scores"], rel=FLOAT32_REL, abs=1e-9
    )
    assert weight_cache.LOAD_COUNT["loads"] - before == 2  # the registered repo once, the folder once
    with pytest.raises(ValueError, match="infolm has no config './my-mlm'"):
        nlgmetrics.load("infolm", "./my-mlm")
    with pytest.raises(ValueError, match="disagree"):
        nlgmetrics.load("infolm", "bert-base-uncased", model="roberta-large")
    with pytest.raises(ValueError, match="'roberta-large' is a registered encoder, not a masked LM"):
        nlgmetrics.load("infolm", model="roberta-large", device="cpu")  # only masked LMs are offered
    with pytest.raises(ValueError, match="no trained masked-LM head"):
        nlgmetrics.load("infolm", model=str(tiny_snapshots["roberta-large"]), device="cpu")  # RobertaModel
    with pytest.raises(ValueError, match="pinned revision"):
        nlgmetrics.load("infolm", model="bert-base-uncased", model_revision="main")


def test_progress_bar_on_request(module, capsys):
    module.compute(predictions=["a b c"], references=["a b"], idf=False, show_progress=True)
    assert "InfoLM" in capsys.readouterr().err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module.compute(predictions=["a b c"], references=["a b"], idf=False)
    assert capsys.readouterr().err == ""


def test_command_line_scores_a_file_with_infolm(tmp_path, capsys):
    from nlgmetrics import cli

    source = tmp_path / "in.jsonl"
    rows = [
        {"predictions": "the cat sat", "references": ["a cat sat", "the cat"]},
        {"predictions": "rain fell", "references": ["stock markets crashed"]},
    ]
    source.write_text("".join(f"{json.dumps(row)}\n" for row in rows))
    assert cli.main(["score", str(source), "--metric", "infolm", "--no-progress", "--table"]) == 0
    scored = [json.loads(line) for line in (tmp_path / "in.infolm.jsonl").read_text().splitlines()]
    assert all(math.isfinite(row["infolm"]) and row["infolm"] <= 0 for row in scored)
    assert "infolm mean_score:" in capsys.readouterr().out
