"""The *Score one example* mode: the chosen config's input fields, its options, the score, a heat map of
the module's details (words coloured on a scale with a legend, values on hover: :mod:`.heatmap`), the
sub-scores and the raw compute() output. A failure is a message in the mode's note."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ...availability import config_note
from ...core.validation import is_blank
from ...modules import SPECS
from ...records import json_safe, per_example
from ..display import display, score_text
from ..widget import field_label, score_label
from . import heatmap
from .context import FamilyContext
from .events import connect
from .heatmap import describe
from .options import (
    config_dropdown,
    config_inputs,
    field_updates,
    module_dropdown,
    on_module,
    option_components,
    parse_option_controls,
    scoring_config,
    status_note,
    text_field,
)
from .pool import score_records
from .tables import Table, styled


def build(ctx: FamilyContext) -> None:
    """The mode's controls and events, inside the family's tab."""
    import gradio as gr

    module, config, status, boxes, opts = _input_panel(ctx)
    button = gr.Button("Score", variant="primary", elem_id=f"{ctx.family}-single-run")
    note = gr.Markdown(label="note", elem_id=f"{ctx.family}-single-note")
    score, tokens, parts, raw = _result_panel(ctx)
    _examples(ctx, module, boxes)
    connect(
        ctx,
        button,
        _scorer(ctx),
        inputs=[module, config, *boxes.values(), *opts.values()],
        outputs=[score, tokens, parts, raw, note],
        note=note,
        cleared=["", "", None, None, None],
        api_name=f"{ctx.family}_single",
        names=["module", "config", *ctx.fields, *ctx.options],
    )
    _follow_choices(ctx, module, config, status, boxes, opts, [score, tokens, parts, raw, note])


def _input_panel(ctx: FamilyContext) -> tuple[Any, Any, Any, dict[str, Any], dict[str, Any]]:
    """The module and config choices, the config's status, a text box per input field and the options."""
    import gradio as gr

    family, first = ctx.family, ctx.first
    module = module_dropdown(ctx, "single")
    config = config_dropdown(ctx, "single", first)
    status = status_note(ctx, "single", first)
    boxes = {
        f: gr.Textbox(
            label=field_label(first, f),
            value=ctx.examples[first.name].get(f, ""),
            lines=2 if f == "predictions" else 3,
            visible=f in first.inputs,
            elem_id=f"{family}-single-{f}",
        )
        for f in ctx.fields
    }
    with gr.Accordion("Options", open=False):
        opts = option_components(ctx.options, first)
    return module, config, status, boxes, opts


def _result_panel(ctx: FamilyContext) -> tuple[Any, Any, Any, Any]:
    """The score, the heat map of the details, the table of sub-scores and the raw compute() output."""
    import gradio as gr

    family, first = ctx.family, ctx.first
    score = gr.Textbox(  # not a Number: a Number shows 0 before anything is scored
        label=score_label(first, scoring_config(first, "")),
        placeholder="not scored yet",
        interactive=False,
        max_lines=1,
        elem_id=f"{family}-single-score",
    )
    tokens = gr.HTML(
        label="Heat map: each word coloured by its value in the module's details",
        show_label=True,
        container=True,
        padding=True,
        elem_id=f"{family}-single-tokens",
    )
    parts = gr.Dataframe(
        headers=["output", "value"],
        label="Scores and sub-scores",
        interactive=False,
        elem_id=f"{family}-single-parts",
    )
    raw = gr.JSON(
        label="compute() output (higher_is_better, signature, details)", elem_id=f"{family}-single-raw"
    )
    return score, tokens, parts, raw


EXAMPLE_CHARS = 70
"""Characters of an example's button label (its module and prediction)."""


def _examples(ctx: FamilyContext, module: Any, boxes: dict[str, Any]) -> None:
    """Every module's card examples, one button each (its module and prediction: a table of every field
    would run past the page's right edge), filling in the module and the text boxes on a click."""
    import gradio as gr

    rows, labels = [], []
    for spec in ctx.specs:
        count = len(spec.example.get("predictions", []))
        for i in range(count):
            row = [spec.name]
            for f in ctx.fields:
                value = spec.example.get(f, [""] * count)[i] if f in spec.inputs else ""
                row.append("\n".join(value) if isinstance(value, list) else value)
            rows.append(row)
            label = f"{spec.name}: {spec.example['predictions'][i]}"
            labels.append(label if len(label) <= EXAMPLE_CHARS else label[: EXAMPLE_CHARS - 1] + "…")
    gr.Examples(
        rows,
        inputs=[module, *boxes.values()],
        label="Examples (click to fill in)",
        example_labels=labels,
        elem_id=f"{ctx.family}-single-examples",
    )


def nan_reason(record: dict[str, Any]) -> str:
    """Why one example's score is NaN, for the note the score box points to: the blank fields when there
    are (a blank text has no score), else nothing the module could score.

    >>> nan_reason({"predictions": " ", "sources": "A cat."}).split(":")[0]
    '**The score is NaN** (not a number)'
    >>> "`predictions` is blank" in nan_reason({"predictions": "", "sources": "A cat."})
    True
    """
    blank = [
        f for f, v in record.items() if all(is_blank(str(t)) for t in (v if isinstance(v, list) else [v]))
    ]
    if blank:
        names = " and ".join(f"`{f}`" for f in blank)
        verb, them = ("is", "it") if len(blank) == 1 else ("are", "them")
        why = (
            f"{names} {verb} blank (empty, or only spaces), and a blank text has no score: nlgmetrics gives "
            f"NaN rather than a made-up number (a file's mean leaves such examples out). Fill {them} in to "
            "score the example."
        )
    else:
        why = (
            "the module found nothing it can score in this example (for instance only punctuation or "
            "stopwords), so it gives NaN rather than a made-up number."
        )
    return f"**The score is NaN** (not a number): {why}"


def scored_note(spec: Any, used: str, fallback: str, record: dict[str, Any], score: float) -> str:
    """The note after scoring: the module and the config that scored (a fallback in one clause: the line
    under the config drop-down already says why), and for a NaN score why (:func:`nan_reason`)."""
    text = f"Scored with `{spec.name}` config `{used}`"
    if fallback:
        text += f" (instead of the default `{spec.default_config}`: see the line under the config)"
    text += "."
    return f"{text}\n\n{nan_reason(record)}" if math.isnan(score) else text


def _scorer(ctx: FamilyContext) -> Callable:
    """The button's function (and the ``<family>_single`` endpoint's): one record scored with its details."""
    import gradio as gr

    fields, options = ctx.fields, ctx.options

    def score_one(name, chosen, *values):
        spec = SPECS[name]
        texts = dict(zip(fields, values[: len(fields)]))
        option_values = dict(zip(options, values[len(fields) :]))
        record = {f: text_field(spec, f, texts[f] or "") for f in config_inputs(spec, chosen)}
        chosen_options = {**parse_option_controls(spec, option_values), "return_details": True}
        result, used, fallback, _ = score_records(ctx.pool, name, chosen, [record], chosen_options)
        value = result["scores"][0]
        details = (result.get("details") or [{}])[0]
        rows = [[k, display(v[0])] for k, v in per_example(result, 1).items()]
        rows += [[k, display(v)] for k, v in result.items() if k.startswith("mean_")]
        return (
            gr.update(  # the range of the config that scored (a fallback's, not the default's)
                value="NaN (see the note)" if math.isnan(value) else score_text(value),
                label=score_label(spec, used),
            ),
            heatmap.render(  # on the range the module declares for the config that scored
                spec.render_details(details),
                record.get("predictions", ""),
                describe(spec.details),
                spec.details_scale(used),
            )
            + heatmap.marked(record.get("predictions", ""), spec.render_marks(details), describe(spec.marks)),
            styled(Table(("output", "value"), rows)),
            json_safe(result),
            scored_note(spec, used, fallback, record, value),
        )

    return score_one


def _follow_choices(
    ctx: FamilyContext,
    module: Any,
    config: Any,
    status: Any,
    boxes: dict[str, Any],
    opts: dict[str, Any],
    results: list[Any],
) -> None:
    """A module or config chosen: its fields, options, configs, score label and status shown, and the
    results of the previous choice (``results``: the score, heat map, table, raw output and note) cleared."""
    import gradio as gr

    def cleared(spec, chosen: str) -> list:
        label = score_label(spec, scoring_config(spec, chosen))
        return [gr.update(label=label, value=""), "", None, None, ""]

    def on_single_module(name: str, *texts: str):
        spec = SPECS[name]
        return [*on_module(ctx, name, texts), *cleared(spec, ""), config_note(spec, "")]

    module.change(
        on_single_module,
        [module, *boxes.values()],
        [config, *boxes.values(), *opts.values(), *results, status],
        api_visibility="private",
        queue=False,  # light; done before a Score clicked right after it
    )

    def on_config(name: str, chosen: str, *texts: str):
        spec = SPECS[name]
        return [*field_updates(ctx, spec, chosen, texts), *cleared(spec, chosen), config_note(spec, chosen)]

    config.change(
        on_config,
        [module, config, *boxes.values()],
        [*boxes.values(), *results, status],
        api_visibility="private",
        queue=False,  # light; done before a Score clicked right after it
    )
