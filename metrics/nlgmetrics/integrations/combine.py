"""One ``compute()`` beside ROUGE and BLEU: :func:`combine` is ``evaluate.combine`` where
``compute(**fields)`` and ``add_batch(**fields)`` hand each module only the inputs it declares, and our
modules' keys always carry the module's name.

Every member's inputs and options are checked before any member receives or computes anything, so a refused
call leaves every member as it was; an ``add_batch()`` stopped part-way (an error, Ctrl-C) cuts each member's
cache back to what it held, and a ``compute()`` that fails puts back what was added through the combined
object, so the members stay in step, and a
``compute()`` refuses members that hold different numbers of examples. :class:`ForeignGuard` runs the modules
that are not ours (for ``combine`` and :func:`~nlgmetrics.integrations.for_trainer.for_trainer`): one that
raises gives NaN for its numbers, with one warning.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import evaluate

from ..core.validation import FIELDS, as_list
from ..core.values import check_bool, plain_scalar
from ..core.warnings import warn
from ..modules import SPECS, module_names
from ..modules.evaluate_state import (
    check_batch,
    compute_keywords,
    discard_cache,
    held_examples,
    is_streaming,
    keep_first,
)
from ..modules.metric import NLGMetric
from .naming import NamedMetric, metric_named


def combine(
    modules: Sequence[Any] | Mapping[str, Any], force_prefix: bool = False, strict: bool = False
) -> Combined:
    """``evaluate.combine``, where ``compute(**fields)`` and ``add_batch(**fields)`` hand each module only
    the inputs it declares (one call with ``predictions``, ``references`` and ``sources`` beside ROUGE and
    BLEU), and a compute() option only to the modules that take it.

    Our modules' keys always carry the module's name (``ctc_consistency_mean_score``); the others keep
    theirs, prefixed with their name on a collision (or all, with ``force_prefix=True``), as evaluate does;
    two values that would still share a key are refused, naming both (ours at construction). ``modules`` is
    a list or a dict (its keys are the names) of distinct metrics, ours named as every integration names one
    (:mod:`~nlgmetrics.integrations.naming`: a name, ``(name, config)``, ``(name, config, options)``, its
    compute options then the default of every call, or a loaded module; they load with
    :func:`nlgmetrics.load`), the others loaded or by name (``evaluate.load``). A module that is not ours and
    raises in compute() gives NaN for its numbers with one warning (``strict=True``: the error is raised).
    """
    return Combined(modules, force_prefix=force_prefix, strict=strict)


class Combined(evaluate.module.CombinedEvaluations):
    """What :func:`combine` returns."""

    def __init__(
        self, modules: Sequence[Any] | Mapping[str, Any], force_prefix: bool = False, strict: bool = False
    ):
        force_prefix = check_bool("force_prefix", force_prefix)
        self.guard = ForeignGuard(strict)
        loaded, self.given_options = _members(modules)
        """Each member's compute options given with it (``(name, config, options)``), under each call's."""
        super().__init__(loaded, force_prefix=force_prefix)
        names = self.evaluation_module_names
        self.prefixes = [
            name if names.count(name) == 1 else f"{name}_{names[:i].count(name)}"
            for i, name in enumerate(names)
        ]
        """What a member's keys are prefixed with: its name (``<name>_<i>`` for a name given twice)."""
        self.labels = [
            p if p == m.name else f"{p} ({m.name})" for p, m in zip(self.prefixes, self.evaluation_modules)
        ]
        self.ours = [isinstance(module, NLGMetric) for module in self.evaluation_modules]
        self.inputs = [
            m.inputs if mine else feature_names(m) for m, mine in zip(self.evaluation_modules, self.ours)
        ]
        self._added: list[dict[str, list]] = [{} for _ in self.evaluation_modules]
        """What was added through this object since the last compute(), per member: put back if it fails."""
        self._check_options([dict(given) for given in self.given_options])  # our keys, with their options

    # ---- evaluate's API ------------------------------------------------------------------------------

    def add_batch(self, predictions=None, references=None, **fields: Any) -> None:
        """Each module's own inputs, every one checked before any module receives its batch."""
        batches = self._routed(_fields(predictions, references, fields))
        self._check_batches(batches)
        streamed = [
            module.streamed if mine else False for module, mine in zip(self.evaluation_modules, self.ours)
        ]
        held = [held_examples(module) for module in self.evaluation_modules]
        reached = 0
        try:
            for module, mine, batch in zip(self.evaluation_modules, self.ours, batches):
                if mine or _rows(batch):  # evaluate cannot store a zero-example batch for every module
                    module.add_batch(**batch)
                reached += 1
        except BaseException:  # Ctrl-C too: the batch goes to every module or to none
            self._take_back(reached, streamed, held)
            raise
        for batch, added in zip(batches, self._added):
            for name, values in batch.items():
                added.setdefault(name, []).extend(values)

    def add(self, prediction=None, reference=None, **fields: Any) -> None:
        """One example, checked for every module before any module receives it."""
        example = _fields(prediction, reference, fields)
        self.add_batch(**{name: None if value is None else [value] for name, value in example.items()})

    def compute(self, predictions=None, references=None, **kwargs: Any) -> dict | None:
        """Each module's compute() on its own inputs (or on what was added) and the options it takes; every
        input and option is checked before any module computes."""
        read = {name for inputs in self.inputs for name in inputs}
        given = _fields(
            predictions, references, {k: v for k, v in kwargs.items() if k in read or k in FIELDS}
        )
        options = self._options({k: v for k, v in kwargs.items() if k not in given})
        self._check_options(options)
        if any(value is not None for value in given.values()):
            if not any(self._waiting()):
                batches = self._routed(given)
                self._check_batches(batches, options)
                return self._run(batches, options)
            self.add_batch(**given)  # as evaluate does: the inputs join the examples added before
        self._check_waiting()
        return self._run(None, options)

    def _merge_results(self, results: list[dict]) -> dict:
        placed = self._placed([list(result) for result in results])
        return {placed[i][key]: value for i, result in enumerate(results) for key, value in result.items()}

    # ---- checks --------------------------------------------------------------------------------------

    def _routed(self, fields: dict[str, Any]) -> list[dict[str, Any]]:
        """Each module's own inputs out of ``fields`` (plain lists for the modules that are not ours:
        evaluate reads a pandas Series by position); a field no module reads is an error."""
        read = {name for inputs in self.inputs for name in inputs}
        unread = sorted(name for name, value in fields.items() if value is not None and name not in read)
        if unread:
            raise ValueError(
                f"no module reads {', '.join(unread)}; the inputs are "
                + "; ".join(f"{n}: {', '.join(i)}" for n, i in zip(self.evaluation_module_names, self.inputs))
            )
        return [
            {name: fields.get(name) if mine else _plain(fields.get(name)) for name in inputs}
            for inputs, mine in zip(self.inputs, self.ours)
        ]

    def _check_batches(self, batches: list[dict[str, Any]], options: list[dict] | None = None) -> None:
        """Every module's inputs (and, for a compute(), options) checked before any module receives them."""
        for module, mine, label, batch, i in zip(
            self.evaluation_modules, self.ours, self.labels, batches, range(len(batches))
        ):
            if not mine:
                _check_foreign(label, module, batch)
                continue
            opts, scorer = (None, None) if options is None else (options[i], module.ready_scorer())
            try:
                module.spec.check_call(batch, opts, module.config, scorer=scorer)
            except ValueError as err:
                raise ValueError(f"{label}: {err}") from None

    def _options(self, options: dict[str, Any]) -> list[dict[str, Any]]:
        """Each module's share of the compute() options; an option no module takes is an error."""
        takes = [_compute_options(module) for module in self.evaluation_modules]
        unknown = [name for name in options if not any(t is None or name in t for t in takes)]
        if unknown:
            raise ValueError(
                f"no module takes the option {', '.join(unknown)}; options: "
                + "; ".join(
                    f"{n}: {', '.join(sorted(t or []))}" for n, t in zip(self.evaluation_module_names, takes)
                )
            )
        return [
            {**given, **{k: v for k, v in options.items() if t is None or k in t}}
            for t, given in zip(takes, self.given_options)
        ]

    def _check_options(self, options: list[dict[str, Any]]) -> None:
        """Our modules' options, and the keys they give with them: two on one key is an error."""
        keys = [
            result_keys(module, opts) if mine else []
            for module, mine, opts in zip(self.evaluation_modules, self.ours, options)
        ]
        self._placed(keys)

    def _placed(self, keys: list[list[str]]) -> list[dict[str, str]]:
        """Each member's keys → its key in the combined result: ours ``<prefix>_<key>``; another module's as
        it is, unless another module gives it too or ``force_prefix``. Two on one key: a ValueError."""
        our_keys = {f"{p}_{k}" for p, ks, mine in zip(self.prefixes, keys, self.ours) if mine for k in ks}
        theirs = Counter(k for ks, mine in zip(keys, self.ours) if not mine for k in ks)
        where: dict[str, tuple[int, str]] = {}
        placed = []
        for i, (prefix, ks, mine) in enumerate(zip(self.prefixes, keys, self.ours)):
            names = {}
            for key in ks:
                bare = not (mine or self.force_prefix or theirs[key] > 1 or key in our_keys)
                target = key if bare else f"{prefix}_{key}"
                if target in where:
                    j, other = where[target]
                    raise ValueError(
                        f"combine: {self.labels[j]}'s {other!r} and {self.labels[i]}'s {key!r} would both be "
                        f"{target!r}; give the modules other names (combine({{'<name>': module, ...}}))"
                    )
                where[target] = (i, key)
                names[key] = target
            placed.append(names)
        return placed

    def _waiting(self) -> list[bool]:
        """Whether examples added before wait in each module for compute()."""
        return [
            module.has_added if mine else is_streaming(module)
            for module, mine in zip(self.evaluation_modules, self.ours)
        ]

    def _check_waiting(self) -> None:
        waiting = self._waiting()
        if all(waiting):
            self._check_counts()
            return
        if not any(waiting) or not any(_rows(added) for added in self._added):
            raise ValueError(
                "combine: no examples to score; pass the inputs to compute() or add them with add() / "
                "add_batch() first"
            )
        missing = [label for label, waits in zip(self.labels, waiting) if not waits]
        raise ValueError(
            f"combine: examples wait in some modules but not in {', '.join(missing)}: add them through the "
            "combined object (its add/add_batch feed every module)"
        )

    def _check_counts(self) -> None:
        """Every member holds as many examples as the others (examples added to a member directly, not
        through this object, would be scored beside others' other examples): else one line naming them."""
        counts = [held_examples(module) for module in self.evaluation_modules]
        if len(set(counts)) > 1:
            held = ", ".join(f"{label} {count}" for label, count in zip(self.labels, counts))
            raise ValueError(
                f"combine: the modules hold different numbers of examples ({held}), so their numbers would "
                "not describe the same examples; add every example through the combined object (its "
                "add/add_batch feed every module), or compute() each module alone"
            )

    # ---- computing -----------------------------------------------------------------------------------

    def _run(self, batches: list[dict] | None, options: list[dict]) -> dict | None:
        """Every module's compute(); if one fails (or the keys collide), what was added is put back."""
        results: list = []
        try:
            with self.guard.reporting():
                for module, mine, label, i in zip(
                    self.evaluation_modules, self.ours, self.labels, range(len(options))
                ):
                    call = {**(batches[i] if batches else {}), **options[i]}
                    results.append(
                        module.compute(**call) if mine else self.guard.compute(module, label, **call)
                    )
                # evaluate's distributed mode: processes other than 0 get None
                merged = None if all(r is None for r in results) else self._merge_results(results)
        except BaseException:
            if batches is None:
                self._put_back(len(results))
            raise
        if batches is None:
            self._added = [{} for _ in self.evaluation_modules]
        return merged

    def _take_back(self, reached: int, streamed: list[bool], held: list[int]) -> None:
        """After an add_batch that stopped at member ``reached`` (an error, Ctrl-C): that member and those
        before it hold again only the ``held`` examples they held before the batch, their caches cut back to
        them (a member's own add_batch, which may fail again, is not called), so every member holds the same
        examples. A cache that cannot show them is emptied and refilled with what was added through this
        object; a member that fails then is said in a warning, and compute() refuses the uneven counts."""
        for i in range(min(reached + 1, len(self.evaluation_modules))):
            module, mine, added = self.evaluation_modules[i], self.ours[i], self._added[i]
            if mine:
                module.streamed = streamed[i]
            if keep_first(module, held[i]):
                continue
            discard_cache(module)
            try:
                if _rows(added) or (mine and added):
                    module.add_batch(**added)
            except Exception as err:
                warn(
                    f"combine: {self.labels[i]} lost the {_rows(added)} examples added before, raising "
                    f"{type(err).__name__} when given them back: {err}"
                )

    def _put_back(self, done: int) -> None:
        """After a failed compute() of what was added: the modules that computed (and one of the others that
        failed: evaluate dropped its examples) get back what was added through this object, so every module
        holds its examples again (ours that fail put theirs back themselves)."""
        for i, (module, mine, added) in enumerate(zip(self.evaluation_modules, self.ours, self._added)):
            if (i < done or (i == done and not mine)) and (_rows(added) or (mine and added)):
                module.add_batch(**added)


class ForeignGuard:
    """The compute() of evaluate modules that are not ours, so that one metric's bug does not end a long run:
    a module that raises gives NaN for its numbers, with one warning naming it and the error
    (``strict=True``: the error is raised). Its numbers are the keys whose values were numbers in its last
    successful result; before any success, its name is the one key (``bleu``). Either way its examples are
    gone, as after a success: evaluate finalised them (its cache files are deleted here)."""

    def __init__(self, strict: bool = False):
        self.strict = check_bool("strict", strict)
        self._numbers: dict[int, tuple[str, ...]] = {}
        self._failures: list[str] = []

    def compute(self, module: Any, label: str, /, **inputs: Any) -> dict | None:
        """``module.compute(**inputs)``, or NaN for its numbers if it raises (the warning waits for the end
        of :meth:`reporting`)."""
        try:
            result = module.compute(**inputs)
        except BaseException as err:
            discard_cache(module)  # evaluate leaves the finalised cache files and their locks behind
            if self.strict or not isinstance(err, Exception):
                raise
            keys = self._numbers.get(id(module)) or (module.name,)
            self._failures.append(
                f"{label} raised {type(err).__name__}: {err}; {', '.join(keys)} "
                f"{'is' if len(keys) == 1 else 'are'} NaN this time (strict=True raises instead)"
            )
            return dict.fromkeys(keys, math.nan)
        values = result.items() if isinstance(result, Mapping) else ()
        numbers = tuple(k for k, v in values if _is_number(v))
        if numbers:
            self._numbers[id(module)] = numbers
        return result

    @contextmanager
    def reporting(self, show: bool = True) -> Iterator[None]:
        """One warning per module that failed in the block, after it (outside any capture of warnings the
        block makes); none when ``show`` is False (the other processes of a DDP run)."""
        self._failures = []
        yield
        failures, self._failures = self._failures, []
        for message in failures if show else ():
            warn(message)


def result_keys(module: NLGMetric, options: Mapping[str, Any]) -> list[str]:
    """The keys our module's compute() returns with ``options`` (checked here): its zero-example result's,
    which has every key a result has (sub-scores and their means, details, signature)."""
    scorer = module.ready_scorer()
    checked = module.spec.check_call(None, dict(options), module.config, scorer=scorer)[1]
    return list(scorer.run({name: [] for name in module.inputs}, checked))


def feature_names(module: Any) -> tuple[str, ...]:
    """The input names an evaluate module declares (its first features, when it has several)."""
    features = module.features
    return tuple((features[0] if isinstance(features, list) else features).keys())


# ---- helpers --------------------------------------------------------------------------------------------


def _members(modules: Any) -> tuple[list | dict, list[dict[str, Any]]]:
    """The members loaded (a list, or a dict by name) and each one's compute options; every member is named
    and checked before any loads."""
    if isinstance(modules, Mapping):
        _check_names(modules)
        named = {name: _named(module, f"combine: modules[{name!r}]") for name, module in modules.items()}
        members = {name: _loaded(one) for name, one in named.items()}
        loaded: Any = {name: module for name, (module, _) in members.items()}
        _refuse_repeats(list(loaded.values()), [repr(name) for name in loaded])
        return loaded, [options for _, options in members.values()]
    listed = as_list(modules) or _refuse_modules(modules)
    named = [_named(module, f"combine: modules[{i}]") for i, module in enumerate(listed)]
    pairs = [_loaded(one) for one in named]
    loaded = [module for module, _ in pairs]
    _refuse_repeats(loaded, [f"#{i} ({module.name})" for i, module in enumerate(loaded)])
    return loaded, [options for _, options in pairs]


def _named(module: Any, argument: str) -> NamedMetric | str:
    """A member named as every integration names a metric (:func:`~.naming.metric_named`, another evaluate
    module loaded too); the name of another evaluate module as it is, for :func:`_loaded`."""
    if isinstance(module, str) and module not in SPECS:
        return module
    return metric_named(module, argument=argument, others=True)


def _loaded(named: NamedMetric | str) -> tuple[Any, dict[str, Any]]:
    """(the module, its compute options): ours loaded with nlgmetrics.load, another by its name with
    evaluate.load."""
    if isinstance(named, NamedMetric):
        return named.load(), named.compute_options
    return _evaluate_load(named), {}


def _evaluate_load(module: str) -> Any:
    """Another evaluate module by its name; one line saying what to do when evaluate finds none."""
    try:
        return evaluate.load(module)
    except FileNotFoundError:
        offline = " (HF_EVALUATE_OFFLINE is set: evaluate does not look on the Hub)"
        raise ValueError(
            f"combine: {module!r} is not an nlgmetrics module ({', '.join(module_names())}) and evaluate "
            f"found no module of that name{offline if evaluate.config.HF_EVALUATE_OFFLINE else ''}; check "
            "the name, or pass the module loaded (evaluate.load('rouge') needs the network once; a local "
            "module loads from its folder)"
        ) from None


def _refuse_modules(modules: Any) -> list:
    raise ValueError(f"combine takes a list or a dict of modules, got {modules!r}")


def _check_names(modules: Mapping) -> None:
    bad = [name for name in modules if not isinstance(name, str) or not name]
    if bad or not modules:
        raise ValueError(f"combine takes a dict of names (strings) to modules, got {modules!r}")


def _refuse_repeats(modules: list, names: list[str]) -> None:
    """The same module object twice would receive every batch twice and lose its examples at the first
    compute(): refused."""
    seen: dict[int, str] = {}
    for name, module in zip(names, modules):
        if id(module) in seen:
            raise ValueError(
                f"combine: {seen[id(module)]} and {name} are the same module object, which would receive "
                "every example twice; load it once per entry (nlgmetrics.load / evaluate.load)"
            )
        seen[id(module)] = name


def _fields(predictions: Any, references: Any, others: dict[str, Any]) -> dict[str, Any]:
    return {"predictions": predictions, "references": references, **others}


def _plain(values: Any) -> Any:
    """A field as a plain list of plain values (a pandas Series, a numpy array, a ``datasets`` column; its
    numpy rows and scalars too); anything else as it is (refused by the checks)."""
    listed = as_list(values)
    if listed is None:
        return values
    return [plain_scalar(item) if (nested := as_list(item)) is None else nested for item in listed]


def _rows(batch: Mapping[str, Any]) -> int:
    """The number of examples in a routed batch (0 for an empty one)."""
    return max((len(values) for values in batch.values() if isinstance(values, list)), default=0)


def _check_foreign(label: str, module: Any, batch: dict[str, Any]) -> None:
    """A batch of a module that is not ours, checked as its add_batch would check it, storing nothing."""
    for name, values in batch.items():
        if not isinstance(values, list):
            what = "missing (None)" if values is None else f"a {type(values).__name__}"
            raise ValueError(
                f"combine: {label} needs {name}, a list with one entry per example; it is {what}"
            )
    sizes = {name: len(values) for name, values in batch.items()}
    first = next(iter(sizes))
    for name, size in sizes.items():
        if size != sizes[first]:
            raise ValueError(
                f"combine: {label}: {name} has {size} examples but {first} has {sizes[first]}; they must "
                "be aligned"
            )
    if not sizes[first]:
        return
    try:
        check_batch(module, batch)
    except Exception as err:  # evaluate's and pyarrow's errors, said in one line
        reason = " ".join(str(err).split())
        raise ValueError(
            f"combine: {label} cannot take these inputs: {type(err).__name__}: {reason}"
        ) from None


def _compute_options(module: Any) -> set[str] | None:
    """The compute() options a module takes (None: any, its ``_compute`` takes ``**kwargs``)."""
    if isinstance(module, NLGMetric):
        return {o.name for o in module.spec.all_compute_options}
    keywords = compute_keywords(module)
    return None if keywords is None else keywords - set(feature_names(module))


def _is_number(value: Any) -> bool:
    """A number a log can hold: an int or a float, Python's or numpy's (a 0-d array too), not a boolean."""
    value = plain_scalar(value)
    return isinstance(value, (int, float)) and not isinstance(value, bool)


__all__ = ["Combined", "ForeignGuard", "combine", "feature_names", "result_keys"]
