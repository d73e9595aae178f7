"""Parity with the reference: ctc_score 0.1.3's E aligner on the same weights, bugs corrected.

The reference runs one pair at a time through bert_score; ours batches and deduplicates.
Corrections applied to the reference, as the spec lists them:
- RoBERTa input is encoded with a prefix space (bert_score's ``add_prefix_space=True`` call
  argument is ignored by transformers 5, so the tokenizer is built with it);
- stopwords are matched on stripped tokens (ctc-gen-eval HEAD 223a2f7), which only changes
  RoBERTa, whose tokens carry a leading space;
- preservation is the true harmonic mean 2ab/(a+b) (HEAD 37dd379), twice the wheel's value.
"""

from __future__ import annotations

import functools

import pytest

import nlgmetrics
from nlgmetrics.core.warnings import NLGMetricsWarning
from nlgmetrics.ctc.variants import CTC_VARIANTS
from references.ctc import CorrectedReferenceAligner, task_scorer, task_scores
from references.examples import BY_ASPECT
from tests.helpers import assert_parity


@functools.cache
def reference_scorer(aspect: str, path: str, layer: int):
    """A ctc_score task scorer whose aligners are the corrected reference E aligner on ``path``."""
    return task_scorer(aspect, lambda aggregation: CorrectedReferenceAligner(path, layer, aggregation))


def reference_scores(aspect: str, path: str, layer: int, remove_stopwords: bool) -> list[float]:
    return task_scores(reference_scorer(aspect, path, layer), aspect, remove_stopwords)


INPUTS = BY_ASPECT
VARIANTS = ["E-bert", "E-roberta", "E-roberta-mnli", "E-minilm"]


def weights_path(variant: str, tiny_snapshots, minilm_dir) -> tuple[str, int]:
    """The folder our registered variant loads (tiny random or the real MiniLM) and its layer."""
    spec = CTC_VARIANTS[variant].weight_for("*")
    path = minilm_dir if spec.embedded_package else str(tiny_snapshots[spec.name])
    return path, spec.hidden_layer


@pytest.mark.filterwarnings("ignore:.*cut as the reference:nlgmetrics.core.warnings.NLGMetricsWarning")
@pytest.mark.parametrize("remove_stopwords", [False, True], ids=["all-tokens", "no-stopwords"])
@pytest.mark.parametrize("aspect", list(INPUTS))
@pytest.mark.parametrize("variant", VARIANTS)
def test_e_aligner_matches_ctc_score(variant, aspect, remove_stopwords, tiny_snapshots, minilm_dir):
    path, layer = weights_path(variant, tiny_snapshots, minilm_dir)
    metric = nlgmetrics.load(f"ctc_{aspect}", variant, device="cpu")
    ours = metric.compute(**INPUTS[aspect], remove_stopwords=remove_stopwords)["scores"]
    reference = reference_scores(aspect, path, layer, remove_stopwords)
    name = (
        f"ctc_{aspect} {variant}{' (tiny)' if variant != 'E-minilm' else ''} stopwords "
        f"removed={remove_stopwords}"
    )
    assert_parity(name, ours, reference)
    if remove_stopwords:  # the setting must matter on these inputs, or the comparison proves little
        assert ours != metric.compute(**INPUTS[aspect], remove_stopwords=False)["scores"]


def test_parity_inputs_exercise_truncation_and_stopwords(tiny_snapshots):
    """The parity inputs include a text longer than the window and stopword-heavy text."""
    metric = nlgmetrics.load("ctc_consistency", "E-bert", device="cpu")
    with pytest.warns(NLGMetricsWarning, match="cut as the reference"):
        metric.compute(**INPUTS["consistency"])
    with pytest.warns(NLGMetricsWarning, match="cut as the reference"):
        details = metric.compute(**INPUTS["consistency"], return_details=True)["details"]
    tokens = [t for example in details for t in example["predictions→sources"]["tokens"]]
    assert {"the", "and", "was"} <= set(tokens)
