"""``nlgmetrics convert`` (the authors' CTC and USR checkpoints into transformers folders) and
``nlgmetrics register`` (the module scripts into evaluate's modules cache)."""

from __future__ import annotations

import argparse
from importlib import import_module

from .common import CLIError


def cmd_convert(args: argparse.Namespace) -> int:
    converter = import_module(f"..{args.kind}.convert", __package__)
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
            "evaluate.load('<name>', '<config>') now loads these modules (evaluate logs that it uses the cached version)"
        )
    return 0


def add_parsers(sub: argparse._SubParsersAction) -> None:
    """The ``convert`` and ``register`` subcommands."""
    converting = sub.add_parser(
        "convert",
        help="convert the authors' original CTC, USR or AlignScore checkpoints into transformers folders",
        description="Convert an original checkpoint (the authors' Google Drive downloads) into a folder "
        "that loads with --aligner D:<folder> / R:<folder> (ctc), --mlm, --dr-c, --dr-f (usr) or --model "
        "(alignscore). 'nlgmetrics convert KIND --help' lists the options.",
        add_help=True,
    )
    converting.add_argument(
        "kind", choices=("ctc", "usr", "alignscore"), help="which release the checkpoint is from"
    )
    converting.add_argument(
        "options", nargs=argparse.REMAINDER, help="the converter's options (see KIND --help)"
    )
    converting.set_defaults(func=cmd_convert)

    registering = sub.add_parser(
        "register",
        help="make evaluate.load('<name>') find the 8 modules (writes them into evaluate's modules cache)",
        description="Install the 8 module scripts into evaluate's modules cache (HF_MODULES_CACHE), so "
        "that evaluate.load('ctc_consistency', ...) works with a bare name in any script, offline too. "
        "Idempotent; a new nlgmetrics version replaces what an older one wrote.",
    )
    registering.add_argument("--remove", action="store_true", help="remove exactly what register wrote")
    registering.set_defaults(func=cmd_register)
