"""The *Compare A/B* mode: two predictions of one input, or two system files with the same inputs,
scored by every selected module of the family (the tables, and under the paired plot Δ with its 95%
interval, the p-value and win/tie/loss, come from :mod:`.ab_results`). An empty
prediction or file on either side, and any other failure, is a message in the mode's note."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...availability import config_note, plural
from ...columns import unused_columns
from ...modules import SPECS
from ..uploads import read_upload
from ..widget import field_label
from .ab_results import (
    MetricComparison,
    delta_plot,
    per_example_table,
    significance_markdown,
    summary_table,
)
from .context import FamilyContext
from .events import connect, upload_problem
from .options import config_inputs, text_field
from .pool import SpaceError, score_records
from .tables import column_widths, example_labels, styled


def blank(value: Any) -> bool:
    """An input left empty: missing, blank text, or a list of blank texts."""
    if isinstance(value, list):
        return all(blank(v) for v in value)
    return value is None or (isinstance(value, str) and not value.strip())


def two_predictions(
    ctx: FamilyContext, selected: list[str], a: str | None, b: str | None, texts: dict[str, str]
) -> tuple[list[dict], list[dict]]:
    """One record per system from the *Two predictions* form (the shared inputs typed once); an empty
    prediction on either side is a SpaceError."""
    empty = [side for side, text in (("A", a), ("B", b)) if blank(text)]
    if empty:
        raise SpaceError(
            f"prediction {' and '.join(empty)} {'is' if len(empty) == 1 else 'are'} empty: write both "
            "systems' predictions of the same input to compare them"
        )
    specs_used = [SPECS[n] for n in selected or []]
    record_a = {}
    for f, text in {"predictions": a, **texts}.items():
        spec = next((s for s in specs_used if f in s.inputs), ctx.first)
        record_a[f] = text_field(spec, f, text or "")
    return [record_a], [{**record_a, "predictions": b}]


def two_files(ctx: FamilyContext, path_a: str | None, path_b: str | None) -> tuple[list[dict], list[dict]]:
    """The records of two system files: both given, each with rows, a prediction on every row, the same number
    of rows and the same inputs on each row (SpaceErrors naming the side and the row otherwise)."""
    if not path_a or not path_b:
        raise SpaceError("upload both system files")
    # a file without rows is refused by read_upload, in the command line's words ("b.jsonl has no rows")
    records_a, records_b = read_upload(path_a, ctx.limits), read_upload(path_b, ctx.limits)
    for side, records in (("A", records_a), ("B", records_b)):
        label, labels = example_labels(records)
        empty = [str(n) for n, r in zip(labels, records) if blank(r.get("predictions"))]
        if empty:
            raise SpaceError(
                f"system {side}'s file has no `predictions` in {label} {', '.join(empty[:5])}"
                f"{' …' if len(empty) > 5 else ''}: every row needs the system's prediction"
            )
    if len(records_a) != len(records_b):
        raise SpaceError(
            f"system A has {plural(len(records_a), 'row')} and system B {len(records_b)}; they must match"
        )
    for i, (ra, rb) in enumerate(zip(records_a, records_b)):
        for f in set(ra) & set(rb) - {"predictions"}:
            if ra[f] != rb[f]:
                raise SpaceError(f"row {i + 1}: the two files differ in {f}; both must hold the same inputs")
    return records_a, records_b


def missing_inputs(name: str, inputs: Sequence[str], records: list[dict], files: bool) -> str:
    """Why ``name`` cannot score these records ("" when it can): the inputs it reads that are blank, said
    for the form (fill them in) or for two files (they need the column, with a text on every row)."""
    missing = [f for f in inputs if f != "predictions" and any(blank(r.get(f)) for r in records)]
    if not missing:
        return ""
    if not files:
        return (
            f"{name} needs {', '.join(missing)}: fill {'it' if len(missing) == 1 else 'them'} in or "
            f"deselect {name}"
        )
    columns = " and ".join(f"a `{f}` column" for f in missing)
    label, labels = example_labels(records)
    first = next(n for n, r in zip(labels, records) if any(blank(r.get(f)) for f in missing))
    return (
        f"{name} needs {', '.join(missing)}: the files need {columns} with a text on every row ({label} "
        f"{first} has none), or deselect {name}"
    )


def compare_systems(
    ctx: FamilyContext,
    selected: list[str],
    chosen: str | None,
    records_a: list[dict],
    records_b: list[dict],
    files: bool = False,
) -> list[MetricComparison]:
    """Every selected module's results on both systems (only the fields its config reads); ``files``: the
    records come from two uploaded files (a missing input is a missing column)."""
    if not selected:
        raise SpaceError("select at least one metric")
    comparisons = []
    for name in selected:
        inputs = config_inputs(SPECS[name], chosen)
        missing = missing_inputs(name, inputs, records_a, files)
        if missing:
            raise SpaceError(missing)
        result_a, used, note, _ = score_records(
            ctx.pool, name, chosen, [{f: r[f] for f in inputs} for r in records_a], {}
        )
        result_b = score_records(
            ctx.pool, name, chosen, [{f: r[f] for f in inputs} for r in records_b], {}
        ).result
        comparisons.append(MetricComparison(name, used, result_a, result_b, note))
    return comparisons


def compared_note(comparisons: Sequence[MetricComparison], examples: int, ignored: Sequence[str] = ()) -> str:
    """The note after a comparison: how many examples with which metrics, a fallback config in one clause
    (the status lines above say why), and the files' columns not scored.

    >>> one = MetricComparison("m", "E-minilm", {"scores": [0.1]}, {"scores": [0.2]}, note="why")
    >>> compared_note([one], 1, ["id"])
    'Compared 1 example with `m` (config `E-minilm` instead of its default: see above). Columns not scored:
    `id`.'
    """
    metrics = [
        f"`{c.name}`" + (f" (config `{c.config}` instead of its default: see above)" if c.note else "")
        for c in comparisons
    ]
    message = f"Compared {plural(examples, 'example')} with {', '.join(metrics)}."
    if ignored:
        message += f" Columns not scored: {', '.join(f'`{c}`' for c in ignored)}."
    return message


def build(ctx: FamilyContext) -> None:
    """The mode's controls and events, inside the family's tab."""
    import gradio as gr

    family = ctx.family
    c_modules, c_config, c_status = _choice_panel(ctx)
    with gr.Tab("Two predictions"):
        shared, pred_a, pred_b = _texts_panel(ctx)
        c_button = gr.Button("Compare", variant="primary", elem_id=f"{family}-ab-run")
    with gr.Tab("Two system files"):
        file_a, file_b = _files_panel(ctx)
        f_button = gr.Button("Compare the files", variant="primary", elem_id=f"{family}-ab-files-run")
    c_note = gr.Markdown(label="note", elem_id=f"{family}-ab-note")
    c_summary, c_plot, c_stats, c_table = _result_panel(ctx)
    compare_texts, compare_files = _comparers(ctx, shared)

    hidden = gr.update(value=None, visible=False)
    outputs = [c_summary, c_plot, c_stats, c_table, c_note]
    cleared = [hidden, hidden, "", hidden, None]

    def on_choice(selected, chosen):
        """The chosen metrics' status, the previous comparison cleared."""
        status = "\n".join(f"- `{n}`: {config_note(SPECS[n], chosen)}" for n in selected or [])
        return [status, hidden, hidden, "", hidden, ""]

    def on_upload(path):
        """A new system file: the previous comparison cleared, and what is wrong with the file said at
        once."""
        return [hidden, hidden, "", hidden, upload_problem(path, ctx.limits)]

    for control in (c_modules, c_config):
        control.change(
            on_choice, [c_modules, c_config], [c_status, *outputs], api_visibility="private", queue=False
        )
    for upload in (file_a, file_b):
        upload.change(on_upload, upload, outputs, api_visibility="private", queue=False)
    api_outputs = [c_summary, c_plot, c_table, c_note]  # the endpoints' answer as before
    connect(
        ctx,
        c_button,
        compare_texts,
        inputs=[c_modules, c_config, pred_a, pred_b, *shared.values()],
        outputs=outputs,
        note=c_note,
        cleared=cleared,
        api_name=f"{family}_compare",
        names=["modules", "config", "prediction_a", "prediction_b", *shared],
        api_outputs=api_outputs,
    )
    connect(
        ctx,
        f_button,
        compare_files,
        inputs=[c_modules, c_config, file_a, file_b],
        outputs=outputs,
        note=c_note,
        cleared=cleared,
        api_name=f"{family}_compare_files",
        names=["modules", "config", "file_a", "file_b"],
        api_outputs=api_outputs,
    )


def _choice_panel(ctx: FamilyContext) -> tuple[Any, Any, Any]:
    """The metrics that score both systems, one config for all of them (those every module has) and their
    status."""
    import gradio as gr

    family, first = ctx.family, ctx.first
    common = [c for c in first.configs if all(c in s.configs for s in ctx.specs)]
    c_modules = gr.CheckboxGroup(
        ctx.names, value=[first.name], label="Metrics scoring both systems", elem_id=f"{family}-ab-modules"
    )
    c_config = gr.Dropdown(
        [("each module's default", ""), *[(c, c) for c in common]],
        value="",
        label="Config for every selected metric",
        elem_id=f"{family}-ab-config",
    )
    c_status = gr.Markdown(f"- `{first.name}`: {config_note(first, '')}", elem_id=f"{family}-ab-status")
    return c_modules, c_config, c_status


def _texts_panel(ctx: FamilyContext) -> tuple[dict[str, Any], Any, Any]:
    """The *Two predictions* form: the shared inputs typed once, then prediction A and prediction B."""
    import gradio as gr

    family, first, examples = ctx.family, ctx.first, ctx.examples
    shared = {
        f: gr.Textbox(
            label=field_label(first, f) + " (used by the metrics that take it)",
            value=examples[first.name].get(
                f, next((examples[s.name][f] for s in ctx.specs if f in s.inputs), "")
            ),
            lines=3,
            elem_id=f"{family}-ab-{f}",
        )
        for f in ctx.fields
        if f != "predictions"
    }
    pred_a = gr.Textbox(
        label="prediction A",
        lines=2,
        elem_id=f"{family}-ab-a",
        value=examples[first.name].get("predictions", ""),
    )
    pred_b = gr.Textbox(label="prediction B", lines=2, elem_id=f"{family}-ab-b")
    return shared, pred_a, pred_b


def _files_panel(ctx: FamilyContext) -> tuple[Any, Any]:
    """The *Two system files* uploads, side by side."""
    import gradio as gr

    gr.Markdown(
        "Two files (`.csv`, `.tsv`, `.jsonl` or `.json`) with the same rows: the same inputs, each with "
        "its own `predictions`; other columns are not scored."
    )
    with gr.Row():  # any file type: one the Space does not read gets a message in the note at once
        file_a = gr.File(label="System A", elem_id=f"{ctx.family}-ab-file-a")
        file_b = gr.File(label="System B", elem_id=f"{ctx.family}-ab-file-b")
    return file_a, file_b


def _result_panel(ctx: FamilyContext) -> tuple[Any, Any, Any, Any]:
    """The summary, the paired plot, the significance and the per-example table (tables hidden until
    filled)."""
    import gradio as gr

    family = ctx.family
    # the tables stay hidden until a comparison fills them: no placeholder "1 2 3" headers
    c_summary = gr.Dataframe(
        label="On average", interactive=False, visible=False, wrap=True, elem_id=f"{family}-ab-summary"
    )
    c_plot = gr.HTML(
        label="B − A per example, the mean Δ and its 95% interval",
        show_label=True,
        container=True,
        padding=True,
        visible=False,
        elem_id=f"{family}-ab-plot",
    )
    c_stats = gr.Markdown(elem_id=f"{family}-ab-significance")
    c_table = gr.Dataframe(  # long cells wrap: every column within the page
        label="Per example", interactive=False, visible=False, wrap=True, elem_id=f"{family}-ab-table"
    )
    return c_summary, c_plot, c_stats, c_table


def _comparers(ctx: FamilyContext, shared: dict[str, Any]) -> tuple[Callable, Callable]:
    """The two buttons' functions (and the ``<family>_compare`` / ``<family>_compare_files`` endpoints')."""
    import gradio as gr

    def shown(selected, chosen, records_a: list[dict], records_b: list[dict], files: bool = False) -> tuple:
        comparisons = compare_systems(ctx, selected, chosen, records_a, records_b, files)
        inputs = {f for name in selected for f in config_inputs(SPECS[name], chosen)}
        rows = [*records_a, *records_b]  # the per-example table labels them as example_labels(records_a) says
        ignored = unused_columns(rows, sorted(inputs), label=example_labels(records_a)[0]) if files else []
        per_example = per_example_table(comparisons, records_a, records_b)
        summary = summary_table(comparisons)
        return (
            gr.update(value=styled(summary), datatype=summary.datatypes(), visible=True),
            gr.update(value=delta_plot(comparisons, records_a), visible=True),
            significance_markdown(comparisons),
            gr.update(
                value=styled(per_example),
                datatype=per_example.datatypes(),
                column_widths=column_widths(per_example),
                visible=True,
            ),
            compared_note(comparisons, len(records_a), ignored),
        )

    def compare_texts(selected, chosen, a, b, *values):
        return shown(selected, chosen, *two_predictions(ctx, selected, a, b, dict(zip(shared, values))))

    def compare_files(selected, chosen, path_a, path_b):
        return shown(selected, chosen, *two_files(ctx, path_a, path_b), files=True)

    return compare_texts, compare_files
