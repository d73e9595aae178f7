"""nlgmetrics: model-based NLG evaluation metrics on the Hugging Face stack.

>>> import nlgmetrics
>>> nlgmetrics.list_modules()
['ctc_consistency', 'ctc_engagingness', 'ctc_groundedness', 'ctc_preservation', 'ctc_relevance', 'infolm']
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"


def list_modules() -> list[str]:
    """Names accepted by :func:`load`."""
    from .evaluate_modules import MODULES

    return sorted(MODULES)


def load(name: str, config_name: str | None = None, **load_kwargs: Any):
    """Load an evaluate module from the installed package (no script download, works offline).

    The same object ``evaluate.load("metrics/<name>", config_name, **load_kwargs)`` gives from a
    checkout: ``load_kwargs`` are the module's load-time options (``aligner`` or ``model``,
    ``device``, ``dtype``, ``batch_size``, ...) and evaluate's own (``keep_in_memory``, ``cache_dir``,
    ``experiment_id``, ``num_process``, ``process_id``).
    """
    from .evaluate_modules import MODULES

    if name not in MODULES:
        raise ValueError(f"unknown module {name!r}; choose one of {list_modules()}")
    module = MODULES[name](config_name=config_name, hash=f"nlgmetrics-{__version__}", **load_kwargs)
    module.download_and_prepare()
    return module


__all__ = ["__version__", "list_modules", "load"]
