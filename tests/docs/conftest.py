"""The training examples load ``facebook/bart-base`` (the Trainer) and ``Qwen/Qwen2.5-0.5B-Instruct`` (the
GRPO policy): the snippet tests give them a tiny BART and a tiny causal LM (MiniLM's WordPiece vocabulary)
saved under those names in the tests' Hugging Face cache."""

from __future__ import annotations

import os

import pytest

from nlgmetrics.testing import install_in_cache
from tests.integrations.tiny_causal_lm import save_tiny_causal_lm
from tests.integrations.tiny_seq2seq import save_tiny_bart


@pytest.fixture(scope="session", autouse=True)
def tiny_bart_base(tmp_path_factory) -> None:
    folder = save_tiny_bart(tmp_path_factory.mktemp("bart-base"))
    install_in_cache(folder, os.environ["HF_HUB_CACHE"], "facebook/bart-base", "main")


@pytest.fixture(scope="session", autouse=True)
def tiny_policy(tmp_path_factory) -> None:
    folder = save_tiny_causal_lm(tmp_path_factory.mktemp("policy"))
    install_in_cache(folder, os.environ["HF_HUB_CACHE"], "Qwen/Qwen2.5-0.5B-Instruct", "main")
