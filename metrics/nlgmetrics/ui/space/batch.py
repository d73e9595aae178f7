"""The *Batch* mode: a CSV/TSV or JSONL/JSON upload scored into a table (the file's ``id`` or row first, then
the scores, then the texts cut short with the full text on hover: :mod:`.tables`), a distribution plot
(:mod:`.histogram`) and downloadable CSV and JSONL files (written as ``nlgmetrics score`` writes them, the
file's other columns kept and named in the note). A failure, or an upload the Space cannot read, is a
message in the mode's note; another module, config or upload clears the previous results."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from typing import Any

from ...availability import config_note
from ...columns import gather_columns, unused_columns
from ...modules import SPECS
from ..display import code_span, score_text
from ..downloads import scored_records, write_scored
from ..uploads import read_upload
from .context import FamilyContext
from .events import connect, upload_problem
from .histogram import histogram_svg
from .options import (
    config_choices,
    config_dropdown,
    config_inputs,
    module_dropdown,
    option_components,
    parse_option_controls,
    status_note,
)
from .pool import SpaceError, score_records
from .tables import column_widths, scored_table, styled


def _fields_text(spec, chosen: str) -> str:
    return f"Fields: {', '.join(f'`{f}`' for f in config_inputs(spec, chosen))}"


SPACE_FIX = "choose its column under “Columns” after the upload"
"""How a Space user picks another column (the command line says ``--column``)."""


def file_columns(path: str | None, limits) -> list[str]:
    """The columns of an uploaded file, in order of first appearance ([] before an upload, or for a file
    that cannot be read: scoring it says why)."""
    try:
        records = read_upload(path, limits) if path else []
    except ValueError:  # the file's problem is said when it is scored
        return []
    return list(dict.fromkeys(str(k) for r in records for k in r))


UNCHOSEN = "(choose a column)"


def column_choice(field: str, columns: list[str], shown: bool) -> dict:
    """A field's column drop-down after an upload: the file's columns, the field's own name chosen when the
    file has it (else none: scoring then says the column is missing), shown for the chosen config's fields."""
    import gradio as gr

    choices = [(c, c) for c in columns] if field in columns else [(UNCHOSEN, ""), *((c, c) for c in columns)]
    return gr.update(
        choices=choices, value=field if field in columns else "", visible=shown and bool(columns)
    )


def mapped_records(
    spec, config: str | None, records: list[dict], chosen: dict[str, str | None]
) -> list[dict]:
    """The records as the config's inputs, each read from its chosen column (the field's own name when none
    is chosen), with the command line's wording for a missing column (:mod:`nlgmetrics.columns`).

    >>> from nlgmetrics.modules import SPECS
    >>> mapped_records(SPECS["infolm"], None, [{"summary": "a", "gold": "b"}], {"predictions": "summary",
    ...                "references": "gold"})
    [{'predictions': 'a', 'references': 'b'}]
    """
    inputs = config_inputs(spec, config)
    columns = {f: c for f, c in chosen.items() if f in inputs and c}
    fields = gather_columns(records, inputs, columns, fix=SPACE_FIX, optional=spec.optional_inputs)
    return [{f: fields[f][i] for f in fields} for i in range(len(records))]


def build(ctx: FamilyContext) -> None:
    """The mode's controls and events, inside the family's tab."""
    import gradio as gr

    family = ctx.family
    gr.Markdown(
        "Upload a `.csv` or `.tsv` (a header row naming the module's input fields; several references in "
        'one cell as a JSON list, `["r1", "r2"]`) or a `.jsonl` / `.json` file (one object per example with '
        f"those fields), read as `nlgmetrics score` reads it; other columns are not scored (they are kept in "
        f"the downloads). Limits: {ctx.limits.describe()}."
    )
    b_module, b_config, b_status, b_fields, upload, b_columns, b_opts = _input_panel(ctx)
    b_button = gr.Button("Score the file", variant="primary", elem_id=f"{family}-batch-run")
    b_note = gr.Markdown(label="note", elem_id=f"{family}-batch-note")
    results = [*_result_panel(ctx), b_note]
    connect(
        ctx,
        b_button,
        _file_scorer(ctx),
        inputs=[b_module, b_config, upload, *b_opts.values(), *b_columns.values()],
        outputs=results,
        note=b_note,
        cleared=[hidden(), hidden(), hidden(), hidden(), None],
        api_name=f"{family}_batch",
        names=["module", "config", "file", *ctx.options, *(f"{f}_column" for f in ctx.fields)],
    )
    _follow_choices(ctx, b_module, b_config, upload, b_status, b_fields, b_opts, b_columns, results)


def hidden() -> dict:
    """A result hidden and emptied (before a run, after a failure or another choice)."""
    import gradio as gr

    return gr.update(value=None, visible=False)


def _input_panel(ctx: FamilyContext) -> tuple[Any, Any, Any, Any, Any, dict[str, Any], dict[str, Any]]:
    """The module and config choices, the config's status and fields, the upload, a column choice per
    field (shown after an upload) and the options."""
    import gradio as gr

    family, first = ctx.family, ctx.first
    b_module = module_dropdown(ctx, "batch")
    b_config = config_dropdown(ctx, "batch", first)
    b_status = status_note(ctx, "batch", first)
    b_fields = gr.Markdown(
        f"Fields: {', '.join(f'`{f}`' for f in first.inputs)}", elem_id=f"{family}-batch-fields"
    )
    upload = gr.File(  # any file type: one the Space does not read gets a message, not a vanishing toast
        label="Examples file (.csv, .tsv, .jsonl or .json)", elem_id=f"{family}-batch-file"
    )
    with gr.Row():  # "Columns": which column feeds each field, as the command line's --column FIELD=COLUMN
        b_columns = {
            f: gr.Dropdown(  # "": the field's own name (the API's default)
                [(UNCHOSEN, "")],
                value="",
                label=f"Columns: {f} from",
                visible=False,
                elem_id=f"{family}-batch-column-{f}",
            )
            for f in ctx.fields
        }
    with gr.Accordion("Options", open=False):
        b_opts = option_components(ctx.options, first)
    return b_module, b_config, b_status, b_fields, upload, b_columns, b_opts


def _result_panel(ctx: FamilyContext) -> tuple[Any, Any, Any, Any]:
    """The scored table, the distribution plot and the two downloads, hidden until a file is scored."""
    import gradio as gr

    family = ctx.family
    b_table = gr.Dataframe(  # hidden until a file is scored: no placeholder "1 2 3" headers
        label="Scored examples",
        interactive=False,
        visible=False,
        wrap=True,  # long cells wrap: every column within the page, none cut off at the right
        elem_id=f"{family}-batch-table",
    )
    b_plot = gr.HTML(  # drawn here (histogram.py): round bin edges, whole numbers on the count axis
        label="Distribution of the scores",
        show_label=True,
        container=True,
        padding=True,
        visible=False,
        elem_id=f"{family}-batch-plot",
    )
    with gr.Row():
        b_csv = gr.DownloadButton("Download CSV", visible=False, elem_id=f"{family}-batch-csv")
        b_jsonl = gr.DownloadButton("Download JSONL", visible=False, elem_id=f"{family}-batch-jsonl")
    return b_table, b_plot, b_csv, b_jsonl


def _file_scorer(ctx: FamilyContext) -> Callable:
    """The button's function (and the ``<family>_batch`` endpoint's): the upload scored, shown and written."""
    import gradio as gr

    options, limits = ctx.options, ctx.limits

    def score_file(name, chosen, path, *values, progress=gr.Progress(track_tqdm=True)):  # noqa: B008 (Gradio's idiom)
        spec = SPECS[name]
        if not path:
            raise SpaceError("upload a .csv, .tsv, .jsonl or .json file first")
        records = read_upload(path, limits)
        chosen_options = {**parse_option_controls(spec, dict(zip(options, values))), "show_progress": True}
        columns = dict(zip(ctx.fields, values[len(options) :]))
        mapped = mapped_records(spec, chosen, records, columns)
        progress(0, desc=f"scoring {len(records)} examples with {name}")
        result, used, fallback, _ = score_records(ctx.pool, name, chosen, mapped, chosen_options)
        rows = scored_records(records, result)
        stem = f"{name}-{used}-{uuid.uuid4().hex[:8]}"
        csv_path, jsonl_path = write_scored(rows, os.path.join(ctx.workdir, uuid.uuid4().hex), stem)
        table = scored_table(records, result)
        message = f"Scored {len(rows)} examples with `{name}` config `{used}`"
        if fallback:
            message += f" (instead of the default `{spec.default_config}`: see the line under the config)"
        message += f": mean score {score_text(result.get('mean_score'))}."
        ignored = unused_columns(records, config_inputs(spec, chosen), columns)
        if ignored:
            message += f" Columns not scored (kept in the downloads): {', '.join(map(code_span, ignored))}."
        return (
            gr.update(
                value=styled(table),
                datatype=table.datatypes(),
                column_widths=column_widths(table),
                visible=True,
            ),
            gr.update(value=histogram_svg(result["scores"]), visible=True),
            gr.update(value=csv_path, visible=True),
            gr.update(value=jsonl_path, visible=True),
            message,
        )

    return score_file


def _follow_choices(
    ctx: FamilyContext,
    b_module: Any,
    b_config: Any,
    upload: Any,
    b_status: Any,
    b_fields: Any,
    b_opts: dict[str, Any],
    b_columns: dict[str, Any],
    results: list[Any],
) -> None:
    """A module, config or upload chosen: its configs, fields, status, options and column choices shown, and
    the previous results (``results``: table, plot, downloads, note) hidden; an upload the Space cannot read
    says why in the note at once."""
    import gradio as gr

    options, limits = ctx.options, ctx.limits

    def cleared(note: str = "") -> list:
        return [hidden(), hidden(), hidden(), hidden(), note]

    def on_batch_module(name, path):
        spec = SPECS[name]
        own = {o.name for o in spec.compute_options}
        return [
            gr.update(choices=config_choices(spec), value=""),
            _fields_text(spec, ""),
            config_note(spec, ""),
            *[gr.update(visible=o in own) for o in options],
            *on_columns(name, "", path),
            *cleared(),
        ]

    def on_columns(name, chosen, path):
        """The column drop-downs of the chosen config's fields, filled from the uploaded file."""
        inputs, columns = config_inputs(SPECS[name], chosen), file_columns(path, limits)
        return [column_choice(f, columns, f in inputs) for f in ctx.fields]

    def on_batch_config(name, chosen, path):
        spec = SPECS[name]
        return [
            _fields_text(spec, chosen),
            config_note(spec, chosen),
            *on_columns(name, chosen, path),
            *cleared(),
        ]

    def on_upload(name, chosen, path):
        return [*on_columns(name, chosen, path), *cleared(upload_problem(path, limits))]

    column_boxes = list(b_columns.values())
    b_module.change(
        on_batch_module,
        [b_module, upload],
        [b_config, b_fields, b_status, *b_opts.values(), *column_boxes, *results],
        api_visibility="private",
        queue=False,  # light; done before a Score clicked right after it
    )
    b_config.change(
        on_batch_config,
        [b_module, b_config, upload],
        [b_fields, b_status, *column_boxes, *results],
        api_visibility="private",
        queue=False,  # light; done before a Score clicked right after it
    )
    upload.change(
        on_upload,
        [b_module, b_config, upload],
        [*column_boxes, *results],
        api_visibility="private",
        queue=False,  # light; done before a Score clicked right after it
    )
