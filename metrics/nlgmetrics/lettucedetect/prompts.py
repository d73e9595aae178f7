"""The prompts LettuceDetect's models were trained with (English), as the reference writes them: the
context's passages numbered one per line, inside the QA prompt when there is a question, else inside the
summary prompt; the answer follows as the second text of the pair.

>>> print(prompt(["Paris is in France.", "It has 2 million people."], None))
Summarize the following text:
passage 1: Paris is in France.
passage 2: It has 2 million people.
output:
"""

from __future__ import annotations

from collections.abc import Sequence

QA = (
    "Briefly answer the following question:\n{question}\nBear in mind that your response should be strictly "
    "based on the following {count} passages:\n{passages}\nIn case the passages do not contain the necessary "
    'information to answer the question, please reply with: "Unable to answer based on given passages."\n'
    "output:"
)
SUMMARY = "Summarize the following text:\n{passages}\noutput:"


def passage_line(number: int, passage: str) -> str:
    """One passage as the prompt lists it (``number`` from 1)."""
    return f"passage {number}: {passage}"


def prompt(passages: Sequence[str], question: str | None) -> str:
    """The prompt of ``passages`` (numbered from 1) with ``question`` (None: the summary prompt)."""
    block = "\n".join(passage_line(k + 1, p) for k, p in enumerate(passages))
    if question is None:
        return SUMMARY.format(passages=block)
    return QA.format(question=question, count=len(passages), passages=block)
