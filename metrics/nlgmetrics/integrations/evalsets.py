"""Which examples a Trainer's evaluation scores, for :func:`nlgmetrics.for_trainer`.

The raw texts given to ``for_trainer`` are one eval set (a list per field) or several (a mapping split name →
texts per field). An evaluation is scored against a set only when what the Trainer passes shows it is that
set: its inputs match the set's sources and its labels the set's references (each that is given and at hand)
example by example, and the number of generations is the set's size, or under DDP that size as the
distributed sampler pads it (it repeats the first examples to fill the last step). Anything else is refused
in one line, never scored as it comes, and so is an order the inputs cannot confirm: two examples whose raw
texts differ while the inputs of each fit either (near-duplicates cut at ``max_length`` to the same ids). The
batches of a ``batch_eval_metrics`` evaluation that stopped before its last batch are recognised by the loop
they came from (accelerate's dataloader state, the signal the Trainer itself reads for its last batch) and
never counted in the next one.

Matching is done on normalised texts (lowercase, accents and everything but letters and digits dropped), and
the raw texts go through the tokenizer first (encode, decode), so that an uncased vocabulary, unknown
tokens and the training ``max_length`` do not count as differences:

>>> overlaps("thecitycouncilvoted", "thecitycouncilvotedonmondaytobuildalibrary")  # cut at max_length
True
>>> overlaps("summarizethecitycouncilvotedon", "thecitycouncilvotedonmonday")  # a prompt before it
True
>>> overlaps("thecitycouncilvoted", "heavyraincausedfloodingacrosstheregion")
False

A prompt that every example's inputs share (``"summarize: "``) is found as their common start, so that a
source cut short after it still shows: the inputs are a start of the prompt, then a start (or an end) of
the source:

>>> overlaps("summarizefootball", "footballfanscelebrated", prompt="summarize")
True
>>> overlaps("summarizefootball", "heavyraincaused", prompt="summarize")
False
"""

from __future__ import annotations

import math
import re
import unicodedata
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.validation import as_list, check_references, check_texts
from ..core.values import check_positive_int

DECODED = ("inputs", "labels")
"""What a field can be taken from instead of raw texts: the decoded ``EvalPrediction.inputs`` or labels."""
MIN_OVERLAP = 16
"""Normalised characters of a source that must appear at an end of the decoded inputs (after a prompt, or cut
at the left) when neither text holds the other whole: enough that another document does not match."""
CALLBACK_HINT = (
    "pass the for_trainer object as a callback too (Seq2SeqTrainer(..., compute_metrics=compute_metrics, "
    'callbacks=[compute_metrics])) or set include_for_metrics=["inputs"] in the TrainingArguments'
)
SPLITS_HINT = "e.g. sources={'eval': raw_eval['document'], 'test': raw_test['document']}"
NAMED_PAIRS = 3
"""How many pairs of examples that the inputs cannot tell apart a refusal names."""
_EVIDENCE = (("sources", "inputs"), ("references", "labels"))
"""Each raw field that the Trainer's decoded texts can confirm, and those texts."""
_NOT_WORD = re.compile(r"[\W_]+")
_UNTIED = "untied"


def normalised(text: str) -> str:
    """``text`` lowercased, without accents, spaces, punctuation or symbols: what survives any tokenizer."""
    return _NOT_WORD.sub("", unicodedata.normalize("NFKD", text.lower()))


def overlaps(evidence: str, source: str, prompt: str = "") -> bool:
    """Whether decoded inputs can come from ``source`` (both normalised): one holds the other whole (a source
    cut at ``max_length``, or wrapped in a prompt); the inputs are a start of ``prompt`` (what every
    example's inputs start with) then a start or an end of the source; or an end of the source of at least
    :data:`MIN_OVERLAP` characters sits at an end of the inputs (any prompt before a cut source, a source
    cut at the left). Nothing to compare (an empty text) is no evidence against."""
    if not evidence or not source or source in evidence or evidence in source:
        return True
    rests = (evidence[p:] for p in range(1, min(len(prompt), len(evidence) - 1) + 1))
    if any(source.startswith(rest) or source.endswith(rest) for rest in rests):
        return True
    j = min(len(source), MIN_OVERLAP)
    return (
        _ends_with_head(evidence, source, j)
        or _ends_with_head(evidence[::-1], source[::-1], j)
        or evidence.endswith(source[-j:])
    )


def common_start(texts: list[str]) -> str:
    """What every text starts with (the inputs' shared prompt), when at least two of them differ."""
    distinct = set(texts)
    if len(distinct) < 2:
        return ""
    first, last = min(distinct), max(distinct)  # their common start is everyone's
    k = next((i for i, (a, b) in enumerate(zip(first, last)) if a != b), min(len(first), len(last)))
    return first[:k]


def _ends_with_head(evidence: str, source: str, j: int) -> bool:
    """Whether ``evidence`` ends with a prefix of ``source`` at least ``j`` characters long."""
    head, at = source[:j], evidence.find(source[:j])
    while at != -1:
        if source.startswith(evidence[at:]):
            return True
        at = evidence.find(head, at + 1)
    return False


def check_field(name: str, value: Any) -> list | dict[str, list] | str | None:
    """A field as given to for_trainer: None, "inputs"/"labels", raw texts (any sequence, a numpy array, a
    pandas Series: by position) or a mapping split name → raw texts; checked, naming the index."""
    if value is None or isinstance(value, str):
        if value is None or value in DECODED:
            return value
        raise ValueError(
            f"{name}={value!r} must be the raw texts in eval order (a list, a datasets column, ...), "
            f'one list per split in a dict ({SPLITS_HINT}), "inputs" or "labels"'
        )
    if isinstance(value, Mapping):
        bad = [split for split in value if not isinstance(split, str) or not split]
        if bad or not value:
            raise ValueError(f"{name} maps split names (strings) to raw texts, got keys {list(value)!r}")
        return {split: _raw(f"{name}[{split!r}]", name, texts) for split, texts in value.items()}
    return _raw(name, name, value)


def _raw(label: str, name: str, value: Any) -> list:
    if name == "references":
        check_references(value, field=label)
        return as_list(value)  # as given: per-example strings or lists, for modules that take only strings
    return check_texts(label, value)


@dataclass
class Seen:
    """What an evaluation shows of the set it scores: the generations' count, the decoded labels (one per
    generation) and inputs (one per generation, or the evaluated dataset's), the dataset's size and the
    generations gathered per step (batch × processes), when the Trainer's loop tells them."""

    count: int
    world: int
    labels: list[str] | None = None
    inputs: list[str] | None = None
    size: int | None = None
    step: int | None = None
    _normalised: dict[str, list[str]] = field(default_factory=dict, repr=False)

    def normalised(self, what: str) -> list[str]:
        if what not in self._normalised:
            self._normalised[what] = [normalised(text) for text in getattr(self, what)]
        return self._normalised[what]

    def prompt(self, what: str) -> str:
        """The normalised start every example's inputs (labels) share: a prompt, or nothing."""
        return common_start(self.normalised(what))


def count_problem(seen: Seen, n: int) -> str | None:
    """Why ``seen.count`` generations cannot be ``n`` examples (None: they can). Under DDP the gathered
    generations are the ``n`` examples, or (the Seq2SeqTrainer gathers without dropping) ``n`` padded to whole
    steps with the first examples again: ``ceil(n / step) * step`` of them, generation ``n + i`` being example
    ``i % n``, which its labels must show."""
    count, world = seen.count, seen.world
    if count == n:
        return None
    if count < n or world == 1:
        return f"the Trainer passed {count} generations but the eval set has {n} examples"
    padded = math.ceil(n / seen.step) * seen.step if seen.step else None
    if count % world or (padded is not None and count != padded):
        steps = f" in steps of {seen.step}" if seen.step else f" on {world} processes"
        return (
            f"the Trainer gathered {count} generations, but {n} examples{steps} gather {n} or "
            f"{padded if padded is not None else 'a multiple of ' + str(world)}"
        )
    for i in range(count - n):
        if seen.labels is not None and seen.labels[n + i] != seen.labels[i % n]:
            return (
                f"the Trainer gathered {count} generations, and generation {n + i} would be the sampler's "
                f"repeat of example {i % n} if the set had {n} examples, but its labels differ"
            )
    return None


class EvalSets:
    """The raw texts given to for_trainer, one set (``None``: given as lists) or one per split, and the
    choice, at each evaluation, of the set the Trainer is scoring."""

    def __init__(
        self, fields: dict[str, Any], num_examples: int | None, roundtrip: Callable[[list[str]], list[str]]
    ):
        self.decoded = {name: value for name, value in fields.items() if isinstance(value, str)}
        raw = {name: value for name, value in fields.items() if isinstance(value, (list, dict))}
        self.splits = _splits(raw)
        self.num_examples = _num_examples(self.splits, num_examples)
        self._roundtrip = roundtrip
        self._normalised: dict[tuple[str | None, str], list[list[str]]] = {}

    @property
    def sources_raw(self) -> bool:
        """Whether raw sources are given: the inputs then tell the set apart."""
        return any("sources" in texts for texts in self.splits.values())

    def check_tied(self) -> None:
        """Raw contexts need raw sources or references beside them: only those can be matched to the inputs
        or the labels the Trainer passes."""
        for texts in self.splits.values():
            if texts and not {"sources", "references"} & set(texts):
                raise ValueError(
                    "contexts are raw texts, but nothing ties them to the evaluated examples: give the "
                    "sources or the references of the same set(s) as raw texts too (they are matched to "
                    "the inputs or the labels the Trainer passes)"
                )

    def raw_size(self) -> int | None:
        """The size of the one set given as raw texts (None: none, or one per split). Its texts are checked
        against the inputs or labels, so a wrong cut by this size is refused, never scored."""
        return len(next(iter(self.splits[None].values()))) if None in self.splits else None

    def choose(self, seen: Seen) -> tuple[dict[str, list], int]:
        """(the raw texts of the set being scored, its size), or one ValueError saying why no set fits."""
        if not self.splits:
            return {}, self._size(seen)
        verdicts = {split: self._verdict(split, seen) for split in self.splits}
        fits = [split for split, verdict in verdicts.items() if verdict is None]
        if fits and all(self.splits[split] == self.splits[fits[0]] for split in fits):
            texts = self.splits[fits[0]]
            pairs = self._indistinct(fits[0], seen)
            if pairs:
                raise ValueError(self._unconfirmed(fits[0], pairs, seen))
            return texts, len(next(iter(texts.values())))
        for split in [] if fits else verdicts:
            self._check_order(split, seen)
        raise ValueError(self._refusal(verdicts, fits, seen))

    def _check_order(self, split: str | None, seen: Seen) -> None:
        """When the inputs fit a set's sources but the labels not its references, an order the inputs cannot
        confirm (swapped near-duplicates) says best why: refused as such."""
        texts = self.splits[split]
        if {"sources", "references"} <= set(texts) and self._fit_all(split, "sources", "inputs", seen):
            pairs = self._indistinct(split, seen)
            if pairs:
                raise ValueError(self._unconfirmed(split, pairs, seen))

    def _size(self, seen: Seen) -> int:
        """The evaluated set's size with no raw texts: the loop's dataset, num_examples, or the count."""
        n = seen.size if seen.size is not None else self.num_examples
        if seen.size is not None and self.num_examples not in (None, seen.size):
            raise ValueError(
                f"num_examples={self.num_examples} but the Trainer is evaluating a set of {seen.size} "
                "examples (its dataset): leave num_examples out, the callback tells each set's size"
            )
        if n is None and seen.world > 1:
            raise ValueError(
                f"under DDP the {seen.count} gathered generations include the repeats the sampler adds to "
                "fill the last step; pass the for_trainer object as a callback too (Seq2SeqTrainer(..., "
                "compute_metrics=compute_metrics, callbacks=[compute_metrics])), give "
                "num_examples=len(eval_dataset), or a field as raw texts (e.g. "
                "sources=raw_eval['document'])"
            )
        n = seen.count if n is None else n
        problem = count_problem(seen, n)
        if problem:
            raise ValueError(
                f"{problem} (num_examples, or the Trainer's dataset): give the size of the set it scores"
            )
        return n

    def _verdict(self, split: str | None, seen: Seen) -> str | None:
        """Why the Trainer is not scoring this set (None: it is; :data:`_UNTIED`: nothing can tell)."""
        texts = self.splits[split]
        n = len(next(iter(texts.values())))
        if seen.size is not None and seen.size != n:
            return f"the Trainer is evaluating a dataset of {seen.size} examples but the set has {n}"
        problem = count_problem(seen, n)
        if problem:
            return problem
        evidence = _evidence(texts, seen)
        for k, (name, what) in enumerate(evidence):
            problem = self._mismatch(split, name, seen, what)
            if problem:
                return problem + self._but(split, evidence[:k], name, what, seen)
        return None if evidence else _UNTIED

    def _but(self, split: str | None, fitted: list[tuple[str, str]], name: str, what: str, seen: Seen) -> str:
        """What else the evaluation shows when its ``what`` are not the set's ``name``: the evidence that did
        fit the set (its raw fields then are not of one set) and the set whose ``name`` they are, if any."""
        said = "".join(
            f", though the {w} fit {_label(n, split)}: the raw {n} and {name} given are not one set"
            for n, w in fitted
        )
        if split is None:
            return said
        owners = [other for other in self.splits if other != split and self._fit_all(other, name, what, seen)]
        owner = ", ".join(f"{_label(name, other)}'s" for other in owners) or f"none of the {name} given"
        return f"{said}; the {what} are {owner}"

    def _fit_all(self, split: str | None, name: str, what: str, seen: Seen) -> bool:
        """Whether the evaluation can be the set as far as its ``what`` show: its size, and each example's."""
        if name not in self.splits[split] or getattr(seen, what) is None:
            return False
        n = len(self.splits[split][name])
        return count_problem(seen, n) is None and self._mismatch(split, name, seen, what) is None

    def _mismatch(self, split: str | None, name: str, seen: Seen, what: str) -> str | None:
        """The first example whose decoded inputs (labels) cannot come from the set's sources (references)."""
        expected, shown, prompt = (
            self._normalised_texts(split, name),
            seen.normalised(what),
            seen.prompt(what),
        )
        for i, wanted in enumerate(expected):
            if not any(overlaps(shown[i], text, prompt) for text in wanted):
                given = self.splits[split][name][i]
                given = given if isinstance(given, str) else given[0]
                return (
                    f"example {i}'s {what} {_short(getattr(seen, what)[i])} are not "
                    f"{_label(name, split)}[{i}] {_short(given)}"
                )
        return None

    def _indistinct(self, split: str | None, seen: Seen) -> list[tuple[int, int]]:
        """Up to :data:`NAMED_PAIRS` pairs of examples whose raw texts differ, yet whose inputs (labels) could
        as well come from the other's: the same inputs, or one's a start of the other's (documents alike up
        to the training ``max_length``). Candidates are found by sorting the inputs (a start sorts just
        before what it starts); a pair is told apart only when other evidence (raw references and the labels)
        fits its order and not the swapped one."""
        texts = self.splits[split]
        evidence = _evidence(texts, seen)
        if not evidence:
            return []
        n = len(next(iter(texts.values())))
        shown = seen.normalised(evidence[0][1])[:n]
        rows = [tuple(_hashable(texts[name][i]) for name in texts) for i in range(n)]
        distinct = {(shown[i], rows[i]): i for i in reversed(range(n))}  # each the first of its kind
        order = sorted(distinct.values(), key=lambda i: (shown[i], i))
        found: list[tuple[int, int]] = []
        for at, i in enumerate(order):
            for j in order[at + 1 :]:
                if not shown[j].startswith(shown[i]):
                    break
                pair = (min(i, j), max(i, j))
                if rows[i] != rows[j] and not self._told_apart(split, evidence, seen, pair):
                    found.append(pair)
                    if len(found) == NAMED_PAIRS:
                        return sorted(found)
        return sorted(found)

    def _told_apart(
        self, split: str | None, evidence: list[tuple[str, str]], seen: Seen, pair: tuple[int, int]
    ) -> bool:
        """Whether every piece of evidence fits the pair's order and one of them does not fit it swapped."""
        i, j = pair
        told = False
        for name, what in evidence:
            if not (self._fits(split, name, what, seen, i, i) and self._fits(split, name, what, seen, j, j)):
                return False
            swapped = self._fits(split, name, what, seen, i, j) and self._fits(split, name, what, seen, j, i)
            told = told or not swapped
        return told

    def _fits(self, split: str | None, name: str, what: str, seen: Seen, k: int, m: int) -> bool:
        """Whether example ``k``'s inputs (labels) can come from example ``m``'s sources (references)."""
        shown, prompt = seen.normalised(what)[k], seen.prompt(what)
        return any(overlaps(shown, text, prompt) for text in self._normalised_texts(split, name)[m])

    def _unconfirmed(self, split: str | None, pairs: list[tuple[int, int]], seen: Seen) -> str:
        """The refusal naming the pairs of examples the inputs (labels) cannot tell apart, and what to do."""
        texts = self.splits[split]
        name, what = _evidence(texts, seen)[0]
        i, j = pairs[0]
        differs = next(f for f in texts if texts[f][i] != texts[f][j])
        label = _label(differs, split)
        shown = getattr(seen, what)
        hint = (
            "" if "references" in texts else "give the raw references too (the labels then tell them apart), "
        )
        return (
            f"the {what} cannot tell examples {', '.join(f'{a} and {b}' for a, b in pairs)} apart: "
            f"{label}[{i}] and {label}[{j}] differ "
            f"({_apart(_first(texts[differs][i]), _first(texts[differs][j]))}), but example {i}'s {what} "
            f"{_short(shown[i])} and example {j}'s {_short(shown[j])} fit either (cut at the training "
            "max_length?), so the order of the raw texts cannot be confirmed and nothing is scored; "
            f'{hint}keep such near-duplicates out of the eval set, or give {name}="{what}" (the texts the '
            "model saw)"
        )

    def _normalised_texts(self, split: str | None, name: str) -> list[list[str]]:
        """The set's texts through the tokenizer and normalised, each example's as a list (references)."""
        key = (split, name)
        if key not in self._normalised:
            texts = [[t] if isinstance(t, str) else list(t) for t in self.splits[split][name]]
            flat = self._roundtrip([t for each in texts for t in each])
            self._normalised[key] = _regroup([normalised(t) for t in flat], texts)
        return self._normalised[key]

    def _refusal(self, verdicts: dict[str | None, str | None], fits: list, seen: Seen) -> str:
        if len(fits) > 1:
            return (
                f"the evaluated set fits each of the sets {', '.join(map(repr, fits))} given to "
                "for_trainer, whose texts differ: give sets the Trainer can tell apart"
            )
        if _UNTIED in verdicts.values():
            fields = ", ".join(sorted({name for texts in self.splits.values() for name in texts}))
            return (
                f"{fields} are raw texts, but nothing shows which examples the Trainer is scoring: "
                f"{CALLBACK_HINT}"
            )
        if None in verdicts:
            return (
                f"{verdicts[None]} (the raw texts given to for_trainer): give the raw texts of the set the "
                f"Trainer evaluates, in its order, or one list per set ({SPLITS_HINT})"
            )
        reasons = "; ".join(f"{split!r}: {reason}" for split, reason in verdicts.items())
        return (
            f"the evaluated set ({seen.count} generations) is none of the sets given to for_trainer "
            f"({reasons}): give the raw texts of every set the Trainer evaluates"
        )


def _evidence(texts: dict[str, list], seen: Seen) -> list[tuple[str, str]]:
    """Each raw field of a set that the evaluation's decoded texts can confirm, and those texts."""
    return [(name, what) for name, what in _EVIDENCE if name in texts and getattr(seen, what) is not None]


def _label(name: str, split: str | None) -> str:
    """A raw field as the user gave it: ``sources``, or ``sources['test']`` for a set by split."""
    return name if split is None else f"{name}[{split!r}]"


def _hashable(value: Any) -> str | tuple[str, ...]:
    return value if isinstance(value, str) else tuple(value)


def _apart(a: str, b: str, before: int = 20, width: int = 60) -> str:
    """Two texts shown from a little before where they first differ:
    ``'...next year.' vs '...next year. It'``."""
    at = next((k for k, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
    start = max(0, at - before)
    cut = "..." if start else ""
    return f"{_short(cut + a[start:], width)} vs {_short(cut + b[start:], width)}"


def _first(value: Any) -> str:
    return value if isinstance(value, str) else value[0]


def _regroup(flat: list[str], groups: list[list[str]]) -> list[list[str]]:
    out, at = [], 0
    for group in groups:
        out.append(flat[at : at + len(group)])
        at += len(group)
    return out


def _short(text: str, width: int = 60) -> str:
    return repr(text if len(text) <= width else text[: width - 3] + "...")


def _splits(raw: dict[str, list | dict[str, list]]) -> dict[str | None, dict[str, list]]:
    """split → field → texts: one set (``None``) when the fields are lists, else the mappings' splits
    (every field then a mapping with the same split names), each set's fields of one size."""
    kinds = {isinstance(value, dict) for value in raw.values()}
    if len(kinds) > 1:
        raise ValueError(
            f"give every raw field one list per split with the same split names, or every field as one list; "
            f"got {', '.join(f'{n} as a {type(v).__name__}' for n, v in raw.items())}"
        )
    if not raw:
        return {}
    if kinds == {False}:
        splits = {None: raw}
    else:
        names = {name: list(value) for name, value in raw.items()}
        first = next(iter(names.values()))
        if any(set(split_names) != set(first) for split_names in names.values()):
            raise ValueError(f"the raw fields must name the same splits, got {names}")
        splits = {split: {name: value[split] for name, value in raw.items()} for split in first}
    for split, texts in splits.items():
        sizes = {name: len(values) for name, values in texts.items()}
        if len(set(sizes.values())) > 1:
            where = "" if split is None else f" of split {split!r}"
            raise ValueError(f"the raw fields{where} must be one eval set, got sizes {sizes}")
    return splits


def _num_examples(splits: dict[str | None, dict[str, list]], num_examples: Any) -> int | None:
    """``num_examples`` checked: a positive int, the raw fields' size when one set is given; not with sets
    by split (each set's size is its texts')."""
    if num_examples is None:
        return None
    n = check_positive_int("num_examples", num_examples)
    if None not in splits and splits:
        raise ValueError(
            "num_examples is for one set; with raw texts by split, each split's size is its texts'"
        )
    sizes = {name: len(values) for name, values in splits.get(None, {}).items()}
    if sizes and set(sizes.values()) != {n}:
        raise ValueError(
            f"the raw fields and num_examples must be one eval set, got sizes {sizes | {'num_examples': n}}"
        )
    return n


class Batches:
    """The decoded batches of one ``batch_eval_metrics`` evaluation, kept until its last batch. A batch from
    another loop than the kept ones' (the Trainer's dataloader state changed: a new evaluation began) finds
    the leftovers of an evaluation that stopped before its last batch: they are dropped, never counted. A
    batch from no loop after them changes nothing: a stopped loop's dataloader, which still looked active,
    may just have been garbage-collected between two calls made by hand."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.decoded: dict[str, list[str]] = {}
        self.sizes: list[int] = []
        self.loop: tuple | None = None

    def add(self, decoded: dict[str, list[str]], loop: tuple | None) -> int:
        """Keep a batch; the number of leftover generations dropped first (0: none)."""
        dropped = 0
        if self.sizes and loop is not None and loop != self.loop:
            dropped = sum(self.sizes)
            self.reset()
        self.loop = loop if loop is not None else self.loop
        for name, texts in decoded.items():
            self.decoded.setdefault(name, []).extend(texts)
        self.sizes.append(len(decoded["predictions"]))
        return dropped

    def finish(self, size: int | None) -> tuple[dict[str, list[str]], int]:
        """The evaluation's texts and the leftovers dropped: with more generations than ``size`` (the raw
        set's size, given only for calls outside a Trainer's loop, whose changes nothing shows), the last
        batches that make ``size`` examples, when such a cut exists."""
        decoded, sizes = self.decoded, self.sizes
        self.reset()
        if size is None or sum(sizes) <= size:
            return decoded, 0
        for k in range(1, len(sizes)):
            if sum(sizes[k:]) == size:
                dropped = sum(sizes[:k])
                return {name: texts[dropped:] for name, texts in decoded.items()}, dropped
        return decoded, 0


def current_loop() -> tuple | None:
    """A token of the loop the Trainer is running, from accelerate's gradient state (what the Trainer reads
    for its last batch): a new loop has another active dataloader or, reusing it (persistent workers), one
    more reference to it, since a loop that stopped never removed its own. None when no dataloader is active.
    Only the token's changes count: after a loop that stopped, the stale dataloader still looks active."""
    try:
        from accelerate.state import GradientState
    except ImportError:
        return None
    if not GradientState._shared_state:
        return None
    state = GradientState()
    loader = state.active_dataloader
    return None if loader is None else (weakref.ref(loader), len(state.dataloader_references))


def at_loop_end() -> bool:
    """Whether a Trainer loop is at its last batch (accelerate's gradient state: how the Trainer itself sets
    ``compute_result``); False for calls made by hand outside a loop."""
    try:
        from accelerate.state import GradientState
    except ImportError:
        return False
    return bool(GradientState._shared_state) and GradientState().end_of_dataloader


def loader_facts(loader: Any) -> tuple[Any, int | None, int | None]:
    """(the dataset, its size, the examples gathered per step) of the Trainer's eval dataloader."""
    dataset = getattr(loader, "dataset", None)
    try:
        size = len(dataset) if dataset is not None else None
    except TypeError:  # an iterable dataset: no size
        size = None
    try:
        step = loader.total_batch_size  # accelerate's: batch size × processes
    except (AttributeError, TypeError):
        step = None
    return dataset, size, step if isinstance(step, int) and step > 0 else None


__all__ = ["Batches", "EvalSets", "Seen", "check_field", "count_problem", "normalised", "overlaps"]
