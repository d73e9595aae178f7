"""USR's options and defaults, declared once: the module, the command line, the Space and
:class:`USRScorer` read them (plain data, so that the scorer and the package import them without a circle).

>>> [option.name for option in LOAD_OPTIONS], COMPUTE_OPTIONS
(['mlm', 'dr_c', 'dr_f'], ())
"""

from __future__ import annotations

from ..core.options import Option, name_option

DEFAULT_CONFIG = "topical_chat"
"""The released checkpoints (trained on Topical-Chat); the PersonaChat ones were never released."""
SUB_METRICS = ("mlm", "dr_c", "dr_f")
"""USR's three models (and load options naming a replacement for each)."""


def _weight_option(name: str, what: str) -> Option:
    return name_option(
        name, f"a Hub repo id or folder replacing the registered {what} (a converted USR model)"
    )


LOAD_OPTIONS = (
    _weight_option("mlm", "USR-MLM masked LM"),
    _weight_option("dr_c", "USR-DR-c classifier"),
    _weight_option("dr_f", "USR-DR-f classifier"),
)
COMPUTE_OPTIONS: tuple[Option, ...] = ()
"""USR has only the common compute() options (show_progress, return_details)."""
