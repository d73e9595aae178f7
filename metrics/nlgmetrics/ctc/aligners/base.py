"""The information-alignment core shared by the CTC metrics.

``align(a → b)`` gives every token of ``a`` a score for how well ``b`` supports it
(Deng et al. 2021, §3.1); a metric aggregates those scores with ``mean`` or ``sum``.
This module holds what every aligner kind shares: the :class:`Alignment` result, the
aggregation rule, the :class:`Aligner` interface, and the parsing of aligner names
such as ``"E-bert"`` or ``"E:./my-model@9"``.

>>> aggregate(["the", "cat", "sat"], [0.5, 1.0, 0.75], "mean", remove_stopwords=False)
0.75
>>> parse_custom_aligner("E:sentence-transformers/all-mpnet-base-v2@9")
AlignerSource(kind='E', source='sentence-transformers/all-mpnet-base-v2', revision=None, layer=9)
"""

from __future__ import annotations

import math
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...core.model import ModelWrapper
from ...core.registry import WeightSpec
from ...core.resolve import ResolvedWeight, check_model_folder, check_source, looks_like_path, resolve_weight
from ...core.runtime import Runtime
from ...core.validation import is_blank
from ..stopwords import is_stopword

if TYPE_CHECKING:
    from typing_extensions import Self

ALIGNER_KINDS = ("E", "D", "R")


@dataclass(frozen=True)
class Alignment:
    """``align(a → b)`` for one pair: each token of ``a`` with its score, and their aggregate.

    ``score`` is NaN when ``a`` or ``b`` is blank or has no tokens.
    """

    tokens: list[str]
    token_scores: list[float]
    score: float
    truncated: bool = False

    def as_dict(self) -> dict:
        return {"tokens": self.tokens, "token_scores": self.token_scores, "score": self.score}


def aggregate(tokens: Sequence[str], scores: Sequence[float], how: str, remove_stopwords: bool) -> float:
    """Aggregate token scores as CTC does: ``mean`` (0.0 if nothing is left) or ``sum``.

    With ``remove_stopwords`` the tokens in NLTK's English list are left out first
    (matched after stripping spaces and lower-casing). ``how`` was checked by the scorer's options.
    """
    kept = [s for t, s in zip(tokens, scores) if not (remove_stopwords and is_stopword(t))]
    if how == "sum":
        return float(sum(kept))
    return sum(kept) / len(kept) if kept else 0.0


NAN_ALIGNMENT = Alignment(tokens=[], token_scores=[], score=math.nan)

ProgressCallback = Callable[[float], None]
"""Called by ``align`` as each forward batch ends, with the work it finished, counted in pairs (a share of
a pair is fine); the calls add up to the number of pairs. The metric's one bar converts them
(:meth:`~nlgmetrics.core.progress.Progress.per`)."""


def no_progress(pairs: float) -> None:
    """The default ``progress``: nobody is told."""


def blank_pairs(pairs: Sequence[tuple[str, str]]) -> list[bool]:
    """Which pairs have a blank text (:func:`~nlgmetrics.core.validation.is_blank`): ``align``'s default
    mask."""
    return [is_blank(a) or is_blank(b) for a, b in pairs]


class Aligner(ModelWrapper, ABC):
    """Scores ``align(a → b)`` for many ``(a, b)`` pairs at once, over a model and its tokenizer.

    Subclasses say how to load their weights (``load_weights``, cached per process) and how to
    align; ``load`` builds one from an :class:`AlignerSource`.
    """

    kind: str = ""
    max_length: int
    """The longest input the model reads, in tokens, special tokens included."""

    @staticmethod
    @abstractmethod
    def load_weights(source: AlignerSource) -> tuple:
        """``(model, tokenizer, *extra constructor arguments)`` as loaded: core puts the model where and how
        ``run`` says (:meth:`~nlgmetrics.core.model.ModelWrapper.from_cache`)."""

    @classmethod
    def load(cls, source: AlignerSource, run: Runtime) -> Self:
        """The aligner for ``source``; its weights load once per (weights, revision, device, dtype, layer).
        ``run`` says where and how (a resolved :class:`~nlgmetrics.core.runtime.Runtime`: nothing is
        checked again here)."""
        return cls.from_cache(
            run,
            (source.kind, f"{source.source}@{source.layer}", source.revision),
            lambda: cls.load_weights(source),
            name=source.label or source.source,
        )

    def reads(self) -> str:
        """How much text the model reads, in words (the long-input warning says it)."""
        return f"{self.max_length} tokens per text"

    @abstractmethod
    def align(
        self,
        pairs: Sequence[tuple[str, str]],
        *,
        aggregation: str,
        remove_stopwords: bool,
        long_inputs: str = "truncate",
        progress: ProgressCallback = no_progress,
        blank: Sequence[bool] | None = None,
    ) -> list[Alignment]:
        """One :class:`Alignment` per pair, in input order.

        With ``long_inputs="window"`` a context ``b`` longer than the model window is read as
        overlapping windows and each token of ``a`` keeps its best score over the windows; ``a``
        itself is still cut to what the model reads. A pair marked in ``blank`` (the caller's mask, found
        once; default :func:`blank_pairs`) gets a NaN alignment without model work. ``progress`` is told
        the pairs done after each forward batch (the masked ones at once).
        """


def window_overlap(window: int) -> int:
    """Tokens shared by consecutive windows: a quarter of the window, at most 128."""
    return min(128, window // 4)


ROLE_OF_KIND = {"E": "encoder", "D": "token_classifier", "R": "regressor"}
"""The registry role of each aligner kind's weights."""


@dataclass(frozen=True)
class AlignerSource:
    """Where an aligner's weights come from: a Hub repo (at a revision) or a local folder."""

    kind: str
    source: str
    revision: str | None = None
    layer: int | None = None
    label: str = field(default="", compare=False, repr=False)
    """A short name for progress bars and reports."""
    weights: str = field(default="", compare=False, repr=False)
    """``repo@revision`` (or the embedding package or folder) for result signatures."""
    repo: str = field(default="", compare=False, repr=False)
    """A registered weight's Hub repo (its files may come from an embedding package)."""

    @property
    def model(self) -> str:
        """The model in words, for warnings: the Hub repo, or the local folder."""
        return self.repo or self.source

    def describe(self) -> str:
        layer = "" if self.layer is None else f"@layer{self.layer}"
        weights = self.weights or ResolvedWeight(self.source, self.source, self.revision).describe()
        return f"{self.kind}:{weights}{layer}"


def source_of(spec: WeightSpec, kind: str) -> AlignerSource:
    """The local files of an embedded package when installed, else the pinned Hub repo."""
    weight = resolve_weight(spec.name, role=ROLE_OF_KIND[kind], option="aligner")
    return AlignerSource(
        kind,
        weight.path,
        weight.revision,
        spec.hidden_layer,
        label=spec.name,
        weights=weight.describe(),
        repo=spec.repo_id,
    )


def parse_custom_aligner(text: str, revision: str | None = None) -> AlignerSource:
    """Parse ``"E:<repo-or-dir>[@layer]"`` (the other kinds take no layer), strictly: an existing folder is
    that folder (``@`` and all), else a ``@`` starts E's layer, a whole number >= 0; anything else, and a
    folder that does not exist, is a ValueError saying what is wrong with the spec."""
    if not isinstance(text, str):
        raise ValueError(f"aligner={text!r} must be a string: a config name or '<kind>:<repo-or-dir>'")
    kind, sep, rest = text.partition(":")
    if not sep or kind not in ALIGNER_KINDS or not rest:
        raise ValueError(
            f"aligner={text!r} is not understood; use one of "
            f"{', '.join(f'{k}:<repo-or-dir>' for k in ALIGNER_KINDS)} (E also takes @<layer>), or a "
            "registered config name"
        )
    source, layer = _split_layer(text, kind, rest)
    check_source(source, f"aligner={text!r}")
    if os.path.isdir(os.path.expanduser(source)):
        check_model_folder(source, role=ROLE_OF_KIND[kind], option=f"aligner={text!r}")
    return AlignerSource(kind, source, revision, layer, label=text)


def _split_layer(text: str, kind: str, rest: str) -> tuple[str, int | None]:
    """``(repo-or-dir, layer)`` of the part after ``<kind>:``; see :func:`parse_custom_aligner`."""
    if "@" not in rest or os.path.isdir(os.path.expanduser(rest)):
        return rest, None
    source, _, tail = rest.rpartition("@")
    if kind != "E":
        article = "an" if kind == "R" else "a"
        raise ValueError(
            f"aligner={text!r}: {article} {kind} aligner takes no layer ('@{tail}'): only E aligners do; "
            f"give '{kind}:{source}'"
        )
    if not (tail.isascii() and tail.isdigit()):
        raise ValueError(
            f"aligner={text!r}: the layer {tail!r} after '@' must be a whole number >= 0, e.g. "
            "'E:org/model@9' (the hidden layer whose embeddings align)"
        )
    if not source:
        raise ValueError(f"aligner={text!r} names no model before '@{tail}'; use 'E:<repo-or-dir>@{tail}'")
    if "@" in source and not looks_like_path(source):
        raise ValueError(
            f"aligner={text!r}: {source!r} is not a Hub repo id (no '@' in repo ids) nor a folder; "
            "use 'E:<repo-or-dir>@<layer>' with one '@'"
        )
    return source, int(tail)
