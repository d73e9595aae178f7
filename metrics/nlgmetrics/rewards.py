"""``nlgmetrics.rewards``: the dotted path TRL's command line reads.

``trl grpo --reward_funcs nlgmetrics.rewards.ctc_consistency`` imports the module ``nlgmetrics.rewards`` and
reads its attribute, so a module must answer to that name; the ready rewards live in
:mod:`nlgmetrics.integrations.rewards`, and this file makes that very module answer to this name too
(``nlgmetrics.rewards is nlgmetrics.integrations.rewards``).
"""

import sys

from .integrations import rewards

sys.modules[__name__] = rewards
