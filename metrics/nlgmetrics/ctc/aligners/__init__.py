"""CTC's three aligner kinds and the table that names them (the base never imports its subclasses).

- ``E``: embedding matching (:class:`.embedding.EmbeddingAligner`)
- ``D``: a token classifier (:class:`.discriminative.DiscriminativeAligner`)
- ``R``: a regressor (:class:`.regression.RegressionAligner`)
"""

from __future__ import annotations

from .base import Aligner, AlignerSource, Alignment
from .discriminative import DiscriminativeAligner
from .embedding import EmbeddingAligner
from .regression import RegressionAligner

ALIGNERS: dict[str, type[Aligner]] = {
    "E": EmbeddingAligner,
    "D": DiscriminativeAligner,
    "R": RegressionAligner,
}
"""Aligner kind → class, as COMET's ``str2model`` (the kinds are checked where an aligner is named:
:func:`~.base.parse_custom_aligner` and the variants table): ``ALIGNERS[source.kind].load(source, run)``."""


__all__ = [
    "ALIGNERS",
    "Aligner",
    "AlignerSource",
    "Alignment",
    "DiscriminativeAligner",
    "EmbeddingAligner",
    "RegressionAligner",
]
