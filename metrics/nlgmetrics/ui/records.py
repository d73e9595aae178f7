"""Examples as records (one dict per example, keyed by the module's input fields): limits, files, results.

Uploads are read and results written by :mod:`nlgmetrics.records`, exactly as the command line reads
and writes files. Every limit is refused with a message saying what was too big and what the limit is.

>>> limits = Limits(max_examples=2, max_chars=20)
>>> records_to_fields(["predictions", "sources"], [{"predictions": "a b", "sources": "a c"}], limits)
{'predictions': ['a b'], 'sources': ['a c']}
>>> records_to_fields(["predictions"], [{"prediction": "x"}], limits)
Traceback (most recent call last):
...
nlgmetrics.columns.MissingColumnError: row 1 has no column 'predictions' for predictions (its columns: prediction; the inputs are predictions)
>>> records_to_fields(["predictions"], [{"predictions": "x" * 21}], limits)
Traceback (most recent call last):
...
ValueError: record 0: predictions has 21 characters; this Space takes at most 20 per text
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

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from ..columns import gather_columns
from ..core.availability import config_status, default_choice
from ..core.options import check_positive_int
from ..modules import SPECS
from ..records import per_example, read_records, write_records

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
    """Megabytes of model weights kept loaded (None: a share of the memory, :func:`.space.pool.default_budget_mb`)."""
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
        """The defaults, overridden by ``NLGMETRICS_SPACE_<FIELD>`` variables (``NLGMETRICS_SPACE_MAX_CHARS``);
        a value that is not a positive integer, or an unknown ``NLGMETRICS_SPACE_*`` name, is a ValueError."""
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


def _check_text(value: Any, where: str, limits: Limits) -> None:
    texts = value if isinstance(value, list) else [value]
    if len(texts) > limits.max_references:
        raise ValueError(
            f"{where} has {len(texts)} texts; this Space takes at most {limits.max_references} per example"
        )
    for text in texts:
        if isinstance(text, str) and len(text) > limits.max_chars:
            raise ValueError(
                f"{where} has {len(text)} characters; this Space takes at most {limits.max_chars} per text"
            )


def records_to_fields(
    inputs: Sequence[str], records: Any, limits: Limits, *, list_fields: Sequence[str] = ("references",)
) -> dict[str, list]:
    """Column lists ``{field: [...]}`` from records, after the limits and the shape are checked; a text
    of a field in ``list_fields`` that holds a JSON list of texts (a CSV cell) is that list.

    The texts themselves (types, blanks) are checked by the module's compute(), which names the field
    and index. Other fields of the records are ignored (as the command line ignores a file's other
    columns); :func:`nlgmetrics.columns.unused_columns` names them.
    """
    if not isinstance(records, list):
        raise ValueError(f"records must be a JSON list of objects, got {type(records).__name__}")
    if len(records) > limits.max_examples:
        raise ValueError(
            f"{len(records)} examples given; this Space scores at most {limits.max_examples} per request "
            "(split the file, or score it on your own machine with the nlgmetrics package: nlgmetrics score FILE)"
        )
    for index, record in enumerate(records):
        if not isinstance(record, dict):
            raise ValueError(f"record {index} must be an object with fields {', '.join(inputs)}")
    fix = f"the inputs are {', '.join(inputs)}"  # else the command line's wording (nlgmetrics.columns)
    fields = gather_columns(records, inputs, {}, list_fields, fix=fix, where="record {index}: {field}")
    for index in range(len(records)):
        for name in inputs:
            _check_text(fields[name][index], f"record {index}: {name}", limits)
    return fields


def check_option_sizes(options: Mapping[str, Any], limits: Limits) -> None:
    """Bound the work compute() options can ask for: a mapping of templates (UniEval's custom questions) holds
    at most ``max_questions`` of at most ``max_template_chars`` characters; any other list or mapping at most
    ``max_examples`` entries, each text at most ``max_chars`` characters (so does a string option).
    """
    for name, value in options.items():
        if isinstance(value, Mapping) and value and all(isinstance(v, str) for v in value.values()):
            if len(value) > limits.max_questions:
                raise ValueError(
                    f"option {name} has {len(value)} entries; this Space takes at most {limits.max_questions} "
                    "per request"
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


def read_upload(path: str | os.PathLike, limits: Limits) -> list[dict]:
    """The records of an uploaded file, read as the command line reads it (:mod:`nlgmetrics.records`)."""
    path = Path(path)
    size = path.stat().st_size
    if size > limits.max_upload_bytes:
        raise ValueError(
            f"{path.name} is {size} bytes; this Space takes uploads up to {limits.max_upload_bytes} bytes"
        )
    try:
        return read_records(path, name=path.name)
    except ValueError as err:
        if path.suffix.lower() != ".txt":
            raise
        raise ValueError(  # the same words as the command line, and why plain lines cannot do
            f"{err}: a .txt of plain texts has no columns naming the fields; save it as a .csv with a header "
            "row, e.g. predictions,sources"
        ) from None


DIGITS = 4
"""Decimals of every score the Space shows (text, tables, notes, heat-map values)."""


def display(value: Any, digits: int = DIGITS) -> Any:
    """A number as the Space keeps it in a table (rounded; NaN as None)."""
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, digits)
    return value


def score_text(value: Any) -> str:
    """A score as the Space prints it: always :data:`DIGITS` decimals, so that 0.512 is not shown beside
    0.5123; a missing score (NaN, None) as "NaN"; a whole number (a row, a count) as it is.

    >>> score_text(0.512), score_text(-0.0), score_text(float("nan")), score_text(None), score_text(3)
    ('0.5120', '0.0000', 'NaN', 'NaN', '3')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "NaN"
    if isinstance(value, float):
        return f"{value + 0.0:.{DIGITS}f}".replace("-0.0000", "0.0000")
    return str(value)


def scored_records(records: list[dict], result: dict) -> list[dict]:
    """Each record with its scores added (full precision; a score column named like an input is prefixed)."""
    columns = per_example(result, len(records))
    out = []
    for index, record in enumerate(records):
        row = dict(record)
        for key, values in columns.items():
            row[key if key not in record else f"score_{key}"] = values[index]
        out.append(row)
    return out


def write_scored(rows: list[dict], folder: str | os.PathLike, stem: str) -> tuple[str, str]:
    """Write the scored rows as ``stem.csv`` and ``stem.jsonl`` in ``folder`` (as the command line writes
    them: :func:`nlgmetrics.records.write_records`); returns both paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    csv_path, jsonl_path = folder / f"{stem}.csv", folder / f"{stem}.jsonl"
    write_records(csv_path, rows)
    write_records(jsonl_path, rows)
    return str(csv_path), str(jsonl_path)


def preload_pairs(text: str | None) -> list[tuple[str, str]]:
    """The (module, config) pairs of an ``NLGMETRICS_SPACE_PRELOAD`` value (``module:config`` or ``module``
    for its default, comma-separated; ``none``: nothing); None: the config the page offers first for each
    module (:func:`...core.availability.default_choice`: its default, or, when the default's weights are not
    here, the offline config such as the embedded ``E-minilm``) when its weights are on the machine, so that
    the first request finds it loaded. A name or config that is not registered is a ValueError naming it."""
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
                f"NLGMETRICS_SPACE_PRELOAD: unknown module {name!r}; the modules: {', '.join(sorted(SPECS))}"
            )
        config = config or SPECS[name].default_config
        if config not in SPECS[name].configs:
            raise ValueError(
                f"NLGMETRICS_SPACE_PRELOAD: {name} has no config {config!r} (its configs: {', '.join(SPECS[name].configs)})"
            )
        pairs.append((name, config))
    return pairs
