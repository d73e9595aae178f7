"""The shared input checks (issue 8 §4.3-§4.6): every module validates through these."""

from __future__ import annotations

import pytest

from nlgmetrics.core.runtime import Runtime
from nlgmetrics.core.validation import (
    check_inputs,
    check_references,
    check_texts,
    is_blank,
)


@pytest.mark.parametrize(
    "text",
    ["", "   ", "\n\t", "\u200b", "\ufeff", "\x00\x07", "\u200b\ufeff\x00", "\u2028\u2029\u00a0\u3000"],
)
def test_blank_texts(text):
    assert is_blank(text)


@pytest.mark.parametrize("text", ["a", " a ", "\u200ba", "🙂", "日本", "\u0301", "-"])
def test_texts_with_something_to_read_are_not_blank(text):
    assert not is_blank(text)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (
            ["ok", "\ud800"],
            r"texts\[1\] cannot be encoded as UTF-8: '\\ud800' at character 0 is a lone surrogate",
        ),
        (["ok", "ab\udfff"], r"texts\[1\] cannot be encoded as UTF-8: '\\udfff' at character 2"),
        ([b"abc"], r"texts\[0\] must be a string, got bytes; decode it first"),
        ([bytearray(b"abc")], r"texts\[0\] must be a string, got bytearray"),
        (b"abc", "texts must be a list with one entry per example, got bytes"),
        ([3], r"texts\[0\] must be a string, got int"),
    ],
)
def test_bad_texts_name_field_and_index(values, message):
    with pytest.raises(ValueError, match=message):
        check_texts("texts", values)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ([b"abc"], r"references\[0\] must be a string or a list of strings, got bytes; decode it first"),
        ([["a", b"abc"]], r"references\[0\]\[1\] must be a string, got bytes"),
        (["fine", "\ud800"], r"references\[1\] cannot be encoded as UTF-8"),
        ([["fine", "x\ud800"]], r"references\[0\]\[1\] cannot be encoded as UTF-8"),
    ],
)
def test_bad_references_name_field_and_index(values, message):
    with pytest.raises(ValueError, match=message):
        check_references(values)


def test_check_inputs_reports_the_first_bad_field_before_anything_else():
    with pytest.raises(ValueError, match=r"sources\[2\] cannot be encoded as UTF-8"):
        check_inputs({"predictions": ["a", "b", "c"], "sources": ["a", "b", "\ud83d"]})
    fine = check_inputs({"predictions": ["é", "🙂"], "references": ["x", ["y", "z"]]})
    assert fine == {"predictions": ["é", "🙂"], "references": [["x"], ["y", "z"]]}


@pytest.mark.parametrize("value", [-1, 0, 2.5, "16", True, [8]])
@pytest.mark.parametrize("name", ["batch_size", "max_batch_tokens"])
def test_batch_sizes_must_be_positive_ints_and_are_checked_where_the_runtime_is_resolved(name, value):
    with pytest.raises(ValueError, match=rf"{name}=.* must be a positive int"):
        Runtime.resolve("cpu", **{name: value})


def test_batch_size_none_means_the_default():
    assert Runtime.resolve("cpu").batch_size is None and Runtime.resolve("cpu", batch_size=16).rows() == 16
