"""The discriminative (D) aligner of CTC (Deng et al. 2021, §3.5 and Appendix A).

A token classifier (RoBERTa-large, or ALBERT-xlarge for ``D-mix-albert``) reads the pair
``<s> a </s></s> b </s>`` and labels each word of ``a`` *aligned* with ``b`` (label 0) or
*hallucinated* (label 1); a word's score is P(aligned). Step by step as ctc_score's
``DiscriminativeAligner``, but batched across pairs:

1. both texts are cleaned like CTC's ``text_clean`` with cleantext 1.1.3 (curly quotes
   straightened, whitespace runs collapsed, lower-cased, newlines kept);
2. ``a`` is cut to its first 256 token ids (``<s>`` included) and decoded back with the
   tokenization-space clean-up of the transformers 4.x the checkpoints were made with, and the
   special-token strings are removed;
3. the pair is encoded with only ``b`` truncated, to 512 tokens;
4. the sub-word pieces of each whitespace word are merged by the space-marker rule (``Ġ`` for
   RoBERTa, ``▁`` for ALBERT): their hidden states are summed, then the classifier is applied once
   per word.

>>> clean_text("He said “Hi”\\n\\tThere   you are")
'he said "hi"\\n there you are'
>>> space_marker_groups(["he", "llo", "Ġwor", "ld", "Ġ!"], "Ġ")
[[1, 2], [3, 4], [5]]
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import torch
from transformers import AutoModelForTokenClassification

from ...core.batching import to_device
from ...core.hub import load_model_and_tokenizer
from ...core.tokenize import tokenize
from .base import (
    NAN_ALIGNMENT,
    Aligner,
    AlignerSource,
    Alignment,
    ProgressCallback,
    aggregate,
    blank_pairs,
    no_progress,
    window_overlap,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ...core.model import WrapperArgs

MAX_LENGTH = 512
INPUT_CUT = MAX_LENGTH // 2
_QUOTES = (("“", '"'), ("”", '"'), ("’", "'"), ("‘", "'"))
_TOKENIZATION_SPACES = (
    (" .", "."),
    (" ?", "?"),
    (" !", "!"),
    (" ,", ","),
    (" ' ", "'"),
    (" n't", "n't"),
    (" 'm", "'m"),
    (" 's", "'s"),
    (" 've", "'ve"),
    (" 're", "'re"),
)
"""transformers 4.x ``clean_up_tokenization``, on by default when the D checkpoints were trained."""


def clean_text(text: str) -> str:
    """CTC's ``text_clean`` as run with cleantext 1.1.3 (whitespace runs → one space, lower-case)."""
    for curly, straight in _QUOTES:
        text = text.replace(curly, straight)
    text = text.replace("\n", "<newline>")
    text = re.sub(r"\s+", " ", text).strip().lower()
    return text.replace("<newline>", "\n").strip()


def clean_up_tokenization_spaces(text: str) -> str:
    """Remove the spaces a decode leaves before punctuation and contractions (``"it 's ."`` → ``"it's."``)."""
    for spaced, joined in _TOKENIZATION_SPACES:
        text = text.replace(spaced, joined)
    return text


def space_marker_groups(pieces: Sequence[str], marker: str) -> list[list[int]]:
    """Group sub-word pieces into words: a piece starting with ``marker`` opens a new word.

    Indices count from 1, the position after ``<s>``; the first piece always opens a word.
    """
    groups: list[list[int]] = []
    for i, piece in enumerate(pieces, start=1):
        if not groups or piece.startswith(marker):
            groups.append([i])
        else:
            groups[-1].append(i)
    return groups


def offset_groups(offsets: Sequence[tuple[int, int]], text: str) -> list[list[int]] | None:
    """Group pieces by the whitespace word their characters fall in; a whitespace-only piece (a
    newline inside ``a``) joins the word before. For text the marker rule cannot split."""
    spans = [m.span() for m in re.finditer(r"\S+", text)]
    groups: list[list[int]] = [[] for _ in spans]
    word = 0
    for i, (start, end) in enumerate(offsets, start=1):
        if end == start or text[start:end].strip():
            while word + 1 < len(spans) and start >= spans[word + 1][0]:
                word += 1
        groups[word].append(i)
    return groups if all(groups) else None


def load_classifier(source: AlignerSource):
    """A converted ``*ForTokenClassification`` checkpoint with two labels (aligned, hallucinated) and its
    tokenizer."""
    model, tokenizer = load_model_and_tokenizer(
        AutoModelForTokenClassification,
        source.source,
        source.revision,
        head="trained token-classification head (a D aligner converted by nlgmetrics convert ctc)",
    )
    if model.config.num_labels != 2:
        raise ValueError(
            f"{source.source!r} is not a D aligner: its classifier has {model.config.num_labels} labels, "
            "not 2 (aligned, hallucinated)"
        )
    return model, tokenizer


class DiscriminativeAligner(Aligner):
    """D aligner over a converted ``*ForTokenClassification`` checkpoint (see ``hub_models/``)."""

    kind = "D"

    load_weights = staticmethod(load_classifier)

    max_length = MAX_LENGTH

    def reads(self) -> str:
        return f"the first {INPUT_CUT} tokens of the scored text, {self.max_length} for the pair"

    def __init__(self, model, tokenizer, **common: Unpack[WrapperArgs]):
        super().__init__(model, tokenizer, **common)
        self.aligned_label = (model.config.label2id or {}).get("ALIGNED", 0)
        pieces = tokenizer.convert_ids_to_tokens(
            tokenize(tokenizer, "a b", add_special_tokens=False)["input_ids"]
        )
        self.marker = pieces[-1][0]
        self.special_strings = [
            t for t in (tokenizer.bos_token, tokenizer.eos_token, tokenizer.unk_token) if t
        ]

    def prepare_input(self, texts: Sequence[str]) -> tuple[list[str], list[bool]]:
        """Cleaned ``a`` texts cut to 256 token ids and decoded back (steps 1-2), and which were cut."""
        encoded = tokenize(self.tokenizer, list(texts), verbose=False)["input_ids"]
        prepared = []
        for ids in encoded:
            text = self.tokenizer.decode(ids[:INPUT_CUT], clean_up_tokenization_spaces=False)
            text = clean_up_tokenization_spaces(text)
            for special in self.special_strings:
                text = text.replace(special, "")
            prepared.append(text.replace("  ", " ").strip(" "))
        return prepared, [len(ids) > INPUT_CUT for ids in encoded]

    def word_groups(self, texts: Sequence[str]) -> list[list[list[int]] | None]:
        """Per text, the positions (after ``<s>``) of each word's pieces, from one tokenizer call for all
        texts; None for a text with no words or over the model window."""
        if not texts:
            return []
        encoded = tokenize(self.tokenizer, list(texts), return_offsets_mapping=True, verbose=False)
        out: list[list[list[int]] | None] = []
        for text, ids, offsets in zip(texts, encoded["input_ids"], encoded["offset_mapping"]):
            words = text.split()
            if not words or len(ids) > MAX_LENGTH:
                out.append(None)
                continue
            groups = space_marker_groups(self.tokenizer.convert_ids_to_tokens(ids)[1:-1], self.marker)
            out.append(groups if len(groups) == len(words) else offset_groups(offsets[1:-1], text))
        return out

    @torch.inference_mode()
    def _word_probabilities(
        self,
        rows: list[dict],
        groups: list[list[list[int]]],
        done: Callable[[float], None] = lambda share: None,
    ) -> list[torch.Tensor]:
        """P(aligned) for each word of each encoded pair; ``done`` gets the share of rows run after each
        batch.

                Per batch: the word index of every piece is built on the CPU, the pieces' hidden states are
                summed into words with one ``index_add_``, and the classifier and softmax run once over all
                the batch's words, with one copy back: no per-example work on the device. A batch's copy back
                waits until the next batch is queued, so the host prepares batch k+1 while the device runs k.
        """
        encoder, classifier = self.model.base_model, self.model.classifier

        def forward(batch: list[int], inputs: dict[str, torch.Tensor]) -> torch.Tensor:
            width = inputs["input_ids"].shape[1]
            positions, words, counts = [], [], []
            for r, i in enumerate(batch):
                for group in groups[i]:
                    positions += [r * width + p for p in group]
                    words += [len(counts)] * len(group)
                    counts.append(len(group))
            hidden = encoder(**inputs).last_hidden_state
            flat = hidden.reshape(-1, hidden.shape[-1])
            index, word_index = (to_device(torch.tensor(v), self.device) for v in (positions, words))
            features = flat.new_zeros((len(counts), flat.shape[-1])).index_add_(0, word_index, flat[index])
            return torch.softmax(classifier(features).float(), dim=-1)[:, self.aligned_label]

        sizes = [len(words) for words in groups]
        return self.per_row(
            rows, forward, lambda n: done(n / len(rows)), name=self.name, sizes=sizes, with_batch=True
        )

    def _encode_pairs(self, texts: list[str], contexts: list[str]):
        """Pair encodings with only the context truncated; every overflow window is returned."""
        if not texts:
            return {"input_ids": [], "overflow_to_sample_mapping": []}
        return tokenize(
            self.tokenizer,
            texts,
            contexts,
            truncation="only_second",
            max_length=MAX_LENGTH,
            stride=window_overlap(MAX_LENGTH // 2),
            return_overflowing_tokens=True,
        )

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
        results: list[Alignment] = [NAN_ALIGNMENT] * len(pairs)
        blank = blank_pairs(pairs) if blank is None else blank
        candidates = [i for i in range(len(pairs)) if not blank[i]]
        cleaned = {i: (clean_text(pairs[i][0]), clean_text(pairs[i][1])) for i in candidates}
        texts, cut = self.prepare_input([cleaned[i][0] for i in candidates]) if candidates else ([], [])
        examples = []  # (pair index, prepared a, was a cut, word groups); no words → NaN
        for i, text, was_cut, groups in zip(candidates, texts, cut, self.word_groups(texts)):
            if groups is not None:
                examples.append((i, text, was_cut, groups))
        encoded = self._encode_pairs([e[1] for e in examples], [cleaned[e[0]][1] for e in examples])
        windows = encoded["overflow_to_sample_mapping"]
        rows, owners = [], []  # truncate: the first window of each pair; window: all of them
        for r, k in enumerate(windows):
            if long_inputs == "window" or not owners or owners[-1] != k:
                rows.append(
                    {key: encoded[key][r] for key in ("input_ids", "token_type_ids") if key in encoded}
                )
                owners.append(k)
        progress(len(pairs) - len(examples))  # nothing to run for these: NaN
        probabilities = self._word_probabilities(
            rows, [examples[k][3] for k in owners], lambda share: progress(share * len(examples))
        )
        best: dict[int, torch.Tensor] = {}
        for k, p in zip(owners, probabilities):  # best window wins, word by word
            best[k] = p if k not in best else torch.maximum(best[k], p)
        windows_of = Counter(windows)
        for k, (i, text, was_cut, _) in enumerate(examples):
            words, scores = text.split(), best[k].tolist()
            context_cut = long_inputs != "window" and windows_of[k] > 1
            score = aggregate(words, scores, aggregation, remove_stopwords)
            results[i] = Alignment(words, scores, score, was_cut or context_cut)
        return results
