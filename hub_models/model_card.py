"""Model cards of the converted checkpoints (moved into the package: each family's converter writes its own,
:func:`nlgmetrics.ctc.convert.model_card` and :func:`nlgmetrics.usr.convert.usr_model_card`)."""

from nlgmetrics.ctc.convert import model_card  # noqa: F401
from nlgmetrics.usr.convert import usr_model_card  # noqa: F401
