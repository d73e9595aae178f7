"""InfoLM (Colombo, Clavel & Piantanida, AAAI 2022): compare two texts through a masked language model.

Every word position of a text is masked in turn; the masked LM's predicted vocabulary
distributions, sharpened or softened by a temperature, are averaged with idf weights into
one "bag of distributions" per text, and the prediction's bag ``p`` is compared with the
reference's bag ``r`` by an information measure (:data:`MEASURES`, torchmetrics' names and
sign conventions).

Speed by construction: the masked copies of many texts are packed into each forward pass,
special positions are never run, the vocabulary head is applied only at the masked
position of each copy, and the weighted distributions are summed into one bag per text as
they come, a chunk of examples at a time, so memory does not grow with the number of
examples. The core has no dependency on ``evaluate``.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from ..core.hub import naming_option
from ..core.masked_lm import MaskedLMWrapper
from ..core.progress import Progress
from ..core.resolve import resolve_weight
from ..core.result import mean_of
from ..core.runtime import Runtime, WhereToRun
from ..core.scorer import Scorer
from ..core.spec import ModuleSpec
from ..core.validation import check_inputs, examples_at, is_blank, listed
from ..core.values import plain_scalar
from ..core.warnings import warn
from .measures import check_options, real_number

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..core.model import WrapperArgs

TOP_TOKENS = 10
"""How many tokens ``return_details`` lists per example."""
TEXTS_PER_CHUNK = 64
"""Distinct texts whose bags are held in memory at once (a bag is one float64 row per vocabulary entry)."""


# --------------------------------------------------------------------------------------------------------
# idf weights


@dataclass(frozen=True)
class IdfWeights:
    """Token weights ``idf(t) = ln((N + 1) / (df(t) + 1))`` over a corpus of N texts (torchmetrics' formula).

    ``df(t)`` counts the texts containing token ``t`` (after tokenization and truncation); a token
    never seen gets ``ln(N + 1)``.

    >>> idf = IdfWeights.from_texts([[7, 8], [7, 9]])
    >>> [round(w, 4) for w in idf([7, 8, 5])]
    [0.0, 0.4055, 1.0986]
    """

    weights: Mapping[int, float]
    default: float

    @classmethod
    def from_texts(cls, token_ids: Sequence[Sequence[int]]) -> IdfWeights:
        n = len(token_ids)
        df = Counter(token for ids in token_ids for token in set(ids))
        return cls({t: math.log((n + 1) / (count + 1)) for t, count in df.items()}, math.log(n + 1))

    def __call__(self, ids: Sequence[int]) -> list[float]:
        return [self.weights.get(t, self.default) for t in ids]


UNIFORM = IdfWeights({}, 1.0)
"""Every token weighs 1 (``idf=False``)."""

IdfOption = bool | Sequence[str] | Mapping[str, float]


# --------------------------------------------------------------------------------------------------------
# The masked language model and the bags of distributions


@dataclass(frozen=True)
class _Text:
    """A tokenized text: its ids (with special tokens), the positions that get masked, their weights."""

    ids: list[int]
    positions: list[int]
    weights: list[float]
    truncated: bool = False
    idf_fallback: bool = False
    """All idf weights were 0 (every token occurs in every text of its corpus): weighted uniformly."""
    blank: bool = False
    """The text itself is blank (else no positions means only special tokens, such as ``"[SEP]"``)."""


class InfoLMWrapper(MaskedLMWrapper):
    """The masked-LM engine turning texts into idf-weighted bags of distributions."""

    def __init__(self, model, tokenizer, **common: Unpack[WrapperArgs]):
        super().__init__(model, tokenizer, **common)
        # float64 bags make the measures exact to the last digit; MPS has no float64.
        self.bag_dtype = torch.float32 if self.device.type == "mps" else torch.float64

    def text(self, ids: list[int], truncated: bool, idf: IdfWeights, blank: bool = False) -> _Text:
        """The positions to mask and their weights; none for a ``blank`` text (it scores NaN)."""
        positions = [] if blank else self.maskable_positions(ids)
        weights = idf([ids[j] for j in positions])
        fallback = bool(positions) and sum(weights) == 0
        if fallback:
            weights = [1.0] * len(positions)
        return _Text(ids, positions, weights, truncated, fallback, blank)

    @torch.inference_mode()
    def bags(
        self, texts: Sequence[_Text], temperature: float, done: Callable[[float], None] = lambda share: None
    ) -> torch.Tensor:
        """One weighted bag of distributions per text, ``[len(texts), vocab]`` (NaN rows for texts with no
        words); ``done`` gets the share of the masked copies run after each forward batch."""
        bags = torch.zeros((len(texts), self.vocab_size), dtype=self.bag_dtype, device=self.device)
        # every copy's weight in one flat CPU tensor: text i's copy k is at first[i] + k
        weights = torch.tensor([w for t in texts for w in t.weights], dtype=self.bag_dtype)
        first = torch.tensor([0, *itertools.accumulate(len(t.weights) for t in texts)][:-1], dtype=torch.long)
        batches = self.masked_logits([t.ids for t in texts], [t.positions for t in texts])
        n_copies = sum(len(t.positions) for t in texts)
        for slots, copies, logits in batches:
            # logits / T in the model's precision (one rounding more, of the same size as the logits' own),
            # then softmax in float64: normalised over the whole vocabulary, zero only below e^-745
            probabilities = torch.softmax(logits / temperature, dim=-1, dtype=self.bag_dtype)
            # Σ weight · distribution per text of this batch, as one small matrix product
            here, row_text = slots.unique(return_inverse=True)
            rows = torch.arange(len(slots))
            weight = torch.zeros((len(here), len(rows)), dtype=self.bag_dtype)
            weight[row_text, rows] = weights[first[slots] + copies]
            bags[here.to(self.device)] += weight.to(self.device) @ probabilities
            done(len(slots) / n_copies)
        totals = torch.tensor([sum(t.weights) for t in texts], dtype=self.bag_dtype, device=self.device)
        return bags / totals[:, None]  # 0/0 = NaN for a text with no words


# --------------------------------------------------------------------------------------------------------
# Scoring


def _user_idf(idf: Mapping, tokenizer, window: int, dtype: torch.dtype) -> IdfWeights:
    """``{token (as the tokenizer spells it) or token id: weight}``; unlisted tokens get the largest weight.

    Each text's bag is divided by the sum of its weights (up to ``window`` of them) in ``dtype``: a weight
    that could make that sum overflow, or a positive one below the smallest normal number (its products with
    the probabilities would round to 0), is refused.
    """
    limits, name = torch.finfo(dtype), str(dtype).removeprefix("torch.")
    largest = limits.max / window
    weights = {}
    for token, weight in idf.items():
        token = plain_scalar(token)  # numpy's ints as token ids too
        if isinstance(token, bool) or not isinstance(token, (int, str)):
            raise ValueError(f"idf[{token!r}]: keys must be tokens (str) or token ids (int)")
        if isinstance(token, int) and not 0 <= token < len(tokenizer):
            raise ValueError(
                f"idf[{token!r}]: not a token id of the model's vocabulary (0..{len(tokenizer) - 1})"
            )
        token_id = token if isinstance(token, int) else tokenizer.convert_tokens_to_ids(token)
        if not isinstance(token_id, int) or (isinstance(token, str) and token_id == tokenizer.unk_token_id):
            raise ValueError(f"idf[{token!r}]: not a token of the model's vocabulary")
        weight = real_number(f"idf[{token!r}]", weight)
        if weight < 0:
            raise ValueError(f"idf[{token!r}]={weight} must not be negative")
        if weight > largest:
            raise ValueError(
                f"idf[{token!r}]={weight:g} is too large: the weights of one text (up to {window} tokens) "
                f"must sum to at most the {name} maximum ({limits.max:.3g}), so each at most "
                f"{largest:.3g}; only their ratios matter: scale them down"
            )
        if 0 < weight < limits.smallest_normal:
            raise ValueError(
                f"idf[{token!r}]={weight:g} is below the smallest normal {name} "
                f"({limits.smallest_normal:.3g}): its products with the probabilities would round to 0; "
                "only the ratios of the weights matter: scale them up"
            )
        weights[token_id] = weight
    if not weights:
        raise ValueError("idf is an empty mapping; give weights, True, False or a corpus of texts")
    return IdfWeights(weights, max(weights.values()))


def _best(values: list[float], higher_is_better: bool) -> int | None:
    """Index of the best defined value (NaN never wins; None if all are NaN)."""
    defined = [k for k, v in enumerate(values) if not math.isnan(v)]
    if not defined:
        return None
    pick = max if higher_is_better else min
    return pick(defined, key=lambda k: values[k])


class InfoLMScorer(Scorer):
    """Scores (prediction, references) pairs with InfoLM; the masked LM loads once per process.

    Args:
        spec: the infolm module's declaration (``nlgmetrics.infolm.module.SPEC``).
        model: a key of the registry (default ``bert-base-uncased``, pinned), a Hub repo id or a local
            folder of any masked LM saved with its vocabulary head.
        model_revision: Hub revision for a repo id that is not registered.
        config: the config name the module was loaded with (a registered masked LM), used when ``model`` is
            None.
        runtime, device, dtype, batch_size, max_batch_tokens, allow_tf32, quantize: where and how to run, as
            :class:`~nlgmetrics.core.scorer.Scorer` says (a batch row is a masked copy).
    """

    def __init__(
        self,
        spec: ModuleSpec,
        model: str | None = None,
        *,
        model_revision: str | None = None,
        config: str | None = None,
        runtime: Runtime | None = None,
        **where: Unpack[WhereToRun],
    ):
        name = model or spec.resolve_config(config)
        super().__init__(spec, runtime, config_key=name, **where)
        role = spec.weight_role(name, "model")
        self.source = resolve_weight(name, model_revision, role=role, option="model", given=model is not None)
        self.config = name if name in self.spec.configs and self.source.spec is not None else None
        with naming_option(None if self.source.spec else f"model={name!r}"):
            self.wrapper = InfoLMWrapper.load(self.source.path, self.source.revision, self.runtime, name=name)

    def __repr__(self) -> str:
        return f"InfoLMScorer(model={self.wrapper.name!r})"

    def weights(self) -> list[str]:
        """The masked LM as ``repo@revision``, for result signatures."""
        return [self.source.describe()]

    def resolve_options(self, options: dict) -> dict:
        """The measure with its parameters (``measure`` becomes the :class:`InformationMeasure`, ``alpha``
        and ``beta`` are folded in) and the temperature checked together; ``idf`` checked against the
        vocabulary (a mapping becomes its :class:`IdfWeights`)."""
        measure, temperature = check_options(
            options["measure"], options.pop("alpha"), options.pop("beta"), options["temperature"]
        )
        return {
            **options,
            "measure": measure,
            "temperature": temperature,
            "idf": self._checked_idf(options["idf"]),
        }

    def examples_independent(self, options: dict) -> bool:
        """Not with ``idf=True``: the weights come from the call's own texts, so every example counts."""
        return options["idf"] is not True

    def _checked_idf(self, idf):
        idf = plain_scalar(idf)  # numpy's booleans as Python's: examples_independent asks `is True`
        if isinstance(idf, bool):
            return idf
        if isinstance(idf, Mapping):
            return _user_idf(idf, self.wrapper.tokenizer, self.wrapper.window, self.wrapper.bag_dtype)
        if isinstance(idf, (str, bytes)) or not isinstance(idf, Sequence) or not idf:
            raise ValueError(
                "idf must be True (per side, as torchmetrics), False, a non-empty list of texts (the corpus "
                f"to count document frequencies in) or a mapping token → weight; got {idf!r}"
            )
        return check_inputs({"idf": list(idf)})["idf"]

    def empty_result(self, **options) -> dict:
        """The result for zero examples: empty lists and a NaN mean, the measure and its direction."""
        measure = options["measure"]
        return {
            **super().empty_result(**options),
            "measure": measure.name,
            "higher_is_better": measure.higher_is_better,
        }

    def _idf(self, idf, predictions: list, references: list) -> tuple[IdfWeights, IdfWeights]:
        """The idf weights of each side from the checked ``idf`` option."""
        if idf is True:
            return IdfWeights.from_texts(predictions), IdfWeights.from_texts(references)
        if idf is False:
            return UNIFORM, UNIFORM
        if isinstance(idf, IdfWeights):
            return idf, idf
        weights = IdfWeights.from_texts([ids for ids, _ in self.wrapper.encode(list(idf))])
        return weights, weights

    def _score(self, data: dict[str, list], options: dict) -> dict:
        """Score every example; returns ``{"scores", "mean_score", "measure", "higher_is_better"}`` (+
        ``"details"``).

                With several references an example gets its best score over them (the highest when
                ``higher_is_better``, else the lowest). ``details`` lists per example every reference's
                score, the best one, and the tokens whose probability differs most between the two bags.
                A blank text (empty, or only whitespace, zero-width or control characters) has no bag: its
                example scores NaN (a blank reference among others is skipped), with a warning naming it.
                ``show_progress`` draws a bar over examples that advances after every forward batch.
        """
        chosen, temperature = options["measure"], options["temperature"]
        show_progress, return_details = options["show_progress"], options["return_details"]
        pred_encoded = self.wrapper.encode(data["predictions"])
        ref_encoded = self.wrapper.encode([ref for refs in data["references"] for ref in refs])
        pred_idf, ref_idf = self._idf(
            options["idf"], [ids for ids, _ in pred_encoded], [ids for ids, _ in ref_encoded]
        )
        preds = [
            self.wrapper.text(ids, cut, pred_idf, is_blank(text))
            for (ids, cut), text in zip(pred_encoded, data["predictions"])
        ]
        flat_texts = (ref for example in data["references"] for ref in example)
        flat = iter(
            self.wrapper.text(ids, cut, ref_idf, is_blank(text))
            for (ids, cut), text in zip(ref_encoded, flat_texts)
        )
        refs = [[next(flat) for _ in example] for example in data["references"]]

        n = len(preds)
        scores = [math.nan] * n
        details: list[dict] = [{}] * n
        with Progress(total=n, enabled=show_progress, desc=f"InfoLM {self.wrapper.name}") as progress:
            for chunk in self._chunks(preds, refs):
                self._score_chunk(
                    chunk,
                    preds,
                    refs,
                    chosen,
                    temperature,
                    scores,
                    details,
                    return_details,
                    progress,
                )

        self._warn_about(preds, refs, scores, chosen)
        result: dict = {
            "scores": scores,
            "mean_score": mean_of(scores),
            "measure": chosen.name,
            "higher_is_better": chosen.higher_is_better,
        }
        if return_details:
            result["details"] = details
        return result

    @staticmethod
    def _chunks(preds: list[_Text], refs: list[list[_Text]]) -> Iterator[list[int]]:
        """Example indices in chunks of about TEXTS_PER_CHUNK texts, similar lengths together."""
        order = sorted(range(len(preds)), key=lambda i: (-len(preds[i].ids), i))
        chunk: list[int] = []
        size = 0
        for i in order:
            chunk.append(i)
            size += 1 + len(refs[i])
            if size >= TEXTS_PER_CHUNK:
                yield chunk
                chunk, size = [], 0
        if chunk:
            yield chunk

    def _score_chunk(
        self, chunk, preds, refs, measure, temperature, scores, details, return_details, progress
    ) -> None:
        """Score the examples of ``chunk``, advancing ``progress`` by its examples as each forward batch
        ends."""

        done = progress.per(len(chunk))
        slots: dict[tuple, int] = {}
        texts: list[_Text] = []

        def slot(text: _Text) -> int:
            key = (tuple(text.ids), tuple(text.weights))
            if key not in slots:
                slots[key] = len(texts)
                texts.append(text)
            return slots[key]

        pairs = [(i, k, slot(preds[i]), slot(ref)) for i in chunk for k, ref in enumerate(refs[i])]
        bags = self.wrapper.bags(texts, temperature, done)
        if not any(t.positions for t in texts):
            done(1.0)  # no forward pass: only blank texts
        pred_rows = torch.tensor([p for _, _, p, _ in pairs], device=bags.device)
        ref_rows = torch.tensor([r for _, _, _, r in pairs], device=bags.device)
        values = measure(bags[pred_rows], bags[ref_rows]).tolist()
        per_example: dict[int, list[float]] = {i: [] for i in chunk}
        for (i, _, _, _), value in zip(pairs, values):
            per_example[i].append(value)
        explained: list[tuple[int, int, int]] = []  # (example, prediction's bag, best reference's bag)
        for i, reference_scores in per_example.items():
            best = _best(reference_scores, measure.higher_is_better)
            scores[i] = math.nan if best is None else reference_scores[best]
            if return_details:
                details[i] = {"reference_scores": reference_scores, "best_reference": best, "top_tokens": []}
                if best is not None:
                    explained.append((i, slot(preds[i]), slot(refs[i][best])))
        if explained:
            top = self._top_tokens(bags, [p for _, p, _ in explained], [r for _, _, r in explained])
            for (i, _, _), tokens in zip(explained, top):
                details[i]["top_tokens"] = tokens

    def _top_tokens(
        self, bags: torch.Tensor, pred_rows: list[int], ref_rows: list[int], k: int = TOP_TOKENS
    ) -> list[list[dict]]:
        """For each (prediction, reference) pair of bags, the tokens whose probability differs most between
        them: one ``topk`` over all pairs and one copy back."""
        p = bags[torch.tensor(pred_rows, device=bags.device)]
        r = bags[torch.tensor(ref_rows, device=bags.device)]
        top = (p - r).abs().topk(min(k, p.shape[1]), dim=1).indices
        p, r = p.gather(1, top), r.gather(1, top)
        top, p, r, difference = (t.tolist() for t in (top, p, r, p - r))
        return [
            [
                {"token": name, "prediction": pt, "reference": rt, "difference": dt}
                for name, pt, rt, dt in zip(self.wrapper.token_names(ids), ps, rs, ds)
            ]
            for ids, ps, rs, ds in zip(top, p, r, difference)
        ]

    def _warn_about(self, preds, refs, scores, measure) -> None:
        n = len(scores)
        labelled = [(f"predictions[{i}]", t) for i, t in enumerate(preds)] + [
            (f"references[{i}][{k}]", t) for i, example in enumerate(refs) for k, t in enumerate(example)
        ]
        blank = [label for label, t in labelled if not t.positions and t.blank]
        special = [label for label, t in labelled if not t.positions and not t.blank]
        has_bags = [
            bool(p.positions) and any(r.positions for r in example) for p, example in zip(preds, refs)
        ]
        if blank or special:
            undefined = sum(not ok for ok in has_bags)
            reasons = [
                f"{listed(labels)} have no words ({why})"
                for labels, why in (
                    (blank, "empty, or only whitespace, zero-width or control characters"),
                    (special, "only special tokens such as [SEP]"),
                )
                if labels
            ]
            warn(
                f"infolm: {'; '.join(reasons)}, so no bag of distributions; {undefined} of {n} examples "
                "score NaN and are left out of mean_score (an empty reference among others is skipped)."
            )
        degenerate = [i for i, s in enumerate(scores) if not math.isfinite(s) and has_bags[i]]
        if degenerate:
            warn(
                f"infolm: {measure.name} is not finite for {examples_at(degenerate)}: one bag gives zero "
                "probability to tokens the other needs (e.g. a very low temperature). The exact value "
                "(±inf or NaN) is reported, not replaced as torchmetrics' nan_to_num does, and left out "
                "of mean_score."
            )
        truncated = [label for label, t in labelled if t.truncated]
        if truncated:
            model = self.source.spec.repo_id if self.source.spec else self.source.path
            warn(
                f"infolm: {listed(truncated)} are longer than the window of {model} ({self.wrapper.window} "
                "tokens) and were truncated, as the reference implementation does: their end is not "
                "scored."
            )
        fallback = [label for label, t in labelled if t.idf_fallback]
        if fallback:
            warn(
                f"infolm: every token of {listed(fallback)} occurs in every text of its idf corpus, so "
                "all its idf weights are 0 (e.g. one example with idf=True); it was weighted uniformly (as "
                "idf=False) instead of scoring a constant 0 as torchmetrics does."
            )
