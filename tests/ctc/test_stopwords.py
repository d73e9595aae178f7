"""CTC's English stopword list (nlgmetrics.ctc.stopwords): NLTK's paper-era list, matched as CTC's code
did."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import nltk

from nlgmetrics.ctc.stopwords import PAPER_STOPWORDS_SHA256, english_stopwords, is_stopword


def test_stopwords_are_nltks_paper_era_english_list():
    corpus = Path(os.environ["NLTK_DATA"]) / "corpora" / "stopwords" / "english"
    words = corpus.read_text().split()
    assert len(words) == 179
    assert hashlib.sha256("\n".join(words).encode()).hexdigest() == PAPER_STOPWORDS_SHA256
    assert english_stopwords() == frozenset(nltk.corpus.stopwords.words("english"))


def test_stopword_match_strips_the_roberta_space():
    assert is_stopword(" the") and is_stopword("The") and is_stopword("don't")
    assert not is_stopword("the,") and not is_stopword("##s") and not is_stopword(" cat")
