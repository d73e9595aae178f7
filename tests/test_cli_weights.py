"""`nlgmetrics weights`: every config's weights, whether they are published and here, and how to get them."""

from __future__ import annotations

import subprocess
import sys

from nlgmetrics.cli import main
from nlgmetrics.core.registry import WEIGHTS, ctc_weight_name


def test_weights_lists_every_config_with_its_repo_state_and_the_way_to_get_it(capsys):
    assert main(["weights", "ctc_consistency", "infolm"]) == 0
    out = capsys.readouterr().out
    d_cnndm = WEIGHTS[ctc_weight_name("D-cnndm", "doc_to_summ")]
    lines = out.splitlines()
    first, second = lines[lines.index("  D-cnndm (default)") + 1 :][:2]
    assert first.startswith(
        f"    {d_cnndm.repo_id} @ v1.0 · licence mit · published: no · on this machine: yes · "
    )
    assert first.endswith(" MB")  # the tiny test copy is in the cache
    assert second.startswith("    get it: not published on the Hub yet") and d_cnndm.conversion in second
    assert "E-minilm\n    sentence-transformers/all-MiniLM-L6-v2 @ " in out and "embedded (" in out
    bert = WEIGHTS["bert-base-uncased"]
    assert f"get it: `hf download {bert.repo_id} --revision {bert.revision}`" in out
    assert out.count("(default)") == 2


def test_weights_of_an_unknown_module_is_one_line_and_a_closed_pipe_is_quiet(capsys):
    assert main(["weights", "ctc_consistensy"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    listing = subprocess.run(
        f"{sys.executable} -m nlgmetrics weights | head -n 1", shell=True, capture_output=True, text=True
    )
    assert listing.stdout == "ctc_consistency\n" and listing.stderr == ""
