"""The README's training-script example loads ``facebook/bart-base``: the snippet tests give it a tiny BART
(MiniLM's WordPiece vocabulary) saved under that name in the tests' Hugging Face cache."""

from __future__ import annotations

import os

import pytest

from nlgmetrics.testing import install_in_cache
from tests.trainer.tiny_seq2seq import save_tiny_bart


@pytest.fixture(scope="session", autouse=True)
def tiny_bart_base(tmp_path_factory) -> None:
    folder = save_tiny_bart(tmp_path_factory.mktemp("bart-base"))
    install_in_cache(folder, os.environ["HF_HUB_CACHE"], "facebook/bart-base", "main")
