"""``nlgmetrics convert <family>`` (the authors' original checkpoints into transformers folders, for each
family with a ``convert.py``) and ``nlgmetrics register`` (the module scripts into evaluate's modules cache).
Both read the family table: nothing here names a family or counts the modules."""

from __future__ import annotations

import argparse
from importlib import import_module

from ..modules import FAMILIES, families_with
from .common import CLIError


def cmd_convert(args: argparse.Namespace) -> int:
    converter = import_module(f"{FAMILIES[args.kind]}.convert")
    try:
        return converter.main(args.options, prog=f"nlgmetrics convert {args.kind}")
    except SystemExit as exit_:  # the converter's own --help and usage errors
        return exit_.code if isinstance(exit_.code, int) else 0


def cmd_register(args: argparse.Namespace) -> int:
    from ..registration import RegistrationError, register  # --help stays fast (measured)

    try:
        changes = register(remove=args.remove)
    except RegistrationError as err:
        raise CLIError(str(err)) from None
    for change in changes:
        print(change)
    if not args.remove:
        print(
            "evaluate.load('<name>', '<config>') now loads these modules (evaluate logs that it uses the "
            "cached version)"
        )
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """The ``convert`` and ``register`` subcommands."""
    kinds = families_with("convert")
    converting = sub.add_parser(
        "convert",
        help=f"convert the authors' original checkpoints ({', '.join(kinds)}) into transformers folders",
        description="Convert an original checkpoint (the authors' downloads) into a transformers folder "
        "that the family's folder options load. 'nlgmetrics convert KIND --help' lists a converter's "
        "options and says which load option reads what it writes.",
        add_help=True,
    )
    converting.add_argument("kind", choices=kinds, help="the family whose release the checkpoint is from")
    converting.add_argument(
        "options", nargs=argparse.REMAINDER, help="the converter's options (see KIND --help)"
    )
    converting.set_defaults(func=cmd_convert)

    registering = sub.add_parser(
        "register",
        help="make evaluate.load('<name>') find every module (writes them into evaluate's modules cache)",
        description="Install every module's script into evaluate's modules cache (HF_MODULES_CACHE), so "
        "that evaluate.load('ctc_consistency', ...) works with a bare name in any script, offline too. "
        "Idempotent; a new nlgmetrics version replaces what an older one wrote.",
    )
    registering.add_argument("--remove", action="store_true", help="remove exactly what register wrote")
    registering.set_defaults(func=cmd_register)
