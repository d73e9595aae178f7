"""FactCG's config and options, declared once: the module, the command line, the Space and
:class:`~.scorer.FactCGScorer` read them (plain data, no torch).

>>> CONFIGS["deberta-v3-large"].chunk_size, CONFIGS["deberta-v3-large"].max_model_len
(550, 2048)
>>> [option.name for option in COMPUTE_OPTIONS]
['chunk_size', 'max_model_len']
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.options import MODEL_REVISION, Option, name_option
from ..core.values import check_positive_int


@dataclass(frozen=True)
class Layout:
    """One config: its registered weight and the reference's defaults for it."""

    weight: str
    chunk_size: int
    """NLTK word tokens (``nltk.word_tokenize``) per document chunk, as the reference's ``chunking_src``."""
    max_model_len: int
    """Tokens of a prompt the model reads; the rest is cut at the end, as the reference's tokenizer call."""


CONFIGS: dict[str, Layout] = {"deberta-v3-large": Layout("factcg-deberta-v3-large", 550, 2048)}
"""The authors' one released checkpoint (their ``use_hf_ckpt=True``: DeBERTa-v3-large)."""
DEFAULT_CONFIG = "deberta-v3-large"
THRESHOLD = 0.5
"""A claim is labelled supported (1) when its score is above this, as the authors' benchmark's fixed setting
(``1 if p > threshold else 0``)."""
TEMPLATE = (
    '{text_a}\n\nChoose your answer: based on the paragraph above can we conclude that "{text_b}"?\n\n'
    "OPTIONS:\n- Yes\n- No\nI think the answer is "
)
"""The reference's ``INSTRUCTION_TEMPLATE``: ``text_a`` a document chunk, ``text_b`` the claim."""


LOAD_OPTIONS = (
    name_option(
        "model",
        "the config's registered classifier by default; a Hub repo id or a folder of another FactCG "
        "checkpoint (a 2-way DeBERTa-v3 sequence classifier)",
    ),
    MODEL_REVISION,
)
COMPUTE_OPTIONS = (
    Option(
        "chunk_size",
        "NLTK word tokens per document chunk (default 550, the reference's): whole sentences are joined "
        "with newlines up to this many",
        None,
        check_positive_int,
        text_type=int,
    ),
    Option(
        "max_model_len",
        "tokens of a (chunk, claim) prompt the model reads, the rest cut at the end (default 2048, the "
        "reference's)",
        None,
        check_positive_int,
        text_type=int,
    ),
)
