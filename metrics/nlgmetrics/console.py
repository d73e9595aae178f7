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
import warnings
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from .core.warnings import NLGMetricsWarning

if TYPE_CHECKING:
    from .core.options import Option


class OneLineErrorParser(argparse.ArgumentParser):
    """argparse, with its usage errors as one line like every other error of the command line, and a
    flag given twice with two different values refused (argparse would keep the last one silently)."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        for name in (None, "store"):  # None: add_argument without an action
            self.register("action", name, _StoreOnce)
        self.flags_given: dict[str, Any] = {}
        """The values of this parse's ``store`` flags so far, by destination."""

    def parse_known_args(self, args=None, namespace=None):
        self.flags_given = {}
        return super().parse_known_args(args, namespace)

    def error(self, message: str):
        self.exit(2, f"nlgmetrics: error: {message} (see '{self.prog} --help')\n")


class _StoreOnce(argparse._StoreAction):
    """``store``, but a second value that differs from the first is a usage error naming both."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = parser.flags_given
        if option_string is not None and self.dest in given and given[self.dest] != values:
            parser.error(
                f"{option_string} is given twice with different values ({given[self.dest]!r}, then "
                f"{values!r}); give it once"
            )
        given[self.dest] = values
        setattr(namespace, self.dest, values)


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
def one_line_warnings(wording: Callable[[str], str] = str) -> Iterator[None]:
    """nlgmetrics' own warnings as ``nlgmetrics: warning: ...`` lines, in ``wording`` (the command line's
    rows for the examples), and others as Python prints them."""
    original = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, NLGMetricsWarning):
            print(f"nlgmetrics: warning: {wording(str(message))}", file=sys.stderr)
        else:
            original(message, category, filename, lineno, file, line)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield
