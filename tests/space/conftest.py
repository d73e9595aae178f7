"""The real Space (space/app.py) served on 127.0.0.1 for the API and browser tests, with small limits."""

from __future__ import annotations

import math
import runpy
from pathlib import Path

import pytest

import nlgmetrics
from nlgmetrics.modules import SPECS

REPO = Path(__file__).resolve().parents[2]
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
    from tests.helpers import TOLERANCE

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


@pytest.fixture(scope="session")
def space(tiny_snapshots):
    """(demo, url) of space/app.py launched in this process on a free port of 127.0.0.1."""
    mp = pytest.MonkeyPatch()
    for key, value in LIMITS.items():
        mp.setenv(f"NLGMETRICS_SPACE_{key}", value)
    try:
        namespace = runpy.run_path(str(REPO / "space" / "app.py"), run_name="space_app")
    finally:
        mp.undo()  # the limits are read when the app is built
    demo = namespace["demo"]
    demo.launch(
        server_name="127.0.0.1",
        server_port=None,
        prevent_thread_lock=True,
        quiet=True,
        max_file_size=demo.nlgmetrics_limits.max_upload_bytes,
    )
    try:
        yield demo, demo.local_url
    finally:
        demo.close()


LOAD_REPORT: dict[str, float] = {}
"""Latencies of the load test (seconds), printed at the end of the run."""


def pytest_terminal_summary(terminalreporter):
    if LOAD_REPORT:
        terminalreporter.section("Space load test: concurrent /score requests on 127.0.0.1")
        terminalreporter.write_line(
            f"{LOAD_REPORT['requests']} requests, all answered with the direct results: p50 "
            f"{LOAD_REPORT['p50']:.2f} s, p95 {LOAD_REPORT['p95']:.2f} s, all done in {LOAD_REPORT['total']:.2f} s"
        )
