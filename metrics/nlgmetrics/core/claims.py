"""The claim-checking pipeline every checker family runs on (AlignScore, MiniCheck, ...): a family declares
its steps (:class:`ClaimSteps`), :func:`check_claims` does the rest.

For each (claim, document) example: a blank claim or document scores NaN with no model work; the document
becomes chunks (``steps.chunks``, one call for all documents), the claim parts (``steps.parts``: the whole
claim, or its sentences); every distinct (chunk, part) pair of the call is encoded once (``steps.encode``)
and run once through the wrapper's one batching loop (:meth:`~.model.ModelWrapper.per_row`) into
``steps.head``; the values are scattered back to each example's chunk × part matrix, the max over chunks
gives each part's score and ``steps.over_parts`` (mean, min, or the one part) the claim's.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import torch

from .batching import distinct_rows, scatter
from .validation import is_blank

if TYPE_CHECKING:
    from .model import ModelWrapper
    from .progress import Progress

OVER_PARTS = ("mean", "min", "none")
"""How part scores make the claim's score: their mean, their min, or the one part's ("none")."""


def whole_claim(claim: str) -> list[str]:
    """The ``parts`` step of a checker that reads the claim whole."""
    return [claim]


@dataclass(frozen=True)
class ClaimSteps:
    """A checker's steps, as data or one small function each."""

    chunks: Callable[[Sequence[str]], list[list[str]]]
    """Documents → each document's chunks (one call for all the non-blank documents of a call)."""
    parts: Callable[[str], list[str]]
    """Claim → its parts: :func:`whole_claim`, or its sentences."""
    encode: Callable[[list[str], list[str]], list[dict[str, list[int]]]]
    """The distinct (chunk, part) pairs, as two lists → one row of token fields per pair (any keys)."""
    head: Callable[[dict[str, torch.Tensor]], torch.Tensor]
    """A padded batch → one value per row (``[rows]``, or ``[rows, k]`` for a vector head), float32."""
    over_parts: str = "mean"
    """``"mean"``, ``"min"`` or ``"none"`` (the claim is one part); the max over chunks is fixed."""
    name: str = ""
    """The name errors and the batching loop give (default: the wrapper's)."""

    def __post_init__(self) -> None:
        if self.over_parts not in OVER_PARTS:
            raise ValueError(f"over_parts={self.over_parts!r}: use one of {', '.join(OVER_PARTS)}")


@dataclass
class CheckedClaim:
    """One example's outcome."""

    chunks: list[str]
    parts: list[str]
    matrix: torch.Tensor | None = None
    """Chunks × parts (× k for a vector head): every pair's value; None when the example has no pair."""
    part_scores: torch.Tensor | None = None
    """The max over chunks, per part."""
    value: torch.Tensor | None = None
    """The aggregate over parts: a 0-d tensor, or ``[k]`` for a vector head."""
    score: float = math.nan
    """``value`` as a float (a scalar head); NaN when blank, with no pair, or a vector head."""
    blank: str | None = None
    """None, or the blank field: ``"predictions"`` (the claim) or ``"sources"`` (the document)."""
    rows: list[int] = field(default_factory=list)
    """Its pairs' indices (chunk-major) among the distinct encoded rows."""


def _aggregate(example: CheckedClaim, values: torch.Tensor, over_parts: str) -> None:
    """Fill ``example``'s matrix, part scores and score from the distinct rows' ``values``."""
    matrix = scatter(values, example.rows)
    example.matrix = matrix.view(len(example.chunks), len(example.parts), *values.shape[1:])
    example.part_scores = example.matrix.max(dim=0).values
    if over_parts == "min":
        example.value = example.part_scores.min(dim=0).values
    elif over_parts == "none":
        if len(example.parts) != 1:
            raise ValueError(f"over_parts='none' takes one part per claim, not {len(example.parts)}")
        example.value = example.part_scores[0]
    else:
        example.value = example.part_scores.mean(dim=0)
    example.score = example.value.item() if example.value.dim() == 0 else math.nan


def _plan(steps: ClaimSteps, claims: Sequence[str], documents: Sequence[str]) -> list[CheckedClaim]:
    """Each example's chunks and parts (blank ones marked), chunking every non-blank document in one call."""
    examples = []
    for claim, document in zip(claims, documents):
        blank = "predictions" if is_blank(claim) else "sources" if is_blank(document) else None
        examples.append(CheckedClaim([], [] if blank else steps.parts(claim), blank=blank))
    scored = [i for i, example in enumerate(examples) if example.blank is None]
    if scored:
        for i, chunks in zip(scored, steps.chunks([documents[i] for i in scored])):
            examples[i].chunks = list(chunks)
    return examples


def check_claims(
    wrapper: ModelWrapper,
    steps: ClaimSteps,
    claims: Sequence[str],
    documents: Sequence[str],
    *,
    progress: Progress | None = None,
) -> tuple[list[CheckedClaim], list[dict[str, list[int]]]]:
    """Each example's :class:`CheckedClaim`, and the distinct encoded rows (their lengths tell which were
    cut); ``progress`` counts the examples."""
    if len(claims) != len(documents):
        raise ValueError(f"{len(claims)} claims but {len(documents)} documents: give one document per claim")
    examples = _plan(steps, claims, documents)
    pairs = [(chunk, part) for example in examples for chunk in example.chunks for part in example.parts]
    distinct, slots = distinct_rows(pairs)
    start = 0
    for example in examples:
        end = start + len(example.chunks) * len(example.parts)
        example.rows, start = slots[start:end], end
    rows = steps.encode([c for c, _ in distinct], [p for _, p in distinct]) if distinct else []
    done = progress.per(len(examples) / max(len(rows), 1)) if progress is not None else (lambda n: None)
    values = wrapper.per_row(rows, steps.head, done, name=steps.name or wrapper.name)
    stacked = (
        torch.stack(values)
        if values and isinstance(values[0], torch.Tensor)
        else torch.tensor(values, dtype=torch.float32)
    )
    for example in examples:
        if example.rows:
            _aggregate(example, stacked, steps.over_parts)
    return examples, rows
