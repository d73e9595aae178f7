"""nlgmetrics: model-based NLG evaluation metrics on the Hugging Face stack.

>>> import nlgmetrics
>>> nlgmetrics.list_modules()  # every family's modules, from the family table
[...'ctc_consistency', 'ctc_engagingness', ..., 'infolm', ..., 'usr'...]

Importing the package loads no model library (torch, transformers, evaluate load on first use);
``nlgmetrics.compare`` and ``nlgmetrics.compare_many`` (paired significance between systems) load
numpy on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .core.lazy import lazy_exports
from .modules.loading import list_modules, load, release
from .version import __version__

if TYPE_CHECKING:
    from .integrations.combine import combine
    from .integrations.for_trainer import for_trainer
    from .integrations.reward import reward
    from .significance import compare, compare_many


_LAZY = {
    "compare": "significance",
    "compare_many": "significance",
    "register": "registration",
    "for_trainer": "integrations.for_trainer",
    "combine": "integrations.combine",
    "reward": "integrations.reward",
}
"""Public functions imported from their submodule on first use (keeps ``import nlgmetrics`` light)."""

__getattr__ = lazy_exports(__name__, _LAZY)


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
