"""USR's options, declared once: the module, the command line, the Space and :class:`USRScorer` read them.

>>> [option.name for option in LOAD_OPTIONS], COMPUTE_OPTIONS
(['mlm', 'dr_c', 'dr_f'], ())
"""

from __future__ import annotations

from ..core.options import Option, name_option


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
