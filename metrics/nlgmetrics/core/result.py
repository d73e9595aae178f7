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
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from importlib.metadata import PackageNotFoundError, version

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
    versions: Mapping[str, str] | None = None,
) -> str:
    """One line that pins how a score was made (like bert_score's hash): module, config, every weight
    as ``repo@revision`` (with the layer where one is chosen), dtype (``|matmul:tf32`` after it when
    float32 matmuls ran in TF32 on CUDA: ``allow_tf32=True``; ``|quantize:int8`` when the Linear layers ran
    in int8), the device type where the numbers depend on its kernels (``|device:cpu``: given for reduced
    precision) and the package versions."""
    versions = versions or package_versions()
    parts = [
        f"nlgmetrics:{versions['nlgmetrics']}",
        f"module:{module}",
        f"config:{config}",
        f"weights:{'+'.join(weights)}",
        f"dtype:{dtype}",
        *(["matmul:tf32"] if tf32 else []),
        *([f"quantize:{quantize}"] if quantize else []),
        *([f"device:{device}"] if device else []),
        f"transformers:{versions['transformers']}",
        f"torch:{versions['torch']}",
    ]
    return "|".join(parts)
