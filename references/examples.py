"""The examples tests and benchmarks score: hand-written ones, one set per CTC task (no empty texts: the
reference crashes on them), and :func:`examples`, ``n`` varied copies of a module's declared example."""

from nlgmetrics.modules import SPECS

LIBRARY = (
    "The city council of Riverton voted on Monday to build a new public library on Elm Street. "
    "The project will cost 12 million dollars and is expected to open in 2027. Mayor Ana Ruiz said the "
    "library would include a children's wing and a free computer lab."
)
FLOOD = (
    "Heavy rain caused the Lune river to burst its banks on Saturday, flooding more than 200 homes in "
    "Kirkby. No one was injured. The local school has been turned into a shelter, and volunteers hand out "
    "food."
)
# Longer than 512 tokens for every tokenizer used here, so truncation is exercised.
LONG_DOC = " ".join(
    f"In paragraph {i}, the committee reviewed the budget for the harbour project and noted that costs "
    f"had risen by {i} percent since the previous report, which worried several members."
    for i in range(40)
)

SUMMARIZATION = {
    "sources": [LIBRARY, LIBRARY, FLOOD, FLOOD, LONG_DOC, "Ein kurzer Text über Äpfel und Birnen.", LIBRARY],
    "predictions": [
        "Riverton approved a 12 million dollar library on Elm Street, opening in 2027.",
        "The mayor of Riverton resigned after a tax scandal, and the library plan was dropped!",
        "Flooding hit over 200 homes in Kirkby; the school is now a shelter.",
        "A fire destroyed the school in Kirkby and three people were hurt.",
        "Costs of the harbour project rose, which worried the committee.",
        "Äpfel und Birnen: ein Text.",
        # tokenized like CNN/DM, so decoding needs the clean-up of tokenization spaces
        "the council 's new library will open in 2027 , the mayor said . it 's free !",
    ],
    "references": [
        ["Riverton will build a new public library, opening in 2027.", "A library for Riverton."],
        ["Riverton will build a new public library, opening in 2027."],
        ["More than 200 homes in Kirkby were flooded when the Lune burst its banks."],
        ["More than 200 homes were flooded.", "The Lune flooded Kirkby; nobody was hurt.", "Kirkby flood."],
        ["The harbour project's costs keep rising."],
        ["Ein Text über Obst."],
        ["Riverton will build a new public library , opening in 2027 ."],
    ],
}

STYLE_TRANSFER = {
    "sources": [
        "the food was cold and the staff were rude .",
        "I loved the pasta, and the waiter was so friendly!",
        "this place is awful , never again .",
        "The rooms were clean but the breakfast was terrible.",
        "we will definitely come back here .",
    ],
    "predictions": [
        "the food was warm and the staff were friendly .",
        "I hated the pasta, and the waiter was so rude!",
        "this place is great , will come again .",
        "The rooms were dirty but the breakfast was wonderful.",
        "we will never come back here .",
    ],
}

DIALOG = {
    "sources": [
        "Do you like music?\nYes, I listen to jazz every day. What about you?",
        "Have you ever been to Paris?\nNo, but I would love to go.",
        "i am so tired today .\noh no , what happened ?",
        "What do you do for fun?\nI play football with my friends on weekends.",
        "Did you see the game last night?",
    ],
    "contexts": [
        "fact: Miles Davis recorded Kind of Blue in 1959, the best-selling jazz album of all time.",
        "fact: The Eiffel Tower can be 15 cm taller during the summer because the iron expands.",
        "your persona: i work night shifts at a hospital.\nyour persona: i have two dogs.",
        "fact: The first football World Cup was held in Uruguay in 1930.",
        "fact: The Lakers won the game 110 to 98 after a late comeback.",
    ],
    "predictions": [
        "I love jazz too! Did you know Kind of Blue by Miles Davis is the best-selling jazz album ever?",
        "The Eiffel Tower grows about 15 cm in summer because the iron expands in the heat.",
        "i worked a night shift at the hospital and then walked my two dogs .",
        "That sounds fun. The first World Cup was in Uruguay in 1930, you know.",
        "Yes! The Lakers came back late and won 110 to 98.",
    ],
}


BY_ASPECT = {
    "consistency": {k: SUMMARIZATION[k] for k in ("predictions", "sources")},
    "relevance": SUMMARIZATION,
    "preservation": STYLE_TRANSFER,
    "engagingness": DIALOG,
    "groundedness": {k: DIALOG[k] for k in ("predictions", "contexts")},
}
"""The inputs each CTC aspect reads, from the examples above."""

WORDS = [
    "amber",
    "birch",
    "cedar",
    "delta",
    "ember",
    "fjord",
    "grove",
    "harbor",
    "island",
    "jungle",
    "kettle",
    "lantern",
    "meadow",
]


def examples(name: str, n: int, shift: int = 0) -> dict[str, list]:
    """``n`` distinct examples made from the module's declared example (each text gets two more words,
    so no token occurs in every text and InfoLM's idf weights are never all zero)."""

    def vary(text: str, i: int) -> str:
        return f"{text} {WORDS[(i + shift) % len(WORDS)]} {WORDS[(3 * i + shift + 1) % len(WORDS)]}"

    return {
        field: [
            [vary(t, i) for t in values[0]] if isinstance(values[0], list) else vary(values[0], i)
            for i in range(n)
        ]
        for field, values in SPECS[name].example.items()
    }
