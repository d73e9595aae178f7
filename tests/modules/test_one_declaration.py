"""Issue 29 §2-§3: a module is declared once (the scorer reads its ModuleSpec), one check_call serves every
entry point, and one compute() takes a short path (one check, one ready scorer, the signature made by the
scorer, the aligner's special-token layout kept from load)."""

from __future__ import annotations

import dataclasses
import warnings

import pytest

import nlgmetrics
from nlgmetrics.core import tokenize
from nlgmetrics.core.spec import ModuleSpec
from nlgmetrics.modules import SPECS
from references.examples import examples
from tests.core.test_checked_once import FUNCTIONAL, counting
from tests.helpers import NAMES, config_of


@pytest.mark.parametrize("name", NAMES)
def test_the_scorer_reads_its_module_s_declaration(name):
    spec = SPECS[name]
    for config in spec.configs if name == "unieval" else [config_of(name) or spec.default_config]:
        scorer = nlgmetrics.load(name, config, device="cpu").scorer
        assert scorer.spec is spec and scorer.name == name
        assert scorer.inputs == spec.inputs_for(config) and scorer.option_table() == spec.all_compute_options


@pytest.mark.parametrize("name", NAMES)
def test_a_functional_form_returns_the_module_s_signature_and_direction(name):
    config = config_of(name) or SPECS[name].default_config
    data = examples(name, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = nlgmetrics.load(name, config, device="cpu").compute(**data)
        functional = FUNCTIONAL[SPECS[name].family](name, config, data, device="cpu")
    assert functional["signature"] == module["signature"] and f"|module:{name}|" in module["signature"]
    assert functional["higher_is_better"] == module["higher_is_better"]


@pytest.mark.parametrize("name", NAMES)
def test_one_check_call_per_compute_add_batch_and_score(name, monkeypatch):
    metric = nlgmetrics.load(name, config_of(name), device="cpu")
    data = examples(name, 2)
    calls = counting(monkeypatch, ModuleSpec, ["check_call", "build_scorer"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        metric.compute(**data)
        assert calls == {"check_call": 1}
        calls.clear()
        metric.add_batch(**data)
        assert calls == {"check_call": 1}
        metric.compute()
        assert calls == {"check_call": 2}
        calls.clear()
        metric.scorer.score(**data)
        assert calls == {"check_call": 1}


def test_check_call_checks_options_before_any_model_loads():
    spec = SPECS["ctc_consistency"]
    assert spec.check_call(None, {"aggregation": "sum"}, complete=False) == (None, {"aggregation": "sum"})
    fields, options = spec.check_call({"predictions": ("a",), "sources": ["b"]}, {})
    assert fields == {"predictions": ["a"], "sources": ["b"]} and options["aggregation"] == "mean"
    with pytest.raises(
        ValueError, match=r"^ctc_consistency.compute\(\) does not take aggregaton; its inputs"
    ):
        spec.check_call(None, {"aggregaton": "sum"})
    with pytest.raises(
        ValueError, match="^ctc_consistency does not take contexts; its inputs are predictions"
    ):
        spec.check_call({"predictions": ["a"], "sources": ["b"], "contexts": ["c"]}, None)
    with pytest.raises(ValueError, match=r"sources\[0\] must be a string"):
        spec.check_call({"predictions": ["a"], "sources": [1]}, None)


def test_the_aligner_keeps_its_special_token_layout_from_load(monkeypatch):
    metric = nlgmetrics.load("ctc_consistency", "E-minilm", device="cpu")
    calls = counting(monkeypatch, tokenize, ["special_token_layout"])
    metric.compute(predictions=["The cat sat."], sources=["A cat sat on the mat."])
    assert calls == {}


def test_a_custom_unieval_question_may_read_only_the_task_s_inputs():
    metric = nlgmetrics.load("unieval", "summarization", device="cpu")
    question = "question: Is this consistent with the fact? </s> summary: {prediction} </s> fact: {context}"
    with pytest.raises(
        ValueError, match=r"questions\['grounded'\] reads contexts, which unieval summarization"
    ):
        metric.compute(**examples("unieval", 1), questions={"grounded": question})


@pytest.mark.parametrize("name", ["unieval", "ctc_consistency"])
def test_a_scorer_built_without_a_config_loads_its_spec_s_default(name):
    """Issue 48 §3: the default config is applied in one place, the spec's (``resolve_config``): a scorer
    built with none loads whatever its spec declares the default, not a constant of its own."""
    spec = SPECS[name]
    other = next(config for config in spec.configs if config != spec.default_config)
    assert spec.resolve_config(None) == spec.resolve_config("default") == spec.default_config
    assert spec.resolve_config(other) == other
    with pytest.raises(ValueError, match=f"^{name} has no config 'nope'; valid configs are"):
        spec.resolve_config("nope")
    declared = dataclasses.replace(spec, default_config=other)
    assert declared.build_scorer(None, device="cpu").config == other
