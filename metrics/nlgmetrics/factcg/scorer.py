"""FactCG's scorer: every (chunk, claim) prompt of a call in one batched stream.

The reference (``factcg/inference.py`` ``Inferencer``) splits each document into chunks of up to 550 NLTK
word tokens (:mod:`.chunks`), writes each chunk with the whole claim into its yes/no prompt, cuts the prompt
at 2,048 tokens, and keeps the largest "supported" probability (the softmax's index 1) over the chunks. Here
these are the steps of the claim-checking pipeline (:mod:`nlgmetrics.core.claims`), which runs every
distinct prompt of a call once, length-sorted in padded batches, and gives each example its chunks'
probabilities and their max.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import torch

from ..core.claims import ClaimSteps, check_claims, whole_claim
from ..core.model import ModelWrapper
from ..core.progress import Progress
from ..core.result import mean_of
from ..core.scorer import OneModelScorer
from ..core.tokenize import tokenize
from ..core.validation import examples_at, is_blank, listed
from ..core.warnings import warn
from .chunks import document_chunks
from .options import CONFIGS, TEMPLATE, THRESHOLD, Layout

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..core.model import WrapperArgs


class FactCGWrapper(ModelWrapper):
    """FactCG's classifier from the process-wide cache: the "supported" probability (label 1) of token
    rows."""

    cache_kind = "SEQUENCE-CLASSIFIER"
    auto_class = "AutoModelForSequenceClassification"
    head = "2-way sequence-classification head"
    cpu_batch_tokens = 2048
    """On the CPU, batches of about 2,048 padded tokens: two prompts of a full chunk (about 760 tokens) or
    six of 300, each within 1.05x of DeBERTa-v3-large's cheapest shape (batches of 16 cost up to 1.10x:
    ``benchmarks/results/cpu_batch_shapes.md``)."""

    def __init__(self, model, tokenizer, **common: Unpack[WrapperArgs]):
        super().__init__(model, tokenizer, **common)
        if model.config.num_labels != 2:
            raise ValueError(
                f"the classifier has {model.config.num_labels} labels; FactCG's has 2 (1: supported)"
            )

    def encode(self, prompts: list[str], max_model_len: int) -> list[dict[str, list[int]]]:
        """Token rows of each prompt, cut on the right at ``max_model_len`` as the reference."""
        ids = tokenize(self.tokenizer, prompts, max_length=max_model_len, truncation=True, verbose=False)
        return [{"input_ids": row} for row in ids["input_ids"]]

    @torch.inference_mode()
    def head_of(self, tensors: dict[str, torch.Tensor]) -> torch.Tensor:
        """Label 1's probability (the softmax over the two logits) of each row of a padded batch."""
        logits = self.model(input_ids=tensors["input_ids"], attention_mask=tensors["attention_mask"]).logits
        return torch.softmax(logits.float(), dim=-1)[:, 1]


class FactCGScorer(OneModelScorer):
    """Scores claims against their documents with FactCG's classifier; it loads once per process.

    Args:
        config: ``deberta-v3-large`` (default).
        model: the config's registered classifier by default; a Hub repo id or a folder of a FactCG
            checkpoint.
        model_revision: Hub revision for a repo that is not registered.
        runtime, device, dtype, batch_size, max_batch_tokens, allow_tf32, quantize: where and how to run, as
            :class:`~nlgmetrics.core.scorer.Scorer` says (a batch row is a (chunk, claim) prompt).
    """

    @property
    def layout(self) -> Layout:
        return CONFIGS[self.config]

    def weight_name(self, config: str) -> str:
        return CONFIGS[config].weight

    def wrapper_class(self, config: str) -> type[FactCGWrapper]:
        return FactCGWrapper

    def resolve_options(self, options: dict) -> dict:
        """``chunk_size`` and ``max_model_len``: the config's defaults where not given."""
        return {
            **options,
            "chunk_size": options["chunk_size"] or self.layout.chunk_size,
            "max_model_len": options["max_model_len"] or self.layout.max_model_len,
        }

    def steps(self, chunk_size: int, max_model_len: int) -> ClaimSteps:
        """The reference's steps on the pipeline: its chunks, the whole claim, its prompt, label 1's
        probability."""
        return ClaimSteps(
            chunks=lambda documents: [document_chunks(document, chunk_size) for document in documents],
            parts=whole_claim,
            encode=lambda chunks, claims: self.wrapper.encode(
                [TEMPLATE.format(text_a=chunk, text_b=claim) for chunk, claim in zip(chunks, claims)],
                max_model_len,
            ),
            head=self.wrapper.head_of,
            over_parts="none",
            name="factcg",
        )

    def _score(self, data: dict[str, list], options: dict) -> dict:
        """The largest "supported" probability over each document's chunks, and its 0/1 label."""
        n, max_len = len(data["predictions"]), options["max_model_len"]
        steps = self.steps(options["chunk_size"], max_len)
        with Progress(total=n, enabled=options["show_progress"], desc="factcg") as progress:
            checked, rows = check_claims(
                self.wrapper, steps, data["predictions"], data["sources"], progress=progress
            )
        scores = [example.score for example in checked]
        result: dict[str, Any] = {
            "scores": scores,
            "mean_score": mean_of(scores),
            "labels": [None if math.isnan(s) else int(s > THRESHOLD) for s in scores],
        }
        if options["return_details"]:
            result["details"] = [
                {"chunks": e.chunks, "probabilities": [] if e.matrix is None else e.matrix[:, 0].tolist()}
                for e in checked
            ]
        blank = [f"{f}[{i}]" for i in range(n) for f in ("predictions", "sources") if is_blank(data[f][i])]
        cut = [i for i, e in enumerate(checked) if any(len(rows[r]["input_ids"]) >= max_len for r in e.rows)]
        self._warn(blank, cut, n, max_len)
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


__all__ = ["FactCGWrapper", "FactCGScorer"]
