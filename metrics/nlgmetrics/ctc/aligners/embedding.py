"""The embedding-matching (E) aligner of CTC (Deng et al. 2021, §3.5).

Each token of ``a`` is scored by its largest cosine similarity with the tokens of ``b``,
using contextual embeddings from one hidden layer of a pretrained encoder. This is
exactly what CTC's ``BERTAligner`` computes through bert_score (no idf, special tokens
excluded, texts stripped, RoBERTa-style tokenizers with a prefix space, truncation to
the model window), but batched: every distinct text of a call is embedded once, in
length-sorted padded batches.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import torch
from transformers import AutoModel, AutoTokenizer, GPT2Tokenizer, RobertaTokenizer

from ...core.batching import padded_batches
from ...core.hub import encode_within_window, from_pretrained, model_window, special_token_layout
from ...core.validation import is_blank
from .base import (
    NAN_ALIGNMENT,
    Aligner,
    AlignerSource,
    Alignment,
    ProgressCallback,
    aggregate,
    pair_progress,
    window_overlap,
)

_PAIRS_PER_CHUNK_PER_BATCH = 8


def _scaled(report: ProgressCallback, pairs: int) -> Callable[[float], None]:
    """Report a share of ``pairs`` pairs."""
    return lambda share: report(share * pairs)


def _wants_prefix_space(tokenizer) -> bool:
    """bert_score encodes GPT-2/RoBERTa byte-level BPE input with a prefix space."""
    return isinstance(tokenizer, (GPT2Tokenizer, RobertaTokenizer))


def load_encoder(source: AlignerSource, device: torch.device, dtype: torch.dtype):
    """Tokenizer (with a prefix space for byte-level BPE) and encoder cut after the chosen layer."""
    tokenizer = from_pretrained(AutoTokenizer.from_pretrained, source.source, source.revision)
    if _wants_prefix_space(tokenizer):
        tokenizer = from_pretrained(
            AutoTokenizer.from_pretrained, source.source, source.revision, add_prefix_space=True
        )
    model = from_pretrained(AutoModel.from_pretrained, source.source, source.revision)
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
    model = model.to(device=device, dtype=dtype).eval()
    return model, tokenizer, layer, use_hidden_states


class EmbeddingAligner(Aligner):
    """E aligner over a Hugging Face encoder; weights shared through the process-wide cache."""

    kind = "E"

    load_weights = staticmethod(load_encoder)

    def __init__(self, model, tokenizer, layer: int, use_hidden_states: bool, *, batch_size: int, name: str):
        super().__init__(model, tokenizer, batch_size=batch_size, name=f"{name} (layer {layer})")
        self.layer = layer
        self.use_hidden_states = use_hidden_states
        self.max_length = model_window(tokenizer, model.config)
        self.n_prefix, self.n_suffix = special_token_layout(tokenizer)
        self._token_text: dict[int, str] = {}

    def _encode(self, texts: Sequence[str]) -> tuple[list[list[int]], list[bool]]:
        """Token ids with special tokens cut to the model window, and which texts were cut."""
        encoded = encode_within_window(self.tokenizer, texts, self.max_length)
        return [ids for ids, _ in encoded], [cut for _, cut in encoded]

    def _windows(self, texts: Sequence[str]) -> list[list[list[int]]]:
        """Each text as overlapping windows that fit the model (one window when it fits)."""
        encoded = self.tokenizer(
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

    @torch.inference_mode()
    def _embed(
        self, ids: list[list[int]], done: Callable[[float], None] = lambda share: None
    ) -> list[torch.Tensor]:
        """Unit-normalised embeddings of each text's own tokens (special tokens dropped); ``done`` gets
        the share of the rows embedded after each forward batch."""
        out: list[torch.Tensor | None] = [None] * len(ids)
        rows = [{"input_ids": row} for row in ids]
        pad = {"input_ids": self.tokenizer.pad_token_id or 0}
        for batch, inputs in padded_batches(rows, self.batch_size, pad, self.device):
            result = self.model(**inputs, output_hidden_states=self.use_hidden_states)
            hidden = result.hidden_states[self.layer] if self.use_hidden_states else result.last_hidden_state
            hidden = hidden.float()
            hidden = hidden / hidden.norm(dim=-1, keepdim=True)
            for r, i in enumerate(batch):
                out[i] = hidden[r, self.n_prefix : len(ids[i]) - self.n_suffix]
            done(len(batch) / len(ids))
        return out  # type: ignore[return-value]

    def _token_texts(self, ids: Sequence[int]) -> list[str]:
        """Each token decoded on its own, as CTC reports tokens (``' the'`` for RoBERTa)."""
        missing = [i for i in set(ids) if i not in self._token_text]
        for i, text in zip(missing, self.tokenizer.batch_decode([[i] for i in missing])):
            self._token_text[i] = text
        return [self._token_text[i] for i in ids]

    def _chunk_embeddings(
        self, texts: list[str], contexts: set[str], long_inputs: str, done: Callable[[float], None]
    ):
        """Embed a chunk's texts once each: per text its ids, its own embeddings, whether it was cut,
        and (``long_inputs="window"``) the embeddings of all its windows when it serves as a context.
        ``done`` gets the share of the chunk's forward work finished after each batch."""
        ids, truncated = self._encode(texts)
        windowed = [t for t in texts if t in contexts] if long_inputs == "window" else []
        rows: dict[tuple[int, ...], int] = {}  # identical rows (a text's first window) are embedded once
        own = [rows.setdefault(tuple(row), len(rows)) for row in ids]
        windows = (
            [[rows.setdefault(tuple(w), len(rows)) for w in ws] for ws in self._windows(windowed)]
            if windowed
            else []
        )
        embedded = self._embed([list(row) for row in rows], done)
        window_embeddings = {
            text: torch.cat([embedded[j] for j in js]) for text, js in zip(windowed, windows)
        }
        return ids, [embedded[j] for j in own], truncated, window_embeddings

    def align(
        self,
        pairs: Sequence[tuple[str, str]],
        *,
        aggregation: str,
        remove_stopwords: bool,
        show_progress: bool = False,
        long_inputs: str = "truncate",
        progress: ProgressCallback | None = None,
    ) -> list[Alignment]:
        results: list[Alignment] = [NAN_ALIGNMENT] * len(pairs)
        stripped = [(a.strip(), b.strip()) for a, b in pairs]
        # Pairs sharing a context sit in the same chunk, so each distinct text is embedded once.
        order = sorted(
            (i for i, (a, b) in enumerate(stripped) if not (is_blank(a) or is_blank(b))),
            key=lambda i: stripped[i][::-1],
        )
        chunk_size = self.batch_size * _PAIRS_PER_CHUNK_PER_BATCH
        desc = f"E {self.name}"
        with pair_progress(len(pairs), progress=progress, show_progress=show_progress, desc=desc) as report:
            report(len(pairs) - len(order))
            for start in range(0, len(order), chunk_size):
                chunk = order[start : start + chunk_size]
                texts = list(dict.fromkeys(t for i in chunk for t in stripped[i]))
                contexts = {stripped[i][1] for i in chunk}
                ids, own, truncated, windowed = self._chunk_embeddings(
                    texts, contexts, long_inputs, _scaled(report, len(chunk))
                )
                slot = {text: k for k, text in enumerate(texts)}
                for i in chunk:
                    a, b = stripped[i]
                    emb_a = own[slot[a]]
                    emb_b = windowed.get(b, own[slot[b]])
                    cut = truncated[slot[a]] or (truncated[slot[b]] and b not in windowed)
                    if len(emb_a) == 0 or len(emb_b) == 0:
                        results[i] = Alignment([], [], math.nan, cut)
                        continue
                    scores = (emb_a @ emb_b.T).max(dim=1).values.tolist()
                    tokens = self._token_texts(
                        ids[slot[a]][self.n_prefix : len(ids[slot[a]]) - self.n_suffix]
                    )
                    results[i] = Alignment(
                        tokens, scores, aggregate(tokens, scores, aggregation, remove_stopwords), cut
                    )
        return results
