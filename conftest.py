"""Test session set-up: everything offline, tiny models under the registered repo ids.

Before anything imports huggingface_hub or transformers, point every Hugging Face cache
at a fresh temporary folder and switch the Hub and evaluate to offline mode. NLTK's
stopword corpus comes from the shared folder beside the checkout (copied, because NLTK
refuses data that is writable by group or others).
"""

from __future__ import annotations

import atexit
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent
SHARED = Path(os.environ.get("NLGMETRICS_SHARED", ROOT.parent / "shared"))
TMP = Path(tempfile.mkdtemp(prefix="nlgmetrics-tests-"))
atexit.register(shutil.rmtree, TMP, ignore_errors=True)

os.environ.update(
    {
        "HF_HOME": str(TMP / "hf_home"),
        "HF_HUB_CACHE": str(TMP / "hub"),
        "HF_HUB_OFFLINE": "1",
        "HF_EVALUATE_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_DISABLE_TELEMETRY": "1",
        "GRADIO_ANALYTICS_ENABLED": "False",
        "TOKENIZERS_PARALLELISM": "false",
    }
)
# Parity references run on the CPU: modules default to it here too, also on a GPU machine (the GPU
# tests in tests/core/test_gpu.py ask for cuda explicitly). Set NLGMETRICS_DEVICE to run the suite elsewhere.
os.environ.setdefault("NLGMETRICS_DEVICE", "cpu")


def _private_copy(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    for path in [target, *target.rglob("*")]:
        mode = path.stat().st_mode
        path.chmod((mode | stat.S_IWUSR) & ~(stat.S_IWGRP | stat.S_IWOTH))
    return target


NLTK_SOURCE = SHARED / "nltk_data"
if not (NLTK_SOURCE / "corpora" / "stopwords" / "english").is_file():
    raise RuntimeError(
        f"NLTK's stopword corpus was not found at {NLTK_SOURCE}; the tests need the shared folder beside the "
        "checkout (or NLGMETRICS_SHARED pointing at it)."
    )
os.environ["NLTK_DATA"] = str(_private_copy(NLTK_SOURCE, TMP / "nltk_data"))

sys.path.insert(0, str(ROOT))  # tests import tests/, references/ and benchmarks/ from this checkout
collect_ignore = ["metrics/nlgmetrics/__main__.py"]
