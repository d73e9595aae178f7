"""Real semantics with the real all-MiniLM-L6-v2: the metrics rank obvious cases the right way."""

from __future__ import annotations

import pytest

import nlgmetrics

# (document, faithful summary, hallucinated summary)
SUMMARIES = [
    (
        "The city council voted on Monday to build a new public library on Elm Street. It will cost 12 "
        "million dollars and open in 2027.",
        "The council approved a new library on Elm Street that opens in 2027.",
        "The council rejected a new football stadium after the mayor resigned.",
    ),
    (
        "Heavy rain made the river burst its banks on Saturday, flooding 200 homes in the village. Nobody "
        "was hurt.",
        "Rain flooded 200 homes in the village on Saturday; nobody was hurt.",
        "An earthquake destroyed the village church and killed ten people.",
    ),
    (
        "Researchers found that honeybees can learn to recognise human faces when trained with sugar "
        "rewards.",
        "Honeybees can learn to recognise human faces, researchers found.",
        "Honeybees are dying because of a new pesticide, farmers warn.",
    ),
    (
        "The company reported record profits of 4 billion dollars this year, driven by strong sales of its "
        "phones.",
        "Strong phone sales gave the company record profits of 4 billion dollars.",
        "The company went bankrupt after its factories closed.",
    ),
    (
        "The national team won the championship final 2-1 after a late goal by their captain.",
        "A late goal by the captain won the final 2-1 for the national team.",
        "The national team lost the final after their coach was sacked.",
    ),
    (
        "Scientists discovered a new species of frog in the rainforest of Peru, bright blue and smaller "
        "than a coin.",
        "A tiny bright blue frog species was discovered in Peru's rainforest.",
        "A giant lizard escaped from a zoo in Madrid.",
    ),
    (
        "The museum will reopen next month after a two-year renovation that added a new wing for modern art.",
        "After two years of renovation the museum reopens next month with a modern art wing.",
        "The museum was sold to a private collector and will close forever.",
    ),
    (
        "Train drivers will strike on Friday over pay, so most rail services in the north will be cancelled.",
        "A pay strike by train drivers on Friday will cancel most northern rail services.",
        "Airline pilots celebrated a new contract with a parade on Friday.",
    ),
    (
        "The hospital opened a new children's ward with 40 beds, funded by donations from local families.",
        "Local donations funded a new 40-bed children's ward at the hospital.",
        "The hospital fired its doctors after a computer virus attack.",
    ),
    (
        "A volcano in Iceland erupted overnight, sending lava towards a small fishing town that was "
        "evacuated.",
        "An overnight eruption in Iceland sent lava toward an evacuated fishing town.",
        "A snowstorm in Canada closed schools and airports for a week.",
    ),
    (
        "The author's first novel, about a lighthouse keeper, won the prize for best debut fiction.",
        "A debut novel about a lighthouse keeper won the best debut fiction prize.",
        "The author was arrested for stealing a painting from a gallery.",
    ),
    (
        "City buses will be free for students from September, the transport department announced.",
        "Students will ride city buses for free from September.",
        "Taxi fares in the city will double from next week.",
    ),
]

# (knowledge fact, response that uses it, unrelated response)
DIALOGS = [
    (
        "Miles Davis recorded Kind of Blue in 1959; it is the best-selling jazz album of all time.",
        "Kind of Blue by Miles Davis, from 1959, is the best-selling jazz album ever.",
        "I usually go to bed early on weekdays.",
    ),
    (
        "The Eiffel Tower can be 15 cm taller during the summer because the iron expands in the heat.",
        "In summer the Eiffel Tower gets about 15 cm taller as the iron expands.",
        "My cousin is learning to play the violin.",
    ),
    (
        "The first football World Cup was held in Uruguay in 1930.",
        "Uruguay hosted the very first football World Cup, back in 1930.",
        "I think pizza is better with pineapple.",
    ),
    (
        "Octopuses have three hearts and blue blood.",
        "Did you know octopuses have blue blood and three hearts?",
        "I need to buy new shoes for the wedding.",
    ),
    (
        "Honey never spoils; edible honey was found in ancient Egyptian tombs.",
        "Honey never spoils, archaeologists even found edible honey in Egyptian tombs.",
        "The traffic was terrible this morning.",
    ),
    (
        "Bananas are berries, but strawberries are not.",
        "Funny thing: bananas are berries while strawberries are not.",
        "I watched a documentary about trains yesterday.",
    ),
    (
        "The Great Wall of China is more than 21,000 kilometres long.",
        "The Great Wall of China stretches over 21,000 kilometres.",
        "My phone battery dies so quickly these days.",
    ),
    (
        "Venus is the hottest planet in the solar system, hotter than Mercury.",
        "Venus is even hotter than Mercury, the hottest planet of all.",
        "We are painting the kitchen yellow this weekend.",
    ),
    (
        "The Beatles released their first album, Please Please Me, in 1963.",
        "The Beatles' first album, Please Please Me, came out in 1963.",
        "I prefer tea to coffee in the afternoon.",
    ),
    (
        "Cheetahs can run at up to 110 kilometres per hour.",
        "Cheetahs can sprint at around 110 kilometres per hour.",
        "My neighbour's garden is full of tomatoes.",
    ),
    (
        "Mount Everest grows about 4 millimetres every year.",
        "Everest still grows roughly 4 millimetres a year.",
        "I lost my umbrella on the bus again.",
    ),
]


@pytest.mark.parametrize(("document", "faithful", "hallucinated"), SUMMARIES, ids=range(len(SUMMARIES)))
def test_faithful_summary_is_more_consistent(consistency, document, faithful, hallucinated):
    scores = consistency.compute(predictions=[faithful, hallucinated], sources=[document, document])["scores"]
    assert scores[0] > scores[1]


@pytest.mark.parametrize(("fact", "grounded", "unrelated"), DIALOGS, ids=range(len(DIALOGS)))
def test_fact_using_response_is_more_grounded(fact, grounded, unrelated):
    groundedness = nlgmetrics.load("ctc_groundedness", "E-minilm")
    scores = groundedness.compute(predictions=[grounded, unrelated], contexts=[fact, fact])["scores"]
    assert scores[0] > scores[1]


def test_summary_of_whole_set_separates_faithful_from_hallucinated(consistency):
    faithful = consistency.compute(predictions=[s[1] for s in SUMMARIES], sources=[s[0] for s in SUMMARIES])
    hallucinated = consistency.compute(
        predictions=[s[2] for s in SUMMARIES], sources=[s[0] for s in SUMMARIES]
    )
    assert faithful["mean_score"] - hallucinated["mean_score"] > 0.1
