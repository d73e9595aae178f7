"""benchmarks/checkers_speed.py on the tiny weights: the bare forward runs exactly the rows ours runs, and the
results page and the cards' Speed line read a refused bf16 row."""

from __future__ import annotations

import pytest

from benchmarks.checkers_speed import FAMILIES, SHAPES, bare, markdown, rows_of, scorer_of
from nlgmetrics.modules.card_notes import checkers_speed

CLAIMS = [
    "The council will build a library.",
    "A frog was found in Peru.",
    "The council will build a library.",
]
DOCUMENTS = [
    "The city council voted on Monday to build a new public library on Elm Street. It opens in 2027.",
    "Scientists discovered a new species of frog. It lives in the rainforest of Peru.",
    "The city council voted on Monday to build a new public library on Elm Street. It opens in 2027.",
]


@pytest.mark.parametrize("family", FAMILIES)
def test_the_bare_forward_gets_the_rows_ours_runs(family):
    scorer = scorer_of(family, None, "float32")
    sources = [[d] for d in DOCUMENTS] if family == "lettucedetect" else DOCUMENTS
    rows = rows_of(scorer, CLAIMS, sources)
    seen, run = [], scorer.wrapper.per_row
    scorer.wrapper.per_row = lambda got, *args, **kwargs: seen.append(list(got)) or run(got, *args, **kwargs)
    scores = scorer.score(CLAIMS, sources)["scores"]
    assert seen == [rows] and len(rows) == 2  # the repeated example runs once
    assert len(scores) == 3 and all(0 <= s <= 1 for s in scores)
    bare(scorer.wrapper, rows)


def test_a_refused_bf16_row_is_said_on_the_page_and_the_card():
    measured = {
        "family": "hhem", "shape": SHAPES["hhem"], "dtype": "float32", "examples": 4, "pairs": 4,
        "tokens": 100, "reference_s": 2.0, "ours_s": 1.0, "bare_s": 1.0, "reference_cpu_s": 2.0,
        "ours_cpu_s": 1.0, "bare_cpu_s": 0.5, "ours_over_bare": 1.0, "cpu_ours_over_bare": 2.0,
        "speedup_vs_reference": 2.0, "cpu_speedup_vs_reference": 2.0, "max_abs_delta": 0.0,
    }  # fmt: skip
    refused = {"family": "hhem", "shape": SHAPES["hhem"], "dtype": "bfloat16", "refused": "needs bf16 units"}
    data = {
        "examples": 4,
        "repeats": 2,
        "machine": "x86_64",
        "threads": 2,
        "torch": "2",
        "rows": [measured, refused],
    }
    page = markdown(data)
    assert "| 2.00 (1.00) | 2.00x (2.00x) |" in page
    assert "refused on this CPU: needs bf16 units" in page
    line = checkers_speed("hhem")(lambda name: data)
    assert "float32: ours / bare forward 2.00, the reference's own loop / ours 2.00" in line
    assert "bfloat16 not measured (refused on that CPU)" in line
