"""Issue 18: one runtime, one scorer base, options declared once and checked once at each public entry
point (evaluate's load/compute, a scorer's constructor/score, the functional forms), never below it."""

from __future__ import annotations

import warnings
from collections import Counter

import pytest

import nlgmetrics
from nlgmetrics.alignscore import alignscore
from nlgmetrics.core import options as options_module
from nlgmetrics.core import runtime
from nlgmetrics.core import spec as spec_module
from nlgmetrics.core.options import COMMON_COMPUTE_OPTIONS, Option
from nlgmetrics.core.runtime import Runtime, WhereToRun
from nlgmetrics.core.scorer import Scorer
from nlgmetrics.ctc import CTCScorer, aspect_spec, ctc_score
from nlgmetrics.factcg import factcg
from nlgmetrics.hhem import hhem
from nlgmetrics.infolm import infolm
from nlgmetrics.lettucedetect import lettucedetect
from nlgmetrics.minicheck import minicheck
from nlgmetrics.modules import SPECS
from nlgmetrics.unieval import unieval
from nlgmetrics.usr import usr
from references.examples import examples
from tests.helpers import NAMES, config_of

FUNCTIONAL = {
    "ctc": lambda name, config, data, **kw: ctc_score(
        name.removeprefix("ctc_"), aligner=config, **data, **kw
    ),
    "infolm": lambda name, config, data, **kw: infolm(model=config, **data, **kw),
    "minicheck": lambda name, config, data, **kw: minicheck(config=config, **data, **kw),
    "unieval": lambda name, config, data, **kw: unieval(task=config, **data, **kw),
    "usr": lambda name, config, data, **kw: usr(**data, **kw),
    "alignscore": lambda name, config, data, **kw: alignscore(config=config, **data, **kw),
    "factcg": lambda name, config, data, **kw: factcg(config=config, **data, **kw),
    "hhem": lambda name, config, data, **kw: hhem(config=config, **data, **kw),
    "lettucedetect": lambda name, config, data, **kw: lettucedetect(config=config, **data, **kw),
}
"""Each family's functional form, called as a user would (fields by name, load and compute options mixed)."""


def counting(monkeypatch, target, names: list[str]) -> Counter:
    calls: Counter = Counter()
    for name in names:
        original = getattr(target, name)

        def wrapper(*args, _name=name, _original=original, **kwargs):
            calls[_name] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(target, name, wrapper)
    return calls


@pytest.mark.parametrize("name", NAMES)
def test_where_to_run_is_resolved_once_per_load(name, monkeypatch):
    """device, dtype, both batch sizes and TF32 are checked once, by Runtime.resolve, however many models
    the module loads (USR loads three; they used to resolve the device three times)."""
    config = config_of(name)
    calls = counting(
        monkeypatch, runtime, ["select_device", "resolve_dtype", "tf32_in_effect", "check_positive_int"]
    )
    metric = nlgmetrics.load(name, config, device="cpu", batch_size=4, max_batch_tokens=512)
    assert calls == {"select_device": 1, "resolve_dtype": 1, "tf32_in_effect": 1, "check_positive_int": 2}
    assert metric.scorer.runtime == Runtime.resolve("cpu", batch_size=4, max_batch_tokens=512)


@pytest.mark.parametrize("name", NAMES)
def test_each_compute_option_and_each_input_is_checked_once_per_call(name, monkeypatch):
    metric = nlgmetrics.load(name, config_of(name), device="cpu")
    data = examples(name, 2)
    # every option the module declares with a default, given explicitly (None means "the default" and
    # is not checked), plus return_details=True
    given = {o.name: o.default for o in metric.scorer.option_table() if o.default is not None}
    given["return_details"] = True
    once = dict.fromkeys(given, 1)
    validated: Counter = Counter()
    original = Option.validate

    def validate(self, value):
        validated[self.name] += 1
        return original(self, value)

    monkeypatch.setattr(Option, "validate", validate)
    checks = counting(monkeypatch, spec_module, ["check_inputs"])  # ModuleSpec.check_call checks the fields
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        metric.compute(**data, **given)
        assert validated == once and checks == {"check_inputs": 1}
        validated.clear(), checks.clear()
        metric.scorer.score(**data, **given)
        assert validated == once and checks == {"check_inputs": 1}


@pytest.mark.parametrize("name", NAMES)
def test_every_family_scorer_is_a_scorer_reading_its_declared_options(name):
    spec = SPECS[name]
    scorer = nlgmetrics.load(name, config_of(name), device="cpu").scorer
    assert isinstance(scorer, Scorer)
    assert scorer.option_table() == spec.all_compute_options
    assert [o.name for o in spec.all_compute_options][-2:] == [o.name for o in COMMON_COMPUTE_OPTIONS]
    with pytest.raises(ValueError, match=r"does not take the option no_such_option; its options are"):
        scorer.check_options(no_such_option=1)


@pytest.mark.parametrize("name", NAMES)
def test_each_functional_form_gives_the_module_s_numbers(name):
    config = config_of(name) or SPECS[name].default_config
    data = examples(name, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = nlgmetrics.load(name, config, device="cpu", batch_size=2).compute(**data)
        functional = FUNCTIONAL[SPECS[name].family](name, config, data, device="cpu", batch_size=2)
    assert functional["scores"] == module["scores"]


def test_a_scorer_takes_a_resolved_runtime_or_the_options_not_both():
    run = Runtime.resolve("cpu")
    assert Runtime.of(run) is run and Runtime.of(None, device="cpu") == run
    with pytest.raises(TypeError, match="give either runtime= or batch_size, not both"):
        Runtime.of(run, batch_size=8)
    with pytest.raises(
        TypeError, match=r"CTCScorer got unknown option\(s\) devic; where to run: device, dtype"
    ):
        CTCScorer(aspect_spec("consistency"), "E-minilm", devic="cpu")


def test_the_option_table_is_plain_data_shared_by_every_interface():
    """The CLI, the Space and the widget read Option rows from core.options, as the module spec does."""
    from nlgmetrics.core import spec

    assert (
        spec.Option is options_module.Option
        and spec.COMMON_LOAD_OPTIONS is options_module.COMMON_LOAD_OPTIONS
    )
    names = [o.name for o in options_module.COMMON_LOAD_OPTIONS]
    assert (
        names
        == list(options_module.RUNTIME_OPTIONS)
        == ["device", "dtype", "batch_size", "max_batch_tokens", "allow_tf32", "quantize"]
        == list(WhereToRun.__annotations__)  # the type of a scorer's **where names the same options
    )


@pytest.mark.parametrize("name", NAMES)
def test_a_functional_form_refuses_an_unknown_option_before_loading_weights(name, monkeypatch):
    """A misspelled option (``devic``) is one ValueError listing the valid ones, before any weight loads."""

    def no_loading(*args, **kwargs):
        raise AssertionError("weights were loaded although an option is unknown")

    monkeypatch.setattr(Runtime, "cache_key", no_loading)  # every weight load asks it first
    config = config_of(name) or SPECS[name].default_config
    with pytest.raises(ValueError, match=r"does not take the option devic; its options are .*device"):
        FUNCTIONAL[SPECS[name].family](name, config, examples(name, 1), devic="cpu")
