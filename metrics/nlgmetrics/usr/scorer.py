"""USR's three models and the overall score, exact against the released code, batched.

* USR-MLM: ``<s> line </s>``, the last :data:`MLM_WINDOW` ids kept, every position but the first
  and the last of that window masked alone; the score is the mean natural-log probability of the
  true tokens (the released ``-CrossEntropy``). The masked copies of many examples share each
  forward pass and the vocabulary head runs only at the masked position (the shared engine
  :class:`~nlgmetrics.core.masked_lm.MaskedLMWrapper`).
* USR-DR-c / DR-f: ``<s> a </s></s> b </s>`` cut to :data:`DR_MAX_LENGTH` tokens with transformers
  2.1.1's ``longest_first``, P(label 1) of a 2-label classifier, many pairs per forward pass.
* USR: the released regression (:func:`~nlgmetrics.usr.regression.usr_score`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from ..core.hub import naming_option
from ..core.masked_lm import MaskedLMWrapper
from ..core.model import ModelWrapper
from ..core.progress import Progress
from ..core.resolve import ResolvedWeight, resolve_weight
from ..core.result import mean_of
from ..core.runtime import Runtime, WhereToRun
from ..core.scorer import Scorer
from ..core.spec import ModuleSpec
from ..core.tokenize import tokenize
from ..core.validation import is_blank, listed
from ..core.warnings import warn
from .options import SUB_METRICS
from .preprocess import DR_MAX_LENGTH, MLM_WINDOW, ModelInputs, longest_first, model_inputs, require_spacy
from .regression import usr_score
from .weights import usr_weight_name

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..core.model import WrapperArgs


def pair_layout(tokenizer) -> tuple[list[int], list[int], list[int]]:
    """The special tokens a tokenizer puts before, between and after a pair (``<s>``, ``</s></s>``,
    ``</s>``)."""
    a = tokenize(tokenizer, "hello", add_special_tokens=False)["input_ids"]
    b = tokenize(tokenizer, "world", add_special_tokens=False)["input_ids"]
    full = tokenize(tokenizer, "hello", "world")["input_ids"]
    for start in range(len(full)):
        if full[start : start + len(a)] == a:
            for middle_end in range(start + len(a), len(full)):
                if full[middle_end : middle_end + len(b)] == b:
                    end = middle_end + len(b)
                    return full[:start], full[start + len(a) : middle_end], full[end:]
    raise ValueError(f"cannot locate the two texts among the special tokens of {type(tokenizer).__name__}")


class SequenceClassifierWrapper(ModelWrapper):
    """A 2-label ``*ForSequenceClassification`` from the process-wide cache: P(label 1) of text pairs."""

    cache_kind = "SEQUENCE-CLASSIFIER"
    auto_class = "AutoModelForSequenceClassification"
    head = "trained sequence-classification head"

    def __init__(self, model, tokenizer, **common: Unpack[WrapperArgs]):
        super().__init__(model, tokenizer, **common)
        self.prefix, self.middle, self.suffix = pair_layout(tokenizer)
        self.n_special = len(self.prefix) + len(self.middle) + len(self.suffix)

    @classmethod
    def load_weights(cls, source: str, revision: str | None) -> tuple:
        model, tokenizer = super().load_weights(source, revision)
        if model.config.num_labels != 2:
            raise ValueError(f"{source!r} has {model.config.num_labels} labels; a USR DR model has 2")
        return model, tokenizer

    def encode_pair(self, a: str, b: str, max_length: int = DR_MAX_LENGTH) -> tuple[list[int], bool]:
        """``<s> a </s></s> b </s>`` within ``max_length`` (2.1.1's longest_first), and whether it was cut."""
        ids_a = tokenize(self.tokenizer, a, add_special_tokens=False)["input_ids"]
        ids_b = tokenize(self.tokenizer, b, add_special_tokens=False)["input_ids"]
        cut_a, cut_b = longest_first(ids_a, ids_b, max_length - self.n_special)
        cut = len(cut_a) + len(cut_b) < len(ids_a) + len(ids_b)
        return [*self.prefix, *cut_a, *self.middle, *cut_b, *self.suffix], cut

    @torch.inference_mode()
    def positive_probabilities(self, rows: Sequence[list[int]], done=lambda n: None) -> list[float]:
        """P(label 1) per row of token ids; ``done(k)`` after each forward pass of ``k`` rows."""

        def positive(tensors: dict[str, torch.Tensor]) -> list[float]:
            return torch.softmax(self.model(**tensors).logits.float(), dim=-1)[:, 1].tolist()

        return self.per_row(rows, positive, done, name=self.name or "usr")


@dataclass
class _Example:
    inputs: ModelInputs
    blank: tuple[str, ...]
    """The fields of this example with nothing to read."""

    def defined(self, part: str) -> bool:
        needs = {"mlm": ("predictions", "sources"), "dr_c": ("predictions", "sources", "contexts")}
        return not set(needs.get(part, ("predictions", "contexts"))) & set(self.blank)


class USRScorer(Scorer):
    """Scores (response, dialog history, fact) triples with USR; each model loads once per process.

    Args:
        spec: the usr module's declaration (``nlgmetrics.usr.module.SPEC``).
        mlm, dr_c, dr_f: a registered weight name, a Hub repo id or a folder replacing the registered
            (converted, released) model of that sub-metric.
        runtime, device, dtype, batch_size, max_batch_tokens, allow_tf32, quantize: where and how to run, as
            :class:`~nlgmetrics.core.scorer.Scorer` says (a batch row is a masked copy for USR-MLM, a pair for
            DR).
    """

    def __init__(
        self,
        spec: ModuleSpec,
        mlm: str | None = None,
        dr_c: str | None = None,
        dr_f: str | None = None,
        *,
        config: str | None = None,
        runtime: Runtime | None = None,
        **where: Unpack[WhereToRun],
    ):
        require_spacy()  # the optional dependency first, before any weights load
        config = spec.resolve_config(config)
        super().__init__(spec, runtime, config_key=config, **where)
        given = {"mlm": mlm, "dr_c": dr_c, "dr_f": dr_f}
        self.config = None if any(given.values()) else config
        self.sources: dict[str, ResolvedWeight] = {
            part: resolve_weight(
                usr_weight_name(part, config) if given[part] is None else given[part],
                role=spec.weight_role(config, part),
                option=part,
                given=given[part] is not None,
            )
            for part in SUB_METRICS
        }
        custom = {
            part: None if self.sources[part].spec else f"{part}={given[part]!r}" for part in SUB_METRICS
        }
        mlm_source = self.sources["mlm"]
        with naming_option(custom["mlm"]):
            self.wrapper_mlm = MaskedLMWrapper.load(
                mlm_source.path, mlm_source.revision, self.runtime, name="USR-MLM"
            )
        self.wrappers_dr: dict[str, SequenceClassifierWrapper] = {}
        for part in ("dr_c", "dr_f"):
            with naming_option(custom[part]):
                self.wrappers_dr[part] = SequenceClassifierWrapper.load(
                    self.sources[part].path, self.sources[part].revision, self.runtime, name=f"USR-{part}"
                )

    def __repr__(self) -> str:
        return f"USRScorer({', '.join(f'{p}={s.name!r}' for p, s in self.sources.items())})"

    def weights(self) -> list[str]:
        """Each model as ``part:repo@revision``, for result signatures."""
        return [f"{part}:{source.describe()}" for part, source in self.sources.items()]

    def empty_result(self, **options) -> dict:
        result = super().empty_result(**options)
        for part in (*SUB_METRICS, "usr"):
            result[part], result[f"mean_{part}"] = [], math.nan
        return result

    # ---- the sub-metrics --------------------------------------------------------------------------

    def mlm_windows(self, lines: Sequence[str]) -> list[list[int]]:
        """``<s> line </s>`` ids (never truncated by the tokenizer), then the last MLM_WINDOW of them."""
        encoded = tokenize(self.wrapper_mlm.tokenizer, list(lines), add_special_tokens=True, verbose=False)[
            "input_ids"
        ]
        return [ids[-MLM_WINDOW:] for ids in encoded]

    def mlm_scores(self, windows: Sequence[list[int]], done=lambda n: None) -> list[list[float]]:
        """Log-probability of the true token at every position 1..L-2 of each window, masked alone."""
        positions = [list(range(1, len(ids) - 1)) for ids in windows]
        out = [[math.nan] * len(p) for p in positions]
        for texts, copies, logits in self.wrapper_mlm.masked_logits(windows, positions):
            columns = torch.tensor([positions[i][k] for i, k in zip(texts.tolist(), copies.tolist())])
            true = torch.tensor([windows[i][j] for i, j in zip(texts.tolist(), columns.tolist())])
            log_probs = torch.log_softmax(logits.float(), dim=-1)
            picked = log_probs[torch.arange(len(true)), true.to(log_probs.device)].tolist()
            for i, k, value in zip(texts.tolist(), copies.tolist(), picked):
                out[i][k] = value
            done(len(texts))
        return out

    # ---- scoring ----------------------------------------------------------------------------------

    def _score(self, data: dict[str, list], options: dict) -> dict:
        """Score every example; returns ``mlm``, ``dr_c``, ``dr_f``, ``usr`` (one float per example), their
        ``mean_*``, and ``scores`` / ``mean_score`` = ``usr`` (+ ``details``).

        A blank response, history or fact (empty, or only whitespace, tags or control characters) makes
        the sub-metrics that read it NaN (and ``usr``), with one warning naming the fields.
        """
        examples = []
        for response, history, fact in zip(data["predictions"], data["sources"], data["contexts"]):
            inputs = model_inputs(response, history, fact)
            blank = tuple(
                name
                for name, raw, text in (
                    ("predictions", response, inputs.response),
                    ("sources", history, inputs.context),
                    ("contexts", fact, inputs.fact),
                )
                if is_blank(raw) or not text
            )
            examples.append(_Example(inputs, blank))
        n = len(examples)
        mlm_rows = [i for i, e in enumerate(examples) if e.defined("mlm")]
        dr_rows = {part: [i for i, e in enumerate(examples) if e.defined(part)] for part in ("dr_c", "dr_f")}
        windows = self.mlm_windows([examples[i].inputs.mlm for i in mlm_rows])
        pairs = {
            part: [
                self.wrappers_dr[part].encode_pair(
                    examples[i].inputs.dr_c_a if part == "dr_c" else examples[i].inputs.dr_f_a,
                    examples[i].inputs.dr_b,
                )
                for i in rows
            ]
            for part, rows in dr_rows.items()
        }
        work = sum(len(w) - 2 for w in windows) + sum(len(p) for p in pairs.values())
        results = {part: [math.nan] * n for part in SUB_METRICS}
        token_log_probs: list[list[float]] = []
        with Progress(total=n, enabled=options["show_progress"], desc="USR") as progress:
            done = progress.per(n / work if work else 0.0)
            token_log_probs = self.mlm_scores(windows, done)
            for i, values in zip(mlm_rows, token_log_probs):
                results["mlm"][i] = sum(values) / len(values) if values else math.nan
            for part, rows in dr_rows.items():
                probabilities = self.wrappers_dr[part].positive_probabilities(
                    [ids for ids, _ in pairs[part]], done
                )
                for i, p in zip(rows, probabilities):
                    results[part][i] = p
        overall = [usr_score(results["mlm"][i], results["dr_c"][i], results["dr_f"][i]) for i in range(n)]
        self._warn_about(examples)
        result: dict = {"scores": overall, "mean_score": mean_of(overall)}
        for part, values in (*results.items(), ("usr", overall)):
            result[part], result[f"mean_{part}"] = values, mean_of(values)
        if options["return_details"]:
            result["details"] = self._details(examples, mlm_rows, windows, token_log_probs, dr_rows, pairs)
        return result

    def _details(self, examples, mlm_rows, windows, token_log_probs, dr_rows, pairs) -> list[dict]:
        details = [
            {
                "response": e.inputs.response,
                "last_utterance": e.inputs.context,
                "fact": e.inputs.fact,
                "mlm_tokens": [],
                "mlm_window_cut": False,
                "dr_c_pair_cut": False,
                "dr_f_pair_cut": False,
            }
            for e in examples
        ]
        full = tokenize(
            self.wrapper_mlm.tokenizer, [examples[i].inputs.mlm for i in mlm_rows], verbose=False
        )["input_ids"]
        for i, ids, window, values in zip(mlm_rows, full, windows, token_log_probs):
            tokens = self.wrapper_mlm.token_names(window[1:-1])
            details[i]["mlm_tokens"] = [{"token": t, "log_prob": v} for t, v in zip(tokens, values)]
            details[i]["mlm_window_cut"] = len(ids) > len(window)
        for part, rows in dr_rows.items():
            for i, (_, cut) in zip(rows, pairs[part]):
                details[i][f"{part}_pair_cut"] = cut
        return details

    @staticmethod
    def _warn_about(examples: list[_Example]) -> None:
        blank = [f"{field}[{i}]" for i, e in enumerate(examples) for field in e.blank]
        if blank:
            undefined = sum(bool(e.blank) for e in examples)
            warn(
                f"usr: {listed(blank)} have no words (empty, or only whitespace, _go/_eos tags or control "
                "characters); the sub-metrics reading them (mlm: response and history; dr_c: response, "
                f"history and fact; dr_f: response and fact) and usr are NaN for {undefined} of "
                f"{len(examples)} examples and left out of the means."
            )
