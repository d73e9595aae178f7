"""Issue 47 §1, §2, §9: what a checkpoint may hold (no code runs from one: ``load_checkpoint``, the first
use of a config), the first-use conversion keyed by what it was made from (a revision of ``main`` in a
cache of copied files, a damaged converted folder), and checkpoints refused at conversion (NaN weights)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

import nlgmetrics
from nlgmetrics.alignscore.convert import convert_checkpoint, load_checkpoint
from nlgmetrics.alignscore.first_use import converted_cache_root
from nlgmetrics.alignscore.layout import HEADS_FILE, METADATA
from nlgmetrics.alignscore.weights import CHECKPOINT_FILES, REPO
from nlgmetrics.core import weight_cache
from tests.alignscore.conftest import CLAIMS, CONTEXTS


class WritesAMarker:
    """Unpickled, it runs ``os.system`` (what a hostile checkpoint would do): here, it creates a file."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


LIGHTNING_ATTRIBUTE_DICTS = [
    "pytorch_lightning.utilities.parsing.AttributeDict",  # pytorch-lightning 1.x (AlignScore's checkpoints)
    "lightning_fabric.utilities.data.AttributeDict",  # pytorch-lightning 2.x
    "lightning.fabric.utilities.data.AttributeDict",  # the lightning package
]
"""Where Lightning's ``AttributeDict`` (its ``hyper_parameters``) lives, as its checkpoints name it."""


def saved(checkpoint: Path) -> dict:
    """The tiny checkpoint's contents (tensors and plain containers: the weights-only load reads them)."""
    return torch.load(checkpoint, map_location="cpu", weights_only=True)


def attribute_dict_class(full_name: str) -> type:
    """A dict subclass importable as ``full_name`` while the test runs (Lightning is not installed): what
    pytorch-lightning pickles ``hyper_parameters`` as."""
    module, _, name = full_name.rpartition(".")
    return type(name, (dict,), {"__module__": module, "__qualname__": name})


def save_with_attribute_dict(path: Path, contents: dict, full_name: str, monkeypatch) -> Path:
    """``contents`` saved with its hyper_parameters in a Lightning-like ``AttributeDict`` named
    ``full_name``."""
    cls = attribute_dict_class(full_name)
    parts = full_name.split(".")[:-1]
    for k in range(1, len(parts) + 1):
        monkeypatch.setitem(sys.modules, ".".join(parts[:k]), types.ModuleType(".".join(parts[:k])))
    setattr(sys.modules[".".join(parts)], cls.__name__, cls)
    torch.save({**contents, "hyper_parameters": cls(contents["hyper_parameters"])}, path)
    for k in range(1, len(parts) + 1):
        monkeypatch.delitem(sys.modules, ".".join(parts[:k]))
    return path


def with_new_heads(contents: dict, shift: int) -> dict:
    """Another checkpoint of the same layout: the rows of its 3-way and binary heads rolled by ``shift`` (the
    classes swap: scores stay spread over (0, 1) and differ from the original's)."""
    state = dict(contents["state_dict"])
    for name in ("bin_layer", "tri_layer"):
        for part in ("weight", "bias"):
            state[f"{name}.{part}"] = state[f"{name}.{part}"].roll(shift, dims=0)
    return {**contents, "state_dict": state}


# --- §1: what a checkpoint may hold ------------------------------------------------------------------


@pytest.mark.parametrize("legacy", [False, True])
def test_a_checkpoint_that_would_run_code_is_refused_and_runs_nothing(checkpoint_files, tmp_path, legacy):
    marker, evil = tmp_path / "ran", tmp_path / "evil.ckpt"
    contents = saved(checkpoint_files["base"][0])
    contents["hyper_parameters"] = {**contents["hyper_parameters"], "callback": WritesAMarker(marker)}
    torch.save(contents, evil, _use_new_zipfile_serialization=not legacy)
    with pytest.raises(ValueError) as refused:
        load_checkpoint(evil)
    message = str(refused.value)
    assert "\n" not in message and message.startswith(f"{evil} holds posix.system: refused")
    assert "could run code" in message and "AttributeDict" in message
    with pytest.raises(ValueError, match="could run code"):
        convert_checkpoint(evil, tmp_path / "out")
    assert not marker.exists() and not (tmp_path / "out").exists()


@pytest.mark.parametrize("full_name", LIGHTNING_ATTRIBUTE_DICTS)
def test_a_lightning_attribute_dict_of_hyper_parameters_still_converts(
    checkpoint_files, tmp_path, monkeypatch, full_name
):
    checkpoint, _ = checkpoint_files["base"]
    lightning = save_with_attribute_dict(
        tmp_path / "lightning.ckpt", saved(checkpoint), full_name, monkeypatch
    )
    assert torch.serialization.get_unsafe_globals_in_checkpoint(lightning) == [full_name]
    state, hyper = load_checkpoint(lightning)
    assert type(hyper) is dict and hyper == saved(checkpoint)["hyper_parameters"]
    out = convert_checkpoint(lightning, tmp_path / "out")
    want = nlgmetrics.load("alignscore", model=str(convert_checkpoint(checkpoint, tmp_path / "plain")))
    got = nlgmetrics.load("alignscore", model=str(out)).compute(predictions=CLAIMS, sources=CONTEXTS)
    assert got["scores"] == want.compute(predictions=CLAIMS, sources=CONTEXTS)["scores"]


# --- §2: the first-use conversion, keyed by what it was made from --------------------------------------


class MainOfTheCache:
    """``yzha/AlignScore``'s ``main`` in the offline cache, moved to new commits whose snapshots hold a copy
    of a checkpoint as AlignScore-base.ckpt (copied files, no links: a cache copied without symbolic
    links); :meth:`put_back` restores ``main`` and removes the conversions made meanwhile."""

    def __init__(self):
        self.repo = Path(os.environ["HF_HUB_CACHE"]) / f"models--{REPO.replace('/', '--')}"
        self.was = (self.repo / "refs" / "main").read_text()
        self.converted = set(converted_cache_root().glob("*/*"))

    def move_to(self, checkpoint: Path) -> str:
        """``main`` moved to a new commit holding ``checkpoint``; returns the commit."""
        commit = hashlib.sha1(os.urandom(16)).hexdigest()
        (self.repo / "snapshots" / commit).mkdir()
        shutil.copyfile(checkpoint, self.repo / "snapshots" / commit / CHECKPOINT_FILES["alignscore-base"])
        (self.repo / "refs" / "main").write_text(commit)
        weight_cache.clear_cache()
        return commit

    def new_conversions(self) -> list[Path]:
        return sorted(set(converted_cache_root().glob("*/*")) - self.converted)

    def put_back(self) -> None:
        (self.repo / "refs" / "main").write_text(self.was)
        weight_cache.clear_cache()
        for folder in self.new_conversions():
            shutil.rmtree(folder)


@pytest.fixture
def main_of_the_cache() -> Iterator[MainOfTheCache]:
    main = MainOfTheCache()
    yield main
    main.put_back()


def scores_of(config: str | None = None, **load) -> list[float]:
    loaded = nlgmetrics.load("alignscore", config, device="cpu", **load)
    return loaded.compute(predictions=CLAIMS, sources=CONTEXTS)["scores"]


def test_a_new_revision_of_main_is_converted_again_in_a_cache_without_links(
    checkpoint_files, tmp_path, main_of_the_cache
):
    """Two revisions of AlignScore-base.ckpt, the same file name, copied files: after main moves, the
    config scores with the new checkpoint, as its own conversion does; the conversion records both."""
    original = saved(checkpoint_files["base"][0])
    files = {}
    for revision, shift in (("old", 1), ("new", 2)):
        files[revision] = tmp_path / revision / CHECKPOINT_FILES["alignscore-base"]
        files[revision].parent.mkdir()
        torch.save(with_new_heads(original, shift), files[revision])
    want = {
        r: scores_of(model=str(convert_checkpoint(f, tmp_path / f"{r}-converted"))) for r, f in files.items()
    }
    assert want["old"] != want["new"]
    main_of_the_cache.move_to(files["old"])
    assert scores_of("base") == want["old"]
    commit = main_of_the_cache.move_to(files["new"])
    assert scores_of("base") == want["new"]
    recorded = [json.loads((f / METADATA).read_text()) for f in main_of_the_cache.new_conversions()]
    made_from = {"commit": commit, "checkpoint_sha256": hashlib.sha256(files["new"].read_bytes()).hexdigest()}
    assert made_from in [{key: r.get(key) for key in made_from} for r in recorded]


def overwritten(path: Path, start: bytes) -> None:
    """``path`` with its first bytes replaced by ``start``, its size kept (only a read tells)."""
    data = path.read_bytes()
    path.write_bytes(start + data[len(start) :])


DAMAGES = {
    "no model.safetensors": lambda folder: (folder / "model.safetensors").unlink(),
    "a truncated config.json": lambda folder: (folder / "config.json").write_text('{"model_type": "rob'),
    "a config.json of the same size, not JSON": lambda folder: overwritten(folder / "config.json", b"x"),
    "a damaged safetensors header": lambda folder: overwritten(folder / HEADS_FILE, b"\xff" * 8),
    "an unreadable alignscore.json": lambda folder: (folder / METADATA).write_text("{"),
    "no alignscore.json": lambda folder: (folder / METADATA).unlink(),
}


@pytest.mark.parametrize("damage", DAMAGES)
def test_a_damaged_first_use_conversion_is_converted_again(checkpoint_files, main_of_the_cache, damage):
    main_of_the_cache.move_to(checkpoint_files["base"][0])
    want = scores_of("base")
    (folder,) = main_of_the_cache.new_conversions()
    DAMAGES[damage](folder)
    weight_cache.clear_cache()
    assert scores_of("base") == want
    assert (folder / HEADS_FILE).is_file() and (folder / "model.safetensors").is_file()


def test_a_first_use_checkpoint_that_would_run_code_is_refused_and_runs_nothing(
    checkpoint_files, tmp_path, main_of_the_cache
):
    marker = tmp_path / "ran"
    contents = saved(checkpoint_files["base"][0])
    contents["hyper_parameters"] = {**contents["hyper_parameters"], "callback": WritesAMarker(marker)}
    torch.save(contents, tmp_path / "evil.ckpt")
    main_of_the_cache.move_to(tmp_path / "evil.ckpt")
    with pytest.raises(ValueError, match="holds posix.system: refused, because loading it could run code"):
        nlgmetrics.load("alignscore", "base", device="cpu")
    assert not marker.exists() and main_of_the_cache.new_conversions() == []


# --- §9: a checkpoint refused at conversion -----------------------------------------------------------


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_a_checkpoint_with_nan_or_inf_weights_is_refused_naming_the_tensor(checkpoint_files, tmp_path, value):
    contents = saved(checkpoint_files["base"][0])
    state = dict(contents["state_dict"])
    name = next(k for k in state if k.startswith("base_model.encoder.") and k.endswith(".weight"))
    state[name] = state[name].clone()
    state[name][0, 0] = value
    torch.save({**contents, "state_dict": state}, tmp_path / "nan.ckpt")
    with pytest.raises(ValueError, match=f"nan.ckpt: its tensor {name} holds NaN or infinite values"):
        convert_checkpoint(tmp_path / "nan.ckpt", tmp_path / "out")
    assert not (tmp_path / "out").exists()


SCORE_A_FOLDER = """
import json, sys
import nlgmetrics
module = nlgmetrics.load("alignscore", model=sys.argv[1], device="cpu")
scores = module.compute(predictions=json.loads(sys.argv[2]), sources=json.loads(sys.argv[3]))["scores"]
print(json.dumps({"scores": scores, "loaded": sorted(m for m in sys.modules if m.startswith("nlgmetrics."))}))
"""


def test_scoring_a_converted_folder_imports_no_converter(checkpoint_files, tmp_path):
    """Issue 48 §5: a scorer reads a converted folder; converting (the checkpoint loader, the command line's
    parser in ``console``) is the converter's, imported only when a first use converts."""
    checkpoint, base = checkpoint_files["base"]
    folder = convert_checkpoint(checkpoint, tmp_path / "converted", base=str(base))
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    env["PYTHONPATH"] = f"{Path(nlgmetrics.__file__).parents[1]}{os.pathsep}{Path(__file__).parents[2]}"
    run = subprocess.run(
        [sys.executable, "-c", SCORE_A_FOLDER, str(folder), json.dumps(CLAIMS[:2]), json.dumps(CONTEXTS[:2])],
        capture_output=True,
        text=True,
        env=env,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    done = json.loads(run.stdout.splitlines()[-1])
    assert len(done["scores"]) == 2 and all(0 <= s <= 1 for s in done["scores"])
    assert "nlgmetrics.alignscore.scorer" in done["loaded"]  # it did score through the family's scorer
    assert {"nlgmetrics.alignscore.convert", "nlgmetrics.console"} & set(done["loaded"]) == set()
