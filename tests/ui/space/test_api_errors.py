"""A /score request for a config whose weights are not on the machine: the API's error is self-contained
(an API client sees no page, so no pointer to the page's collapsible note): what is missing and the one
command or link that gets it."""

from __future__ import annotations

import dataclasses
import json
import sys

import pytest
from gradio_client.exceptions import AppError

from nlgmetrics.availability import NOTE_TITLE
from nlgmetrics.core.registry import WEIGHTS, is_published, load_hint, original_releases
from nlgmetrics.modules import SPECS
from nlgmetrics.ui.limits import Limits
from nlgmetrics.ui.space import ModelPool, SpaceError, score_records
from tests.ui.space.helpers import example_records


def missing(monkeypatch, name: str, config: str):
    """The config's first weight made absent from the cache (a revision nobody has), as offline."""
    weight = SPECS[name].weights_of(config)[0]
    monkeypatch.setitem(WEIGHTS, weight.name, dataclasses.replace(weight, revision="f" * 40))
    return WEIGHTS[weight.name]


def score_error(client, name: str, config: str) -> str:
    records = json.dumps(example_records(name))
    with pytest.raises(AppError) as err:
        client.predict(name, config, records, "{}", api_name="/score")
    return str(err.value)


def test_an_unpublished_config_says_how_to_convert_it_in_the_message_itself(client, monkeypatch):
    name, config = "ctc_consistency", "D-cnndm"  # the paper's best, not the default while it is unpublished
    weight = missing(monkeypatch, name, config)
    assert not is_published(weight)  # a converted checkpoint not on the Hub: the case this test is about
    message = score_error(client, name, config)
    assert f"Config {config} of {name} cannot load in this Space" in message
    assert f"{weight.repo_id} is not published on the Hub yet" in message
    assert weight.conversion in message  # the command ...
    assert any(url in message for url in original_releases().values())  # ... the checkpoint's link ...
    assert load_hint(weight, "cli") in message  # ... and how the converted folder scores
    assert "configs that load now:" in message and "E-minilm" in message
    assert NOTE_TITLE not in message and "at the top" not in message and "aligner='" not in message
    assert "\n" not in message


def test_a_published_config_not_in_the_cache_gives_the_download_command(client, monkeypatch):
    name = "infolm"
    config = SPECS[name].default_config
    weight = missing(monkeypatch, name, config)
    assert is_published(weight)
    message = score_error(client, name, config)
    assert f"Config {config} of {name} cannot load in this Space" in message
    assert f"hf download {weight.repo_id} --revision {weight.revision}" in message
    assert "this machine is offline" in message and NOTE_TITLE not in message


def test_a_module_whose_package_the_space_lacks_says_what_the_operator_adds(monkeypatch):
    """Issue 33 §19: a Space installed without spaCy (``nlgmetrics[space,embedded]``) told a USR visitor to
    ``pip install``; it says what the Space lacks and what its operator does instead."""
    monkeypatch.setitem(sys.modules, "spacy", None)  # `import spacy` raises ModuleNotFoundError
    pool = ModelPool(Limits(), budget_mb=10_000)  # USR not loaded yet: loading it needs spaCy
    with pytest.raises(SpaceError) as err:
        score_records(pool, "usr", "default", example_records("usr"), {})
    message = str(err.value)
    assert "pip install" not in message and "This Space cannot run usr" in message
    assert "lacks the Python package `spacy`" in message and "operator" in message
    assert pool.loaded() == []
