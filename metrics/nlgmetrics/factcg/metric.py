"""The factcg module's evaluate class: :class:`~nlgmetrics.modules.metric.NLGMetric` with its declaration
from :mod:`.module` (importing this file imports evaluate; the declarations do not)."""

from __future__ import annotations

from ..modules.metric import NLGMetric
from .module import SPECS


class Factcg(NLGMetric):
    """FactCG (Lei et al., NAACL 2025): is a claim supported by its grounding document? The document is split into NLTK sentences joined into chunks of up to 550 NLTK word tokens, each chunk is written with the whole claim into the authors' yes/no prompt, a DeBERTa-v3-large classifier gives each prompt a probability that the chunk supports the claim, and the score is the largest over the chunks; the label is 1 (supported) above 0.5. Config: deberta-v3-large (default).

    Scores every example with FactCG.
    Args:
        predictions (`list[str]`): the generated texts being judged (y).
        sources (`list[str]`): the inputs (x): article, source sentence or dialog history.
        chunk_size (optional): NLTK word tokens per document chunk (default 550, the reference's): whole
            sentences are joined with newlines up to this many.
        max_model_len (optional): tokens of a (chunk, claim) prompt the model reads, the rest cut at the end
            (default 2048, the reference's).
        show_progress (optional): show a progress bar counting examples.
        return_details (optional): also return per-example explanations.
    Load-time options (`evaluate.load(..., key=value)` or `nlgmetrics.load(...)`): `model`, `model_revision`,
        `device`, `dtype`, `batch_size`, `max_batch_tokens`, `allow_tf32`, `quantize`.
    Configs: deberta-v3-large; default deberta-v3-large.
    Returns:
        scores (`list[float]`): one score per example (NaN for an example with an empty text).
        mean_score (`float`): the mean over the examples with a finite score (NaN when there are none).
        higher_is_better (`bool`): True: higher is better.
        signature (`str`): module, config, weights at their revision, dtype (and TF32) and package versions.
        details (`list[dict]`, with return_details=True): per-example explanations.
        Zero examples give an empty result (`scores == []`, NaN `mean_score`), not an error.
    Range: (0, 1): the probability that the document supports the claim (its best chunk's).
    Examples:
        >>> import nlgmetrics
        >>> metric = nlgmetrics.load('factcg')  # doctest: +SKIP
        >>> results = metric.compute(
        ...     predictions=['The students are preparing for an examination.'],
        ...     sources=[
        ...         'A group of students gather in the school library to study for their upcoming final '
        ...         'exams.',
        ...     ],
        ... )  # doctest: +SKIP
        >>> [round(score, 2) for score in results["scores"]]  # doctest: +SKIP
        [...]
    """  # noqa: E501

    spec = SPECS["factcg"]


__all__ = ["Factcg"]
