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
refuses a repeated one, and warns when a system lacks a document the others have. Where ``doc_id`` is a
row's position (SummEval's and USR's files: an article or dialog a row; Yelp: an output's place in its
model's rows), a document on two rows, or models whose inputs differ at a position, are refused naming the
rows.

:func:`read_judgments` reads any of these files as it is distributed, its format (:data:`FORMATS`:
``records``, ``summeval``, ``usr``, ``ctc_usr`` for CTC's flattened copies of USR's files, ``yelp``)
detected from its first row or named; a row that does not fit is named (rows counted from 1) with
the formats read. It is what ``nlgmetrics meta-eval`` reads files with.

For claim checkers (``nlgmetrics meta-eval --format llm-aggrefact|ragtruth``):
:func:`read_llm_aggrefact` reads LLM-AggreFact's labelled claims (a file, or the gated Hub dataset by
name) and :func:`read_ragtruth` RAGTruth's test responses with their annotated spans (its ``dataset/``
folder).

``READERS`` maps the short names (``summeval``, ``topical_chat``, ``persona_chat``, ``sfres``,
``yelp``) to the reader and the file name it looks for inside a folder.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from numbers import Real
from pathlib import Path
from typing import Any

from .records import read_numbered_records

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
CTC_USR_DIMENSIONS = {
    "understandable": "understandability",
    "natural": "naturalness",
    "maintains_context": "coherence",
    "engaging": "engagingness",
    "uses_knowledge": "groundedness",
    "overall": "overall",
}
"""The same qualities as CTC's flattened copy names them."""


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


def _load(path: Path) -> list:
    """The JSON list a file holds."""
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise ValueError(f"{path} is not a JSON file ({err.msg} at line {err.lineno})") from None
    if not isinstance(rows, list):
        raise ValueError(f"{path} must hold a JSON list (one object per row), got {type(rows).__name__}")
    return rows


def _field(row: Any, key: str, where: str, kind: type | tuple[type, ...]) -> Any:
    """``row[key]``, which must be of ``kind``; else a ValueError naming ``where`` (``row N ...``)."""
    if not isinstance(row, Mapping):
        raise ValueError(f"{where} must be an object, got {type(row).__name__}")
    if key not in row:
        raise ValueError(f"{where} has no field {key!r} (its fields: {', '.join(map(str, row)) or 'none'})")
    value = row[key]
    if isinstance(value, bool) or not isinstance(value, kind):
        kinds = kind if isinstance(kind, tuple) else (kind,)
        said = {"str": "text", "Mapping": "an object", "list": "a list"}
        names = " or ".join(dict.fromkeys(said.get(k.__name__, "a number") for k in kinds))
        raise ValueError(f"{where}[{key!r}] must be {names}, got {type(value).__name__}")
    return value


def _number(row: Any, key: str, where: str) -> float:
    """``row[key]`` as a float (a JSON number; null is NaN)."""
    if isinstance(row, Mapping) and row.get(key, 0) is None:
        return float("nan")
    return float(_field(row, key, where, Real))


def _mean(values: Any, where: str) -> float:
    """The mean of an annotators' list (a single rating stays as it is). A missing rating, null or NaN
    alike, makes the mean NaN: the item is left out of every protocol, as an item whose score is null."""
    if not isinstance(values, list):
        return float(values)
    if not values or any(v is not None and (isinstance(v, bool) or not isinstance(v, Real)) for v in values):
        raise ValueError(
            f"{where} must be a non-empty list of numbers (one per annotator; null or NaN for a missing "
            f"rating), got {values!r}"
        )
    ratings = [float("nan") if v is None else float(v) for v in values]
    return sum(ratings) / len(ratings)


class Inconsistent(ValueError):
    """Rows that fit their format but not each other (a document repeated, positions shifted)."""


Numbered = tuple[list[Record], list[int]]
"""Records, and the file row (from 1) each came from: what messages name."""


def _numbers(rows: list, numbers: list[int] | None) -> list[int]:
    return list(range(1, len(rows) + 1)) if numbers is None else numbers


def _repeated_document(keys: list[Any], numbers: list[int], what: str) -> None:
    """Rows whose ``doc_id`` is their position must each hold another document: a repeated one would
    be two documents (another summary protocol and bootstrap, with no word)."""
    first: dict[Any, int] = {}
    for key, number in zip(keys, numbers):
        if key in first:
            raise Inconsistent(
                f"row {first[key]} and row {number} hold the same {what}: doc_id is a row's position, so "
                "each document must appear once (drop the repeat)"
            )
        first[key] = number


def read_summeval(path: str | Path) -> list[Record]:
    """SummEval (Fabbri et al. 2021): expert scores (1-5, mean of 3 experts) of 16 systems' summaries of
    100 CNN/DM articles, 11 references each (``references[0]`` is the original highlight).

    ``doc_id`` is the article's row index, ``system_id`` the ``Mxx`` key; ``overall`` is the mean of
    the four dimensions, as in UniEval's SummEval evaluation. Other numbers in a summary's ``scores``
    (a metric's own, as in CTC's released ``*_ctc.jsonl`` files) become fields of the record, named as
    there, so they can be meta-evaluated (``predicted="CTC(D)(CNN/DM)"``). An article on two rows is a
    ValueError naming both.
    """
    return _summeval(*read_numbered_records(_file(path, ("summeval.jsonl",))))[0]


def summeval_records(rows: list[dict]) -> list[Record]:
    """SummEval's rows (one per article: ``src``, ``ref_summs``, ``sys_summs``) as records."""
    return _summeval(rows)[0]


def _summeval(rows: list[dict], numbers: list[int] | None = None) -> Numbered:
    records, origins, numbers = [], [], _numbers(rows, numbers)
    for doc_id, (row, number) in enumerate(zip(rows, numbers)):
        where = f"row {number}"
        systems = _field(row, "sys_summs", where, Mapping)
        for system, summary in systems.items():
            judged = f"{where} sys_summs[{system!r}]"
            given = _field(summary, "scores", judged, Mapping)
            scores = {d: _number(given, d, f"{judged}['scores']") for d in SUMMEVAL_DIMENSIONS}
            others = {k: _number(given, k, f"{judged}['scores']") for k in given if k not in scores}
            scores["overall"] = sum(scores.values()) / len(scores)
            records.append(
                {
                    "doc_id": doc_id,
                    "system_id": system,
                    "predictions": _field(summary, "sys_summ", judged, str),
                    "sources": _field(row, "src", where, str),
                    "references": list(_field(row, "ref_summs", where, list)),
                    "scores": scores,
                    **others,
                }
            )
            origins.append(number)
    sources = [_field(row, "src", f"row {number}", str) for row, number in zip(rows, numbers)]
    _repeated_document(sources, numbers, "article (src)")
    return records, origins


def read_usr(path: str | Path) -> list[Record]:
    """USR's annotations (Mehri & Eskenazi 2020) of Topical-Chat (``tc_usr_data.json``, 60 contexts × 6
    responses) or PersonaChat (``pc_usr_data.json``, 60 × 5); each score the mean of 3 annotators (a
    missing rating, null or NaN, makes it NaN: the item is left out).

    ``doc_id`` is the context's index, ``system_id`` the response's model, ``sources`` the dialog
    history and ``contexts`` the fact (persona), both unchanged; the dimensions are renamed as in
    :data:`USR_DIMENSIONS`. A dialog (context and fact) on two rows is a ValueError naming both.
    """
    return usr_records(_load(_file(path, ("tc_usr_data.json", "pc_usr_data.json"))))


def usr_records(rows: list[dict]) -> list[Record]:
    """USR's contexts (``context``, ``fact``, ``responses``) as one record per response."""
    return _usr(rows)[0]


def _usr(rows: list[dict], numbers: list[int] | None = None) -> Numbered:
    records, origins, numbers = [], [], _numbers(rows, numbers)
    for doc_id, (dialog, number) in enumerate(zip(rows, numbers)):
        where = f"row {number}"
        for k, response in enumerate(_field(dialog, "responses", where, list)):
            judged = f"{where} responses[{k}]"
            records.append(
                {
                    "doc_id": doc_id,
                    "system_id": _field(response, "model", judged, str),
                    "predictions": _field(response, "response", judged, str),
                    "sources": _field(dialog, "context", where, str),
                    "contexts": _field(dialog, "fact", where, str),
                    "scores": {
                        name: _mean(_field(response, key, judged, (list, int, float)), f"{judged}[{key!r}]")
                        for key, name in USR_DIMENSIONS.items()
                    },
                }
            )
            origins.append(number)
    keys = [
        (_field(dialog, "context", f"row {n}", str), _field(dialog, "fact", f"row {n}", str))
        for dialog, n in zip(rows, numbers)
    ]
    _repeated_document(keys, numbers, "dialog (context and fact)")
    return records, origins


def ctc_usr_records(rows: list[dict]) -> list[Record]:
    """CTC's flattened copy of USR's judgments (``topical_chat.json``/``persona_chat.json``: one row per
    response, the annotators already averaged) as :func:`read_usr`'s records: ``doc_id`` numbers the
    dialog histories (with their fact) in order of first appearance."""
    return _ctc_usr(rows)[0]


def _ctc_usr(rows: list[dict], numbers: list[int] | None = None) -> Numbered:
    documents: dict[tuple[str, str], int] = {}
    records, numbers = [], _numbers(rows, numbers)
    for row, number in zip(rows, numbers):
        where = f"row {number}"
        history, fact = _field(row, "dialog_history", where, str), _field(row, "fact", where, str)
        records.append(
            {
                "doc_id": documents.setdefault((history, fact), len(documents)),
                "system_id": _field(row, "model", where, str),
                "predictions": _field(row, "response", where, str),
                "sources": history,
                "contexts": fact,
                "scores": {name: _number(row, key, where) for key, name in CTC_USR_DIMENSIONS.items()},
            }
        )
    return records, numbers


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
    give one document two outputs of each system. A row missing or repeated would shift the positions
    of the rest: models whose inputs differ at a position, or whose row counts differ, are a ValueError
    naming the rows."""
    return yelp_records(_load(_file(path, ("ctc_yelp.json",))))


def yelp_records(rows: list[dict]) -> list[Record]:
    """CTC's Yelp rows (``model``, ``input_sent``, ``output_sent``, ``preservation``) as records."""
    return _yelp(rows)[0]


def _yelp(rows: list[dict], numbers: list[int] | None = None) -> Numbered:
    seen: dict[str, list[int]] = {}  # each model's rows
    first: list[tuple[str, int, str]] = []  # each position's model, row and input, from the first model
    records, numbers = [], _numbers(rows, numbers)
    for row, number in zip(rows, numbers):
        where = f"row {number}"
        model, source = _field(row, "model", where, str), _field(row, "input_sent", where, str)
        position = len(seen.setdefault(model, []))
        seen[model].append(number)
        if position == len(first):
            first.append((model, number, source))
        elif first[position][2] != source:
            other, other_number, other_source = first[position]
            raise Inconsistent(
                f"row {number} (output {position + 1} of model {model!r}) is of the input {source!r}, but "
                f"row {other_number} (output {position + 1} of {other!r}) of {other_source!r}: doc_id is an "
                "output's position in its model's rows, so every model must list the same inputs in the "
                "same order (a row missing or repeated?)"
            )
        records.append(
            {
                "doc_id": position,
                "system_id": model,
                "predictions": _field(row, "output_sent", where, str),
                "sources": source,
                "scores": {"preservation": _number(row, "preservation", where)},
            }
        )
    counts = {model: len(rows_of) for model, rows_of in seen.items()}
    if len(set(counts.values())) > 1:
        short = min(counts, key=counts.get)
        longest = max(counts, key=counts.get)
        raise Inconsistent(
            f"model {short!r} has {counts[short]} rows (its last: row {seen[short][-1]}) but {longest!r} has "
            f"{counts[longest]}: every model must list the same inputs (a row missing?)"
        )
    return records, numbers


READERS: dict[str, tuple[Callable[[str | Path], list[Record]], str]] = {
    "summeval": (read_summeval, "summeval.jsonl"),
    "topical_chat": (read_usr, "tc_usr_data.json"),
    "persona_chat": (read_usr, "pc_usr_data.json"),
    "sfres": (read_sfres, "sfres.json"),
    "yelp": (read_yelp, "ctc_yelp.json"),
}


@dataclass(frozen=True)
class Format:
    """A judgment file's layout: the fields each of its rows has, and how its rows become records."""

    files: str
    """Which files have it, for messages."""
    fields: tuple[str, ...]
    """The fields that say a row is in this format (none: the records format, read as it is)."""
    records: Callable[[list[dict], list[int]], Numbered] | None
    """The rows (and their numbers in the file) as records, and each record's row; None: as they are."""


FORMATS: dict[str, Format] = {
    "records": Format("doc_id, system_id and the scores; e.g. UniEval's *_result.json", (), None),
    "summeval": Format("SummEval's summeval.jsonl", ("src", "sys_summs"), _summeval),
    "usr": Format("USR's tc_usr_data.json, pc_usr_data.json", ("context", "fact", "responses"), _usr),
    "ctc_usr": Format(
        "CTC's topical_chat.json, persona_chat.json",
        ("model", "response", "dialog_history", "fact"),
        _ctc_usr,
    ),
    "yelp": Format("CTC's yelp.json", ("model", "input_sent", "output_sent", "preservation"), _yelp),
}
"""The layouts :func:`read_judgments` reads, by the name ``format=`` (``meta-eval --format``) takes."""


def formats_read() -> str:
    """The formats :func:`read_judgments` reads, for messages: ``records (...), summeval (...), ...``."""
    return ", ".join(f"{name} ({layout.files})" for name, layout in FORMATS.items())


def detect(rows: list[dict]) -> str:
    """The format whose fields the first row has; ``"records"`` when none's (or there is no row)."""
    first = rows[0] if rows else {}
    return next(
        (
            name
            for name, layout in FORMATS.items()
            if layout.fields and all(f in first for f in layout.fields)
        ),
        "records",
    )


def read_judgments(path: str | Path, format: str | None = None) -> tuple[str, list[Record]]:
    """A file of judgments as ``(format, records)``: one of :data:`FORMATS`, detected from its first row
    unless ``format`` names it. The records format is returned as the file holds it; the others as
    their reader's records. A row that does not fit is a ValueError naming it (from 1) and the formats
    read; so are rows that repeat a document or shift the positions that name documents."""
    name, records, _ = read_judgment_rows(path, format)
    return name, records


def read_judgment_rows(path: str | Path, format: str | None = None) -> tuple[str, list[Record], list[int]]:
    """:func:`read_judgments`, and the file row (from 1: a JSON-lines file's line, a JSON list's item)
    each record came from, for messages about the records (``nlgmetrics meta-eval``'s)."""
    if format is not None and format not in FORMATS:
        raise ValueError(f"unknown judgment format {format!r}; choose one of {', '.join(FORMATS)}")
    rows, numbers = read_numbered_records(path)
    name = format or detect(rows)
    layout = FORMATS[name]
    if layout.records is None:
        return name, rows, numbers
    try:
        return (name, *layout.records(rows, numbers))
    except Inconsistent:
        raise
    except ValueError as err:
        how = "as asked" if format else "detected from row 1"
        raise ValueError(
            f"{err}; read as {name} ({layout.files}, {how}); formats read: {formats_read()}"
        ) from None


def read(name: str, path: str | Path) -> list[Record]:
    """The records of the set ``name`` (a key of :data:`READERS`) from its file, or a folder holding it."""
    if name not in READERS:
        raise ValueError(f"unknown judgment set {name!r}; choose one of {', '.join(READERS)}")
    reader, file_name = READERS[name]
    path = Path(path)
    return reader(_file(path, (file_name,)) if path.is_dir() else path)


# ---- claim checking: LLM-AggreFact's labelled claims, RAGTruth's annotated responses ------------------

LLM_AGGREFACT = "lytang/LLM-AggreFact"
"""LLM-AggreFact on the Hub (Tang et al. 2024): gated, CC-BY-ND-4.0; read with the user's token, never
shipped."""
AGGREFACT_SPLITS = ("dev", "test")
RAGTRUTH_TASKS = ("QA", "Summary", "Data2txt")


def _hub_name(source: str | Path) -> bool:
    """Whether ``source`` names a Hub dataset (``owner/name``, no such file or folder here)."""
    text = str(source)
    return not Path(text).exists() and re.fullmatch(r"[\w.-]+/[\w.-]+", text) is not None and "." not in text


def _read_parquet(path: Path) -> tuple[list[dict], list[int]]:
    """The rows of a Parquet file (pyarrow, which ``datasets`` depends on) and their numbers from 1."""
    import pyarrow.parquet as pq

    if not path.is_file():
        raise ValueError(f"input file {str(path)!r} does not exist")
    try:
        rows = pq.read_table(path).to_pylist()
    except Exception as err:  # pyarrow's errors are of several kinds; the file is what is wrong
        raise ValueError(f"{path} is not a Parquet file ({type(err).__name__}: {err})") from None
    return rows, list(range(1, len(rows) + 1))


def _hub_aggrefact(name: str) -> tuple[list[dict], list[int]]:
    """Both splits of the Hub dataset ``name``, dev then test (each row given its ``split``); no access
    (gated terms not accepted, not logged in, no network) is one line saying what to do."""
    try:
        import datasets

        splits = datasets.load_dataset(name)
    except Exception as err:  # gated, offline, not found: datasets and huggingface_hub raise many kinds
        reason = " ".join(str(err).split())[:200]
        raise ValueError(
            f"{name}: cannot read it from the Hub ({type(err).__name__}: {reason}); it is gated: accept its "
            f"terms at https://huggingface.co/datasets/{name}, log in (hf auth login, or set HF_TOKEN) and "
            "run again online, or give a local .jsonl/.csv/.parquet file with dataset, doc, claim, label and "
            "split"
        ) from None
    rows = [{**row, "split": split} for split in AGGREFACT_SPLITS if split in splits for row in splits[split]]
    return rows, list(range(1, len(rows) + 1))


def _binary_label(value: Any, where: str) -> int:
    """A 0/1 label as read from JSON (0, 1), CSV (``"0"``, ``"1"``) or Parquet (0.0, 1.0)."""
    if isinstance(value, str) and value.strip() in ("0", "1"):
        return int(value)
    if not isinstance(value, bool) and isinstance(value, Real) and value in (0, 1):
        return int(value)
    raise ValueError(f"{where} label must be 0 (not supported) or 1 (supported), got {value!r}")


def read_llm_aggrefact(source: str | Path) -> list[Record]:
    """LLM-AggreFact's claims (Tang et al. 2024) as records ``{dataset, doc, claim, label, split}``: a
    ``.jsonl``/``.json``/``.csv``/``.tsv``/``.parquet`` file, or the Hub dataset :data:`LLM_AGGREFACT` by
    name (dev and test, read through ``datasets`` with the user's token). ``label`` is 1 where the doc
    supports the claim; ``split`` (dev or test) is every row's or none's (then every row is test).
    A row that does not fit is a ValueError naming it (from 1)."""
    return llm_aggrefact_rows(source)[0]


def llm_aggrefact_rows(source: str | Path) -> tuple[list[Record], list[int]]:
    """:func:`read_llm_aggrefact`, and the row (from 1) each record came from."""
    if _hub_name(source):
        rows, numbers = _hub_aggrefact(str(source))
    elif Path(source).suffix.lower() == ".parquet":
        rows, numbers = _read_parquet(Path(source))
    else:
        rows, numbers = read_numbered_records(source)
    if not rows:
        raise ValueError(f"{source} has no rows")
    with_split = next(
        (n for row, n in zip(rows, numbers) if isinstance(row, Mapping) and "split" in row), None
    )
    records = []
    for row, number in zip(rows, numbers):
        where = f"row {number}"
        record = {key: _field(row, key, where, str) for key in ("dataset", "doc", "claim")}
        for key in ("dataset", "doc", "claim"):
            if not record[key].strip():
                raise ValueError(f"{where}[{key!r}] is empty; every row needs a {key}")
        record["label"] = _binary_label(_field(row, "label", where, (Real, str)), where)
        if with_split is not None and "split" not in row:
            raise ValueError(
                f"{where} has no split but row {with_split} has one; give every row a split (dev or test) "
                "or none (then every row is a test row)"
            )
        record["split"] = row.get("split", "test")
        if record["split"] not in AGGREFACT_SPLITS:
            raise ValueError(f"{where} split must be dev or test, got {record['split']!r}")
        records.append(record)
    return records, numbers


def _jsonl_by_line(folder: Path, name: str) -> tuple[list[dict], list[int]]:
    """The rows of ``folder/name`` (JSON lines) and their line numbers; a missing file says what is wanted."""
    path = folder / name
    if not path.is_file():
        raise ValueError(
            f"{folder} has no {name}: give the dataset/ folder of RAGTruth "
            "(github.com/ParticleMedia/RAGTruth), which holds response.jsonl and source_info.jsonl"
        )
    return read_numbered_records(path)


def _ragtruth_source(row: Any, where: str) -> tuple[str, str, str | None]:
    """A source_info row's task type, the text a response is checked against and, for QA, the question.
    As RAGTruth's ``baseline/prepare_dataset.py`` (ParticleMedia/RAGTruth) builds its reference: a
    summary's article; a QA item's ``passages`` (its ``question`` apart, the one the prompt asks); a
    data-to-text item's structured data as Python writes the dict (``str``), as its prompt quotes it."""
    task = _field(row, "task_type", where, str)
    if task not in RAGTRUTH_TASKS:
        raise ValueError(f"{where} task_type must be one of {', '.join(RAGTRUTH_TASKS)}, got {task!r}")
    info = _field(row, "source_info", where, (str, Mapping))
    if task == "QA":
        info = _field(row, "source_info", where, Mapping)
        passages = _field(info, "passages", f"{where}['source_info']", str)
        return task, passages, _field(info, "question", f"{where}['source_info']", str)
    return task, info if isinstance(info, str) else str(dict(info)), None


def check_spans(spans: Any, text: str, where: str) -> list[dict]:
    """``spans`` (a list of ``{start, end, ...}`` in ``text``'s characters), each inside ``text``; else a
    ValueError naming ``where`` and the span (from 0, as the list is indexed)."""
    if not isinstance(spans, list):
        raise ValueError(f"{where} must be a list of spans ({{start, end}}), got {type(spans).__name__}")
    for k, span in enumerate(spans):
        start = _field(span, "start", f"{where}[{k}]", int)
        end = _field(span, "end", f"{where}[{k}]", int)
        if not 0 <= start <= end <= len(text):
            raise ValueError(
                f"{where}[{k}] (start {start}, end {end}) lies outside its text of {len(text)} characters; "
                "a span is 0 <= start <= end <= the text's length"
            )
    return spans


def read_ragtruth(folder: str | Path) -> list[Record]:
    """RAGTruth's test split (Niu et al. 2024; ``ParticleMedia/RAGTruth``, MIT) from its ``dataset/``
    folder: one record per response of ``response.jsonl`` whose ``split`` is test, ``{id, task_type,
    response, source, question, labels}``, its source from ``source_info.jsonl`` (see
    :func:`_ragtruth_source`; ``question`` is None but for QA). ``labels`` are the annotated
    hallucination spans as given (``start``, ``end`` in the response's characters, ...). Every row is
    checked, of either split; a problem is a ValueError naming the file and row (from 1). Every test
    response is kept, whatever its ``quality`` (``truncated``, ``incorrect_refusal``), as LettuceDetect's
    ``preprocess_ragtruth.py`` keeps them (RAGTruth's own baseline keeps the ``good`` ones only)."""
    return ragtruth_rows(folder)[0]


def ragtruth_rows(folder: str | Path) -> tuple[list[Record], list[int]]:
    """:func:`read_ragtruth`, and each record's line in ``response.jsonl``."""
    folder = Path(folder)
    if not folder.is_dir():
        raise ValueError(
            f"{folder} is not a folder; give RAGTruth's dataset/ folder (response.jsonl, source_info.jsonl)"
        )
    sources: dict[str, tuple[str, str, str | None]] = {}
    for row, number in zip(*_jsonl_by_line(folder, "source_info.jsonl")):
        where = f"source_info.jsonl row {number}"
        sources[str(_field(row, "source_id", where, (str, int)))] = _ragtruth_source(row, where)
    records, numbers = [], []
    for row, number in zip(*_jsonl_by_line(folder, "response.jsonl")):
        where = f"response.jsonl row {number}"
        response = _field(row, "response", where, str)
        source_id = str(_field(row, "source_id", where, (str, int)))
        if source_id not in sources:
            raise ValueError(f"{where}: source_id {source_id!r} has no row in source_info.jsonl")
        split = _field(row, "split", where, str)
        labels = check_spans(_field(row, "labels", where, list), response, f"{where} labels")
        if split != "test":
            continue
        task, source, question = sources[source_id]
        records.append(
            {
                "id": row.get("id", number),
                "task_type": task,
                "response": response,
                "source": source,
                "question": question,
                "labels": labels,
            }
        )
        numbers.append(number)
    if not records:
        raise ValueError(
            f"{folder / 'response.jsonl'} has no response of the test split; nothing to evaluate"
        )
    return records, numbers
