"""What every mode of a family tab shares: one frozen :class:`FamilyContext` instead of positional
parameters."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...core.options import Option
    from ...core.spec import ModuleSpec
    from ..limits import Limits
    from .pool import ModelPool


@dataclass(frozen=True)
class FamilyContext:
    """One family's tab: its modules, the shared model pool and limits, and what its modes show."""

    family: str
    specs: tuple[ModuleSpec, ...]
    pool: ModelPool
    limits: Limits
    workdir: str
    """Where scored files are written for download."""
    guarded: Callable[[Callable], Callable]
    """Wraps an event handler so that any failure is a message, never a traceback."""
    fields: tuple[str, ...]
    """Every input field of the family's modules, over all their configs, in ``FIELDS``' order."""
    options: Mapping[str, Option]
    """The compute() options the family's modules offer a user, by name."""
    examples: Mapping[str, Mapping[str, str]]
    """Each module's example, one text per field."""

    @property
    def names(self) -> list[str]:
        return [spec.name for spec in self.specs]

    @property
    def first(self) -> ModuleSpec:
        """The module a tab shows first."""
        return self.specs[0]
