"""How the modes run: a button's click shows its results, or the failure's message in the mode's note
(Markdown, kept until the next action, the other outputs cleared) instead of a toast that vanishes; the
same function is also a named API endpoint, where a failure stays an error the client sees and each output
is its value (not the page's update of a label or of what is shown).

>>> error_markdown(ValueError("config `D-cnndm` needs </s> here"))
'⚠️ **Error:** config `D-cnndm` needs &lt;/s&gt; here'
"""

from __future__ import annotations

import functools
import html
import inspect
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from ..limits import Limits
from ..uploads import read_upload
from .pool import error_text, user_error

if TYPE_CHECKING:
    from .context import FamilyContext


def error_markdown(err: BaseException) -> str:
    """The failure's message as Markdown: code spans (backticks) kept, any other ``<``/``>`` shown as is."""
    parts = error_text(err).split("`")
    text = "`".join(part if i % 2 else html.escape(part, quote=False) for i, part in enumerate(parts))
    return f"⚠️ **Error:** {text}"


def upload_problem(path: str | None, limits: Limits) -> str:
    """What is wrong with an upload, as the note shows it at once ("" when it reads, or when there is none):
    a file type the Space does not read (a ``.txt`` of plain texts has no columns naming the fields), too big,
    or not valid."""
    if not path:
        return ""
    try:
        read_upload(path, limits)
    except ValueError as err:
        return error_markdown(err)
    return ""


def plain(value: Any) -> Any:
    """An output as an API client gets it: a page update (``gr.update(value=..., label=...)``) as its value.

    >>> plain({"__type__": "update", "value": 0.5, "label": "Score"}), plain(0.5)
    (0.5, 0.5)
    """
    if isinstance(value, dict) and value.get("__type__") == "update" and "value" in value:
        return value["value"]
    return value


def named_signature(fn: Callable, names: Sequence[str]) -> inspect.Signature:
    """``fn``'s signature with one named parameter per input (``fn`` may take them as ``*values``), its
    keyword-only ones (Gradio's progress tracker) kept: Gradio names an endpoint's parameters after it.

    >>> def score(name, *values, progress=None): ...
    >>> str(named_signature(score, ["module", "predictions", "aggregation"]))
    '(module, predictions, aggregation, *, progress=None)'
    """
    keyword = [p for p in inspect.signature(fn).parameters.values() if p.kind == p.KEYWORD_ONLY]
    named = [inspect.Parameter(name, inspect.Parameter.POSITIONAL_OR_KEYWORD) for name in names]
    return inspect.Signature([*named, *keyword])


def guarded(fn: Callable) -> Callable:
    """``fn`` with every failure raised as a gr.Error showing the message only (never a traceback)."""
    import gradio as gr

    @functools.wraps(fn)
    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except gr.Error:
            raise
        except Exception as err:  # every failure becomes a message, never a traceback
            raise user_error(err) from None

    return run


def connect(
    ctx: FamilyContext,
    button: Any,
    fn: Callable,
    *,
    inputs: Sequence[Any],
    outputs: Sequence[Any],
    note: Any,
    cleared: Sequence[Any],
    api_name: str,
    names: Sequence[str],
    api_outputs: Sequence[Any] | None = None,
) -> None:
    """Run ``fn`` on ``button``'s click into ``outputs`` (``note`` among them); on a failure ``note`` shows
    the message and every other output takes its ``cleared`` value (aligned with ``outputs``). The API
    endpoint ``api_name`` runs ``fn`` too, into ``api_outputs`` (default: the same), raising failures
    (``ctx.guarded``); its parameters are ``names`` (one per input: what ``view_api()`` shows)."""
    import gradio as gr

    outputs, api_outputs = list(outputs), list(api_outputs or outputs)
    at_note = outputs.index(note)
    picked = [outputs.index(o) for o in api_outputs]

    @functools.wraps(fn)
    def shown(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as err:  # every failure becomes a message beside the control, never a traceback
            print(f"nlgmetrics space: refused: {error_text(err)}", file=sys.stderr)
            return tuple(error_markdown(err) if i == at_note else value for i, value in enumerate(cleared))

    @functools.wraps(fn)
    def api(*args, **kwargs):
        values = [plain(value) for value in fn(*args, **kwargs)]
        return tuple(values[i] for i in picked)

    api.__signature__ = named_signature(fn, names)

    button.click(
        shown, inputs=list(inputs), outputs=outputs, api_visibility="private", concurrency_id="models"
    )
    endpoint = gr.Button(visible=False, elem_id=f"{api_name}-api")  # clients call it by api_name
    endpoint.click(
        ctx.guarded(api), inputs=list(inputs), outputs=api_outputs, api_name=api_name, concurrency_id="models"
    )
