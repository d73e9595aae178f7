"""NLTK's English stopword list, as CTC uses it for ``remove_stopwords``.

The list comes from NLTK's ``stopwords`` corpus through NLTK's normal lookup
(``NLTK_DATA`` and the default folders), downloaded once with ``nltk.download`` where a
network exists. CTC's paper-era list has 179 words; if the installed corpus differs, a
warning says so, because scores with stopword removal then differ from the paper's.
"""

from __future__ import annotations

import functools
import hashlib

from .runtime import warn

PAPER_STOPWORDS_SHA256 = "2faef318155a30d7e91c39de3f51fde2eb44a3fe24e0adb0c504fd35c7add888"
"""sha256 of the 179-word list (joined by newlines) that CTC's released code used."""


def _read_corpus() -> list[str]:
    from nltk.corpus import stopwords

    return list(stopwords.words("english"))


@functools.cache
def english_stopwords() -> frozenset[str]:
    """The English stopword set, loaded once per process."""
    try:
        words = _read_corpus()
    except LookupError:
        import nltk

        if not nltk.download("stopwords", quiet=True):
            raise LookupError(
                "remove_stopwords=True needs NLTK's 'stopwords' corpus, which is not installed and could not "
                "be downloaded. Run `python -m nltk.downloader stopwords` on a machine with network access, "
                "or point NLTK_DATA at a folder that holds corpora/stopwords."
            ) from None
        words = _read_corpus()
    digest = hashlib.sha256("\n".join(words).encode()).hexdigest()
    if digest != PAPER_STOPWORDS_SHA256:
        warn(
            f"NLTK's installed English stopword list ({len(words)} words) differs from the 179-word list of "
            "the CTC paper's code; scores with remove_stopwords=True may differ from the paper's."
        )
    return frozenset(words)


def is_stopword(token: str) -> bool:
    """Whether a token is a stopword, ignoring case and surrounding spaces (RoBERTa's leading space)."""
    return token.strip().lower() in english_stopwords()
