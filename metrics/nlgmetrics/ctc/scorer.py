"""CTC metrics (Deng et al. 2021): five aspects defined through information alignment.

- consistency: ``mean(align(y → x))``; inputs predictions, sources.
- relevance: ``mean(align(y → x)) × mean over r of mean(align(r → y))``; + references.
- preservation: ``2ab/(a+b)`` with ``a = mean(align(x → y))``, ``b = mean(align(y → x))``.
- engagingness: ``sum(align(y → c + "\\n\\n\\n" + x))``, stopwords removed; predictions, sources, contexts.
- groundedness: ``sum(align(y → c))``, stopwords removed; predictions, contexts.

(y = prediction, x = source, c = context, r = reference; the table is in :mod:`.aspects`.) The
core has no dependency on ``evaluate``; the evaluate modules in ``metrics/ctc_*`` are thin
adapters over :class:`CTCScorer`.

>>> scorer = CTCScorer("consistency", "E-minilm", device="cpu")
>>> result = scorer.score(["The cat sat on the mat."], sources=["A cat was sitting on the mat."])
>>> round(result["mean_score"], 2)
0.92
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..core import runtime
from ..core.result import mean_of
from ..core.validation import check_inputs, is_blank
from .aligners import load_aligner
from .aligners.base import (
    AGGREGATIONS,
    LONG_INPUTS,
    Aligner,
    AlignerSource,
    Alignment,
    parse_custom_aligner,
    source_of,
)
from .aspects import ASPECTS, ENGAGINGNESS_JOIN, X_Y, Y_C, Y_CX, Y_X, variants_for
from .variants import CTC_VARIANTS


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


def resolve_aligner(aspect: str, aligner: str | None, revision: str | None = None) -> AlignerChoice:
    """A registered variant name, a custom ``"<kind>:<repo-or-dir>"``, or None for the aspect's default."""
    if aspect not in ASPECTS:
        raise ValueError(f"unknown CTC aspect {aspect!r}; choose one of {sorted(ASPECTS)}")
    name = aligner or ASPECTS[aspect].default_variant
    if ":" in name:
        custom = parse_custom_aligner(name, revision)
        return AlignerChoice(name, custom.kind, custom)
    valid = variants_for(aspect)
    if name not in valid:
        raise ValueError(
            f"ctc_{aspect} has no checkpoint for aligner {name!r}; valid configs are: {', '.join(valid)} "
            "(or a custom aligner such as 'E:<repo-or-dir>@<layer>')"
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


def _jobs(aspect: str, data: dict[str, list]) -> list[_Job]:
    y = data["predictions"]
    jobs: list[_Job] = []
    for i, prediction in enumerate(y):
        if aspect in ("consistency", "relevance"):
            jobs.append(_Job("doc_to_summ", Y_X, i, prediction, data["sources"][i]))
        if aspect == "relevance":
            for k, reference in enumerate(data["references"][i]):
                jobs.append(_Job("summ_to_ref", f"references[{k}]→predictions", i, reference, prediction))
        elif aspect == "preservation":
            jobs.append(_Job("sent_to_sent", X_Y, i, data["sources"][i], prediction))
            jobs.append(_Job("sent_to_sent", Y_X, i, prediction, data["sources"][i]))
        elif aspect == "engagingness":
            context = ENGAGINGNESS_JOIN.join([data["contexts"][i].strip(), data["sources"][i].strip()])
            jobs.append(_Job("fact_history_to_response", Y_CX, i, prediction, context))
        elif aspect == "groundedness":
            jobs.append(_Job("fact_to_response", Y_C, i, prediction, data["contexts"][i]))
    return jobs


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


def _summarise(labels: list[str], limit: int = 8) -> str:
    return ", ".join(labels[:limit]) + (f" and {len(labels) - limit} more" if len(labels) > limit else "")


class CTCScorer:
    """Scores one CTC aspect with one aligner; weights load once per process.

    Args:
        aspect: ``consistency``, ``relevance``, ``preservation``, ``engagingness`` or ``groundedness``.
        aligner: a registered variant (``E-bert``, ``E-roberta``, ``E-roberta-mnli``, ``E-minilm``), a
            custom ``"E:<repo-or-dir>[@layer]"``, or None for the aspect's default.
        aligner_revision: Hub revision for a custom aligner repo (registered ones are pinned).
        device: ``"cuda"``, ``"cuda:1"``, ``"mps"``, ``"cpu"``; default cuda, then mps, then cpu.
        dtype: ``float32`` (default), or ``float16``/``bfloat16`` on accelerators.
        batch_size: texts per forward pass (default adapts to the device).
    """

    def __init__(
        self,
        aspect: str,
        aligner: str | None = None,
        *,
        aligner_revision: str | None = None,
        device=None,
        dtype=None,
        batch_size: int | None = None,
    ):
        self.choice = resolve_aligner(aspect, aligner, aligner_revision)
        self.aspect = ASPECTS[aspect]
        self.sources: dict[str, AlignerSource] = {}
        self.aligners: dict[AlignerSource, Aligner] = {}
        for direction in self.aspect.directions:
            source = self.choice.source_for(direction)
            self.sources[direction] = source
            if source not in self.aligners:
                self.aligners[source] = load_aligner(
                    source, device=device, dtype=dtype, batch_size=batch_size
                )

    def __repr__(self) -> str:
        return f"CTCScorer(aspect={self.aspect.name!r}, aligner={self.choice.name!r})"

    @property
    def dtype_name(self) -> str:
        aligner = next(iter(self.aligners.values()))
        return str(next(aligner.model.parameters()).dtype).removeprefix("torch.")

    def weights(self) -> list[str]:
        """Each aligner's weights as ``kind:repo@revision`` (E: with the layer), for result signatures."""
        out = []
        for source, aligner in self.aligners.items():
            layer = getattr(aligner, "layer", None)
            out.append(replace(source, layer=layer).describe())
        return out

    def check_options(
        self,
        aggregation: str | None = None,
        remove_stopwords: bool | None = None,
        long_inputs: str | None = None,
        show_progress: bool | None = None,
        return_details: bool | None = None,
    ) -> dict:
        """The options, checked (a ValueError names the bad one), with the aspect's defaults filled in."""
        aggregation = self.aspect.aggregation if aggregation is None else aggregation
        if aggregation not in AGGREGATIONS:
            raise ValueError(f"aggregation={aggregation!r} is not one of {AGGREGATIONS}")
        long_inputs = "truncate" if long_inputs is None else long_inputs
        if long_inputs not in LONG_INPUTS:
            raise ValueError(f"long_inputs={long_inputs!r} is not one of {LONG_INPUTS}")
        flags = {
            "remove_stopwords": remove_stopwords,
            "show_progress": show_progress,
            "return_details": return_details,
        }
        for name, value in flags.items():
            if value is not None and not isinstance(value, bool):
                raise ValueError(f"{name}={value!r} must be True or False")
        return {
            "aggregation": aggregation,
            "remove_stopwords": self.aspect.remove_stopwords
            if remove_stopwords is None
            else remove_stopwords,
            "long_inputs": long_inputs,
            "show_progress": bool(show_progress),
            "return_details": bool(return_details),
        }

    def empty_result(self, **options) -> dict:
        """The result for zero examples: empty lists and a NaN mean."""
        result: dict = {"scores": [], "mean_score": math.nan}
        if options.get("return_details"):
            result["details"] = []
        return result

    def score(
        self,
        predictions: Sequence[str],
        *,
        sources: Sequence[str] | None = None,
        references: Sequence[str | Sequence[str]] | None = None,
        contexts: Sequence[str] | None = None,
        aggregation: str | None = None,
        remove_stopwords: bool | None = None,
        long_inputs: str = "truncate",
        show_progress: bool = False,
        return_details: bool = False,
    ) -> dict:
        """Score every example; returns ``{"scores": [...], "mean_score": float}`` (+ ``"details"``).

        An example with an empty or whitespace-only text scores NaN (with a warning) and is left
        out of ``mean_score``. ``details`` holds, per example, every alignment with its tokens.
        ``long_inputs="window"`` reads a context longer than the model window in overlapping
        windows (each token keeps its best window) instead of truncating it as the reference does;
        it costs one extra forward pass per extra window.
        """
        given = {
            "predictions": predictions,
            "sources": sources,
            "references": references,
            "contexts": contexts,
        }
        data = check_inputs({name: given[name] for name in self.aspect.inputs})
        checked = self.check_options(
            aggregation, remove_stopwords, long_inputs, show_progress, return_details
        )
        aggregation, remove_stopwords = checked["aggregation"], checked["remove_stopwords"]
        if not data["predictions"]:
            return self.empty_result(return_details=return_details)

        jobs = _jobs(self.aspect.name, data)
        alignments = self._align(jobs, aggregation, bool(remove_stopwords), show_progress, long_inputs)
        per_example: list[dict[str, Alignment]] = [{} for _ in data["predictions"]]
        for job, alignment in zip(jobs, alignments):
            per_example[job.index][job.label] = alignment
        scores = [self.aspect.combine({k: a.score for k, a in ex.items()}) for ex in per_example]

        self._warn_about(data, jobs, alignments, scores)
        result: dict = {"scores": scores, "mean_score": mean_of(scores)}
        if return_details:
            result["details"] = [{k: a.as_dict() for k, a in ex.items()} for ex in per_example]
        return result

    def _align(
        self,
        jobs: list[_Job],
        aggregation: str,
        remove_stopwords: bool,
        show_progress: bool,
        long_inputs: str,
    ):
        """Run each aligner once over all of its pairs (E aligners then embed each text once)."""
        groups: dict[AlignerSource, list[int]] = defaultdict(list)
        for k, job in enumerate(jobs):
            groups[self.sources[job.direction]].append(k)
        out: list[Alignment] = [None] * len(jobs)  # type: ignore[list-item]
        for source, members in groups.items():
            results = self.aligners[source].align(
                [(jobs[k].a, jobs[k].b) for k in members],
                aggregation=aggregation,
                remove_stopwords=remove_stopwords,
                show_progress=show_progress,
                long_inputs=long_inputs,
            )
            for k, alignment in zip(members, results):
                out[k] = alignment
        return out

    def _warn_about(self, data, jobs, alignments, scores) -> None:
        name = f"ctc_{self.aspect.name}"
        undefined = [i for i, s in enumerate(scores) if math.isnan(s)]
        if undefined:
            blank = [label for i in undefined for label in _blank_fields(data, i)]
            runtime.warn(
                f"{name}: {len(undefined)} of {len(scores)} examples have an empty or whitespace-only text "
                f"({_summarise(blank or [str(i) for i in undefined])}); their score is NaN and mean_score "
                f"averages the other {len(scores) - len(undefined)}."
            )
        truncated = sorted({job.index for job, a in zip(jobs, alignments) if a.truncated})
        if truncated:
            runtime.warn(
                f"{name}: {len(truncated)} examples have a text longer than the aligner reads "
                f"({self.choice.kind}: {_LIMITS[self.choice.kind]}); it was cut as the reference implementation "
                f"does (examples {_summarise([str(i) for i in truncated])}). long_inputs='window' reads long "
                "contexts in overlapping windows instead."
            )


_LIMITS = {
    "E": "512 tokens per text for BERT and RoBERTa",
    "D": "the first 256 tokens of the scored text, 512 for the pair",
    "R": "512 tokens for the pair",
}


def ctc_score(
    aspect: str, predictions: Sequence[str], *, aligner: str | None = None, device=None, **kwargs
) -> dict:
    """Functional form: ``ctc_score("consistency", preds, sources=docs, aligner="E-minilm")``."""
    load_options = {
        key: kwargs.pop(key) for key in ("aligner_revision", "dtype", "batch_size") if key in kwargs
    }
    return CTCScorer(aspect, aligner, device=device, **load_options).score(predictions, **kwargs)
