"""The nlgmetrics Space: every metric of the package in one Gradio app.

Run it with ``python space/app.py`` or ``gradio space/app.py`` (reloads on edits). Host and port
come from GRADIO_SERVER_NAME and GRADIO_SERVER_PORT (default 127.0.0.1:7860); limits from the
NLGMETRICS_SPACE_* variables (see space/README.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import nlgmetrics  # noqa: F401
except ImportError:  # a checkout without the package installed
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "metrics"))

from nlgmetrics.ui.limits import Limits
from nlgmetrics.ui.space import build_space, launch

try:
    limits = Limits.from_env()
except ValueError as err:  # a bad NLGMETRICS_SPACE_* setting: one line, not a traceback
    sys.exit(f"nlgmetrics space: {err}")
demo = build_space(limits)

if __name__ == "__main__":
    launch(demo)
