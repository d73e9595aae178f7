"""Issue 26 §18-§19: an aligner spec is parsed strictly: a bad layer suffix, a layer on a D or R aligner and a
missing folder are one-line ValueErrors saying what is wrong, never a Hub lookup of ``repo@-1``."""

from __future__ import annotations

import shutil

import pytest

import nlgmetrics
from nlgmetrics.ctc.aligners.base import parse_custom_aligner


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("E:org/model@-1", r"layer '-1' after '@' must be a whole number >= 0, e.g. 'E:org/model@9'"),
        ("E:org/model@x", r"layer 'x' after '@' must be a whole number >= 0"),
        ("E:org/model@1.5", r"layer '1.5' after '@' must be a whole number >= 0"),
        ("E:org/model@", r"layer '' after '@' must be a whole number >= 0"),
        ("E:org/model@²", r"layer '²' after '@' must be a whole number >= 0"),
        ("E:@3", r"names no model before '@3'"),
        ("E:org/model@3@4", r"'org/model@3' is not a Hub repo id"),
        ("D:org/model@3", r"a D aligner takes no layer \('@3'\): only E aligners do; give 'D:org/model'"),
        ("R:org/model@x", r"an R aligner takes no layer \('@x'\): only E aligners do; give 'R:org/model'"),
    ],
)
def test_a_bad_layer_or_a_layer_on_d_or_r_says_what_is_wrong_with_the_spec(spec, message):
    for load in (parse_custom_aligner, lambda s: nlgmetrics.load("ctc_consistency", aligner=s)):
        with pytest.raises(ValueError, match=message) as err:
            load(spec)
        text = str(err.value)
        assert "\n" not in text and "hf download" not in text and "not in the local" not in text
        assert text.startswith(f"aligner={spec!r}")


def test_good_specs_still_parse(tmp_path, monkeypatch, tiny_snapshots):
    assert parse_custom_aligner("E:org/model@0").layer == 0
    assert (parse_custom_aligner("E:org/model@12").source, parse_custom_aligner("E:org/model@12").layer) == (
        "org/model",
        12,
    )
    assert parse_custom_aligner("D:org/model").layer is None
    # a folder whose name holds '@' is that folder, for every kind
    shutil.copytree(tiny_snapshots["roberta-large"], tmp_path / "aligner@3")
    monkeypatch.chdir(tmp_path)
    for kind in ("E", "R"):
        parsed = parse_custom_aligner(f"{kind}:./aligner@3")
        assert (parsed.source, parsed.layer) == ("./aligner@3", None)
    parsed = parse_custom_aligner("E:./aligner@3@2")
    assert (parsed.source, parsed.layer) == ("./aligner@3", 2)


@pytest.mark.parametrize("spec", ["D:./nope", "E:./nope", "R:../no/such/folder", "E:./nope@3"])
def test_a_missing_aligner_folder_is_a_value_error_naming_it(spec, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    folder = spec[2:].removesuffix("@3")
    for load in (parse_custom_aligner, lambda s: nlgmetrics.load("ctc_consistency", aligner=s)):
        with pytest.raises(ValueError, match=f"the folder '{folder}' does not exist") as err:
            load(spec)
        assert "\n" not in str(err.value) and "give an existing local folder" in str(err.value)
