"""`nlgmetrics weights`: every config's weights, whether they are published and here, and how to get them."""

from __future__ import annotations

import os
import subprocess
import sys

from nlgmetrics.cli import main
from nlgmetrics.core.registry import WEIGHTS
from nlgmetrics.ctc.weights import ctc_weight_name


def test_weights_lists_every_config_with_its_repo_state_and_the_way_to_get_it(capsys):
    assert main(["weights", "ctc_consistency", "infolm"]) == 0
    out = capsys.readouterr().out
    d_cnndm = WEIGHTS[ctc_weight_name("D-cnndm", "doc_to_summ")]
    lines = out.splitlines()
    first, second = lines[lines.index("  D-cnndm") + 1 :][:2]
    assert first.startswith(
        f"    {d_cnndm.repo_id} @ v1.0 · licence mit · published: no · on this machine: yes · "
    )
    assert first.endswith(" MB")  # the tiny test copy is in the cache
    assert second.startswith("    get it: not published on the Hub yet") and d_cnndm.conversion in second
    assert "E-minilm\n    sentence-transformers/all-MiniLM-L6-v2 @ " in out and "embedded (" in out
    bert = WEIGHTS["bert-base-uncased"]
    assert f"get it: `hf download {bert.repo_id} --revision {bert.revision}`" in out
    assert out.count("(default)") == 2 and "  E-bert (default)" in lines


def test_weights_of_an_unknown_module_is_one_line_and_a_closed_pipe_is_quiet(capsys):
    assert main(["weights", "ctc_consistensy"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    listing = subprocess.run(
        f"{sys.executable} -m nlgmetrics weights | head -n 1", shell=True, capture_output=True, text=True
    )
    assert listing.stdout == "ctc_consistency\n" and listing.stderr == ""


def test_the_command_line_says_how_to_load_a_converted_folder_with_its_flags(capsys, tmp_path):
    """The conversion advice of `nlgmetrics weights` and of a failed `nlgmetrics score` names the
    command line's --aligner flag, not Python's aligner='D:...' keyword (issue 28)."""
    assert main(["weights", "ctc_consistency"]) == 0
    out = capsys.readouterr().out
    assert "then load with --aligner D:./ctc-D-cnndm-doc_to_summ" in out and "aligner='" not in out
    data = tmp_path / "data.jsonl"
    data.write_text('{"predictions": "a", "sources": "b"}\n', encoding="utf-8")
    env = {**os.environ, "HF_HUB_CACHE": str(tmp_path / "empty-cache"), "HF_HUB_OFFLINE": "1"}
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "nlgmetrics",
            "score",
            str(data),
            "--metric",
            "ctc_consistency",
            "--config",
            "D-cnndm",
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert "--aligner D:./ctc-D-cnndm-doc_to_summ" in run.stderr and "aligner='" not in run.stderr
