"""The lettucedetect module's evaluate class: :class:`~nlgmetrics.modules.metric.NLGMetric` with its
declaration from :mod:`.module` (importing this file imports evaluate; the declarations do not)."""

from __future__ import annotations

from ..modules.metric import NLGMetric
from .module import SPECS


class Lettucedetect(NLGMetric):
    """LettuceDetect (Kovács & Recski 2025): which words of an answer does its context not support? The context's passages are written into the reference's prompt (the QA prompt with the question where questions are given, the summary prompt otherwise), paired with the answer, and a ModernBERT token classifier gives each answer token a probability of being unsupported (a context too long for max_length is split into groups of passages and each token keeps its largest probability). The score is 1 minus the largest probability over the answer's tokens (higher is better); the label is 1 when no token is predicted unsupported; the spans are the unsupported stretches of the answer, with their confidence. Configs: base (default), large.

    Scores every example with LettuceDetect.
    Args:
        predictions (`list[str]`): the generated texts being judged (y).
        sources (`list[str]`): the inputs (x): article, source sentence or dialog history.
        questions (`list[str]`, optional): the question each prediction answers (q), where the task has one.
        max_length (optional): tokens of a (prompt, answer) pair the model reads (default 4096, as the
            reference); a longer context is split into groups of passages that fit, and each answer token
            keeps its largest probability.
        show_progress (optional): show a progress bar counting examples.
        return_details (optional): also return per-example explanations.
    Load-time options (`evaluate.load(..., key=value)` or `nlgmetrics.load(...)`): `model`, `model_revision`,
        `device`, `dtype`, `batch_size`, `max_batch_tokens`, `allow_tf32`, `quantize`.
    Configs: base, large; default base.
    Returns:
        scores (`list[float]`): one score per example (NaN for an example with an empty text).
        mean_score (`float`): the mean over the examples with a finite score (NaN when there are none).
        higher_is_better (`bool`): True: higher is better.
        signature (`str`): module, config, weights at their revision, dtype (and TF32) and package versions.
        details (`list[dict]`, with return_details=True): per-example explanations.
        Zero examples give an empty result (`scores == []`, NaN `mean_score`), not an error.
    Range: (0, 1): 1 minus the largest probability that a token of the answer is not supported.
    Examples:
        >>> import nlgmetrics
        >>> metric = nlgmetrics.load('lettucedetect')  # doctest: +SKIP
        >>> results = metric.compute(
        ...     predictions=['The capital of France is Paris. Its population is 69 million.'],
        ...     sources=[['France is a country in Europe. The capital of France is Paris with 67 million people.']],
        ...     questions=['What is the capital of France? What is its population?'],
        ... )  # doctest: +SKIP
        >>> [round(score, 2) for score in results["scores"]]  # doctest: +SKIP
        [...]
    """  # noqa: E501

    spec = SPECS["lettucedetect"]


__all__ = ["Lettucedetect"]
