"""What the command line and the user interfaces print while they work, shared so that neither imports
the other: quiet model loading, one-line warnings, and argparse with one-line errors and typed options.

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
def quiet_loading(show_progress: bool) -> Iterator[None]:
    """While a module loads, silence transformers' per-load "Loading weights" bars and load reports
    (the package checks the heads it needs itself) and, unless ``show_progress``, the Hub's download
    bars; the scoring bar is the module's ``show_progress``."""
    from huggingface_hub.utils import are_progress_bars_disabled, disable_progress_bars, enable_progress_bars
    from transformers.utils import logging as transformers_logging

    transformers_on = transformers_logging.is_progress_bar_enabled()
    verbosity = transformers_logging.get_verbosity()
    hub_on = not are_progress_bars_disabled()
    transformers_logging.disable_progress_bar()
    transformers_logging.set_verbosity_error()
    if not show_progress:
        disable_progress_bars()
    try:
        yield
    finally:
        transformers_logging.set_verbosity(verbosity)
        if transformers_on:
            transformers_logging.enable_progress_bar()
        if hub_on and not show_progress:
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
