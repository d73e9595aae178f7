"""The regression (R) aligner of CTC (Deng et al. 2021, §3.5): a BLEURT-style BERT regressor.

The model reads ``[CLS] b [SEP] a [SEP]`` (the context first, as ctc_score feeds it, both
truncated longest-first to 512 tokens) and predicts the aggregated alignment of ``a`` directly:
``score = classifier(pooler_output)``, a raw, unbounded number. It has no per-token scores, so
``aggregation`` and ``remove_stopwords`` do not apply and details list no tokens. Texts are not
cleaned (the reference does not clean them either).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import torch
from transformers import AutoModelForSequenceClassification

from ...core.hub import load_model_and_tokenizer
from ...core.tokenize import tokenize
from .base import (
    NAN_ALIGNMENT,
    Aligner,
    AlignerSource,
    Alignment,
    ProgressCallback,
    blank_pairs,
    no_progress,
    window_overlap,
)

MAX_LENGTH = 512


def load_regressor(source: AlignerSource):
    """A converted one-output ``BertForSequenceClassification`` and its tokenizer."""
    model, tokenizer = load_model_and_tokenizer(
        AutoModelForSequenceClassification,
        source.source,
        source.revision,
        head="trained regression head (an R aligner converted by nlgmetrics convert ctc)",
    )
    if model.config.num_labels != 1:
        raise ValueError(
            f"{source.source!r} is not a regressor: it has {model.config.num_labels} labels, not 1"
        )
    return model, tokenizer


class RegressionAligner(Aligner):
    """R aligner over a converted ``BertForSequenceClassification`` with one output (see ``hub_models/``)."""

    kind = "R"

    load_weights = staticmethod(load_regressor)
    max_length = MAX_LENGTH

    def reads(self) -> str:
        return f"{self.max_length} tokens for the pair"

    def _rows(
        self, pairs: list[tuple[str, str]], long_inputs: str
    ) -> tuple[list[dict], list[int], list[bool]]:
        """Encoded ``(b, a)`` rows, the pair each row belongs to, and which pairs were truncated."""
        a_lengths = [
            len(ids)
            for ids in tokenize(self.tokenizer, [a for a, _ in pairs], add_special_tokens=False)["input_ids"]
        ]
        b_lengths = [
            len(ids)
            for ids in tokenize(self.tokenizer, [b for _, b in pairs], add_special_tokens=False)["input_ids"]
        ]
        too_long = [la + lb + 3 > MAX_LENGTH for la, lb in zip(a_lengths, b_lengths)]
        # window mode slides over b when a leaves room for at least half a window of it
        sliding = [
            long_inputs == "window" and t and la + 3 < MAX_LENGTH // 2 for t, la in zip(too_long, a_lengths)
        ]
        keys = ("input_ids", "token_type_ids")
        rows, owners = [], []
        plain = [k for k, s in enumerate(sliding) if not s]
        if plain:
            encoded = tokenize(
                self.tokenizer,
                [pairs[k][1] for k in plain],
                [pairs[k][0] for k in plain],
                truncation="longest_first",
                max_length=MAX_LENGTH,
            )
            rows += [{key: encoded[key][r] for key in keys if key in encoded} for r in range(len(plain))]
            owners += plain
        windowed = [k for k, s in enumerate(sliding) if s]
        if windowed:
            encoded = tokenize(
                self.tokenizer,
                [pairs[k][1] for k in windowed],
                [pairs[k][0] for k in windowed],
                truncation="only_first",
                max_length=MAX_LENGTH,
                stride=window_overlap(MAX_LENGTH // 2),
                return_overflowing_tokens=True,
            )
            for r, k in enumerate(encoded["overflow_to_sample_mapping"]):
                rows.append({key: encoded[key][r] for key in keys if key in encoded})
                owners.append(windowed[k])
        return rows, owners, [t and not s for t, s in zip(too_long, sliding)]

    @torch.inference_mode()
    def _predict(self, rows: list[dict], done: Callable[[float], None] = lambda share: None) -> list[float]:
        """The regressor's output per row; ``done`` gets the share of rows run after each batch."""
        return self.per_row(
            rows,
            lambda inputs: self.model(**inputs).logits[:, 0].float(),
            lambda n: done(n / len(rows)),
            name=self.name,
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
        kept = [i for i in range(len(pairs)) if not blank[i]]
        progress(len(pairs) - len(kept))  # nothing to run for these: NaN
        if not kept:
            return results
        rows, owners, truncated = self._rows([pairs[i] for i in kept], long_inputs)
        values = self._predict(rows, lambda share: progress(share * len(kept)))
        best: dict[int, float] = {}
        for k, value in zip(owners, values):  # best window wins
            best[k] = max(best.get(k, value), value)
        for k, i in enumerate(kept):
            results[i] = Alignment([], [], best[k], truncated[k])
        return results
