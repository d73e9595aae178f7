"""The five CTC modules' evaluate classes: each is :class:`~nlgmetrics.modules.metric.NLGMetric` with its
declaration from :mod:`.module` (importing this file imports evaluate; the declarations do not). Each class's
docstring is written from its declaration by ``python -m nlgmetrics.cards``, and read as it is written.

evaluate derives a module's name from its class name (``CTCConsistency`` → ``ctc_consistency``), so each class
is its module's name in CamelCase, "ctc" as "CTC"."""

from __future__ import annotations

from ..modules.metric import NLGMetric
from .module import SPECS


class CTCConsistency(NLGMetric):
    """CTC consistency (Deng et al. 2021): how much of the summary is supported by the source, mean(align(predictions → sources)). Higher is better.

    Scores every example with CTC consistency.
    Args:
        predictions (`list[str]`): the generated texts being judged (y).
        sources (`list[str]`): the inputs (x): article, source sentence or dialog history.
        aggregation (optional): "mean" or "sum" of the token alignment scores (default "mean").
        remove_stopwords (optional): drop English stopwords before aggregating (default False).
        long_inputs (optional): "truncate" (default, as the reference) or "window": read a context longer than
            the model window in overlapping windows, each token keeping its best window.
        show_progress (optional): show a progress bar counting examples.
        return_details (optional): also return per-example explanations.
    Load-time options (`evaluate.load(..., key=value)` or `nlgmetrics.load(...)`): `aligner`,
        `aligner_revision`, `device`, `dtype`, `batch_size`, `max_batch_tokens`, `allow_tf32`, `quantize`.
    Configs: E-bert, E-roberta, E-roberta-mnli, E-minilm, D-cnndm, D-xsum, D-mix-albert, R-cnndm, R-xsum;
        default E-bert.
    Returns:
        scores (`list[float]`): one score per example (NaN for an example with an empty text).
        mean_score (`float`): the mean over the examples with a finite score (NaN when there are none).
        higher_is_better (`bool`): True: higher is better.
        signature (`str`): module, config, weights at their revision, dtype (and TF32) and package versions.
        details (`list[dict]`, with return_details=True): per-example explanations.
        Zero examples give an empty result (`scores == []`, NaN `mean_score`), not an error.
    Range: [-1, 1] for E aligners (cosine similarities, mostly 0.3-1); [0, 1] for D (probabilities); unbounded
        for R (a regressor's output).
    Examples:
        >>> import nlgmetrics
        >>> metric = nlgmetrics.load('ctc_consistency', 'E-minilm')
        >>> results = metric.compute(
        ...     predictions=['The cat sat on the mat.'],
        ...     sources=['A cat was sitting on the mat.'],
        ... )
        >>> [round(score, 2) for score in results["scores"]]
        [0.92]
    """  # noqa: E501

    spec = SPECS["ctc_consistency"]


class CTCRelevance(NLGMetric):
    """CTC relevance (Deng et al. 2021): mean(align(predictions → sources)) × mean over references of mean(align(reference → predictions)). Higher is better.

    Scores every example with CTC relevance.
    Args:
        predictions (`list[str]`): the generated texts being judged (y).
        sources (`list[str]`): the inputs (x): article, source sentence or dialog history.
        references (`list[str]`): one or several human references (r) per example: a string or a list of
            strings.
        aggregation (optional): "mean" or "sum" of the token alignment scores (default "mean").
        remove_stopwords (optional): drop English stopwords before aggregating (default False).
        long_inputs (optional): "truncate" (default, as the reference) or "window": read a context longer than
            the model window in overlapping windows, each token keeping its best window.
        show_progress (optional): show a progress bar counting examples.
        return_details (optional): also return per-example explanations.
    Load-time options (`evaluate.load(..., key=value)` or `nlgmetrics.load(...)`): `aligner`,
        `aligner_revision`, `device`, `dtype`, `batch_size`, `max_batch_tokens`, `allow_tf32`, `quantize`.
    Configs: E-bert, E-roberta, E-roberta-mnli, E-minilm, D-cnndm, R-cnndm; default E-roberta.
    Returns:
        scores (`list[float]`): one score per example (NaN for an example with an empty text).
        mean_score (`float`): the mean over the examples with a finite score (NaN when there are none).
        higher_is_better (`bool`): True: higher is better.
        signature (`str`): module, config, weights at their revision, dtype (and TF32) and package versions.
        details (`list[dict]`, with return_details=True): per-example explanations.
        Zero examples give an empty result (`scores == []`, NaN `mean_score`), not an error.
    Range: [-1, 1] for E aligners (cosine similarities, mostly 0.3-1); [0, 1] for D (probabilities); unbounded
        for R (a regressor's output).
    Examples:
        >>> import nlgmetrics
        >>> metric = nlgmetrics.load('ctc_relevance', 'E-minilm')
        >>> results = metric.compute(
        ...     predictions=['The cat sat on the mat.'],
        ...     sources=['A cat was sitting on the mat.'],
        ...     references=[['A cat sat on a mat.']],
        ... )
        >>> [round(score, 2) for score in results["scores"]]
        [0.88]
    """  # noqa: E501

    spec = SPECS["ctc_relevance"]


class CTCPreservation(NLGMetric):
    """CTC preservation (Deng et al. 2021): the harmonic mean 2ab/(a+b) of a = mean(align(sources → predictions)) and b = mean(align(predictions → sources)). Higher is better.

    Scores every example with CTC preservation.
    Args:
        predictions (`list[str]`): the generated texts being judged (y).
        sources (`list[str]`): the inputs (x): article, source sentence or dialog history.
        aggregation (optional): "mean" or "sum" of the token alignment scores (default "mean").
        remove_stopwords (optional): drop English stopwords before aggregating (default False).
        long_inputs (optional): "truncate" (default, as the reference) or "window": read a context longer than
            the model window in overlapping windows, each token keeping its best window.
        show_progress (optional): show a progress bar counting examples.
        return_details (optional): also return per-example explanations.
    Load-time options (`evaluate.load(..., key=value)` or `nlgmetrics.load(...)`): `aligner`,
        `aligner_revision`, `device`, `dtype`, `batch_size`, `max_batch_tokens`, `allow_tf32`, `quantize`.
    Configs: E-bert, E-roberta, E-roberta-mnli, E-minilm, D-yelp, R-yelp; default E-roberta-mnli.
    Returns:
        scores (`list[float]`): one score per example (NaN for an example with an empty text).
        mean_score (`float`): the mean over the examples with a finite score (NaN when there are none).
        higher_is_better (`bool`): True: higher is better.
        signature (`str`): module, config, weights at their revision, dtype (and TF32) and package versions.
        details (`list[dict]`, with return_details=True): per-example explanations.
        Zero examples give an empty result (`scores == []`, NaN `mean_score`), not an error.
    Range: [-1, 1] for E aligners (cosine similarities, mostly 0.3-1); [0, 1] for D (probabilities); unbounded
        for R (a regressor's output).
    Examples:
        >>> import nlgmetrics
        >>> metric = nlgmetrics.load('ctc_preservation', 'E-minilm')
        >>> results = metric.compute(
        ...     predictions=['The cat sat on the mat.'],
        ...     sources=['A cat was sitting on the mat.'],
        ... )
        >>> [round(score, 2) for score in results["scores"]]
        [0.91]
    """  # noqa: E501

    spec = SPECS["ctc_preservation"]


class CTCEngagingness(NLGMetric):
    """CTC engagingness (Deng et al. 2021): sum(align(predictions → contexts + sources)), the volume of the response's information that engages the fact and the dialog history. Higher is better.

    Scores every example with CTC engagingness.
    Args:
        predictions (`list[str]`): the generated texts being judged (y).
        sources (`list[str]`): the inputs (x): article, source sentence or dialog history.
        contexts (`list[str]`): the knowledge (c): fact or persona for each dialog turn.
        aggregation (optional): "mean" or "sum" of the token alignment scores (default "sum").
        remove_stopwords (optional): drop English stopwords before aggregating (default True).
        long_inputs (optional): "truncate" (default, as the reference) or "window": read a context longer than
            the model window in overlapping windows, each token keeping its best window.
        show_progress (optional): show a progress bar counting examples.
        return_details (optional): also return per-example explanations.
    Load-time options (`evaluate.load(..., key=value)` or `nlgmetrics.load(...)`): `aligner`,
        `aligner_revision`, `device`, `dtype`, `batch_size`, `max_batch_tokens`, `allow_tf32`, `quantize`.
    Configs: E-bert, E-roberta, E-roberta-mnli, E-minilm, D-topical_chat, D-persona_chat, R-topical_chat,
        R-persona_chat; default E-minilm.
    Returns:
        scores (`list[float]`): one score per example (NaN for an example with an empty text).
        mean_score (`float`): the mean over the examples with a finite score (NaN when there are none).
        higher_is_better (`bool`): True: higher is better.
        signature (`str`): module, config, weights at their revision, dtype (and TF32) and package versions.
        details (`list[dict]`, with return_details=True): per-example explanations.
        Zero examples give an empty result (`scores == []`, NaN `mean_score`), not an error.
    Range: unbounded: a sum over the response's non-stopword tokens, growing with its length (by design:
        volume of information); 0 or more for D, mostly positive for E, any real number for R.
    Examples:
        >>> import nlgmetrics
        >>> metric = nlgmetrics.load('ctc_engagingness', 'E-minilm')
        >>> results = metric.compute(
        ...     predictions=['The cat sat on the mat.'],
        ...     sources=['A cat was sitting on the mat.'],
        ...     contexts=['Cats like to sit on mats.'],
        ... )
        >>> [round(score, 2) for score in results["scores"]]
        [3.3]
    """  # noqa: E501

    spec = SPECS["ctc_engagingness"]


class CTCGroundedness(NLGMetric):
    """CTC groundedness (Deng et al. 2021): sum(align(predictions → contexts)), how much of the response uses the knowledge context. Higher is better.

    Scores every example with CTC groundedness.
    Args:
        predictions (`list[str]`): the generated texts being judged (y).
        contexts (`list[str]`): the knowledge (c): fact or persona for each dialog turn.
        aggregation (optional): "mean" or "sum" of the token alignment scores (default "sum").
        remove_stopwords (optional): drop English stopwords before aggregating (default True).
        long_inputs (optional): "truncate" (default, as the reference) or "window": read a context longer than
            the model window in overlapping windows, each token keeping its best window.
        show_progress (optional): show a progress bar counting examples.
        return_details (optional): also return per-example explanations.
    Load-time options (`evaluate.load(..., key=value)` or `nlgmetrics.load(...)`): `aligner`,
        `aligner_revision`, `device`, `dtype`, `batch_size`, `max_batch_tokens`, `allow_tf32`, `quantize`.
    Configs: E-bert, E-roberta, E-roberta-mnli, E-minilm, D-topical_chat, D-persona_chat, R-topical_chat,
        R-persona_chat; default E-minilm.
    Returns:
        scores (`list[float]`): one score per example (NaN for an example with an empty text).
        mean_score (`float`): the mean over the examples with a finite score (NaN when there are none).
        higher_is_better (`bool`): True: higher is better.
        signature (`str`): module, config, weights at their revision, dtype (and TF32) and package versions.
        details (`list[dict]`, with return_details=True): per-example explanations.
        Zero examples give an empty result (`scores == []`, NaN `mean_score`), not an error.
    Range: unbounded: a sum over the response's non-stopword tokens, growing with its length (by design:
        volume of information); 0 or more for D, mostly positive for E, any real number for R.
    Examples:
        >>> import nlgmetrics
        >>> metric = nlgmetrics.load('ctc_groundedness', 'E-minilm')
        >>> results = metric.compute(
        ...     predictions=['The cat sat on the mat.'],
        ...     contexts=['Cats like to sit on mats.'],
        ... )
        >>> [round(score, 2) for score in results["scores"]]
        [2.9]
    """  # noqa: E501

    spec = SPECS["ctc_groundedness"]


__all__ = ["CTCConsistency", "CTCEngagingness", "CTCGroundedness", "CTCPreservation", "CTCRelevance"]
