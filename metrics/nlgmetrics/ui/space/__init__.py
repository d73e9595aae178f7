"""The project's Space: one Gradio app for every module, built from the modules' declarations.

One tab per family (``ModuleSpec.family``), each with three modes: *Score one example* (:mod:`.single`:
the input fields of the chosen config, e.g. UniEval's task, the registered configs, the compute()
options, a token heat map from the module's details renderer), *Batch* (:mod:`.batch`: a CSV or JSONL
upload scored into a table, a distribution plot and downloadable CSV/JSONL) and *Compare A/B*
(:mod:`.compare`: two predictions, or two system files, scored by every selected module; the tables
and statistics come from the Gradio-free :mod:`.ab_results`). The endpoint ``/score``
(``api_name="score"``) takes a module, a config, JSON records and JSON options and returns the
compute() result.

The pieces: :mod:`.app` (build, launch, the API), :mod:`.pool` (models shared by every user, the
checks every request passes, errors), :mod:`.options` (the controls the modes share) and
:mod:`.context` (what a family's modes share, one frozen object).

Nothing here names a module or a family: a new entry in ``nlgmetrics.modules.SPECS`` appears
with its own tab. Models load on first use, once per process, shared by every user; each loaded
model scores at most ``Limits.model_concurrency`` requests at a time.

>>> from nlgmetrics.modules import SPECS
>>> family_title([SPECS["ctc_consistency"], SPECS["ctc_relevance"]])
'CTC'
>>> parse_option_controls(SPECS["infolm"], {"temperature": "0.5", "idf": "false", "measure": ""})
{'temperature': 0.5, 'idf': False}
"""

from __future__ import annotations

from ...records import json_safe as _json_safe  # the name the Space's tests compare results with
from ..limits import check_option_sizes
from .app import banner, build_space, family_title, launch, ordered_fields
from .context import FamilyContext
from .options import config_choices, config_inputs, option_components, parse_option_controls, ui_options
from .pool import DEFAULT, ModelPool, SpaceError, resolve_config, score_records

__all__ = [
    "DEFAULT",
    "FamilyContext",
    "ModelPool",
    "SpaceError",
    "_json_safe",
    "ordered_fields",
    "banner",
    "build_space",
    "check_option_sizes",
    "config_choices",
    "config_inputs",
    "family_title",
    "launch",
    "option_components",
    "parse_option_controls",
    "resolve_config",
    "score_records",
    "ui_options",
]
