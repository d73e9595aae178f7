"""FactCG's scorer: every (chunk, claim) prompt of a call in one batched stream.

The reference (``factcg/inference.py`` ``Inferencer``) splits each document into chunks of up to 550 NLTK
word tokens (:mod:`.chunks`), writes each chunk with the whole claim into its yes/no prompt, cuts the prompt
at 2,048 tokens, and keeps the largest "supported" probability (the softmax's index 1) over the chunks. Here
the steps are the claim-checking pipeline's: ``chunks`` (documents → chunks), ``parts`` (the whole claim),
``encode`` (distinct prompts → token rows), ``head`` (a padded batch → probabilities); every distinct
prompt of the call runs once, length-sorted in padded batches, and the probabilities go back to their
examples.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import torch

from ..core.hub import naming_option
from ..core.model import ModelWrapper
from ..core.progress import Progress
from ..core.resolve import resolve_weight
from ..core.result import mean_of
from ..core.runtime import Runtime, WhereToRun
from ..core.scorer import Scorer
from ..core.tokenize import tokenize
from ..core.validation import examples_at, is_blank, listed
from ..core.warnings import warn
from ..modules.spec import ModuleSpec
from .chunks import document_chunks
from .options import CONFIGS, DEFAULT_CONFIG, TEMPLATE, THRESHOLD, Layout

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..core.model import WrapperArgs


class FactCGModel(ModelWrapper):
    """FactCG's classifier from the process-wide cache: the "supported" probability (label 1) of token
    rows."""

    cache_kind = "SEQUENCE-CLASSIFIER"
    auto_class = "AutoModelForSequenceClassification"
    head = "2-way sequence-classification head"
    cpu_batch_tokens = 2048
    """On the CPU, batches of about 2,048 padded tokens, as MiniCheck's DeBERTa (a prompt of a full chunk is
    about 700 tokens)."""

    def __init__(self, model, tokenizer, **common: Unpack[WrapperArgs]):
        super().__init__(model, tokenizer, **common)
        if model.config.num_labels != 2:
            raise ValueError(
                f"the classifier has {model.config.num_labels} labels; FactCG's has 2 (1: supported)"
            )

    def encode(self, prompts: list[str], max_model_len: int) -> list[list[int]]:
        """Token ids of each prompt, cut on the right at ``max_model_len`` as the reference."""
        if not prompts:
            return []
        return tokenize(self.tokenizer, prompts, max_length=max_model_len, truncation=True, verbose=False)[
            "input_ids"
        ]

    @torch.inference_mode()
    def head_of(self, tensors: dict[str, torch.Tensor]) -> list[float]:
        logits = self.model(input_ids=tensors["input_ids"], attention_mask=tensors["attention_mask"]).logits
        return torch.softmax(logits.float(), dim=-1)[:, 1].tolist()

    def support(
        self, rows: Sequence[Sequence[int]], done: Callable[[int], None] = lambda n: None
    ) -> list[float]:
        """The "supported" probability of every token row, in length-sorted batches; ``done(n)`` after
        each."""
        return self.per_row(rows, self.head_of, done, name="factcg")


class FactCGScorer(Scorer):
    """Scores claims against their documents with FactCG's classifier; it loads once per process.

    Args:
        config: ``deberta-v3-large`` (default).
        model: the config's registered classifier by default; a Hub repo id or a folder of a FactCG
            checkpoint.
        model_revision: Hub revision for a repo that is not registered.
        runtime, device, dtype, batch_size, max_batch_tokens, allow_tf32, quantize: where and how to run, as
            :class:`~nlgmetrics.core.scorer.Scorer` says (a batch row is a (chunk, claim) prompt).
    """

    def __init__(
        self,
        spec: ModuleSpec,
        config: str | None = None,
        model: str | None = None,
        *,
        model_revision: str | None = None,
        runtime: Runtime | None = None,
        **where: Unpack[WhereToRun],
    ):
        super().__init__(spec, runtime, config_key=config, **where)
        self.config = self.spec.check_config(config) or DEFAULT_CONFIG
        self.custom_model = model is not None
        self.layout: Layout = CONFIGS[self.config]
        name = self.layout.weight if model is None else model
        role = spec.weight_role(self.config, "model")
        self.source = resolve_weight(name, model_revision, role=role, option="model", given=model is not None)
        with naming_option(None if self.source.spec else f"model={name!r}"):
            self.checker = FactCGModel.load(self.source.path, self.source.revision, self.runtime)

    def config_label(self) -> str:
        return "custom" if self.custom_model else self.config

    def __repr__(self) -> str:
        return f"FactCGScorer(config={self.config!r}, model={self.source.name!r})"

    def weights(self) -> list[str]:
        return [self.source.describe()]

    def resolve_options(self, options: dict) -> dict:
        """``chunk_size`` and ``max_model_len``: the config's defaults where not given."""
        return {
            **options,
            "chunk_size": options["chunk_size"] or self.layout.chunk_size,
            "max_model_len": options["max_model_len"] or self.layout.max_model_len,
        }

    def _score(self, data: dict[str, list], options: dict) -> dict:
        """The largest "supported" probability over each document's chunks, and its 0/1 label."""
        claims, documents = data["predictions"], data["sources"]
        n = len(claims)
        blank = [f"{f}[{i}]" for i in range(n) for f in ("predictions", "sources") if is_blank(data[f][i])]
        scored = [i for i in range(n) if not (is_blank(claims[i]) or is_blank(documents[i]))]
        chunks = {i: document_chunks(documents[i], options["chunk_size"]) for i in scored}
        prompts: dict[str, int] = {}
        slots = {
            i: [
                prompts.setdefault(TEMPLATE.format(text_a=c, text_b=claims[i]), len(prompts))
                for c in chunks[i]
            ]
            for i in scored
        }
        max_len = options["max_model_len"]
        rows = self.checker.encode(list(prompts), max_len)
        with Progress(total=n, enabled=options["show_progress"], desc="factcg") as progress:
            probabilities = self.checker.support(rows, progress.per(n / max(len(rows), 1)))
        per_example = [[probabilities[t] for t in slots.get(i, [])] for i in range(n)]
        scores = [max(p) if p else math.nan for p in per_example]
        result: dict[str, Any] = {
            "scores": scores,
            "mean_score": mean_of(scores),
            "labels": [None if math.isnan(s) else int(s > THRESHOLD) for s in scores],
        }
        if options["return_details"]:
            result["details"] = [
                {"chunks": list(chunks.get(i, [])), "probabilities": per_example[i]} for i in range(n)
            ]
        self._warn(
            blank, sorted({i for i in scored for t in slots[i] if len(rows[t]) >= max_len}), n, max_len
        )
        return result

    def empty_result(self, **options) -> dict:
        return {**super().empty_result(**options), "labels": []}

    def _warn(self, blank: list[str], cut: list[int], n: int, max_len: int) -> None:
        if blank:
            warn(
                f"factcg: {listed(blank)} {'is' if len(blank) == 1 else 'are'} empty (or only whitespace, "
                "zero-width or control characters): its example's score is NaN (label None), left out of the "
                "mean (the reference fails on a blank document)."
            )
        if cut:
            warn(
                f"factcg: a (chunk, claim) prompt of {len(cut)} of {n} examples ({examples_at(cut)}) is "
                f"longer than max_model_len={max_len} tokens and was cut at the end, as the reference does: "
                "the claim (or its end) is not read there. A sentence longer than chunk_size is a chunk of "
                "its own; split such a document or raise max_model_len."
            )


__all__ = ["FactCGModel", "FactCGScorer"]
