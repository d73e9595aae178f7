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
import os
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.modules import SPECS
from nlgmetrics.significance import compare
from nlgmetrics.ui.records import display
from nlgmetrics.ui.space import heatmap
from nlgmetrics.ui.space.comparison import significance_cells
from nlgmetrics.ui.space.tables import TEXT_CHARS
from nlgmetrics.ui.widget import score_label
from tests.space.conftest import REPO, direct, example_records

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
DOCS = (
    REPO / "docs"
    if os.environ.get("NLGMETRICS_REFRESH_SCREENSHOTS") == "1"
    else Path(os.environ["HF_HOME"]).parent / "screenshots"  # the session's temporary folder (conftest.py)
)
FAMILIES = sorted({spec.family for spec in SPECS.values()})
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
    option = page.get_by_role("option", name=label, exact=True)
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


def wait_for_text(page, element_id: str, text: str) -> str:
    page.wait_for_selector(f"#{element_id}:has-text('{text}')")
    return page.inner_text(f"#{element_id}")


def shot(page, name: str, family: str) -> None:
    if family == FIRST_FAMILY:
        DOCS.mkdir(exist_ok=True)
        page.locator(f"#tab-{family}").screenshot(path=str(DOCS / name), type="png", animations="disabled")


def columns(spec, records):
    return {f: [r[f] for r in records] for f in spec.inputs}


def shown(value) -> str:
    """A score as the page prints it (rounded as displayed; JavaScript writes 1.0 as 1 and -0.0 as 0)."""
    value = display(value)
    return str(int(value)) if value is not None and value == int(value) else str(value)


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
    records = example_records(spec.name)[:1]
    records[0]["predictions"] += " It happened in Paris."  # words the inputs do not support: a contrast
    page.fill(f"#{family}-single-predictions textarea", records[0]["predictions"])
    for config in configs_to_try(spec):
        choose(page, f"{family}-single-config", config)
        page.click(f"#{family}-single-run")
        note = wait_for_text(page, f"{family}-single-note", f"config {config}")
        assert f"Scored with {spec.name}" in note
        want = direct(spec.name, config).compute(**columns(spec, records), return_details=True)
        assert float(score_text(page, family)) == display(want["scores"][0])
        parts = page.inner_text(f"#{family}-single-parts")
        assert shown(want["mean_score"]) in parts
        check_heat_map(page, family, spec, spec.render_details(want["details"][0]), records[0]["predictions"])
    shot(page, "space_single.png", family)


def check_heat_map(page, family: str, spec, pairs, prediction: str) -> None:
    """The legend (the scale, what the values are), the words (pieces joined when they spell the
    prediction), and each word's value on hover."""
    words = heatmap.join_pieces(pairs)
    if not heatmap.spells(words, prediction):
        words = [(token, value, (token,)) for token, value in pairs]
    heat = page.locator(f"#{family}-single-tokens")
    legend = heat.locator(".nlgm-legend").inner_text()
    assert "−1" in legend and "+1" in legend and "hover for the value" in legend
    assert " ".join(heatmap.describe(spec.details).split()[:4]) in " ".join(legend.split())
    if any(len(pieces) > 1 for _, _, pieces in words):
        assert "mean of its tokenizer pieces" in legend
    spans = heat.locator(".nlgm-word")
    assert spans.count() == len(words)
    shown_words = spans.all_inner_texts()
    titles = spans.evaluate_all("elements => elements.map(e => e.title)")
    for (word, value, pieces), text, title in zip(words, shown_words, titles):
        assert text.strip() == word.strip()
        assert title.startswith("no value" if value is None else f"{value:.3f}")
        assert ("the mean of" in title) == (len(pieces) > 1)


@pytest.mark.parametrize("family", FAMILIES)
def test_batch_upload_and_download(page, family, tmp_path):
    spec = first_module(family)
    open_mode(page, family, "batch")
    records = [{"id": f"doc-{i + 1}", **r} for i, r in enumerate(system_records(spec, ""))]
    long_field = next(f for f in spec.inputs if f != "predictions")
    records[0][long_field] += " It was a long day." * 6  # longer than a cell shows
    assert len(records[0][long_field]) > TEXT_CHARS
    upload = write_csv(tmp_path / "system.csv", records)
    page.set_input_files(f"#{family}-batch-file input[type=file]", str(upload))
    for config in configs_to_try(spec):
        choose(page, f"{family}-batch-config", config)
        page.click(f"#{family}-batch-run")
        wait_for_text(page, f"{family}-batch-note", f"config {config}")
        want = direct(spec.name, config).compute(**columns(spec, records))
        table = page.inner_text(f"#{family}-batch-table")
        assert all(shown(score) in table for score in want["scores"])
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
    page.fill(f"#{family}-ab-b textarea", "  ")
    page.click(f"#{family}-ab-run")  # an empty B: a message, not an empty chart
    note = wait_for_text(page, f"{family}-ab-note", "prediction B is empty")
    assert "Error" in note and page.locator(".toast-body").count() == 0
    page.fill(f"#{family}-ab-b textarea", record_b["predictions"])
    assert page.inner_text(f"#{family}-ab-significance").strip() == ""  # cleared by the failure
    for config in configs_to_try(spec):
        label = (
            config
            if config in SPECS[spec.name].configs and config != spec.default_config
            else "each module's default"
        )
        choose(page, f"{family}-ab-config", label)
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
    page.click(f"#{family}-ab-files-run")
    wait_for_text(page, f"{family}-ab-note", "Compared 3 examples")
    config = configs_to_try(spec)[-1]
    wait_for_text(page, f"{family}-ab-summary", config)
    check_summary(page, family, spec, config, records_a, records_b)
    assert header_texts(page, f"{family}-ab-table")[:3] == ["id", "metric", "A"]
    # under the paired plot: Δ, its 95% interval, the p-value and win/tie/loss of nlgmetrics.compare
    module = direct(spec.name, config)
    a, b = module.compute(**columns(spec, records_a)), module.compute(**columns(spec, records_b))
    want = compare(a["scores"], b["scores"], higher_is_better=a["higher_is_better"], resamples=1000, seed=0)
    stats = " ".join(page.inner_text(f"#{family}-ab-significance").split())
    assert "Δ (mean B − mean A)" in stats and "95% interval" in stats and "p-value" in stats
    assert all(text in stats for text in significance_cells(want))
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
        page.wait_for_selector(f"#{family}-single-score:has-text({json.dumps(label)})")
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
    weight = spec.weights_of(spec.default_config)[0]
    monkeypatch.setitem(WEIGHTS, weight.name, dataclasses.replace(weight, revision="f" * 40))
    choose(page, f"{family}-single-config", spec.default_config)
    page.click(f"#{family}-single-run")
    text = wait_for_text(page, f"{family}-single-note", "not published on the Hub yet")
    assert weight.conversion and weight.conversion in text and "E-minilm" in text and "Traceback" not in text
    # beside the control, as Markdown (backticks are code), and it stays: no toast that vanishes
    assert page.locator(f"#{family}-single-note code").count() > 0 and "`" not in text
    page.wait_for_timeout(12_000)  # longer than a toast lives
    assert "not published on the Hub yet" in page.inner_text(f"#{family}-single-note")
    assert page.locator(".toast-body").count() == 0


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
