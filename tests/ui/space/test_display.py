"""What the Space shows, without Gradio: heat-map words, per-example tables and error messages."""

from __future__ import annotations

import math
import re

import pytest

from nlgmetrics.modules import SPECS
from nlgmetrics.ui.space import heatmap
from nlgmetrics.ui.space.events import error_markdown
from nlgmetrics.ui.space.pool import SpaceError
from nlgmetrics.ui.space.tables import TEXT_CHARS, Table, cell, example_labels, scored_table, styled


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


@pytest.mark.parametrize("name", ["minicheck", "alignscore"])
def test_a_probability_is_coloured_on_its_modules_declared_range(name):
    """An unsupported 0.23 chunk (or sentence) is red on MiniCheck's and AlignScore's 0 … 1, not green as
    on a −1 … +1 scale; 0.5, the middle, is white; the legend shows the declared ends."""
    spec = SPECS[name]
    texts = {"minicheck": ("chunks", "probabilities"), "alignscore": ("claim_sentences", "sentence_scores")}
    keys = texts[name]
    details = {keys[0]: ["Unsupported.", "Even.", "Supported."], keys[1]: [0.23, 0.5, 0.91]}
    scale = spec.details_scale(spec.default_config)
    assert scale == (0.0, 1.0)
    shown = heatmap.render(spec.render_details(details), "Unsupported. Even. Supported.", "", scale)
    by_word = {
        w: c for c, w in re.findall(r'style="background: (rgba\([^)]*\)|transparent);[^>]*>([^<]*)<', shown)
    }
    assert by_word["Unsupported."].startswith("rgba(220, 38, 38,")  # red: below the middle
    assert by_word["Even."].endswith(", 0.000)") and by_word["Supported."].startswith("rgba(22, 163, 74,")
    assert 'title="0.2300"' in shown and "red: below 0.5" in shown


def test_every_heat_map_has_a_declared_scale_or_says_its_values_are_unbounded():
    for spec in SPECS.values():
        if spec.details:
            assert spec.details_scale(spec.default_config) is not None, spec.name
    assert SPECS["ctc_consistency"].details_scale("E-minilm") == heatmap.SIGNED  # cosines
    assert SPECS["ctc_consistency"].details_scale("D-cnndm") == (0.0, 1.0)  # probabilities
    assert SPECS["usr"].details_scale() == (-1.0, 0.0)  # log-probabilities scaled to [-1, 0]
    unbounded = heatmap.render(
        [("a", 3.0), ("b", -1.5)], "a b", "", SPECS["ctc_relevance"].details_scale("R-cnndm")
    )
    assert "−3" in unbounded and "+3" in unbounded and "largest magnitude" in unbounded
    assert heatmap.colour(3.0, heatmap.scale_of(None, [3.0, -1.5])) == heatmap.colour(1.0)


def test_labels_show_as_whole_numbers_in_the_tables():
    """MiniCheck's 0/1 labels beside the scores: 1 and 0, not 1.0000 (a column of 1, 0 and
    None, or the single mode's output/value table of a score and a label, made floats of them)."""
    records = [
        {"id": "a", "predictions": "p"},
        {"id": "b", "predictions": "q"},
        {"id": "c", "predictions": "r"},
    ]
    result = {"scores": [0.91234, 0.1, math.nan], "labels": [1, 0, None], "mean_score": 0.5}
    batch = styled(scored_table(records, result)).to_string().splitlines()
    assert [line.split()[2:4] for line in batch[1:]] == [["0.9123", "1"], ["0.1000", "0"], ["NaN", "NaN"]]
    single = styled(Table(("output", "value"), [["scores", 0.91234], ["labels", 1]])).to_string()
    assert single.splitlines()[1:] == ["0 scores 0.9123", "1 labels 1"]
