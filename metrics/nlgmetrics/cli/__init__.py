"""Command line: score a JSONL or CSV file with any module and write the scores back.

    nlgmetrics score examples.jsonl --metric ctc_consistency --config E-minilm --table
    nlgmetrics score data.csv --metric infolm --option measure=l2_distance --column predictions=summary
    nlgmetrics score big.jsonl --metric ctc_consistency --num-processes 4   # 4 processes, one shard each
    nlgmetrics list
    nlgmetrics compare a.ctc_consistency.jsonl b.ctc_consistency.jsonl --metric ctc_consistency
    nlgmetrics meta-eval topical_chat_result.json --human scores --predicted predict_scores --protocol sample
    python -m nlgmetrics --version

Each row needs the module's input fields (``predictions``, ``sources``, ``references``,
``contexts``), or ``--column field=your_column`` to map them. Files are ``.jsonl``, ``.json``,
``.csv`` or ``.tsv`` (:mod:`nlgmetrics.records`, shared with the Space); in CSV/TSV several references
in one cell are a JSON list. The output file gets one column per
score (``ctc_consistency`` for single-score modules) and the result's signature
(``ctc_consistency_signature``); the mean, the direction, the range and the signature are printed.

Everything that can be checked from the modules' declarations (metric, config, options,
columns, the input file) is checked before torch or a model is loaded, and every error is
one line on stderr starting with ``nlgmetrics: error:`` and exit code 2:

>>> main(["score", "data.jsonl", "--metric", "ctc_consitency"])
2

The commands live in one file each (:mod:`.score`; :mod:`.info`: list, weights; :mod:`.stats`: compare,
meta-eval; :mod:`.tools`: convert, register), on :mod:`.common`; this file assembles the parser and runs.
"""

from __future__ import annotations

import argparse
import os
import sys

from ..console import OneLineErrorParser
from ..version import __version__
from . import info, score, stats, tools
from .common import CLIError


def build_parser() -> argparse.ArgumentParser:
    """``nlgmetrics`` with its subcommands, each added by its own file."""
    parser = OneLineErrorParser(prog="nlgmetrics", description=__doc__.split("\n")[0])
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(
        dest="command", required=True, metavar="{score,list,compare,meta-eval,convert,weights,register}"
    )
    score.add_parsers(sub)
    info.add_parsers(sub)
    tools.add_parsers(sub)
    stats.add_parsers(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (0, or 2 after a one-line error)."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help, --version, usage errors
        return exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else 2)
    args.argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return args.func(args)
    except CLIError as err:
        if getattr(args, "traceback", False):
            raise
        print(f"nlgmetrics: error: {' '.join(str(err).split())}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("nlgmetrics: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`nlgmetrics list | head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
