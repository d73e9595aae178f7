"""The alignscore module's evaluate class: :class:`~nlgmetrics.modules.metric.NLGMetric` with its declaration
from
:mod:`.module` (importing this file imports evaluate; the declarations do not)."""

from __future__ import annotations

from ..modules.metric import NLGMetric
from .module import SPECS


class Alignscore(NLGMetric):
    """AlignScore (Zha et al. 2023): how far a claim (the prediction) is supported by its context (the source). A RoBERTa alignment function trained on 4.7M examples of seven tasks (NLI, QA, paraphrase, fact verification, retrieval, semantic similarity, summarization) scores every pair of a context chunk (about 350 words) and a claim sentence; each sentence keeps its best chunk and the score is the mean over the claim's sentences. Higher is better.

    Scores every example with AlignScore.
    Args:
        predictions (`list[str]`): the generated texts being judged (y).
        sources (`list[str]`): the inputs (x): article, source sentence or dialog history.
        mode (optional): one of nli_sp, bin_sp, reg_sp, nli, bin, reg (default 'nli_sp': the 3-way head's
            'aligned' probability over chunks × claim sentences; '_sp' splits, the others score the whole
            pair).
        show_progress (optional): show a progress bar counting examples.
        return_details (optional): also return per-example explanations.
    Load-time options (`evaluate.load(..., key=value)` or `nlgmetrics.load(...)`): `model`, `model_revision`,
        `device`, `dtype`, `batch_size`, `max_batch_tokens`, `allow_tf32`, `quantize`.
    Configs: large, base; default large.
    Returns:
        scores (`list[float]`): one score per example (NaN for an example with an empty text).
        mean_score (`float`): the mean over the examples with a finite score (NaN when there are none).
        higher_is_better (`bool`): True: higher is better.
        signature (`str`): module, config, weights at their revision, dtype (and TF32) and package versions.
        details (`list[dict]`, with return_details=True): per-example explanations.
        Zero examples give an empty result (`scores == []`, NaN `mean_score`), not an error.
    Range: [0, 1] for the nli and bin modes (probabilities); reg: the regression head's output, about [0, 1]
        but unbounded.
    Examples:
        >>> import nlgmetrics
        >>> metric = nlgmetrics.load('alignscore')  # doctest: +SKIP
        >>> results = metric.compute(
        ...     predictions=['The council approved a new library. It opens in May.'],
        ...     sources=['The city council voted on Monday to build a new library, which will open in May.'],
        ... )  # doctest: +SKIP
        >>> [round(score, 2) for score in results["scores"]]  # doctest: +SKIP
        [...]
    """  # noqa: E501

    spec = SPECS["alignscore"]


__all__ = ["Alignscore"]
