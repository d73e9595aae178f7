"""The evaluate modules: what every module shares, and the family table.

A family is one folder (``nlgmetrics/ctc/``, ...) whose ``module.py`` declares its modules (``SPECS``: one
:class:`~.spec.ModuleSpec` per module) and names their evaluate classes (``CLASSES``), whose ``card.py``
holds its cards' prose and whose ``weights.py`` registers its weights. :data:`FAMILIES` names each family's
package, one line per family; the families are imported from it by name, so this layer imports none.

``SPECS`` is plain data (reading it loads no model library) and lazy: ``SPECS[name]`` imports only the
family of ``name`` and builds only its declarations; ``MODULES`` (module name → evaluate.Metric class)
imports evaluate on first use.

>>> sorted(SPECS)
['ctc_consistency', 'ctc_engagingness', 'ctc_groundedness', 'ctc_preservation', 'ctc_relevance', 'infolm', 'unieval', 'usr']
>>> family_of("ctc_relevance"), family_of("usr")
('ctc', 'usr')
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterator, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .spec import ModuleSpec, Option

if TYPE_CHECKING:
    from ..core.registry import WeightSpec
    from .metric import NLGMetric

FAMILIES: dict[str, str] = {
    "ctc": "nlgmetrics.ctc",
    "infolm": "nlgmetrics.infolm",
    "unieval": "nlgmetrics.unieval",
    "usr": "nlgmetrics.usr",
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


def family_part(family: str, part: str) -> ModuleType:
    """``<family's package>.<part>`` (``module``, ``card``, ``weights``, ``convert``), imported on first use."""
    return importlib.import_module(f"{FAMILIES[family]}.{part}")


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
    """Module name → its evaluate.Metric class (the family module's, made on first use)."""

    def __getitem__(self, name: str) -> type[NLGMetric]:
        module = family_part(family_of(name), "module")
        return getattr(module, module.CLASSES[name])

    def __iter__(self) -> Iterator[str]:
        return iter(SPECS)

    def __len__(self) -> int:
        return len(SPECS)


SPECS: Mapping[str, ModuleSpec] = _Specs()
"""Module name → its declaration."""
MODULES: Mapping[str, type[NLGMetric]] = _Modules()
"""Module name → evaluate.Metric class, for ``nlgmetrics.load`` and the module scripts."""


def class_name(name: str) -> str:
    """The evaluate.Metric class of module ``name``, as its family module names it.

    >>> class_name("ctc_consistency"), class_name("infolm")
    ('CTCConsistency', 'Infolm')
    """
    return family_part(family_of(name), "module").CLASSES[name]


_CLASSES_LOCK = threading.Lock()


def metric_classes(module_name: str) -> Callable[[str], Any]:
    """A family module's ``__getattr__``: its evaluate classes (its ``CLASSES``: module name → class name),
    each an :class:`~.metric.NLGMetric` subclass whose ``spec`` is the declaration, made on first use (evaluate
    is imported then, not with the declarations) and kept in the module, so there is one class per module."""

    def __getattr__(name: str) -> Any:
        module = importlib.import_module(module_name)
        spec_names = {cls: spec for spec, cls in module.CLASSES.items()}
        if name not in spec_names:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        from .metric import NLGMetric

        with _CLASSES_LOCK:
            if name not in module.__dict__:
                spec = module.SPECS[spec_names[name]]
                attributes = {"spec": spec, "__module__": module_name, "__qualname__": name}
                setattr(module, name, type(name, (NLGMetric,), attributes))
        return module.__dict__[name]

    return __getattr__


def family_weights() -> dict[str, WeightSpec]:
    """Every family's registered weights (its ``weights.WEIGHTS``), in the table's order; a name two families
    register differently is an error. The package reads :data:`nlgmetrics.core.registry.WEIGHTS` from here."""
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


def __getattr__(name: str) -> Any:
    """``NLGMetric`` (imports evaluate), and each module's class by its name (``CTCConsistency``, ...)."""
    if name == "NLGMetric":
        from .metric import NLGMetric

        return NLGMetric
    for module in SPECS:
        if class_name(module) == name:
            return MODULES[module]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "FAMILIES",
    "MODULES",
    "SPECS",
    "ModuleSpec",
    "NLGMetric",
    "Option",
    "family_of",
    "family_part",
    "family_weights",
]
