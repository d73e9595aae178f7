"""The A/B comparison logic of the Space without Gradio: pairing scores, the summary and per-example tables,
and the significance shown under the plot (the numbers of nlgmetrics.compare)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from nlgmetrics.modules import SPECS
from nlgmetrics.significance import compare
from nlgmetrics.ui.limits import Limits
from nlgmetrics.ui.space import ModelPool, SpaceError, ordered_fields, ui_options
from nlgmetrics.ui.space.ab_results import (
    RESAMPLES,
    SEED,
    SUMMARY_COLUMNS,
    MetricComparison,
    delta_plot,
    differences,
    per_example_table,
    preferred,
    significance,
    significance_cells,
    significance_markdown,
    summary_table,
)
from nlgmetrics.ui.space.compare import missing_inputs, two_files, two_predictions
from nlgmetrics.ui.space.context import FamilyContext


def result(scores: list[float], higher_is_better: bool | None = True) -> dict:
    finite = [s for s in scores if not math.isnan(s)]
    return {"scores": scores, "mean_score": sum(finite) / len(finite), "higher_is_better": higher_is_better}


def test_comparison_imports_no_gradio():
    code = "import sys, nlgmetrics.ui.space.ab_results; sys.exit('gradio' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_each_example_goes_to_the_system_the_metrics_direction_prefers():
    a, b = [0.1, 0.5, 0.9, math.nan], [0.3, 0.5, 0.2, 0.4]
    higher = MetricComparison("m", "c", result(a), result(b))
    lower = MetricComparison("m", "c", result(a, False), result(b, False))
    assert higher.winners() == ["B", "tie", "A", "n/a"]
    assert lower.winners() == ["A", "tie", "B", "n/a"]
    assert higher.counts() == {"A": 1, "B": 1, "tie": 1}
    unknown = MetricComparison("m", "c", result(a, None), result(b, None))
    assert unknown.winners() == ["?", "tie", "?", "n/a"]
    assert preferred(None, 0.2, True) == "n/a"


def test_summary_counts_and_per_example_tables():
    one = MetricComparison("m1", "c1", result([0.25, 0.5]), result([0.75, 0.5]))
    two = MetricComparison("m2", "c2", result([2.0, 1.0], False), result([1.0, 3.0], False))
    summary = summary_table([one, two])
    assert summary.columns == SUMMARY_COLUMNS
    assert summary.rows == [
        ["m1", "c1", 0.375, 0.625, "B", 0, 1, 1],
        ["m2", "c2", 1.5, 2.0, "A", 1, 1, 0],
    ]
    records_a = [{"id": "x", "predictions": "a1"}, {"id": "y", "predictions": "a2"}]
    records_b = [{"id": "x", "predictions": "b1"}, {"id": "y", "predictions": "b2 " + "long " * 30}]
    table = per_example_table([one, two], records_a, records_b)
    assert table.columns == ("id", "metric", "A", "B", "preferred", "prediction A", "prediction B")
    assert [row[:6] for row in table.rows] == [
        ["x", "m1", 0.25, 0.75, "B", "a1"],
        ["y", "m1", 0.5, 0.5, "tie", "a2"],
        ["x", "m2", 2.0, 1.0, "B", "a1"],
        ["y", "m2", 1.0, 3.0, "A", "a2"],
    ]
    long_cell = table.rows[1][6]
    assert long_cell.startswith('<span title="b2 long long') and long_cell.endswith("…</span>")
    assert table.datatypes() == ["str", "str", "number", "number", "str", "markdown", "markdown"]
    without_ids = per_example_table([one], [{"predictions": "a"}, {"predictions": "b"}])
    assert without_ids.columns[0] == "row" and [row[0] for row in without_ids.rows] == [1, 2]


def test_significance_is_nlgmetrics_compare_on_the_same_scores_in_the_metrics_direction():
    a, b = [0.1, 0.4, 0.35, 0.8, 0.5, math.nan], [0.3, 0.45, 0.3, 0.9, 0.7, 0.2]
    for higher in (True, False):
        one = MetricComparison("m", "c", result(a, higher), result(b, higher))
        want = compare(a, b, higher_is_better=higher, resamples=RESAMPLES, seed=SEED)
        assert significance(one) == want
        assert (RESAMPLES, SEED) == (1000, 0)
        shown = significance_markdown([one])
        assert f"| `m` | {' | '.join(significance_cells(want))} |" in shown
        assert "left out (`m`: 1)" in shown and f"{RESAMPLES} resamples, seed {SEED}" in shown
    wins = significance(MetricComparison("m", "c", result(a), result(b)))
    losses = significance(MetricComparison("m", "c", result(a, False), result(b, False)))
    assert (wins["wins"], wins["losses"]) == (losses["losses"], losses["wins"])


def test_one_example_gives_no_interval_and_says_why():
    one = MetricComparison("m", "c", result([0.1]), result([0.3]))
    assert significance(one) is None
    shown = significance_markdown([one])
    assert "|" not in shown and "`m`: the interval and the p-value need at least 2 examples" in shown


def test_the_plot_shows_each_examples_difference_and_the_mean_delta_with_its_interval():
    """What "is B better?" rests on: a dot per example at B − A (its label and value on hover), the mean Δ
    and the 95% interval of nlgmetrics.compare, and which side is better in the metric's direction."""
    a, b = [0.1, 0.4, 0.35, 0.8, math.nan], [0.3, 0.45, 0.3, 0.9, 0.2]
    records = [{"id": f"d{i}"} for i in range(5)]
    for higher in (True, False):
        one = MetricComparison("m", "c", result(a, higher), result(b, higher))
        assert [i for i, _ in differences(one)] == [0, 1, 2, 3]  # the NaN pair is left out
        svg = delta_plot([one], records)
        want = compare(a, b, higher_is_better=higher, resamples=RESAMPLES, seed=SEED)
        assert svg.count('class="nlgm-diff"') == 4
        for i, d in differences(one):
            assert f"<title>d{i}: B − A = {f'{d:+.4f}'.replace('-', '−')}</title>" in svg
        delta, interval = significance_cells(want)[:2]
        assert f"<title>mean Δ {delta}, 95% interval {interval}</title>" in svg
        right = "B better →" if higher else "A better →"
        assert right in svg and ("← A better" if higher else "← B better") in svg
    single = delta_plot([MetricComparison("m", "c", result([0.1]), result([0.3]))], [{}])
    assert "no interval: fewer than 2 examples" in single and single.count('class="nlgm-diff"') == 1
    assert delta_plot([], []) == ""
    pair = MetricComparison("m", "c", result([0.1, 0.2]), result([0.2, 0.2]))
    two = delta_plot(
        [pair, MetricComparison("<m2>", "c", result([1.0, 2.0]), result([2.0, 2.0]))], records[:2]
    )
    assert "&lt;m2&gt;" in two and "<m2>" not in two  # one row per metric, names escaped


def test_a_missing_input_says_fill_it_in_for_the_form_and_a_column_for_files():
    records = [{"predictions": "a", "sources": "s"}, {"predictions": "b", "sources": "s", "references": " "}]
    inputs = ("predictions", "sources", "references")
    assert missing_inputs("m", inputs, records, files=False) == "m needs references: fill it in or deselect m"
    assert missing_inputs("m", inputs, records, files=True) == (
        "m needs references: the files need a `references` column with a text on every row (row 1 has none), "
        "or deselect m"
    )
    assert missing_inputs("m", inputs[:2], records, files=True) == ""


def family_context(family: str = SPECS["ctc_consistency"].family) -> FamilyContext:
    """A family's context with no model loaded (the checks below run before any scoring)."""
    specs = tuple(SPECS[n] for n in sorted(SPECS) if SPECS[n].family == family)
    limits = Limits()
    return FamilyContext(
        family=family,
        specs=specs,
        pool=ModelPool(limits),
        limits=limits,
        workdir="",
        guarded=lambda fn: fn,
        fields=tuple(ordered_fields(specs)),
        options=ui_options(specs),
        examples={},
    )


def write_jsonl(path, records: list[dict]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("a", "b", "message"),
    [
        ("A cat.", " ", "prediction B is empty"),
        ("", "A cat.", "prediction A is empty"),
        (None, "", "prediction A and B are empty"),
    ],
)
def test_an_empty_prediction_on_either_side_is_a_message(a, b, message):
    with pytest.raises(SpaceError, match=message):
        two_predictions(family_context(), ["ctc_consistency"], a, b, {"sources": "A cat sat."})


def test_two_predictions_share_the_inputs():
    records_a, records_b = two_predictions(family_context(), ["ctc_consistency"], "x", "y", {"sources": "s"})
    assert records_a == [{"predictions": "x", "sources": "s"}] and records_b == [
        {"predictions": "y", "sources": "s"}
    ]


@pytest.mark.parametrize(
    ("rows_a", "rows_b", "message"),
    [
        ([{"id": "d1", "predictions": "a", "sources": "s"}], [], "b.jsonl has no rows"),  # the CLI's words
        (
            [
                {"id": "d1", "predictions": "a", "sources": "s"},
                {"id": "d2", "predictions": " ", "sources": "s"},
            ],
            [
                {"id": "d1", "predictions": "b", "sources": "s"},
                {"id": "d2", "predictions": "b", "sources": "s"},
            ],
            "system A's file has no `predictions` in id d2",
        ),
        (
            [{"predictions": "a", "sources": "s"}],
            [{"predictions": "b", "sources": "s"}, {"predictions": "c", "sources": "s"}],
            "system A has 1 row and system B 2; they must match",
        ),
        (
            [{"predictions": "a", "sources": "s"}, {"predictions": "a", "sources": "s"}],
            [{"predictions": "b", "sources": "s"}, {"predictions": "b", "sources": "t"}],
            "row 2: the two files differ in sources",
        ),
    ],
)
def test_two_system_files_are_checked_before_scoring(tmp_path, rows_a, rows_b, message):
    path_a, path_b = write_jsonl(tmp_path / "a.jsonl", rows_a), write_jsonl(tmp_path / "b.jsonl", rows_b)
    with pytest.raises(ValueError, match=None) as err:  # a SpaceError, or read_upload's ValueError
        two_files(family_context(), path_a, path_b)
    assert message in str(err.value)
    with pytest.raises(SpaceError, match="upload both system files"):
        two_files(family_context(), path_a, None)
