"""Write the eight metric cards: a wrapper kept for old habits; see :mod:`nlgmetrics.cards`."""

import sys

from nlgmetrics.cards import main

sys.exit(main())
