"""Tokenizer calls on a per-thread copy: the loaded (shared) tokenizer is never changed by scoring."""

from __future__ import annotations

import concurrent.futures

import pytest

import nlgmetrics
from nlgmetrics.core.tokenize import thread_tokenizer, tokenize

LONG = " ".join(f"word{i} fact" for i in range(200))


@pytest.mark.filterwarnings("ignore::nlgmetrics.core.warnings.NLGMetricsWarning")
@pytest.mark.parametrize("config", ["E-roberta", "D-cnndm", "R-cnndm"])
def test_scoring_leaves_the_shared_tokenizer_as_loaded(config):
    """Truncating and windowing a long source used to leave its settings in the shared fast tokenizer's
    backend, where a concurrent call of another thread picked them up."""
    metric = nlgmetrics.load("ctc_consistency", config, device="cpu")
    metric.compute(predictions=["The cat sat."], sources=[LONG])
    (aligner,) = metric.scorer.wrappers.values()
    backend = aligner.tokenizer.backend_tokenizer
    for long_inputs in ("truncate", "window"):
        metric.compute(predictions=["The cat sat."], sources=[LONG], long_inputs=long_inputs)
        assert backend.truncation is None and backend.padding is None


def test_each_thread_gets_its_own_copy_that_encodes_the_same(minilm_dir):
    from transformers import AutoTokenizer

    shared = AutoTokenizer.from_pretrained(minilm_dir)
    mine = thread_tokenizer(shared)
    assert mine is not shared and thread_tokenizer(shared) is mine  # made once per thread
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        other = pool.submit(thread_tokenizer, shared).result()
    assert other is not mine and other is not shared
    options = {"truncation": True, "max_length": 16, "stride": 4, "return_overflowing_tokens": True}
    expected = shared([LONG, "a short one"], **options)
    got = tokenize(shared, [LONG, "a short one"], **options)
    assert got["input_ids"] == expected["input_ids"]
    assert got["overflow_to_sample_mapping"] == expected["overflow_to_sample_mapping"]
