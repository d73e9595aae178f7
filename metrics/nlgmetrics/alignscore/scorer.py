"""AlignScore's scorer: the reference's steps (chunks × claim sentences, max over chunks, mean over sentences)
with every distinct pair of every example scored once, in length-sorted batches padded to their longest, and
no masked-LM head.

The model is the authors' ``BERTAlignModel`` at inference: the encoder's pooled output (``<s>`` through the
pooler's dense layer and tanh) into three linear heads; dropout is off. ``nli`` reads the 3-way head's
probability of "aligned" (index 0), ``bin`` the binary head's (index 1), ``reg`` the regression output.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import torch

from ..core.batching import forward_in_batches
from ..core.hub import from_pretrained, load_model, load_tokenizer, naming_option
from ..core.model import ModelWrapper
from ..core.progress import Progress
from ..core.registry import WEIGHTS
from ..core.resolve import is_registered, resolve_weight
from ..core.scorer import Scorer
from ..core.sentences import sent_tokenize
from ..core.spec import ModuleSpec
from ..core.tokenize import tokenize
from ..core.validation import examples_at, is_blank, listed
from ..core.warnings import warn
from .first_use import converted_for
from .layout import HEADS, HEADS_FILE
from .options import HEADS as MODE_HEADS
from .sentences import chunk_context
from .weights import CHECKPOINT_FILES, CONFIG_WEIGHTS

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..core.runtime import WhereToRun

CHECKPOINT_CONFIGS = {weight: config for config, weight in CONFIG_WEIGHTS.items()}
"""Registered checkpoint → its config (``model="alignscore-large"`` loads as config ``large``)."""
COLUMNS = {"reg": 0, "bin": 1, "tri": 2}
"""Column of each head's score in the model's output."""


class AlignScoreModel(torch.nn.Module):
    """The encoder (with its pooler) and the three heads; ``forward`` gives ``[reg, p(aligned) of the binary
    head, p(aligned) of the 3-way head]`` per row, in float32."""

    def __init__(self, encoder: torch.nn.Module, heads: dict[str, torch.Tensor]):
        super().__init__()
        self.encoder = encoder
        size = encoder.config.hidden_size
        for name, outputs in HEADS.items():
            layer = torch.nn.Linear(size, outputs)
            layer.load_state_dict({"weight": heads[f"{name}.weight"], "bias": heads[f"{name}.bias"]})
            setattr(self, name, layer)

    def forward(self, **tensors: torch.Tensor) -> torch.Tensor:
        pooled = self.encoder(**tensors).pooler_output
        reg = self.reg_layer(pooled).float()[:, 0]
        binary = torch.softmax(self.bin_layer(pooled).float(), dim=-1)[:, 1]
        tri = torch.softmax(self.tri_layer(pooled).float(), dim=-1)[:, 0]
        return torch.stack([reg, binary, tri], dim=1)


def load_heads(source: str, revision: str | None) -> dict[str, torch.Tensor]:
    """The heads file of a converted folder or Hub repo (a folder without one is a ValueError)."""
    from huggingface_hub import hf_hub_download
    from safetensors.torch import load_file

    if os.path.isdir(os.path.expanduser(source)):
        path = os.path.join(os.path.expanduser(source), HEADS_FILE)
        if not os.path.isfile(path):
            raise ValueError(
                f"the folder {source!r} has no {HEADS_FILE}: it is not a converted AlignScore folder (make "
                "one with: nlgmetrics convert alignscore --checkpoint AlignScore-large.ckpt --output "
                "FOLDER)"
            )
    else:

        def download(repo: str, revision: str | None = None, **kwargs: Any) -> str:
            return hf_hub_download(repo, HEADS_FILE, revision=revision, **kwargs)

        path = from_pretrained(download, source, revision)
    return load_file(path)


class AlignScoreNet(ModelWrapper):
    """A converted AlignScore model and its tokenizer from the weight cache; scores (context, claim) pairs."""

    cache_kind = "alignscore"
    cpu_batch_tokens = 2048
    """On the CPU, batches of about 2,048 padded tokens: roberta-large's cheapest shape for its (chunk,
    sentence) pairs (``benchmarks/results/cpu_batch_shapes.md``)."""

    @classmethod
    def load_weights(cls, source: str, revision: str | None) -> tuple:
        """The converted model (encoder and heads, as loaded) and its tokenizer."""
        from transformers import AutoModel

        tokenizer = load_tokenizer(source, revision)
        encoder = load_model(
            AutoModel, source, revision, head="AlignScore's pooler (a converted AlignScore folder)"
        )
        model = AlignScoreModel(encoder, load_heads(source, revision))
        return model, tokenizer

    @property
    def window(self) -> int:
        """The reference's ``max_length``: the tokenizer's ``model_max_length`` (512 for RoBERTa)."""
        length = self.tokenizer.model_max_length
        return 512 if length is None or length > 1_000_000 else length

    def encode(self, premises: list[str], hypotheses: list[str]) -> list[tuple[dict[str, list[int]], bool]]:
        """(token rows, was the claim cut too) per pair, as the reference tokenizes: only the context is cut
        to the window; a pair whose claim alone does not fit is cut on both sides (the reference does so for
        its whole batch of 32 pairs, we only for that pair)."""
        kwargs = {"max_length": self.window, "return_attention_mask": False}
        try:
            encoded = tokenize(self.tokenizer, premises, hypotheses, truncation="only_first", **kwargs)
            rows = [{k: encoded[k][i] for k in encoded} for i in range(len(premises))]
            return [(row, False) for row in rows]
        except Exception:  # tokenizers' own error type: a claim longer than the window
            return [self._encode_one(p, h, kwargs) for p, h in zip(premises, hypotheses)]

    def _encode_one(self, premise: str, hypothesis: str, kwargs: dict) -> tuple[dict[str, list[int]], bool]:
        try:
            encoded = tokenize(self.tokenizer, premise, hypothesis, truncation="only_first", **kwargs)
            return dict(encoded), False
        except Exception:  # as above: only this pair is cut on both sides
            return dict(tokenize(self.tokenizer, premise, hypothesis, truncation=True, **kwargs)), True

    def score_pairs(
        self, rows: Sequence[dict[str, list[int]]], done: Callable[[float], None]
    ) -> torch.Tensor:
        """``[n, 3]`` scores of the encoded pairs: every pair in length-sorted batches (by rows, or by padded
        tokens with ``max_batch_tokens``), each padded to its longest."""
        out = torch.empty(len(rows), 3)
        pad = {"input_ids": self.tokenizer.pad_token_id}

        def forward(batch: list[int], tensors: dict[str, torch.Tensor]) -> torch.Tensor:
            with torch.inference_mode():
                return self.model(**tensors).cpu()

        for batch, scores in forward_in_batches(
            rows, self.batch_size, pad, self.device, forward, name=self.name, max_tokens=self.max_batch_tokens
        ):
            out[batch] = scores
            done(len(batch))
        return out


@dataclass
class _Example:
    """One example's pairs: the context's chunks × the claim's sentences (or the whole pair)."""

    chunks: list[str]
    sentences: list[str]
    slots: list[int] = field(default_factory=list)
    """Index of each of its pairs (chunk-major) among the distinct pairs of the call."""
    why_nan: str = ""
    truncated: list[bool] = field(default_factory=list)

    @property
    def n_pairs(self) -> int:
        return 0 if self.why_nan else len(self.chunks) * len(self.sentences)


def plan(prediction: str, source: str, split: bool) -> _Example:
    """The pairs of one example as the reference makes them; a blank claim or context scores NaN."""
    if is_blank(prediction):
        return _Example([], [], why_nan="claim")
    if is_blank(source):
        return _Example([], [], why_nan="context")
    if not split:
        return _Example([source], [prediction])
    return _Example(chunk_context(source), sent_tokenize(prediction))


class AlignScoreScorer(Scorer):
    """AlignScore on a registered config (``large``, ``base``: the authors' checkpoints, converted on first
    use) or a converted folder or Hub repo (``model=``)."""

    def __init__(
        self,
        spec: ModuleSpec,
        config: str | None = None,
        model: str | None = None,
        model_revision: str | None = None,
        **where: Unpack[WhereToRun],
    ):
        if model in CHECKPOINT_CONFIGS and is_registered(model):  # a registered checkpoint: as its config
            config, model = CHECKPOINT_CONFIGS[model], None
        super().__init__(spec, config_key=model or config, **where)
        self.config = None if model else (config or spec.default_config)
        if model is None:
            weight = WEIGHTS[CONFIG_WEIGHTS[self.config]]
            self.described = f"{weight.repo_id}/{CHECKPOINT_FILES[weight.name]}@{weight.revision}"
            source, revision, option = converted_for(weight), None, None
        else:
            resolved = resolve_weight(model, model_revision, role="encoder", option="model", given=True)
            source, revision, option = resolved.path, resolved.revision, f"model={model!r}"
            self.described = resolved.describe()
        with naming_option(option):
            self.net = AlignScoreNet.load(source, revision, self.runtime, name="alignscore")

    def weights(self) -> list[str]:
        return [self.described]

    def _score(self, data: dict[str, list], options: dict[str, Any]) -> dict:
        mode = options["mode"]
        column = COLUMNS[MODE_HEADS[mode.removesuffix("_sp")]]
        predictions, sources = data["predictions"], data["sources"]
        examples = [plan(p, s, mode.endswith("_sp")) for p, s in zip(predictions, sources)]
        distinct: dict[tuple[str, str], int] = {}  # a pair met twice (the same claim sentence) is scored once
        for example in examples:
            if example.n_pairs:
                pairs = [(c, s) for c in example.chunks for s in example.sentences]
                example.slots = [distinct.setdefault(pair, len(distinct)) for pair in pairs]
        premises, hypotheses = [p for p, _ in distinct], [h for _, h in distinct]
        encoded = self.net.encode(premises, hypotheses) if premises else []
        rows = [row for row, _ in encoded]
        lengths = [len(row["input_ids"]) for row in rows]
        with Progress(total=len(examples), enabled=options["show_progress"], desc=self.name) as progress:
            done = progress.per(len(examples) / max(len(rows), 1))
            pair_scores = self.net.score_pairs(rows, done)[:, column] if rows else torch.empty(0)
        scores, details = [], []
        for example in examples:
            matrix = pair_scores[example.slots]
            matrix = matrix.view(len(example.chunks), len(example.sentences)) if example.n_pairs else matrix
            best = matrix.max(dim=0).values if example.n_pairs else matrix
            scores.append(best.mean().item() if example.n_pairs else math.nan)
            if options["return_details"]:
                details.append(self._details(example, matrix, best, mode))
        self._warn(examples, encoded, lengths)
        finite = [s for s in scores if math.isfinite(s)]
        result: dict = {"scores": scores, "mean_score": sum(finite) / len(finite) if finite else math.nan}
        if options["return_details"]:
            result["details"] = details
        return result

    @staticmethod
    def _details(example: _Example, matrix: torch.Tensor, best: torch.Tensor, mode: str) -> dict:
        """One example's explanation: its chunks, claim sentences, the chunk × sentence matrix and each
        sentence's best score (the unsplit modes: one chunk, one sentence)."""
        return {
            "mode": mode,
            "chunks": example.chunks,
            "claim_sentences": example.sentences,
            "matrix": matrix.tolist(),
            "sentence_scores": best.tolist(),
        }

    def _warn(self, examples: list[_Example], encoded: list, lengths: list[int]) -> None:
        n = len(examples)
        for what, name in (("claim", "predictions"), ("context", "sources")):
            blank = [f"{name}[{i}]" for i, e in enumerate(examples) if e.why_nan == what]
            if blank:
                warn(
                    f"alignscore: {listed(blank)} {'is' if len(blank) == 1 else 'are'} blank: no {what} to "
                    f"align, so {len(blank)} of {n} examples score NaN and are left out of mean_score (the "
                    "reference crashes on a claim with no sentence)."
                )
        no_sentence = [i for i, e in enumerate(examples) if not e.why_nan and not e.sentences]
        if no_sentence:  # not reached with punkt (a non-blank text has a sentence); kept as the contract
            warn(f"alignscore: the claims of {examples_at(no_sentence)} have no sentence: NaN.")
        cut, both = set(), set()
        for i, e in enumerate(examples):
            if any(lengths[k] >= self.net.window for k in e.slots):
                cut.add(i)
            if any(encoded[k][1] for k in e.slots):
                both.add(i)
        if cut:
            warn(
                f"alignscore: in {examples_at(sorted(cut))} a (context chunk, claim sentence) pair reached "
                f"the model's window of {self.net.window} tokens and its context was cut, as the reference "
                "does: the end of that chunk is not read (a context of one very long sentence is one "
                "chunk)."
            )
        if both:
            warn(
                f"alignscore: in {examples_at(sorted(both))} a claim sentence alone is longer than the "
                "window and was cut too (the reference cuts so its whole batch of 32 pairs; here only "
                "that pair)."
            )
