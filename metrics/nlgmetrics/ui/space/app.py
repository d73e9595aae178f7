"""The Space's app: one tab per family with its three modes (:mod:`.single`, :mod:`.batch`,
:mod:`.compare`), the ``/score`` API endpoint, and :func:`launch`.

>>> from nlgmetrics.modules import SPECS
>>> family_title([SPECS["ctc_consistency"], SPECS["ctc_relevance"]])
'CTC'
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from typing import Any

from ...availability import banner_markdown
from ...core.spec import ModuleSpec
from ...core.validation import FIELDS
from ...modules import SPECS, module_names
from ...records import json_safe
from ..limits import Limits, preload_pairs
from ..widget import example_texts
from . import batch, compare, malloc, single, zerogpu
from .context import FamilyContext
from .events import guarded
from .options import ui_options
from .pool import ConfigUnavailable, ModelPool, SpaceError, api_message, score_records

WAITING_REQUESTS = 32
"""Requests Gradio lets into the model pool at once (beyond the scoring ones they wait there, to be
merged: :mod:`.merging`); each loaded model still scores ``MODEL_CONCURRENCY`` computes at a time."""


def family_title(specs: Sequence[ModuleSpec]) -> str:
    """The words every module title of the family starts with (the family name when none)."""
    if len(specs) == 1:
        return specs[0].title
    words = [s.title.split() for s in specs]
    common = []
    for group in zip(*words):
        if len(set(group)) != 1:
            break
        common.append(group[0])
    return " ".join(common) or specs[0].family


def banner(limits: Limits) -> str:
    """Which configs load now, which download on first use, which are not on the Hub yet (and, collapsed, how
    to convert those on one's own machine), and the limits
    (:func:`nlgmetrics.availability.banner_markdown`)."""
    return banner_markdown([SPECS[name] for name in module_names()], limits.describe())


def loaded_line(status: dict) -> str:
    """The page's status line: each set of weights loaded, its size and the models built on it, then the
    total (each set once) against the budget (``/loaded``'s answer)."""
    shown = "; ".join(
        f"`{w['name']}` {w['mb']:.0f} MB, used by {', '.join(f'`{m}`' for m in w['models'])}"
        for w in status["weights"]
    )
    return (
        f"Weights loaded: {shown or 'none yet'} ({status['total_mb']:.0f} of {status['budget_mb']:.0f} MB "
        "in all, each set of weights counted once; the least recently used leaves first)"
    )


def _by_family() -> dict[str, list[ModuleSpec]]:
    families: dict[str, list[ModuleSpec]] = {}
    for name in module_names():
        families.setdefault(SPECS[name].family, []).append(SPECS[name])
    return families


def ordered_fields(specs: Sequence[ModuleSpec]) -> list[str]:
    """Every input field of the modules, over all their configs (UniEval's tasks differ), in FIELDS' order."""
    used = {f for s in specs for c in (None, *s.configs) for f in s.inputs_for(c)}
    return [f for f in (*FIELDS, *sorted(used - set(FIELDS))) if f in used]


def prepare_process() -> None:
    """What the Space's process sets before any model loads or server thread starts: two malloc arenas
    (:mod:`.malloc`: freed models stay reusable), Arrow's buffers in them (not in pyarrow's mimalloc) and, on
    ZeroGPU, ``spaces``' patches of torch."""
    malloc.limit_arenas()
    malloc.arrow_system_pool()
    zerogpu.prepare()


def build_space(limits: Limits | None = None):
    """The Space's ``gr.Blocks`` (queued; not launched)."""
    import gradio as gr

    limits = limits or Limits.from_env()
    prepare_process()
    pool = ModelPool(limits)
    pool.preload(preload_pairs(limits.preload))  # before the first request
    workdir = tempfile.mkdtemp(prefix="nlgmetrics-space-")

    def api_score(module: str, config: str, records: str, options: str) -> dict:
        """Score records (a JSON list of objects with the module's input fields) with a registered config
        (``"default"`` for the module's default) and compute() options (a JSON object, which may also choose
        the precision: ``{"dtype": "bfloat16"}`` or ``{"quantize": "int8"}``); returns compute()'s result with
        ``config`` (the config that scored), ``note`` (why it is not the one asked for, when the default's
        weights are missing here; else "") and ``ignored_fields`` (the records' other fields, not scored)."""
        if module in SPECS and (not isinstance(config, str) or not config.strip()):
            raise SpaceError(f"config is empty: give 'default' or one of {', '.join(SPECS[module].configs)}")
        try:
            scored = score_records(pool, module, config, records, options)
        except ConfigUnavailable as err:  # the page's wording points to its note: an API client sees none
            raise SpaceError(api_message(err.status)) from None
        return {
            **json_safe(scored.result),
            "config": scored.config,
            "note": scored.note,
            "ignored_fields": scored.ignored,
        }

    def api_loaded() -> dict:
        """The weights loaded now: ``{"budget_mb", "total_mb", "models": [{"module", "config", "mb",
        "weights", "last_used"}], "weights": [{"name", "mb", "models"}]}`` (megabytes of weights, 2**20 bytes;
        ``total_mb`` counts each set of weights once, as the budget does, while a model's ``mb`` is its own
        weights, shared or not; ``last_used`` in seconds since the epoch; ``load`` too when a precision was
        chosen, e.g. ``{"quantize": "int8"}``), models most recent first."""
        return pool.status()

    with gr.Blocks(title="nlgmetrics") as demo:
        gr.Markdown(
            "# nlgmetrics: model-based NLG evaluation\nScore one example, a file of examples, or compare two "
            "systems, with every metric of the `nlgmetrics` package. Models load on first use and are shared."
        )
        shown = gr.Markdown(banner(limits), elem_id="nlgmetrics-banner")
        # current on each page load, through a private event (a callable value would be a public /lambda_N)
        demo.load(lambda: banner(limits), outputs=shown, queue=False, api_visibility="private")
        loaded = gr.Markdown(loaded_line(pool.status()), elem_id="nlgmetrics-loaded")
        refresh = dict(
            fn=lambda: loaded_line(pool.status()), outputs=loaded, show_progress="hidden", queue=False
        )
        demo.load(**refresh, api_visibility="private")
        gr.Timer(5).tick(**refresh, api_visibility="private")
        with gr.Tabs():
            for family, specs in _by_family().items():
                ctx = FamilyContext(
                    family=family,
                    specs=tuple(specs),
                    pool=pool,
                    limits=limits,
                    workdir=workdir,
                    guarded=guarded,
                    fields=tuple(ordered_fields(specs)),
                    options=ui_options(specs),
                    examples={s.name: example_texts(s) for s in specs},
                )
                with gr.Tab(family_title(specs), id=family, elem_id=f"tab-{family}"):
                    with gr.Tab("Score one example", id=f"{family}-single"):
                        single.build(ctx)
                    with gr.Tab("Batch", id=f"{family}-batch"):
                        batch.build(ctx)
                    with gr.Tab("Compare A/B", id=f"{family}-ab"):
                        compare.build(ctx)
        gr.api(guarded(api_score), api_name="score", concurrency_id="models")
        gr.api(api_loaded, api_name="loaded", queue=False)
    demo.queue(
        max_size=limits.max_queue,
        default_concurrency_limit=max(limits.model_concurrency * 4, WAITING_REQUESTS),
    )
    demo.nlgmetrics_pool = pool
    demo.nlgmetrics_limits = limits
    return demo


def launch(demo=None, **kwargs: Any) -> None:
    """Launch the Space; host and port from GRADIO_SERVER_NAME / GRADIO_SERVER_PORT (Gradio's own)."""
    demo = demo or build_space()
    kwargs.setdefault("max_file_size", demo.nlgmetrics_limits.max_upload_bytes)
    kwargs.setdefault("show_error", True)
    demo.launch(**kwargs)
