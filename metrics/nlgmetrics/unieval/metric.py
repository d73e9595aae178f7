"""The unieval module's evaluate class: :class:`~nlgmetrics.modules.metric.NLGMetric` with its declaration
from :mod:`.module` (importing this file imports evaluate; the declarations do not). Each class's
docstring is written from its declaration by ``python -m nlgmetrics.cards``, and read as it is written."""

from __future__ import annotations

from ..modules.metric import NLGMetric
from .module import SPECS


class Unieval(NLGMetric):
    """UniEval (Zhong et al. 2022): every quality dimension is a yes/no question put to a T5 evaluator (unieval-sum, unieval-dialog or unieval-fact); the score of a dimension is p(Yes) / (p(Yes) + p(No)) at the first decoder step, asked per sentence of the prediction for consistency, fluency and engagingness (a sum), and `overall` is the mean of the computed dimensions. The config is the task: summarization (default), dialogue, data2text or fact.

    Scores every example with UniEval.
    Args:
        predictions (`list[str]`): the generated texts being judged (y).
        sources (`list[str]`): the inputs (x): article, source sentence or dialog history.
        references (`list[str]`): one or several human references (r) per example: a string or a list of
            strings.
        dimensions (optional): the dimensions to compute, a list (default: all of the task's, in UniEval's
            order).
        overall (optional): also return overall, the mean of the computed dimensions (not for fact).
        questions (optional): custom dimensions: {name: question} with {prediction}, {source}, {reference},
            {context}, e.g. 'question: Is this a clear summary? </s> summary: {prediction}'.
        multi_reference (optional): with several references per example: 'first' (default, as the paper),
            'mean' or 'max' over them.
        show_progress (optional): show a progress bar counting examples.
        return_details (optional): also return per-example explanations.
    Load-time options (`evaluate.load(..., key=value)` or `nlgmetrics.load(...)`): `model`, `model_revision`,
        `device`, `dtype`, `batch_size`, `max_batch_tokens`, `allow_tf32`, `quantize`.
    Configs: summarization, dialogue, data2text, fact; default summarization.
    Returns:
        scores (`list[float]`): one score per example (NaN for an example with an empty text).
        mean_score (`float`): the mean over the examples with a finite score (NaN when there are none).
        higher_is_better (`bool`): True: higher is better.
        signature (`str`): module, config, weights at their revision, dtype (and TF32) and package versions.
        details (`list[dict]`, with return_details=True): per-example explanations.
        Zero examples give an empty result (`scores == []`, NaN `mean_score`), not an error.
    Range: every dimension and the summarization/data2text overall in (0, 1); dialogue engagingness is a sum
        over sentences in (0, number of sentences), so the dialogue overall can exceed 1.
    Examples:
        >>> import nlgmetrics
        >>> metric = nlgmetrics.load('unieval')  # doctest: +SKIP
        >>> results = metric.compute(
        ...     predictions=['Peter and Elizabeth attend party city. Elizabeth rushed hospital.'],
        ...     sources=[
        ...         'Peter and Elizabeth took a taxi to attend the night party in the city. While in the '
        ...         'party, Elizabeth collapsed and was rushed to the hospital.',
        ...     ],
        ...     references=['Elizabeth was hospitalized after attending a party with Peter.'],
        ... )  # doctest: +SKIP
        >>> [round(score, 2) for score in results["scores"]]  # doctest: +SKIP
        [...]
    """  # noqa: E501

    spec = SPECS["unieval"]


__all__ = ["Unieval"]
