"""The Space in a real browser (Debian's chromium driven by Playwright): every family tab's three modes.

Each mode runs on the module's default config (tiny random weights under the registered repo id)
and, where the module has one, on its offline config (the embedded E-minilm for CTC); the numbers
the page shows must equal direct compute() results rounded as displayed. Screenshots of the first
family's modes go to a temporary folder, or with NLGMETRICS_REFRESH_SCREENSHOTS=1 to docs/ (the README
shows them): the test suite never rewrites tracked files unless asked to.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import os
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from nlgmetrics.availability import NOTE_TITLE
from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.ctc.weights import ctc_weight_name
from nlgmetrics.modules import FAMILIES as FAMILY_TABLE
from nlgmetrics.modules import SPECS
from nlgmetrics.significance import compare
from nlgmetrics.ui.display import display, scale_of
from nlgmetrics.ui.display import score_text as printed
from nlgmetrics.ui.space import heatmap
from nlgmetrics.ui.space.ab_results import significance_cells
from nlgmetrics.ui.space.tables import TEXT_CHARS
from nlgmetrics.ui.widget import score_label
from tests.ui.space.helpers import REPO, direct, example_records

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SCRATCH = Path(os.environ["HF_HOME"]).parent / "screenshots"  # the session's temporary folder (conftest.py)
DOCS = REPO / "docs" if os.environ.get("NLGMETRICS_REFRESH_SCREENSHOTS") == "1" else SCRATCH
FAMILIES = list(FAMILY_TABLE)  # the Space's tabs, in the family table's order
FIRST_FAMILY = FAMILIES[0]
TIMEOUT_MS = 60_000
pytestmark = pytest.mark.filterwarnings("ignore:infolm. every token")


def first_module(family: str):
    return SPECS[sorted(n for n, s in SPECS.items() if s.family == family)[0]]


def configs_to_try(spec) -> list[str]:
    """The default config (tiny weights) and the offline config when it is another one."""
    return [spec.default_config] + (
        [spec.doctest_config] if spec.doctest_config not in (None, spec.default_config) else []
    )


@pytest.fixture(scope="module")
def page(space):
    from playwright import sync_api

    give_up = pytest.fail if os.environ.get("CI") else pytest.skip  # CI installs chromium: never skip there
    if not os.access(CHROMIUM, os.X_OK):
        give_up(f"{CHROMIUM} is missing: apt-get install -y chromium (.ci/run installs it)")
    with sync_api.sync_playwright() as playwright:
        try:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        except Exception as err:  # only when chromium itself cannot start
            give_up(f"chromium could not start: {err}")
        page = browser.new_page(viewport={"width": 1000, "height": 800}, accept_downloads=True)
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(space[1])
        page.wait_for_selector("#nlgmetrics-banner")
        yield page
        browser.close()


def open_mode(page, family: str, mode: str) -> None:
    """Show the family's tab and its mode (single, batch or ab)."""
    page.click(f"#tab-{family}-button")
    page.click(f"button[data-tab-id='{family}-{mode}']")


def choose(page, element_id: str, label: str) -> None:
    """Pick ``label`` in a Gradio drop-down (opened again if its list did not show: seen once on a
    machine loaded by other jobs)."""
    option = page.locator(f"#{element_id}").get_by_role("option", name=label, exact=True)
    for _ in range(2):
        page.click(f"#{element_id} input")
        try:
            option.click(timeout=20_000)
            return
        except PlaywrightTimeoutError:
            page.keyboard.press("Escape")
    page.click(f"#{element_id} input")
    option.click()


def score_text(page, family: str) -> str:
    """What the single-example score box shows."""
    return page.locator(f"#{family}-single-score").locator("textarea, input").first.input_value()


def quoted(text: str) -> str:
    """``text`` as a quoted string inside a selector (``:has-text(...)``), non-ASCII kept as is."""
    return json.dumps(text, ensure_ascii=False)


def wait_for_text(page, element_id: str, text: str) -> str:
    try:
        page.wait_for_selector(f"#{element_id}:has-text({quoted(text)})")
    except PlaywrightTimeoutError:
        pytest.fail(f"#{element_id} never showed {text!r}; it shows {page.inner_text(f'#{element_id}')!r}")
    return page.inner_text(f"#{element_id}")


def shot(page, name: str, family: str, element_id: str | None = None, folder: Path | None = None) -> None:
    if family == FIRST_FAMILY:
        folder = folder or DOCS
        folder.mkdir(exist_ok=True)
        where = page.locator(f"#{element_id or f'tab-{family}'}")
        where.screenshot(path=str(folder / name), type="png", animations="disabled")


def columns(spec, records):
    return {f: [r[f] for r in records] for f in spec.inputs}


def shown(value) -> str:
    """A score as the page prints it: always 4 decimals (issue 33 §19: not 0.512 beside 0.5123)."""
    return printed(value)


def system_records(spec, variant: str) -> list[dict]:
    """Three examples of the module (references as one string, as a CSV cell holds them)."""
    base = {f: (v[0] if isinstance(v, list) else v) for f, v in example_records(spec.name)[0].items()}
    tails = ["", " It was sunny.", " Nobody saw it."]
    return [{**base, "predictions": f"{variant}{base['predictions']}{tail}"} for tail in tails]


def write_csv(path: Path, records: list[dict]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(records[0]))
        writer.writeheader()
        writer.writerows(records)
    return path


@pytest.mark.parametrize("family", FAMILIES)
def test_score_one_example(page, family):
    spec = first_module(family)
    open_mode(page, family, "single")
    # every family tab says at once whether its default loads here, and the score's range is its own
    status = wait_for_text(page, f"{family}-single-status", "The default")
    assert f"The default, {spec.default_config}, loads now" in status and "✓" in status
    label = score_label(spec, spec.default_config)
    page.wait_for_selector(f"#{family}-single-score:has-text({quoted(label)})")
    records = example_records(spec.name)[:1]
    records[0]["predictions"] += " It happened in Paris."  # words the inputs do not support: a contrast
    page.fill(f"#{family}-single-predictions textarea", records[0]["predictions"])
    for config in configs_to_try(spec):
        choose(page, f"{family}-single-config", config)
        wait_for_text(page, f"{family}-single-status", f"{config} loads now")
        single_results_cleared(page, family)  # issue 33 §19: no result of the previous config stays
        page.click(f"#{family}-single-run")
        note = wait_for_text(page, f"{family}-single-note", f"config {config}")
        assert f"Scored with {spec.name}" in note
        label = score_label(spec, config)
        page.wait_for_selector(f"#{family}-single-score:has-text({quoted(label)})")
        want = direct(spec.name, config).compute(**columns(spec, records), return_details=True)
        assert float(score_text(page, family)) == display(want["scores"][0])
        parts = page.inner_text(f"#{family}-single-parts")
        assert shown(want["mean_score"]) in parts
        if spec.marks is None:
            pairs = spec.render_details(want["details"][0])
            check_heat_map(page, family, spec, config, pairs, records[0]["predictions"])
        else:  # LettuceDetect: the answer's unsupported spans marked, not a heat map
            check_marks(page, family, spec.render_marks(want["details"][0]), records[0]["predictions"])
    shot(page, "space_single.png", family)
    if family == FIRST_FAMILY:
        fits_the_page(page, f"{family}-single-examples")  # issue 33 §19: not cut off at the right
        blank_prediction_points_to_its_note(page, family)
        page.fill(
            f"#{family}-single-predictions textarea", records[0]["predictions"]
        )  # as the next tests expect


def single_results_cleared(page, family: str) -> None:
    """The score, heat map, table of sub-scores, raw output and note of an earlier run are gone."""
    page.wait_for_function(
        f"(() => {{ const t = document.querySelector('#{family}-single-tokens'); "
        "return t && t.querySelectorAll('.nlgm-word').length === 0; })()"
    )
    assert score_text(page, family) == "" and page.inner_text(f"#{family}-single-note").strip() == ""
    assert "mean_score" not in page.inner_text(f"#{family}-single-parts")
    assert "module:" not in page.inner_text(f"#{family}-single-raw")  # no signature of an earlier run


def fits_the_page(page, element_id: str) -> None:
    """Nothing of the element runs past its own box or the window's right edge (no hidden columns)."""
    width = page.viewport_size["width"]
    box = page.locator(f"#{element_id}")
    scroll, client = box.evaluate("e => [e.scrollWidth, e.clientWidth]")
    right = box.evaluate(  # what is shown (Gradio's hidden sizing row has visibility: collapse)
        "e => Math.max(...[e, ...e.querySelectorAll('*')]"
        ".filter(x => getComputedStyle(x).visibility === 'visible' && x.getClientRects().length)"
        ".map(x => x.getBoundingClientRect().right))"
    )
    assert scroll <= client and right <= width, (element_id, scroll, client, right, width)


def blank_prediction_points_to_its_note(page, family: str) -> None:
    """A blank prediction scores NaN, and the note the score box points to says why (issue 33 §19)."""
    page.fill(f"#{family}-single-predictions textarea", "   ")
    page.click(f"#{family}-single-run")
    note = wait_for_text(page, f"{family}-single-note", "The score is NaN")
    assert score_text(page, family) == "NaN (see the note)"
    assert "predictions is blank" in note and "a blank text has no score" in note


def check_marks(page, family: str, marks, prediction: str) -> None:
    """The spans a module marks (LettuceDetect's unsupported spans): the legend counts them, each mark is
    the prediction's characters of its span, its value shown after it and on hover; none: nothing shown."""
    heat = page.locator(f"#{family}-single-tokens")
    shown = heat.locator(".nlgm-span")
    assert shown.count() == len(marks)
    if not marks:
        return
    legend = heat.locator(".nlgm-legend").inner_text()
    assert legend.startswith(f"Marked: {len(marks)} span")
    titles = shown.evaluate_all("elements => elements.map(e => e.title)")
    for (start, end, value), text, title in zip(sorted(marks), shown.all_inner_texts(), titles):
        assert text == prediction[start:end] and title == printed(value)


def check_heat_map(page, family: str, spec, config: str | None, pairs, prediction: str) -> None:
    """The legend (the scale's ends: the module's declared range, what the values are), the words (pieces
    joined when they spell the prediction), and each word's value on hover."""
    words = heatmap.join_pieces(pairs)
    if not heatmap.spells(words, prediction):
        words = [(token, value, (token,)) for token, value in pairs]
    heat = page.locator(f"#{family}-single-tokens")
    legend = heat.locator(".nlgm-legend").inner_text()
    low, high = scale_of(spec.details_scale(config), [value for _, value in pairs])
    first, last = (float(end.replace("−", "-")) for end in legend.splitlines()[:2])
    assert (first, last) == (low, high) and "hover for the value" in legend  # issue 47 §12: 0 … 1, not ±1
    assert " ".join(heatmap.describe(spec.details).split()[:4]) in " ".join(legend.split())
    if any(len(pieces) > 1 for _, _, pieces in words):
        assert "mean of its tokenizer pieces" in legend
    spans = heat.locator(".nlgm-word")
    assert spans.count() == len(words)
    shown_words = spans.all_inner_texts()
    titles = spans.evaluate_all("elements => elements.map(e => e.title)")
    for (word, value, pieces), text, title in zip(words, shown_words, titles):
        assert text.strip() == word.strip()
        assert title.startswith("no value" if value is None else printed(value))
        assert ("the mean of" in title) == (len(pieces) > 1)


@pytest.mark.parametrize("family", FAMILIES)
def test_batch_upload_and_download(page, family, tmp_path):
    spec = first_module(family)
    open_mode(page, family, "batch")
    assert "The default" in page.inner_text(f"#{family}-batch-status")
    no_placeholder_tables(page, [f"{family}-batch-table"])
    records = [{"id": f"doc-{i + 1}", **r} for i, r in enumerate(system_records(spec, ""))]
    long_field = next(f for f in spec.inputs if f != "predictions")
    records[0][long_field] += " It was a long day." * 6  # longer than a cell shows
    assert len(records[0][long_field]) > TEXT_CHARS
    upload = write_csv(tmp_path / "system.csv", records)
    page.set_input_files(f"#{family}-batch-file input[type=file]", str(upload))
    for config in configs_to_try(spec):
        choose(page, f"{family}-batch-config", config)
        no_placeholder_tables(page, [f"{family}-batch-table", f"{family}-batch-plot"])  # §19: none stale
        page.click(f"#{family}-batch-run")
        note = wait_for_text(page, f"{family}-batch-note", f"config {config}")
        assert "Columns not scored (kept in the downloads): id." in note  # §20: ignored, and named
        want = direct(spec.name, config).compute(**columns(spec, records))
        table = page.inner_text(f"#{family}-batch-table")
        assert all(shown(score) in table for score in want["scores"])
        assert shown(want["mean_score"]) in note
        check_histogram(page, family, want["scores"])
        fits_the_page(page, f"{family}-batch-table")
        headers = header_texts(page, f"{family}-batch-table")
        assert headers[:2] == ["id", "scores"] and headers.index(long_field) > 1
        assert all(f"doc-{i + 1}" in table for i in range(len(records)))
        long_text = " ".join(records[0][long_field].split())  # a cell is one line
        assert long_text not in " ".join(table.split())  # cut short in the cell ...
        assert long_text in titles(page, f"{family}-batch-table")  # ... and whole on hover
        downloaded = {}
        for kind in ("csv", "jsonl"):
            with page.expect_download() as download:
                page.click(f"#{family}-batch-{kind}")
            downloaded[kind] = download.value.path()
        with open(downloaded["csv"], encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
        assert [float(r["scores"]) for r in rows] == want["scores"]
        assert [r["predictions"] for r in rows] == [r["predictions"] for r in records]
        with open(downloaded["jsonl"], encoding="utf-8") as handle:
            lines = [json.loads(line) for line in handle]
        assert [line["scores"] for line in lines] == want["scores"]
    shot(page, "space_batch.png", family)


def check_histogram(page, family: str, scores: list) -> None:
    """Issue 33 §19: the distribution's count axis has whole-number ticks (it counts examples), its bins have
    round edges (a width of 1, 2, 2.5 or 5 times a power of ten) and hold every score, each bar its count."""
    plot = page.locator(f"#{family}-batch-plot svg.nlgm-histogram")
    ticks = plot.locator(".nlgm-count-tick").all_text_contents()  # SVG: text, not innerText
    assert ticks[0] == "0" and all(t.isdigit() for t in ticks), ticks
    edges = [float(t.replace("−", "-")) for t in plot.locator(".nlgm-edge").all_text_contents()]
    width = edges[1] - edges[0]
    assert all(abs((b - a) - width) < 1e-9 for a, b in zip(edges, edges[1:]))
    mantissa = width / 10 ** math.floor(math.log10(width) + 1e-9)
    assert any(abs(mantissa - m) < 1e-6 for m in (1, 2, 2.5, 5)), width
    assert all(abs(e / width - round(e / width)) < 1e-6 for e in edges)  # multiples of the width
    values = [v for v in scores if not math.isnan(v)]
    want = [
        sum(1 for v in values if a <= v < b or (b == edges[-1] and v == b)) for a, b in zip(edges, edges[1:])
    ]
    bars = plot.locator(".nlgm-bin title").all_text_contents()
    assert [int(bar.split(": ")[1].split()[0]) for bar in bars] == want and sum(want) == len(values)


def no_placeholder_tables(page, element_ids: list[str]) -> None:
    """Before a run (and after a failure) the results are hidden: no empty table with "1 2 3" headers."""
    for element_id in element_ids:
        wait_until_shown(page, element_id, False)
    assert not any(header_texts(page, e) for e in element_ids if page.locator(f"#{e}").count())


def check_delta_plot(page, family: str, scores_a: list, scores_b: list, want: dict) -> None:
    """The A/B plot draws what the decision rests on: each example's B − A (its value on hover) and the mean
    Δ with its 95% interval, the numbers of nlgmetrics.compare."""
    plot = page.locator(f"#{family}-ab-plot svg.nlgm-delta")
    dots = plot.locator(".nlgm-diff title").all_text_contents()  # SVG: text, not innerText
    diffs = [f"{b - a:+.4f}".replace("-", "−") for a, b in zip(scores_a, scores_b)]
    assert [d.split("B − A = ")[1] for d in dots] == diffs
    delta, interval = significance_cells(want)[:2]
    assert plot.locator(".nlgm-mean title").text_content() == f"mean Δ {delta}, 95% interval {interval}"


def header_texts(page, element_id: str) -> list[str]:
    """The column names of a Gradio data frame, in order."""
    cells = page.locator(f"#{element_id} thead th")
    return [" ".join(t.split()) for t in cells.all_inner_texts() if t.strip()]


def titles(page, element_id: str) -> list[str]:
    """The hover texts (``title``) inside an element."""
    return page.locator(f"#{element_id} [title]").evaluate_all("elements => elements.map(e => e.title)")


def check_summary(page, family: str, spec, config: str, records_a, records_b) -> None:
    module = direct(spec.name, config)
    a, b = module.compute(**columns(spec, records_a)), module.compute(**columns(spec, records_b))
    summary = page.inner_text(f"#{family}-ab-summary")
    assert shown(a["mean_score"]) in summary and shown(b["mean_score"]) in summary
    table = page.inner_text(f"#{family}-ab-table")
    assert all(shown(x) in table and shown(y) in table for x, y in zip(a["scores"], b["scores"]))


@pytest.mark.parametrize("family", FAMILIES)
def test_compare_two_predictions_and_two_files(page, family, tmp_path):
    spec = first_module(family)
    open_mode(page, family, "ab")
    record_a = example_records(spec.name)[0]
    record_b = {**record_a, "predictions": "Nothing like it happened."}
    assert "The default" in page.inner_text(f"#{family}-ab-status")
    no_placeholder_tables(page, [f"{family}-ab-summary", f"{family}-ab-table", f"{family}-ab-plot"])
    page.fill(f"#{family}-ab-b textarea", "  ")
    page.click(f"#{family}-ab-run")  # an empty B: a message, not an empty chart
    note = wait_for_text(page, f"{family}-ab-note", "prediction B is empty")
    assert "Error" in note and page.locator(".toast-body").count() == 0
    no_placeholder_tables(page, [f"{family}-ab-summary", f"{family}-ab-table", f"{family}-ab-plot"])
    page.fill(f"#{family}-ab-b textarea", record_b["predictions"])
    assert page.inner_text(f"#{family}-ab-significance").strip() == ""  # cleared by the failure
    for config in configs_to_try(spec):
        label = (
            config
            if config in SPECS[spec.name].configs and config != spec.default_config
            else "each module's default"
        )
        choose(page, f"{family}-ab-config", label)
        no_placeholder_tables(page, [f"{family}-ab-summary", f"{family}-ab-table", f"{family}-ab-plot"])
        page.click(f"#{family}-ab-run")
        wait_for_text(page, f"{family}-ab-summary", config)
        check_summary(page, family, spec, config, [record_a], [record_b])
    page.get_by_role("tab", name="Two system files").locator("visible=true").first.click()
    records_a = [{"id": f"doc-{i + 1}", **r} for i, r in enumerate(system_records(spec, ""))]
    records_b = [{"id": f"doc-{i + 1}", **r} for i, r in enumerate(system_records(spec, "Maybe "))]
    page.set_input_files(
        f"#{family}-ab-file-a input[type=file]", str(write_csv(tmp_path / "a.csv", records_a))
    )
    page.set_input_files(
        f"#{family}-ab-file-b input[type=file]", str(write_csv(tmp_path / "b.csv", records_b))
    )
    # §19: the two predictions' comparison leaves with a new upload
    no_placeholder_tables(page, [f"{family}-ab-summary", f"{family}-ab-table", f"{family}-ab-plot"])
    page.click(f"#{family}-ab-files-run")
    wait_for_text(page, f"{family}-ab-note", "Compared 3 examples")
    config = configs_to_try(spec)[-1]
    wait_for_text(page, f"{family}-ab-summary", config)
    check_summary(page, family, spec, config, records_a, records_b)
    assert header_texts(page, f"{family}-ab-table")[:3] == ["id", "metric", "A"]
    fits_the_page(page, f"{family}-ab-table")
    # under the paired plot: Δ, its 95% interval, the p-value and win/tie/loss of nlgmetrics.compare
    module = direct(spec.name, config)
    a, b = module.compute(**columns(spec, records_a)), module.compute(**columns(spec, records_b))
    want = compare(a["scores"], b["scores"], higher_is_better=a["higher_is_better"], resamples=1000, seed=0)
    stats = " ".join(page.inner_text(f"#{family}-ab-significance").split())
    assert "Δ (mean B − mean A)" in stats and "95% interval" in stats and "p-value" in stats
    assert all(text in stats for text in significance_cells(want))
    check_delta_plot(page, family, a["scores"], b["scores"], want)
    shot(page, "space_compare.png", family)
    assert all(f"doc-{i + 1}" in page.inner_text(f"#{family}-ab-table") for i in range(len(records_a)))


def test_switching_module_shows_its_fields_and_a_missing_config_says_how_to_get_it(page, monkeypatch):
    """Within a family the chosen module's fields appear; a config whose weights are missing is a message
    naming the repo and how to get it: unpublished, so its conversion (never a traceback)."""
    family = max(FAMILIES, key=lambda f: sum(s.family == f for s in SPECS.values()))
    names = sorted(n for n, s in SPECS.items() if s.family == family)
    open_mode(page, family, "single")
    for name in names[1::-1] if len(names) > 1 else []:  # the second, then back: each a change
        choose(page, f"{family}-single-module", name)
        label = score_label(SPECS[name])  # the module's own range and direction, from its declaration
        page.wait_for_selector(f"#{family}-single-score:has-text({quoted(label)})")
        assert score_text(page, family) == ""  # nothing scored with this module yet: empty, not 0
        for field in {f for n in names for f in SPECS[n].inputs}:
            box = page.locator(f"#{family}-single-{field}")
            shown = str(field in SPECS[name].inputs).lower()
            page.wait_for_function(
                f"(() => {{ const e = document.querySelector('#{family}-single-{field}'); "
                f"return !!(e && e.offsetParent !== null); }})() === {shown}"
            )
            assert box.is_visible() == (field in SPECS[name].inputs)
    spec = SPECS[names[0]]
    if len(names) > 1:
        choose(page, f"{family}-single-module", spec.name)
        # the module's configs replace the previous module's: wait for its default to show
        shown = json.dumps(f"default ({spec.default_config}")
        page.wait_for_function(
            f"document.querySelector('#{family}-single-config input').value.startsWith({shown})"
        )
    # the paper's best consistency aligner, not on the Hub yet; and the default's weights, missing (offline)
    unpublished, default_weight = "D-cnndm", spec.weights_of(spec.default_config)[0]
    weight = spec.weights_of(unpublished)[0]
    for missing in (weight, default_weight):
        monkeypatch.setitem(WEIGHTS, missing.name, dataclasses.replace(missing, revision="f" * 40))
    choose(page, f"{family}-single-config", unpublished)
    # said at once, on the change, before any Score
    status = wait_for_text(page, f"{family}-single-status", "not published on the Hub yet")
    assert f"Config {unpublished} of {spec.name} cannot load here" in status and "E-minilm" in status
    page.click(f"#{family}-single-run")
    text = wait_for_text(page, f"{family}-single-note", "not published on the Hub yet")
    assert "E-minilm" in text and "Traceback" not in text
    # short: the conversion is in the banner's collapsible note only, never Python's aligner='D:...'
    assert weight.conversion not in text and "aligner=" not in text and NOTE_TITLE in text
    # beside the control, as Markdown (backticks are code), and it stays: no toast that vanishes
    assert page.locator(f"#{family}-single-note code").count() > 0 and "`" not in text
    page.wait_for_timeout(12_000)  # longer than a toast lives
    assert "not published on the Hub yet" in page.inner_text(f"#{family}-single-note")
    assert page.locator(".toast-body").count() == 0
    # the default falls back to E-minilm: the label shows the range of the config that scores
    choose(page, f"{family}-single-config", f"default ({spec.default_config})")
    status = wait_for_text(page, f"{family}-single-status", "scores instead")
    assert f"The default, {spec.default_config}, cannot load here. E-minilm scores instead. " in status
    fallback = score_label(spec, "E-minilm")
    assert fallback.endswith("range [-1, 1])")
    page.wait_for_selector(f"#{family}-single-score:has-text({quoted(fallback)})")
    page.click(f"#{family}-single-run")
    note = wait_for_text(page, f"{family}-single-note", "config E-minilm")
    assert weight.conversion not in note and "aligner=" not in note
    page.wait_for_selector(f"#{family}-single-score:has-text({quoted(fallback)})")
    assert float(score_text(page, family)) == float(score_text(page, family))  # a number, not NaN text
    # §19: why the default cannot load is said once, under the config; the note only names the config
    tab = " ".join(page.inner_text(f"#tab-{family}").split())
    assert tab.count(f"{default_weight.repo_id} is not in the local cache") == 1, tab
    assert f"instead of the default {spec.default_config}: see the line under the config" in note


def test_the_banner_tells_downloadable_from_unpublished_with_the_conversion_once_collapsed(page, monkeypatch):
    """Reloaded with one published weight (bert-base-uncased) and one unpublished (D-cnndm) missing: the
    banner names each kind apart, and the conversion advice is one collapsed note in the CLI's words."""
    d_cnndm = WEIGHTS[ctc_weight_name("D-cnndm", "doc_to_summ")]
    for weight in (WEIGHTS["bert-base-uncased"], d_cnndm):
        monkeypatch.setitem(WEIGHTS, weight.name, dataclasses.replace(weight, revision="f" * 40))
    page.reload()
    banner = wait_for_text(page, "nlgmetrics-banner", "not published on the Hub yet")
    lines = {line.split(":")[0]: line for line in banner.splitlines()}
    assert lines["ctc_consistency"].endswith("; not published on the Hub yet: D-cnndm")
    assert "downloadable, not cached yet (this machine is offline): E-bert;" in lines["ctc_consistency"]
    assert "loads now: E-roberta, E-roberta-mnli, E-minilm, D-xsum" in lines["ctc_consistency"]
    assert lines["infolm"] == (
        "infolm: loads now: none; downloadable, not cached yet (this machine is offline): bert-base-uncased"
    )
    assert "need a download" not in banner
    details = page.locator("#nlgmetrics-banner details")
    assert details.count() == 1 and page.locator("details").count() == 1  # once on the page
    command = page.locator("#nlgmetrics-banner details li").first
    assert not command.is_visible()  # collapsed
    page.click(f"#nlgmetrics-banner summary:has-text({quoted(NOTE_TITLE)})")
    assert command.is_visible()
    note = details.inner_text()
    assert d_cnndm.conversion in note and "--aligner D:./ctc-D-cnndm-doc_to_summ" in note
    assert "aligner=" not in page.inner_text("body")
    shot(page, "space_banner.png", FIRST_FAMILY, "nlgmetrics-banner", SCRATCH)  # looked at, not in docs/
    monkeypatch.undo()
    page.reload()
    page.wait_for_selector("#nlgmetrics-banner")


def test_batch_maps_columns_like_the_command_line(page, tmp_path):
    """A file whose columns are not the field names: scoring says so in the CLI's words, the column
    drop-downs map them (as --column FIELD=COLUMN), and the scores equal compute()'s."""
    family = FIRST_FAMILY
    spec = first_module(family)
    config = configs_to_try(spec)[-1]
    open_mode(page, family, "batch")
    choose(page, f"{family}-batch-config", config)
    # §19: a .txt is not silently dropped: the note says at once what the Space reads, and no table stays
    lines = tmp_path / "texts.txt"
    lines.write_text("The cat sat.\nA dog barked.\n", encoding="utf-8")
    page.set_input_files(f"#{family}-batch-file input[type=file]", str(lines))
    note = wait_for_text(page, f"{family}-batch-note", "unknown file type '.txt'")
    assert "use .jsonl, .ndjson, .json, .csv or .tsv" in note and "no columns naming the fields" in note
    assert page.locator(".toast-body").count() == 0
    no_placeholder_tables(page, [f"{family}-batch-table", f"{family}-batch-plot"])
    page.locator(f"#{family}-batch-file button[aria-label='Clear']").click()
    records = system_records(spec, "")
    renamed = [{"id": f"doc-{i + 1}", **{f"my_{k}": v for k, v in r.items()}} for i, r in enumerate(records)]
    upload = write_csv(tmp_path / "renamed.csv", renamed)
    page.set_input_files(f"#{family}-batch-file input[type=file]", str(upload))
    for field in spec.inputs:
        wait_until_shown(page, f"{family}-batch-column-{field}", True)
    page.click(f"#{family}-batch-run")
    note = wait_for_text(page, f"{family}-batch-note", "has no column")
    first = spec.inputs[0]
    assert f"row 1 has no column '{first}' for {first} (its columns: {', '.join(renamed[0])};" in note
    assert "choose its column under “Columns”" in note and "record 0" not in note
    for field in spec.inputs:
        choose(page, f"{family}-batch-column-{field}", f"my_{field}")
    page.click(f"#{family}-batch-run")
    wait_for_text(page, f"{family}-batch-note", f"config {config}")
    want = direct(spec.name, config).compute(**columns(spec, records))
    table = page.inner_text(f"#{family}-batch-table")
    assert all(shown(score) in table for score in want["scores"])
    page.locator(f"#{family}-batch-file button[aria-label='Clear']").click()
    for field in spec.inputs:
        wait_until_shown(page, f"{family}-batch-column-{field}", False)


def test_compare_files_without_references_say_the_files_need_the_column(page, tmp_path):
    spec = next(s for s in SPECS.values() if "references" in s.inputs and s.family != FIRST_FAMILY)
    family = spec.family
    assert first_module(family) is spec
    open_mode(page, family, "ab")
    page.get_by_role("tab", name="Two system files").locator("visible=true").first.click()
    rows = [{k: v for k, v in r.items() if k != "references"} for r in system_records(spec, "")]
    page.set_input_files(f"#{family}-ab-file-a input[type=file]", str(write_csv(tmp_path / "a.csv", rows)))
    page.set_input_files(f"#{family}-ab-file-b input[type=file]", str(write_csv(tmp_path / "b.csv", rows)))
    page.click(f"#{family}-ab-files-run")
    note = wait_for_text(page, f"{family}-ab-note", "needs references")
    assert "the files need a references column with a text on every row (row 1 has none)" in note
    assert "fill it in" not in note


def wait_until_shown(page, element_id: str, shown: bool) -> None:
    page.wait_for_function(
        f"(() => {{ const e = document.querySelector('#{element_id}'); "
        f"return !!(e && e.offsetParent !== null); }})() === {str(shown).lower()}"
    )


def test_unieval_dialogue_shows_its_fields_and_scores(page):
    """Choosing a UniEval task shows that task's fields (dialogue: contexts, no references) and scores it."""
    from tests.unieval.test_unieval import inputs_of

    spec = SPECS["unieval"]
    family = spec.family
    open_mode(page, family, "single")
    choose(page, f"{family}-single-config", "dialogue")
    for field in ("predictions", "sources", "references", "contexts"):
        wait_until_shown(page, f"{family}-single-{field}", field in spec.inputs_for("dialogue"))
    data = inputs_of("dialogue", 1)
    for field, values in data.items():
        page.fill(f"#{family}-single-{field} textarea", values[0])
    page.click(f"#{family}-single-run")
    note = wait_for_text(page, f"{family}-single-note", "config dialogue")
    assert "Scored with unieval" in note
    want = direct("unieval", "dialogue").compute(**data, return_details=True)
    assert float(score_text(page, family)) == display(want["scores"][0])
    parts = page.inner_text(f"#{family}-single-parts")
    assert all(shown(want[f"mean_{d}"]) in parts for d in ("engagingness", "groundedness"))
    choose(page, f"{family}-single-config", "data2text")
    for field in ("predictions", "sources", "references", "contexts"):
        wait_until_shown(page, f"{family}-single-{field}", field in spec.inputs_for("data2text"))
    open_mode(page, family, "batch")
    choose(page, f"{family}-batch-config", "fact")
    page.wait_for_function(
        f"(() => {{ const t = document.querySelector('#{family}-batch-fields').innerText; "
        "return t.includes('Fields: predictions, sources') && !t.includes('references'); })()"
    )


def test_a_module_switched_to_fills_its_blank_fields_and_scores(page):
    """Issue 40 §17: after switching to ctc_relevance its references box was blank (the previous module did
    not read it) and the first Score gave NaN; a blank box the module reads gets its example text, a
    visitor's text stays."""
    family, target = SPECS["ctc_relevance"].family, SPECS["ctc_relevance"]
    open_mode(page, family, "single")
    choose(page, f"{family}-single-module", "ctc_consistency")
    box = page.locator(f"#{family}-single-predictions").locator("textarea")
    box.fill("My own prediction.")
    choose(page, f"{family}-single-module", target.name)
    references = page.locator(f"#{family}-single-references").locator("textarea")
    want = "\n".join(target.example["references"][0])
    page.wait_for_function(
        f"document.querySelector('#{family}-single-references textarea')?.value === {quoted(want)}"
    )
    assert references.input_value() == want and box.input_value() == "My own prediction."
    page.click(f"#{family}-single-run")
    wait_for_text(page, f"{family}-single-note", f"Scored with {target.name}")
    got = score_text(page, family)
    expected = direct(target.name, target.default_config).compute(
        predictions=["My own prediction."],
        sources=[target.example["sources"][0]],
        references=[target.example["references"][0]],
    )["scores"][0]
    assert not math.isnan(expected) and got == shown(expected)
