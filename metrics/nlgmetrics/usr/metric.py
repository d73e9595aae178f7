"""The usr module's evaluate class: :class:`~nlgmetrics.modules.metric.NLGMetric` with its declaration
from :mod:`.module` (importing this file imports evaluate; the declarations do not). Each class's
docstring is written from its declaration by ``python -m nlgmetrics.cards``, and read as it is written."""

from __future__ import annotations

from ..modules.metric import NLGMetric
from .module import SPECS


class Usr(NLGMetric):
    r"""USR (Mehri & Eskenazi 2020): a reference-free score for a dialog response from three RoBERTa-base models fine-tuned on Topical-Chat. USR-MLM is the mean log-probability a masked language model gives each token of the last utterance and the response, masked one at a time (understandable, natural); USR-DR-c is the probability a retrieval model gives the response as the right one for the context and fact (maintains context, interesting); USR-DR-f the same for the fact alone (uses knowledge). The released linear regression combines them into one overall-quality score on the 1–5 scale.

    Scores every example with USR.
    Args:
        predictions (`list[str]`): the generated texts being judged (y).
        sources (`list[str]`): the inputs (x): article, source sentence or dialog history.
        contexts (`list[str]`): the knowledge (c): fact or persona for each dialog turn.
        show_progress (optional): show a progress bar counting examples.
        return_details (optional): also return per-example explanations.
    Load-time options (`evaluate.load(..., key=value)` or `nlgmetrics.load(...)`): `mlm`, `dr_c`, `dr_f`,
        `device`, `dtype`, `batch_size`, `max_batch_tokens`, `allow_tf32`, `quantize`.
    Configs: topical_chat; default topical_chat.
    Returns:
        scores (`list[float]`): one score per example (NaN for an example with an empty text).
        mean_score (`float`): the mean over the examples with a finite score (NaN when there are none).
        higher_is_better (`bool`): True: higher is better.
        signature (`str`): module, config, weights at their revision, dtype (and TF32) and package versions.
        details (`list[dict]`, with return_details=True): per-example explanations.
        Zero examples give an empty result (`scores == []`, NaN `mean_score`), not an error.
    Range: usr: the overall-quality rating scale (about 1–5, not clipped); mlm: a mean log-probability ≤ 0;
        dr_c and dr_f: probabilities in [0, 1].
    Examples:
        >>> import nlgmetrics
        >>> metric = nlgmetrics.load('usr')  # doctest: +SKIP
        >>> results = metric.compute(
        ...     predictions=['i love jazz too ! did you know it started in new orleans ?'],
        ...     sources=['hi , how are you ?\ni am good . i have been listening to a lot of jazz lately .'],
        ...     contexts=['jazz originated in the african-american communities of new orleans .'],
        ... )  # doctest: +SKIP
        >>> [round(score, 2) for score in results["scores"]]  # doctest: +SKIP
        [...]
    """  # noqa: E501

    spec = SPECS["usr"]


__all__ = ["Usr"]
