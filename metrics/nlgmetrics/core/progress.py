"""The package's one progress bar adapter (:class:`Progress`)."""

from __future__ import annotations

from collections.abc import Callable

from tqdm.auto import tqdm


class Progress:
    """The package's one progress adapter: a tqdm bar (the ``show_progress`` option; silent when disabled)
    over ``total`` whole items (examples) fed fractions of work as each forward batch ends.

    ``advance(amount)`` adds work (a share of an item is fine); ``per(scale)`` is a callback for work
    counted in other units (an aligner's pairs, a model's rows): ``scale`` items per unit. The bar shows
    the whole items done, and ends at ``total`` when the ``with`` block ends without an error. ``n`` counts
    even when disabled.

    >>> with Progress(total=3, enabled=False, desc="demo") as progress:
    ...     progress.advance(0.5)
    ...     progress.per(0.25)(7)
    ...     progress.n
    2
    >>> progress.n
    3
    """

    def __init__(self, *, total: int, enabled: bool, desc: str, unit: str = "example"):
        self.total = total
        self.n = 0
        self._done = 0.0
        self.bar = tqdm(total=total, desc=desc, unit=unit, disable=not enabled)

    def per(self, scale: float) -> Callable[[float], None]:
        """A callback advancing ``scale`` items per unit of work it is told."""
        return lambda amount: self.advance(amount * scale)

    def advance(self, amount: float) -> None:
        self._done = min(float(self.total), self._done + amount)
        whole = int(self._done + 1e-9)  # 0.1 + 0.2 + ... must not stop one short
        if whole > self.n:
            self.bar.update(whole - self.n)
            self.n = whole

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, error_type, *_) -> None:
        if error_type is None and self.n < self.total:
            self.bar.update(self.total - self.n)
            self.n = self.total
        self.bar.close()
