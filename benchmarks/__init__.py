"""Speed and meta-evaluation runs (not part of the test suite).

The references they compare with (``ctc_score``) read NLTK's stopword corpus when imported: unless
``$NLTK_DATA`` is set, the copy in ``../shared/nltk_data`` (beside the checkout) is used when present.
"""

import os
from pathlib import Path

_SHARED_NLTK = (
    Path(os.environ.get("NLGMETRICS_SHARED", Path(__file__).resolve().parents[2] / "shared")) / "nltk_data"
)
if "NLTK_DATA" not in os.environ and _SHARED_NLTK.is_dir():
    os.environ["NLTK_DATA"] = str(_SHARED_NLTK)
