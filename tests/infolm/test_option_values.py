"""Issue 17 §6 and §11 for InfoLM: idf weights that would overflow, and a measure that is not a name."""

from __future__ import annotations

import math

import pytest
import torch

import nlgmetrics


@pytest.fixture(scope="module")
def module(tiny_snapshots):
    return nlgmetrics.load("infolm", device="cpu")


def test_weights_near_the_float_maximum_are_refused_naming_the_option(scorer, module, monkeypatch):
    monkeypatch.setattr(scorer.wrapper, "bags", lambda *a: pytest.fail("model work before validation"))
    window = scorer.wrapper.window
    largest = torch.finfo(scorer.wrapper.bag_dtype).max / window
    for weight in (1e308, largest * 1.01, 10**400):
        with pytest.raises(ValueError, match=r"idf\['the'\]=.* too large") as err:
            scorer.score(["the cat the"], ["the dog"], idf={"the": weight})
        assert "\n" not in str(err.value)
        with pytest.raises(ValueError, match=r"idf\['the'\]=.* too large"):
            module.compute(predictions=["the cat the"], references=["the dog"], idf={"the": weight})
    for weight in (math.inf, math.nan):
        with pytest.raises(ValueError, match=r"idf\['the'\]=.* finite"):
            scorer.score(["the cat"], ["the dog"], idf={"the": weight})
    with pytest.raises(ValueError, match=r"idf\['the'\]=.* smallest normal"):
        scorer.score(["the cat"], ["the dog"], idf={"the": 1e-320})


def test_the_largest_accepted_weights_still_give_the_uniform_score(scorer, monkeypatch):
    """Only the ratios of the weights matter: the same weight for every token, however large, is idf=False."""
    largest = torch.finfo(scorer.wrapper.bag_dtype).max / scorer.wrapper.window
    vocab = scorer.wrapper.tokenizer.get_vocab()
    predictions, references = ["the cat sat on the mat"], ["the dog sat on the mat"]
    tokens = {t for text in predictions + references for t in scorer.wrapper.tokenizer.tokenize(text)}
    assert tokens <= set(vocab)
    uniform = scorer.score(predictions, references, idf=False)["scores"]
    huge = scorer.score(predictions, references, idf=dict.fromkeys(tokens, largest))["scores"]
    assert math.isfinite(huge[0]) and huge[0] != 0.0
    assert huge == pytest.approx(uniform, rel=1e-9)


@pytest.mark.parametrize("measure", [["kl_divergence"], {"kl_divergence": 1}, 3, None.__class__])
def test_a_measure_that_is_not_a_name_is_a_clear_value_error(scorer, module, measure):
    for compute in (scorer.score, lambda *a, **k: module.compute(predictions=a[0], references=a[1], **k)):
        with pytest.raises(ValueError, match=r"measure=.* is not one of kl_divergence") as err:
            compute(["the cat"], ["the dog"], measure=measure)
        assert "\n" not in str(err.value)


@pytest.mark.parametrize(
    ("measure", "params", "message"),
    [
        ("fisher_rao_distance", {"alpha": math.nan}, r"alpha=nan must be a finite real number"),
        ("kl_divergence", {"beta": math.inf}, r"beta=inf must be a finite real number"),
        ("l2_distance", {"alpha": "0.5"}, r"alpha='0.5' must be a finite real number"),
        ("l1_distance", {"beta": True}, r"beta=True must be a finite real number"),
        (
            "fisher_rao_distance",
            {"beta": -1},
            r"beta=-1 is out of its range: a real number other than 0 and -1",
        ),
        (
            "l_infinity_distance",
            {"alpha": 0.0},
            r"alpha=0.0 is out of its range: a real number other than 0 and 1",
        ),
        ("beta_divergence", {"alpha": math.nan, "beta": 0.5}, r"alpha=nan must be a finite real number"),
        ("renyi_divergence", {"alpha": 0.5, "beta": -math.inf}, r"beta=-inf must be a finite real number"),
    ],
)
def test_alpha_and_beta_are_checked_whichever_measure_is_chosen(scorer, module, measure, params, message):
    """Issue 26 §20: a parameter the measure does not read is still checked, never silently dropped."""
    for compute in (scorer.score, lambda *a, **k: module.compute(predictions=a[0], references=a[1], **k)):
        with pytest.raises(ValueError, match=message) as err:
            compute(["the cat"], ["the dog"], measure=measure, **params)
        assert "\n" not in str(err.value)
        if not message.endswith("finite real number"):
            assert f"measure={measure!r} does not use" in str(err.value) and "leave it out" in str(err.value)


def test_unused_parameters_in_range_are_still_accepted(scorer):
    uniform = scorer.score(["the cat"], ["the dog"], measure="l2_distance", idf=False)["scores"]
    given = scorer.score(["the cat"], ["the dog"], measure="l2_distance", idf=False, alpha=0.75, beta=0.25)
    assert given["scores"] == uniform
