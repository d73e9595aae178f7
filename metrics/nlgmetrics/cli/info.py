"""``nlgmetrics list`` and ``nlgmetrics weights``: the modules' declarations and where their weights come
from, read without loading any model."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ..core.registry import WEIGHTS, embedded_folder, how_to_get, is_published
from ..core.spec import direction_text
from .common import OPTIONS_DECIDE, cli_compute_options, known_specs, type_name


def cmd_list(args: argparse.Namespace) -> int:
    for n, spec in enumerate(known_specs(args.names)):
        options = cli_compute_options(spec)
        load = [o for o in spec.load_options if o.text_type is not None]
        print(("\n" if n else "") + f"{spec.name}: {spec.title}")
        print(f"  inputs     {', '.join(spec.inputs)}")
        print(f"  configs    {', '.join(spec.configs)}")
        print(f"  default    {spec.default_config}")
        print(f"  direction  {direction_text(spec.higher_is_better, OPTIONS_DECIDE)}")
        shown_range = spec.score_range if args.verbose else spec.range_labels.get("", spec.range_label())
        print(f"  range      {shown_range}")
        print(f"  --option   {', '.join(f'{o.name}={type_name(o)}' for o in options.values())}")
        print(f"  load       {', '.join('--' + o.name.replace('_', '-') for o in load)}")
        if args.verbose:
            for option in [*options.values(), *load]:
                print(f"    {option.name}: {option.help}")
    return 0


def weight_lines(spec) -> list[str]:
    """Where one registered weight comes from and how to get it (no model is loaded)."""
    from ..availability import weight_available  # --help stays fast (measured)

    folder = embedded_folder(spec.embedded_package)
    if folder is None and weight_available(spec):
        from huggingface_hub import try_to_load_from_cache

        folder = os.path.dirname(
            try_to_load_from_cache(spec.repo_id, spec.cached_file, revision=spec.revision)
        )
    cached = (
        f"embedded ({spec.embedded_package})"
        if spec.embedded_package and folder
        else "yes"
        if folder
        else "no"
    )
    size = sum(p.stat().st_size for p in Path(folder).rglob("*") if p.is_file()) if folder else None
    size_text = f" · {size / 1e6:,.1f} MB" if size is not None else ""
    get = how_to_get(spec, "cli") if not (folder and spec.embedded_package) else "shipped by the package"
    base = WEIGHTS.get(spec.base or "")  # a checkpoint converted with it on first use: needed too
    if base is not None:
        cached = (
            f"no (its base {base.repo_id} is not)"
            if cached == "yes" and not weight_available(base)
            else cached
        )
        get += f" and {how_to_get(base, 'cli')} (the base it is converted with: config and tokenizer)"
    return [
        f"    {spec.repo_id} @ {spec.revision} · licence {spec.license} · published: "
        f"{'yes' if is_published(spec) else 'no'} · on this machine: {cached}{size_text}",
        f"    get it: {get}",
    ]


def cmd_weights(args: argparse.Namespace) -> int:
    for n, spec in enumerate(known_specs(args.names)):
        print(("\n" if n else "") + f"{spec.name}")
        for config in spec.configs:
            default = " (default)" if config == spec.default_config else ""
            print(f"  {config}{default}")
            for weight in spec.named_weights(config):  # a base: on its checkpoint's lines
                for line in weight_lines(weight):
                    print(line)
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """The ``list`` and ``weights`` subcommands."""
    listing = sub.add_parser(
        "list",
        help="list the modules: inputs, configs, default, direction, range and options",
        description="The modules' declarations (no model is loaded).",
    )
    listing.add_argument("names", nargs="*", metavar="NAME", help="only these modules")
    listing.add_argument("-v", "--verbose", action="store_true", help="the full range text and option help")
    listing.set_defaults(func=cmd_list)

    weights = sub.add_parser(
        "weights",
        help="every config's weights: repo and revision, published, on this machine, size, licence, how to "
        "get them",
        description="For every config of the modules: its weights' repo id and revision (pinned or not), "
        "whether they are published on the Hub, whether they are on this machine (and their size), their "
        "licence, and the exact way to get them (the download, or the conversion of the original "
        "checkpoint).",
    )
    weights.add_argument("names", nargs="*", metavar="MODULE", help="only these modules")
    weights.set_defaults(func=cmd_weights)
