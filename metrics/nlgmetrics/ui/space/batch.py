"""The *Batch* mode: a CSV/TSV or JSONL/JSON upload scored into a table (the file's ``id`` or row first, then
the scores, then the texts cut short with the full text on hover: :mod:`.tables`), a distribution plot and
downloadable CSV and JSONL files (written as ``nlgmetrics score`` writes them). A failure is a message in
the mode's note."""

from __future__ import annotations

import math
import os
import uuid
from typing import Any

from ...modules import SPECS
from ..records import display, read_upload, scored_records, write_scored
from .context import FamilyContext
from .events import connect
from .options import (
    config_choices,
    config_dropdown,
    config_inputs,
    module_dropdown,
    option_components,
    parse_options,
)
from .pool import SpaceError, score_records
from .tables import scored_table


def _histogram(scores: list) -> Any:
    import pandas as pd

    values = [v for v in scores if isinstance(v, (int, float)) and not math.isnan(v)]
    if not values:
        return pd.DataFrame({"score": [], "examples": []})
    low, high = min(values), max(values)
    bins = min(10, max(1, len(set(values))))
    width = (high - low) / bins or 1.0
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int((v - low) / width))] += 1
    labels = [f"{low + i * width:.3g}–{low + (i + 1) * width:.3g}" for i in range(bins)]
    return pd.DataFrame({"score": labels, "examples": counts})


def _fields_text(spec, chosen: str) -> str:
    return f"Fields: {', '.join(f'`{f}`' for f in config_inputs(spec, chosen))}"


def build(ctx: FamilyContext) -> None:
    """The mode's controls and events, inside the family's tab."""
    import gradio as gr
    import pandas as pd

    family, first, options, limits = ctx.family, ctx.first, ctx.options, ctx.limits
    gr.Markdown(
        "Upload a `.csv` or `.tsv` (a header row naming the module's input fields; several references in "
        'one cell as a JSON list, `["r1", "r2"]`) or a `.jsonl` / `.json` file (one object per example with '
        f"those fields), read as `nlgmetrics score` reads it. Limits: {limits.describe()}."
    )
    b_module = module_dropdown(ctx, "batch")
    b_config = config_dropdown(ctx, "batch", first)
    b_fields = gr.Markdown(
        f"Fields: {', '.join(f'`{f}`' for f in first.inputs)}", elem_id=f"{family}-batch-fields"
    )
    upload = gr.File(
        label="Examples file",
        file_types=[".csv", ".tsv", ".jsonl", ".json"],
        elem_id=f"{family}-batch-file",
    )
    with gr.Accordion("Options", open=False):
        b_opts = option_components(options, first)
    b_button = gr.Button("Score the file", variant="primary", elem_id=f"{family}-batch-run")
    b_note = gr.Markdown(elem_id=f"{family}-batch-note")
    b_table = gr.Dataframe(label="Scored examples", interactive=False, elem_id=f"{family}-batch-table")
    b_plot = gr.BarPlot(
        x="score",
        y="examples",
        y_lim=[0, None],
        label="Distribution of the scores",
        elem_id=f"{family}-batch-plot",
    )
    with gr.Row():
        b_csv = gr.DownloadButton("Download CSV", visible=False, elem_id=f"{family}-batch-csv")
        b_jsonl = gr.DownloadButton("Download JSONL", visible=False, elem_id=f"{family}-batch-jsonl")

    def score_file(name, chosen, path, *values, progress=gr.Progress(track_tqdm=True)):  # noqa: B008 (Gradio's idiom)
        spec = SPECS[name]
        if not path:
            raise SpaceError("upload a .csv, .tsv, .jsonl or .json file first")
        records = read_upload(path, limits)
        chosen_options = {**parse_options(spec, dict(zip(options, values))), "show_progress": True}
        progress(0, desc=f"scoring {len(records)} examples with {name}")
        result, used, note_text = score_records(
            ctx.pool, name, chosen, records, chosen_options, extra_ok=True
        )
        rows = scored_records(records, result)
        stem = f"{name}-{used}-{uuid.uuid4().hex[:8]}"
        csv_path, jsonl_path = write_scored(rows, os.path.join(ctx.workdir, uuid.uuid4().hex), stem)
        table = scored_table(records, result)
        mean = display(result.get("mean_score"))
        message = f"Scored {len(rows)} examples with `{name}` config `{used}`: mean score {mean}. {note_text}"
        return (
            gr.update(
                value=pd.DataFrame(table.rows, columns=list(table.columns)), datatype=table.datatypes()
            ),
            _histogram(result["scores"]),
            gr.update(value=csv_path, visible=True),
            gr.update(value=jsonl_path, visible=True),
            message.strip(),
        )

    hidden = gr.update(value=None, visible=False)
    connect(
        ctx,
        b_button,
        score_file,
        inputs=[b_module, b_config, upload, *b_opts.values()],
        outputs=[b_table, b_plot, b_csv, b_jsonl, b_note],
        note=b_note,
        cleared=[None, None, hidden, hidden, None],
        api_name=f"{family}_batch",
    )

    def on_batch_module(name):
        spec = SPECS[name]
        own = {o.name for o in spec.compute_options}
        return [
            gr.update(choices=config_choices(spec), value=""),
            _fields_text(spec, ""),
            *[gr.update(visible=o in own) for o in options],
        ]

    b_module.change(
        on_batch_module, b_module, [b_config, b_fields, *b_opts.values()], api_visibility="private"
    )
    b_config.change(
        lambda name, chosen: _fields_text(SPECS[name], chosen),
        [b_module, b_config],
        b_fields,
        api_visibility="private",
    )
