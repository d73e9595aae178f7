"""Any non-string sequence of strings is a field (issue 27 §3): a list, a tuple, a numpy array, a pandas
Series, a ``datasets`` column, converted once to a list of plain strings; per-example references likewise
(a list of lists, a 2-D array, a Series of lists or of arrays, a column of lists). Wrong element types keep
their errors naming the field and the index; a bare string stays refused."""

from __future__ import annotations

from pathlib import Path

import datasets
import evaluate
import numpy as np
import pandas as pd
import pytest

import nlgmetrics
from nlgmetrics.core.validation import check_inputs, check_references, check_texts
from nlgmetrics.ctc.module import ctc_score
from nlgmetrics.infolm.module import infolm
from nlgmetrics.modules import SPECS
from references.examples import examples
from tests.helpers import config_of

REPO = Path(__file__).resolve().parents[2]
PREDICTIONS = ["The council approved a new library.", "Dogs bark at night."]
SOURCES = ["The city council voted to build a new public library.", "Dogs often bark at night."]
REFERENCES = [["A library will be built.", "The council approved a library."], ["Dogs bark.", "Night dogs."]]
pytestmark = pytest.mark.filterwarnings("ignore::nlgmetrics.core.warnings.NLGMetricsWarning")


def column(values: list) -> datasets.Column:
    return datasets.Dataset.from_dict({"field": values})["field"]


TEXT_CONTAINERS = {
    "tuple": tuple,
    "numpy": np.array,
    "numpy object": lambda values: np.array(values, dtype=object),
    "pandas": lambda values: pd.Series(values, index=range(10, 10 + len(values))),  # not 0..n-1
    "pandas string": lambda values: pd.Series(values, dtype="string"),
    "datasets column": column,
}
REFERENCE_CONTAINERS = {
    "tuple of tuples": lambda refs: tuple(tuple(r) for r in refs),
    "numpy 2-D": np.array,
    "list of numpy": lambda refs: [np.array(r) for r in refs],
    "pandas of lists": pd.Series,
    "pandas of numpy": lambda refs: pd.Series([np.array(r) for r in refs]),
    "datasets column": column,
}


@pytest.mark.parametrize("kind", TEXT_CONTAINERS)
def test_every_text_container_becomes_a_list_of_plain_strings(kind):
    checked = check_inputs({"predictions": TEXT_CONTAINERS[kind](PREDICTIONS), "sources": SOURCES})
    assert checked == {"predictions": PREDICTIONS, "sources": SOURCES}
    assert all(type(text) is str for text in checked["predictions"])  # no numpy.str_ left below
    assert type(checked["predictions"]) is list


@pytest.mark.parametrize("kind", REFERENCE_CONTAINERS)
def test_every_reference_container_becomes_lists_of_plain_strings(kind):
    checked = check_references(REFERENCE_CONTAINERS[kind](REFERENCES), n=2)
    assert checked == REFERENCES
    assert all(type(ref) is str for refs in checked for ref in refs)


def test_one_reference_per_example_in_an_array_is_one_string_each():
    assert check_references(np.array(["r1", "r2"])) == [["r1"], ["r2"]]
    assert check_references(pd.Series(["r1", ["r2", "r3"]])) == [["r1"], ["r2", "r3"]]


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ("a bare string", "predictions must be a list with one entry per example, got str"),
        (np.array("a bare string"), "predictions must be a list with one entry per example, got ndarray"),
        (np.str_("a bare string"), "predictions must be a list with one entry per example, got str_"),
        ({"a": "b"}, "predictions must be a list with one entry per example, got dict"),
        ({"a", "b"}, "predictions must be a list with one entry per example, got set"),
        (
            pd.DataFrame({"predictions": ["a", "b"]}),
            r'got DataFrame; pass one of its columns \(e.g. data\["predictions"\]\)',
        ),
        (datasets.Dataset.from_dict({"predictions": ["a"]}), r"got Dataset; pass one of its columns"),
        (np.array([1, 2]), r"predictions\[0\] must be a string, got int"),
        (np.array([["a"], ["b"]]), r"predictions\[0\] must be a string, got list"),
        (pd.Series(["a", None]), r"predictions\[1\] is NaN \(a missing value\)"),
        (pd.Series(["a", np.nan], dtype=object), r"predictions\[1\] is NaN \(a missing value\)"),
        (np.array(["a", None], dtype=object), r"predictions\[1\] is None"),
        (column(["a", None]), r"predictions\[1\] is None"),
        (np.array([b"a", b"b"]), r"predictions\[0\] must be a string, got bytes; decode it first"),
    ],
)
def test_wrong_containers_and_elements_keep_their_errors(values, message):
    with pytest.raises(ValueError, match=message):
        check_texts("predictions", values)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (pd.Series([["a"], None]), r"references\[1\] is None"),
        (pd.Series([["a"], np.array([], dtype=str)]), r"references\[1\] is an empty list"),
        ([np.array(["a", "b"]), np.array([1])], r"references\[1\]\[0\] must be a string, got int"),
        ([{"a": "b"}], r"references\[0\] must be a string or a list of strings, got dict"),
        ([np.array("one")], r"references\[0\] must be a string or a list of strings, got ndarray"),
    ],
)
def test_wrong_references_keep_their_errors(values, message):
    with pytest.raises(ValueError, match=message):
        check_references(values)


def test_lengths_of_arrays_are_checked_against_the_predictions():
    with pytest.raises(ValueError, match="sources has 1 examples but predictions has 2"):
        check_inputs({"predictions": np.array(PREDICTIONS), "sources": pd.Series(SOURCES[:1])})


# ---- through every entry point: the real modules, evaluate.load, add_batch, functional forms ---------


def as_arrays(inputs: dict[str, list]) -> dict:
    """Every text field a numpy array; several references per example a pandas Series of numpy arrays."""
    return {
        name: pd.Series([np.array(refs) for refs in values])
        if isinstance(values[0], list)
        else np.array(values)
        for name, values in inputs.items()
    }


@pytest.mark.parametrize("name", sorted(SPECS))
def test_every_module_scores_arrays_as_it_scores_lists(name):
    metric = nlgmetrics.load(name, config_of(name), device="cpu")
    inputs = examples(name, 3)
    assert metric.compute(**as_arrays(inputs)) == metric.compute(**inputs)


def test_evaluate_load_compute_and_add_batch_take_numpy_pandas_and_datasets():
    metric = evaluate.load(str(REPO / "metrics" / "ctc_relevance"), "E-minilm", device="cpu")
    want = metric.compute(predictions=PREDICTIONS, sources=SOURCES, references=REFERENCES)
    data = datasets.Dataset.from_dict({"summary": PREDICTIONS, "document": SOURCES, "refs": REFERENCES})

    assert (
        metric.compute(
            predictions=np.array(PREDICTIONS), sources=pd.Series(SOURCES), references=np.array(REFERENCES)
        )
        == want
    )
    assert (
        metric.compute(predictions=data["summary"], sources=data["document"], references=data["refs"]) == want
    )
    metric.add_batch(
        predictions=np.array(PREDICTIONS[:1]), sources=pd.Series(SOURCES[:1]), references=data["refs"][:1]
    )
    metric.add(prediction=np.str_(PREDICTIONS[1]), sources=SOURCES[1], reference=np.array(REFERENCES[1]))
    assert metric.compute() == want


def test_functional_forms_take_arrays():
    want = ctc_score("consistency", PREDICTIONS, SOURCES, aligner="E-minilm", device="cpu")
    assert (
        ctc_score("consistency", np.array(PREDICTIONS), pd.Series(SOURCES), aligner="E-minilm", device="cpu")
        == want
    )
    config = config_of("infolm")
    model = {} if config is None else {"model": config}
    assert infolm(np.array(PREDICTIONS), pd.Series(REFERENCES), device="cpu", **model) == infolm(
        PREDICTIONS, REFERENCES, device="cpu", **model
    )
