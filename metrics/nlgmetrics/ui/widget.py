"""One small Gradio widget for any nlgmetrics module (evaluate's own widget is broken on Gradio >= 4).

Every ``metrics/<name>/app.py`` is two lines::

    from nlgmetrics.ui.widget import main
    main("ctc_consistency")

and runs as ``python metrics/ctc_consistency/app.py [--config E-minilm] [--device cpu]``. The
host and port are Gradio's own: ``GRADIO_SERVER_NAME`` (default 127.0.0.1) and
``GRADIO_SERVER_PORT`` (default 7860, or the next free port), or ``--host``/``--port``.

Everything on the page comes from the module's declaration (:class:`~nlgmetrics.core.spec.ModuleSpec`):
one text box per input field with the spec's example, the direction and range of the score,
and the spec's details renderer as a token heat map. When the default config's weights are
not on the machine and the Hub cannot be reached, the widget shows the module's offline
config (``spec.doctest_config``: the embedded ``E-minilm`` for CTC) under a banner saying
which config was wanted and how to get its weights.

>>> example_texts(_spec("ctc_relevance"))["references"]
'A cat sat on a mat.'
"""

from __future__ import annotations

import math
import sys
from typing import TYPE_CHECKING, Any

from ..console import OneLineErrorParser, argument_type
from ..core.hub import WeightsUnavailableError, quiet_loading
from ..core.options import COMMON_LOAD_OPTIONS
from ..core.validation import FIELDS
from ..modules import SPECS, loading, module_names
from .display import centred, scale_of

if TYPE_CHECKING:
    import gradio

INSTALL_HINT = 'the widget needs gradio, which is not installed: pip install "nlgmetrics[space]"'


def _spec(name: str):
    if name not in SPECS:
        raise ValueError(f"unknown module {name!r}; choose one of {', '.join(module_names())}")
    return SPECS[name]


def field_label(spec, field: str) -> str:
    """A text box's label: the field and what it holds (several: one per line)."""
    several = " (one per line)" if field in spec.list_inputs else ""
    return f"{field}: {FIELDS.get(field, field)}{several}"


def example_texts(spec) -> dict[str, str]:
    """The spec's first example as one text per field (several references one per line)."""
    texts = {}
    for field in {
        **dict.fromkeys(spec.inputs),
        **dict.fromkeys(f for fs in spec.inputs_by_config.values() for f in fs),
    }:
        value = (spec.example.get(field) or [""])[0]
        texts[field] = "\n".join(value) if isinstance(value, list) else str(value)
    return texts


def score_label(spec, config: str | None = None) -> str:
    """The score box's label: the direction and the range of ``config`` from the declaration.

    >>> score_label(_spec("ctc_groundedness")), score_label(_spec("infolm"))
    ('Score (higher is better; range unbounded (a sum over tokens))', 'Score (direction: higher_is_better in
    the output; range depends on the measure (KL ≤ 0; distances ≥ 0))')
    >>> score_label(_spec("ctc_consistency"), "D-cnndm")
    'Score (higher is better; range [0, 1])'
    """
    shown = spec.range_label(config)
    return f"Score ({spec.direction_text()}{f'; range {shown}' if shown else ''})"


def score_one(module, texts: dict[str, str]) -> tuple[float | None, list, dict]:
    """Score one example given as ``{field: text}``; returns (score, highlighted tokens, raw output)."""
    inputs: dict[str, Any] = {}
    for field, text in texts.items():
        if field in module.spec.list_inputs:
            lines = [line for line in text.splitlines() if line.strip()]
            inputs[field] = [lines or [text]]
        else:
            inputs[field] = [text]
    result = module.compute(**inputs, return_details=True)
    score = result["scores"][0]
    details = result.get("details", [{}])[0]
    return (None if math.isnan(score) else score), highlighted(module, details), result


def highlighted(module, details: dict) -> list[tuple[str, float | None]]:
    """One example's (token, value) pairs as Gradio's HighlightedText colours them: moved from the range
    the module declares for its config (a probability's 0 … 1) to −1 … +1, the range's middle at 0."""
    pairs = module.spec.render_details(details)
    config = module.config or module.load_options.get(module.spec.config_option)
    scale = scale_of(module.spec.details_scale(config), [v for _, v in pairs])
    return [(token, None if v is None or math.isnan(v) else centred(v, scale)) for token, v in pairs]


def load_for_widget(name: str, config_name: str | None = None, **load_kwargs: Any) -> tuple[Any, str]:
    """The module to show, and a Markdown banner ("" when it is the one asked for).

    With no config (and no custom weights) asked for, a default config whose weights are
    unavailable (:class:`~nlgmetrics.core.hub.WeightsUnavailableError`) falls back to the module's
    offline config (``spec.doctest_config``); a config asked for by name must load or fail.
    """
    spec = _spec(name)
    with quiet_loading():
        try:
            return loading.load(name, config_name, **load_kwargs), ""
        except WeightsUnavailableError as err:
            fallback = spec.doctest_config
            custom = load_kwargs.get(spec.config_option) is not None
            if config_name not in (None, "default") or custom or fallback in (None, spec.default_config):
                raise
            wanted_error = err
        module = loading.load(name, fallback, **load_kwargs)
    reason = " ".join(getattr(wanted_error, "summary", str(wanted_error)).split())
    banner = (
        f"**Showing config `{fallback}` instead of the default `{spec.default_config}`**: {reason}. "
        f"`{fallback}` runs offline."
    )
    print(f"nlgmetrics: warning: {spec.default_config} unavailable; showing {fallback}", file=sys.stderr)
    return module, banner


def build_widget(name: str, config_name: str | None = None, **load_kwargs: Any) -> gradio.Blocks:
    """A ``gr.Blocks`` app scoring one example with module ``name`` (API name ``/score``)."""
    import gradio as gr

    module, banner = load_for_widget(name, config_name, **load_kwargs)
    spec = module.spec
    fields = list(module.inputs)  # the loaded config's (unieval: the task's)
    shown = module.config or load_kwargs.get(spec.config_option) or spec.default_config
    examples = example_texts(spec)
    with gr.Blocks(title=name) as demo:
        gr.Markdown(f"# {spec.title} (`{name}`)\n{spec.description}\n\nConfig: `{shown}`")
        if banner:
            gr.Markdown(f"> ⚠️ {banner}", elem_id="nlgmetrics-fallback")
        boxes = [
            gr.Textbox(label=field_label(spec, f), value=examples[f], lines=2 if f == "predictions" else 4)
            for f in fields
        ]
        button = gr.Button("Score", variant="primary")
        score = gr.Number(label=score_label(spec), precision=4)
        tokens = gr.HighlightedText(
            label="Tokens coloured by the module's details", show_legend=False, visible=bool(spec.details)
        )
        raw = gr.JSON(label="Output (higher_is_better and signature included)")

        def run(*texts: str):
            return score_one(module, dict(zip(fields, texts)))

        button.click(run, inputs=boxes, outputs=[score, tokens, raw], api_name="score")
    demo.nlgmetrics_config = shown
    demo.nlgmetrics_banner = banner
    return demo


def main(name: str, argv: list[str] | None = None) -> None:
    """What ``metrics/<name>/app.py`` runs: options, then one-line errors (exit code 2) or the app."""
    parser = OneLineErrorParser(
        prog=f"python metrics/{name}/app.py", description=f"A Gradio widget scoring one example with {name}."
    )
    parser.add_argument(
        "--config", default=None, help="config name (default: the module's; see 'nlgmetrics list')"
    )
    for option in COMMON_LOAD_OPTIONS:
        parser.add_argument(
            f"--{option.name.replace('_', '-')}",
            dest=option.name,
            type=argument_type(option),
            default=None,
            help=option.help.replace("%", "%%"),
        )
    parser.add_argument(
        "--host", default=None, help="address to serve on (default: $GRADIO_SERVER_NAME or 127.0.0.1)"
    )
    parser.add_argument(
        "--port",
        type=int,
        default=None,
        help="port (default: $GRADIO_SERVER_PORT or 7860, else the next free one)",
    )
    args = parser.parse_args(argv)
    try:
        import gradio  # noqa: F401
    except ImportError:
        print(f"nlgmetrics: error: {INSTALL_HINT}", file=sys.stderr)
        sys.exit(2)

    load_kwargs = {
        o.name: getattr(args, o.name) for o in COMMON_LOAD_OPTIONS if getattr(args, o.name) is not None
    }
    try:
        demo = build_widget(name, args.config, **load_kwargs)
    except (WeightsUnavailableError, ValueError, TypeError, FileNotFoundError) as err:
        message = " ".join(getattr(err, "summary", str(err)).split())
        print(f"nlgmetrics: error: {message}", file=sys.stderr)
        sys.exit(2)
    demo.launch(server_name=args.host, server_port=args.port)
