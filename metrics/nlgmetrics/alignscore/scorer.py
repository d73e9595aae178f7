"""AlignScore's scorer: the reference's steps (chunks × claim sentences, max over chunks, mean over sentences)
declared for the claim-checking pipeline (:func:`~nlgmetrics.core.claims.check_claims`), which scores every
distinct pair of every example once, in length-sorted batches padded to their longest; no masked-LM head.

The model is the authors' ``BERTAlignModel`` at inference: the encoder's pooled output (``<s>`` through the
pooler's dense layer and tanh) into three linear heads; dropout is off. ``nli`` reads the 3-way head's
probability of "aligned" (index 0), ``bin`` the binary head's (index 1), ``reg`` the regression output.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import torch

from ..core.claims import CheckedClaim, ClaimSteps, check_claims, whole_claim
from ..core.hub import from_pretrained, load_model, load_tokenizer, model_window, naming_option
from ..core.model import ModelWrapper
from ..core.progress import Progress
from ..core.registry import WEIGHTS
from ..core.resolve import is_registered, resolve_weight
from ..core.result import mean_of
from ..core.scorer import Scorer
from ..core.tokenize import tokenize
from ..core.validation import examples_at, listed
from ..core.warnings import warn
from .convert import HEADS_FILE, converted_for
from .options import HEADS, Head
from .sentences import chunk_context, sent_tokenize
from .weights import CHECKPOINT_FILES, CONFIG_WEIGHTS

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..core.runtime import WhereToRun

CHECKPOINT_CONFIGS = {weight: config for config, weight in CONFIG_WEIGHTS.items()}
"""Registered checkpoint → its config (``model="alignscore-large"`` loads as config ``large``)."""


def _head_layer(head: Head, size: int, weights: dict[str, torch.Tensor]) -> torch.nn.Linear:
    layer = torch.nn.Linear(size, head.outputs)
    layer.load_state_dict({"weight": weights[f"{head.layer}.weight"], "bias": weights[f"{head.layer}.bias"]})
    return layer


class AlignScoreModel(torch.nn.Module):
    """The encoder (with its pooler) and the three heads of :data:`~.options.HEADS` (``heads``, keyed by
    their checkpoint names); ``forward`` gives each head's p(aligned) (the regression head: its output)
    per row, in float32, one column per head in the table's order."""

    def __init__(self, encoder: torch.nn.Module, weights: dict[str, torch.Tensor]):
        super().__init__()
        self.encoder = encoder
        size = encoder.config.hidden_size
        self.heads = torch.nn.ModuleDict({h.layer: _head_layer(h, size, weights) for h in HEADS.values()})

    def forward(self, **tensors: torch.Tensor) -> torch.Tensor:
        pooled = self.encoder(**tensors).pooler_output
        columns = []
        for head in HEADS.values():
            out = self.heads[head.layer](pooled).float()
            columns.append(out[:, 0] if head.aligned is None else torch.softmax(out, dim=-1)[:, head.aligned])
        return torch.stack(columns, dim=1)


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


class AlignScoreWrapper(ModelWrapper):
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
        return model_window(self.tokenizer, self.model.encoder.config)

    def encode(
        self, premises: list[str], hypotheses: list[str]
    ) -> tuple[list[dict[str, list[int]]], list[bool]]:
        """The token rows of the pairs, and whether each pair's claim was cut too, as the reference
        tokenizes: only the context is cut to the window, unless the claim with the pair's special tokens
        leaves it no room; such a pair is cut on both sides (the reference does so for its whole batch of
        32 pairs, we only for that pair). Decided from the lengths, as the tokenizer decides to fail."""
        kwargs = {"max_length": self.window, "return_attention_mask": False, "verbose": False}
        sentences = list(dict.fromkeys(hypotheses))
        bare = tokenize(self.tokenizer, sentences, add_special_tokens=False, verbose=False)["input_ids"]
        length = dict(zip(sentences, map(len, bare)))
        room = self.window - self.tokenizer.num_special_tokens_to_add(pair=True)
        rows: list[dict[str, list[int]]] = [{} for _ in premises]
        both = [False] * len(premises)
        for cut, truncation in ((False, "only_first"), (True, True)):
            which = [i for i, h in enumerate(hypotheses) if (length[h] >= room) == cut]
            if not which:
                continue
            pairs = [premises[i] for i in which], [hypotheses[i] for i in which]
            encoded = tokenize(self.tokenizer, *pairs, truncation=truncation, **kwargs)
            for r, i in enumerate(which):
                rows[i] = {key: encoded[key][r] for key in encoded}
            if cut:  # the tokenizer's rule: a pair over the window whose context cannot give enough tokens
                context = tokenize(self.tokenizer, pairs[0], add_special_tokens=False, verbose=False)
                for i, ids, h in zip(which, context["input_ids"], pairs[1]):
                    both[i] = bool(ids) or length[h] > room
        return rows, both


class AlignScoreScorer(Scorer):
    """AlignScore on a registered config (``large``, ``base``: the authors' checkpoints, converted on first
    use) or a converted folder or Hub repo (``model=``)."""

    def __init__(
        self,
        spec: Any,
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
            self.wrapper = AlignScoreWrapper.load(source, revision, self.runtime, name="alignscore")

    def weights(self) -> list[str]:
        return [self.described]

    def steps(self, mode: str) -> tuple[ClaimSteps, list[bool]]:
        """The reference's steps for ``mode``: with ``_sp`` the context's chunks × the claim's sentences, else
        the whole pair; the mode's head; the max over chunks, the mean over sentences. And the list that
        :meth:`AlignScoreWrapper.encode` fills with each distinct pair's "claim cut too"."""
        split, column = mode.endswith("_sp"), list(HEADS).index(mode.removesuffix("_sp"))
        cut_both: list[bool] = []

        def encode(premises: list[str], hypotheses: list[str]) -> list[dict[str, list[int]]]:
            rows, both = self.wrapper.encode(premises, hypotheses)
            cut_both.extend(both)
            return rows

        @torch.inference_mode()
        def head(tensors: dict[str, torch.Tensor]) -> torch.Tensor:
            return self.wrapper.model(**tensors)[:, column]

        steps = ClaimSteps(
            chunks=(lambda docs: [chunk_context(d) for d in docs])
            if split
            else (lambda docs: [[d] for d in docs]),
            parts=sent_tokenize if split else whole_claim,
            encode=encode,
            head=head,
            over_parts="mean",
        )
        return steps, cut_both

    def _score(self, data: dict[str, list], options: dict[str, Any]) -> dict:
        mode = options["mode"]
        steps, cut_both = self.steps(mode)
        n = len(data["predictions"])
        with Progress(total=n, enabled=options["show_progress"], desc=self.name) as progress:
            examples, rows = check_claims(
                self.wrapper, steps, data["predictions"], data["sources"], progress=progress
            )
        result: dict = {
            "scores": [e.score for e in examples],
            "mean_score": mean_of(e.score for e in examples),
        }
        if options["return_details"]:
            result["details"] = [self._details(e, mode) for e in examples]
        self._warn(examples, cut_both, [len(row["input_ids"]) for row in rows])
        return result

    @staticmethod
    def _details(example: CheckedClaim, mode: str) -> dict:
        """One example's explanation: its chunks, claim sentences, the chunk × sentence matrix and each
        sentence's best score (the unsplit modes: one chunk, one sentence)."""
        return {
            "mode": mode,
            "chunks": example.chunks,
            "claim_sentences": example.parts,
            "matrix": [] if example.matrix is None else example.matrix.tolist(),
            "sentence_scores": [] if example.part_scores is None else example.part_scores.tolist(),
        }

    def _warn(self, examples: list[CheckedClaim], cut_both: list[bool], lengths: list[int]) -> None:
        n = len(examples)
        for what, name in (("claim", "predictions"), ("context", "sources")):
            blank = [f"{name}[{i}]" for i, e in enumerate(examples) if e.blank == name]
            if blank:
                warn(
                    f"alignscore: {listed(blank)} {'is' if len(blank) == 1 else 'are'} blank: no {what} to "
                    f"align, so {len(blank)} of {n} examples score NaN and are left out of mean_score (the "
                    "reference crashes on a claim with no sentence)."
                )
        no_sentence = [i for i, e in enumerate(examples) if not e.blank and not e.parts]
        if no_sentence:  # not reached with punkt (a non-blank text has a sentence); kept as the contract
            warn(f"alignscore: the claims of {examples_at(no_sentence)} have no sentence: NaN.")
        window = self.wrapper.window
        cut = [i for i, e in enumerate(examples) if any(lengths[k] >= window for k in e.rows)]
        both = [i for i, e in enumerate(examples) if any(cut_both[k] for k in e.rows)]
        if cut:
            warn(
                f"alignscore: in {examples_at(cut)} a (context chunk, claim sentence) pair reached "
                f"the model's window of {window} tokens and its context was cut, as the reference "
                "does: the end of that chunk is not read (a context of one very long sentence is one "
                "chunk)."
            )
        if both:
            warn(
                f"alignscore: in {examples_at(both)} a claim sentence alone is longer than the "
                "window and was cut too (the reference cuts so its whole batch of 32 pairs; here only "
                "that pair)."
            )
