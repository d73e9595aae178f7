"""The single-example heat map, free of Gradio: a module's (token, value) pairs joined into words, each
word coloured on the range its module declares for them (probabilities 0 … 1, cosines −1 … +1) with its
value on hover, under a legend saying what the colours mean.

Tokenizers split words into pieces: WordPiece marks a continuation with ``##`` (``play ##ing``), byte-level
BPE and SentencePiece mark a word's start with ``Ġ`` or ``▁`` (``Ġplay ing``). For display the pieces of a
word are joined, and the word's value is the mean of its pieces' values.

>>> join_pieces([("play", 0.25), ("##ing", 0.75), ("now", -1.0)])
[('playing', 0.5, ('play', '##ing')), ('now', -1.0, ('now',))]
>>> join_pieces([("Ġthe", 0.5), ("Ġcat", 0.0), ("s", 1.0), ("</s>", None)])
[('the', 0.5, ('Ġthe',)), ('cats', 0.5, ('Ġcat', 's')), ('</s>', None, ('</s>',))]
>>> join_pieces([("▁A", 1.0), ("▁dog", None), ("gy", 0.5)])
[('A', 1.0, ('▁A',)), ('doggy', 0.5, ('▁dog', 'gy'))]
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Callable, Sequence

from ..display import SIGNED, centred, scale_of, score_text

WORD_STARTS = ("Ġ", "▁")
"""Byte-level BPE's and SentencePiece's mark of a piece that starts a word."""
CONTINUES = "##"
"""WordPiece's mark of a piece that continues the previous one."""
_SPECIAL = re.compile(r"^(<[^<>\s]+>|\[[A-Z]+\])$")
"""Special tokens (``</s>``, ``[SEP]``): a word of their own."""

Word = tuple[str, "float | None", tuple[str, ...]]
"""(word, value: the mean of its pieces' values or None, the pieces)."""


def _value(value: float | None) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else float(value)


def join_pieces(pairs: Sequence[tuple[str, float | None]]) -> list[Word]:
    """Join (piece, value) pairs into (word, mean value, pieces): ``##x`` continues the previous word; when
    any piece starts with ``Ġ``/``▁``, those start words and unmarked pieces continue the previous one; a
    special token (``</s>``, ``[SEP]``) is a word of its own. Missing values (None, NaN) are left out of
    the mean (None when a word has none)."""
    marked = any(str(p).startswith(WORD_STARTS) for p, _ in pairs)
    groups: list[tuple[str, list[float], list[str]]] = []
    previous_special = True
    for piece, value in pairs:
        piece = str(piece)
        special = bool(_SPECIAL.match(piece))
        if piece.startswith(CONTINUES) and len(piece) > len(CONTINUES) and groups and not previous_special:
            starts, text = False, piece[len(CONTINUES) :]
        elif marked and not special and not previous_special and not piece.startswith(WORD_STARTS):
            starts, text = False, piece
        else:
            starts, text = True, piece[1:] if piece.startswith(WORD_STARTS) and len(piece) > 1 else piece
        if starts:
            groups.append((text, [], []))
        word, values, pieces = groups[-1]
        groups[-1] = (word if starts else word + text, values, pieces)
        if _value(value) is not None:
            values.append(_value(value))
        pieces.append(piece)
        previous_special = special
    return [(w, sum(v) / len(v) if v else None, tuple(p)) for w, v, p in groups]


def spells(words: Sequence[Word], text: str) -> bool:
    """Whether the words appear in ``text`` in order (case and spaces ignored): the pieces are the text's
    tokens, not a ranking of tokens (InfoLM's most different tokens), so joining them is right."""
    haystack = "".join(text.split()).lower()
    at = 0
    for word, _, _ in words:
        if _SPECIAL.match(word):
            continue
        found = haystack.find("".join(word.split()).lower(), at)
        if found < 0:
            return False
        at = found + len("".join(word.split()))
    return bool(words)


def colour(value: float | None, scale: tuple[float, float] = SIGNED) -> str:
    """The CSS background of a value on ``scale`` (low: red … middle: white … high: green), clipped to it."""
    if value is None:
        return "transparent"
    v = centred(value, scale)
    rgb = "22, 163, 74" if v >= 0 else "220, 38, 38"
    return f"rgba({rgb}, {abs(v) * 0.75:.3f})"


def _number(value: float, signed: bool = False) -> str:
    """A legend's number: ``-`` as a minus sign, ``+`` before a positive one when ``signed``."""
    return (f"{value:+g}" if signed and value > 0 else f"{value:g}").replace("-", "−")


def describe(details: Callable[[dict], list] | None) -> str:
    """What a module's heat-map values are: its details renderer's docstring (``ModuleSpec.details``) on
    one line; "" when it has none."""
    if details is None:
        return ""
    return " ".join((details.__doc__ or "").split())


def render(
    pairs: Sequence[tuple[str, float | None]],
    text: str,
    description: str = "",
    declared: tuple[float, float] | None = SIGNED,
) -> str:
    """The heat map as HTML: the legend (the scale, what the values are), then the words (the pieces
    joined when they spell ``text``), each with its value on hover; "" when there is nothing to show.
    ``declared``: the range the module declares for these values (:func:`scale_of`; None: unbounded)."""
    if not pairs:
        return ""
    scale = scale_of(declared, [v for _, v in pairs])
    words = join_pieces(pairs)
    joined = spells(words, text)
    if not joined:
        words = [(str(p), _value(v), (str(p),)) for p, v in pairs]
    spans = []
    for word, value, pieces in words:
        shown = "no value" if value is None else score_text(value)
        if len(pieces) > 1:
            shown += f" (the mean of {len(pieces)} pieces: {' '.join(pieces)})"
        style = f"background: {colour(value, scale)}; padding: 1px 3px; border-radius: 3px; margin: 1px"
        spans.append(
            f'<span class="nlgm-word" title="{html.escape(shown)}" '
            f'data-value="{"" if value is None else value}" style="{style}; display: inline-block">'
            f"{html.escape(word)}</span>"
        )
    gradient = (
        "linear-gradient(to right, rgba(220, 38, 38, 0.75), rgba(255, 255, 255, 0), rgba(22, 163, 74, 0.75))"
    )
    how = (
        "Each word's value is the mean of its tokenizer pieces' values"
        if joined and any(len(p) > 1 for _, _, p in words)
        else "One box per token"
    )
    low, high = scale
    ends = _number(low), _number(high, signed=low < 0)
    middle = _number((low + high) / 2)
    ends_note = f"beyond {ends[0]} … {ends[1]}: the end colour"
    if declared is None:
        ends_note = "values without bounds: the scale is this example's largest magnitude"
    legend = (
        '<div class="nlgm-legend" style="font-size: 0.85em; margin-bottom: 6px; line-height: 1.5">'
        f'<div style="display: flex; align-items: center; gap: 6px">{ends[0]}'
        f'<span style="display: inline-block; width: 160px; height: 12px; background: {gradient}; '
        f'border: 1px solid #ccc"></span>{ends[1]}<span>red: below {middle}, white: {middle}, green: above '
        f"{middle} ({ends_note})</span></div>"
        f"<div>{how}; hover for the value.</div>"
        + (f"<div>What the values are: {html.escape(description)}</div>" if description else "")
        + "</div>"
    )
    return f'{legend}<div class="nlgm-words" style="line-height: 1.9">{"".join(spans)}</div>'


def marked(text: str, marks: Sequence[tuple[int, int, float]], description: str = "") -> str:
    """``text`` as HTML with each (start, end, value) span of its characters marked in red, its value after
    it and on hover, under a line saying what the values are (``description``); "" when there is no mark.

    >>> shown = marked("Paris has 69 million people.", [(10, 20, 0.91)], "confidence")
    >>> shown.split("</div>")[0].split(">")[-1]
    'Marked: 1 span; the number after each: confidence.'
    >>> shown.split('">')[-1]
    '69 million</mark><sup>0.9100</sup> people.</div>'
    """
    if not marks:
        return ""
    pieces, at = [], 0
    for start, end, value in sorted(marks):
        shown = html.escape(score_text(value))
        style = f"background: {colour(-abs(value), (-1.0, 1.0))}; padding: 1px 2px; border-radius: 3px"
        pieces += [
            html.escape(text[at:start]),
            f'<mark class="nlgm-span" title="{shown}" data-value="{value}" style="{style}">'
            f"{html.escape(text[start:end])}</mark><sup>{shown}</sup>",
        ]
        at = max(at, end)
    pieces.append(html.escape(text[at:]))
    count = f"{len(marks)} span{'s' * (len(marks) != 1)}"
    what = f"; the number after each: {html.escape(description)}" if description else ""
    return (
        f'<div class="nlgm-legend" style="font-size: 0.85em; margin-bottom: 6px">Marked: {count}{what}.</div>'
        f'<div class="nlgm-marked" style="line-height: 1.9; white-space: pre-wrap">{"".join(pieces)}</div>'
    )
