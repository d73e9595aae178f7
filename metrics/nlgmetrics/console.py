"""What the command line and the user interfaces print while they work, shared so that neither imports
the other: no download bars on request, one-line warnings, and argparse with one-line errors and typed
options.

>>> parser = OneLineErrorParser(prog="demo")
>>> parser.exit = lambda status, message: print(status, message.strip())
>>> parser.error("bad value")
2 nlgmetrics: error: bad value (see 'demo --help')
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .modules.spec import Option


class OneLineErrorParser(argparse.ArgumentParser):
    """argparse, with its usage errors as one line like every other error of the command line."""

    def error(self, message: str):
        self.exit(2, f"nlgmetrics: error: {message} (see '{self.prog} --help')\n")


def argument_type(option: Option) -> Callable[[str], Any]:
    """``option.parse`` for argparse: a bad value reads as the option's own message."""

    def parse(text: str) -> Any:
        try:
            return option.parse(text)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    return parse


@contextlib.contextmanager
def quiet_downloads(quiet: bool) -> Iterator[None]:
    """While the block runs, if ``quiet``, no Hub download bars: huggingface_hub has only a process-wide
    switch for them (restored after). transformers' own load bars and reports are off per thread in every
    load (:func:`nlgmetrics.core.hub.quiet_loading`); the scoring bar is the module's ``show_progress``."""
    from huggingface_hub.utils import are_progress_bars_disabled, disable_progress_bars, enable_progress_bars

    switch = quiet and not are_progress_bars_disabled()
    if switch:
        disable_progress_bars()
    try:
        yield
    finally:
        if switch:
            enable_progress_bars()


@contextlib.contextmanager
def one_line_warnings() -> Iterator[None]:
    """nlgmetrics' own warnings as ``nlgmetrics: warning: ...`` lines (others as Python prints them)."""
    import warnings

    from .core.runtime import NLGMetricsWarning

    original = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, NLGMetricsWarning):
            print(f"nlgmetrics: warning: {message}", file=sys.stderr)
        else:
            original(message, category, filename, lineno, file, line)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield
