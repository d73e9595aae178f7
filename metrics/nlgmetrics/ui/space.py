"""The project's Space: one Gradio app for every module, built from the modules' declarations.

One tab per family (``ModuleSpec.family``), each with three modes: *Score one example* (the input
fields of the chosen config, e.g. UniEval's task, the registered configs, the compute() options, a
token heat map from the module's details renderer), *Batch* (a CSV or JSONL upload scored into a
table, a distribution plot and downloadable CSV/JSONL) and *Compare A/B* (two predictions, or two
system files, scored by every selected module). The endpoint ``/score`` (``api_name="score"``) takes
a module, a config, JSON records and JSON options and returns the compute() result.

Nothing here names a module or a family: a new entry in ``nlgmetrics.modules.SPECS`` appears
with its own tab. Models load on first use, once per process, shared by every user; each loaded
model scores at most ``Limits.model_concurrency`` requests at a time.

>>> family_title([SPECS["ctc_consistency"], SPECS["ctc_relevance"]])
'CTC'
>>> parse_options(SPECS["infolm"], {"temperature": "0.5", "idf": "false", "measure": ""})
{'temperature': 0.5, 'idf': False}
"""

from __future__ import annotations

import functools
import json
import math
import os
import sys
import tempfile
import threading
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from ..modules import SPECS
from ..modules.spec import FIELDS, ModuleSpec, Option
from .availability import config_status, default_choice
from .records import (
    Limits,
    check_option_sizes,
    display,
    per_example,
    read_upload,
    records_to_fields,
    scored_records,
    write_scored,
)
from .widget import example_texts, field_label, score_label

DEFAULT = "(default)"
"""The value of an option drop-down that leaves the option to the module."""


class SpaceError(ValueError):
    """A request the Space refuses or cannot serve; the message is shown to the user as it is."""


# ---- the models: loaded once per process, shared ------------------------------------------------------


class ModelPool:
    """One loaded module per (module, config), shared by every request; a semaphore per model."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self._modules: dict[tuple[str, str], Any] = {}
        self._slots: dict[tuple[str, str], threading.BoundedSemaphore] = {}
        self._lock = threading.Lock()
        self._loading: dict[tuple[str, str], threading.Lock] = {}

    def get(self, name: str, config: str):
        key = (name, config)
        with self._lock:
            if key in self._modules:
                return self._modules[key]
            loading = self._loading.setdefault(key, threading.Lock())
        with loading:
            if key not in self._modules:
                import nlgmetrics

                from ..core.hub import WeightsUnavailableError

                try:
                    module = nlgmetrics.load(name, config)
                except WeightsUnavailableError as err:
                    status = config_status(SPECS[name], config)
                    raise SpaceError(status.message() or err.summary) from None
                with self._lock:
                    self._modules[key] = module
                    self._slots[key] = threading.BoundedSemaphore(self.limits.model_concurrency)
        return self._modules[key]

    def compute(self, name: str, config: str, fields: dict[str, list], options: dict[str, Any]) -> dict:
        module = self.get(name, config)
        with self._slots[(name, config)]:
            return module.compute(**fields, **options)

    def loaded(self) -> list[tuple[str, str]]:
        with self._lock:
            return sorted(self._modules)


def resolve_config(spec: ModuleSpec, chosen: str | None) -> tuple[str, str]:
    """The registered config to use and a note; "" means the default (or the offline config when the
    default's weights are missing). Anything not registered is refused: no repo ids or paths here."""
    if chosen in (None, "", "default", DEFAULT):
        return default_choice(spec)
    if not isinstance(chosen, str) or chosen not in spec.configs:
        raise SpaceError(
            f"{spec.name} has no config {chosen!r}; this Space runs only the registered configs: "
            f"{', '.join(spec.configs)} (or 'default')"
        )
    status = config_status(spec, chosen)
    offline = os.environ.get("HF_HUB_OFFLINE", "").lower() in ("1", "true", "yes", "on")
    if status.available is False and offline:
        raise SpaceError(status.message())
    return chosen, ""


def _error_text(err: BaseException) -> str:
    text = str(getattr(err, "summary", err)).strip()
    if isinstance(err, (ValueError, TypeError, OSError)):
        return text
    return f"scoring failed ({type(err).__name__}): {text}"


def _user_error(err: BaseException):
    """A gr.Error showing the message only (never a traceback)."""
    import gradio as gr

    print(f"nlgmetrics space: refused: {_error_text(err)}", file=sys.stderr)
    return gr.Error(_error_text(err), print_exception=False)


def _json_safe(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    return value


def score_records(
    pool: ModelPool, name: str, config: str | None, records: Any, options: Any, *, extra_ok: bool = False
) -> tuple[dict, str, str]:
    """What every mode and the API run: checks, then the module's compute(); returns
    (result, config used, note)."""
    if name not in SPECS:
        raise SpaceError(f"unknown module {name!r}; this Space has {', '.join(sorted(SPECS))}")
    spec = SPECS[name]
    if isinstance(records, str):
        try:
            records = json.loads(records)
        except json.JSONDecodeError as err:
            raise SpaceError(f"records is not valid JSON: {err.msg} (line {err.lineno})") from None
    if isinstance(options, str):
        try:
            options = json.loads(options) if options.strip() else {}
        except json.JSONDecodeError as err:
            raise SpaceError(f"options is not valid JSON: {err.msg}") from None
    if options is None:
        options = {}
    if not isinstance(options, dict):
        raise SpaceError(f"options must be a JSON object of {name}.compute() options")
    given = [f for f in FIELDS if f in options]
    if given:
        raise SpaceError(
            f"{', '.join(given)} {'is an input' if len(given) == 1 else 'are inputs'}, not an option: inputs go "
            "in the records (one object per example with the fields "
            f"{', '.join(spec.inputs_for(config if config in spec.configs else None))}); options only take "
            f"{name}.compute() options"
        )
    config, note = resolve_config(spec, config)
    inputs = spec.inputs_for(config)  # the chosen config's (UniEval: the task's)
    options = spec.check_compute_options(options, config)  # only compute() options: no weights, paths or code
    check_option_sizes(options, pool.limits)
    fields = records_to_fields(inputs, records, pool.limits, extra_ok=extra_ok, list_fields=spec.list_inputs)
    return pool.compute(name, config, fields, options), config, note


def config_inputs(spec: ModuleSpec, chosen: str | None) -> tuple[str, ...]:
    """The input fields of the config a mode would use (the default's for "" or an unknown name)."""
    try:
        config, _ = resolve_config(spec, chosen)
    except SpaceError:
        return spec.inputs
    return spec.inputs_for(config)


# ---- options as widgets ---------------------------------------------------------------------------------


def ui_options(specs: Sequence[ModuleSpec]) -> dict[str, Option]:
    """The compute() options the modules offer a user (those with a command-line type), by name."""
    out: dict[str, Option] = {}
    for spec in specs:
        for option in spec.compute_options:
            if option.cli_type is not None:
                out.setdefault(option.name, option)
    return out


def parse_options(spec: ModuleSpec, values: dict[str, Any]) -> dict[str, Any]:
    """The options the user set (blank or "(default)" leaves one to the module), typed as declared."""
    declared = {o.name: o for o in spec.compute_options if o.cli_type is not None}
    out: dict[str, Any] = {}
    for name, value in values.items():
        option = declared.get(name)
        if option is None or value is None or (isinstance(value, str) and value.strip() in ("", DEFAULT)):
            continue
        try:
            out[name] = option.parse(value) if isinstance(value, str) else value
        except ValueError as err:
            raise SpaceError(str(err)) from None
    return spec.check_compute_options(out)


def option_components(options: dict[str, Option], shown: ModuleSpec) -> dict[str, Any]:
    import gradio as gr

    own = {o.name for o in shown.compute_options}
    comps = {}
    for name, option in options.items():
        choices = getattr(option.check, "choices", None)
        if option.cli_type is bool:
            choices = ("true", "false")
        label = f"{name}: {option.help}"
        if choices:
            comps[name] = gr.Dropdown(
                [DEFAULT, *map(str, choices)], value=DEFAULT, label=label, visible=name in own
            )
        else:
            comps[name] = gr.Textbox(
                label=label, placeholder="blank: the module's default", visible=name in own
            )
    return comps


def config_choices(spec: ModuleSpec) -> list[tuple[str, str]]:
    """(label, value) pairs of the config drop-down: the default, then every registered config."""
    used, note = default_choice(spec)
    choices = [(f"default ({used}{', offline fallback' if note else ''})", "")]
    for config in spec.configs:
        status = config_status(spec, config)
        suffix = {True: "", None: " (checked when used)", False: " (not on this machine)"}[status.available]
        choices.append((f"{config}{suffix}", config))
    return choices


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
    """Which configs can run now (weights embedded or in the local cache), and the limits."""
    lines = ["**Configs available now** (weights embedded or in the local cache):"]
    for name, spec in sorted(SPECS.items()):
        found: dict[bool | None, list[str]] = {True: [], False: [], None: []}
        for config in spec.configs:
            found[config_status(spec, config).available].append(config)
        shown = ", ".join(f"`{c}`" for c in found[True]) or "none"
        if found[None]:
            shown += f"; checked when used: {', '.join(f'`{c}`' for c in found[None])}"
        if found[False]:
            shown += f" ({len(found[False])} more need a download)"
        lines.append(f"- `{name}`: {shown}")
    lines.append(
        f"\nChoosing a config that is not on this machine says how to get it. Limits: {limits.describe()}."
    )
    return "\n".join(lines)


# ---- the app --------------------------------------------------------------------------------------------


def _by_family() -> dict[str, list[ModuleSpec]]:
    families: dict[str, list[ModuleSpec]] = {}
    for name in sorted(SPECS):
        families.setdefault(SPECS[name].family, []).append(SPECS[name])
    return families


def _ordered_fields(specs: Sequence[ModuleSpec]) -> list[str]:
    """Every input field of the modules, over all their configs (UniEval's tasks differ), in FIELDS' order."""
    used = {f for s in specs for c in (None, *s.configs) for f in s.inputs_for(c)}
    return [f for f in (*FIELDS, *sorted(used - set(FIELDS))) if f in used]


def _text_field(spec: ModuleSpec, field: str, text: str) -> Any:
    if field in spec.list_inputs:
        lines = [line for line in text.splitlines() if line.strip()]
        return lines or [text]
    return text


def _shown(value: Any) -> Any:
    if isinstance(value, list):
        return " | ".join(map(str, value))
    return display(value)


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


def _preferred(a: float | None, b: float | None, higher_is_better: bool | None) -> str:
    if a is None or b is None or math.isnan(a) or math.isnan(b):
        return "n/a"
    if a == b:
        return "tie"
    if higher_is_better is None:
        return "?"
    return "A" if (a > b) == higher_is_better else "B"


def build_space(limits: Limits | None = None):
    """The Space's ``gr.Blocks`` (queued; not launched)."""
    import gradio as gr
    import pandas as pd

    limits = limits or Limits.from_env()
    pool = ModelPool(limits)
    workdir = tempfile.mkdtemp(prefix="nlgmetrics-space-")

    def guarded(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def run(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except gr.Error:
                raise
            except Exception as err:  # every failure becomes a message, never a traceback
                raise _user_error(err) from None

        return run

    def api_score(module: str, config: str, records: str, options: str) -> dict:
        """Score records (a JSON list of objects with the module's input fields) with a registered config
        (``"default"`` for the module's default) and compute() options (a JSON object); returns the
        compute() result with ``config`` (the config that scored) and ``note`` (why it is not the one
        asked for, when the default's weights are missing here; else "")."""
        if module in SPECS and (not isinstance(config, str) or not config.strip()):
            raise SpaceError(f"config is empty: give 'default' or one of {', '.join(SPECS[module].configs)}")
        result, used, note = score_records(pool, module, config, records, options)
        return {**_json_safe(result), "config": used, "note": note}

    with gr.Blocks(title="nlgmetrics") as demo:
        gr.Markdown(
            "# nlgmetrics: model-based NLG evaluation\nScore one example, a file of examples, or compare two "
            "systems, with every metric of the `nlgmetrics` package. Models load on first use and are shared."
        )
        gr.Markdown(banner(limits), elem_id="nlgmetrics-banner")
        with gr.Tabs():
            for family, specs in _by_family().items():
                with gr.Tab(family_title(specs), id=family, elem_id=f"tab-{family}"):
                    _family_tab(gr, pd, family, specs, pool, limits, workdir, guarded)
        gr.api(guarded(api_score), api_name="score", concurrency_id="models")
    demo.queue(max_size=limits.max_queue, default_concurrency_limit=limits.model_concurrency * 4)
    demo.nlgmetrics_pool = pool
    demo.nlgmetrics_limits = limits
    return demo


def _family_tab(gr, pd, family, specs, pool, limits, workdir, guarded) -> None:
    names = [s.name for s in specs]
    first = specs[0]
    fields = _ordered_fields(specs)
    options = ui_options(specs)
    examples = {s.name: example_texts(s) for s in specs}

    def module_dropdown(mode: str):
        return gr.Dropdown(
            names, value=first.name, label="Module", visible=len(names) > 1, elem_id=f"{family}-{mode}-module"
        )

    def config_dropdown(mode: str, spec: ModuleSpec):
        return gr.Dropdown(
            config_choices(spec),
            value="",
            label="Config (registered configs only)",
            elem_id=f"{family}-{mode}-config",
        )

    def on_module(name: str):
        spec = SPECS[name]
        updates = [gr.update(choices=config_choices(spec), value="")]
        inputs = config_inputs(spec, "")
        updates += [gr.update(visible=f in inputs, label=field_label(spec, f)) for f in fields]
        own = {o.name: o for o in spec.compute_options}
        updates += [
            gr.update(visible=o in own, label=f"{o}: {own[o].help}" if o in own else None) for o in options
        ]
        return updates

    # ---- score one example ----
    with gr.Tab("Score one example", id=f"{family}-single"):
        module = module_dropdown("single")
        config = config_dropdown("single", first)
        boxes = {
            f: gr.Textbox(
                label=field_label(first, f),
                value=examples[first.name].get(f, ""),
                lines=2 if f == "predictions" else 3,
                visible=f in first.inputs,
                elem_id=f"{family}-single-{f}",
            )
            for f in fields
        }
        with gr.Accordion("Options", open=False):
            opts = option_components(options, first)
        button = gr.Button("Score", variant="primary", elem_id=f"{family}-single-run")
        note = gr.Markdown(elem_id=f"{family}-single-note")
        score = gr.Textbox(  # not a Number: a Number shows 0 before anything is scored
            label=score_label(first),
            placeholder="not scored yet",
            interactive=False,
            max_lines=1,
            elem_id=f"{family}-single-score",
        )
        tokens = gr.HighlightedText(
            label="Heat map: each token coloured by its score (the module's details)",
            show_legend=False,
            elem_id=f"{family}-single-tokens",
        )
        parts = gr.Dataframe(
            headers=["output", "value"],
            label="Scores and sub-scores",
            interactive=False,
            elem_id=f"{family}-single-parts",
        )
        raw = gr.JSON(label="compute() output (higher_is_better, signature, details)")
        rows = []
        for spec in specs:
            count = len(spec.example.get("predictions", []))
            for i in range(count):
                row = [spec.name]
                for f in fields:
                    value = spec.example.get(f, [""] * count)[i] if f in spec.inputs else ""
                    row.append("\n".join(value) if isinstance(value, list) else value)
                rows.append(row)
        gr.Examples(rows, inputs=[module, *boxes.values()], label="Examples (click to fill in)")

        def score_one(name, chosen, *values):
            spec = SPECS[name]
            texts = dict(zip(fields, values[: len(fields)]))
            option_values = dict(zip(options, values[len(fields) :]))
            record = {f: _text_field(spec, f, texts[f] or "") for f in config_inputs(spec, chosen)}
            chosen_options = {**parse_options(spec, option_values), "return_details": True}
            result, used, note_text = score_records(pool, name, chosen, [record], chosen_options)
            value = result["scores"][0]
            details = (result.get("details") or [{}])[0]
            table = [[k, display(v[0])] for k, v in per_example(result, 1).items()]
            table += [[k, display(v)] for k, v in result.items() if k.startswith("mean_")]
            message = f"Scored with `{name}` config `{used}`. {note_text}".strip()
            return (
                "NaN (see the note)" if display(value) is None else str(display(value)),
                spec.render_details(details),
                pd.DataFrame(table, columns=["output", "value"]),
                _json_safe(result),
                message,
            )

        button.click(
            guarded(score_one),
            inputs=[module, config, *boxes.values(), *opts.values()],
            outputs=[score, tokens, parts, raw, note],
            api_name=f"{family}_single",
            concurrency_id="models",
        )

        def on_single_module(name: str):
            return [*on_module(name), gr.update(label=score_label(SPECS[name]), value="")]

        module.change(
            on_single_module,
            module,
            [config, *boxes.values(), *opts.values(), score],
            api_visibility="private",
        )

        def on_config(name: str, chosen: str):
            spec = SPECS[name]
            inputs = config_inputs(spec, chosen)
            label = score_label(spec, chosen or None)
            return [*(gr.update(visible=f in inputs) for f in fields), gr.update(label=label, value="")]

        config.change(on_config, [module, config], [*boxes.values(), score], api_visibility="private")

    # ---- batch ----
    with gr.Tab("Batch", id=f"{family}-batch"):
        gr.Markdown(
            "Upload a `.csv` or `.tsv` (a header row naming the module's input fields; several references in "
            'one cell as a JSON list, `["r1", "r2"]`) or a `.jsonl` / `.json` file (one object per example with '
            f"those fields), read as `nlgmetrics score` reads it. Limits: {limits.describe()}."
        )
        b_module = module_dropdown("batch")
        b_config = config_dropdown("batch", first)
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
                pool, name, chosen, records, chosen_options, extra_ok=True
            )
            rows = scored_records(records, result)
            stem = f"{name}-{used}-{uuid.uuid4().hex[:8]}"
            csv_path, jsonl_path = write_scored(rows, os.path.join(workdir, uuid.uuid4().hex), stem)
            table = pd.DataFrame([{k: _shown(v) for k, v in row.items()} for row in rows])
            mean = display(result.get("mean_score"))
            message = (
                f"Scored {len(rows)} examples with `{name}` config `{used}`: mean score {mean}. {note_text}"
            )
            return (
                table,
                _histogram(result["scores"]),
                gr.update(value=csv_path, visible=True),
                gr.update(value=jsonl_path, visible=True),
                message.strip(),
            )

        b_button.click(
            guarded(score_file),
            inputs=[b_module, b_config, upload, *b_opts.values()],
            outputs=[b_table, b_plot, b_csv, b_jsonl, b_note],
            api_name=f"{family}_batch",
            concurrency_id="models",
        )

        def on_batch_module(name):
            spec = SPECS[name]
            own = {o.name for o in spec.compute_options}
            return [
                gr.update(choices=config_choices(spec), value=""),
                f"Fields: {', '.join(f'`{f}`' for f in config_inputs(spec, ''))}",
                *[gr.update(visible=o in own) for o in options],
            ]

        b_module.change(
            on_batch_module, b_module, [b_config, b_fields, *b_opts.values()], api_visibility="private"
        )
        b_config.change(
            lambda name, chosen: f"Fields: {', '.join(f'`{f}`' for f in config_inputs(SPECS[name], chosen))}",
            [b_module, b_config],
            b_fields,
            api_visibility="private",
        )

    # ---- compare A/B ----
    with gr.Tab("Compare A/B", id=f"{family}-ab"):
        common = [c for c in first.configs if all(c in s.configs for s in specs)]
        c_modules = gr.CheckboxGroup(
            names, value=[first.name], label="Metrics scoring both systems", elem_id=f"{family}-ab-modules"
        )
        c_config = gr.Dropdown(
            [("each module's default", ""), *[(c, c) for c in common]],
            value="",
            label="Config for every selected metric",
            elem_id=f"{family}-ab-config",
        )
        with gr.Tab("Two predictions"):
            shared = {
                f: gr.Textbox(
                    label=field_label(first, f) + " (used by the metrics that take it)",
                    value=examples[first.name].get(
                        f, next((examples[s.name][f] for s in specs if f in s.inputs), "")
                    ),
                    lines=3,
                    elem_id=f"{family}-ab-{f}",
                )
                for f in fields
                if f != "predictions"
            }
            pred_a = gr.Textbox(
                label="prediction A",
                lines=2,
                elem_id=f"{family}-ab-a",
                value=examples[first.name].get("predictions", ""),
            )
            pred_b = gr.Textbox(label="prediction B", lines=2, elem_id=f"{family}-ab-b")
            c_button = gr.Button("Compare", variant="primary", elem_id=f"{family}-ab-run")
        with gr.Tab("Two system files"):
            gr.Markdown("Two files with the same rows: the same inputs, each with its own `predictions`.")
            with gr.Row():
                file_a = gr.File(
                    label="System A",
                    file_types=[".csv", ".tsv", ".jsonl", ".json"],
                    elem_id=f"{family}-ab-file-a",
                )
                file_b = gr.File(
                    label="System B",
                    file_types=[".csv", ".tsv", ".jsonl", ".json"],
                    elem_id=f"{family}-ab-file-b",
                )
            f_button = gr.Button("Compare the files", variant="primary", elem_id=f"{family}-ab-files-run")
        c_note = gr.Markdown(elem_id=f"{family}-ab-note")
        c_summary = gr.Dataframe(label="On average", interactive=False, elem_id=f"{family}-ab-summary")
        c_plot = gr.BarPlot(
            x="metric",
            y="examples",
            color="preferred",
            y_lim=[0, None],
            label="Which system each metric prefers (examples)",
            elem_id=f"{family}-ab-plot",
        )
        c_table = gr.Dataframe(label="Per example", interactive=False, elem_id=f"{family}-ab-table")

        def compare(selected, chosen, records_a, records_b):
            if not selected:
                raise SpaceError("select at least one metric")
            summary, per_row, counts, notes = [], [], [], []
            for name in selected:
                spec = SPECS[name]
                inputs = config_inputs(spec, chosen)
                missing = [f for f in inputs if any(f not in r or r[f] in ("", None) for r in records_a)]
                if missing:
                    raise SpaceError(f"{name} needs {', '.join(missing)}: fill it in or deselect {name}")
                only = [{f: r[f] for f in inputs} for r in records_a]
                result_a, used, note_a = score_records(pool, name, chosen, only, {})
                only_b = [{f: r[f] for f in inputs} for r in records_b]
                result_b, _, _ = score_records(pool, name, chosen, only_b, {})
                hib = result_a.get("higher_is_better")
                wins = {"A": 0, "B": 0, "tie": 0, "n/a": 0, "?": 0}
                for i, (a, b) in enumerate(zip(result_a["scores"], result_b["scores"])):
                    winner = _preferred(a, b, hib)
                    wins[winner] += 1
                    per_row.append([i, name, display(a), display(b), winner])
                mean_a, mean_b = result_a["mean_score"], result_b["mean_score"]
                summary.append(
                    [
                        name,
                        used,
                        display(mean_a),
                        display(mean_b),
                        _preferred(mean_a, mean_b, hib),
                        wins["A"],
                        wins["B"],
                        wins["tie"],
                    ]
                )
                counts += [[name, k, v] for k, v in wins.items() if k in ("A", "B", "tie")]
                if note_a:
                    notes.append(note_a)
            return (
                pd.DataFrame(
                    summary,
                    columns=["metric", "config", "mean A", "mean B", "preferred", "A wins", "B wins", "ties"],
                ),
                pd.DataFrame(counts, columns=["metric", "preferred", "examples"]),
                pd.DataFrame(per_row, columns=["example", "metric", "A", "B", "preferred"]),
                " ".join(
                    [
                        f"Compared {len(records_a)} example{'s' if len(records_a) != 1 else ''} with "
                        + ", ".join(f"`{n}`" for n in selected)
                        + ".",
                        *notes,
                    ]
                ),
            )

        def compare_texts(selected, chosen, a, b, *values):
            record = {"predictions": a}
            for f, text in zip(shared, values):
                record[f] = text
            specs_used = [SPECS[n] for n in selected or []]
            rec_a, rec_b = {}, {}
            for f, text in record.items():
                spec = next((s for s in specs_used if f in s.inputs), first)
                rec_a[f] = _text_field(spec, f, text or "")
            rec_b = {**rec_a, "predictions": b or ""}
            return compare(selected, chosen, [rec_a], [rec_b])

        def compare_files(selected, chosen, path_a, path_b):
            if not path_a or not path_b:
                raise SpaceError("upload both system files")
            records_a, records_b = read_upload(path_a, limits), read_upload(path_b, limits)
            if len(records_a) != len(records_b):
                raise SpaceError(
                    f"system A has {len(records_a)} rows and system B {len(records_b)}; they must match"
                )
            for i, (ra, rb) in enumerate(zip(records_a, records_b)):
                for f in set(ra) & set(rb) - {"predictions"}:
                    if ra[f] != rb[f]:
                        raise SpaceError(
                            f"row {i}: the two files differ in {f}; both must hold the same inputs"
                        )
            return compare(selected, chosen, records_a, records_b)

        outputs = [c_summary, c_plot, c_table, c_note]
        c_button.click(
            guarded(compare_texts),
            inputs=[c_modules, c_config, pred_a, pred_b, *shared.values()],
            outputs=outputs,
            api_name=f"{family}_compare",
            concurrency_id="models",
        )
        f_button.click(
            guarded(compare_files),
            inputs=[c_modules, c_config, file_a, file_b],
            outputs=outputs,
            api_name=f"{family}_compare_files",
            concurrency_id="models",
        )


def launch(demo=None, **kwargs: Any) -> None:
    """Launch the Space; host and port from GRADIO_SERVER_NAME / GRADIO_SERVER_PORT (Gradio's own)."""
    demo = demo or build_space()
    kwargs.setdefault("max_file_size", demo.nlgmetrics_limits.max_upload_bytes)
    kwargs.setdefault("show_error", True)
    demo.launch(**kwargs)
