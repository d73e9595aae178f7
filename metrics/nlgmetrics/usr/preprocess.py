"""The inputs of USR's three models, built as the released ``dstc9_eval.py`` builds them.

Texts are lower-cased, whitespace-normalised and split by spaCy's English tokenizer (``"isn't"``
→ ``"is n't"``, ``"1960's"`` → ``"1960 's"``), with the ``_go`` / ``_eos`` tags of the training
data around the response. Only the last utterance of the dialog history is read.

>>> normalise("Isn't it  GREAT?")
"is n't it great ?"
>>> last_utterance("hi there\\nhow are you ? _eos\\n\\n")
'how are you ?'
>>> last_utterance("so , hi _eos yeah , sure _eos")
'yeah , sure'
>>> inputs = model_inputs("Sure, I'd love to!", "hello\\nDo you like jazz?", "Jazz began in New Orleans.")
>>> inputs.mlm
"do you like jazz ? _eos _go sure , i 'd love to ! _eos"
>>> inputs.dr_c_a, inputs.dr_f_a, inputs.dr_b
('do you like jazz ? _eos jazz began in new orleans . _eos', 'jazz began in new orleans . _eos', "_go sure , i
'd love to ! _eos")
>>> longest_first([1, 2, 3, 4, 5], [6, 7, 8], 5)
([1, 2, 3], [6, 7])
>>> longest_first([1, 2], [3, 4], 2)
([1], [3])
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

MLM_WINDOW = 100
"""USR-MLM keeps the last 100 token ids of ``<s> line </s>`` (the released ``batch[:, -100:]``)."""
DR_MAX_LENGTH = 128
"""DR-c / DR-f pairs are cut to 128 tokens, special tokens included (the released max_seq_length)."""


MISSING_SPACY = (
    'USR needs spaCy (the released code\'s tokenizer), which is not installed: pip install "nlgmetrics[usr]"'
)


def require_spacy() -> None:
    """Raise one line naming the ``usr`` extra when spaCy is not installed (USR checks it before loading
    any weights; spaCy is no base dependency of nlgmetrics)."""
    try:
        import spacy  # noqa: F401
    except ModuleNotFoundError as err:
        if (err.name or "").partition(".")[0] != "spacy":
            raise
        raise ModuleNotFoundError(MISSING_SPACY, name="spacy") from None


@functools.cache
def _spacy_tokenizer():
    require_spacy()
    import spacy

    return spacy.blank("en").tokenizer


def normalise(text: str) -> str:
    """``dstc9_eval.py``'s ``tokenize``: drop the tags, lower-case, normalise spaces, spaCy-tokenize."""
    text = text.replace("_go", "").replace("_eos", "").strip()
    text = " ".join(text.lower().split())
    return " ".join(" ".join(token.text for token in _spacy_tokenizer()(text)).split())


def last_utterance(history: str) -> str:
    """The last non-blank line of ``history``; in Topical-Chat's ``a _eos b _eos`` style, its last
    utterance."""
    lines = [line for line in history.split("\n") if line.strip()]
    if not lines:
        return ""
    segments = [s for s in re.split(r"_eos", lines[-1]) if s.strip()]
    return segments[-1].strip() if segments else ""


@dataclass(frozen=True)
class ModelInputs:
    """The texts USR's models read for one example (empty parts stay empty: they score NaN)."""

    response: str
    context: str
    fact: str

    @property
    def mlm(self) -> str:
        return f"{self.context} _eos _go {self.response} _eos"

    @property
    def dr_c_a(self) -> str:
        return f"{self.context} _eos {self.fact} _eos"

    @property
    def dr_f_a(self) -> str:
        return f"{self.fact} _eos"

    @property
    def dr_b(self) -> str:
        return f"_go {self.response} _eos"


def model_inputs(response: str, history: str, fact: str) -> ModelInputs:
    """The normalised response, last utterance and fact of one example."""
    return ModelInputs(normalise(response), normalise(last_utterance(history)), normalise(fact))


def longest_first(a: list[int], b: list[int], budget: int) -> tuple[list[int], list[int]]:
    """transformers 2.1.1's ``longest_first`` truncation: drop the last token of the longer of ``a`` and
    ``b`` (of ``b`` on a tie) until ``len(a) + len(b) <= budget``."""
    a, b = list(a), list(b)
    while len(a) + len(b) > budget:
        if len(a) > len(b):
            a.pop()
        else:
            b.pop()
    return a, b
