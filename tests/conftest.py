"""Shared fixtures: the tiny-model Hub cache, the real MiniLM, and the parity report."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import nlgmetrics
from nlgmetrics.core import weight_cache
from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.ctc.aligners.base import source_of
from nlgmetrics.testing import build_tiny_hub_cache, install_in_cache
from tests.helpers import PARITY


@pytest.fixture(scope="session", autouse=True)
def tiny_snapshots(usr_release, tmp_path_factory) -> dict[str, Path]:
    """Tiny random models for every registered weight, in the offline HF cache the tests use; USR's are
    written in the released transformers-2.x layout and converted by nlgmetrics.usr.convert first."""
    from nlgmetrics.usr.convert import convert
    from nlgmetrics.usr.weights import usr_weight_name

    usr_names = {usr_weight_name(part): part for part in ("mlm", "dr_c", "dr_f")}
    snapshots = build_tiny_hub_cache(os.environ["HF_HUB_CACHE"], [n for n in WEIGHTS if n not in usr_names])
    converted = convert(
        usr_release["mlm"], usr_release["dr_c"], usr_release["dr_f"], tmp_path_factory.mktemp("usr-converted")
    )
    for name, part in usr_names.items():
        spec = WEIGHTS[name]
        snapshots[name] = install_in_cache(
            converted[part], os.environ["HF_HUB_CACHE"], spec.repo_id, spec.revision
        )
    return snapshots


@pytest.fixture(scope="session")
def usr_release(tmp_path_factory) -> dict[str, Path]:
    """Tiny USR models in the released layout (transformers 2.x folders roberta_ft/, ctx/, uk/); the
    registered tiny USR models are their conversion."""
    from tests.usr.legacy import save_release

    return save_release(tmp_path_factory.mktemp("usr-release"))


@pytest.fixture(scope="session")
def minilm_dir() -> str:
    """The real all-MiniLM-L6-v2 files from the embedded package."""
    source = source_of(WEIGHTS["all-MiniLM-L6-v2"], "E")
    assert source.revision is None and Path(source.source, "model.safetensors").is_file()
    return source.source


@pytest.fixture(scope="module")
def consistency():
    """ctc_consistency on the embedded MiniLM (E-minilm, the real weights), one per test module; a module may
    define its own (tests/ctc/test_inputs.py: E-bert)."""
    return nlgmetrics.load("ctc_consistency", "E-minilm")


@pytest.fixture
def fresh_model_cache():
    """Start from an empty process-wide weight cache (and leave one behind)."""
    weight_cache.clear_cache()
    yield
    weight_cache.clear_cache()


def pytest_terminal_summary(terminalreporter):
    if not PARITY:
        return
    terminalreporter.section("parity with the reference: max |Δ| per example")
    for name, delta in sorted(PARITY.items()):
        terminalreporter.write_line(f"{name:<60} {delta:.2e}")


NUMERIC = {
    "tests/alignscore/test_parity.py",
    "tests/core/test_core.py",
    "tests/core/test_cpu_precision.py",
    "tests/core/test_precision.py",
    "tests/ctc/test_ctc_parity.py",
    "tests/ctc/test_ctc_trained_parity.py",
    "tests/ctc/test_inputs.py",
    "tests/ctc/test_token_budget.py",
    "tests/infolm/test_infolm.py",
    "tests/infolm/test_infolm_parity.py",
    "tests/minicheck/test_parity.py",
    "tests/factcg/test_parity.py",
    "tests/hhem/test_parity.py",
    "tests/lettucedetect/test_parity.py",
    "tests/infolm/test_token_budget.py",
    "tests/stats/test_meta_eval.py",
    "tests/unieval/test_unieval.py",
    "tests/unieval/test_unieval_meta_eval.py",
    "tests/usr/test_usr.py",
}
"""The parity and precision tests: CI runs them a second time on other kernels and one thread
(``ATEN_CPU_CAPABILITY=default OMP_NUM_THREADS=1 bash scripts/test.sh -m numeric``), so their
tolerances are checked on a second kind of machine."""


def pytest_collection_modifyitems(config, items):
    root = Path(str(config.rootpath))
    missing = sorted(path for path in NUMERIC if not (root / path).is_file())
    if missing:  # a moved or renamed test file would lose its numeric marker without a word
        raise pytest.UsageError(f"tests/conftest.py NUMERIC names test files that do not exist: {missing}")
    for item in items:
        if Path(str(item.path)).relative_to(root).as_posix() in NUMERIC:
            item.add_marker(pytest.mark.numeric)
