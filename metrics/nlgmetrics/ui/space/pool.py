"""The Space's models and requests: one loaded module per (module, config) shared by every user, the checks
every request passes (:func:`score_records`), and the errors shown to users (:class:`SpaceError`)."""

from __future__ import annotations

import json
import math
import os
import sys
import threading
from typing import Any

from ...modules import SPECS
from ...modules.spec import FIELDS, ModuleSpec
from ..availability import config_status, default_choice
from ..records import Limits, check_option_sizes, records_to_fields
from .context import DEFAULT


class SpaceError(ValueError):
    """A request the Space refuses or cannot serve; the message is shown to the user as it is."""


class ModelPool:
    """One loaded module per (module, config), shared by every request; a semaphore per model."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self._modules: dict[tuple[str, str], Any] = {}
        self._slots: dict[tuple[str, str], threading.BoundedSemaphore] = {}
        self._lock = threading.Lock()
        self._loading: dict[tuple[str, str], threading.Lock] = {}

    def get(self, name: str, config: str):
        key = (name, config)
        with self._lock:
            if key in self._modules:
                return self._modules[key]
            loading = self._loading.setdefault(key, threading.Lock())
        with loading:
            if key not in self._modules:
                import nlgmetrics

                from ...core.hub import WeightsUnavailableError

                try:
                    module = nlgmetrics.load(name, config)
                except WeightsUnavailableError as err:
                    status = config_status(SPECS[name], config)
                    raise SpaceError(status.message() or err.summary) from None
                with self._lock:
                    self._modules[key] = module
                    self._slots[key] = threading.BoundedSemaphore(self.limits.model_concurrency)
        return self._modules[key]

    def compute(self, name: str, config: str, fields: dict[str, list], options: dict[str, Any]) -> dict:
        module = self.get(name, config)
        with self._slots[(name, config)]:
            return module.compute(**fields, **options)

    def loaded(self) -> list[tuple[str, str]]:
        with self._lock:
            return sorted(self._modules)


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
    offline = os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on")
    if status.available is False and offline:
        raise SpaceError(status.message())
    return chosen, ""


def _error_text(err: BaseException) -> str:
    text = str(getattr(err, "summary", err)).strip()
    if isinstance(err, (ValueError, TypeError, OSError)):
        return text
    return f"scoring failed ({type(err).__name__}): {text}"


def _user_error(err: BaseException):
    """A gr.Error showing the message only (never a traceback)."""
    import gradio as gr

    print(f"nlgmetrics space: refused: {_error_text(err)}", file=sys.stderr)
    return gr.Error(_error_text(err), print_exception=False)


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def score_records(
    pool: ModelPool, name: str, config: str | None, records: Any, options: Any, *, extra_ok: bool = False
) -> tuple[dict, str, str]:
    """What every mode and the API run: checks, then the module's compute(); returns
    (result, config used, note)."""
    if name not in SPECS:
        raise SpaceError(f"unknown module {name!r}; this Space has {', '.join(sorted(SPECS))}")
    spec = SPECS[name]
    if isinstance(records, str):
        try:
            records = json.loads(records)
        except json.JSONDecodeError as err:
            raise SpaceError(f"records is not valid JSON: {err.msg} (line {err.lineno})") from None
    if isinstance(options, str):
        try:
            options = json.loads(options) if options.strip() else {}
        except json.JSONDecodeError as err:
            raise SpaceError(f"options is not valid JSON: {err.msg}") from None
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise SpaceError(f"options must be a JSON object of {name}.compute() options")
    given = [f for f in FIELDS if f in options]
    if given:
        raise SpaceError(
            f"{', '.join(given)} {'is an input' if len(given) == 1 else 'are inputs'}, not an option: inputs go "
            "in the records (one object per example with the fields "
            f"{', '.join(spec.inputs_for(config if config in spec.configs else None))}); options only take "
            f"{name}.compute() options"
        )
    config, note = resolve_config(spec, config)
    inputs = spec.inputs_for(config)  # the chosen config's (UniEval: the task's)
    options = spec.check_compute_options(options, config)  # only compute() options: no weights, paths or code
    check_option_sizes(options, pool.limits)
    fields = records_to_fields(inputs, records, pool.limits, extra_ok=extra_ok, list_fields=spec.list_inputs)
    return pool.compute(name, config, fields, options), config, note
