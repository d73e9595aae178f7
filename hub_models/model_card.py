"""Model cards of the converted checkpoints (moved into the package: :mod:`nlgmetrics.convert.cards`)."""

from nlgmetrics.convert.cards import *  # noqa: F403
