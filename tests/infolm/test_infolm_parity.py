"""InfoLM parity: torchmetrics 1.9.0 on the same weights, and an independent step-by-step computation.

torchmetrics' ``infolm`` is the reference where its pairing bug does not bite (both sides in
the same, already sorted, length order); where it does, the reference is a plain unbatched
computation of the method written here (one full forward pass per masked position, full
vocabulary logits, the paper's Table 1 formulas), which also shows what torchmetrics pairs.

Two model setups:
- the default path: the registered bert-base-uncased (tiny, float32) at temperature 0.25;
- a float64 copy of a small BERT with sharper predictions (init range 0.2, like a trained MLM's
  peaked distributions): float64 on both sides removes float32 rounding, so the comparison
  checks the method itself to ~1e-10.
"""

from __future__ import annotations

import math

import pytest
import torch
from transformers import AutoModelForMaskedLM, AutoTokenizer, BertConfig, BertForMaskedLM

from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.core.warnings import NLGMetricsWarning
from nlgmetrics.infolm import MEASURES, InfoLMScorer
from nlgmetrics.modules import SPECS
from references.infolm import PARAMETERS, stepwise_bags, table1, torchmetrics_scores
from tests.helpers import assert_parity

# Strictly increasing token lengths on both sides: torchmetrics' sort is then the identity and
# its re-ordering (``dist[sorting_indices]``) happens to be right.
SORTED_PREDICTIONS = [
    "rain fell.",
    "the council approved a library.",
    "stocks rose sharply on tuesday morning in tokyo.",
    "the restaurant was terrible and the staff were very rude to us.",
    "scientists found a new frog species in the rainforest of peru last year.",
    "he read the book because he was interested in world history and old maps of europe.",
]
SORTED_REFERENCES = [
    "a dog barked at night.",
    "my favourite band released a new album today.",
    "heavy snow closed every road in the northern mountains.",
    "she studied medicine at the university before joining a hospital in london.",
    "football fans celebrated in the streets after their team won the national championship.",
    "officials said on monday that the new bridge over the river would open to traffic next spring.",
]
# The spec's reproduction of the pairing bug: the two sides sort differently.
MISORDERED_PREDICTIONS = ["alpha beta gamma delta epsilon zeta", "one", "red green blue yellow"]
MISORDERED_REFERENCES = ["one two", "the cat sat on the mat with a hat and a bat", "alpha"]


@pytest.fixture(scope="module")
def sharp64(tiny_snapshots, tmp_path_factory):
    """A 2-layer BERT masked LM with the real uncased vocabulary, saved in float64."""
    folder = tmp_path_factory.mktemp("sharp-mlm-float64")
    tokenizer = AutoTokenizer.from_pretrained(tiny_snapshots["bert-base-uncased"])
    tokenizer.save_pretrained(folder)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(tokenizer),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        initializer_range=0.2,
    )
    BertForMaskedLM(config).double().save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def scorer64(sharp64):
    """Our scorer on the float64 model (the loader casts to float32; cast the loaded copy back)."""
    scorer = InfoLMScorer(SPECS["infolm"], str(sharp64), device="cpu")
    scorer.wrapper.model.double()
    return scorer


def test_parity_inputs_are_in_strictly_increasing_length_order(tiny_snapshots):
    tokenizer = AutoTokenizer.from_pretrained(tiny_snapshots["bert-base-uncased"])
    for texts in (SORTED_PREDICTIONS, SORTED_REFERENCES):
        lengths = [len(ids) for ids in tokenizer(texts)["input_ids"]]
        assert lengths == sorted(set(lengths)) and max(lengths) <= 64


@pytest.mark.parametrize("idf", [False, True])
@pytest.mark.parametrize("measure", list(MEASURES))
def test_parity_with_torchmetrics_in_float64(sharp64, scorer64, measure, idf):
    ours = scorer64.score(
        SORTED_PREDICTIONS, SORTED_REFERENCES, measure=measure, idf=idf, **PARAMETERS[measure]
    )
    reference = torchmetrics_scores(sharp64, SORTED_PREDICTIONS, SORTED_REFERENCES, measure, idf=idf)
    assert_parity(f"infolm {measure} idf={idf} (float64 sharp BERT)", ours["scores"], reference)
    assert ours["higher_is_better"] == MEASURES[measure].higher_is_better


@pytest.fixture(scope="module")
def default_path_scores(tiny_snapshots):
    """Ours on the registered model with the defaults (idf=True, temperature 0.25), every measure."""
    scorer = InfoLMScorer(SPECS["infolm"], device="cpu")
    return {
        m: scorer.score(SORTED_PREDICTIONS, SORTED_REFERENCES, measure=m, **PARAMETERS[m])["scores"]
        for m in MEASURES
    }


@pytest.mark.parametrize("measure", list(MEASURES))
def test_parity_with_torchmetrics_on_the_registered_model_float32(
    tiny_snapshots, default_path_scores, measure
):
    """The defaults, float32 on both sides.

    torchmetrics keeps its bags in float32 (their mass is off by ~3e-6); near-identical bags put
    Fisher-Rao at arccos' singular point (the tiny random model's bags are close to uniform), where
    that rounding becomes ~1e-4. For Fisher-Rao the well-conditioned cos(d/2) = Σ√(p·r) is compared.
    """
    ours = default_path_scores[measure]
    reference = torchmetrics_scores(
        tiny_snapshots["bert-base-uncased"], SORTED_PREDICTIONS, SORTED_REFERENCES, measure, idf=True
    )
    if measure == "fisher_rao_distance":
        ours, reference = [math.cos(d / 2) for d in ours], [math.cos(d / 2) for d in reference]
        measure = "fisher_rao_distance (as cos(d/2))"
    assert_parity(f"infolm {measure} idf=True (registered tiny BERT, float32)", ours, reference)


# --- where torchmetrics' pairing bug bites: an independent step-by-step computation -------------------


@pytest.fixture(scope="module")
def stepwise(sharp64):
    model = AutoModelForMaskedLM.from_pretrained(sharp64).eval()
    tokenizer = AutoTokenizer.from_pretrained(sharp64)
    assert next(model.parameters()).dtype == torch.float64
    return {
        idf: (
            stepwise_bags(model, tokenizer, MISORDERED_PREDICTIONS, 0.25, idf),
            stepwise_bags(model, tokenizer, MISORDERED_REFERENCES, 0.25, idf),
        )
        for idf in (False, True)
    }


@pytest.mark.parametrize("idf", [False, True])
@pytest.mark.parametrize("measure", list(MEASURES))
def test_misordered_inputs_equal_the_stepwise_computation(scorer64, stepwise, measure, idf):
    pred_bags, ref_bags = stepwise[idf]
    expected = [table1(measure, r, p, **PARAMETERS[measure]) for p, r in zip(pred_bags, ref_bags)]
    ours = scorer64.score(
        MISORDERED_PREDICTIONS, MISORDERED_REFERENCES, measure=measure, idf=idf, **PARAMETERS[measure]
    )
    assert_parity(f"infolm {measure} idf={idf} misordered vs step-by-step", ours["scores"], expected)


def test_misordered_inputs_equal_torchmetrics_pair_by_pair_but_not_batched(sharp64, scorer64):
    """One pair at a time torchmetrics cannot mis-pair; batched, it compares (2,1), (0,2), (1,0)."""
    measure = "l2_distance"
    ours = scorer64.score(MISORDERED_PREDICTIONS, MISORDERED_REFERENCES, measure=measure, idf=False)["scores"]
    one_by_one = [
        torchmetrics_scores(sharp64, [p], [r], measure, idf=False)[0]
        for p, r in zip(MISORDERED_PREDICTIONS, MISORDERED_REFERENCES)
    ]
    assert_parity("infolm l2_distance misordered vs torchmetrics pair by pair", ours, one_by_one)
    batched = torchmetrics_scores(sharp64, MISORDERED_PREDICTIONS, MISORDERED_REFERENCES, measure, idf=False)
    wrong_pairs = scorer64.score(
        [MISORDERED_PREDICTIONS[i] for i in (2, 0, 1)],
        [MISORDERED_REFERENCES[i] for i in (1, 2, 0)],
        measure=measure,
        idf=False,
    )["scores"]
    assert batched == pytest.approx(wrong_pairs, abs=1e-9)
    assert abs(sum(batched) - sum(ours)) > 1e-3  # the corpus mean is wrong too, not just the order


def test_single_pair_with_idf_is_meaningful_where_torchmetrics_gives_zero(sharp64, scorer64):
    pred, ref = ["the cat sat on the mat"], ["a dog slept in the garden"]
    with pytest.warns(NLGMetricsWarning, match="weighted uniformly"):
        ours = scorer64.score(pred, ref, measure="fisher_rao_distance")["scores"][0]
    without_idf = scorer64.score(pred, ref, measure="fisher_rao_distance", idf=False)["scores"][0]
    assert ours == without_idf > 0.1
    assert torchmetrics_scores(sharp64, pred, ref, "fisher_rao_distance", idf=True) == [0.0]


def test_idf_works_with_batches_smaller_than_the_corpus(sharp64, scorer64):
    """torchmetrics crashes here (idf tensor not trimmed per batch); ours is batch-size invariant."""
    small = InfoLMScorer(SPECS["infolm"], str(sharp64), device="cpu", batch_size=3)
    small.wrapper.model.double()
    kwargs = {"measure": "kl_divergence", "idf": True}
    expected = scorer64.score(SORTED_PREDICTIONS, SORTED_REFERENCES, **kwargs)["scores"]
    assert small.score(SORTED_PREDICTIONS, SORTED_REFERENCES, **kwargs)["scores"] == pytest.approx(
        expected, abs=1e-10
    )
    with pytest.raises(RuntimeError, match="must match the size"):
        torchmetrics_scores(
            sharp64, SORTED_PREDICTIONS, SORTED_REFERENCES, "kl_divergence", idf=True, batch_size=2
        )


def test_registered_default_model_is_bert_base_uncased():
    scorer = InfoLMScorer(SPECS["infolm"], device="cpu")
    spec = WEIGHTS["bert-base-uncased"]
    assert scorer.wrapper.name == "bert-base-uncased" and spec.revision.startswith("86b5e09")
    assert scorer.wrapper.window == 512 and type(scorer.wrapper.model).__name__ == "BertForMaskedLM"
