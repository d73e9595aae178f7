"""A bare ``evaluate.load`` is as quiet as the command line (issue 27 §3): no transformers "Loading weights"
bar and no load report while our weights load, without touching the user's own transformers settings
(a bar of the user's own ``from_pretrained`` still shows, before, during and after ours, and ours show
when the user asks transformers for details)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nlgmetrics.modules import SPECS
from tests.helpers import config_of

REPO = Path(__file__).resolve().parents[2]

BARE_LOADS = """
import json, sys, warnings
warnings.simplefilter("ignore")
import evaluate
for name, config in json.loads(sys.argv[1]):
    tag = name.rsplit("/", 1)[-1] + f"@{config}"
    print(f"<{tag}>", file=sys.stderr, flush=True)
    evaluate.load(name, config, device="cpu")
    print(f"</{tag}>", file=sys.stderr, flush=True)
"""


def stderr_of(code: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        env=os.environ,  # the tests' offline tiny Hub cache
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stderr


def test_bare_evaluate_load_of_every_module_prints_no_loading_bar_or_load_report():
    names = sorted(SPECS)
    cases = [[str(REPO / "metrics" / name), config_of(name)] for name in names]
    cases.append([str(REPO / "metrics" / "ctc_relevance"), "E-roberta"])  # a masked LM read as a base model
    err = stderr_of(BARE_LOADS, json.dumps(cases))
    for path, config in cases:
        assert f"</{Path(path).name}@{config}>" in err  # every load ran
    assert "Loading weights" not in err, err
    assert "LOAD REPORT" not in err.upper() and "UNEXPECTED" not in err.upper(), err


USER_BARS = """
import sys, threading
import nlgmetrics
from transformers import BertModel
from transformers.utils import logging
from nlgmetrics.core.hub import load_model
from nlgmetrics.core.registry import WEIGHTS

spec = WEIGHTS["bert-base-uncased"]
settings = lambda: (logging.is_progress_bar_enabled(), logging.get_verbosity())
start = settings()

def users_own_load(tag):
    print(f"<{tag}>", file=sys.stderr, flush=True)
    BertModel.from_pretrained(spec.repo_id, revision=spec.revision)
    print(f"</{tag}>", file=sys.stderr, flush=True)

def ours():
    load_model(BertModel, spec.repo_id, spec.revision)

users_own_load("before")
nlgmetrics.load("infolm", device="cpu")
users_own_load("after")
print("<ours>", file=sys.stderr, flush=True)
ours()
print("</ours>", file=sys.stderr, flush=True)
print(f"<settings>{settings() == start}</settings>", file=sys.stderr, flush=True)
logging.set_verbosity_info()  # a user who asks transformers for details gets our bars too
print("<verbose>", file=sys.stderr, flush=True)
ours()
print("</verbose>", file=sys.stderr, flush=True)
logging.set_verbosity_warning()
# Last (two from_pretrained at once can upset transformers' later loads): ours in another thread while
# the user's own load runs in this one.
thread = threading.Thread(target=ours)
thread.start()
users_own_load("during")
thread.join()
"""


def between(text: str, tag: str) -> str:
    return text.split(f"<{tag}>", 1)[1].split(f"</{tag}>", 1)[0]


@pytest.mark.filterwarnings("ignore::nlgmetrics.core.warnings.NLGMetricsWarning")
def test_only_our_loads_are_quiet_the_users_own_bars_still_show():
    err = stderr_of(USER_BARS)
    for tag in ("before", "during", "after"):
        assert "Loading weights" in between(err, tag) and "LOAD REPORT" in between(err, tag), err
    assert "Loading weights" not in between(err, "ours") and "LOAD REPORT" not in between(err, "ours"), err
    assert "Loading weights" in between(err, "verbose"), err
    assert err.count("Loading weights:   0%") == 4, err  # the user's three and the verbose one, none else
    assert between(err, "settings") == "True"  # no transformers setting changed
