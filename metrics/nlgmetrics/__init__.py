"""nlgmetrics: model-based NLG evaluation metrics on the Hugging Face stack.

>>> import nlgmetrics
>>> nlgmetrics.list_modules()
['alignscore', 'ctc_consistency', 'ctc_engagingness', 'ctc_groundedness', 'ctc_preservation', 'ctc_relevance', 'infolm', 'unieval', 'usr']

Importing the package loads no model library (torch, transformers, evaluate load on first use);
``nlgmetrics.compare`` and ``nlgmetrics.compare_many`` (paired significance between systems) load
numpy on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .modules.loading import list_modules, load, release
from .version import __version__

if TYPE_CHECKING:
    from .combined import combine
    from .reward_function import reward
    from .significance import compare, compare_many
    from .trainer import for_trainer


_LAZY = {
    "compare": "significance",
    "compare_many": "significance",
    "register": "registration",
    "for_trainer": "trainer",
    "combine": "combined",
    "reward": "reward_function",  # its own name: a submodule called reward would replace this function
}
"""Public functions imported from their submodule on first use (keeps ``import nlgmetrics`` light)."""


def __getattr__(name: str) -> Any:
    if name in _LAZY:
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
