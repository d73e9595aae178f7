"""The infolm module's evaluate class: :class:`~nlgmetrics.modules.metric.NLGMetric` with its declaration
from :mod:`.module` (importing this file imports evaluate; the declarations do not). Each class's
docstring is written from its declaration by ``python -m nlgmetrics.cards``, and read as it is written."""

from __future__ import annotations

from ..modules.metric import NLGMetric
from .module import SPECS


class Infolm(NLGMetric):
    """InfoLM (Colombo et al. 2022): every word position of the prediction and of the reference is masked in turn, a masked language model's predicted vocabulary distributions (with a temperature) are averaged with idf weights into one bag of distributions per text, and the two bags are compared with an information measure (KL, alpha, beta, AB, Rényi, L1, L2, L∞ or Fisher-Rao). The direction depends on the measure: see `higher_is_better` in the output.

    Scores every example with InfoLM.
    Args:
        predictions (`list[str]`): the generated texts being judged (y).
        references (`list[str]`): one or several human references (r) per example: a string or a list of
            strings.
        measure (optional): one of kl_divergence, alpha_divergence, beta_divergence, ab_divergence,
            renyi_divergence, l1_distance, l2_distance, l_infinity_distance, fisher_rao_distance (default
            'kl_divergence').
        alpha (optional): for alpha_divergence, ab_divergence and renyi_divergence (checked with any measure:
            a finite real number, not 0 or 1 where unused).
        beta (optional): for beta_divergence and ab_divergence (checked with any measure: a finite real
            number, not 0 or -1 where unused).
        temperature (optional): softmax temperature of the masked LM (default 0.25).
        idf (optional): True (default: idf over the predictions for prediction tokens, over the references for
            reference tokens, as torchmetrics), False (uniform), a list of texts (one corpus for both) or a
            dict token → weight.
        show_progress (optional): show a progress bar counting examples.
        return_details (optional): also return per-example explanations.
    Load-time options (`evaluate.load(..., key=value)` or `nlgmetrics.load(...)`): `model`, `model_revision`,
        `device`, `dtype`, `batch_size`, `max_batch_tokens`, `allow_tf32`, `quantize`.
    Configs: bert-base-uncased; default bert-base-uncased.
    Returns:
        scores (`list[float]`): one score per example (NaN for an example with an empty text).
        mean_score (`float`): the mean over the examples with a finite score (NaN when there are none).
        higher_is_better (`bool`): depends on the options; the result says.
        signature (`str`): module, config, weights at their revision, dtype (and TF32) and package versions.
        details (`list[dict]`, with return_details=True): per-example explanations.
        Zero examples give an empty result (`scores == []`, NaN `mean_score`), not an error.
    Range: depends on the measure: KL and alpha divergences ≤ 0 (higher is better); the other divergences and
        distances ≥ 0 (lower is better); Fisher-Rao in [0, π].
    Examples:
        >>> import nlgmetrics
        >>> metric = nlgmetrics.load('infolm')  # doctest: +SKIP
        >>> results = metric.compute(
        ...     predictions=['he read the book because he was interested in world history'],
        ...     references=[['he was interested in world history because he read the book']],
        ... )  # doctest: +SKIP
        >>> [round(score, 2) for score in results["scores"]]  # doctest: +SKIP
        [...]
    """  # noqa: E501

    spec = SPECS["infolm"]


__all__ = ["Infolm"]
