"""The real Space (space/app.py) served on 127.0.0.1 for the API and browser tests, with small limits, and a
client of it for each test module."""

from __future__ import annotations

import dataclasses
import runpy

import pytest
from gradio_client import Client

from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.ctc.weights import ctc_weight_name
from tests.ui.space.helpers import LIMITS, LOAD_REPORT, MISSING, REPO


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


@pytest.fixture
def d_cnndm_missing(monkeypatch):
    """The D-cnndm consistency checkpoint pinned to a revision that is in no cache (offline)."""
    key = ctc_weight_name("D-cnndm", "doc_to_summ")
    monkeypatch.setitem(WEIGHTS, key, dataclasses.replace(WEIGHTS[key], revision=MISSING))
    return WEIGHTS[key].conversion  # D-cnndm is not on the Hub yet: the advice is its conversion


@pytest.fixture(scope="module")
def client(space):
    return Client(space[1], verbose=False)


def pytest_terminal_summary(terminalreporter):
    if LOAD_REPORT:
        terminalreporter.section("Space load test: concurrent /score requests on 127.0.0.1")
        terminalreporter.write_line(
            f"{LOAD_REPORT['requests']} requests, all answered with the direct results: p50 "
            f"{LOAD_REPORT['p50']:.2f} s, p95 {LOAD_REPORT['p95']:.2f} s, all done in "
            f"{LOAD_REPORT['total']:.2f} s"
        )
