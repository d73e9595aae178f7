"""``nlgmetrics.rewards``: the dotted path TRL's command line reads, kept for it.

``trl grpo --reward_funcs nlgmetrics.rewards.ctc_consistency`` imports the module ``nlgmetrics.rewards`` and
reads its attribute, so a module must stand at that name; the ready rewards live in
:mod:`nlgmetrics.integrations.rewards`, and this one import hands them on (its ``__getattr__`` makes each
reward there, once: ``nlgmetrics.rewards.usr is nlgmetrics.integrations.rewards.usr``).
"""

from .integrations.rewards import COLUMNS, __all__, __dir__, __getattr__, ready  # noqa: F401 - handed on
