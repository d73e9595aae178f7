"""UniEval's scorer: every (example × dimension × sentence) question of a call in one batched stream.

UniEval asks its T5 evaluator one yes/no question per input and reads, at the first decoder step
(decoder input = the start token only), ``p(Yes) / (p(Yes) + p(No))``. The softmax normaliser
cancels in that ratio, so only the two answer logits are computed: the decoder's one hidden state
times two rows of the vocabulary head, instead of the full-vocabulary softmax. All questions of a
``score()`` call (identical ones once) are sorted by length and run in padded batches, one encoder
pass and one decoder step each; the answers are scattered back to their examples, sentences and
dimensions. The core has no dependency on ``evaluate``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import torch

from ..core.hub import naming_option
from ..core.model import ModelWrapper
from ..core.progress import Progress
from ..core.resolve import resolve_weight
from ..core.result import mean_of
from ..core.runtime import Runtime, WhereToRun
from ..core.scorer import Scorer
from ..core.sentences import sent_tokenize
from ..core.spec import ModuleSpec
from ..core.tokenize import tokenize
from ..core.validation import examples_at, is_blank, listed
from ..core.warnings import warn
from .tasks import (
    MAX_LENGTH,
    PLACEHOLDERS,
    TASKS,
    Dimension,
    Task,
    placeholders,
)

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..core.model import WrapperArgs


class UniEvalWrapper(ModelWrapper):
    """A T5 Boolean-QA evaluator from the process-wide cache: the answer ids and a batched yes-probability.

    ``yes_id`` and ``no_id`` are the first token ids of ``tokenizer("Yes")`` and ``tokenizer("No")``, as
    UniEval reads them.
    """

    cache_kind = "SEQ2SEQ"
    auto_class = "AutoModelForSeq2SeqLM"
    max_length = MAX_LENGTH
    """Tokens of a question the evaluator reads (the rest is cut, as UniEval does)."""

    def __init__(self, model, tokenizer, **common: Unpack[WrapperArgs]):
        super().__init__(model, tokenizer, **common)
        self.yes_id = tokenize(tokenizer, "Yes")["input_ids"][0]
        self.no_id = tokenize(tokenizer, "No")["input_ids"][0]
        if self.yes_id == self.no_id:
            raise ValueError("the tokenizer gives 'Yes' and 'No' the same first token: not a UniEval model")
        config = model.config
        self.start_id = config.decoder_start_token_id if config.decoder_start_token_id is not None else 0
        scale = getattr(config, "scale_decoder_outputs", None)
        if scale is None:  # transformers < 5: tied embeddings meant a rescaled decoder output
            scale = bool(getattr(config, "tie_word_embeddings", False))
        self.output_scale = config.d_model**-0.5 if scale else 1.0

    def encode(self, texts: Sequence[str]) -> list[list[int]]:
        """Token ids of each question, cut on the right to ``max_length`` (the final ``</s>`` kept) as
        UniEval."""
        if not texts:
            return []
        return tokenize(
            self.tokenizer, list(texts), max_length=self.max_length, truncation=True, verbose=False
        )["input_ids"]

    @torch.inference_mode()
    def _answer(self, tensors: dict[str, torch.Tensor]) -> list[float]:
        """p(Yes)/(p(Yes)+p(No)) for one padded batch (``input_ids``, ``attention_mask``)."""
        input_ids, mask = tensors["input_ids"], tensors["attention_mask"]
        encoded = self.model.get_encoder()(input_ids=input_ids, attention_mask=mask).last_hidden_state
        start = torch.full((len(input_ids), 1), self.start_id, dtype=torch.long, device=self.device)
        hidden = self.model.get_decoder()(
            input_ids=start, encoder_hidden_states=encoded, encoder_attention_mask=mask, use_cache=False
        ).last_hidden_state[:, 0]
        head = self.model.get_output_embeddings()
        answers = torch.tensor([self.yes_id, self.no_id], device=self.device)
        logits = (hidden * self.output_scale) @ head.weight[answers].T  # [rows, 2]: Yes, No
        if getattr(head, "bias", None) is not None:
            logits = logits + head.bias[answers]
        probabilities = torch.softmax(logits.float(), dim=-1)
        return probabilities[:, 0].tolist()

    def yes_probabilities(
        self, rows: Sequence[Sequence[int]], done: Callable[[int], None] = lambda n: None
    ) -> list[float]:
        """The answer of every token row, in length-sorted batches; ``done(n)`` after each batch.

        A batch that runs out of memory is retried in halves; a single row that does not fit is an error.
        """
        return self.per_row(rows, self._answer, done, name="unieval")


@dataclass
class _Slot:
    """Where the answers of one question go: example, dimension, sentence index (or reference index)."""

    example: int
    dimension: str
    part: int


RESERVED = ("scores", "score", "overall", "details", "signature", "higher_is_better")
"""Result keys a custom question may not be named (nor any ``mean_*``): its column would overwrite them."""


def _blank_fields(
    data: Mapping[str, list], dims: Mapping[str, Dimension], multi: str
) -> tuple[list[set[str]], list[str]]:
    """The fields each example cannot be scored on (blank texts the dimensions read), and their labels.

    A reference field is blank when every reference read is: the first (``multi="first"``), or all of them.
    """
    read = [f for f in data if any(f in d.fields for d in dims.values())]
    n = len(data["predictions"])
    blank: list[set[str]] = [set() for _ in range(n)]
    labels: list[str] = []
    for i in range(n):
        for field in read:
            value = data[field][i]
            if field != "references":
                if is_blank(value):
                    blank[i].add(field)
                    labels.append(f"{field}[{i}]")
                continue
            used = value[:1] if multi == "first" else value
            empty = [k for k, text in enumerate(used) if is_blank(text)]
            labels += [f"{field}[{i}]" if len(value) == 1 else f"{field}[{i}][{k}]" for k in empty]
            if len(empty) == len(used):
                blank[i].add(field)
    return blank, labels


class UniEvalScorer(Scorer):
    """Scores predictions on one UniEval task's dimensions; the evaluator loads once per process.

    Args:
        task: ``summarization`` (default), ``dialogue``, ``data2text`` or ``fact``.
        model: the registered evaluator of the task by default; any registered seq2seq name, Hub repo
            id or local folder of a T5 Boolean-QA checkpoint.
        model_revision: Hub revision for a repo that is not registered.
        runtime, device, dtype, batch_size, max_batch_tokens, allow_tf32, quantize: where and how to run, as
            :class:`~nlgmetrics.core.scorer.Scorer` says (a batch row is a question).
    """

    def __init__(
        self,
        spec: ModuleSpec,
        task: str | None = None,
        model: str | None = None,
        *,
        model_revision: str | None = None,
        runtime: Runtime | None = None,
        **where: Unpack[WhereToRun],
    ):
        super().__init__(spec, runtime, config_key=task, **where)
        self.config = spec.resolve_config(task)
        """The task: its inputs are the calls' (its dimensions and custom questions decide which are needed,
        :meth:`required_inputs`)."""
        self.custom_model = model is not None
        self.task: Task = TASKS[self.config]
        name = self.task.model if model is None else model
        role = spec.weight_role(self.config, "model")
        self.source = resolve_weight(name, model_revision, role=role, option="model", given=model is not None)
        with naming_option(None if self.source.spec else f"model={name!r}"):
            self.wrapper = UniEvalWrapper.load(self.source.path, self.source.revision, self.runtime)

    def config_label(self) -> str:
        """The task, or ``custom`` when ``model=`` replaced its evaluator."""
        return "custom" if self.custom_model else self.config

    def __repr__(self) -> str:
        return f"UniEvalScorer(task={self.task.name!r}, model={self.source.name!r})"

    def weights(self) -> list[str]:
        return [self.source.describe()]

    # ---- options ----------------------------------------------------------------------------------------

    def dimensions_of(self, dimensions=None, questions=None) -> dict[str, Dimension]:
        """The dimensions a call computes, in order: the chosen built-in ones, then the custom questions
        (options already checked by :meth:`check_options`)."""
        known = self.task.dimensions
        out = {d: known[d] for d in (known if dimensions is None else dimensions)}
        out.update({name: Dimension(name, question) for name, question in (questions or {}).items()})
        return out

    def resolve_options(self, options: dict) -> dict:
        """``dimensions`` (a name or a list) and ``questions`` checked against the task, as lists and
        dicts."""
        dimensions, questions = options["dimensions"], options["questions"]
        known = self.task.dimensions
        if dimensions is not None:
            if isinstance(dimensions, str):
                dimensions = [dimensions]
            if not isinstance(dimensions, Sequence) or not all(isinstance(d, str) for d in dimensions):
                raise ValueError(f"dimensions={dimensions!r} must be a list of dimension names")
            dimensions = list(dimensions)
            unknown = [d for d in dimensions if d not in known]
            if unknown:
                raise ValueError(
                    f"unieval {self.task.name} has no dimension {', '.join(map(repr, unknown))}; valid: "
                    f"{', '.join(known)} (or ask your own with questions={{name: question}})"
                )
            if len(set(dimensions)) != len(dimensions):
                raise ValueError(f"dimensions={dimensions!r} names a dimension twice")
        chosen = list(known) if dimensions is None else dimensions
        if questions is not None:
            if not isinstance(questions, Mapping) or not questions:
                raise ValueError(
                    "questions must be a non-empty mapping name → question, e.g. {'clarity': 'question: Is "
                    "this a clear summary? </s> summary: {prediction}'}"
                )
            for name, question in questions.items():
                if not isinstance(name, str) or not name or not isinstance(question, str):
                    raise ValueError(f"questions[{name!r}]: names and questions must be non-empty strings")
                if name in RESERVED or name.startswith("mean_"):
                    raise ValueError(
                        f"questions[{name!r}]: the name is reserved for the result ({', '.join(RESERVED)} "
                        "and every mean_* name); choose another"
                    )
                if name in chosen:
                    raise ValueError(f"questions[{name!r}]: the name is taken; choose another")
                try:
                    read = placeholders(question)
                except ValueError as err:
                    raise ValueError(f"questions[{name!r}]: {err}") from None
                if "prediction" not in read:
                    raise ValueError(f"questions[{name!r}] must contain {{prediction}}")
                if other := [PLACEHOLDERS[p] for p in read if PLACEHOLDERS[p] not in self.inputs]:
                    raise ValueError(
                        f"questions[{name!r}] reads {', '.join(other)}, which unieval {self.task.name} "
                        f"does not take; its inputs are {', '.join(self.inputs)}"
                    )
            questions = dict(questions)
        if not chosen and not questions:
            raise ValueError("no dimension to compute: dimensions=[] needs questions={...}")
        return {**options, "dimensions": dimensions, "questions": questions}

    def required_inputs(self, dimensions=None, questions=None, **_) -> dict[str, str]:
        """field → why it is needed (the dimensions that read it), for the chosen dimensions."""
        readers: dict[str, list[str]] = {"predictions": ["every dimension"]}
        for name, dim in self.dimensions_of(dimensions, questions).items():
            for field in dim.fields:
                if field != "predictions":
                    readers.setdefault(field, []).append(name)
        return {
            field: f"the {self.task.name} dimension(s) {', '.join(names)} read it"
            if field != "predictions"
            else "every dimension reads it"
            for field, names in readers.items()
        }

    def _result_keys(self, dims: Mapping[str, Dimension], overall: bool) -> tuple[list[str], bool]:
        return list(dims), overall and self.task.overall

    def empty_result(self, **options) -> dict:
        dims = self.dimensions_of(options["dimensions"], options["questions"])
        dims, with_overall = self._result_keys(dims, options["overall"])
        result: dict = {}
        for d in dims:
            result[d], result[f"mean_{d}"] = [], math.nan
        if with_overall:
            result["overall"], result["mean_overall"] = [], math.nan
        return {**result, **super().empty_result(**options)}

    # ---- scoring ----------------------------------------------------------------------------------------

    def _score(self, data: dict[str, list], options: dict) -> dict:
        """Score every example on the chosen dimensions; see the module card for the result's keys."""
        dims = self.dimensions_of(options["dimensions"], options["questions"])
        data = {field: values for field, values in data.items() if values is not None}
        n = len(data["predictions"])
        multi = options["multi_reference"]
        blank, labels = _blank_fields(data, dims, multi)
        sentences = self._sentences(data["predictions"], dims, blank)
        questions, slots = self._questions(data, dims, blank, sentences, multi)
        answers, truncated = self._answers(questions, n, options["show_progress"])
        asked: dict[tuple[int, str], list[int]] = {}  # (example, dimension) → its questions, in order
        for slot, t in slots:
            asked.setdefault((slot.example, slot.dimension), []).append(t)
        parts = {key: [answers[t] for t in ts] for key, ts in asked.items()}
        columns = {name: self._column(parts, name, dim, n, multi) for name, dim in dims.items()}
        result, with_overall = self._summary(columns, n, options["overall"])
        if options["return_details"]:
            result["details"] = [
                {
                    name: [
                        {"sentence": s, "score": answers[t]}
                        for s, t in zip(sentences[i], asked.get((i, name), []))
                    ]
                    for name, dim in dims.items()
                    if dim.per_sentence
                }
                for i in range(n)
            ]
        self._warn(labels, with_overall, truncated, slots, n)
        return result

    @staticmethod
    def _sentences(predictions: list[str], dims: Mapping[str, Dimension], blank: list[set[str]]) -> dict:
        """Example → the sentences of its prediction, when a dimension reads them one by one (none for a
        blank prediction)."""
        if not any(d.per_sentence for d in dims.values()):
            return {}
        return {i: ([] if "predictions" in blank[i] else sent_tokenize(p)) for i, p in enumerate(predictions)}

    @staticmethod
    def _questions(
        data: dict[str, list],
        dims: Mapping[str, Dimension],
        blank: list[set[str]],
        sentences: dict,
        multi: str,
    ) -> tuple[list[str], list[tuple[_Slot, int]]]:
        """Every question of the call, each distinct text once (in the order first asked), and where each
        answer goes: ``(slot, question index)``. A dimension that reads a blank text asks nothing (NaN)."""
        texts: dict[str, int] = {}
        slots: list[tuple[_Slot, int]] = []

        def ask(slot: _Slot, text: str) -> None:
            slots.append((slot, texts.setdefault(text, len(texts))))

        for i in range(len(data["predictions"])):
            values = {
                p: data[field][i][0] if field == "references" else data[field][i]
                for p, field in PLACEHOLDERS.items()
                if field in data
            }
            for name, dim in dims.items():
                if blank[i].intersection(dim.fields):
                    continue  # NaN: it reads a blank text
                if dim.per_sentence:
                    for k, sentence in enumerate(sentences[i]):
                        ask(_Slot(i, name, k), dim.text(**{**values, "prediction": sentence}))
                elif "references" in dim.fields and multi != "first":
                    for k, reference in enumerate(data["references"][i]):
                        if not is_blank(reference):  # a blank one among several is skipped
                            ask(_Slot(i, name, k), dim.text(**{**values, "reference": reference}))
                else:
                    ask(_Slot(i, name, 0), dim.text(**values))
        return list(texts), slots

    def _answers(self, questions: list[str], n: int, show_progress: bool) -> tuple[list[float], set[int]]:
        """The evaluator's answer to each question, and the questions cut at ``max_length``; the bar counts
        the ``n`` examples."""
        rows = self.wrapper.encode(questions)
        truncated = {t for t, r in enumerate(rows) if len(r) >= self.wrapper.max_length}
        with Progress(total=n, enabled=show_progress, desc="unieval") as progress:
            per_row = n / max(len(questions), 1)
            answers = self.wrapper.yes_probabilities(rows, progress.per(per_row))
        return answers, truncated

    @staticmethod
    def _column(
        parts: dict[tuple[int, str], list[float]], name: str, dim: Dimension, n: int, multi: str
    ) -> list:
        """One dimension's score per example from its answers: NaN with none (it reads a blank text), the sum
        or mean over sentences, the mean or max over references, else the one answer."""
        column = []
        for i in range(n):
            values = parts.get((i, name), [])
            if not values:
                column.append(math.nan)  # it reads a blank text
            elif dim.per_sentence == "sum":
                column.append(math.fsum(values))
            elif dim.per_sentence == "mean" or multi == "mean":
                column.append(sum(values) / len(values))
            elif multi == "max":
                column.append(max(values))
            else:
                column.append(values[0])
        return column

    def _summary(self, columns: dict[str, list[float]], n: int, overall: bool) -> tuple[dict, bool]:
        """Each dimension's column and mean, the overall's (the mean of the dimensions) where asked and the
        task has one, and ``scores``: the task's headline dimension, else the overall; and whether the
        overall is reported."""
        result: dict = {}
        for name, column in columns.items():
            result[name], result[f"mean_{name}"] = column, mean_of(column)
        names, with_overall = self._result_keys(columns, overall)
        per_example = [[columns[d][i] for d in names] for i in range(n)]
        overall_column = [
            math.nan if any(math.isnan(v) for v in vs) else float(sum(vs) / len(vs)) for vs in per_example
        ]
        if with_overall:
            result["overall"], result["mean_overall"] = overall_column, mean_of(overall_column)
        headline = (
            columns[self.task.headline]
            if self.task.headline in columns and (not with_overall or self.task.headline != "overall")
            else overall_column
        )
        result["scores"], result["mean_score"] = headline, mean_of(headline)
        return result, with_overall

    def _warn(self, labels: list[str], with_overall: bool, truncated, slots, n) -> None:
        if labels:
            warn(
                f"unieval: {listed(labels)} {'is' if len(labels) == 1 else 'are'} empty (or only whitespace, "
                "zero-width or control characters): every dimension that reads one"
                f"{' (and the overall)' if with_overall else ''} is NaN for its example and left out of the "
                "means; a blank reference among several is skipped with multi_reference='mean' or 'max'."
            )
        if truncated:
            examples = sorted({slot.example for slot, t in slots if t in truncated})
            warn(
                f"unieval: the questions of {len(examples)} of {n} examples ({examples_at(examples)}) are "
                f"longer than {self.wrapper.max_length} tokens and were cut at the end, as UniEval does: "
                "the end of the document, reference or fact is not read."
            )


def default_model(task: str) -> str:
    """The registered evaluator of a task (its name in the registry)."""
    return TASKS[task].model


__all__ = ["UniEvalWrapper", "UniEvalScorer", "default_model"]
