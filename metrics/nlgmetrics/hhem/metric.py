"""The hhem module's evaluate class: :class:`~nlgmetrics.modules.metric.NLGMetric` with its declaration
from :mod:`.module` (importing this file imports evaluate; the declarations do not)."""

from __future__ import annotations

from ..modules.metric import NLGMetric
from .module import SPECS


class Hhem(NLGMetric):
    """HHEM-2.1-Open (Vectara's Hughes Hallucination Evaluation Model): is a hypothesis supported by its premise? The pair is written into the model's prompt, a Flan-T5-base encoder with a 2-way token classification head reads it whole, and the score is the softmax of the first position's two logits, class 1 (consistent); the label is 1 above 0.5. Config: 2.1-open (default).

    Scores every example with HHEM.
    Args:
        predictions (`list[str]`): the generated texts being judged (y).
        sources (`list[str]`): the inputs (x): article, source sentence or dialog history.
        show_progress (optional): show a progress bar counting examples.
        return_details (optional): also return per-example explanations.
    Load-time options (`evaluate.load(..., key=value)` or `nlgmetrics.load(...)`): `model`, `model_revision`,
        `device`, `dtype`, `batch_size`, `max_batch_tokens`, `allow_tf32`, `quantize`.
    Configs: 2.1-open; default 2.1-open.
    Returns:
        scores (`list[float]`): one score per example (NaN for an example with an empty text).
        mean_score (`float`): the mean over the examples with a finite score (NaN when there are none).
        higher_is_better (`bool`): True: higher is better.
        signature (`str`): module, config, weights at their revision, dtype (and TF32) and package versions.
        details (`list[dict]`, with return_details=True): per-example explanations.
        Zero examples give an empty result (`scores == []`, NaN `mean_score`), not an error.
    Range: (0, 1): the probability that the premise supports the hypothesis (consistent).
    Examples:
        >>> import nlgmetrics
        >>> metric = nlgmetrics.load('hhem')  # doctest: +SKIP
        >>> results = metric.compute(
        ...     predictions=['The capital of France is Berlin.'],
        ...     sources=['The capital of France is Paris.'],
        ... )  # doctest: +SKIP
        >>> [round(score, 2) for score in results["scores"]]  # doctest: +SKIP
        [...]
    """  # noqa: E501

    spec = SPECS["hhem"]


__all__ = ["Hhem"]
