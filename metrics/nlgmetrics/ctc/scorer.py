"""CTC metrics (Deng et al. 2021): five aspects defined through information alignment.

- consistency: ``mean(align(y → x))``; inputs predictions, sources.
- relevance: ``mean(align(y → x)) × mean over r of mean(align(r → y))``; + references.
- preservation: ``2ab/(a+b)`` with ``a = mean(align(x → y))``, ``b = mean(align(y → x))``.
- engagingness: ``sum(align(y → c + "\\n\\n\\n" + x))``, stopwords removed; predictions, sources, contexts.
- groundedness: ``sum(align(y → c))``, stopwords removed; predictions, contexts.

(y = prediction, x = source, c = context, r = reference; the table is in :mod:`.aspects`.) The
core has no dependency on ``evaluate``; the evaluate modules in ``metrics/ctc_*`` are thin
adapters over :class:`CTCScorer`.

An example with a blank text in any of its inputs (empty, or only whitespace, zero-width, BOM or
control characters) scores NaN without model work, with one warning naming the fields. Long texts
are cut to what the aligner reads, as the reference does; ``long_inputs="window"`` reads only the
context side ``b`` of each alignment ``align(a → b)`` in overlapping windows, so the aligned text
``a`` is still cut (in preservation ``align(x → y)`` aligns the source: a long source is cut there).

>>> from nlgmetrics.ctc.module import aspect_spec
>>> scorer = CTCScorer(aspect_spec("consistency"), "E-minilm", device="cpu")
>>> result = scorer.score(["The cat sat on the mat."], sources=["A cat was sitting on the mat."])
>>> round(result["mean_score"], 2)
0.92
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..core.hub import naming_option
from ..core.progress import Progress
from ..core.result import mean_of
from ..core.runtime import Runtime, WhereToRun
from ..core.scorer import Scorer
from ..core.spec import ModuleSpec
from ..core.validation import examples_at, is_blank, listed
from ..core.warnings import warn
from .aligners import ALIGNERS
from .aligners.base import (
    NAN_ALIGNMENT,
    Aligner,
    AlignerSource,
    Alignment,
    parse_custom_aligner,
    source_of,
)
from .aspects import CONTEXT_AND_SOURCE, ENGAGINGNESS_JOIN, Align, Aspect, aspect_named
from .variants import CTC_VARIANTS

if TYPE_CHECKING:
    from typing_extensions import Unpack


@dataclass(frozen=True)
class AlignerChoice:
    """The aligner a metric runs: a registered variant name or a custom source."""

    name: str
    kind: str
    custom: AlignerSource | None = None

    def source_for(self, direction: str) -> AlignerSource | None:
        """The weights for one alignment direction (None if the variant has no checkpoint for it)."""
        if self.custom is not None:
            return self.custom
        spec = CTC_VARIANTS[self.name].weight_for(direction)
        return None if spec is None else source_of(spec, self.kind)


def resolve_aligner(spec: ModuleSpec, aligner: str | None, revision: str | None = None) -> AlignerChoice:
    """A registered variant name (a config of the aspect's module ``spec``), a custom
    ``"<kind>:<repo-or-dir>"``, or None for the aspect's default."""
    if aligner is not None and not isinstance(aligner, str):
        raise ValueError(f"aligner={aligner!r} must be a string: a config name or '<kind>:<repo-or-dir>'")
    if aligner is not None and ":" in aligner:
        custom = parse_custom_aligner(aligner, revision)
        return AlignerChoice(aligner, custom.kind, custom)
    name = spec.resolve_config(aligner, "aligner")
    if revision is not None:
        raise ValueError(
            f"aligner {name!r} is registered at pinned revisions; aligner_revision={revision!r} is for "
            "custom aligners ('E:<repo>', 'D:<repo>', 'R:<repo>')"
        )
    return AlignerChoice(name, CTC_VARIANTS[name].kind)


@dataclass
class _Job:
    """One alignment to run: align(a → b) for example ``index``, reported under ``label``."""

    direction: str
    label: str
    index: int
    a: str
    b: str


def alignment_pairs(align: Align, data: Mapping[str, list], i: int) -> list[tuple[str, str, str]]:
    """(label, a, b) of example ``i`` for the alignment ``align``: the label names the result's entry
    (``details`` key).

    >>> to_sources = Align("doc_to_summ", "predictions", "sources")
    >>> alignment_pairs(to_sources, {"predictions": ["y"], "sources": ["x"]}, 0)
    [('predictions→sources', 'y', 'x')]
    >>> to_references = Align("summ_to_ref", "references", "predictions")
    >>> alignment_pairs(to_references, {"predictions": ["y"], "references": [["r", "s"]]}, 0)
    [('references[0]→predictions', 'r', 'y'), ('references[1]→predictions', 's', 'y')]
    """

    def text(field: str) -> str:
        if field == CONTEXT_AND_SOURCE:
            return ENGAGINGNESS_JOIN.join([data["contexts"][i].strip(), data["sources"][i].strip()])
        return data[field][i]

    if align.a == "references":
        return [(f"references[{k}]→{align.b}", r, text(align.b)) for k, r in enumerate(data["references"][i])]
    return [(f"{align.a}→{align.b}", text(align.a), text(align.b))]


def _jobs(aspect: Aspect, data: dict[str, list]) -> list[_Job]:
    """Every alignment of every example, in example order, as the aspect declares them."""
    return [
        _Job(align.direction, label, i, a, b)
        for i in range(len(data["predictions"]))
        for align in aspect.alignments
        for label, a, b in alignment_pairs(align, data, i)
    ]


def _blank_fields(data: dict[str, list], i: int) -> list[str]:
    blank = []
    for name, values in data.items():
        value = values[i]
        if isinstance(value, str):
            if is_blank(value):
                blank.append(f"{name}[{i}]")
        else:
            blank += [f"{name}[{i}][{k}]" for k, text in enumerate(value) if is_blank(text)]
    return blank


class CTCScorer(Scorer):
    """Scores one CTC aspect with one aligner; weights load once per process.

    Args:
        spec: the aspect's module declaration (``ctc_consistency``, ...: :func:`~.module.aspect_spec`).
        aligner: a registered variant (``E-bert``, ``E-roberta``, ``E-roberta-mnli``, ``E-minilm``), a
            custom ``"E:<repo-or-dir>[@layer]"``, or None for the aspect's default.
        aligner_revision: Hub revision for a custom aligner repo (registered ones are pinned).
        runtime, device, dtype, batch_size, max_batch_tokens, allow_tf32, quantize: where and how to run, as
            :class:`~nlgmetrics.core.scorer.Scorer` says (a batch row is a text).

    ``long_inputs="window"`` windows only the context side ``b`` of each alignment ``align(a → b)``;
    a long aligned text ``a`` (e.g. the source in preservation's ``align(x → y)``) is still cut.
    """

    def __init__(
        self,
        spec: ModuleSpec,
        aligner: str | None = None,
        *,
        aligner_revision: str | None = None,
        runtime: Runtime | None = None,
        **where: Unpack[WhereToRun],
    ):
        super().__init__(spec, runtime, config_key=aligner, **where)
        self.choice = resolve_aligner(spec, aligner, aligner_revision)
        self.aspect = aspect_named(spec.name.removeprefix("ctc_"))
        self.config = None if self.choice.custom else self.choice.name
        self.sources: dict[str, AlignerSource] = {}
        self.wrappers: dict[AlignerSource, Aligner] = {}
        option = f"aligner={self.choice.name!r}" if self.choice.custom is not None else None
        for direction in self.aspect.directions:
            source = self.choice.source_for(direction)
            self.sources[direction] = source
            if source not in self.wrappers:
                with naming_option(option):
                    self.wrappers[source] = ALIGNERS[source.kind].load(source, self.runtime)

    def __repr__(self) -> str:
        return f"CTCScorer(aspect={self.aspect.name!r}, aligner={self.choice.name!r})"

    def weights(self) -> list[str]:
        """Each aligner's weights as ``kind:repo@revision`` (E: with the layer), for result signatures."""
        out = []
        for source, aligner in self.wrappers.items():
            layer = getattr(aligner, "layer", None)
            out.append(replace(source, layer=layer).describe())
        return out

    def _score(self, data: dict[str, list], options: dict) -> dict:
        """Score every example; returns ``{"scores": [...], "mean_score": float}`` (+ ``"details"``).

        An example with a blank text in any field (empty, or only whitespace, zero-width or control
        characters) scores NaN without running the aligner (one warning names the fields) and is left
        out of ``mean_score``. ``details`` holds, per example, every alignment with its tokens.
        ``long_inputs="window"`` reads a context ``b`` longer than the model window in overlapping
        windows (each token keeps its best window) instead of truncating it as the reference does;
        it costs one extra forward pass per extra window. The aligned text ``a`` is still cut.
        ``show_progress`` draws a bar over examples that advances after every forward batch.
        """
        data = {name: data[name] for name in self.aspect.inputs}
        aggregation, remove_stopwords = options["aggregation"], options["remove_stopwords"]
        long_inputs = options["long_inputs"]
        n = len(data["predictions"])
        blank = [_blank_fields(data, i) for i in range(n)]
        jobs = _jobs(self.aspect, data)
        run = [k for k, job in enumerate(jobs) if not blank[job.index]]  # a blank example runs nothing
        alignments: list[Alignment] = [NAN_ALIGNMENT] * len(jobs)
        desc = f"ctc_{self.aspect.name} " + ", ".join(f"{a.kind} {a.name}" for a in self.wrappers.values())
        with Progress(total=n, enabled=options["show_progress"], desc=desc) as progress:
            scored = n - sum(map(bool, blank))
            progress.advance(n - scored)  # blank examples: nothing to run
            # the aligners report pairs; an example counts when all its pairs are done
            found = self._align(
                [jobs[k] for k in run],
                aggregation,
                bool(remove_stopwords),
                long_inputs,
                progress.per(scored / len(run) if run else 0.0),
            )
        for k, alignment in zip(run, found):
            alignments[k] = alignment
        per_example: list[dict[str, Alignment]] = [{} for _ in range(n)]
        for job, alignment in zip(jobs, alignments):
            per_example[job.index][job.label] = alignment
        scores = [
            math.nan if blank[i] else self.aspect.combine({k: a.score for k, a in ex.items()})
            for i, ex in enumerate(per_example)
        ]

        self._warn_about(blank, jobs, alignments, scores, long_inputs)
        result: dict = {"scores": scores, "mean_score": mean_of(scores)}
        if options["return_details"]:
            result["details"] = [{k: a.as_dict() for k, a in ex.items()} for ex in per_example]
        return result

    def _align(
        self,
        jobs: list[_Job],
        aggregation: str,
        remove_stopwords: bool,
        long_inputs: str,
        progress,
    ) -> list[Alignment]:
        """Run each aligner once over all of its pairs (E aligners then embed each text once): the pairs of
        the examples without a blank text (found once, by :meth:`_score`: the aligners' mask is all False);
        ``progress`` is told the pairs done after every forward batch."""
        groups: dict[AlignerSource, list[int]] = defaultdict(list)
        for k, job in enumerate(jobs):
            groups[self.sources[job.direction]].append(k)
        out: list[Alignment] = [NAN_ALIGNMENT] * len(jobs)
        for source, members in groups.items():
            results = self.wrappers[source].align(
                [(jobs[k].a, jobs[k].b) for k in members],
                aggregation=aggregation,
                remove_stopwords=remove_stopwords,
                long_inputs=long_inputs,
                progress=progress,
                blank=[False] * len(members),
            )
            for k, alignment in zip(members, results):
                out[k] = alignment
        return out

    def _warn_about(self, blank, jobs, alignments, scores, long_inputs: str) -> None:
        name = f"ctc_{self.aspect.name}"
        undefined = [i for i, s in enumerate(scores) if math.isnan(s)]
        if undefined:
            blank_fields = [label for i in undefined for label in blank[i]]
            no_tokens = [i for i in undefined if not blank[i]]
            reasons = []
            if blank_fields:
                reasons.append(
                    "an empty or blank text (only whitespace, zero-width or control characters): "
                    + listed(blank_fields)
                )
            if no_tokens:
                reasons.append(f"no token the aligner can score: {examples_at(no_tokens)}")
            warn(
                f"{name}: {len(undefined)} of {len(scores)} examples have {'; '.join(reasons)}; their score "
                f"is NaN and mean_score averages the other {len(scores) - len(undefined)}."
            )
        cut = [job for job, a in zip(jobs, alignments) if a.truncated]
        if cut:
            self._warn_long(name, cut, long_inputs)

    def _warn_long(self, name: str, cut: list[_Job], long_inputs: str) -> None:
        """One warning for the examples with a text longer than the aligners read, naming each model
        loaded."""
        examples = examples_at([job.index for job in cut])
        count = len({job.index for job in cut})
        sources = dict.fromkeys(self.sources[job.direction] for job in cut)
        limit = "; ".join(f"{s.kind} {s.model}: {self.wrappers[s].reads()}" for s in sources)
        if long_inputs == "window":
            where = ", ".join(dict.fromkeys(re.sub(r"\[\d+\]", "", job.label) for job in cut))
            warn(
                f"{name}: {count} examples have an aligned text longer than the aligner reads ({limit}); "
                f"it was cut as the reference implementation does ({examples}; in {where}). "
                "long_inputs='window' reads only the context side b of each alignment a→b in overlapping "
                f"windows; the aligned text a is always cut{_WINDOW_LIMITS.get(self.choice.kind, '')}."
            )
        else:
            warn(
                f"{name}: {count} examples have a text longer than the aligner reads ({limit}); it was cut "
                f"as the reference implementation does ({examples}). long_inputs='window' reads "
                "the context side b of each alignment a→b in overlapping windows instead (the aligned "
                "text a is still cut)."
            )


_WINDOW_LIMITS = {
    "R": " (R windows b only when a leaves half of the 512 tokens to it; otherwise the pair is cut "
    "longest-first)"
}
