"""The evaluate modules: what every module shares, and the family table.

A family is one folder (``nlgmetrics/ctc/``, ...) whose ``module.py`` declares its modules (``SPECS``: one
:class:`~nlgmetrics.core.spec.ModuleSpec` per module), whose ``metric.py`` writes their evaluate classes
(``class CTCConsistency(NLGMetric)``, ...), whose ``card.py`` holds its cards' prose and whose ``weights.py``
registers its weights. :data:`FAMILIES` names each family's package, one line per family; the families are
imported from it by name, so this layer imports none.

``SPECS`` is plain data (reading it loads no model library) and lazy: ``SPECS[name]`` imports only the
family of ``name`` and builds only its declarations; ``MODULES`` (module name → evaluate.Metric class)
imports evaluate on first use. Importing this layer wires the family table's weights into the registry
(:data:`nlgmetrics.core.registry.WEIGHTS`: core names no family).

>>> sorted(SPECS)
[...'ctc_consistency', 'ctc_engagingness', ..., 'infolm', ..., 'usr'...]
>>> family_of("ctc_relevance"), family_of("usr")
('ctc', 'usr')
>>> families_with("convert")
('ctc', 'usr', 'alignscore')
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterator, Mapping
from types import ModuleType
from typing import TYPE_CHECKING

from ..core.registry import WEIGHTS, WeightSpec
from ..core.spec import ModuleSpec

if TYPE_CHECKING:
    from .metric import NLGMetric  # imports evaluate: the classes are read on first use

FAMILIES: dict[str, str] = {
    "ctc": "nlgmetrics.ctc",
    "infolm": "nlgmetrics.infolm",
    "unieval": "nlgmetrics.unieval",
    "usr": "nlgmetrics.usr",
    "minicheck": "nlgmetrics.minicheck",
    "alignscore": "nlgmetrics.alignscore",
    "factcg": "nlgmetrics.factcg",
    "hhem": "nlgmetrics.hhem",
    "lettucedetect": "nlgmetrics.lettucedetect",
}
"""Family → its package (holding module.py, card.py, weights.py). A family's modules are named after it:
the family itself (``infolm``) or ``<family>_<aspect>`` (``ctc_consistency``)."""


def family_of(name: str) -> str:
    """The family of module ``name`` (KeyError when no family's name it carries)."""
    if isinstance(name, str):
        for family in FAMILIES:
            if name == family or name.startswith(f"{family}_"):
                return family
    raise KeyError(name)


def module_names() -> list[str]:
    """Every module's name, family by family in the table's order and sorted within a family: the order in
    which messages, the CLI's listings and the Space's tabs name them (the first family's first module
    first; a family added at the table's end comes last)."""
    return [name for family in list(FAMILIES) for name in sorted(family_part(family, "module").SPECS)]


def family_part(family: str, part: str) -> ModuleType:
    """``<family's package>.<part>`` (``module``, ``card``, ``weights``, ``convert``), imported on first
    use."""
    return importlib.import_module(f"{FAMILIES[family]}.{part}")


def families_with(part: str) -> tuple[str, ...]:
    """The families whose package has ``<part>.py`` (``convert``: ``nlgmetrics convert <family>``), in the
    table's order; found without importing that file (only the family's package, which imports nothing)."""
    return tuple(f for f in list(FAMILIES) if importlib.util.find_spec(f"{FAMILIES[f]}.{part}") is not None)


class _Specs(Mapping[str, ModuleSpec]):
    """Module name → declaration, in the family table's order; a lookup imports only the module's family."""

    def __getitem__(self, name: str) -> ModuleSpec:
        return family_part(family_of(name), "module").SPECS[name]

    def __iter__(self) -> Iterator[str]:
        for family in list(FAMILIES):
            yield from family_part(family, "module").SPECS

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"SPECS({', '.join(self)})"


class _Modules(Mapping[str, "type[NLGMetric]"]):
    """Module name → its evaluate.Metric class, the one written in its family's ``metric.py`` (imported on
    first use: it imports evaluate)."""

    def __getitem__(self, name: str) -> type[NLGMetric]:
        spec = SPECS[name]
        classes = vars(family_part(spec.family, "metric")).values()
        return next(c for c in classes if isinstance(c, type) and getattr(c, "spec", None) is spec)

    def __iter__(self) -> Iterator[str]:
        return iter(SPECS)

    def __len__(self) -> int:
        return len(SPECS)


SPECS: Mapping[str, ModuleSpec] = _Specs()
"""Module name → its declaration."""
MODULES: Mapping[str, type[NLGMetric]] = _Modules()
"""Module name → evaluate.Metric class, for ``nlgmetrics.load`` and the module scripts."""


def family_weights() -> dict[str, WeightSpec]:
    """Every family's registered weights (its ``weights.WEIGHTS``), in the table's order; a name two families
    register differently is an error. :data:`nlgmetrics.core.registry.WEIGHTS` reads them from here."""
    table: dict[str, WeightSpec] = {}
    owner: dict[str, str] = {}
    for family in list(FAMILIES):
        for name, spec in family_part(family, "weights").WEIGHTS.items():
            if name in table and table[name] != spec:
                raise ValueError(
                    f"the weight {name!r} is registered differently by {owner[name]} and {family}"
                )
            table[name], owner[name] = spec, owner.get(name, family)
    return table


WEIGHTS.gather_from(family_weights)  # core names no family: the registry reads the family table's weights

__all__ = [
    "FAMILIES",
    "MODULES",
    "SPECS",
    "family_of",
    "families_with",
    "family_part",
    "family_weights",
    "module_names",
]
