"""Tokenizer calls that are safe when threads share one loaded tokenizer.

A fast tokenizer's ``__call__`` writes its truncation and padding settings into the shared Rust
backend before encoding (transformers' ``set_truncation_and_padding``) and leaves them there, so two
threads encoding with different settings corrupt each other's encodings (or fail with tokenizers'
``Already borrowed`` / ``Truncation error``). Every family therefore calls :func:`tokenize`, which
runs the call on this thread's own copy of the tokenizer: the same code with the same arguments
(the encodings are identical), and the loaded tokenizer itself is only read (decode, vocabulary).
The window rules live here too: :func:`special_token_layout` (read once, at load) and
:func:`encode_within_window` (a text cut to the model's window as the tokenizer's truncation cuts it).

>>> from tokenizers import Tokenizer, models, pre_tokenizers
>>> from transformers import PreTrainedTokenizerFast
>>> backend = Tokenizer(models.WordLevel({"[UNK]": 0, "a": 1}, "[UNK]"))
>>> backend.pre_tokenizer = pre_tokenizers.Whitespace()
>>> shared = PreTrainedTokenizerFast(tokenizer_object=backend)
>>> tokenize(shared, ["a a a"], truncation=True, max_length=2)["input_ids"]
[[1, 1]]
>>> shared.backend_tokenizer.truncation is None  # shared(...) would have left max_length=2 there
True
"""

from __future__ import annotations

import copy
import threading
import weakref
from collections.abc import Sequence
from typing import Any

_LOCAL = threading.local()


def thread_tokenizer(tokenizer: Any) -> Any:
    """This thread's own copy of ``tokenizer`` (made on the thread's first use, then kept as long as both
    live), for the calls that set truncation or padding state."""
    copies: dict[int, tuple[weakref.ref, Any]] = getattr(_LOCAL, "copies", None) or {}
    _LOCAL.copies = copies
    entry = copies.get(id(tokenizer))
    if entry is None or entry[0]() is not tokenizer:
        for key in [key for key, (ref, _) in copies.items() if ref() is None]:
            del copies[key]  # the copies of tokenizers that are gone
        entry = copies[id(tokenizer)] = (weakref.ref(tokenizer), copy.deepcopy(tokenizer))
    return entry[1]


def tokenize(tokenizer: Any, *args: Any, **kwargs: Any) -> Any:
    """``tokenizer(*args, **kwargs)`` on this thread's own copy: truncation, padding, strides and offsets
    per call, without touching the shared tokenizer."""
    return thread_tokenizer(tokenizer)(*args, **kwargs)


def special_token_layout(tokenizer) -> tuple[int, int]:
    """How many special tokens the tokenizer puts before and after a text's tokens."""
    full = tokenize(tokenizer, "hello world")["input_ids"]
    bare = tokenize(tokenizer, "hello world", add_special_tokens=False)["input_ids"]
    for start in range(len(full) - len(bare) + 1):
        if full[start : start + len(bare)] == bare:
            return start, len(full) - start - len(bare)
    raise ValueError(f"cannot locate the text tokens among the special tokens of {type(tokenizer).__name__}")


def encode_within_window(
    tokenizer, texts: Sequence[str], window: int, n_suffix: int | None = None
) -> list[tuple[list[int], bool]]:
    """(token ids with special tokens, was it cut) per text, cut to ``window`` as the tokenizer's truncation
    does; ``n_suffix``: the special tokens after a text (a wrapper reads :func:`special_token_layout` once, at
    load)."""
    if n_suffix is None:
        n_suffix = special_token_layout(tokenizer)[1]
    out = []
    for ids in tokenize(tokenizer, list(texts), add_special_tokens=True, verbose=False)["input_ids"]:
        cut = len(ids) > window
        if cut:
            ids = ids[: window - n_suffix] + ids[len(ids) - n_suffix :]
        out.append((ids, cut))
    return out
