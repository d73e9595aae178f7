"""Shared fixtures: the tiny-model Hub cache, the real MiniLM, and the parity report."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from nlgmetrics.core import runtime
from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.ctc.aligners.base import source_of
from nlgmetrics.testing import build_tiny_hub_cache
from tests.helpers import PARITY


@pytest.fixture(scope="session", autouse=True)
def tiny_snapshots() -> dict[str, Path]:
    """Tiny random models for every registered weight, in the offline HF cache the tests use."""
    return build_tiny_hub_cache(os.environ["HF_HUB_CACHE"])


@pytest.fixture(scope="session")
def minilm_dir() -> str:
    """The real all-MiniLM-L6-v2 files from the embedded package."""
    source = source_of(WEIGHTS["all-MiniLM-L6-v2"], "E")
    assert source.revision is None and Path(source.source, "model.safetensors").is_file()
    return source.source


@pytest.fixture
def fresh_model_cache():
    """Start from an empty process-wide weight cache (and leave one behind)."""
    runtime.clear_cache()
    yield
    runtime.clear_cache()


def pytest_terminal_summary(terminalreporter):
    if not PARITY:
        return
    terminalreporter.section("parity with the reference: max |Δ| per example")
    for name, delta in sorted(PARITY.items()):
        terminalreporter.write_line(f"{name:<60} {delta:.2e}")
