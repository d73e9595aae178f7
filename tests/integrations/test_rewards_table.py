"""The ready rewards come from the family table (issue 41 §1, §4): a family added to ``FAMILIES`` has its
``nlgmetrics.rewards.<module>`` with no other edit."""

from __future__ import annotations

import nlgmetrics.rewards
from nlgmetrics.integrations import rewards
from tests.modules.test_toy_family import toy_family  # noqa: F401 - the fixture: the docs' toy family


def test_the_dotted_path_hands_on_the_integrations_rewards():
    assert nlgmetrics.rewards.usr is rewards.usr and nlgmetrics.rewards.ready is rewards.ready
    assert "usr" in dir(nlgmetrics.rewards) and nlgmetrics.rewards.__all__ == rewards.__all__


def test_a_family_added_to_the_table_gets_its_ready_reward(toy_family):  # noqa: F811 - the fixture
    try:
        reward = getattr(nlgmetrics.rewards, toy_family)
        assert toy_family in dir(nlgmetrics.rewards)
        assert (reward.__name__, reward.config, reward.fields) == (
            toy_family,
            None,
            {"references": "reference"},
        )
        assert reward(completions=["the cat sat", "dog"], reference=[["a cat sat"], ["dog"]]) == [2 / 3, 1.0]
    finally:
        vars(rewards).pop(toy_family, None)  # the made reward goes with the family
