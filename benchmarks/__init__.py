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

RESULTS = Path(__file__).parent / "results"
"""Where every benchmark writes its ``<name>.json`` and ``<name>.md`` (``python -m benchmarks.docs`` reads
them)."""


def write_results(stem: str, report: object, text: str, folder: Path = RESULTS) -> None:
    """``<folder>/<stem>.json`` (``report``) and ``<folder>/<stem>.md`` (``text``), each written whole: a run
    stopped midway leaves the earlier results, never a truncated file."""
    import json

    # imported here: benchmarks.docs and benchmarks.durations import this package and only the standard
    # library
    from nlgmetrics.core.files import write_text_whole

    folder.mkdir(parents=True, exist_ok=True)
    write_text_whole(folder / f"{stem}.json", json.dumps(report, indent=2) + "\n")
    write_text_whole(folder / f"{stem}.md", text)
