"""The one loading path: :func:`load` (name → a ready evaluate module), :func:`list_modules` (the names it
accepts) and :func:`release` (free what a module loaded). The package top re-exports the three.

>>> list_modules()[0], "alignscore" in list_modules()  # every family's, in the family table's order
('ctc_consistency', True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..version import __version__
from . import MODULES, SPECS, module_names

if TYPE_CHECKING:
    from .metric import NLGMetric


def list_modules() -> list[str]:
    """Names accepted by :func:`load`, family by family in the family table's order (:func:`module_names`)."""
    return module_names()


def load(name: str, config_name: str | None = None, **load_kwargs: Any) -> NLGMetric:
    """Load an evaluate module from the installed package (no script download, works offline).

    The same object ``evaluate.load("metrics/<name>", config_name, **load_kwargs)`` gives from a
    checkout: ``load_kwargs`` are the module's load-time options (``aligner`` or ``model``,
    ``device``, ``dtype``, ``batch_size``, ...) and evaluate's own (``keep_in_memory``, ``cache_dir``,
    ``experiment_id``, ``num_process``, ``process_id``). An unknown option is a TypeError listing
    the valid ones.
    """
    if not isinstance(name, str):
        raise ValueError(
            f"name={name!r} must be one module name, a string: one of {', '.join(list_modules())}"
        )
    if name not in SPECS:
        raise ValueError(f"unknown module {name!r}; choose one of {', '.join(list_modules())}")
    module = MODULES[name](config_name=config_name, hash=f"nlgmetrics-{__version__}", **load_kwargs)
    module.download_and_prepare()
    return module


def release(module: Any = None) -> int:
    """Free the memory of loaded models in a long-running process: those of one loaded ``module`` (an
    ``nlgmetrics.load`` / ``evaluate.load`` result or a scorer; it loads them again on its next compute()),
    or, with no argument, the whole process-wide weight cache. Memory is freed once nothing else holds
    the models (another module loaded with the same weights keeps them; with no argument, delete the
    modules too). Returns the number of cached weights dropped."""
    from ..core.weight_cache import (
        release as release_weights,  # imports torch: `import nlgmetrics` stays light
    )

    if module is None:
        return release_weights()
    if not hasattr(module, "scorer"):  # a scorer: it is its own holder
        return release_weights(module)
    scorer = module.detach_scorer()
    return release_weights(scorer) if scorer is not None else 0


__all__ = ["list_modules", "load", "release"]
