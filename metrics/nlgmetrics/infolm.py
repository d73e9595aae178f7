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

>>> measure = information_measure("fisher_rao_distance")
>>> p = torch.tensor([[0.5, 0.5, 0.0]], dtype=torch.float64)
>>> r = torch.tensor([[0.5, 0.0, 0.5]], dtype=torch.float64)
>>> round(measure(p, r).item(), 4), measure.higher_is_better
(2.0944, False)
>>> information_measure("alpha_divergence")
Traceback (most recent call last):
...
ValueError: measure='alpha_divergence' needs alpha: a real number other than 0 and 1 (the paper uses 0.75)
"""

from __future__ import annotations

import math
import numbers
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import torch
from transformers import AutoModelForMaskedLM, AutoTokenizer

from . import runtime
from .alignment import source_of
from .embedding import encode_within_window, model_window
from .registry import WEIGHTS
from .validation import check_inputs

DEFAULT_MODEL = "bert-base-uncased"
"""Key of :data:`nlgmetrics.registry.WEIGHTS`: the paper's and torchmetrics' masked LM."""
DEFAULT_MEASURE = "kl_divergence"
DEFAULT_TEMPERATURE = 0.25
"""torchmetrics' default (sharpening); the paper's experiments use 1.0 (its Appendix B.5)."""
TOP_TOKENS = 10
"""How many tokens ``return_details`` lists per example."""
TEXTS_PER_CHUNK = 64
"""Distinct texts whose bags are held in memory at once (a bag is one float64 row per vocabulary entry)."""


# --------------------------------------------------------------------------------------------------------
# Information measures


@dataclass(frozen=True)
class MeasureInfo:
    """What the card and the output say about one measure."""

    higher_is_better: bool
    parameters: tuple[str, ...]
    formula: str


MEASURES: dict[str, MeasureInfo] = {
    "kl_divergence": MeasureInfo(True, (), "Σ r·log(p/r) = −KL(r‖p) ≤ 0"),
    "alpha_divergence": MeasureInfo(True, ("alpha",), "(1 − Σ r^α p^(1−α)) / (α(α−1)) ≤ 0"),
    "beta_divergence": MeasureInfo(False, ("beta",), "ab_divergence with α = 1 (the paper's γ-divergence)"),
    "ab_divergence": MeasureInfo(
        False,
        ("alpha", "beta"),
        "log Σ r^(α+β) / (β(α+β)) + log Σ p^(α+β) / (α(α+β)) − log Σ r^α p^β / (αβ)",
    ),
    "renyi_divergence": MeasureInfo(False, ("alpha",), "log Σ r^α p^(1−α) / (α−1)"),
    "l1_distance": MeasureInfo(False, (), "Σ |r − p|"),
    "l2_distance": MeasureInfo(False, (), "√Σ (r − p)²"),
    "l_infinity_distance": MeasureInfo(False, (), "max |r − p|"),
    "fisher_rao_distance": MeasureInfo(False, (), "2·arccos Σ √(r·p) ∈ [0, π]"),
}
"""torchmetrics' measures with its sign conventions (p: prediction bag, r: reference bag)."""

_DOMAIN = {
    "alpha_divergence": ("alpha", "a real number other than 0 and 1 (the paper uses 0.75)"),
    "beta_divergence": ("beta", "a real number other than 0 and -1 (the paper uses 0.5 or 3)"),
    "ab_divergence": (
        "alpha and beta",
        "real numbers with alpha, beta and alpha + beta not 0 (the paper uses 3 and 0.25)",
    ),
    "renyi_divergence": ("alpha", "a real number other than 1"),
}


def _sum_of_powers(r: torch.Tensor, a: float, p: torch.Tensor, b: float) -> torch.Tensor:
    """Σ r^a·p^b over the vocabulary entries where either bag is positive (the union of supports)."""
    terms = r.pow(a) * p.pow(b)
    return torch.where((r > 0) | (p > 0), terms, torch.zeros_like(terms)).sum(-1)


@dataclass(frozen=True)
class InformationMeasure:
    """One measure with its parameters; call it on prediction and reference bags ``[..., vocab]``.

    Values are exact, never patched: a bag that gives zero probability to a token the other
    needs makes KL ``-inf`` (torchmetrics' ``nan_to_num`` would turn it into ``-3.4e38``), and
    an undefined value stays NaN.
    """

    name: str
    alpha: float | None = None
    beta: float | None = None

    @property
    def higher_is_better(self) -> bool:
        return MEASURES[self.name].higher_is_better

    def __call__(self, p: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
        name, alpha, beta = self.name, self.alpha, self.beta
        if name == "kl_divergence":
            return (torch.xlogy(r, p) - torch.xlogy(r, r)).sum(-1)
        if name == "alpha_divergence":
            return (1 - _sum_of_powers(r, alpha, p, 1 - alpha)) / (alpha * (alpha - 1))
        if name in ("ab_divergence", "beta_divergence"):
            alpha = 1.0 if name == "beta_divergence" else alpha
            s = alpha + beta
            return (
                _sum_of_powers(r, s, p, 0).log() / (beta * s)
                + _sum_of_powers(p, s, r, 0).log() / (alpha * s)
                - _sum_of_powers(r, alpha, p, beta).log() / (alpha * beta)
            )
        if name == "renyi_divergence":
            return _sum_of_powers(r, alpha, p, 1 - alpha).log() / (alpha - 1)
        if name == "fisher_rao_distance":
            return 2 * torch.acos(torch.clamp(torch.sqrt(p * r).sum(-1), 0, 1))
        order = {"l1_distance": 1, "l2_distance": 2, "l_infinity_distance": math.inf}[name]
        return torch.linalg.vector_norm(r - p, ord=order, dim=-1)


def _real(name: str, value) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ValueError(f"{name}={value!r} must be a finite real number")
    return float(value)


def information_measure(
    name: str = DEFAULT_MEASURE, alpha: float | None = None, beta: float | None = None
) -> InformationMeasure:
    """The measure ``name`` with its parameters checked (parameters it does not use are ignored).

    Unlike torchmetrics, integers are accepted for ``alpha`` and ``beta`` (``alpha=2`` means 2.0).
    """
    if name not in MEASURES:
        raise ValueError(f"measure={name!r} is not one of {', '.join(MEASURES)}")
    used = MEASURES[name].parameters
    given = {"alpha": alpha, "beta": beta}
    if any(given[p] is None for p in used):
        what, domain = _DOMAIN[name]
        raise ValueError(f"measure={name!r} needs {what}: {domain}")
    a = _real("alpha", alpha) if "alpha" in used else None
    b = _real("beta", beta) if "beta" in used else None
    invalid = {
        "alpha_divergence": a in (0.0, 1.0),
        "beta_divergence": b in (0.0, -1.0),
        "ab_divergence": 0.0 in (a, b) or (a is not None and b is not None and a + b == 0.0),
        "renyi_divergence": a == 1.0,
    }.get(name, False)
    if invalid:
        what, domain = _DOMAIN[name]
        raise ValueError(f"measure={name!r} got alpha={alpha!r}, beta={beta!r}; {what} must be {domain}")
    return InformationMeasure(name, a, b)


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


def _load_masked_lm(source: str, revision: str | None, device: torch.device, dtype: torch.dtype):
    tokenizer = runtime.from_pretrained(AutoTokenizer.from_pretrained, source, revision)
    if tokenizer.mask_token_id is None:
        raise ValueError(f"{source!r} has no mask token: InfoLM needs a masked language model")
    model, info = runtime.from_pretrained(
        AutoModelForMaskedLM.from_pretrained, source, revision, output_loading_info=True
    )
    prefix = model.base_model_prefix + "."
    head_missing = [key for key in info["missing_keys"] if not key.startswith(prefix)]
    if head_missing:
        raise ValueError(
            f"{source!r} has no trained masked-LM head (missing {', '.join(sorted(head_missing)[:3])}); "
            "InfoLM needs a checkpoint saved with its vocabulary head (e.g. a *ForMaskedLM model)"
        )
    return model.to(device=device, dtype=dtype).eval(), tokenizer


class MaskedLanguageModel:
    """A masked LM that turns texts into bags of distributions (weights come from the process cache)."""

    def __init__(self, model, tokenizer, *, batch_size: int, name: str):
        self.model = model
        self.tokenizer = tokenizer
        self.batch_size = batch_size
        self.name = name
        self.device = next(model.parameters()).device
        self.window = model_window(tokenizer, model.config)
        self.special_ids = {tokenizer.pad_token_id, tokenizer.sep_token_id, tokenizer.cls_token_id} - {None}
        head = model.get_output_embeddings()
        self.vocab_size = head.weight.shape[0] if head is not None else model.config.vocab_size
        # float64 bags make the measures exact to the last digit; MPS has no float64.
        self.bag_dtype = torch.float32 if self.device.type == "mps" else torch.float64

    @classmethod
    def load(
        cls,
        model: str | None = None,
        revision: str | None = None,
        *,
        device=None,
        dtype=None,
        batch_size: int | None = None,
    ) -> MaskedLanguageModel:
        """``model``: a key of the registry (default ``bert-base-uncased``), a Hub repo id or a local folder."""
        name = model or DEFAULT_MODEL
        if name in WEIGHTS:
            if revision is not None:
                raise ValueError(
                    f"{name!r} is registered at a pinned revision; model_revision is for other repos"
                )
            source = source_of(WEIGHTS[name], "MLM")
            name, revision = source.source, source.revision
        device = runtime.select_device(device)
        dtype = runtime.resolve_dtype(dtype, device)
        key = ("MLM", name, revision, str(device), str(dtype))
        loaded, tokenizer = runtime.cached(key, lambda: _load_masked_lm(name, revision, device, dtype))
        return cls(
            loaded,
            tokenizer,
            batch_size=batch_size or 4 * runtime.default_batch_size(device),
            name=model or DEFAULT_MODEL,
        )

    def encode(self, texts: Sequence[str]) -> list[tuple[list[int], bool]]:
        """(token ids with special tokens, was it cut) per text, cut to the model window."""
        return encode_within_window(self.tokenizer, texts, self.window)

    def text(self, ids: list[int], truncated: bool, idf: IdfWeights) -> _Text:
        positions = [j for j, t in enumerate(ids) if t not in self.special_ids]
        weights = idf([ids[j] for j in positions])
        fallback = bool(positions) and sum(weights) == 0
        if fallback:
            weights = [1.0] * len(positions)
        return _Text(ids, positions, weights, truncated, fallback)

    @contextmanager
    def _head_only_at(self, columns: torch.Tensor) -> Iterator[None]:
        """Make the model apply its vocabulary head to one position per row only (the masked one)."""
        rows = torch.arange(len(columns), device=columns.device)

        def keep_masked_position(module, args, output):
            if isinstance(output, tuple):  # a base model called with return_dict=False
                return (output[0][rows, columns].unsqueeze(1), *output[1:])
            output["last_hidden_state"] = output["last_hidden_state"][rows, columns].unsqueeze(1)
            return output

        handle = self.model.base_model.register_forward_hook(keep_masked_position)
        try:
            yield
        finally:
            handle.remove()

    def _masked_batches(self, texts: Sequence[_Text]) -> Iterator[tuple[list[int], list[int], list[float]]]:
        """(text index, masked position, weight) for every masked copy, longest texts first, batch by batch."""
        order = sorted(range(len(texts)), key=lambda i: (-len(texts[i].ids), i))
        copies = [(i, j, w) for i in order for j, w in zip(texts[i].positions, texts[i].weights)]
        for start in range(0, len(copies), self.batch_size):
            yield tuple(map(list, zip(*copies[start : start + self.batch_size])))

    @torch.inference_mode()
    def bags(self, texts: Sequence[_Text], temperature: float) -> torch.Tensor:
        """One weighted bag of distributions per text, ``[len(texts), vocab]`` (NaN rows for texts with no words)."""
        bags = torch.zeros((len(texts), self.vocab_size), dtype=self.bag_dtype, device=self.device)
        lengths = torch.tensor([len(t.ids) for t in texts])
        padded = torch.full((len(texts), int(lengths.max())), self.tokenizer.pad_token_id or 0)
        for k, t in enumerate(texts):
            padded[k, : len(t.ids)] = torch.tensor(t.ids)
        for slots, positions, weights in self._masked_batches(texts):
            rows, slots = torch.arange(len(slots)), torch.tensor(slots)
            width = int(lengths[slots].max())
            input_ids = padded[slots, :width]  # one masked copy per row
            input_ids[rows, torch.tensor(positions)] = self.tokenizer.mask_token_id
            attention = (torch.arange(width) < lengths[slots, None]).long()
            columns = torch.tensor(positions, device=self.device)
            with self._head_only_at(columns):
                output = self.model(
                    input_ids=input_ids.to(self.device), attention_mask=attention.to(self.device)
                )
            # logits / T in the model's precision (one rounding more, of the same size as the logits' own),
            # then softmax in float64: normalised over the whole vocabulary, zero only below e^-745
            probabilities = torch.softmax(output.logits[:, 0] / temperature, dim=-1, dtype=self.bag_dtype)
            # Σ weight · distribution per text of this batch, as one small matrix product
            here, row_text = slots.unique(return_inverse=True)
            weight = torch.zeros((len(here), len(rows)), dtype=self.bag_dtype)
            weight[row_text, rows] = torch.tensor(weights, dtype=self.bag_dtype)
            here = here.to(self.device)
            bags[here] += weight.to(self.device) @ probabilities
        totals = torch.tensor([sum(t.weights) for t in texts], dtype=self.bag_dtype, device=self.device)
        return bags / totals[:, None]  # 0/0 = NaN for a text with no words

    def token_names(self, ids: Sequence[int]) -> list[str]:
        return self.tokenizer.convert_ids_to_tokens(list(ids))


# --------------------------------------------------------------------------------------------------------
# Scoring


def check_options(
    measure: str = DEFAULT_MEASURE,
    alpha: float | None = None,
    beta: float | None = None,
    temperature: float = DEFAULT_TEMPERATURE,
) -> tuple[InformationMeasure, float]:
    """The measure and the temperature, checked (a ValueError names the bad option)."""
    temperature = _real("temperature", temperature)
    if temperature <= 0:
        raise ValueError(f"temperature={temperature!r} must be positive")
    return information_measure(measure, alpha, beta), temperature


def _user_idf(idf: Mapping, tokenizer) -> IdfWeights:
    """``{token (as the tokenizer spells it) or token id: weight}``; unlisted tokens get the largest weight."""
    weights = {}
    for token, weight in idf.items():
        token_id = token if isinstance(token, int) else tokenizer.convert_tokens_to_ids(token)
        if not isinstance(token_id, int) or (isinstance(token, str) and token_id == tokenizer.unk_token_id):
            raise ValueError(f"idf[{token!r}]: not a token of the model's vocabulary")
        weight = _real(f"idf[{token!r}]", weight)
        if weight < 0:
            raise ValueError(f"idf[{token!r}]={weight} must not be negative")
        weights[token_id] = weight
    if not weights:
        raise ValueError("idf is an empty mapping; give weights, True, False or a corpus of texts")
    return IdfWeights(weights, max(weights.values()))


def _listed(labels: list[str], limit: int = 8) -> str:
    return ", ".join(labels[:limit]) + (f" and {len(labels) - limit} more" if len(labels) > limit else "")


def _best(values: list[float], higher_is_better: bool) -> int | None:
    """Index of the best defined value (NaN never wins; None if all are NaN)."""
    defined = [k for k, v in enumerate(values) if not math.isnan(v)]
    if not defined:
        return None
    pick = max if higher_is_better else min
    return pick(defined, key=lambda k: values[k])


class InfoLMScorer:
    """Scores (prediction, references) pairs with InfoLM; the masked LM loads once per process.

    Args:
        model: a key of the registry (default ``bert-base-uncased``, pinned), a Hub repo id or a local
            folder of any masked LM saved with its vocabulary head.
        model_revision: Hub revision for a repo id that is not registered.
        device: ``"cuda"``, ``"cuda:1"``, ``"mps"``, ``"cpu"``; default cuda, then mps, then cpu.
        dtype: ``float32`` (default), or ``float16``/``bfloat16`` on accelerators.
        batch_size: masked copies per forward pass (default 64 on cpu, 256 on accelerators).
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        model_revision: str | None = None,
        device=None,
        dtype=None,
        batch_size: int | None = None,
    ):
        self.lm = MaskedLanguageModel.load(
            model, model_revision, device=device, dtype=dtype, batch_size=batch_size
        )

    def __repr__(self) -> str:
        return f"InfoLMScorer(model={self.lm.name!r})"

    def _idf(self, idf: IdfOption, predictions: list, references: list) -> tuple[IdfWeights, IdfWeights]:
        if idf is True:
            return IdfWeights.from_texts(predictions), IdfWeights.from_texts(references)
        if idf is False or idf is None:
            return UNIFORM, UNIFORM
        if isinstance(idf, Mapping):
            weights = _user_idf(idf, self.lm.tokenizer)
            return weights, weights
        if isinstance(idf, (str, bytes)) or not isinstance(idf, Sequence) or not idf:
            raise ValueError(
                "idf must be True (per side, as torchmetrics), False, a non-empty list of texts (the corpus "
                f"to count document frequencies in) or a mapping token → weight; got {idf!r}"
            )
        corpus = check_inputs({"idf": list(idf)})["idf"]
        weights = IdfWeights.from_texts([ids for ids, _ in self.lm.encode(corpus)])
        return weights, weights

    def score(
        self,
        predictions: Sequence[str],
        references: Sequence[str | Sequence[str]],
        *,
        measure: str = DEFAULT_MEASURE,
        alpha: float | None = None,
        beta: float | None = None,
        temperature: float = DEFAULT_TEMPERATURE,
        idf: IdfOption = True,
        show_progress: bool = False,
        return_details: bool = False,
    ) -> dict:
        """Score every example; returns ``{"scores", "mean_score", "measure", "higher_is_better"}`` (+ ``"details"``).

        With several references an example gets its best score over them (the highest when
        ``higher_is_better``, else the lowest). ``details`` lists per example every reference's
        score, the best one, and the tokens whose probability differs most between the two bags.
        """
        data = check_inputs({"predictions": predictions, "references": references})
        chosen, temperature = check_options(measure, alpha, beta, temperature)
        pred_encoded = self.lm.encode(data["predictions"])
        ref_encoded = self.lm.encode([ref for refs in data["references"] for ref in refs])
        pred_idf, ref_idf = self._idf(idf, [ids for ids, _ in pred_encoded], [ids for ids, _ in ref_encoded])

        preds = [self.lm.text(ids, cut, pred_idf) for ids, cut in pred_encoded]
        flat = iter(self.lm.text(ids, cut, ref_idf) for ids, cut in ref_encoded)
        refs = [[next(flat) for _ in example] for example in data["references"]]

        n = len(preds)
        scores = [math.nan] * n
        details: list[dict] = [{}] * n
        with runtime.progress_bar(total=n, enabled=show_progress, desc=f"InfoLM {self.lm.name}") as bar:
            for chunk in self._chunks(preds, refs):
                self._score_chunk(chunk, preds, refs, chosen, temperature, scores, details, return_details)
                bar.update(len(chunk))

        self._warn_about(preds, refs, scores, chosen)
        finite = [s for s in scores if math.isfinite(s)]
        result: dict = {
            "scores": scores,
            "mean_score": sum(finite) / len(finite) if finite else math.nan,
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

    def _score_chunk(self, chunk, preds, refs, measure, temperature, scores, details, return_details) -> None:
        slots: dict[tuple, int] = {}
        texts: list[_Text] = []

        def slot(text: _Text) -> int:
            key = (tuple(text.ids), tuple(text.weights))
            if key not in slots:
                slots[key] = len(texts)
                texts.append(text)
            return slots[key]

        pairs = [(i, k, slot(preds[i]), slot(ref)) for i in chunk for k, ref in enumerate(refs[i])]
        bags = self.lm.bags(texts, temperature)
        pred_rows = torch.tensor([p for _, _, p, _ in pairs], device=bags.device)
        ref_rows = torch.tensor([r for _, _, _, r in pairs], device=bags.device)
        values = measure(bags[pred_rows], bags[ref_rows]).tolist()
        per_example: dict[int, list[float]] = {i: [] for i in chunk}
        for (i, _, _, _), value in zip(pairs, values):
            per_example[i].append(value)
        for i, reference_scores in per_example.items():
            best = _best(reference_scores, measure.higher_is_better)
            scores[i] = math.nan if best is None else reference_scores[best]
            if return_details:
                details[i] = {
                    "reference_scores": reference_scores,
                    "best_reference": best,
                    "top_tokens": []
                    if best is None
                    else self._top_tokens(bags, slot(preds[i]), slot(refs[i][best])),
                }

    def _top_tokens(self, bags: torch.Tensor, pred_row: int, ref_row: int, k: int = TOP_TOKENS) -> list[dict]:
        """The tokens whose probability differs most between the prediction's and the reference's bag."""
        p, r = bags[pred_row], bags[ref_row]
        top = (p - r).abs().topk(min(k, len(p))).indices.tolist()
        names = self.lm.token_names(top)
        return [
            {
                "token": name,
                "prediction": p[t].item(),
                "reference": r[t].item(),
                "difference": (p[t] - r[t]).item(),
            }
            for name, t in zip(names, top)
        ]

    def _warn_about(self, preds, refs, scores, measure) -> None:
        n = len(scores)
        labelled = [(f"predictions[{i}]", t) for i, t in enumerate(preds)] + [
            (f"references[{i}][{k}]", t) for i, example in enumerate(refs) for k, t in enumerate(example)
        ]
        blank = [label for label, t in labelled if not t.positions]
        has_bags = [
            bool(p.positions) and any(r.positions for r in example) for p, example in zip(preds, refs)
        ]
        if blank:
            undefined = sum(not ok for ok in has_bags)
            runtime.warn(
                f"infolm: {_listed(blank)} have no words (empty or whitespace-only), so no bag of "
                f"distributions; {undefined} of {n} examples score NaN and are left out of mean_score (an empty "
                "reference among others is skipped)."
            )
        degenerate = [str(i) for i, s in enumerate(scores) if not math.isfinite(s) and has_bags[i]]
        if degenerate:
            runtime.warn(
                f"infolm: {measure.name} is not finite for examples {_listed(degenerate)}: one bag gives "
                "zero probability to tokens the other needs (e.g. a very low temperature). The exact value "
                "(±inf or NaN) is reported, not replaced as torchmetrics' nan_to_num does, and left out of mean_score."
            )
        truncated = [label for label, t in labelled if t.truncated]
        if truncated:
            runtime.warn(
                f"infolm: {_listed(truncated)} are longer than the model window ({self.lm.window} tokens) "
                "and were truncated, as the reference implementation does: their end is not scored."
            )
        fallback = [label for label, t in labelled if t.idf_fallback]
        if fallback:
            runtime.warn(
                f"infolm: every token of {_listed(fallback)} occurs in every text of its idf corpus, so "
                "all its idf weights are 0 (e.g. one example with idf=True); it was weighted uniformly (as "
                "idf=False) instead of scoring a constant 0 as torchmetrics does."
            )


def infolm(
    predictions: Sequence[str],
    references: Sequence[str | Sequence[str]],
    *,
    model: str | None = None,
    model_revision: str | None = None,
    device=None,
    dtype=None,
    batch_size: int | None = None,
    **options,
) -> dict:
    """Functional form: ``infolm(preds, refs, measure="fisher_rao_distance", temperature=1.0)``.

    ``options`` are :meth:`InfoLMScorer.score`'s; the model comes from the process-wide cache.
    """
    scorer = InfoLMScorer(
        model, model_revision=model_revision, device=device, dtype=dtype, batch_size=batch_size
    )
    return scorer.score(predictions, references, **options)
