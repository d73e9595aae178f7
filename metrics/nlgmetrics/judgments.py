"""Readers for public human-judgment sets, as records for :func:`nlgmetrics.meta_eval.meta_evaluate`.

Each reader takes the path of the set's file as distributed (or a folder holding it) and returns
one record per judged output::

    {"doc_id": ..., "system_id": ..., "predictions": "...", "sources": "...", ...,
     "scores": {dimension: human score}}

The text fields carry the compute() field names, one value each (``references`` a list), so the
records can be scored by any module (``nlgmetrics score``) and then meta-evaluated with
``human="scores"``.

- :func:`read_summeval`: ``summeval.jsonl`` (100 documents × 16 systems): coherence, consistency,
  fluency, relevance and overall (their mean).
- :func:`read_usr`: USR's ``tc_usr_data.json`` (Topical-Chat) or ``pc_usr_data.json`` (PersonaChat):
  understandability, naturalness, coherence, engagingness, groundedness, overall.
- :func:`read_sfres`: ``sfres.json`` (1,181 utterances): naturalness, informativeness, overall.
- :func:`read_yelp`: ``ctc_yelp.json`` (12 systems × 244 outputs): preservation.

A (``doc_id``, ``system_id``) pair names one record: :func:`~nlgmetrics.meta_eval.meta_evaluate`
refuses a repeated one.

``READERS`` maps the short names (``summeval``, ``topical_chat``, ``persona_chat``, ``sfres``,
``yelp``) to the reader and the file name it looks for inside a folder.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

Record = dict[str, Any]

SUMMEVAL_DIMENSIONS = ("coherence", "consistency", "fluency", "relevance")
USR_DIMENSIONS = {
    "Understandable": "understandability",
    "Natural": "naturalness",
    "Maintains Context": "coherence",
    "Engaging": "engagingness",
    "Uses Knowledge": "groundedness",
    "Overall": "overall",
}
"""USR's annotation names → the dimension names UniEval (and CTC's engagingness/groundedness) use."""


def _file(path: str | Path, names: tuple[str, ...]) -> Path:
    """``path`` itself, or the first of ``names`` inside the folder ``path`` (also one level down)."""
    path = Path(path)
    if path.is_dir():
        for name in names:
            found = [path / name, *sorted(path.glob(f"*/{name}"))]
            for candidate in found:
                if candidate.is_file():
                    return candidate
        raise ValueError(f"no {' or '.join(names)} in the folder {str(path)!r}")
    if not path.is_file():
        raise ValueError(f"judgment file {str(path)!r} does not exist")
    return path


def _load(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{path} is not a JSON file ({err.msg} at line {err.lineno})") from None


def _mean(values: Any) -> float:
    """The mean of an annotators' list (a single rating stays as it is)."""
    return sum(values) / len(values) if isinstance(values, list) else float(values)


def read_summeval(path: str | Path) -> list[Record]:
    """SummEval (Fabbri et al. 2021): expert scores (1-5, mean of 3 experts) of 16 systems' summaries of
    100 CNN/DM articles, 11 references each (``references[0]`` is the original highlight).

    ``doc_id`` is the article's line index, ``system_id`` the ``Mxx`` key; ``overall`` is the mean of
    the four dimensions, as in UniEval's SummEval evaluation.
    """
    file = _file(path, ("summeval.jsonl",))
    records = []
    with file.open(encoding="utf-8") as lines:
        for doc_id, line in enumerate(lines):
            row = json.loads(line)
            for system, summary in row["sys_summs"].items():
                scores = {d: float(summary["scores"][d]) for d in SUMMEVAL_DIMENSIONS}
                scores["overall"] = sum(scores.values()) / len(scores)
                records.append(
                    {
                        "doc_id": doc_id,
                        "system_id": system,
                        "predictions": summary["sys_summ"],
                        "sources": row["src"],
                        "references": list(row["ref_summs"]),
                        "scores": scores,
                    }
                )
    return records


def read_usr(path: str | Path) -> list[Record]:
    """USR's annotations (Mehri & Eskenazi 2020) of Topical-Chat (``tc_usr_data.json``, 60 contexts × 6
    responses) or PersonaChat (``pc_usr_data.json``, 60 × 5); each score the mean of 3 annotators.

    ``doc_id`` is the context's index, ``system_id`` the response's model, ``sources`` the dialog
    history and ``contexts`` the fact (persona), both unchanged; the dimensions are renamed as in
    :data:`USR_DIMENSIONS`.
    """
    file = _file(path, ("tc_usr_data.json", "pc_usr_data.json"))
    records = []
    for doc_id, dialog in enumerate(_load(file)):
        for response in dialog["responses"]:
            records.append(
                {
                    "doc_id": doc_id,
                    "system_id": response["model"],
                    "predictions": response["response"],
                    "sources": dialog["context"],
                    "contexts": dialog["fact"],
                    "scores": {name: _mean(response[key]) for key, name in USR_DIMENSIONS.items()},
                }
            )
    return records


def read_sfres(path: str | Path) -> list[Record]:
    """SFRES (Wen et al. 2015; ratings from Novikova et al. 2017): 1,181 restaurant utterances from
    dialogue acts, rated 1-6 for naturalness, informativeness and overall. Every utterance is its own
    document and the file names no system, so only the sample protocol applies."""
    file = _file(path, ("sfres.json",))
    return [
        {
            "doc_id": row["doc_id"],
            "predictions": row["system_output"],
            "sources": row["source"],
            "references": [row["reference"]],
            "scores": {k: float(v) for k, v in row["scores"].items()},
        }
        for row in _load(file)
    ]


def read_yelp(path: str | Path) -> list[Record]:
    """Yelp sentiment transfer (Mir et al. 2019): content preservation (1-5, mean of 3) of 12 systems'
    outputs of the same 244 inputs, in the same order; ``doc_id`` is the input's position (0-243) in
    its system's list: one sentence (``wow .``) is two inputs, each judged, so the text alone would
    give one document two outputs of each system."""
    file = _file(path, ("ctc_yelp.json",))
    seen: dict[str, int] = {}
    records = []
    for row in _load(file):
        position = seen.get(row["model"], 0)
        seen[row["model"]] = position + 1
        records.append(
            {
                "doc_id": position,
                "system_id": row["model"],
                "predictions": row["output_sent"],
                "sources": row["input_sent"],
                "scores": {"preservation": float(row["preservation"])},
            }
        )
    return records


READERS: dict[str, tuple[Callable[[str | Path], list[Record]], str]] = {
    "summeval": (read_summeval, "summeval.jsonl"),
    "topical_chat": (read_usr, "tc_usr_data.json"),
    "persona_chat": (read_usr, "pc_usr_data.json"),
    "sfres": (read_sfres, "sfres.json"),
    "yelp": (read_yelp, "ctc_yelp.json"),
}


def read(name: str, path: str | Path) -> list[Record]:
    """The records of the set ``name`` (a key of :data:`READERS`) from its file, or a folder holding it."""
    if name not in READERS:
        raise ValueError(f"unknown judgment set {name!r}; choose one of {', '.join(READERS)}")
    reader, file_name = READERS[name]
    path = Path(path)
    return reader(_file(path, (file_name,)) if path.is_dir() else path)
