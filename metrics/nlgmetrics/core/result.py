"""What every result carries: means over the defined scores and a reproducibility signature.

>>> mean_of([1.0, float("nan"), 3.0])
2.0
>>> import math; math.isnan(mean_of([]))
True
>>> signature("ctc_consistency", "E-minilm", ["E:repo@0123abc@layer6"], "float32",
...           versions={"nlgmetrics": "0.1.0", "transformers": "4.57.0", "torch": "2.13.0"})
'nlgmetrics:0.1.0|module:ctc_consistency|config:E-minilm|weights:E:repo@0123abc@layer6|dtype:float32|transformers:4.57.0|torch:2.13.0'
>>> signature("ctc_consistency", "E-minilm", ["E:repo@0123abc@layer6"], "float32", quantize="int8",
...           device="cpu", versions={"nlgmetrics": "0.1.0", "transformers": "4.57.0", "torch": "2.13.0"})
'nlgmetrics:0.1.0|module:ctc_consistency|config:E-minilm|weights:E:repo@0123abc@layer6|dtype:float32|quantize:int8|device:cpu|transformers:4.57.0|torch:2.13.0'
>>> signature("infolm", "bert-base-uncased", ["repo@0123abc"], "float32", tf32=True,
...           versions={"nlgmetrics": "0.1.0", "transformers": "4.57.0", "torch": "2.13.0"})
'nlgmetrics:0.1.0|module:infolm|config:bert-base-uncased|weights:repo@0123abc|dtype:float32|matmul:tf32|transformers:4.57.0|torch:2.13.0'
>>> reg = signature("alignscore", "large", ["repo@0123abc"], "float32", options={"mode": "reg_sp"},
...                 versions={"nlgmetrics": "0.1.0", "transformers": "4.57.0", "torch": "2.13.0"})
>>> reg
'nlgmetrics:0.1.0|module:alignscore|config:large|weights:repo@0123abc|options:mode=reg_sp|dtype:float32|transformers:4.57.0|torch:2.13.0'
>>> signature_difference(reg.replace("|options:mode=reg_sp", ""), reg)
"the option mode differs: the default (a) vs 'reg_sp' (b)"
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from ..version import __version__


def mean_of(values: Iterable[float]) -> float:
    """Mean of the finite values (NaN when there are none): the ``mean_*`` of every result."""
    finite = [v for v in values if math.isfinite(v)]
    return sum(finite) / len(finite) if finite else math.nan


def mean_key(name: str) -> str:
    """The key of a per-example list's mean in a result: ``scores`` → ``mean_score``, ``mlm`` →
    ``mean_mlm``."""
    return "mean_score" if name == "scores" else f"mean_{name}"


@functools.cache
def _installed_versions() -> tuple[tuple[str, str], ...]:
    """Read once per process: importlib.metadata scans the installed packages (~30 ms a call)."""
    out = []
    for name in ("transformers", "torch"):
        try:
            out.append((name, version(name)))
        except PackageNotFoundError:
            out.append((name, "unknown"))
    return tuple(out)


def package_versions() -> dict[str, str]:
    """The versions a score depends on: this package, transformers and torch."""
    return {"nlgmetrics": __version__, **dict(_installed_versions())}


def signature(
    module: str,
    config: str,
    weights: Sequence[str],
    dtype: str,
    *,
    tf32: bool = False,
    quantize: str | None = None,
    device: str | None = None,
    options: Mapping[str, str] | None = None,
    versions: Mapping[str, str] | None = None,
) -> str:
    """One line that pins how a score was made (like bert_score's hash): module, config, every weight
    as ``repo@revision`` (with the layer where one is chosen), the compute() options that change the
    numbers where they are not the defaults (``|options:mode=reg_sp,...``, each value as
    :func:`option_text` writes it; no part when every one is the default), dtype (``|matmul:tf32`` after
    it when float32 matmuls ran in TF32 on CUDA: ``allow_tf32=True``; ``|quantize:int8`` when the Linear
    layers ran in int8), the device type where the numbers depend on its kernels (``|device:cpu``: given
    for reduced precision) and the package versions."""
    versions = versions or package_versions()
    parts = [
        f"nlgmetrics:{versions['nlgmetrics']}",
        f"module:{module}",
        f"config:{config}",
        f"weights:{'+'.join(weights)}",
        *([f"options:{','.join(f'{k}={v}' for k, v in options.items())}"] if options else []),
        f"dtype:{dtype}",
        *(["matmul:tf32"] if tf32 else []),
        *([f"quantize:{quantize}"] if quantize else []),
        *([f"device:{device}"] if device else []),
        f"transformers:{versions['transformers']}",
        f"torch:{versions['torch']}",
    ]
    return "|".join(parts)


_PLAIN_TEXT = re.compile(r"[\w.@/-]{1,64}")
"""A text an option value is written as in a signature: no separator of the signature (``|``, ``,``,
``=``, ``:``, ``+``) and short."""


def _canonical(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _canonical(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_canonical(v) for v in value]
    return value


def option_text(value: Any) -> str:
    """A resolved option value as a signature writes it: a number, ``true``/``false``/``none``, a short name
    as it is, a list of names joined by ``+``, a measure with its parameters
    (``alpha_divergence(alpha=0.75)``); anything else (a corpus, a dict of questions or weights) as
    ``sha256:`` and the first 12 hex digits of its canonical JSON, which tells two values apart without
    writing them out.

    >>> option_text("reg_sp"), option_text(300), option_text(1.0), option_text(True), option_text(["a", "b"])
    ('reg_sp', '300', '1', 'true', 'a+b')
    >>> option_text({"clarity": "question: Is this clear?"})
    'sha256:...'
    """
    if value is None or isinstance(value, bool):
        return {None: "none", True: "true", False: "false"}[value]
    if isinstance(value, (int, float)):
        number = float(value)
        return str(int(number)) if number.is_integer() and abs(number) < 2**53 else repr(number)
    if isinstance(value, str) and _PLAIN_TEXT.fullmatch(value):
        return value
    if (
        isinstance(value, (list, tuple))
        and value
        and all(isinstance(v, str) and _PLAIN_TEXT.fullmatch(v) for v in value)
    ):
        return "+".join(value)
    fields = _canonical(value)
    name = fields.get("name") if isinstance(fields, dict) else None
    if isinstance(name, str) and _PLAIN_TEXT.fullmatch(name):
        rest = {k: v for k, v in fields.items() if k != "name" and v is not None}
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in rest.values()):
            return name + "".join(f"({k}={option_text(v)})" for k, v in rest.items())
    digest = hashlib.sha256(json.dumps(fields, sort_keys=True, ensure_ascii=False, default=repr).encode())
    return f"sha256:{digest.hexdigest()[:12]}"


SAME_NUMBERS = ("dtype", "matmul", "quantize", "device")
"""The signature parts besides the module, config, weights and options that change the numbers: results
that differ in one are not compared (the versions may differ: a new release says what moved)."""


def signature_parts(line: str) -> dict[str, str]:
    """A signature's parts by name (``{"module": "ctc_consistency", ...}``; empty for an empty line)."""
    return dict(part.split(":", 1) for part in str(line or "").split("|") if ":" in part)


def signature_options(line: str) -> dict[str, str]:
    """The options part of a signature by option name (empty when every option was the default)."""
    written = signature_parts(line).get("options", "")
    return dict(item.split("=", 1) for item in written.split(",") if "=" in item)


def signature_difference(a: str, b: str) -> str | None:
    """Why the scores of two signatures cannot be compared: the first option that changes the numbers and
    differs (``the option mode differs: the default (a) vs 'reg_sp' (b)``; an option a signature leaves out
    is its default), or the dtype, TF32 matmuls, int8 or device; None when none differs. The module,
    config and weights are the caller's to compare (they say the metric itself differs)."""
    options_a, options_b = signature_options(a), signature_options(b)

    def shown(options: dict[str, str], name: str) -> str:
        return repr(options[name]) if name in options else "the default"

    for name in dict.fromkeys([*options_a, *options_b]):
        if options_a.get(name) != options_b.get(name):
            return f"the option {name} differs: {shown(options_a, name)} (a) vs {shown(options_b, name)} (b)"
    parts_a, parts_b = signature_parts(a), signature_parts(b)
    for name in SAME_NUMBERS:
        if parts_a.get(name) != parts_b.get(name):
            said = {None: "none"}
            return (
                f"the {name} differs: {said.get(parts_a.get(name), parts_a.get(name))} (a) vs "
                f"{said.get(parts_b.get(name), parts_b.get(name))} (b)"
            )
    return None


def chunk_scores(details: dict) -> list[tuple[str, float | None]]:
    """(chunk, probability) pairs of one example's ``{"chunks", "probabilities"}`` details, for a heat map
    (a claim checker's ``ModuleSpec.details``)."""
    return [
        (chunk, round(p, 3)) for chunk, p in zip(details.get("chunks", []), details.get("probabilities", []))
    ]
