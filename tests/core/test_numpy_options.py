"""numpy's integers and booleans (scalars and 0-d arrays: what reading a value out of an array gives) are
taken wherever Python's are, and give the same result as Python's values; True is still not a number and
1 still not a boolean. The declared options are read from the module declarations; the functions' int and
bool parameters are listed by hand, and a test checks the list against their signatures."""

from __future__ import annotations

import functools
import inspect
import json
import sys
import warnings

import numpy as np
import pytest

import nlgmetrics
from nlgmetrics.core.runtime import Runtime
from nlgmetrics.core.warnings import NLGMetricsWarning
from nlgmetrics.distributed import run_local_workers
from nlgmetrics.integrations.combine import combine
from nlgmetrics.integrations.for_trainer import for_trainer
from nlgmetrics.meta_eval import correlate, meta_evaluate
from nlgmetrics.modules import SPECS
from nlgmetrics.significance import compare, compare_many
from nlgmetrics.ui.limits import Limits
from tests.integrations.word_overlap import WordOverlap

TYPES = (bool, int, float)


def _declared() -> list[tuple[str, str, object]]:
    """(module, "load"/"compute", option) for every declared option typed bool, int or float, each name once
    (the first module declaring it)."""
    found, seen = [], set()
    for name, spec in SPECS.items():
        for kind, table in (("compute", spec.all_compute_options), ("load", spec.all_load_options)):
            for option in table:
                if option.text_type in TYPES and (kind, option.name) not in seen:
                    seen.add((kind, option.name))
                    found.append((name, kind, option))
    return found


DECLARED = _declared()


def _python_values(option) -> list:
    if option.text_type is bool:
        return [True, False]
    return [8] if option.text_type is int else [0.5, 2]  # floats also take ints (InfoLM's alpha=2)


def _numpy_forms(value) -> list:
    if isinstance(value, bool):
        return [np.bool_(value), np.array(value)]
    if isinstance(value, int):
        return [np.int64(value), np.int32(value), np.uint8(value), np.array(value)]
    return [np.float64(value), np.float32(value), np.array(value)]


@functools.cache
def _module(name: str):
    return nlgmetrics.load(name, "E-minilm" if SPECS[name].family == "ctc" else None, device="cpu")


def _checked(name: str, kind: str, option_name: str, value):
    """The value as the module's own checks leave it (compute: the resolved options; load: the Runtime)."""
    if kind == "load":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", NLGMetricsWarning)  # allow_tf32=True has no effect on the CPU
            return Runtime.resolve(device="cpu", **{option_name: value})
    module = _module(name)
    return module.spec.check_call(None, {option_name: value}, module.config, scorer=module.scorer)[1]


def test_every_bool_int_and_float_option_is_covered():
    names = {option.name for _, _, option in DECLARED}
    assert {"batch_size", "max_batch_tokens", "allow_tf32", "show_progress", "return_details"} <= names
    assert {"remove_stopwords", "overall", "idf", "alpha", "beta", "temperature"} <= names


@pytest.mark.parametrize(("name", "kind", "option"), DECLARED, ids=[f"{n}.{o.name}" for n, _, o in DECLARED])
def test_numpy_values_of_a_declared_option_are_its_python_values(name, kind, option):
    for value in _python_values(option):
        want = _checked(name, kind, option.name, value)
        for form in _numpy_forms(value):
            got = _checked(name, kind, option.name, form)
            assert got == want, (form, got, want)
            if kind == "compute" and option.name in got:
                assert type(got[option.name]) is type(want[option.name]), form


@pytest.mark.parametrize(("name", "kind", "option"), DECLARED, ids=[f"{n}.{o.name}" for n, _, o in DECLARED])
def test_booleans_are_not_numbers_and_numbers_not_booleans(name, kind, option):
    wrong = [1, np.int64(0), np.array(1)] if option.text_type is bool else [True, np.bool_(True)]
    for value in wrong:
        with pytest.raises(ValueError, match=option.name):
            _checked(name, kind, option.name, value)
    if option.text_type is int:
        with pytest.raises(ValueError, match="must be a positive integer"):
            _checked(name, kind, option.name, np.float64(8.0))


def test_a_module_loaded_and_computed_with_numpy_options():
    inputs = {"predictions": ["A library opens."], "sources": ["The city opens a new library on Monday."]}
    python = nlgmetrics.load("ctc_consistency", "E-minilm", batch_size=2)
    numpy = nlgmetrics.load("ctc_consistency", "E-minilm", batch_size=np.int64(2), max_batch_tokens=None)
    assert numpy.runtime == python.runtime and type(numpy.runtime.batch_size) is int
    options = {"remove_stopwords": np.bool_(False), "return_details": np.array(True)}
    assert numpy.compute(**inputs, **options) == python.compute(
        **inputs, remove_stopwords=False, return_details=True
    )


# ---- the functions' int and bool parameters ---------------------------------------------------------

SCORES_A, SCORES_B = [0.1, 0.2, 0.3, 0.5, 0.4], [0.2, 0.2, 0.4, 0.6, 0.1]
HUMAN = [1.0, 2.0, 2.5, 4.0, 3.0]
STATS = {"resamples": 200, "seed": 3, "confidence": 0.9}
NUMPY_STATS = {"resamples": np.int64(200), "seed": np.array(3), "confidence": np.float64(0.9)}
LISTED = {
    "compare": {"higher_is_better", "resamples", "seed"},
    "compare_many": {"higher_is_better", "resamples", "seed"},
    "correlate": {"resamples", "seed"},
    "meta_evaluate": {"resamples", "seed"},
    "for_trainer": {"num_examples", "offload", "strict"},
    "combine": {"force_prefix", "strict"},
    "run_local_workers": {"num_processes"},
    "resolve": {"batch_size", "max_batch_tokens", "allow_tf32"},
}
"""The int and bool parameters the tests below give numpy values."""


def test_the_listed_parameters_are_every_int_and_bool_parameter():
    functions = [compare, compare_many, correlate, meta_evaluate, for_trainer, combine, run_local_workers]
    for function in [*functions, Runtime.resolve]:
        typed = {
            name
            for name, parameter in inspect.signature(function).parameters.items()
            if {"int", "bool"} & set(str(parameter.annotation).replace("|", " ").split())
        }
        assert typed == LISTED[function.__name__], function.__name__


def test_comparisons_take_numpy_options_and_return_python_numbers():
    python = compare(SCORES_A, SCORES_B, higher_is_better=True, **STATS)
    numpy = compare(SCORES_A, SCORES_B, higher_is_better=np.bool_(True), **NUMPY_STATS)
    assert numpy == python and json.loads(json.dumps(numpy)) == python
    systems = {"a": SCORES_A, "b": SCORES_B, "c": HUMAN}
    many = compare_many(systems, higher_is_better=np.array(False), **NUMPY_STATS)
    assert many == compare_many(systems, higher_is_better=False, **STATS)
    json.dumps(many)
    for bad in ({"resamples": np.bool_(True)}, {"seed": True}, {"higher_is_better": np.int64(1)}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            compare(SCORES_A, SCORES_B, **bad)


def test_meta_evaluation_takes_numpy_options():
    docs = ["d1", "d1", "d2", "d2", "d3"]
    python = correlate(SCORES_A, HUMAN, doc_ids=docs, **STATS)
    numpy = correlate(SCORES_A, HUMAN, doc_ids=docs, **NUMPY_STATS)
    assert numpy == python and json.loads(json.dumps(numpy)) == python
    records = [{"doc_id": d, "scores": h, "predict_scores": m} for d, h, m in zip(docs, HUMAN, SCORES_A)]
    assert meta_evaluate(records, **NUMPY_STATS) == meta_evaluate(records, **STATS)
    with pytest.raises(ValueError, match="resamples must be a non-negative integer"):
        correlate(SCORES_A, HUMAN, resamples=np.bool_(True))


def test_for_trainer_and_combine_take_numpy_options(tmp_path):
    from transformers import AutoTokenizer

    from tests.integrations.tiny_seq2seq import save_tiny_bart

    tokenizer = AutoTokenizer.from_pretrained(save_tiny_bart(tmp_path))
    made = for_trainer(
        tokenizer,
        {"overlap": WordOverlap()},
        num_examples=np.int64(2),
        offload=np.bool_(False),
        strict=np.array(True),
    )
    assert type(made.sets.num_examples) is int and made.sets.num_examples == 2 and made.foreign.strict is True
    for bad, message in (
        ({"num_examples": True}, "num_examples=True must be a positive integer"),
        ({"offload": np.int64(1)}, "offload=np.int64(1) must be True or False"),
        ({"strict": 1}, "strict=1 must be True or False"),
    ):
        with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
            for_trainer(tokenizer, {"overlap": WordOverlap()}, **bad)
    combined = combine([WordOverlap()], force_prefix=np.bool_(True), strict=np.bool_(False))
    result = combined.compute(predictions=["a b"], references=["a"])
    assert result["word_overlap_word_overlap"] == 0.5 and combined.force_prefix is True
    with pytest.raises(ValueError, match="force_prefix=1 must be True or False"):
        combine([WordOverlap()], force_prefix=1)


def test_local_workers_and_the_space_limits_take_numpy_integers():
    assert run_local_workers([sys.executable, "-c", "pass"], np.int64(1)) == 0
    with pytest.raises(ValueError, match="num_processes=True must be a positive integer"):
        run_local_workers([sys.executable, "-c", "pass"], True)
    limits = Limits(max_examples=np.int64(3), max_model_mb=np.array(100))
    assert (limits.max_examples, limits.max_model_mb) == (3, 100) and type(limits.max_examples) is int
    with pytest.raises(ValueError, match="max_examples=True must be a positive integer"):
        Limits(max_examples=True)
