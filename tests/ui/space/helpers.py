"""What the Space tests share besides their fixtures (tests/ui/space/conftest.py): the small limits the
served Space runs with, results computed directly to compare its answers with, example records."""

from __future__ import annotations

import math
from pathlib import Path

import nlgmetrics
from nlgmetrics.modules import SPECS
from tests.helpers import TOLERANCE

REPO = Path(__file__).resolve().parents[3]
MISSING = "f" * 40
"""A revision in no cache: a weight pinned to it is missing here (offline)."""
LIMITS = {
    "MAX_EXAMPLES": "8",
    "MAX_CHARS": "600",
    "MAX_UPLOAD_BYTES": "20000",
    "MAX_QUEUE": "64",
    "MAX_REFERENCES": "4",
    "MAX_QUESTIONS": "3",
    "MAX_TEMPLATE_CHARS": "300",
}


def tiny_config(name: str) -> str:
    """A config of the module that runs offline in the tests: its offline config, else its default
    (tiny random weights under the registered repo id)."""
    spec = SPECS[name]
    return spec.doctest_config or spec.default_config


def compute_result(answer: dict) -> dict:
    """The compute() result inside a ``/score`` answer (without the Space's ``config``, ``note`` and
    ``ignored_fields``)."""
    return {key: value for key, value in answer.items() if key not in ("config", "note", "ignored_fields")}


def close_results(got: dict, want: dict) -> bool:
    """Equal up to float32 rounding, relative to each value (requests merged into one compute() share padded
    batches, whose sums round differently); ``details`` compared by length."""

    def close(a, b) -> bool:
        if isinstance(a, float) and isinstance(b, float):
            return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= TOLERANCE * max(1.0, abs(b))
        return a == b

    assert got.keys() == want.keys()
    for key, value in want.items():
        other = got[key]
        if isinstance(value, list):
            same = len(other) == len(value) and (key == "details" or all(map(close, other, value)))
        else:
            same = close(other, value)
        if not same:
            return False
    return True


def example_records(name: str) -> list[dict]:
    spec = SPECS[name]
    count = len(spec.example["predictions"])
    return [{f: spec.example[f][i] for f in spec.inputs} for i in range(count)]


_DIRECT: dict[tuple[str, str], object] = {}


def direct(name: str, config: str):
    """The module loaded directly (not through the Space), once per test session."""
    if (name, config) not in _DIRECT:
        _DIRECT[name, config] = nlgmetrics.load(name, config)
    return _DIRECT[name, config]


LOAD_REPORT: dict[str, float] = {}
"""Latencies of the load test (seconds), printed at the end of the run."""
