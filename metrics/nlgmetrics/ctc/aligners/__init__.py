"""CTC's three aligner kinds and the table that names them (the base never imports its subclasses).

- ``E``: embedding matching (:class:`.embedding.EmbeddingAligner`)
- ``D``: a token classifier (:class:`.discriminative.DiscriminativeAligner`)
- ``R``: a regressor (:class:`.regression.RegressionAligner`)
"""

from __future__ import annotations

from ...core.runtime import Runtime
from .base import Aligner, AlignerSource, Alignment
from .discriminative import DiscriminativeAligner
from .embedding import EmbeddingAligner
from .regression import RegressionAligner

ALIGNERS: dict[str, type[Aligner]] = {
    "E": EmbeddingAligner,
    "D": DiscriminativeAligner,
    "R": RegressionAligner,
}
"""Aligner kind → class, as COMET's ``str2model``."""


def load_aligner(source: AlignerSource, run: Runtime) -> Aligner:
    """Build the aligner for ``source`` on ``run`` (its weights come from the process-wide cache)."""
    if source.kind not in ALIGNERS:
        raise ValueError(f"unknown aligner kind {source.kind!r}; choose one of {', '.join(ALIGNERS)}")
    return ALIGNERS[source.kind].load(source, run)


__all__ = [
    "ALIGNERS",
    "Aligner",
    "AlignerSource",
    "Alignment",
    "DiscriminativeAligner",
    "EmbeddingAligner",
    "RegressionAligner",
    "load_aligner",
]
