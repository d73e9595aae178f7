"""The metrics as training rewards: TRL's ``GRPOTrainer`` and ``RLOOTrainer`` take :func:`reward`'s object.

    consistency = nlgmetrics.reward("ctc_consistency", "E-minilm", sources="document")
    trainer = GRPOTrainer(model=..., reward_funcs=[consistency, other_reward], train_dataset=ds, args=...)

TRL (1.x) calls a plain reward as ``f(prompts=..., completions=..., completion_ids=..., **columns,
trainer_state=..., log_extra=..., log_metric=...)``, ``columns`` being the dataset's other columns repeated
once per generation, and reads one float per completion (None: missing, NaN to TRL). A :class:`Reward`
scores all of a call's completions in one batched ``compute()``; a completion that scores NaN (blank)
gives None; a multi-part metric's sub-score means go to ``log_metric`` as ``<name>/<part>``. It loads its
module once per process, at its first call, on that process's device (``cuda:<LOCAL_RANK>`` under a
launcher), and pickles without it; what that load would refuse (an option this machine cannot run, weights
neither cached nor downloadable) is refused when the reward is made. :mod:`nlgmetrics.rewards` holds a ready
one per module, for TRL's ``--reward_funcs`` dotted paths.

Importing this module loads no model library.
"""

from __future__ import annotations

import asyncio
import math
import os
import threading
import weakref
from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from typing import Any

from ..core.modes import refuse_undeclared
from ..core.options import RUNTIME_OPTIONS
from ..core.spec import ModuleSpec
from ..core.validation import as_list
from ..core.values import plain_scalar
from ..modules import SPECS, loading
from .naming import metric_named

FIELD_NAMES = ("sources", "contexts", "references", "questions")
PROMPT = "prompt"
"""A field given as ``"prompt"`` reads the prompt's text (a conversation's messages, one per line)."""
NOT_COLUMNS = frozenset({"trainer_state", "log_extra", "log_metric", "environments", "completion_ids"})
"""What TRL passes a reward beside the dataset's columns."""
FieldSource = str | Callable[..., str] | None
"""A field: a column's name, ``"prompt"``, a function ``(prompt, **columns) -> str``, or None (not given)."""
CPU_TOKEN_BUDGET = 1024
"""``max_batch_tokens`` of a reward's module on the CPU when neither it nor ``batch_size`` is given: 16 rows
(the CPU's default batch) of 64 tokens. A call's few documents and its completions then run in batches of
their own length, not in one batch padded to the longest document (2.6 times the tokens for 2 CNN/DM
articles and 8 summaries: benchmarks/results/reward_overhead.md); the scores are the module's, up to the
float32 rounding of other batch shapes. (On cuda the module batches by a token budget already.)"""


def reward(
    metric: Any,
    config: str | None = None,
    *,
    sources: FieldSource = None,
    contexts: FieldSource = None,
    references: FieldSource = None,
    questions: FieldSource = None,
    part: str | None = None,
    weights: Mapping[str, float] | None = None,
    name: str | None = None,
    offload: bool = False,
    concurrent: bool = False,
    **options: Any,
) -> Reward:
    """A reward function for TRL's ``GRPOTrainer`` / ``RLOOTrainer`` (``reward_funcs=[...]``): one float per
    completion, from one batched ``compute()`` of the call's completions.

    ``metric``: a metric named as every integration names one (:mod:`~nlgmetrics.integrations.naming`): a
    module name, ``(name, config)``, ``(name, config, options)`` or a module of ours loaded already (then only
    compute options); ``config`` (None: the default) and ``options`` (its load options: ``dtype``,
    ``batch_size``, ``aligner``, ...; and its compute options: ``aggregation``, ``dimensions``, ...) may be
    given here as keywords instead. ``sources``, ``contexts``, ``references``, ``questions`` (optional where
    the module says so: LettuceDetect's): each field the metric reads, as a dataset column's name,
    ``"prompt"`` (the prompt's
    text) or a function ``(prompt, **columns) -> str`` of one example. ``part`` scores one sub-score of a
    multi-part metric (a UniEval dimension, a USR sub-metric), ``weights`` ({part: weight}) their weighted
    sum. ``name`` is TRL's log key (``rewards/<name>/mean``; default the module's name, ``<module>_<part>``
    with ``part``; two rewards of one trainer under one name are refused at their first call).
    ``offload=True`` keeps the models on the CPU between calls; ``concurrent=True`` gives an ``async`` reward
    that TRL runs beside its other async rewards (the scoring in a worker thread). On the CPU, with neither
    ``batch_size`` nor ``max_batch_tokens`` given, the module batches by :data:`CPU_TOKEN_BUDGET` tokens.
    """
    if not isinstance(concurrent, bool):
        raise ValueError(f"concurrent={concurrent!r} must be True or False")
    kind = ConcurrentReward if concurrent else Reward
    fields = {"sources": sources, "contexts": contexts, "references": references, "questions": questions}
    return kind(metric, config, part=part, weights=weights, name=name, offload=offload, **fields, **options)


class Reward:
    """A metric as a TRL reward function: see :func:`reward`. Picklable and deep-copyable (the loaded module
    stays behind; a copy loads its own at its first call, from the process-wide weight cache).

    ``signature`` is the last call's result signature (None before the first call).
    """

    def __init__(
        self,
        metric: Any,
        config: str | None = None,
        *,
        sources: FieldSource = None,
        contexts: FieldSource = None,
        references: FieldSource = None,
        questions: FieldSource = None,
        part: str | None = None,
        weights: Mapping[str, float] | None = None,
        name: str | None = None,
        offload: bool = False,
        **options: Any,
    ):
        named = metric_named(metric, config=config, options=options)
        self.metric, self.config, self.load_options = named.name, named.config, named.load_options
        self._given = named.module
        spec = SPECS[self.metric]
        if self._given is None:
            _check_loadable(spec, self.config, self.load_options)
        self.compute_options = named.compute_options
        given = {"sources": sources, "contexts": contexts, "references": references, "questions": questions}
        narrowed = any(o.name in self.compute_options for o in spec.compute_options)  # the family's own
        self.fields = _checked_fields(spec, self.config, given, narrowed=narrowed)
        self.part, self.weights = _checked_part(spec, self.config, self.compute_options, part, weights)
        if name is not None and (not isinstance(name, str) or not name):
            raise ValueError(f"name={name!r} must be a non-empty string (TRL logs rewards/<name>/mean)")
        if not isinstance(offload, bool):
            raise ValueError(f"offload={offload!r} must be True or False")
        self.__name__ = name or (f"{self.metric}_{part}" if part else self.metric)
        self.offload = offload
        self.signature: str | None = None
        self._loaded: tuple | None = None
        """(process id, module, Offload or None): what this process loaded, at its first call."""
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        fields = "".join(
            f", {k}={v if isinstance(v, str) else getattr(v, '__name__', v)!r}"
            for k, v in self.fields.items()
        )
        picked = (
            f", part={self.part!r}" if self.part else f", weights={self.weights!r}" if self.weights else ""
        )
        return (
            f"{type(self).__name__}({self.__name__!r}: {self.metric} "
            f"{self.config or 'default'}{fields}{picked})"
        )

    # ---- pickling: the settings travel, the loaded module does not ---------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        state = {k: v for k, v in self.__dict__.items() if k != "_lock"}
        state["_given"] = state["_loaded"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    # ---- one call -------------------------------------------------------------------------------------

    def __call__(
        self, prompts: Sequence | None = None, completions: Sequence | None = None, **kwargs: Any
    ) -> list[float | None]:
        """One float per completion (None where the metric gives NaN: a blank text), from one compute() of
        them all; ``kwargs`` are TRL's (the dataset's columns, ``log_metric``, ...)."""
        _claim_name(self, kwargs.get("trainer_state"))
        texts = self._texts(prompts, completions, {k: v for k, v in kwargs.items() if k not in NOT_COLUMNS})
        module, offload = self._module()
        scorer = module.ready_scorer()  # the module's examples added with add_batch stay where they are
        with offload.on_accelerator() if offload is not None else nullcontext():
            result = scorer.run(
                *module.spec.check_call(texts, self.compute_options, module.config, scorer=scorer)
            )
        self.signature = result.get("signature")
        log_metric = kwargs.get("log_metric")
        if callable(log_metric):
            for key, value in result.items():
                if key.startswith("mean_") and key != "mean_score" and math.isfinite(value):
                    log_metric(f"{self.__name__}/{key.removeprefix('mean_')}", float(value))
        return self._rewards(result)

    def _texts(
        self, prompts: Sequence | None, completions: Sequence | None, columns: dict
    ) -> dict[str, list]:
        """compute()'s fields: the completions' texts, and each field from its column, the prompts or its
        function; a column the dataset lacks is a ValueError naming the dataset's columns, and every list
        read (a column, the prompts) must hold one value per completion."""
        listed = as_list(completions)
        if listed is None:
            raise ValueError(
                f"reward {self.__name__!r}: completions must be a list with one text or conversation per "
                f"completion, got {type(completions).__name__}"
            )
        n = len(listed)
        texts = {"predictions": [completion_text(c, i) for i, c in enumerate(listed)]}
        for field, source in self.fields.items():
            if isinstance(source, str) and source != PROMPT:
                if source not in columns:
                    raise ValueError(
                        f"reward {self.__name__!r}: {field}={source!r} is not a column of the dataset; its "
                        "columns: "
                        f"{', '.join([PROMPT, *columns]) if prompts is not None else ', '.join(columns)}"
                    )
                texts[field] = self._column(f"column {source!r} ({field})", columns[source], n)
            else:
                texts[field] = self._from_prompts(field, source, prompts, columns, n)
        return texts

    def _column(self, label: str, values: Any, n: int) -> list:
        """``values`` as a list of one value per completion (a string is one value, not a column of
        letters); else a ValueError naming ``label``."""
        listed = as_list(values)
        if listed is None:
            raise ValueError(
                f"reward {self.__name__!r}: {label} must be a list with one value per completion, got "
                f"{type(values).__name__} {values!r:.60}"
            )
        if len(listed) != n:
            raise ValueError(
                f"reward {self.__name__!r}: {label} has {len(listed)} value(s) for {n} completion(s): give "
                "one per completion"
            )
        return listed

    def _from_prompts(
        self, field: str, source: Any, prompts: Sequence | None, columns: dict, n: int
    ) -> list[str]:
        """A field read from the prompts: their text, or ``source(prompt, **columns)`` of each example."""
        if prompts is None:
            raise ValueError(
                f"reward {self.__name__!r}: {field} is read from the prompts; give prompts=[...]"
            )
        prompts = self._column("prompts", prompts, n)
        if source == PROMPT:
            return [prompt_text(p, i) for i, p in enumerate(prompts)]
        columns = {name: self._column(f"column {name!r}", values, n) for name, values in columns.items()}
        values = []
        for i, prompt in enumerate(prompts):
            value = source(prompt, **{k: v[i] for k, v in columns.items()})
            if not isinstance(value, str):
                raise ValueError(
                    f"reward {self.__name__!r}: {field}[{i}]: {getattr(source, '__name__', source)} returned "
                    f"{type(value).__name__}, not a string"
                )
            values.append(value)
        return values

    def _module(self) -> tuple[Any, Any]:
        """(the module, its Offload or None), loaded once per process at the first call."""
        loaded = self._loaded
        if loaded is None or loaded[0] != os.getpid():
            with self._lock:
                loaded = self._loaded
                if loaded is None or loaded[0] != os.getpid():
                    loaded = self._loaded = (os.getpid(), *self._load())
        return loaded[1], loaded[2]

    def _load(self) -> tuple[Any, Any]:
        from ..core.device import process_device, select_device  # torch: when used
        from ..core.weight_cache import Offload

        module = self._given
        if module is None:
            options = dict(self.load_options)
            options.setdefault("device", process_device())  # each rank on its own GPU, not all on cuda:0
            batching = (options.get("batch_size"), options.get("max_batch_tokens"))
            if batching == (None, None) and select_device(options["device"]).type == "cpu":
                options["max_batch_tokens"] = CPU_TOKEN_BUDGET
            module = loading.load(self.metric, self.config, **options)
        return module, Offload([module.ready_scorer()]) if self.offload else None

    def _rewards(self, result: dict) -> list[float | None]:
        if self.weights:
            parts = [(result[part], weight) for part, weight in self.weights.items()]
            values = [
                sum(weight * column[i] for column, weight in parts) for i in range(len(result["scores"]))
            ]
        else:
            values = result[self.part or "scores"]
        return [None if math.isnan(value) else float(value) for value in map(float, values)]


class ConcurrentReward(Reward):
    """:class:`Reward` as an ``async`` callable (``reward(..., concurrent=True)``): TRL gathers its async
    rewards on one event loop, so the scoring, in a worker thread, overlaps the other async rewards (a
    remote judge's requests, another ConcurrentReward)."""

    async def __call__(  # type: ignore[override]
        self, prompts: Sequence | None = None, completions: Sequence | None = None, **kwargs: Any
    ) -> list[float | None]:
        return await asyncio.to_thread(Reward.__call__, self, prompts, completions, **kwargs)


_NAMES: dict[int, tuple[weakref.ref, dict[str, int]]] = {}
"""id(a trainer's state) → (a weak reference to it, {reward name: id of the reward that logs under it})."""
_NAMES_LOCK = threading.Lock()


def _claim_name(owner: Reward, trainer_state: Any) -> None:
    """Refuse a second reward of one trainer (TRL passes each its ``trainer_state``) under a name another
    holds: TRL would merge their numbers into one ``rewards/<name>/mean``."""
    if trainer_state is None:
        return
    key = id(trainer_state)
    with _NAMES_LOCK:
        entry = _NAMES.get(key)
        if entry is None or entry[0]() is not trainer_state:
            forget = lambda _, key=key: _NAMES.pop(key, None)  # noqa: E731 - the trainer's state is gone
            entry = _NAMES[key] = (weakref.ref(trainer_state, forget), {})
        holder = entry[1].setdefault(owner.__name__, id(owner))
    if holder != id(owner):
        raise ValueError(
            f"two rewards of this trainer are named {owner.__name__!r}: TRL would log them as one "
            f"(rewards/{owner.__name__}/mean); give each its own name="
        )


# ---- what a reward reads --------------------------------------------------------------------------------


def completion_text(completion: Any, index: int) -> str:
    """A completion's text: the string, or a conversation's last assistant message's content."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and all(isinstance(m, Mapping) for m in completion):
        replies = [m for m in completion if m.get("role") == "assistant"]
        if replies:
            return content_text(replies[-1].get("content"), f"completions[{index}]")
    raise ValueError(
        f"completions[{index}] must be a string or a list of messages with an assistant message, got "
        f"{completion!r:.80}"
    )


def prompt_text(prompt: Any, index: int) -> str:
    """A prompt's text: the string, or a conversation's messages' contents one per line (system messages
    left out: they instruct the policy, they are not the document or the dialogue)."""
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, Sequence) and all(isinstance(m, Mapping) for m in prompt):
        return "\n".join(
            content_text(m.get("content"), f"prompts[{index}]") for m in prompt if m.get("role") != "system"
        )
    raise ValueError(f"prompts[{index}] must be a string or a list of messages, got {prompt!r:.80}")


def content_text(content: Any, where: str = "content") -> str:
    """A message's content as text: a string, or its text blocks (``{"type": "text", "text": ...}``) one per
    line, other blocks (an image) left out; no content (a tool call) is empty. Anything else is a ValueError
    naming ``where`` (``completions[3]``)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    blocks = as_list(content)
    if blocks is None:
        raise ValueError(
            f"{where}: a message's content must be a string or a list of content blocks "
            f'({{"type": "text", "text": ...}}), got {type(content).__name__} {content!r:.60}'
        )
    texts = []
    for j, block in enumerate(blocks):
        if not isinstance(block, Mapping) or (
            block.get("type") == "text" and not isinstance(block.get("text"), str)
        ):
            raise ValueError(
                f'{where}: content block {j} must be a dict {{"type": "text", "text": "..."}} (or another '
                f"type's block), got {block!r:.60}"
            )
        if block.get("type") == "text":
            texts.append(block["text"])
    return "\n".join(texts)


# ---- construction checks --------------------------------------------------------------------------------


def _checked_fields(
    spec: ModuleSpec, config: str | None, given: dict[str, Any], *, narrowed: bool
) -> dict[str, str | Callable]:
    """The fields given, each a column name, "prompt" or a function, and each read by the config; a field the
    config reads that is not given is a ValueError, unless the family's own compute options were given (they
    may narrow what is read: UniEval's dimensions): the module then checks at the first call."""
    inputs = spec.inputs_for(config)
    for field, source in given.items():
        if source is None:
            continue
        if not callable(source) and not (isinstance(source, str) and source):
            raise ValueError(
                f'{field}={source!r} must be a dataset column\'s name, "prompt" or a function '
                "(prompt, **columns) -> str"
            )
        if field not in inputs:
            raise ValueError(
                f"{spec.name} ({config or spec.default_config}) does not read {field}; its inputs are "
                f"{', '.join(inputs)}: leave {field}= out"
            )
    missing = [f for f in inputs if f not in ("predictions", *spec.optional_inputs) and given.get(f) is None]
    if missing and not narrowed:
        raise ValueError(
            f"{spec.name} ({config or spec.default_config}) reads {', '.join(missing)}: give "
            f'{missing[0]}=<a dataset column, e.g. "document">, "prompt" (the prompt\'s text) or a function '
            "(prompt, **columns) -> str"
        )
    return {f: given[f] for f in FIELD_NAMES if given.get(f) is not None}


def _checked_part(
    spec: ModuleSpec, config: str | None, options: dict, part: Any, weights: Any
) -> tuple[str | None, dict[str, float] | None]:
    """``part`` one of the call's sub-scores, or ``weights`` a {sub-score: finite number} mapping."""
    if part is None and weights is None:
        return None, None
    parts = spec.parts_for(config, options)
    label = f"{spec.name} ({config or spec.default_config})"
    if not parts:
        multi = ", ".join(name for name in SPECS if SPECS[name].parts is not None)
        raise ValueError(f"{label} has one score, no parts: part= and weights= are for {multi}")
    if part is not None and weights is not None:
        raise ValueError("give part= (one sub-score) or weights= (a weighted sum of them), not both")
    if part is not None:
        if part not in parts:
            raise ValueError(f"{label} has no part {part!r}; its parts: {', '.join(parts)}")
        return part, None
    if not isinstance(weights, Mapping) or not weights:
        raise ValueError(f"weights={weights!r} must map parts to numbers, e.g. {{{parts[0]!r}: 1.0}}")
    if unknown := [p for p in weights if p not in parts]:
        raise ValueError(
            f"weights: {label} has no part {', '.join(map(repr, unknown))}; its parts: {', '.join(parts)}"
        )
    numbers = {key: plain_scalar(value) for key, value in weights.items()}  # numpy's numbers taken too
    for key, value in numbers.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise ValueError(f"weights[{key!r}]={weights[key]!r} must be a finite number")
    return None, {key: float(value) for key, value in numbers.items()}


def _check_loadable(spec: ModuleSpec, config: str | None, load: dict[str, Any]) -> None:
    """What loading the module at the first call would refuse, refused now, before any model loads (TRL
    imports ``--reward_funcs`` at start-up; a run reaches its first reward after the policy loaded and
    generated): the options that say where and how to run, resolved by ``Runtime.resolve`` on this process's
    device as the module's load resolves them (float16 on the CPU, bfloat16 with int8, ...), int8 where the
    config refuses it (the scorers' own check), and the config's registered weights when they are neither
    cached nor downloadable (offline, or not published on the Hub). Nothing is downloaded here. The weights
    options are checked as every load checks them (:meth:`~nlgmetrics.core.spec.ModuleSpec.check_weights`:
    a revision without its model, a folder that holds no such model, a config and a model that disagree)."""
    spec.check_weights(config, load)
    runtime = {k: v for k, v in load.items() if k in RUNTIME_OPTIONS}
    if runtime:  # the defaults run anywhere: torch is imported only to check what was asked
        from ..core.device import process_device
        from ..core.runtime import Runtime

        runtime.setdefault("device", process_device())
        resolved = Runtime.resolve(**runtime)
        refuse_undeclared(spec, resolved.quantize, load.get(spec.config_option) or config)
    if any(load.get(option.name) is not None for option in spec.load_options):
        return  # the user's own weights (an aligner, a model folder): loading checks them
    from ..availability import config_status
    from ..core.hub import WeightsUnavailableError, hub_offline, unavailable
    from ..core.registry import is_published

    config = config or spec.default_config
    for weight in config_status(spec, config).missing:
        if hub_offline() or not is_published(weight):
            why = "this machine is offline (HF_HUB_OFFLINE=1)"
            cause = unavailable(weight.repo_id, weight.revision, why)
            message = f"{spec.name} ({config}) cannot load: {cause}"
            raise WeightsUnavailableError(message).adding(spec.offline_way(config, message))


__all__ = ["ConcurrentReward", "Reward", "completion_text", "prompt_text", "reward"]
