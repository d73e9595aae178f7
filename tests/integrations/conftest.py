"""The tiny BART every Trainer test module starts from (built once per module: some tests train it
further)."""

from __future__ import annotations

import numpy as np
import pytest
from transformers import AutoModelForSeq2SeqLM, AutoTokenizer

import nlgmetrics
from tests.integrations.reward_calls import CONSISTENCY
from tests.integrations.tiny_seq2seq import decode, eval_dataset, save_tiny_bart, seq2seq_trainer


@pytest.fixture(scope="module")
def consistency_reward():
    """The ctc_consistency E-minilm reward on the dataset's ``document`` column."""
    return nlgmetrics.reward(*CONSISTENCY, sources="document")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """The tiny BART after 2 training steps, its tokenizer, the eval set and the generations decoded by
    hand."""
    folder = save_tiny_bart(tmp_path_factory.mktemp("bart"))
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSeq2SeqLM.from_pretrained(folder)
    data = eval_dataset(tokenizer)
    trainer = seq2seq_trainer(model, tokenizer, data, tmp_path_factory.mktemp("train"), max_steps=2)
    trainer.train()
    predicted = trainer.predict(data)
    generations = decode(tokenizer, predicted.predictions)
    inputs = decode(tokenizer, np.array(data["input_ids"], dtype=object))
    assert len(generations) == 10 and all(generations)
    return {
        "model": model,
        "tokenizer": tokenizer,
        "data": data,
        "generations": generations,
        "inputs": inputs,
    }


@pytest.fixture(scope="module")
def tokenizer(tiny):
    return tiny["tokenizer"]
