"""nlgmetrics: model-based NLG evaluation metrics on the Hugging Face stack.

>>> import nlgmetrics
>>> nlgmetrics.list_modules()
['ctc_consistency', 'ctc_engagingness', 'ctc_groundedness', 'ctc_preservation', 'ctc_relevance', 'infolm', 'unieval', 'usr']

Importing the package loads no model library (torch, transformers, evaluate load on first use);
``nlgmetrics.compare`` and ``nlgmetrics.compare_many`` (paired significance between systems) load
numpy on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .core.registry import WEIGHTS as _WEIGHTS
from .modules import family_weights as _family_weights
from .version import __version__

_WEIGHTS.gather_from(_family_weights)  # core names no family: the registry reads the family table's weights

if TYPE_CHECKING:
    from .combined import combine
    from .modules.metric import NLGMetric
    from .reward import reward
    from .significance import compare, compare_many
    from .trainer import for_trainer


def list_modules() -> list[str]:
    """Names accepted by :func:`load`."""
    from .modules import SPECS

    return sorted(SPECS)


def load(name: str, config_name: str | None = None, **load_kwargs: Any) -> NLGMetric:
    """Load an evaluate module from the installed package (no script download, works offline).

    The same object ``evaluate.load("metrics/<name>", config_name, **load_kwargs)`` gives from a
    checkout: ``load_kwargs`` are the module's load-time options (``aligner`` or ``model``,
    ``device``, ``dtype``, ``batch_size``, ...) and evaluate's own (``keep_in_memory``, ``cache_dir``,
    ``experiment_id``, ``num_process``, ``process_id``). An unknown option is a TypeError listing
    the valid ones.
    """
    from .modules import SPECS

    if not isinstance(name, str):
        raise ValueError(
            f"name={name!r} must be one module name, a string: one of {', '.join(list_modules())}"
        )
    if name not in SPECS:
        raise ValueError(f"unknown module {name!r}; choose one of {', '.join(list_modules())}")
    from .modules import MODULES

    module = MODULES[name](config_name=config_name, hash=f"nlgmetrics-{__version__}", **load_kwargs)
    module.download_and_prepare()
    return module


def release(module: Any = None) -> int:
    """Free the memory of loaded models in a long-running process: those of one loaded ``module`` (an
    ``nlgmetrics.load`` / ``evaluate.load`` result or a scorer; it loads them again on its next compute()),
    or, with no argument, the whole process-wide weight cache. Memory is freed once nothing else holds
    the models (another module loaded with the same weights keeps them; with no argument, delete the
    modules too). Returns the number of cached weights dropped."""
    from .core.runtime import release as release_weights

    if module is None:
        return release_weights()
    if not hasattr(module, "scorer"):  # a scorer: it is its own holder
        return release_weights(module)
    with module._lock:
        scorer, module.scorer = module.scorer, None
    return release_weights(scorer) if scorer is not None else 0


_LAZY = {
    "compare": "significance",
    "compare_many": "significance",
    "register": "registration",
    "for_trainer": "trainer",
    "combine": "combined",
    "reward": "reward",  # the module is callable too: importing it replaces this attribute (see reward.py)
}
"""Public functions imported from their submodule on first use (keeps ``import nlgmetrics`` light)."""


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "__version__",
    "combine",
    "compare",
    "compare_many",
    "for_trainer",
    "list_modules",
    "load",
    "register",
    "release",
    "reward",
]
