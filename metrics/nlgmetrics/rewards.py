"""Ready rewards, one per module, at dotted import paths for TRL's command line:

    trl grpo --model_name_or_path ... --dataset_name ... --reward_funcs nlgmetrics.rewards.ctc_consistency

Each is :func:`nlgmetrics.reward <nlgmetrics.reward_function.reward>` of its module's default config, reading the
fields it needs from the dataset columns ``source``, ``context`` and ``reference`` (the singular of the
compute() fields). Importing this module loads no model (nor torch): each reward loads its module at its
first call, once per process, on that process's device.

>>> import nlgmetrics.rewards
>>> nlgmetrics.rewards.ctc_consistency
Reward('ctc_consistency': ctc_consistency default, sources='source')
>>> nlgmetrics.rewards.unieval.fields
{'sources': 'source', 'references': 'reference'}
"""

from __future__ import annotations

from .modules import SPECS
from .reward_function import Reward

COLUMNS = {"sources": "source", "contexts": "context", "references": "reference"}
"""compute() field → the dataset column a ready reward reads it from."""


def ready(name: str) -> Reward:
    """The ready reward of module ``name``: its default config, its fields from :data:`COLUMNS`."""
    inputs = SPECS[name].inputs_for(None)
    return Reward(name, **{field: column for field, column in COLUMNS.items() if field in inputs})


ctc_consistency = ready("ctc_consistency")
ctc_relevance = ready("ctc_relevance")
ctc_preservation = ready("ctc_preservation")
ctc_engagingness = ready("ctc_engagingness")
ctc_groundedness = ready("ctc_groundedness")
unieval = ready("unieval")
infolm = ready("infolm")
usr = ready("usr")

__all__ = [*sorted(SPECS), "COLUMNS", "ready"]
