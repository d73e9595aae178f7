"""Run Python snippets as pasted, each in a fresh namespace, and report each one's outcome as JSON.

    python -m tests.docs.snippet_runner SNIPPETS.json REPORT.json

SNIPPETS.json is a list of {"id", "code"}; REPORT.json gets {id: null | "traceback"}. The working
folder is the caller's (a temporary folder holding the files the snippets read).
"""

from __future__ import annotations

import json
import sys
import traceback


def run(snippets: list[dict]) -> dict[str, str | None]:
    """Execute every snippet in its own namespace, as ``python`` would run it pasted into a file."""
    outcomes: dict[str, str | None] = {}
    for snippet in snippets:
        try:
            exec(compile(snippet["code"], snippet["id"], "exec"), {"__name__": "__main__"})
        except BaseException:  # noqa: BLE001 - the report says what failed
            outcomes[snippet["id"]] = traceback.format_exc(limit=-4)
        else:
            outcomes[snippet["id"]] = None
    return outcomes


if __name__ == "__main__":
    source, report = sys.argv[1:3]
    with open(source, encoding="utf-8") as handle:
        snippets = json.load(handle)
    outcomes = run(snippets)
    with open(report, "w", encoding="utf-8") as handle:
        json.dump(outcomes, handle)
