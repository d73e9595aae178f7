"""MiniCheck's scorer: every (chunk, claim) pair of a call in one batched stream.

The reference scores one document at a time: the document split into sentences (newlines kept), grouped
into chunks of ``chunk_size`` words (Flan-T5) or tokens (the classifiers), each chunk paired with the whole
claim as ``chunk + eos + claim`` (``"predict: "`` first for Flan-T5), cut at ``max_model_len`` tokens; the
claim's score is the largest "supported" probability over its document's chunks. Here every pair of every
example is tokenized at once, sorted by length and run in padded batches (by count or by token budget),
and the probabilities are scattered back to their examples: the steps of the claim-checking pipeline
(:func:`~nlgmetrics.core.claims.check_claims`). Flan-T5's probability is the softmax of the first decoder
step's logits at ids 3 and 209: only those two rows of the vocabulary head are computed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import torch

from ..core.claims import ClaimSteps, check_claims, whole_claim
from ..core.hub import position_limit
from ..core.model import ModelWrapper
from ..core.progress import Progress
from ..core.result import mean_of
from ..core.scorer import OneModelScorer
from ..core.tokenize import tokenize
from ..core.validation import examples_at, is_blank, listed
from ..core.warnings import warn
from .options import CONFIGS, SUPPORTED_ID, THRESHOLD, UNSUPPORTED_ID, Layout
from .sentences import chunked, sentences_with_newlines

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..core.model import WrapperArgs


class MiniCheckWrapper(ModelWrapper):
    """A MiniCheck model from the process-wide cache: the "supported" probability of token rows."""

    prefix = ""
    """Text put before every pair (Flan-T5: ``"predict: "``)."""
    cpu_batch_tokens = 2048
    """On the CPU, batches of about 2,048 padded tokens, RoBERTa-large's cheapest shape for these pairs
    (``benchmarks/results/cpu_batch_shapes.md``)."""

    def __init__(self, model, tokenizer, **common: Unpack[WrapperArgs]):
        super().__init__(model, tokenizer, **common)
        if tokenizer.eos_token is None:
            raise ValueError("the tokenizer has no eos token: not a MiniCheck model")

    def pair_rows(
        self, chunks: Sequence[str], claims: Sequence[str], max_model_len: int
    ) -> list[dict[str, list[int]]]:
        """The token row of each (chunk, claim) pair: ``prefix + chunk + eos + claim``, cut on the right at
        ``max_model_len`` as the reference."""
        if not chunks:
            return []
        texts = [
            self.prefix + chunk + self.tokenizer.eos_token + claim for chunk, claim in zip(chunks, claims)
        ]
        ids = tokenize(self.tokenizer, texts, max_length=max_model_len, truncation=True, verbose=False)[
            "input_ids"
        ]
        return [{"input_ids": row} for row in ids]

    def support(self, tensors: dict[str, torch.Tensor]) -> torch.Tensor:
        """The "supported" probability of each row of a padded batch (float32): the pipeline's head."""
        raise NotImplementedError


class MiniCheckT5Wrapper(MiniCheckWrapper):
    """MiniCheck-Flan-T5: softmax over the first decoder step's logits at ids 3 (unsupported) and 209."""

    cache_kind = "SEQ2SEQ"
    auto_class = "AutoModelForSeq2SeqLM"
    prefix = "predict: "
    cpu_batch_tokens = 1024
    """On the CPU, batches of about 1,024 padded tokens (a SummEval pair of about 720 tokens alone):
    Flan-T5-large's cost per token grows with a batch's rows, and two such pairs at a time ran 7% (float32)
    to 20% (bf16) slower than the authors' one at a time (``benchmarks/results/cpu_batch_shapes.md``,
    ``minicheck_speed.md``)."""

    def __init__(self, model, tokenizer, **common: Unpack[WrapperArgs]):
        super().__init__(model, tokenizer, **common)
        config = model.config
        if config.vocab_size <= SUPPORTED_ID:
            raise ValueError(
                f"the model's vocabulary has no id {SUPPORTED_ID}: not a MiniCheck-Flan-T5 model"
            )
        scale = getattr(config, "scale_decoder_outputs", None)
        if scale is None:  # transformers < 5: tied embeddings meant a rescaled decoder output
            scale = bool(getattr(config, "tie_word_embeddings", False))
        self.output_scale = config.d_model**-0.5 if scale else 1.0

    @torch.inference_mode()
    def support(self, tensors: dict[str, torch.Tensor]) -> torch.Tensor:
        input_ids, mask = tensors["input_ids"], tensors["attention_mask"]
        encoded = self.model.get_encoder()(input_ids=input_ids, attention_mask=mask).last_hidden_state
        start = torch.zeros((len(input_ids), 1), dtype=torch.long, device=self.device)  # the reference's 0
        hidden = self.model.get_decoder()(
            input_ids=start, encoder_hidden_states=encoded, encoder_attention_mask=mask, use_cache=False
        ).last_hidden_state[:, 0]
        head = self.model.get_output_embeddings()
        answers = torch.tensor([UNSUPPORTED_ID, SUPPORTED_ID], device=self.device)
        logits = (hidden * self.output_scale) @ head.weight[answers].T
        if getattr(head, "bias", None) is not None:
            logits = logits + head.bias[answers]
        return torch.softmax(logits.float(), dim=-1)[:, 1]


class MiniCheckClassifierWrapper(MiniCheckWrapper):
    """MiniCheck-RoBERTa / -DeBERTa: a 2-way sequence classifier, label 1 = supported."""

    cache_kind = "SEQUENCE-CLASSIFIER"
    auto_class = "AutoModelForSequenceClassification"
    head = "2-way sequence-classification head"

    def __init__(self, model, tokenizer, **common: Unpack[WrapperArgs]):
        super().__init__(model, tokenizer, **common)
        if model.config.num_labels != 2:
            raise ValueError(
                f"the classifier has {model.config.num_labels} labels; MiniCheck's have 2 (1: supported)"
            )

    @torch.inference_mode()
    def support(self, tensors: dict[str, torch.Tensor]) -> torch.Tensor:
        logits = self.model(input_ids=tensors["input_ids"], attention_mask=tensors["attention_mask"]).logits
        return torch.softmax(logits.float(), dim=-1)[:, 1]


class MiniCheckScorer(OneModelScorer):
    """Scores claims against their documents with one MiniCheck model; it loads once per process.

    Args:
        config: ``flan-t5-large`` (default), ``roberta-large`` or ``deberta-v3-large``.
        model: the config's registered model by default; a Hub repo id or a folder of a checkpoint of the
            config's layout.
        model_revision: Hub revision for a repo that is not registered.
        runtime, device, dtype, batch_size, max_batch_tokens, allow_tf32, quantize: where and how to run, as
            :class:`~nlgmetrics.core.scorer.Scorer` says (a batch row is a (chunk, claim) pair).
    """

    @property
    def layout(self) -> Layout:
        return CONFIGS[self.config]

    def weight_name(self, config: str) -> str:
        return CONFIGS[config].weight

    def wrapper_class(self, config: str) -> type[MiniCheckWrapper]:
        return MiniCheckT5Wrapper if CONFIGS[config].seq2seq else MiniCheckClassifierWrapper

    def resolve_options(self, options: dict) -> dict:
        """``chunk_size`` and ``max_model_len``: the config's defaults, and ``max_model_len`` within the
        model's positions."""
        chunk_size = options["chunk_size"] or self.layout.chunk_size
        limit = position_limit(self.wrapper.model.config)  # DeBERTa's and T5's positions are relative
        max_model_len = options["max_model_len"] or min(self.layout.max_model_len, limit or math.inf)
        if limit is not None and max_model_len > limit:
            raise ValueError(
                f"max_model_len={max_model_len} exceeds the {limit} positions of {self.source.name}"
            )
        return {**options, "chunk_size": chunk_size, "max_model_len": max_model_len}

    # ---- scoring ----------------------------------------------------------------------------------------

    def chunks(self, documents: Sequence[str], chunk_size: int, max_model_len: int) -> list[list[str]]:
        """Each document's chunks, as the reference makes them (every sentence tokenized in one call)."""
        if not documents:  # every example of the call is blank: a tokenizer fails on no text at all
            return []
        split = [sentences_with_newlines(doc) or [""] for doc in documents]
        if self.layout.seq2seq:
            sizes = [[len(s.split()) for s in sentences] for sentences in split]
        else:
            unique = list(dict.fromkeys(s for sentences in split for s in sentences))
            ids = tokenize(
                self.wrapper.tokenizer,
                unique,
                add_special_tokens=False,
                max_length=max_model_len,
                truncation=True,
                verbose=False,
            )["input_ids"]
            size = dict(zip(unique, map(len, ids)))
            sizes = [[size[s] for s in sentences] for sentences in split]
        return [chunked(sentences, n, chunk_size) for sentences, n in zip(split, sizes)]

    def steps(self, options: dict) -> ClaimSteps:
        """The reference's steps: the document's chunks, each with the whole claim, the largest "supported"
        probability over the chunks."""
        chunk_size, max_len = options["chunk_size"], options["max_model_len"]
        return ClaimSteps(
            chunks=lambda documents: self.chunks(documents, chunk_size, max_len),
            parts=whole_claim,
            encode=lambda chunks, claims: self.wrapper.pair_rows(chunks, claims, max_len),
            head=self.wrapper.support,
            over_parts="none",
            name="minicheck",
        )

    def _score(self, data: dict[str, list], options: dict) -> dict:
        """The largest "supported" probability over each document's chunks, and its 0/1 label."""
        claims, documents = data["predictions"], data["sources"]
        n = len(claims)
        blank = [
            f"{field}[{i}]"
            for i in range(n)
            for field in ("predictions", "sources")
            if is_blank(data[field][i])
        ]
        with Progress(total=n, enabled=options["show_progress"], desc="minicheck") as progress:
            examples, rows = check_claims(
                self.wrapper, self.steps(options), claims, documents, progress=progress
            )
        scores = [e.score for e in examples]
        result: dict[str, Any] = {
            "scores": scores,
            "mean_score": mean_of(scores),
            "labels": [None if math.isnan(s) else int(s > THRESHOLD) for s in scores],
        }
        if options["return_details"]:
            result["details"] = [
                {"chunks": e.chunks, "probabilities": [] if e.matrix is None else e.matrix[:, 0].tolist()}
                for e in examples
            ]
        max_len = options["max_model_len"]
        cut = [i for i, e in enumerate(examples) if any(len(rows[k]["input_ids"]) >= max_len for k in e.rows)]
        self._warn(blank, cut, n, max_len)
        return result

    def empty_result(self, **options) -> dict:
        return {**super().empty_result(**options), "labels": []}

    def _warn(self, blank: list[str], cut: list[int], n: int, max_len: int) -> None:
        if blank:
            warn(
                f"minicheck: {listed(blank)} {'is' if len(blank) == 1 else 'are'} empty (or only whitespace, "
                "zero-width or control characters): its example's score is NaN (label None), left out of the "
                "mean (the reference crashes on a blank document)."
            )
        if cut:
            warn(
                f"minicheck: a (chunk, claim) pair of {len(cut)} of {n} examples ({examples_at(cut)}) is "
                f"longer than max_model_len={max_len} tokens and was cut at the end, as the reference "
                "does: the claim (or its end) is not read there. A sentence longer than chunk_size is a "
                "chunk of its own; split such a document or raise max_model_len."
            )


__all__ = ["MiniCheckClassifierWrapper", "MiniCheckScorer", "MiniCheckT5Wrapper", "MiniCheckWrapper"]
