"""What the Space shows, without Gradio: heat-map words, per-example tables and error messages."""

from __future__ import annotations

import math

import pytest

from nlgmetrics.modules import SPECS
from nlgmetrics.ui.space import heatmap
from nlgmetrics.ui.space.events import error_markdown
from nlgmetrics.ui.space.pool import SpaceError
from nlgmetrics.ui.space.tables import TEXT_CHARS, cell, example_labels, scored_table


@pytest.mark.parametrize(
    ("pairs", "words"),
    [
        (
            [("un", 1.0), ("##believ", 0.0), ("##able", 0.5), ("!", None)],
            [("unbelievable", 0.5), ("!", None)],
        ),
        (
            [("The", 0.25), ("Ġcat", 0.5), ("s", None), ("Ġsat", 1.0)],
            [("The", 0.25), ("cats", 0.5), ("sat", 1.0)],
        ),
        ([("▁Hel", 0.0), ("lo", 1.0), ("▁world", math.nan)], [("Hello", 0.5), ("world", None)]),
        (
            [("[CLS]", 0.1), ("##x", 0.2), ("<s>", 0.3), ("y", 0.4), ("Ġz", 0.5)],
            [("[CLS]", 0.1), ("##x", 0.2), ("<s>", 0.3), ("y", 0.4), ("z", 0.5)],
        ),
        ([("One sentence.", 0.9), ("Another one.", 0.1)], [("One sentence.", 0.9), ("Another one.", 0.1)]),
        ([], []),
    ],
)
def test_pieces_are_joined_into_words_with_the_mean_of_their_values(pairs, words):
    assert [(w, v) for w, v, _ in heatmap.join_pieces(pairs)] == words
    assert sum(len(p) for _, _, p in heatmap.join_pieces(pairs)) == len(pairs)


def test_pieces_are_joined_only_when_they_spell_the_prediction():
    words = heatmap.join_pieces([("play", 0.0), ("##ing", 1.0), ("now", 0.5)])
    assert heatmap.spells(words, "Playing now.")
    assert not heatmap.spells(words, "now playing")  # a ranking of tokens, not the text in order
    shown = heatmap.render([("play", 0.0), ("##ing", 1.0)], "playing")
    assert ">playing</span>" in shown and "the mean of 2 pieces: play ##ing" in shown
    ranked = heatmap.render([("play", 0.0), ("##ing", 1.0)], "something else")
    assert ">play</span>" in ranked and ">##ing</span>" in ranked and "One box per token" in ranked


def test_the_heat_map_escapes_text_and_shows_the_scale_and_what_the_values_are():
    shown = heatmap.render([("<b>", 2.0), ("x", -0.5)], "<b> x", "Values scaled to [-1, 1].")
    assert "&lt;b&gt;" in shown and "<b>" not in shown.replace("&lt;b&gt;", "")
    assert "−1" in shown and "+1" in shown and "Values scaled to [-1, 1]." in shown
    assert 'title="2.0000"' in shown and heatmap.colour(2.0) == heatmap.colour(1.0)  # clipped to the scale
    assert heatmap.colour(None) == "transparent" and heatmap.render([], "x") == ""


def test_every_modules_details_renderer_describes_its_values():
    for spec in SPECS.values():
        if spec.details:
            assert heatmap.describe(spec.details), spec.name


def test_a_cell_is_cut_to_its_length_with_the_whole_text_on_hover():
    text = "word " * 40
    shown = cell(text)
    visible = shown.split(">", 1)[1].removesuffix("</span>")
    assert len(visible) == TEXT_CHARS and visible.endswith("…")
    assert f'title="{" ".join(text.split())}"' in shown
    assert cell("a *b* | c") == r"a \*b\* \| c"  # Markdown and table syntax shown as typed
    assert cell(["r1", "r2"]) == r"r1 \| r2"


def test_scored_table_puts_the_label_then_the_scores_first():
    records = [
        {"sources": "s1", "predictions": "p1", "scores": "mine"},
        {"sources": "s2", "predictions": "p2"},
    ]
    result = {"coherence": [0.1, 0.2], "scores": [0.3, 0.4], "mean_score": 0.35}
    table = scored_table(records, result)
    assert table.columns == ("row", "score_scores", "coherence", "sources", "predictions", "scores")
    assert table.rows[0] == [1, 0.3, 0.1, "s1", "p1", "mine"] and table.rows[1][5] == ""
    assert example_labels([{"id": "a"}, {"id": ""}]) == ("row", [1, 2])  # an id on every row, or none


def test_an_error_is_markdown_with_its_code_spans():
    assert error_markdown(SpaceError("use `E-minilm` <here>")) == "⚠️ **Error:** use `E-minilm` &lt;here&gt;"
    assert error_markdown(RuntimeError("boom")) == "⚠️ **Error:** scoring failed (RuntimeError): boom"
