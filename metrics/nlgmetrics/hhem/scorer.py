"""HHEM's scorer: transformers' own ``T5ForTokenClassification`` with the published checkpoint, no remote
code.

The published model (``modeling_hhem_v2.py``, ``HHEMv2ForSequenceClassification.predict``) writes each
(premise, hypothesis) pair into its prompt, tokenizes every prompt of the call at once with its foundation's
tokenizer (flan-t5-base; padded, never cut), runs the T5 encoder and its 2-way token-classification head,
and keeps the softmax of the first position's two logits, class 1. Here the checkpoint's keys (a
``T5ForTokenClassification`` under ``t5.``) load into transformers' class built from the foundation's
config, named by the checkpoint's config.json; the steps run on the claim-checking pipeline
(:mod:`nlgmetrics.core.claims`: the premise is one chunk, the hypothesis one part), so every distinct
prompt of a call runs once, length-sorted in padded batches.
"""

from __future__ import annotations

import functools
import json
import math
from typing import TYPE_CHECKING, Any

import torch

from ..core.claims import ClaimSteps, check_claims, whole_claim
from ..core.hub import from_pretrained, load_tokenizer
from ..core.model import ModelWrapper
from ..core.progress import Progress
from ..core.registry import weight_for_repo
from ..core.result import mean_of
from ..core.scorer import OneModelScorer
from ..core.tokenize import tokenize
from ..core.validation import is_blank, listed
from ..core.warnings import warn
from .options import CONFIGS, PREFIX, PROMPT, THRESHOLD

if TYPE_CHECKING:
    pass


def _file(name: str, source: str, **kwargs: Any) -> str:
    from transformers.utils import cached_file

    return cached_file(source, name, **kwargs)


def foundation_of(source: str, revision: str | None) -> tuple[str, str | None]:
    """The foundation the checkpoint's config.json names, at its registered revision where registered."""
    with open(
        from_pretrained(functools.partial(_file, "config.json"), source, revision), encoding="utf-8"
    ) as f:
        config = json.load(f)
    foundation = config.get("foundation") if isinstance(config, dict) else None
    if not isinstance(foundation, str) or not foundation:
        raise ValueError(f"{source!r}: its config.json names no foundation model: not an HHEM checkpoint")
    registered = weight_for_repo(foundation)
    return foundation, registered.revision if registered else None


def load_checkpoint(source: str, revision: str | None) -> tuple[Any, Any]:
    """``(T5ForTokenClassification, tokenizer)``: the foundation's config and tokenizer, the checkpoint's
    weights (every key under ``t5.``, none missing but the input embeddings tied to ``shared``)."""
    from safetensors.torch import load_file
    from transformers import AutoConfig, T5ForTokenClassification

    foundation, foundation_revision = foundation_of(source, revision)
    config = from_pretrained(AutoConfig.from_pretrained, foundation, foundation_revision)
    tokenizer = load_tokenizer(foundation, foundation_revision)
    state = load_file(from_pretrained(functools.partial(_file, "model.safetensors"), source, revision))
    unexpected = sorted(k for k in state if not k.startswith(PREFIX))
    with torch.device("meta"):
        model = T5ForTokenClassification(config)
    ours = {k[len(PREFIX) :]: v for k, v in state.items() if k.startswith(PREFIX)}
    shapes = model.state_dict()
    if wrong := sorted(k for k, v in ours.items() if k in shapes and v.shape != shapes[k].shape):
        raise ValueError(
            f"{source!r}: its weights do not fit {foundation}'s config: {PREFIX}{wrong[0]} is "
            f"{list(ours[wrong[0]].shape)} in the checkpoint but {list(shapes[wrong[0]].shape)} by the "
            f"config ({len(wrong)} weights differ)"
        )
    loaded = model.load_state_dict(ours, strict=False, assign=True)
    model.transformer.encoder.embed_tokens.weight = model.transformer.shared.weight
    unexpected += [PREFIX + k for k in loaded.unexpected_keys]
    missing = sorted(name for name, p in model.named_parameters() if p.is_meta)
    if unexpected or missing:
        raise ValueError(
            f"{source!r}: its weights are not a T5ForTokenClassification of {foundation} under {PREFIX!r}: "
            f"{len(missing)} missing (e.g. {(missing or ['none'])[0]}), {len(unexpected)} unused (e.g. "
            f"{(unexpected or ['none'])[0]})"
        )
    return model, tokenizer


class HHEMWrapper(ModelWrapper):
    """HHEM's T5 token classifier from the process-wide cache: class 1's probability at the first position."""

    cache_kind = "HHEM"
    cpu_batch_tokens = 1024
    """On the CPU, batches of about 1,024 padded tokens (a SummEval pair's 750-token prompt alone):
    flan-t5-base costs 1.32x more per token in batches of 16 of these prompts
    (``benchmarks/results/cpu_batch_shapes.md``)."""

    @classmethod
    def load_weights(cls, source: str, revision: str | None) -> tuple:
        return load_checkpoint(source, revision)

    def encode(self, prompts: list[str]) -> list[dict[str, list[int]]]:
        """Token rows of each prompt, whole (the reference never cuts)."""
        return [{"input_ids": row} for row in tokenize(self.tokenizer, prompts, verbose=False)["input_ids"]]

    @torch.inference_mode()
    def head_of(self, tensors: dict[str, torch.Tensor]) -> torch.Tensor:
        """Class 1's probability at the first position of each row of a padded batch."""
        hidden = self.model.transformer(
            input_ids=tensors["input_ids"], attention_mask=tensors["attention_mask"]
        ).last_hidden_state[:, 0]
        return torch.softmax(self.model.classifier(hidden).float(), dim=-1)[:, 1]


class HHEMScorer(OneModelScorer):
    """Scores hypotheses against their premises with HHEM-2.1-Open; it loads once per process.

    Args:
        config: ``2.1-open`` (default).
        model: the config's registered checkpoint by default; a Hub repo id or a folder holding a copy of
            the HHEM repo (its config.json names the foundation, read at its registered revision).
        model_revision: Hub revision for a repo that is not registered.
        runtime, device, dtype, batch_size, max_batch_tokens, allow_tf32, quantize: where and how to run, as
            :class:`~nlgmetrics.core.scorer.Scorer` says (a batch row is a prompt).
    """

    def weight_name(self, config: str) -> str:
        return CONFIGS[config].weight

    def wrapper_class(self, config: str) -> type[HHEMWrapper]:
        return HHEMWrapper

    def steps(self) -> ClaimSteps:
        """The reference's steps on the pipeline: the premise whole (one chunk), the hypothesis whole, the
        prompt, class 1's probability at the first position."""
        return ClaimSteps(
            chunks=lambda premises: [[premise] for premise in premises],
            parts=whole_claim,
            encode=lambda premises, hypotheses: self.wrapper.encode(
                [PROMPT.format(text1=p, text2=h) for p, h in zip(premises, hypotheses)]
            ),
            head=self.wrapper.head_of,
            over_parts="none",
            name="hhem",
        )

    def _score(self, data: dict[str, list], options: dict) -> dict:
        """Class 1's probability of each (premise, hypothesis) prompt, and its 0/1 label."""
        n = len(data["predictions"])
        with Progress(total=n, enabled=options["show_progress"], desc="hhem") as progress:
            checked, _ = check_claims(
                self.wrapper, self.steps(), data["predictions"], data["sources"], progress=progress
            )
        scores = [example.score for example in checked]
        blank = [f"{f}[{i}]" for i in range(n) for f in ("predictions", "sources") if is_blank(data[f][i])]
        if blank:
            warn(
                f"hhem: {listed(blank)} {'is' if len(blank) == 1 else 'are'} empty (or only whitespace, "
                "zero-width or control characters): its example's score is NaN (label None), left out of the "
                "mean (the reference scores the prompt with nothing in its place)."
            )
        result: dict[str, Any] = {
            "scores": scores,
            "mean_score": mean_of(scores),
            "labels": [None if math.isnan(s) else int(s > THRESHOLD) for s in scores],
        }
        if options["return_details"]:  # the premise is one chunk, read whole
            result["details"] = [
                {"chunks": e.chunks, "probabilities": [] if e.matrix is None else e.matrix[:, 0].tolist()}
                for e in checked
            ]
        return result

    def empty_result(self, **options) -> dict:
        return {**super().empty_result(**options), "labels": []}


__all__ = ["HHEMWrapper", "HHEMScorer", "load_checkpoint"]
