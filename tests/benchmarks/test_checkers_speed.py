"""benchmarks/checkers_speed.py on the tiny weights: the bare forward runs exactly the rows ours runs, the
ratios are the median of paired per-round ratios, and the results page and the cards' Speed line read a
refused bf16 row."""

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
        "cpu_ours_over_bare_rounds": [2.0, 1.5, 2.25], "cpu_speedup_vs_reference_rounds": [2.0, 2.0, 2.0],
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
    assert "- hhem float32: ours / bare 1.50 to 2.25; reference / ours 2.00 to 2.00." in page
    line = checkers_speed("hhem")(lambda name: data)
    assert "One SummEval document with 4 summaries: float32" in line
    assert (
        "float32: ours / bare forward 2.00 (rounds 1.50 to 2.25), the reference's own loop / ours 2.00 "
        "(rounds 2.00 to 2.00)" in line
    )
    assert "bfloat16 not measured (refused on that CPU)" in line


def test_a_ratio_is_the_median_of_the_rounds_paired_ratios():
    from benchmarks.checkers_speed import paired

    rounds = [
        {"ours": {"seconds": 2.0, "cpu_seconds": 4.0}, "bare": {"seconds": 1.0, "cpu_seconds": 2.0}},
        {"ours": {"seconds": 3.0, "cpu_seconds": 3.0}, "bare": {"seconds": 3.0, "cpu_seconds": 2.0}},
        {"ours": {"seconds": 9.0, "cpu_seconds": 9.0}, "bare": {"seconds": 6.0, "cpu_seconds": 9.0}},
    ]
    got = paired(rounds, "ours", "bare", "ours_over_bare")
    assert got == {
        "ours_over_bare": 1.5,
        "cpu_ours_over_bare": 1.5,
        "cpu_ours_over_bare_rounds": [2.0, 1.5, 1.0],
    }


def test_the_mixed_workload_takes_one_summary_of_each_of_the_first_documents():
    from benchmarks.checkers_speed import pairs_of

    claims, documents = pairs_of("mixed", 3)
    one_claims, one_document = pairs_of("one-document", 16)
    assert len(claims) == 3 and len(set(documents)) == 3
    assert claims[0] == one_claims[0] and documents[0] == one_document[0]
    assert len(set(one_document)) == 1  # SummEval's 16 system summaries of its first document
