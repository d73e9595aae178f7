"""UniEval's registered weights: the authors' three T5 evaluators on the Hub (not pinned yet).

>>> [w.repo_id for w in WEIGHTS.values()], sorted(AWAITING_PIN)
(['MingZhong/unieval-sum', 'MingZhong/unieval-dialog', 'MingZhong/unieval-fact'], ['unieval-dialog',
'unieval-fact', 'unieval-sum'])
"""

from __future__ import annotations

from ..core.registry import WeightSpec

WEIGHTS: dict[str, WeightSpec] = {
    name: WeightSpec(
        name=name,
        repo_id=f"MingZhong/{name}",
        revision="main",
        architecture="T5ForConditionalGeneration",
        num_layers=24,  # encoder and decoder each
        test_layers=2,
        source=f"Zhong et al. 2022 (UniEval), https://github.com/maszhongming/UniEval; {what}",
        license="mit",
        roles=("seq2seq",),
        families=("unieval",),
        awaiting_pin=True,
        notes="T5-v1.1-large Boolean-QA evaluator (about 780M parameters). NOT YET PINNED: the commit id "
        "of the Hub repo could not be looked up from this project's machines; it must be verified on "
        "the Hub and written here (a 40-hex commit) before release. Until then it loads 'main'.",
    )
    for name, what in (
        ("unieval-sum", "summarization dimensions, also reused for data2text"),
        ("unieval-dialog", "dialogue dimensions"),
        ("unieval-fact", "factual consistency"),
    )
}
"""UniEval's entries of the registry (:data:`nlgmetrics.core.registry.WEIGHTS` gathers every family's)."""

AWAITING_PIN = frozenset(name for name, spec in WEIGHTS.items() if spec.awaiting_pin)
"""The evaluators whose Hub commit id could not be looked up when they were registered (no network): they
load ``main`` (``pinned`` is False) until someone verifies the commit on the Hub and writes it here."""
