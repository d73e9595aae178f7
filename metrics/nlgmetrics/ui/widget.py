"""One small Gradio widget for any nlgmetrics module (evaluate's own widget is broken on Gradio >= 4).

Every ``metrics/<name>/app.py`` is two lines::

    from nlgmetrics.ui.widget import launch_widget
    launch_widget("ctc_consistency")

The widget has one text box per input field (references: one per line), scores one
example, and shows the score, the prediction's tokens coloured by their alignment score,
and the raw output.
"""

from __future__ import annotations

import math
from typing import Any

_FIELD_LABELS = {
    "predictions": "Prediction (y): the generated text",
    "sources": "Source (x): article, input sentence or dialog history",
    "references": "References (r): one per line",
    "contexts": "Context (c): fact or persona",
}

_EXAMPLE = {
    "predictions": "The cat sat on the mat all afternoon.",
    "sources": "A cat was sitting on the mat. It stayed there the whole afternoon, purring.",
    "references": "A cat sat on a mat.\nThe cat spent the afternoon on the mat.",
    "contexts": "Cats like to sit on mats.",
}


def prediction_tokens(details: dict) -> list[tuple[str, float | None]]:
    """(token, score) pairs for gr.HighlightedText: a CTC alignment's prediction tokens, or InfoLM's
    most differing tokens (difference scaled to [-1, 1])."""
    from ..modules import SPECS

    spec = SPECS["infolm"] if "top_tokens" in details else SPECS["ctc_consistency"]
    return spec.render_details(details)


def score_one(module, texts: dict[str, str]) -> tuple[float | None, list, dict]:
    """Score one example given as ``{field: text}``; returns (score, highlighted tokens, raw output)."""
    inputs: dict[str, Any] = {}
    for field, text in texts.items():
        if field == "references":
            refs = [line for line in text.splitlines() if line.strip()]
            inputs[field] = [refs or [text]]
        else:
            inputs[field] = [text]
    result = module.compute(**inputs, return_details=True)
    score = result["scores"][0]
    details = result.get("details", [{}])[0]
    return (None if math.isnan(score) else score), prediction_tokens(details), result


def build_widget(name: str, config_name: str | None = None, **load_kwargs: Any):
    """A ``gr.Blocks`` app scoring one example with module ``name``."""
    import gradio as gr

    import nlgmetrics

    module = nlgmetrics.load(name, config_name, **load_kwargs)
    fields = list(module.spec.inputs)
    with gr.Blocks(title=name) as demo:
        gr.Markdown(f"# {name}\n{module.description}\n\nConfig: `{module.config_name}`")
        boxes = [
            gr.Textbox(
                label=_FIELD_LABELS.get(f, f), value=_EXAMPLE.get(f, ""), lines=2 if f == "predictions" else 4
            )
            for f in fields
        ]
        button = gr.Button("Score", variant="primary")
        score = gr.Number(label="Score", precision=4)
        tokens = gr.HighlightedText(label="Prediction tokens and their alignment score", show_legend=False)
        raw = gr.JSON(label="Output")

        def run(*texts: str):
            return score_one(module, dict(zip(fields, texts)))

        button.click(run, inputs=boxes, outputs=[score, tokens, raw], api_name="score")
    return demo


def launch_widget(name: str, config_name: str | None = None, **load_kwargs: Any) -> None:
    """Build and launch the widget (what a metric Space's ``app.py`` runs)."""
    build_widget(name, config_name, **load_kwargs).launch()
