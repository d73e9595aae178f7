"""``python -m nlgmetrics ...``: the command line (see :mod:`nlgmetrics.cli`)."""

import sys

from .cli import main

sys.exit(main())
