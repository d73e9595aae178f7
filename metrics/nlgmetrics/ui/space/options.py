"""The controls every mode shares, from the modules' declarations: compute() options and the precision
(the load options ``dtype`` and ``quantize``, from :data:`~nlgmetrics.core.options.COMMON_LOAD_OPTIONS`) as
widgets and typed values, the config drop-down and the fields a config reads.

>>> from nlgmetrics.modules import SPECS
>>> parse_option_controls(SPECS["infolm"], {"temperature": "0.5", "idf": "false", "measure": ""})
{'temperature': 0.5, 'idf': False}
>>> parse_option_controls(SPECS["infolm"], {"temperature": "(default)", "quantize": "int8"})
{'quantize': 'int8'}
>>> config_inputs(SPECS["unieval"], "dialogue")
('predictions', 'sources', 'contexts')
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...availability import READY, config_note, config_status, default_choice
from ...core.modes import QUANTIZE_MODES
from ...core.options import COMMON_LOAD_OPTIONS, Option
from ...core.spec import ModuleSpec
from ...modules import SPECS
from ..widget import field_label
from .context import FamilyContext
from .pool import DEFAULT, SPACE_LOAD_OPTIONS, SpaceError, resolve_config


def config_inputs(spec: ModuleSpec, chosen: str | None) -> tuple[str, ...]:
    """The input fields of the config a mode would use (the default's for "" or an unknown name); a
    registered config's own, whether or not its weights are on this machine."""
    if chosen in spec.configs:
        return spec.inputs_for(chosen)
    try:
        config, _ = resolve_config(spec, chosen)
    except SpaceError:
        return spec.inputs
    return spec.inputs_for(config)


def precision_options() -> dict[str, Option]:
    """The load options a visitor chooses (:data:`~.pool.SPACE_LOAD_OPTIONS`), as every module declares
    them."""
    return {o.name: o for o in COMMON_LOAD_OPTIONS if o.name in SPACE_LOAD_OPTIONS}


def ui_options(specs: Sequence[ModuleSpec]) -> dict[str, Option]:
    """The compute() options the modules offer a user (those with a text type), by name, then the
    precision (:func:`precision_options`, shown for every module)."""
    out: dict[str, Option] = {}
    for spec in specs:
        for option in spec.compute_options:
            if option.text_type is not None:
                out.setdefault(option.name, option)
    return {**out, **precision_options()}


def parse_option_controls(spec: ModuleSpec, values: dict[str, Any]) -> dict[str, Any]:
    """The options the user set in a mode's controls (blank or "(default)" leaves one to the module), typed
    as declared: the module's compute() options, checked, then the precision chosen (checked with the machine
    when scoring: :func:`~.pool.chosen_load_options`)."""
    declared = {o.name: o for o in spec.compute_options if o.text_type is not None} | precision_options()
    out: dict[str, Any] = {}
    for name, value in values.items():
        option = declared.get(name)
        if option is None or value is None or (isinstance(value, str) and value.strip() in ("", DEFAULT)):
            continue
        try:
            out[name] = option.parse(value) if isinstance(value, str) else value
        except ValueError as err:
            raise SpaceError(str(err)) from None
    load = {k: out.pop(k) for k in SPACE_LOAD_OPTIONS if k in out}
    return {**spec.check_call(None, out, complete=False)[1], **load}


def own_options(spec: ModuleSpec) -> set[str]:
    """The options shown for module ``spec``: its compute() options and the precision (``quantize`` only
    where a config of ``spec`` allows int8: offering what every config refuses would be a trap)."""
    shown = {o.name for o in spec.compute_options} | set(SPACE_LOAD_OPTIONS)
    if all(spec.refusal(mode, config) for mode in QUANTIZE_MODES for config in spec.configs):
        shown.discard("quantize")
    return shown


def runs_here(name: str, value: str) -> bool:
    """Whether this machine runs load option ``name`` at ``value`` (the check scoring makes:
    :meth:`~nlgmetrics.core.runtime.Runtime.resolve`), e.g. no float16 on a CPU."""
    from ...core.runtime import Runtime  # torch: loaded when used (docs/architecture.md)

    try:
        Runtime.resolve(**{name: value})
    except ValueError:
        return False
    return True


def option_choices(option: Option) -> tuple | None:
    """The values a drop-down offers for ``option`` (None: a text box); of the precision, only those this
    machine runs (:func:`runs_here`)."""
    choices = getattr(option.check, "choices", None)
    if option.text_type is bool:
        return ("true", "false")
    if choices and option.name in SPACE_LOAD_OPTIONS:
        return tuple(c for c in choices if runs_here(option.name, c))
    return choices


def option_components(options: dict[str, Option], shown: ModuleSpec) -> dict[str, Any]:
    """One drop-down (choices, booleans) or text box per option; only ``shown``'s own are visible."""
    import gradio as gr

    own = own_options(shown)
    comps = {}
    for name, option in options.items():
        choices = option_choices(option)
        label = f"{name}: {option.help}"
        if choices is not None:  # a precision this machine cannot change: only "(default)"
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
        state = config_status(spec, config).state
        choices.append((config if state == READY else f"{config} ({state})", config))
    return choices


def scoring_config(spec: ModuleSpec, chosen: str | None) -> str:
    """The config that scores when ``chosen`` is picked: a registered one itself, else (the default) the
    default or, when its weights are missing here, its fallback."""
    return chosen if chosen in spec.configs else default_choice(spec)[0]


def status_note(ctx: FamilyContext, mode: str, spec: ModuleSpec):
    """Under a config drop-down: whether the chosen config loads here (the default's status when the Space
    starts), said again as soon as another config is chosen. (Not a value computed on each page load: that
    answer could arrive after a choice's and hide it.)"""
    import gradio as gr

    return gr.Markdown(config_note(spec, ""), elem_id=f"{ctx.family}-{mode}-status")


def text_field(spec: ModuleSpec, field: str, text: str) -> Any:
    """A text box's content as the field's value (a list field: one text per non-blank line)."""
    if field in spec.list_inputs:
        lines = [line for line in text.splitlines() if line.strip()]
        return lines or [text]
    return text


def module_dropdown(ctx: FamilyContext, mode: str):
    """The family's module drop-down of one mode (hidden when the family has one module)."""
    import gradio as gr

    return gr.Dropdown(
        ctx.names,
        value=ctx.first.name,
        label="Module",
        visible=len(ctx.names) > 1,
        elem_id=f"{ctx.family}-{mode}-module",
    )


def config_dropdown(ctx: FamilyContext, mode: str, spec: ModuleSpec):
    """The registered configs of ``spec`` (the default first) of one mode."""
    import gradio as gr

    return gr.Dropdown(
        config_choices(spec),
        value="",
        label="Config (registered configs only)",
        elem_id=f"{ctx.family}-{mode}-config",
    )


def field_updates(ctx: FamilyContext, spec: ModuleSpec, chosen: str, texts: Sequence[str]) -> list:
    """The text boxes (``texts``: what they hold, in ``ctx.fields``' order) for ``spec`` with config
    ``chosen``: its fields shown, each blank one it reads filled with the module's example text (a field a
    previous module did not read, such as CTC relevance's references, is not left blank to score NaN); a
    visitor's text is kept."""
    import gradio as gr

    inputs = config_inputs(spec, chosen)
    example = ctx.examples[spec.name]
    updates = []
    for field, text in zip(ctx.fields, texts):
        update = gr.update(visible=field in inputs, label=field_label(spec, field))
        if field in inputs and not (text or "").strip() and example.get(field):
            update["value"] = example[field]
        updates.append(update)
    return updates


def on_module(ctx: FamilyContext, name: str, texts: Sequence[str]) -> list:
    """Updates after choosing module ``name``: its configs, its fields' boxes (:func:`field_updates` of the
    boxes' ``texts``), its options."""
    import gradio as gr

    spec = SPECS[name]
    updates = [gr.update(choices=config_choices(spec), value="")]
    updates += field_updates(ctx, spec, "", texts)
    shown = own_options(spec)
    own = {o.name: o for o in (*spec.compute_options, *precision_options().values()) if o.name in shown}
    updates += [
        gr.update(visible=o in own, label=f"{o}: {own[o].help}" if o in own else None) for o in ctx.options
    ]
    return updates
