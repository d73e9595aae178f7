"""The embedding-matching (E) aligner of CTC (Deng et al. 2021, §3.5).

Each token of ``a`` is scored by its largest cosine similarity with the tokens of ``b``,
using contextual embeddings from one hidden layer of a pretrained encoder. This is
exactly what CTC's ``BERTAligner`` computes through bert_score (no idf, special tokens
excluded, texts stripped, RoBERTa-style tokenizers with a prefix space, truncation to
the model window), but batched: the texts of a call are tokenized in one call, every
distinct text is embedded once, in length-sorted padded batches, and the similarities of
many pairs come from one padded batched matrix product with one copy back to the host.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import torch
from transformers import AutoModel, GPT2Tokenizer, RobertaTokenizer

from ...core.batching import to_device
from ...core.hub import load_model, load_tokenizer, model_window
from ...core.tokenize import encode_within_window, special_token_layout, tokenize
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

_PAIRS_PER_CHUNK_PER_BATCH = 8
"""A chunk (texts whose embeddings are held at once) has this many forward batches' worth of pairs, or
of tokens with ``max_batch_tokens``."""
SIMILARITY_ELEMENTS = 2**25
"""Padded floats (both sides' embeddings and their similarities) per batched similarity product, at most."""


def _wants_prefix_space(tokenizer) -> bool:
    """bert_score encodes GPT-2/RoBERTa byte-level BPE input with a prefix space."""
    return isinstance(tokenizer, (GPT2Tokenizer, RobertaTokenizer))


def load_encoder(source: AlignerSource):
    """Tokenizer (with a prefix space for byte-level BPE) and encoder cut after the chosen layer, as loaded
    (core puts it where and how it runs)."""
    tokenizer = load_tokenizer(source.source, source.revision)
    if _wants_prefix_space(tokenizer):
        tokenizer = load_tokenizer(source.source, source.revision, add_prefix_space=True)
    model = load_model(AutoModel, source.source, source.revision)
    if getattr(model.config, "is_encoder_decoder", False):
        model = model.get_encoder()
    n_layers = model.config.num_hidden_layers
    layer = n_layers if source.layer is None else source.layer
    if not 0 <= layer <= n_layers:
        raise ValueError(f"layer {layer} is out of range for {source.source!r}, which has {n_layers} layers")
    # Run only the layers we need when the encoder exposes them (as bert_score does);
    # otherwise read the layer from hidden_states.
    layers = getattr(getattr(model, "encoder", None), "layer", None)
    use_hidden_states = not isinstance(layers, torch.nn.ModuleList)
    if not use_hidden_states:
        model.encoder.layer = layers[:layer]
    return model, tokenizer, layer, use_hidden_states


class EmbeddingAligner(Aligner):
    """E aligner over a Hugging Face encoder; weights shared through the process-wide cache."""

    kind = "E"

    load_weights = staticmethod(load_encoder)

    def __init__(
        self,
        model,
        tokenizer,
        layer: int,
        use_hidden_states: bool,
        *,
        name: str,
        **common: Unpack[WrapperArgs],
    ):
        super().__init__(model, tokenizer, name=f"{name} (layer {layer})", **common)
        self.layer = layer
        self.use_hidden_states = use_hidden_states
        self.max_length = model_window(tokenizer, model.config)
        self.n_prefix, self.n_suffix = special_token_layout(tokenizer)
        self._token_text: dict[int, str] = {}

    def _encode(self, texts: Sequence[str]) -> tuple[list[list[int]], list[bool]]:
        """Token ids with special tokens cut to the model window, and which texts were cut."""
        encoded = encode_within_window(self.tokenizer, texts, self.max_length, self.n_suffix)
        return [ids for ids, _ in encoded], [cut for _, cut in encoded]

    def _windows(self, texts: Sequence[str]) -> list[list[list[int]]]:
        """Each text as overlapping windows that fit the model (one window when it fits)."""
        encoded = tokenize(
            self.tokenizer,
            list(texts),
            truncation=True,
            max_length=self.max_length,
            stride=window_overlap(self.max_length - self.n_prefix - self.n_suffix),
            return_overflowing_tokens=True,
        )
        windows: list[list[list[int]]] = [[] for _ in texts]
        for row, text_index in zip(encoded["input_ids"], encoded["overflow_to_sample_mapping"]):
            windows[text_index].append(row)
        return windows

    def _own(self, row: Sequence[int]) -> int:
        """How many of a row's tokens are the text's own (special tokens dropped)."""
        return max(0, len(row) - self.n_prefix - self.n_suffix)

    @torch.inference_mode()
    def _embed(
        self, ids: list[list[int]], progress: ProgressCallback = no_progress, pairs: int = 0
    ) -> tuple[torch.Tensor, list[int]]:
        """Unit-normalised embeddings of each row's own tokens (special tokens dropped), all rows in one
        ``[tokens, dim]`` tensor on the device, and where each row starts in it; ``progress`` is told the
        share of the chunk's ``pairs`` done after each forward batch.

        Per batch: the rows' own positions are gathered with one index built on the CPU; no per-row work
        on the device.
        """
        parts, starts, offset = [], [0] * len(ids), 0

        def forward(batch: list[int], inputs: dict[str, torch.Tensor]) -> torch.Tensor:
            result = self.model(**inputs, output_hidden_states=self.use_hidden_states)
            return result.hidden_states[self.layer] if self.use_hidden_states else result.last_hidden_state

        for batch, hidden in self.in_batches(ids, forward):
            width = hidden.shape[1]
            positions = []
            for r, i in enumerate(batch):
                starts[i] = offset + len(positions)
                positions += range(r * width + self.n_prefix, r * width + self.n_prefix + self._own(ids[i]))
            offset += len(positions)
            index = to_device(torch.tensor(positions, dtype=torch.long), self.device)
            own = hidden.reshape(-1, hidden.shape[-1])[index].float()
            parts.append(own / own.norm(dim=-1, keepdim=True))
            progress(len(batch) / len(ids) * pairs)
        return torch.cat(parts), starts

    def _token_texts(self, ids: Sequence[int]) -> list[str]:
        """Each token decoded on its own, as CTC reports tokens (``' the'`` for RoBERTa)."""
        missing = [i for i in set(ids) if i not in self._token_text]
        for i, text in zip(missing, self.tokenizer.batch_decode([[i] for i in missing])):
            self._token_text[i] = text
        return [self._token_text[i] for i in ids]

    def _chunks(self, order: list[int], rows_of: Callable[[int], list[tuple[int, ...]]]) -> list[list[int]]:
        """Pairs in chunks whose embeddings are held at once: ``8 × batch_size`` pairs, or with
        ``max_batch_tokens`` pairs whose distinct rows hold up to ``8 × max_batch_tokens`` tokens."""
        if self.max_batch_tokens is None:
            size = self.batch_size * _PAIRS_PER_CHUNK_PER_BATCH
            return [order[start : start + size] for start in range(0, len(order), size)]
        limit = self.max_batch_tokens * _PAIRS_PER_CHUNK_PER_BATCH
        chunks: list[list[int]] = []
        seen: set[tuple[int, ...]] = set()
        tokens = 0
        for i in order:
            rows = set(rows_of(i))
            more = sum(map(len, rows - seen))
            if not chunks or tokens + more > limit:
                chunks.append([])
                seen, tokens, more = set(), 0, sum(map(len, rows))
            chunks[-1].append(i)
            seen |= rows
            tokens += more
        return chunks

    def _similarity_groups(self, lengths: list[tuple[int, int]], dim: int) -> list[list[int]]:
        """Pairs (by their ``(len a, len b)``) in groups for one padded batched product each: longest
        contexts first, each group within :data:`SIMILARITY_ELEMENTS` padded floats (at least one pair)."""
        groups: list[list[int]] = []
        widest = (0, 0)
        for k in sorted(range(len(lengths)), key=lambda k: (-lengths[k][1], -lengths[k][0], k)):
            la, lb = lengths[k]
            if groups:
                wa, wb = max(widest[0], la), widest[1]
                if (len(groups[-1]) + 1) * (wa * wb + (wa + wb) * dim) <= SIMILARITY_ELEMENTS:
                    groups[-1].append(k)
                    widest = (wa, wb)
                    continue
            groups.append([k])
            widest = (la, lb)
        return groups

    @torch.inference_mode()
    def _best_similarities(
        self, embedded: torch.Tensor, a_index: list[list[int]], b_index: list[list[int]]
    ) -> list[list[float]]:
        """For each pair, every token of ``a``'s largest cosine similarity with the tokens of ``b``.

        ``a_index``/``b_index`` give each pair's rows of ``embedded``. Per group of pairs: both sides are
        gathered into padded ``[pairs, length, dim]`` tensors with one index each, one batched product,
        padded ``b`` positions set to ``-inf`` before the max, one copy back.
        """
        out: list[list[float]] = [[] for _ in a_index]
        lengths = [(len(a), len(b)) for a, b in zip(a_index, b_index)]
        for group in self._similarity_groups(lengths, embedded.shape[-1]):
            wa = max(lengths[k][0] for k in group)
            wb = max(lengths[k][1] for k in group)
            a = torch.tensor([a_index[k] + [0] * (wa - len(a_index[k])) for k in group])
            b = torch.tensor([b_index[k] + [0] * (wb - len(b_index[k])) for k in group])
            b_lengths = torch.tensor([lengths[k][1] for k in group])
            padding = (torch.arange(wb) >= b_lengths[:, None])[:, None, :]
            a, b, padding = (to_device(t, self.device) for t in (a, b, padding))
            similarity = torch.bmm(embedded[a], embedded[b].transpose(1, 2)).masked_fill_(padding, -math.inf)
            # cosines of unit vectors lie in [-1, 1]; float32 rounding of the norms and the product can
            # give 1.0000001, so the scores are clamped to the range they provably have
            best = similarity.max(dim=2).values.clamp_(-1.0, 1.0).cpu()
            for row, k in zip(best, group):
                out[k] = row[: lengths[k][0]].tolist()
        return out

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
        stripped = [(a.strip(), b.strip()) for a, b in pairs]
        blank = blank_pairs(pairs) if blank is None else blank
        # Pairs sharing a context sit together (in the same chunk), so each distinct text is embedded once.
        order = sorted((i for i in range(len(pairs)) if not blank[i]), key=lambda i: stripped[i][::-1])
        # one tokenizer call for every text of the call (and one for the windows of the contexts)
        texts = list(dict.fromkeys(t for i in order for t in stripped[i]))
        slot = {text: k for k, text in enumerate(texts)}
        ids, truncated = self._encode(texts) if texts else ([], [])
        own_rows = [tuple(row) for row in ids]
        windowed: dict[str, list[tuple[int, ...]]] = {}
        if long_inputs == "window":
            contexts = list(dict.fromkeys(stripped[i][1] for i in order))
            if contexts:
                windowed = {b: [tuple(w) for w in ws] for b, ws in zip(contexts, self._windows(contexts))}

        def b_rows(b: str) -> list[tuple[int, ...]]:
            return windowed.get(b, [own_rows[slot[b]]])

        def rows_of(i: int) -> list[tuple[int, ...]]:
            a, b = stripped[i]
            return [own_rows[slot[a]], *b_rows(b)]

        progress(len(pairs) - len(order))  # nothing to run for these: NaN
        for chunk in self._chunks(order, rows_of):
            # identical rows (a text's first window and the text itself) are embedded once
            rows: dict[tuple[int, ...], int] = {}
            for i in chunk:
                for row in rows_of(i):
                    rows.setdefault(row, len(rows))
            distinct = list(rows)
            embedded, starts = self._embed([list(row) for row in distinct], progress, len(chunk))

            def index(row: tuple[int, ...], starts=starts, rows=rows) -> list[int]:
                start = starts[rows[row]]
                return list(range(start, start + self._own(row)))

            scored, a_index, b_index = [], [], []
            for i in chunk:
                a, b = stripped[i]
                a_tokens = index(own_rows[slot[a]])
                b_tokens = [j for row in b_rows(b) for j in index(row)]
                cut = truncated[slot[a]] or (truncated[slot[b]] and b not in windowed)
                if not a_tokens or not b_tokens:
                    results[i] = Alignment([], [], math.nan, cut)
                    continue
                scored.append((i, cut))
                a_index.append(a_tokens)
                b_index.append(b_tokens)
            for (i, cut), scores in zip(scored, self._best_similarities(embedded, a_index, b_index)):
                row = ids[slot[stripped[i][0]]]
                tokens = self._token_texts(row[self.n_prefix : len(row) - self.n_suffix])
                results[i] = Alignment(
                    tokens, scores, aggregate(tokens, scores, aggregation, remove_stopwords), cut
                )
        return results
