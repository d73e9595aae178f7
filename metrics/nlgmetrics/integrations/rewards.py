"""Ready rewards, one per module of the family table, at dotted import paths for TRL's command line:

    trl grpo --model_name_or_path ... --dataset_name ... --reward_funcs nlgmetrics.rewards.ctc_consistency

The modules are read from :data:`~nlgmetrics.modules.SPECS` (the family table's), never listed here: a
family added to :data:`~nlgmetrics.modules.FAMILIES` has its ``nlgmetrics.rewards.<module>`` with no other
edit. Users read them at ``nlgmetrics.rewards`` (``nlgmetrics/rewards.py`` hands this module's names on).

Each is :func:`nlgmetrics.reward <nlgmetrics.integrations.reward.reward>` of its module's default config,
reading the fields it needs from the dataset columns ``source``, ``context`` and ``reference`` (the singular
of the compute() fields). Importing this module loads no model (nor torch), and makes no reward: each is made
when first read (TRL reads its ``--reward_funcs`` at start-up), checked then as :func:`nlgmetrics.reward
<nlgmetrics.integrations.reward.reward>` checks it (weights neither cached nor downloadable say so in one
line), and loads its module at its first call, once per process, on that process's device.

>>> import nlgmetrics.rewards
>>> nlgmetrics.rewards.COLUMNS["contexts"]  # nlgmetrics.rewards.usr reads the columns source and context
'context'
>>> nlgmetrics.rewards.ready("bleurt")
Traceback (most recent call last):
...
ValueError: nlgmetrics.rewards has no module 'bleurt'; its modules: ctc_consistency, ...
"""

from __future__ import annotations

import threading

from ..modules import SPECS, module_names
from .reward import Reward

COLUMNS = {"sources": "source", "contexts": "context", "references": "reference"}
"""compute() field → the dataset column a ready reward reads it from."""
_MAKING = threading.Lock()


def ready(name: str) -> Reward:
    """The ready reward of module ``name``: its default config, its fields from :data:`COLUMNS`."""
    if name not in SPECS:
        raise ValueError(
            f"nlgmetrics.rewards has no module {name!r}; its modules: {', '.join(module_names())}"
        )
    inputs = SPECS[name].inputs_for(None)
    return Reward(name, **{field: column for field, column in COLUMNS.items() if field in inputs})


def __getattr__(name: str) -> Reward:
    """``nlgmetrics.rewards.<module>``: the module's ready reward, made (and checked) at its first read."""
    if name not in SPECS:
        raise AttributeError(f"module 'nlgmetrics.rewards' has no attribute {name!r}")
    with _MAKING:  # one reward per module, whichever thread reads it first
        made = globals().get(name) or ready(name)
        globals()[name] = made
    return made


def __dir__() -> list[str]:
    return sorted({*globals(), *SPECS})


__all__ = [*sorted(SPECS), "COLUMNS", "ready"]
