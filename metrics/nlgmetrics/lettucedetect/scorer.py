"""LettuceDetect's scorer: every (prompt, answer) pair of a call in one batched stream.

The reference (``TransformerDetector.predict(context, answer, question, output_format="spans")``) scores one
answer at a time: its context's passages are written into the QA prompt (with the question) or the summary
prompt, the prompt and the answer are encoded as a pair (``[CLS] prompt [SEP] answer [SEP]``, the prompt cut
at ``max_length``), and a token classifier labels each answer token (label 1: not supported). A context too
long for ``max_length`` is split into groups of whole passages that fit beside the answer, each group a prompt
of its own, and each answer token keeps its largest probability over the groups. Here every pair of every
example is encoded at once and run in length-sorted padded batches
(:meth:`~nlgmetrics.core.model.ModelWrapper.per_row`), each distinct pair once, and the probabilities are
scattered back to their examples.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch

from ..core.batching import distinct_rows, scatter
from ..core.hub import model_window
from ..core.model import ModelWrapper
from ..core.progress import Progress
from ..core.result import mean_of
from ..core.scorer import OneModelScorer
from ..core.tokenize import tokenize
from ..core.validation import examples_at, is_blank, listed
from ..core.warnings import warn
from .options import CONFIGS, SPECIALS
from .prompts import passage_line, prompt

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..core.model import WrapperArgs


class LettuceDetectWrapper(ModelWrapper):
    """A LettuceDetect token classifier from the process-wide cache: per token of a (prompt, answer) row,
    the probability of label 1 (not supported) and whether label 1 has the larger logit."""

    cache_kind = "TOKEN-CLASSIFIER"
    auto_class = "AutoModelForTokenClassification"
    head = "2-way token-classification head"
    cpu_batch_tokens = 2048
    """On the CPU, batches of about 2,048 padded tokens (four 480-token prompts of a SummEval pair): the
    cheapest shape of ModernBERT-base's, 1.08x cheaper per token than 16 rows
    (``benchmarks/results/cpu_batch_shapes.md``); a row of up to ``max_length`` runs alone."""

    def __init__(self, model, tokenizer, **common: Unpack[WrapperArgs]):
        super().__init__(model, tokenizer, **common)
        if model.config.num_labels != 2:
            raise ValueError(
                f"the token classifier has {model.config.num_labels} labels; LettuceDetect's have 2 "
                "(1: not supported)"
            )

    @torch.inference_mode()
    def _answers(self, tensors: dict[str, torch.Tensor]) -> torch.Tensor:
        answer = tensors["answer"].bool()
        logits = self.model(input_ids=tensors["input_ids"], attention_mask=tensors["attention_mask"]).logits
        logits = logits[answer].float()
        unsupported = torch.softmax(logits, dim=-1)[:, 1]
        predicted = (logits[:, 1] > logits[:, 0]).float()  # torch's argmax: label 0 on a tie
        return torch.stack([unsupported, predicted], dim=-1)

    def answer_tokens(
        self, rows: Sequence[dict[str, list[int]]], done: Callable[[int], None] = lambda n: None
    ) -> list[torch.Tensor]:
        """Per row (its ``input_ids``, and ``answer``: 1 at the answer's tokens and the closing separator), a
        ``[answer tokens, 2]`` tensor: the probability of label 1 (not supported), and 1.0 where label 1's
        logit is the larger."""
        sizes = [sum(row["answer"]) for row in rows]
        return self.per_row(rows, self._answers, done, name="lettucedetect", sizes=sizes)


@dataclass
class Example:
    """One example's prompts (one per group of passages) and its answer's token count."""

    answer: str
    prompts: list[str]
    answer_tokens: int
    cut: bool = False


class LettuceDetectScorer(OneModelScorer):
    """Finds the unsupported spans of answers given their contexts with one LettuceDetect model; it loads once
    per process.

    Args:
        config: ``base`` (default) or ``large``.
        model: the config's registered model by default; a Hub repo id or a folder of a 2-label token
            classifier trained as LettuceDetect's.
        model_revision: Hub revision for a repo that is not registered.
        runtime, device, dtype, batch_size, max_batch_tokens, allow_tf32, quantize: where and how to run, as
            :class:`~nlgmetrics.core.scorer.Scorer` says (a batch row is a (prompt, answer) pair).
    """

    def weight_name(self, config: str) -> str:
        return CONFIGS[config]

    def wrapper_class(self, config: str) -> type[LettuceDetectWrapper]:
        return LettuceDetectWrapper

    def resolve_options(self, options: dict) -> dict:
        """``max_length`` within the model's positions."""
        window = model_window(self.wrapper.tokenizer, self.wrapper.model.config)
        if options["max_length"] > window:
            raise ValueError(
                f"max_length={options['max_length']} exceeds the {window} positions of {self.source.name}"
            )
        return options

    def empty_result(self, **options) -> dict:
        return {**super().empty_result(**options), "labels": [], "spans": []}

    # ---- the prompts ------------------------------------------------------------------------------------

    def _counts(self, texts: Sequence[str]) -> dict[str, int]:
        """Tokens of each distinct text, without special tokens (one tokenizer call)."""
        unique = list(dict.fromkeys(texts))
        if not unique:
            return {}
        ids = tokenize(self.wrapper.tokenizer, unique, add_special_tokens=False, verbose=False)["input_ids"]
        return dict(zip(unique, map(len, ids)))

    def examples(
        self, answers: list[str], contexts: list[list[str]], questions: list[str | None], max_length: int
    ) -> list[Example]:
        """Each example's prompts, as the reference groups its passages: all in one prompt when it fits beside
        the answer; else greedy groups of passages within the budget that the prompt's own words leave (a
        passage too long for it is a group of its own, cut at the end), or one prompt cut at the end when
        the prompt's words alone leave none."""
        counts = self._counts([*answers, *(prompt(c, q) for c, q in zip(contexts, questions))])
        out = [Example(a, [prompt(c, q)], counts[a]) for a, c, q in zip(answers, contexts, questions)]
        budgets = [max_length - e.answer_tokens - SPECIALS for e in out]
        long = [i for i, e in enumerate(out) if counts[e.prompts[0]] > budgets[i]]
        lines = {i: [passage_line(k + 1, p) for k, p in enumerate(contexts[i])] for i in long}
        more = self._counts([t for i in long for t in (prompt([""], questions[i]), *lines[i])])
        for i in long:
            room = budgets[i] - more[prompt([""], questions[i])]
            groups = greedy_groups(contexts[i], [more[line] for line in lines[i]], room) if room > 0 else []
            out[i].prompts = [prompt(group, questions[i]) for group in groups] or out[i].prompts
        final = self._counts([p for i in long for p in out[i].prompts])
        for i in long:
            out[i].cut = any(final[p] > budgets[i] for p in out[i].prompts)
        return out

    # ---- scoring ----------------------------------------------------------------------------------------

    def _score(self, data: dict[str, list], options: dict) -> dict:
        """1 - the largest "not supported" probability over each answer's tokens, its 0/1 label and spans."""
        answers, contexts, n = data["predictions"], data["sources"], len(data["predictions"])
        questions = checked_questions(data.get("questions"), n)
        blank = [f"predictions[{i}]" for i in range(n) if is_blank(answers[i])]
        blank += [f"sources[{i}]" for i in range(n) if all(is_blank(p) for p in contexts[i])]
        max_length = options["max_length"]
        scored = [i for i in range(n) if not (is_blank(answers[i]) or all(is_blank(p) for p in contexts[i]))]
        made = self.examples(
            *([field[i] for i in scored] for field in (answers, contexts, questions)), max_length
        )
        too_long = [i for i, e in zip(scored, made) if e.answer_tokens + SPECIALS >= max_length]
        examples = {i: e for i, e in zip(scored, made) if i not in too_long}
        keys = [(p, e.answer) for e in examples.values() for p in e.prompts]
        pairs, slots = distinct_rows(keys)
        sizes = {e.answer: e.answer_tokens + 1 for e in examples.values()}  # with the closing separator
        rows, offsets = self._encode(pairs, sizes, max_length)
        with Progress(total=n, enabled=options["show_progress"], desc="lettucedetect") as progress:
            tokens = scatter(self.wrapper.answer_tokens(rows, progress.per(n / max(len(rows), 1))), slots)
        firsts = scatter(offsets, slots)
        outcomes, at = [], 0
        for i in range(n):
            e = examples.get(i)
            outcomes.append(
                outcome(e, tokens[at : at + len(e.prompts)], firsts[at]) if e else (math.nan, [], [])
            )
            at += len(e.prompts) if e else 0
        scores = [score for score, _, _ in outcomes]
        result: dict[str, Any] = {
            "scores": scores,
            "mean_score": mean_of(scores),
            "labels": [None if math.isnan(s) else int(not spans) for s, _, spans in outcomes],
            "spans": [spans for _, _, spans in outcomes],
        }
        if options["return_details"]:
            result["details"] = [
                {
                    "probabilities": words,
                    "spans": spans,
                    "prompts": len(examples[i].prompts) if i in examples else 0,
                }
                for i, (_, words, spans) in enumerate(outcomes)
            ]
        self._warn(blank, too_long, sorted(i for i, e in examples.items() if e.cut), n, max_length)
        return result

    def _encode(
        self, pairs: list[tuple[str, str]], sizes: dict[str, int], max_length: int
    ) -> tuple[list[dict[str, list[int]]], list[list[tuple[int, int]]]]:
        """The token rows of (prompt, answer) pairs (the prompt cut at the end to fit; ``answer`` marks the
        last ``sizes[answer]`` tokens: the answer's and the closing separator) and those tokens' character
        offsets in the answer."""
        if not pairs:
            return [], []
        prompts, answers = zip(*pairs)
        encoded = tokenize(
            self.wrapper.tokenizer,
            list(prompts),
            list(answers),
            truncation="only_first",
            max_length=max_length,
            return_offsets_mapping=True,
            verbose=False,
        )
        rows, offsets = [], []
        for ids, spans, answer in zip(encoded["input_ids"], encoded["offset_mapping"], answers):
            k = sizes[answer]
            rows.append({"input_ids": ids, "answer": [0] * (len(ids) - k) + [1] * k})
            offsets.append([tuple(span) for span in spans[len(ids) - k :]])
        return rows, offsets

    def _warn(self, blank: list[str], too_long: list[int], cut: list[int], n: int, max_length: int) -> None:
        if blank:
            warn(
                f"lettucedetect: {listed(blank)} {'is' if len(blank) == 1 else 'are'} empty (or only "
                "whitespace, zero-width or control characters; a context of blank passages only): its "
                "example's score is NaN (label None, no spans), left out of the mean."
            )
        if too_long:
            warn(
                f"lettucedetect: the answer of {len(too_long)} of {n} examples ({examples_at(too_long)}) "
                f"has max_length - {SPECIALS} = {max_length - SPECIALS} tokens or more, so no context fits "
                "beside it (the reference fails on it): its score is NaN. Raise max_length (up to the "
                "model's positions) or split the answer."
            )
        if cut:
            warn(
                f"lettucedetect: a prompt of {len(cut)} of {n} examples ({examples_at(cut)}) is longer than "
                f"max_length={max_length} tokens beside its answer and was cut at the end, as the reference "
                "does (a single passage longer than the room, or the prompt's own words with the question): "
                "the end of that context is not read. Split such passages or raise max_length."
            )


def greedy_groups(passages: Sequence[str], counts: Sequence[int], room: int) -> list[list[str]]:
    """Passages in order, grouped while their tokens (and one for each newline between them) fit ``room``; a
    passage longer than ``room`` is a group of its own.

    >>> greedy_groups(["a", "b", "c", "d"], [3, 3, 9, 1], 7)
    [['a', 'b'], ['c'], ['d']]
    """
    groups: list[list[str]] = []
    used = 0
    for passage, count in zip(passages, counts):
        if groups and groups[-1] and used + 1 + count <= room:
            groups[-1].append(passage)
            used += 1 + count
        else:
            groups.append([passage])
            used = count
    return groups


def checked_questions(questions: list[str] | None, n: int) -> list[str | None]:
    """Each example's question (None: the summary prompt): none given (or all blank), or one for every
    example; a blank one among given ones is a ValueError naming it."""
    if questions is None or all(is_blank(q) for q in questions):
        return [None] * n
    missing = [f"questions[{i}]" for i, q in enumerate(questions) if is_blank(q)]
    if missing:
        raise ValueError(
            f"{listed(missing)} {'is' if len(missing) == 1 else 'are'} blank while other examples have a "
            "question: give every example its question (the QA prompt), or none (questions=None: the summary "
            "prompt); score the two kinds in separate calls"
        )
    return list(questions)


def outcome(
    example: Example, tokens: list[torch.Tensor], offsets: list[tuple[int, int]]
) -> tuple[float, list[float], list[dict]]:
    """(score, each answer token's "not supported" probability, spans) of one example from its prompts' answer
    tokens (``tokens``: one ``[answer tokens + 1, 2]`` tensor per prompt) and the first prompt's offsets of
    them.

    One prompt: a token is unsupported where label 1 has the larger logit; several: where its largest
    probability over the prompts is at least 0.5, the answer's tokens then matched in order to the offsets of
    the non-empty tokens, as the reference does. Offsets count from the first answer token's start."""
    base = offsets[0][0]
    probabilities = torch.stack([t[:, 0] for t in tokens]).max(dim=0).values.tolist()
    if len(tokens) == 1:
        marked = [
            ((s - base, e - base), bool(flag), p)
            for (s, e), (p, flag) in zip(offsets, tokens[0].tolist())
            if s != e
        ]
    else:
        spans = [(s - base, e - base) for s, e in offsets if s != e]
        marked = [(span, p >= 0.5, p) for span, p in zip(spans, probabilities)]
    words = probabilities[:-1]  # the answer's tokens, without the closing separator
    score = 1.0 - max(words) if words else math.nan
    return score, words, merged(marked, example.answer)


def merged(marked: list[tuple[tuple[int, int], bool, float]], answer: str) -> list[dict]:
    """Runs of consecutive unsupported tokens as spans of the answer's characters, each with the largest
    probability of its tokens."""
    spans: list[dict] = []
    run: list | None = None
    for (start, end), unsupported, p in marked:
        if unsupported and run is None:
            run = [start, end, p]
        elif unsupported:
            run[1], run[2] = end, max(run[2], p)
        elif run is not None:
            spans.append(run)
            run = None
    if run is not None:
        spans.append(run)
    return [{"start": s, "end": e, "text": answer[s:e], "confidence": c} for s, e, c in spans]


__all__ = ["LettuceDetectScorer", "LettuceDetectWrapper"]
