"""What one request may ask of the Space (:class:`Limits`, each overridable by an ``NLGMETRICS_SPACE_*``
variable), the bound on the compute() options a request sets (:func:`check_option_sizes`), and the models
loaded at startup (:func:`preload_pairs`). Every limit is refused with a message saying what was too big and
what the limit is.

>>> Limits(model_concurrency=0)
Traceback (most recent call last):
...
ValueError: model_concurrency=0 must be a positive integer
>>> preload_pairs("ctc_consistency:E-minilm, infolm")
[('ctc_consistency', 'E-minilm'), ('infolm', 'bert-base-uncased')]
>>> preload_pairs("none")
[]
>>> preload_pairs("infolm:roberta")
Traceback (most recent call last):
...
ValueError: NLGMETRICS_SPACE_PRELOAD: infolm has no config 'roberta' (its configs: bert-base-uncased)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from ..availability import config_status, default_choice
from ..core.values import check_positive_int
from ..modules import SPECS, module_names

ENV_PREFIX = "NLGMETRICS_SPACE_"


@dataclass(frozen=True)
class Limits:
    """What one request may ask of the Space (each overridable by an environment variable); all positive."""

    max_examples: int = 256
    """Examples per request; also the entries of a list option (InfoLM's idf corpus)."""
    max_chars: int = 4000
    """Characters per text, in the records and in a list option."""
    max_upload_bytes: int = 2_000_000
    model_concurrency: int = 1
    """Requests scoring with one loaded model at the same time."""
    max_queue: int = 64
    """Requests waiting in Gradio's queue before new ones are turned away."""
    max_references: int = 16
    """Texts in one list field of one example (several references)."""
    max_questions: int = 16
    """Entries of a mapping option of templates (UniEval's custom questions) per request."""
    max_template_chars: int = 2000
    """Characters per template (and per template name)."""
    max_model_mb: int | None = None
    """Megabytes of model weights kept loaded (None: a share of the memory,
:func:`.space.pool.default_budget_mb`)."""
    preload: str | None = None
    """``module:config`` pairs loaded at startup, comma-separated (``module`` alone: its default; ``none``:
    nothing); None: what the page offers first, each module's default or its offline fallback, when its
    weights are on the machine (:func:`preload_pairs`)."""

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if name == "preload" or (value is None and self.__dataclass_fields__[name].default is None):
                continue
            object.__setattr__(self, name, check_positive_int(name, value))  # numpy's ints as Python's
        if self.preload is not None:
            preload_pairs(self.preload)  # a ValueError names the bad entry

    @classmethod
    def from_env(cls) -> Limits:
        """The defaults, overridden by ``NLGMETRICS_SPACE_<FIELD>`` variables
        (``NLGMETRICS_SPACE_MAX_CHARS``); a value that is not a positive integer, or an unknown
        ``NLGMETRICS_SPACE_*`` name, is a ValueError."""
        names = {f"{ENV_PREFIX}{f.name.upper()}": f.name for f in fields(cls)}
        unknown = sorted(k for k in os.environ if k.startswith(ENV_PREFIX) and k not in names)
        if unknown:
            raise ValueError(f"unknown setting {', '.join(unknown)}; the settings are {', '.join(names)}")
        given = {}
        for variable, name in names.items():
            value = os.environ.get(variable)
            if value is None:
                continue
            text = value.strip()
            if name == "preload":
                given[name] = text
                continue
            number = int(text) if text.isascii() and text.isdigit() else 0  # "²".isdigit() is True
            given[name] = check_positive_int(variable, number or value)  # else the error quotes the text
        return cls(**given)

    def describe(self) -> str:
        return (
            f"at most {self.max_examples} examples per request, {self.max_chars} characters per text, "
            f"{self.max_references} references per example, {self.max_questions} custom questions of up to "
            f"{self.max_template_chars} characters, uploads up to {self.max_upload_bytes // 1000} kB"
        )


def check_option_sizes(options: Mapping[str, Any], limits: Limits) -> None:
    """Bound the work compute() options can ask for: a mapping of templates (UniEval's custom questions) holds
    at most ``max_questions`` of at most ``max_template_chars`` characters; any other list or mapping at most
    ``max_examples`` entries, each text at most ``max_chars`` characters (so does a string option).
    """
    for name, value in options.items():
        if isinstance(value, Mapping) and value and all(isinstance(v, str) for v in value.values()):
            if len(value) > limits.max_questions:
                raise ValueError(
                    f"option {name} has {len(value)} entries; this Space takes at most "
                    f"{limits.max_questions} per request"
                )
            for key, text in value.items():
                for what in (str(key), text):
                    if len(what) > limits.max_template_chars:
                        raise ValueError(
                            f"option {name}[{key!r}] has {len(what)} characters; this Space takes at most "
                            f"{limits.max_template_chars} per template"
                        )
        elif isinstance(value, (Mapping, list, tuple)):
            if len(value) > limits.max_examples:
                raise ValueError(
                    f"option {name} has {len(value)} entries; this Space takes at most {limits.max_examples}"
                )
            for key, text in value.items() if isinstance(value, Mapping) else enumerate(value):
                for what in (key, text):
                    if isinstance(what, str) and len(what) > limits.max_chars:
                        raise ValueError(
                            f"option {name}[{key!r}] has {len(what)} characters; this Space takes at most "
                            f"{limits.max_chars} per text"
                        )
        elif isinstance(value, str) and len(value) > limits.max_chars:
            raise ValueError(
                f"option {name} has {len(value)} characters; this Space takes at most {limits.max_chars}"
            )


def preload_pairs(text: str | None) -> list[tuple[str, str]]:
    """The (module, config) pairs of an ``NLGMETRICS_SPACE_PRELOAD`` value (``module:config`` or ``module``
    for its default, comma-separated; ``none``: nothing); None: the config the page offers first for each
    module (:func:`nlgmetrics.availability.default_choice`: its default, or, when the default's weights are
    not here, the offline config such as the embedded ``E-minilm``) when its weights are on the machine, so
    that the first request finds it loaded. A name or config that is not registered is a ValueError naming
    it."""
    if text is None:
        offered = [(n, default_choice(s)[0]) for n, s in sorted(SPECS.items())]
        return [(n, config) for n, config in offered if config_status(SPECS[n], config).available]
    pairs = []
    for entry in (e.strip() for e in text.split(",")):
        if not entry or entry.lower() == "none":
            continue
        name, _, config = entry.partition(":")
        if name not in SPECS:
            raise ValueError(
                f"NLGMETRICS_SPACE_PRELOAD: unknown module {name!r}; the modules: {', '.join(module_names())}"
            )
        config = config or SPECS[name].default_config
        if config not in SPECS[name].configs:
            raise ValueError(
                f"NLGMETRICS_SPACE_PRELOAD: {name} has no config {config!r} (its configs: "
                f"{', '.join(SPECS[name].configs)})"
            )
        pairs.append((name, config))
    return pairs
