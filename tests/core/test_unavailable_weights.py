"""Weights that cannot load say so in one line, with the real way to get them, and quickly: unpublished
weights name their conversion, and an unreachable Hub is found by one short connection check instead of
minutes of retries (issue 16 §2b)."""

from __future__ import annotations

import dataclasses
import socket

import huggingface_hub.constants
import pytest

import nlgmetrics
from nlgmetrics.core import registry
from nlgmetrics.core.hub import WeightsUnavailableError
from nlgmetrics.core.registry import WEIGHTS, how_to_get, is_published
from nlgmetrics.ctc.weights import ctc_weight_name


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
