"""The examples LettuceDetect's tests score: answers of one to several sentences, contexts of one passage to
many (long enough to be split into groups of passages at the default max_length and at a small one)."""

from references.examples import FLOOD, LIBRARY, LONG_DOC

PASSAGES = [LIBRARY, FLOOD, *(LONG_DOC[k : k + 600] for k in range(0, len(LONG_DOC), 600))]
"""Two short passages, then about 20 of 600 characters."""
MANY = [f"Report {i}: {p}" for i in range(2) for p in PASSAGES][:30]
"""30 passages, over 4,096 tokens of the tiny tokenizer: split at the default max_length."""

ANSWERS = [
    "Riverton approved a 12 million dollar library on Elm Street, opening in 2027.",
    "Flooding hit over 200 homes in Kirkby.",
    "Costs of the harbour project rose by 7 percent, which worried several members of the committee, said "
    "the mayor Ana Ruiz on Monday; the school was turned into a shelter.",
    "  The council voted on Monday.",
    "No.",
    "A fire destroyed the school in Kirkby and three people were hurt, the actor said.",
]
CONTEXTS = [
    [LIBRARY],
    [FLOOD, LIBRARY],
    PASSAGES,
    MANY,
    [FLOOD],
    PASSAGES[:12],
]
QUESTIONS = [
    "What did Riverton decide?",
    "What happened in Kirkby?",
    "What did the committee note?",
    "When did the council vote?",
    "Was anyone hurt?",
    "What happened at the school?",
]
