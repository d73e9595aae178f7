"""Scoring a large dataset across processes and GPUs, on accelerate.

:func:`score_dataset` runs in every process of a job started by ``accelerate launch`` or ``torchrun``
(gloo on CPU, one GPU per process): each process scores one contiguous shard on its own device and
writes it to ``output_dir/shard-<k>-of-<n>.json``, then the main process gathers every shard's scores
in input order and returns them (one result, as a one-process ``compute()`` gives). A shard whose file
is already there for the same job is read back instead of scored, so a job that died resumes where it
stopped. :func:`run_local_workers` starts such a job on this machine (``nlgmetrics score --num-processes``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import socket
import subprocess
import time
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .core.files import check_writable_folder, write_text_whole
from .core.result import mean_key, mean_of, package_versions
from .core.validation import check_inputs
from .core.values import check_positive_int
from .core.warnings import NLGMetricsWarning
from .modules import SPECS, loading, module_names

UNKEYED_LOAD_OPTIONS = ("device", "batch_size")
"""Load options that do not change the scores: a shard scored with other values is still reused."""
UNKEYED_COMPUTE_OPTIONS = ("show_progress",)


class ShardWriteError(OSError):
    """A shard's scores could not be written (the disk filled up while scoring): the message names it."""


def score_dataset(
    metric: str,
    data: Any,
    config: str | None = None,
    *,
    output_dir: str | Path,
    load_options: Mapping[str, Any] | None = None,
    compute_options: Mapping[str, Any] | None = None,
) -> dict | None:
    """Score this process's contiguous shard of ``data`` and return every shard's scores on the main process.

    ``data`` is a ``datasets.Dataset`` or a mapping ``{field: list}`` with the module's input fields
    (``predictions``, ``sources``, ...). ``load_options`` go to :func:`nlgmetrics.load` (``device``
    unset or ``"cuda"`` means the process's own: ``cuda:<local rank>``, else the CPU), ``compute_options``
    to ``compute()``. Returns, on the main process, the result of a one-process ``compute()`` of all of
    ``data``: the per-example lists in input order, each ``mean_*`` over them, the signature; elsewhere None.
    Without a launcher it is one process scoring one shard.
    """
    try:
        from accelerate import PartialState
        from accelerate.utils import gather_object
    except ImportError as err:
        raise ImportError(
            "scoring across processes needs accelerate: pip install 'nlgmetrics[distributed]'"
        ) from err

    from .core.device import requested_device, wants_cuda  # torch: imported when a job runs

    if metric not in SPECS:
        raise ValueError(f"unknown module {metric!r}; choose one of {', '.join(module_names())}")
    spec = SPECS[metric]
    fields = spec.inputs_for(spec.check_config(config))
    fields = [f for f in fields if f not in spec.optional_inputs or f in _column_names(data)]
    load_options, compute_options = dict(load_options or {}), dict(compute_options or {})
    missing = [name for name in fields if name not in _column_names(data)]
    if missing:
        raise ValueError(f"data has no {', '.join(missing)}; {metric} needs {', '.join(fields)}")

    check_shard_folder(output_dir, int(os.environ.get("WORLD_SIZE", "1")))  # before any process group
    state = PartialState(cpu=not wants_cuda(load_options.get("device")))
    rank, world = state.process_index, state.num_processes
    whole = data if _is_dataset(data) else {name: list(data[name]) for name in fields}
    with state.split_between_processes(whole) as shard:
        inputs = {name: list(shard[name]) for name in fields}
    start = sum(gather_object([len(inputs[fields[0]])])[:rank])
    try:
        check_inputs(inputs, reference_fields=spec.list_inputs)
    except ValueError as err:
        raise ValueError(f"{err} (index within shard {rank}, which starts at example {start})") from None

    key = shard_key(metric, config, load_options, compute_options, inputs, (rank, world, start))
    path = Path(output_dir) / shard_name(rank, world)
    result = _read_shard(path, key, len(inputs[fields[0]]))
    if result is None:
        if requested_device(load_options.get("device")) in (None, "cuda"):
            load_options["device"] = str(state.device)  # this process's own GPU
        module = loading.load(metric, config, **load_options)
        result = module.compute(**inputs, **compute_options)
        _write_shard(path, key, result)

    results = gather_object([result])
    return merge_results(results) if state.is_main_process else None


def merge_results(parts: Sequence[dict]) -> dict:
    """The results of consecutive shards as one: each per-example list joined in shard order (a shard with
    zero examples may lack a sub-score's list), each ``mean_*`` recomputed over it, the rest the first's."""
    merged = dict(parts[0])
    lists = dict.fromkeys(name for part in parts for name, value in part.items() if isinstance(value, list))
    for name in lists:
        merged[name] = [item for part in parts for item in part.get(name, [])]
        mean = mean_key(name)
        if any(mean in part for part in parts):
            merged[mean] = mean_of(merged[name])
    return merged


def _column_names(data: Any) -> Sequence[str]:
    return data.column_names if _is_dataset(data) else list(data)


def _is_dataset(data: Any) -> bool:
    import datasets

    return isinstance(data, datasets.Dataset)


def shard_name(rank: int, world: int) -> str:
    """The file of shard ``rank`` of a ``world``-process job."""
    return f"shard-{rank}-of-{world}.json"


def shard_key(
    metric: str,
    config: str | None,
    load_options: Mapping[str, Any],
    compute_options: Mapping[str, Any],
    inputs: Mapping[str, list],
    shard: tuple[int, int, int],
) -> str:
    """What a shard file must have been written for to be read back: the job (metric, config, the options
    that change scores, package versions), the shard (rank, world, first example) and its inputs."""
    job = {
        "metric": metric,
        "config": config,
        "load_options": {k: v for k, v in load_options.items() if k not in UNKEYED_LOAD_OPTIONS},
        "compute_options": {k: v for k, v in compute_options.items() if k not in UNKEYED_COMPUTE_OPTIONS},
        "versions": package_versions(),
        "shard": list(shard),
        "inputs": hashlib.sha256(json.dumps(inputs, sort_keys=True).encode()).hexdigest(),
    }
    return hashlib.sha256(json.dumps(job, sort_keys=True, default=str).encode()).hexdigest()


def check_shard_folder(folder: str | os.PathLike, world: int, flag: str = "output_dir") -> Path:
    """Before any model loads or process group starts: the shard folder can be written (not a file, nor
    under one, nor read-only or full: :func:`~nlgmetrics.core.files.check_writable_folder`), and none of
    the job's shard names is taken by something other than a file. A ValueError naming ``flag``."""
    folder = check_writable_folder(folder, flag)
    for rank in range(world):
        path = folder / shard_name(rank, world)
        if (path.exists() or path.is_symlink()) and not path.is_file():
            raise ValueError(
                f"{flag} {folder}: {path.name} is {'a folder' if path.is_dir() else 'not a file'}, where "
                "that shard's scores go; remove it"
            )
    return folder


def shard_problem(result: Any, count: int) -> str | None:
    """Why a saved shard result is not one of ``count`` examples (None: it is): a result is an object
    with a ``scores`` list, every list has one value per example, and every per-example score list (one
    with a ``mean_*``) and every mean holds numbers (NaN and InfoLM's ±inf are numbers)."""
    if not isinstance(result, dict) or not isinstance(result.get("scores"), list):
        return "it holds no result with a list of scores"
    for name, value in result.items():
        if isinstance(value, list) and len(value) != count:
            return f"its {name} has {len(value)} values for the shard's {count} examples"
        numbers = [value] if name.startswith("mean_") else []
        if isinstance(value, list) and mean_key(name) in result:
            numbers = value
        bad = [v for v in numbers if isinstance(v, bool) or not isinstance(v, (int, float))]
        if bad:
            return f"its {name} holds {bad[0]!r}, not a number"
    return None


def _read_shard(path: Path, key: str, count: int) -> dict | None:
    """The shard's result if ``path`` holds a valid one (:func:`shard_problem`) for the same job (same
    key), else None: a shard of another job silently, an unreadable or invalid one with a warning."""
    if not path.is_file():
        return None
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        problem = f"it cannot be read ({err})"
    else:
        if not isinstance(saved, dict) or saved.get("key") != key:
            return None  # another job's shard: scored again, as documented
        problem = shard_problem(saved.get("result"), count)
        if problem is None:
            return saved["result"]
    warnings.warn(f"{path}: {problem}; scoring the shard again", NLGMetricsWarning, stacklevel=2)
    return None


def _write_shard(path: Path, key: str, result: dict) -> None:
    """Written whole (:func:`~nlgmetrics.core.files.replaced_when_complete`): a shard file is complete."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_whole(path, json.dumps({"key": key, "result": result}))
    except OSError as err:
        raise ShardWriteError(f"cannot write the shard {path} ({err.strerror or err})") from err


def end_process_group() -> None:
    """After the last collective of a job: wait for every rank, then tear the default process group down.

    Left to the interpreter's exit, gloo's threads can outlive it and abort the process
    ("terminate called without an active exception", exit code -6).
    """
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        dist.barrier()
        dist.destroy_process_group()


def run_local_workers(command: Sequence[str], num_processes: int) -> int:
    """Run ``command`` as the ranks 0 … N-1 of one job on this machine, in the environment ``torchrun``
    gives (``RANK``, ``LOCAL_RANK``, ``WORLD_SIZE``, ``MASTER_ADDR``/``MASTER_PORT``). When one rank fails
    the others are stopped. Returns 0, or the exit code of the first rank that failed."""
    num_processes = check_positive_int("num_processes", num_processes)
    with socket.socket() as probe:  # a free port for rank 0's rendez-vous
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    env.update(WORLD_SIZE=str(num_processes), LOCAL_WORLD_SIZE=str(num_processes))
    env.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 1) // num_processes)))
    workers = [
        subprocess.Popen(list(command), env=dict(env, RANK=str(rank), LOCAL_RANK=str(rank)))
        for rank in range(num_processes)
    ]
    try:
        while True:
            codes = [worker.poll() for worker in workers]
            failed = [code for code in codes if code not in (None, 0)]
            if failed or all(code == 0 for code in codes):
                return failed[0] if failed else 0
            time.sleep(0.1)
    except KeyboardInterrupt:  # Ctrl-C reached every rank too: let them stop on their own first
        _wait(workers, STOP_GRACE_S)
        raise
    finally:
        _stop(workers)


STOP_GRACE_S = 5.0
"""How long a rank has to stop after Ctrl-C (removing its temporary files) before it is terminated."""


def _wait(workers: Sequence[subprocess.Popen], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    for worker in workers:
        with contextlib.suppress(subprocess.TimeoutExpired):
            worker.wait(timeout=max(0.0, deadline - time.monotonic()))


def _stop(workers: Sequence[subprocess.Popen]) -> None:
    """Stop the ranks still running as Ctrl-C would (a rank writing a file removes its temporary file),
    then terminate those that did not stop within :data:`STOP_GRACE_S` (one blocked in a collective)."""
    running = [worker for worker in workers if worker.poll() is None]
    for worker in running:
        worker.send_signal(signal.SIGINT)
    _wait(running, STOP_GRACE_S)
    for worker in running:
        if worker.poll() is None:
            worker.terminate()
        worker.wait()
