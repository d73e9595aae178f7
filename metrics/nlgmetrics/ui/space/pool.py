"""The Space's models and requests: the loaded modules shared by every user within a memory budget
(:class:`ModelPool`), the checks every request passes (:func:`score_records`), and the errors shown to
users (:class:`SpaceError`).

The budget (``NLGMETRICS_SPACE_MAX_MODEL_MB``, default :func:`default_budget_mb`) counts the weights the
pool holds once per set of weights, as the process-wide weight cache keys them
(:func:`...core.weight_cache.weight_sets`): five CTC modules on one MiniLM hold one set. Past the budget, the
least recently used set of weights that no request is using leaves: every module built on it is evicted
(they are all idle) and its weights leave the cache and are freed (a set also used by a module that stays
is kept). One set bigger than the whole budget is served alone, by the modules that share it. Concurrent
requests for the same model and options are scored in one compute() (:mod:`.merging`).
A model is held per (module, config) and per the precision a request asks for (the load options
:data:`SPACE_LOAD_OPTIONS`, e.g. ``dtype="bfloat16"``): each precision is its own set of weights.

"""

from __future__ import annotations

import contextvars
import json
import os
import re
import sys
import threading
import time
import weakref
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, NamedTuple

from ...availability import UNPUBLISHED, ConfigStatus, config_status, default_choice
from ...columns import unused_columns
from ...core.hub import WeightsUnavailableError, hub_offline
from ...core.modes import refuse_undeclared
from ...core.registry import how_to_get, is_published, load_hint
from ...core.spec import ModuleSpec
from ...core.validation import FIELDS
from ...modules import SPECS, loading, module_names
from ..limits import Limits, check_option_sizes
from ..uploads import records_to_fields
from . import malloc, zerogpu
from .merging import Merger

DEFAULT = "(default)"
"""The value of an option or config drop-down that leaves the choice to the module."""

SPACE_LOAD_OPTIONS = ("dtype", "quantize")
"""The load options a visitor may choose (the precision: :data:`~nlgmetrics.core.options.COMMON_LOAD_OPTIONS`'
rows); where the models run and their batch sizes are the Space's own."""

Key = tuple
"""A held model: ``(module, config)``, then ``(name, value)`` of each chosen load option, sorted."""


def pool_key(name: str, config: str, load: dict[str, Any] | None = None) -> Key:
    """The key of module ``name`` with ``config`` loaded with ``load`` (the default precision: no more).

    >>> pool_key("infolm", "bert-base-uncased", {"quantize": "int8"})
    ('infolm', 'bert-base-uncased', ('quantize', 'int8'))
    """
    return (name, config, *sorted((load or {}).items()))


def key_label(key: Key) -> str:
    """``module:config`` with the chosen load options, for messages and thread names.

    >>> key_label(("infolm", "bert-base-uncased", ("dtype", "bfloat16")))
    'infolm:bert-base-uncased (dtype=bfloat16)'
    """
    extra = ", ".join(f"{name}={value}" for name, value in key[2:])
    return f"{key[0]}:{key[1]}" + (f" ({extra})" if extra else "")


MB = 2**20
"""A megabyte of the budget: 2**20 bytes."""
BUDGET_SHARE = 0.5
"""The default budget's share of the memory the models live in: the GPU's on cuda, else the machine's
(the container's limit when lower); the rest is for activations, tokenizers and the app."""


class SpaceError(ValueError):
    """A request the Space refuses or cannot serve; the message is shown to the user as it is."""


class ConfigUnavailable(SpaceError):
    """A registered config whose weights are not on this machine: the page's wording (which may point to
    the page's collapsible note); :func:`api_message` says it all in one message for API clients."""

    def __init__(self, status: ConfigStatus):
        super().__init__(status.message())
        self.status = status


def api_message(status: ConfigStatus) -> str:
    """Why the config cannot load here, self-contained (an API client sees no page): each missing weight with
    the one way to get it (``hf download``, or where the authors' checkpoint is, the conversion command and
    the command-line flag that scores with the converted folder), and the configs that load now."""
    where = "this machine is offline" if hub_offline() else "not downloaded yet"
    needs = [
        f"{w.repo_id} is not in the Space's cache ({where}): {how_to_get(w, 'cli')}"
        if is_published(w)
        else f"{w.repo_id} is not published on the Hub yet, so this Space cannot load it; on your own "
        f"machine (pip install nlgmetrics), {w.unpublished_advice.format(hint=load_hint(w, 'cli'))}"
        for w in status.missing
    ]
    instead = f"; configs that load now: {', '.join(status.loads_now)}" if status.loads_now else ""
    return f"Config {status.config} of {status.module} cannot load in this Space: {'; '.join(needs)}{instead}"


def missing_package(module: str, package: str) -> str:
    """What a visitor is told when ``module`` needs a Python package this Space lacks: what is missing and
    what the Space's operator does (the package's extra of nlgmetrics in the Space's requirements.txt), never
    an install command to run (a visitor cannot install anything here)."""
    extra = extra_providing(package)
    fix = f"the `{extra}` extra (`nlgmetrics[{extra}]`)" if extra else f"the `{package}` package"
    return (
        f"This Space cannot run {module}: it lacks the Python package `{package}`, which {module} needs. The "
        f"Space's operator adds {fix} to the Space's requirements.txt; the other modules run as usual."
    )


def extra_providing(package: str) -> str | None:
    """The extra of the installed nlgmetrics distribution that brings ``package`` (``spacy`` → ``usr``),
    else None."""
    try:
        requirements = metadata.requires("nlgmetrics") or []
    except metadata.PackageNotFoundError:  # a checkout on sys.path, not installed
        return None
    wanted = re.sub(r"[-_.]+", "-", package).lower()
    for requirement in requirements:
        name = re.split(r"[\s<>=!~;\[(]", requirement, maxsplit=1)[0]
        extra = re.search(r"extra\s*==\s*[\"']([^\"']+)[\"']", requirement)
        if extra and re.sub(r"[-_.]+", "-", name).lower() == wanted and extra.group(1) not in ("all", "test"):
            return extra.group(1)
    return None


def machine_memory() -> int:
    """Bytes of memory this process may use: the machine's, or the container's (cgroup) limit when lower."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for limit in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = Path(limit).read_text().strip()
        except OSError:
            continue
        if text.isdigit():
            total = min(total, int(text))
    return total


def default_budget_mb() -> int:
    """:data:`BUDGET_SHARE` of the GPU's memory when the models run on cuda, else of the machine's."""
    from ...core.device import select_device  # torch: loaded when used (docs/architecture.md)

    device = select_device()
    if device.type == "cuda":
        import torch

        return int(BUDGET_SHARE * torch.cuda.get_device_properties(device).total_memory / MB)
    return int(BUDGET_SHARE * machine_memory() / MB)


@dataclass
class _Held:
    """A loaded module: the sets of weights it uses (the weight cache's key → each storage's bytes), when it
    last served, how many requests use it."""

    module: Any
    weights: dict[tuple, dict]
    last_used: float
    users: int = 0

    @property
    def mb(self) -> float:
        """Its own weights, whether or not another module shares them."""
        return _bytes(self.weights.values()) / MB


def _bytes(storage_maps: Any) -> int:
    """Bytes of the storages of several sets of weights (each a map storage → bytes), each storage once."""
    storages: dict = {}
    for storage_map in storage_maps:
        storages.update(storage_map)
    return sum(storages.values())


def weight_label(key: tuple, names: dict[tuple, str]) -> str:
    """A set of weights as ``/loaded`` and the status line name it: its model's short name (the registry's
    name or repo id), else the cache key's source.

    >>> weight_label(("E", "/site-packages/minilm/model@6", None, "cpu", "torch.float32"), {})
    'E:/site-packages/minilm/model@6'
    """
    return names.get(key) or f"{key[0]}:{key[1]}"


class ModelPool:
    """The loaded modules, one per (module, config, chosen load options: :func:`pool_key`), shared by every
    request within ``budget_mb`` megabytes of weights; each scores at most ``limits.model_concurrency``
    merged requests at a time."""

    def __init__(self, limits: Limits, budget_mb: float | None = None):
        self.limits = limits
        self.budget_mb = budget_mb or limits.max_model_mb or default_budget_mb()
        self._held: dict[Key, _Held] = {}
        self._slots: dict[Key, threading.BoundedSemaphore] = {}
        self._workers: dict[Key, ThreadPoolExecutor] = {}
        """Each model's own compute threads (``model_concurrency`` of them): a thread's first tokenizer call
        copies the tokenizer (:func:`...core.tokenize.thread_tokenizer`, ~50 ms for MiniLM's), so the model
        runs on long-lived threads of its own rather than on whichever Gradio worker thread holds the turn."""
        self._total_bytes = 0
        self._lock = threading.Lock()
        self._loading: dict[Key, threading.Lock] = {}
        self._known: dict[Key, dict[tuple, dict]] = {}
        """Each module's sets of weights when it was last loaded: what loading it again needs room for."""
        self._names: dict[tuple, str] = {}
        """A short name per set of weights (:func:`weight_label`)."""
        self.merger = Merger(limits.max_examples)
        self._on_gpu = zerogpu.on_gpu(self._compute_now)

    # ---- models -------------------------------------------------------------------------------------

    def get(self, name: str, config: str, load: dict[str, Any] | None = None):
        """The loaded module (loading it, within the budget, on first use)."""
        with self.using(name, config, load) as module:
            return module

    @contextmanager
    def using(self, name: str, config: str, load: dict[str, Any] | None = None) -> Iterator[Any]:
        """The loaded module, counted as in use (never evicted) inside the block."""
        key = pool_key(name, config, load)
        module = self._acquire(key)
        try:
            yield module
        finally:
            with self._lock:
                self._held[key].users -= 1
                self._held[key].last_used = time.time()
            self._fit()

    def _acquire(self, key: Key):
        with self._lock:
            if key in self._held:
                return self._use(key)
            loading = self._loading.setdefault(key, threading.Lock())
        with loading:
            with self._lock:
                if key in self._held:
                    return self._use(key)
            self._fit(needs=self._known.get(key, {}))  # its weights are known from an earlier load
            module = self._load_apart(key)
            held = _Held(module, self._weights_of(module), time.time())
            with self._lock:
                self._held[key] = held
                self._slots.setdefault(key, threading.BoundedSemaphore(self.limits.model_concurrency))
                self._workers[key] = ThreadPoolExecutor(
                    self.limits.model_concurrency, thread_name_prefix=f"nlgmetrics-{key_label(key)}"
                )
                self._total_bytes = self._count_bytes()
                self._known[key] = held.weights
                module = self._use(key)
        self._fit()
        return module

    def _weights_of(self, module: Any) -> dict[tuple, dict]:
        """The module's sets of weights (cache key → storages), their short names noted."""
        from ...core.weight_cache import model_names, weight_sets, weight_storages  # torch: when used

        names = model_names(module.scorer)
        sets = weight_sets(module.scorer)
        with self._lock:
            for key, models in sets.items():
                self._names.setdefault(key, next((names[id(m)] for m in models if id(m) in names), ""))
        return {key: weight_storages(models) for key, models in sets.items()}

    def _use(self, key: Key):
        held = self._held[key]
        held.users += 1
        held.last_used = time.time()
        return held.module

    def _load_apart(self, key: Key):
        """:meth:`_load` on a thread of its own that ends with it: what loading leaves in thread-local state
        (a tokenizer's per-thread copy, :func:`...core.tokenize.thread_tokenizer`) goes with that thread, not
        onto the requesting one (Gradio's worker threads live as long as the Space: each kept a stale copy
        of an evicted model's tokenizer, ``benchmarks/results/space_memory.md``)."""
        with ThreadPoolExecutor(1, thread_name_prefix=f"nlgmetrics-load-{key_label(key)}") as loader:
            return loader.submit(contextvars.copy_context().run, self._load, *key).result()

    @staticmethod
    def _load(name: str, config: str, *load: tuple[str, Any]):
        """Module ``name`` with ``config``, loaded with the chosen load options (the rest of a
        :data:`Key`)."""
        try:
            return loading.load(name, config, **dict(load))
        except WeightsUnavailableError as err:
            status = config_status(SPECS[name], config)
            if status.available is False:
                raise ConfigUnavailable(status) from None
            raise SpaceError(err.summary) from None
        except (
            ModuleNotFoundError
        ) as err:  # an optional dependency: the operator's to install, not a visitor's
            raise SpaceError(missing_package(name, err.name or str(err))) from None

    def held_mb(self) -> float:
        """Megabytes of weights the pool holds (each set of weights, and each storage, once)."""
        with self._lock:
            return self._total_bytes / MB

    def _count_bytes(self) -> int:
        return _bytes(w for held in self._held.values() for w in held.weights.values())

    def _fit(self, needs: dict[tuple, dict] | None = None) -> None:
        """Evict the least recently used idle sets of weights until the held weights (plus the sets in
        ``needs`` not held now: a module about to load) fit; when they fit (after almost every request) it
        costs one comparison."""
        needs = needs or {}
        evicted = []
        with self._lock:
            room = self._room_mb(needs) if needs else 0.0
            while self._total_bytes / MB + room > self.budget_mb:
                victims = self._victims(keep=set(needs), emptying=room > 0)
                if not victims:  # every set in use, or one set over the budget: it stays
                    break
                for key in victims:
                    evicted.append(self._held.pop(key))
                    self._workers.pop(key).shutdown(wait=False)  # idle: its threads end, their tokenizers too
                self._total_bytes = self._count_bytes()
            if not evicted:
                return
            kept = {id(m) for held in self._held.values() for m in _models(held.module)}
        from ...core.weight_cache import (  # torch: loaded when used (docs/architecture.md)
            drop_cached,
            free_memory,
        )

        models = [m for held in evicted for m in _models(held.module) if id(m) not in kept]
        refs = [weakref.ref(m) for m in models]
        drop_cached(models)
        del models, evicted
        free_memory(lambda: any(ref() is not None for ref in refs))  # gc only for cycles
        malloc.trim()  # what the freed weights leave at the arenas' tops goes back to the system

    def _room_mb(self, needs: dict[tuple, dict]) -> float:
        """Megabytes of the sets of weights in ``needs`` that the pool does not hold now (the caller holds
        the lock): what loading a module built on them adds."""
        held = {w for h in self._held.values() for w in h.weights}
        return _bytes(storages for w, storages in needs.items() if w not in held) / MB

    def _victims(self, keep: set[tuple], emptying: bool) -> list[Key]:
        """The modules to evict next (the caller holds the lock): those built on the least recently used set
        of weights whose modules are all idle, none of them using a set in ``keep`` (about to be used); never
        the whole pool unless ``emptying`` (room for a module about to load)."""
        users: dict[tuple, list[Key]] = {}
        for key, held in self._held.items():
            for weights in held.weights:
                users.setdefault(weights, []).append(key)
        candidates = []
        for weights, keys in users.items():
            helds = [self._held[key] for key in keys]
            if weights in keep or any(h.users or keep & set(h.weights) for h in helds):
                continue
            if len(keys) == len(self._held) and not emptying:
                continue
            candidates.append((max(h.last_used for h in helds), keys))
        return min(candidates, key=lambda c: c[0])[1] if candidates else []

    def held(self, name: str, config: str, load: dict[str, Any] | None = None):
        """The module if the pool holds it now, else None (nothing loaded, nothing marked as used)."""
        with self._lock:
            held = self._held.get(pool_key(name, config, load))
        return None if held is None else held.module

    def loaded(self) -> list[Key]:
        with self._lock:
            return sorted(self._held)

    def status(self) -> dict:
        """What ``/loaded`` answers: the budget, the weights held in all (``total_mb``, each set once), each
        loaded module (its own weights' ``mb`` and the sets it uses, most recently used first) and each set of
        weights (its ``mb`` and the modules built on it); a model loaded with chosen load options (a
        precision) has them as ``load``."""
        with self._lock:
            ordered = sorted(self._held.items(), key=lambda item: -item[1].last_used)
            models = [
                {
                    "module": k[0],
                    "config": k[1],
                    **({"load": dict(k[2:])} if k[2:] else {}),
                    "mb": round(h.mb, 1),
                    "weights": [weight_label(w, self._names) for w in h.weights],
                    "last_used": h.last_used,
                }
                for k, h in ordered
            ]
            sets: dict[tuple, dict] = {}
            for k, h in ordered:
                for w, storages in h.weights.items():
                    entry = sets.setdefault(
                        w, {"name": weight_label(w, self._names), "mb": round(_bytes([storages]) / MB, 1)}
                    )
                    entry.setdefault("models", []).append(key_label(k))
            total = self._total_bytes / MB
        return {
            "budget_mb": self.budget_mb,
            "total_mb": round(total, 1),
            "models": models,
            "weights": list(sets.values()),
        }

    def preload(self, pairs: list[tuple[str, str]]) -> None:
        """Load ``pairs`` now, in order, while they fit in the budget; one that cannot load is reported on
        stderr and skipped."""
        for name, config in pairs:
            if self._known and self.held_mb() >= self.budget_mb:
                print(
                    f"nlgmetrics space: preload stopped at {name}:{config}, the budget is full",
                    file=sys.stderr,
                )
                return
            try:
                self.get(name, config)
            except (SpaceError, OSError, ValueError) as err:
                print(f"nlgmetrics space: not preloaded {name}:{config}: {error_text(err)}", file=sys.stderr)

    # ---- scoring ------------------------------------------------------------------------------------

    def compute(
        self,
        name: str,
        config: str,
        fields: dict[str, list],
        options: dict[str, Any],
        load: dict[str, Any] | None = None,
    ) -> dict:
        """The module's compute() of checked fields and options, on the model loaded with ``load`` (chosen
        load options; None: the default precision); requests waiting for the same model with the same
        options are scored together when each example's scores depend on it alone."""
        key = pool_key(name, config, load)
        with self.using(name, config, load) as module:
            scorer = module.scorer
            together = scorer is not None and scorer.examples_independent(
                scorer.spec.check_call(None, options, scorer.config, scorer=scorer)[1]
            )
        if not together or not fields.get("predictions"):
            with self._slots[key]:
                return self._run(key, fields, options)
        merge_key = (
            *key,
            json.dumps(options, sort_keys=True, default=repr),
            tuple(f for f in fields if fields[f] is None),
        )
        return self.merger.run(
            merge_key,
            fields,
            lambda merged: self._run(key, merged, options),
            lambda: self._slots[key],
        )

    def _run(self, key: Key, fields: dict[str, list], options: dict[str, Any]) -> dict:
        """The compute on one of the model's own threads (the caller holds one of its slots), in the
        caller's context (Gradio's request, which ZeroGPU's ``spaces.GPU`` reads)."""
        with self.using(key[0], key[1], dict(key[2:])):
            context = contextvars.copy_context()
            worker = self._workers[key]
            return worker.submit(context.run, self._on_gpu, *key[:2], fields, options, key[2:]).result()

    def _compute_now(
        self, name: str, config: str, fields: dict[str, list], options: dict[str, Any], load: tuple = ()
    ) -> dict:
        """Runs the model (on ZeroGPU inside ``spaces.GPU``, in its GPU worker process: no locks taken there);
        ``load``: the rest of its :data:`Key`."""
        key = (name, config, *load)
        held = self._held.get(key)
        module = held.module if held is not None else self._load(*key)
        return module.compute(**fields, **options)


def _models(module: Any) -> list:
    from ...core.weight_cache import models_in  # torch: loaded when used (docs/architecture.md)

    return models_in(module.scorer)


def resolve_config(spec: ModuleSpec, chosen: str | None) -> tuple[str, str]:
    """The registered config to use and a note; "" means the default (or the offline config when the
    default's weights are missing). Anything not registered is refused: no repo ids or paths here."""
    if chosen in (None, "", "default", DEFAULT):
        return default_choice(spec)
    if not isinstance(chosen, str) or chosen not in spec.configs:
        raise SpaceError(
            f"{spec.name} has no config {chosen!r}; this Space runs only the registered configs: "
            f"{', '.join(spec.configs)} (or 'default')"
        )
    status = config_status(spec, chosen)
    if status.available is False and (hub_offline() or status.state == UNPUBLISHED):  # no download can help
        raise ConfigUnavailable(status)
    return chosen, ""


def error_text(err: BaseException) -> str:
    """An error as the Space shows it: the message of a refusal, or what failed and why."""
    text = str(getattr(err, "summary", err)).strip()
    if isinstance(err, (ValueError, TypeError, OSError)):
        return text
    return f"scoring failed ({type(err).__name__}): {text}"


def user_error(err: BaseException):
    """A gr.Error showing the message only (never a traceback)."""
    import gradio as gr

    print(f"nlgmetrics space: refused: {error_text(err)}", file=sys.stderr)
    return gr.Error(error_text(err), print_exception=False)


def chosen_load_options(options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the precision a request chose, the rest of its options): each of :data:`SPACE_LOAD_OPTIONS` given is
    checked by its declaration and by what this machine runs (a one-line refusal before any model loads, e.g.
    bfloat16 on a CPU without bf16 units); None or "(default)" leaves it to the module. The precision comes
    back under one name per mode (:func:`canonical_load`), so ``bf16`` and ``bfloat16`` share a model."""
    from ...core.runtime import Runtime  # torch: loaded when used (docs/architecture.md)

    load = {k: options[k] for k in SPACE_LOAD_OPTIONS if options.get(k) not in (None, DEFAULT)}
    rest = {k: v for k, v in options.items() if k not in SPACE_LOAD_OPTIONS}
    try:
        runtime = Runtime.resolve(**load)
    except ValueError as err:
        raise SpaceError(str(err)) from None
    return canonical_load(runtime), rest


def canonical_load(runtime: Any) -> dict[str, Any]:
    """The precision of a resolved :class:`~nlgmetrics.core.runtime.Runtime` under one name per mode: the
    default (float32, no quantization) is ``{}``, bf16 is ``{"dtype": "bfloat16"}``, int8
    ``{"quantize": "int8"}``: the pool's key and the merged requests' (:func:`pool_key`)."""
    load: dict[str, Any] = {}
    if runtime.dtype_name != "float32":
        load["dtype"] = runtime.dtype_name
    if runtime.quantize is not None:
        load["quantize"] = runtime.quantize
    return load


def refuse_undeclared_mode(spec: ModuleSpec, config: str, load: dict[str, Any]) -> None:
    """An opt-in precision mode (``quantize="int8"``) on a config whose declaration does not allow it: the
    refusal the module's constructor gives (:func:`~nlgmetrics.core.modes.refuse_undeclared`, the same
    function, the command line's order: the options' refusal before any check of the weights)."""
    try:
        refuse_undeclared(spec, load.get("quantize"), config)
    except ValueError as err:
        raise SpaceError(str(err)) from None


class Scored(NamedTuple):
    """What :func:`score_records` returns: the compute() result, the config that scored, why it is not the one
    asked for ("" when it is), and the records' fields that were not scored (in order of first appearance)."""

    result: dict
    config: str
    note: str
    ignored: list[str]


def score_records(pool: ModelPool, name: str, config: str | None, records: Any, options: Any) -> Scored:
    """What every mode and the API run: checks, then the module's compute(); the records' fields that are
    not the config's inputs are ignored and named (one rule with the command line). ``options`` holds
    compute() options and the precision the visitor chose (:data:`SPACE_LOAD_OPTIONS`)."""
    if name not in SPECS:
        raise SpaceError(f"unknown module {name!r}; this Space has {', '.join(module_names())}")
    spec = SPECS[name]
    records, options = _parsed(records, "records"), _parsed(options, "options")
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise SpaceError(f"options must be a JSON object of {name}.compute() options")
    load, options = chosen_load_options(options)
    given = [
        f for f in FIELDS if f in options and spec.takes_field(f, config if config in spec.configs else None)
    ]
    if given:
        raise SpaceError(
            f"{', '.join(given)} {'is an input' if len(given) == 1 else 'are inputs'}, not an option: "
            "inputs go in the records (one object per example with the fields "
            f"{', '.join(spec.inputs_for(config if config in spec.configs else None))}); options only take "
            f"{name}.compute() options"
        )
    if isinstance(config, str) and config in spec.configs:  # as the command line: before the weights' check
        refuse_undeclared_mode(spec, config, load)
    config, note = resolve_config(spec, config)
    refuse_undeclared_mode(spec, config, load)  # the default's fallback
    inputs = spec.inputs_for(config)  # the chosen config's (UniEval: the task's)
    # only compute() options: no weights, paths or code
    options = spec.check_call(None, options, config, complete=False)[1]
    check_option_sizes(options, pool.limits)
    fields = records_to_fields(
        inputs, records, pool.limits, list_fields=spec.list_inputs, optional=spec.optional_inputs
    )
    result = pool.compute(name, config, fields, options, load)
    return Scored(result, config, note, unused_columns(records, inputs))


def _parsed(value: Any, what: str) -> Any:
    """``value`` parsed when it is JSON text (a blank ``options`` text is ``{}``); a SpaceError names ``what``
    is not valid JSON."""
    if not isinstance(value, str):
        return value
    if what == "options" and not value.strip():
        return {}
    try:
        return json.loads(value)
    except json.JSONDecodeError as err:
        where = f" (line {err.lineno})" if what == "records" else ""
        raise SpaceError(f"{what} is not valid JSON: {err.msg}{where}") from None
