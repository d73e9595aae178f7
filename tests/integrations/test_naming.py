"""One way to name a metric (issue 41 §1): ``for_trainer``, ``combine`` and ``reward`` each take a name,
``(name, config)``, ``(name, config, options)`` or a loaded module of ours, read by one function
(``metric_named``), and refuse anything else in one line, naming the argument and the forms, before any model
loads."""

from __future__ import annotations

import re

import pytest

import nlgmetrics
from nlgmetrics.integrations.naming import NamedMetric, metric_named
from nlgmetrics.modules import loading
from tests.helpers import REORDERED_FLOAT32
from tests.integrations.tiny_seq2seq import DOCUMENTS, SUMMARIES

NAME = "ctc_consistency"
CONFIG = "E-minilm"
FORMS = {
    "name": (NAME, (None, {}, {})),  # the default config (E-bert, tiny here)
    "name-config": ((NAME, CONFIG), (CONFIG, {}, {})),
    "name-config-options": (
        (NAME, CONFIG, {"batch_size": 2, "aggregation": "sum"}),
        (CONFIG, {"batch_size": 2}, {"aggregation": "sum"}),
    ),
}
"""Form → (what names the metric, its (config, load options, compute options))."""
BAD = {
    "list": (
        [NAME],
        "is not a metric: give a module name ('ctc_consistency'), (name, config), (name, config",
    ),
    "number": (3, "=3 is not a metric: give a module name"),
    "four-items": ((NAME, CONFIG, {}, "x"), "is not a metric: give a module name"),
    "options-not-a-dict": ((NAME, CONFIG, ["batch_size"]), "the options must be a dict of option names"),
    "unknown-config": ((NAME, "E-nope"), ": ctc_consistency has no config 'E-nope'"),
    "unknown-option": ((NAME, CONFIG, {"batchsize": 2}), " (ctc_consistency) has no option batchsize"),
}
"""Form → the message's telling part."""


class Decoder:
    """A tokenizer as far as for_trainer's construction reads one."""

    def batch_decode(self, rows, skip_special_tokens=True):
        return ["" for _ in rows]


@pytest.fixture(scope="module")
def loaded():
    return nlgmetrics.load(NAME, CONFIG)


@pytest.fixture
def no_loading(monkeypatch):
    """Loading a module fails the test: a refused name must be refused before any model loads."""

    def load(*args, **kwargs):
        raise AssertionError("a model loaded before the metrics were all named")

    monkeypatch.setattr(loading, "load", load)


@pytest.mark.parametrize("form", FORMS)
def test_every_form_names_the_same_metric(form):
    metric, expected = FORMS[form]
    named = metric_named(metric)
    assert (named.name, named.config, named.load_options, named.compute_options) == (NAME, *expected)
    assert named.module is None and named.ours


def test_a_loaded_module_keeps_its_config_and_takes_compute_options(loaded):
    named = metric_named(loaded, options={"aggregation": "sum"})
    assert named == NamedMetric(NAME, CONFIG, dict(loaded.load_options), {"aggregation": "sum"}, loaded)
    assert named.load() is loaded
    with pytest.raises(ValueError, match="ctc_consistency is loaded already: give config to nlgmetrics.load"):
        metric_named(loaded, config="E-bert")


def test_keywords_beside_a_name_or_a_tuple():
    by_keywords = metric_named(NAME, config=CONFIG, options={"batch_size": 2, "aggregation": "sum"})
    assert by_keywords == metric_named(FORMS["name-config-options"][0])
    assert metric_named((NAME, CONFIG), options={"batch_size": 2}).load_options == {"batch_size": 2}
    with pytest.raises(
        ValueError, match="metric: give the config once, in the tuple or as config=, not both"
    ):
        metric_named((NAME, CONFIG), config=CONFIG)
    with pytest.raises(ValueError, match="metric: batch_size given twice, in the tuple and as a keyword"):
        metric_named((NAME, CONFIG, {"batch_size": 2}), options={"batch_size": 4})


@pytest.mark.parametrize("form", [*FORMS, "loaded"])
def test_reward_takes_every_form(form, loaded):
    metric, (config, load, compute) = FORMS.get(form, (loaded, (CONFIG, dict(loaded.load_options), {})))
    reward = nlgmetrics.reward(metric, sources="document")
    assert (reward.metric, reward.config, reward.load_options, reward.compute_options) == (
        NAME,
        config,
        load,
        compute,
    )
    assert reward._given is (loaded if form == "loaded" else None)


@pytest.mark.parametrize("form", [*FORMS, "loaded"])
def test_for_trainer_takes_every_form(form, loaded):
    metric, (config, load, compute) = FORMS.get(form, (loaded, (CONFIG, {}, {})))
    compute_metrics = nlgmetrics.for_trainer(Decoder(), {"consistency": metric}, sources="inputs")
    (keyed,) = compute_metrics.metrics
    assert (keyed.module.spec.name, keyed.module.config, keyed.options) == (NAME, config, compute)
    assert all(keyed.module.load_options[k] == v for k, v in load.items())
    assert keyed.module is loaded if form == "loaded" else keyed.module is not loaded


@pytest.mark.parametrize("form", [*FORMS, "loaded"])
def test_combine_takes_every_form(form, loaded):
    metric, (config, _, compute) = FORMS.get(form, (loaded, (CONFIG, {}, {})))
    combined = nlgmetrics.combine([metric])
    (module,) = combined.evaluation_modules
    assert (module.spec.name, module.config, combined.given_options) == (NAME, config, [compute])
    if compute:  # the tuple's compute options are every call's, under the call's own
        inputs = {"predictions": SUMMARIES[:2], "sources": DOCUMENTS[:2]}
        alone = nlgmetrics.load(NAME, CONFIG, batch_size=2).compute(**inputs, aggregation="sum")["scores"]
        got = combined.compute(**inputs)["ctc_consistency_scores"]
        assert got == pytest.approx(alone, abs=REORDERED_FLOAT32)


@pytest.mark.parametrize("bad", BAD)
def test_every_integration_refuses_anything_else_before_any_model_loads(bad, no_loading):
    metric, message = BAD[bad][0], re.escape(BAD[bad][1])
    with pytest.raises(ValueError, match=f"metric.*{message}"):
        nlgmetrics.reward(metric, sources="document")
    with pytest.raises(ValueError, match=rf"metrics\['bad'\].*{message}"):
        nlgmetrics.for_trainer(Decoder(), {"good": NAME, "bad": metric}, sources="inputs")
    with pytest.raises(ValueError, match=rf"metrics\[1\].*{message}"):
        nlgmetrics.for_trainer(Decoder(), [NAME, metric], sources="inputs")
    with pytest.raises(ValueError, match=rf"combine: modules\[1\].*{message}"):
        nlgmetrics.combine([NAME, metric])
