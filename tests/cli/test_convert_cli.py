"""Issue 26 §12: every error of ``nlgmetrics convert ctc|usr`` and of ``python -m hub_models.publish --out``
is one line on stderr with exit status 2 and no traceback, and leaves the input files as they were (the real
commands, in subprocesses, on a tiny base model and a tiny USR release)."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from transformers import AutoModel

from nlgmetrics import __version__
from nlgmetrics.alignscore.weights import CHECKPOINT_FILES
from nlgmetrics.core.registry import WeightSpec
from nlgmetrics.testing import save_tiny_model
from references.ctc import original_checkpoint
from tests.hub_models.test_registry import ROOT


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def hashes(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def assert_one_line_error(done: subprocess.CompletedProcess, *parts: str) -> None:
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("nlgmetrics: error: "), done.stderr
    for part in parts:
        assert part in done.stderr, (part, done.stderr)


@pytest.fixture(scope="module")
def ctc_inputs(tmp_path_factory) -> Path:
    """inputs/base (a tiny RoBERTa), inputs/doc_to_summ.ckpt (its ctc_score D checkpoint), and bad inputs."""
    root = tmp_path_factory.mktemp("convert-ctc") / "inputs"
    spec = WeightSpec("D-roberta", "-", "-", "RobertaModel", "tiny base", "-", num_layers=2)
    base = save_tiny_model(spec, root / "base")
    torch.save(original_checkpoint(AutoModel.from_pretrained(base), "D-roberta"), root / "doc_to_summ.ckpt")
    (root / "garbage.ckpt").write_bytes(b"<html>Google Drive - quota exceeded</html>\n")
    shutil.copytree(base, root / "broken-base")
    (root / "broken-base" / "config.json").write_text('{"model_type": "roberta", "hidden_size": ')
    (root / "a-file").write_text("not a folder\n")
    return root


def ctc(
    inputs: Path, output: Path | str, checkpoint: str = "doc_to_summ.ckpt", base: str = "base", *more: str
):
    args = ["--checkpoint", str(inputs / checkpoint), "--variant", "D-cnndm", "--direction", "doc_to_summ"]
    return run(
        "-m",
        "nlgmetrics",
        "convert",
        "ctc",
        *args,
        "--base",
        str(inputs / base),
        "--output",
        str(output),
        *more,
    )


@pytest.mark.parametrize(
    ("case", "parts"),
    [
        ("missing checkpoint", ["nope.ckpt does not exist"]),
        ("garbage checkpoint", ["garbage.ckpt is not a PyTorch checkpoint"]),
        ("corrupt base config.json", ["the base", "broken-base does not give its config"]),
        ("output is a file", ["--output", "a-file is a file"]),
        ("output under a file", ["a-file/out is under", "which is a file"]),
        ("output is the base folder", ["is the input folder"]),
        (
            "checkpoint of another variant",
            ["the base is a roberta model, but AlbertForTokenClassification needs"],
        ),
        ("missing options", ["missing --variant, --direction, --base (or use --all)"]),
        ("--all without checkpoints", ["no checkpoints under"]),
    ],
)
def test_convert_ctc_errors_are_one_line_exit_2_and_leave_the_inputs(ctc_inputs, tmp_path, case, parts):
    before = hashes(ctc_inputs)
    out = tmp_path / "out"
    done = {
        "missing checkpoint": lambda: ctc(ctc_inputs, out, "nope.ckpt"),
        "garbage checkpoint": lambda: ctc(ctc_inputs, out, "garbage.ckpt"),
        "corrupt base config.json": lambda: ctc(ctc_inputs, out, base="broken-base"),
        "output is a file": lambda: ctc(ctc_inputs, ctc_inputs / "a-file"),
        "output under a file": lambda: ctc(ctc_inputs, ctc_inputs / "a-file" / "out"),
        "output is the base folder": lambda: ctc(ctc_inputs, ctc_inputs / "base"),
        "checkpoint of another variant": lambda: run(
            "-m",
            "nlgmetrics",
            "convert",
            "ctc",
            "--checkpoint",
            str(ctc_inputs / "doc_to_summ.ckpt"),
            "--variant",
            "D-mix-albert",
            "--direction",
            "doc_to_summ",
            "--base",
            str(ctc_inputs / "base"),
            "--output",
            str(out),
        ),  # fmt: skip
        "missing options": lambda: run(
            "-m", "nlgmetrics", "convert", "ctc", "--checkpoint", "x.ckpt", "--output", str(out)
        ),
        "--all without checkpoints": lambda: run(
            "-m",
            "nlgmetrics",
            "convert",
            "ctc",
            "--all",
            "--checkpoints-dir",
            str(tmp_path / "none"),
            "--output",
            str(out),
        ),  # fmt: skip
    }[case]()
    assert_one_line_error(done, *parts)
    assert hashes(ctc_inputs) == before and not out.exists()


def test_convert_ctc_still_converts(ctc_inputs, tmp_path):
    done = ctc(ctc_inputs, tmp_path / "out")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert (tmp_path / "out" / "ctc_conversion.json").is_file()


@pytest.fixture(scope="module")
def usr_inputs(tmp_path_factory, usr_release) -> Path:
    """A copy of the tiny USR release (roberta_ft/, ctx/, uk/) and broken variants of it."""
    root = tmp_path_factory.mktemp("convert-usr") / "inputs"
    for part, folder in usr_release.items():
        shutil.copytree(folder, root / part)
    shutil.copytree(root / "mlm", root / "garbage-mlm")
    (root / "garbage-mlm" / "pytorch_model.bin").write_bytes(b"<html>quota exceeded</html>\n")
    shutil.copytree(root / "dr_c", root / "broken-dr_c")
    (root / "broken-dr_c" / "config.json").write_text('{"vocab_size": 50265,')
    shutil.copytree(root / "dr_c", root / "list-dr_c")
    (root / "list-dr_c" / "config.json").write_text("[1, 2]")
    (root / "a-file").write_text("not a folder\n")
    return root


def usr(inputs: Path, output: Path, mlm: str = "mlm", dr_c: str = "dr_c", dr_f: str = "dr_f"):
    folders = ["--mlm", str(inputs / mlm), "--dr-c", str(inputs / dr_c), "--dr-f", str(inputs / dr_f)]
    return run("-m", "nlgmetrics", "convert", "usr", *folders, "--output", str(output))


@pytest.mark.parametrize(
    ("case", "parts"),
    [
        ("missing folder", ["nope has no pytorch_model.bin"]),
        ("garbage weights", ["garbage-mlm/pytorch_model.bin is not a PyTorch state dict"]),
        ("corrupt config.json", ["broken-dr_c/config.json is not valid JSON"]),
        ("config.json not an object", ["list-dr_c/config.json holds a JSON list"]),
        ("output is a file", ["--output", "a-file is a file"]),
        ("output under a file", ["a-file/out is under", "which is a file"]),
        ("output overwrites an input", ["is the input folder"]),
        ("output is the --mlm folder", ["--output", "mlm is the input folder", "mlm"]),
    ],
)
def test_convert_usr_errors_are_one_line_exit_2_and_leave_the_inputs(usr_inputs, tmp_path, case, parts):
    before = hashes(usr_inputs)
    out = tmp_path / "out"
    done = {
        "missing folder": lambda: usr(usr_inputs, out, dr_f="nope"),
        "garbage weights": lambda: usr(usr_inputs, out, mlm="garbage-mlm"),
        "corrupt config.json": lambda: usr(usr_inputs, out, dr_c="broken-dr_c"),
        "config.json not an object": lambda: usr(usr_inputs, out, dr_c="list-dr_c"),
        "output is a file": lambda: usr(usr_inputs, usr_inputs / "a-file"),
        "output under a file": lambda: usr(usr_inputs, usr_inputs / "a-file" / "out"),
        "output overwrites an input": lambda: usr(usr_inputs, usr_inputs),  # inputs/mlm would be rewritten
        "output is the --mlm folder": lambda: usr(usr_inputs, usr_inputs / "mlm"),  # issue 40 §13: mlm/mlm
    }[case]()
    assert_one_line_error(done, *parts)
    assert hashes(usr_inputs) == before and not out.exists()


@pytest.mark.parametrize("under", [False, True])
def test_publish_dry_run_out_a_file_is_one_line_exit_2(tmp_path, under):
    wheel = tmp_path / "dist" / f"nlgmetrics-{__version__}-py3-none-any.whl"
    wheel.parent.mkdir()
    wheel.write_bytes(b"PK\x05\x06" + bytes(18))
    target = tmp_path / "a-file"
    target.write_text("not a folder\n")
    out = target / "staged" if under else target
    done = run("-m", "hub_models.publish", "--wheel", str(wheel), "--dry-run", "--out", str(out))
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, (
        done.stderr
    )
    assert done.stderr.startswith("python -m hub_models.publish: error: --out ") and "a-file" in done.stderr
    assert target.read_text() == "not a folder\n"


# --- issue 33 §8: a converted folder is written whole --------------------------------------------------

FULL_DISK = (
    "import resource, runpy, sys; resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), "
    "resource.getrlimit(resource.RLIMIT_FSIZE)[1])); sys.argv = ['nlgmetrics', *sys.argv[2:]]; "
    "runpy.run_module('nlgmetrics', run_name='__main__')"
)
"""``python -m nlgmetrics`` whose files cannot grow past argv[1] bytes: a write past it fails with EFBIG where
a full disk fails with ENOSPC, for any user (a tiny tmpfs would need root and the right to mount)."""


def ctc_args(inputs: Path, output: Path) -> list[str]:
    args = [
        "--checkpoint",
        str(inputs / "doc_to_summ.ckpt"),
        "--variant",
        "D-cnndm",
        "--direction",
        "doc_to_summ",
    ]
    return [*args, "--base", str(inputs / "base"), "--output", str(output)]


def test_a_conversion_that_cannot_be_written_leaves_the_earlier_one_whole(ctc_inputs, tmp_path):
    from nlgmetrics.ctc.convert import main as convert_ctc

    out = tmp_path / "out"
    assert convert_ctc(ctc_args(ctc_inputs, out)) == 0
    before = hashes(out)
    assert max(p.stat().st_size for p in out.iterdir()) > 65536  # the weights cannot be written
    done = run("-c", FULL_DISK, "65536", "convert", "ctc", *ctc_args(ctc_inputs, out))
    last = done.stderr.splitlines()[-1]  # after the lines torch's extensions may print when they load
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert last.startswith(f"nlgmetrics: error: {out}: ") and "File too large" in last, last
    assert hashes(out) == before and sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_folder_of_other_files_is_not_replaced_by_a_conversion(ctc_inputs, tmp_path, capsys):
    from nlgmetrics.ctc.convert import main as convert_ctc

    (tmp_path / "notes.txt").write_text("mine\n")
    assert convert_ctc(ctc_args(ctc_inputs, tmp_path)) == 2
    assert capsys.readouterr().err == (
        f"nlgmetrics: error: --output {tmp_path} holds other files (and no ctc_conversion.json of an earlier "
        "conversion), which the converted folder would replace: give a new or empty folder\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


# --- issue 47 §1, §7, §9: nlgmetrics convert alignscore --------------------------------------------------


class WritesAMarker:
    """Unpickled, it runs ``os.system`` (what a hostile checkpoint would do): here, it creates a file."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.fixture(scope="module")
def alignscore_inputs(tmp_path_factory, tiny_snapshots) -> Path:
    """inputs/A.ckpt (the tiny AlignScore-base checkpoint), a checkpoint that would run code, text files, a
    checkpoint with a NaN weight, and the tiny bert-base-uncased (a base of other sizes)."""
    root = tmp_path_factory.mktemp("convert-alignscore") / "inputs"
    root.mkdir()
    shutil.copyfile(tiny_snapshots["alignscore-base"] / CHECKPOINT_FILES["alignscore-base"], root / "A.ckpt")
    contents = torch.load(root / "A.ckpt", map_location="cpu", weights_only=True)
    hyper = {**contents["hyper_parameters"], "callback": WritesAMarker(root.parent / "ran")}
    torch.save({**contents, "hyper_parameters": hyper}, root / "evil.ckpt")
    state = {k: v.clone() for k, v in contents["state_dict"].items()}
    state["reg_layer.weight"][0, 0] = float("nan")
    torch.save({**contents, "state_dict": state}, root / "nan.ckpt")
    (root / "notes.txt").write_text("hello world\nline two\n")  # torch.load: KeyError: 101
    (root / "e.txt").write_text("e")  # torch.load: IndexError: pop from empty list
    shutil.copytree(tiny_snapshots["bert-base-uncased"], root / "bert")
    return root


def alignscore(*args: str) -> list[str]:
    return ["convert", "alignscore", *args]


@pytest.mark.parametrize(
    ("case", "parts"),
    [
        ("a text file", ["notes.txt: not a pytorch-lightning checkpoint (not a file torch.save wrote"]),
        ("a one-byte file", ["e.txt: not a pytorch-lightning checkpoint (not a file torch.save wrote"]),
        (
            "a base of other sizes",
            ["the base", "does not match its weights (", "in the checkpoint", "--base"],
        ),
        ("an empty --base", ["--base is empty"]),
        ("a NaN weight", ["nan.ckpt: its tensor reg_layer.weight holds NaN or infinite values"]),
    ],
)
def test_convert_alignscore_errors_are_one_line_exit_2_and_leave_the_inputs(
    alignscore_inputs, tmp_path, capsys, case, parts
):
    from nlgmetrics import cli

    before, out, inputs = hashes(alignscore_inputs), tmp_path / "out", alignscore_inputs
    checkpoint = {"a text file": "notes.txt", "a one-byte file": "e.txt", "a NaN weight": "nan.ckpt"}
    argv = alignscore("--checkpoint", str(inputs / checkpoint.get(case, "A.ckpt")), "--output", str(out))
    base = {"a base of other sizes": str(inputs / "bert"), "an empty --base": ""}
    code = cli.main([*argv, "--base", base[case]] if case in base else argv)
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and err.startswith("nlgmetrics: error: "), err
    for part in parts:
        assert part in err, (part, err)
    assert hashes(alignscore_inputs) == before and not out.exists()


def test_convert_alignscore_refuses_a_checkpoint_that_would_run_code(alignscore_inputs, tmp_path):
    """The real command: one line naming what the file holds, and the file's code never runs."""
    evil, out = alignscore_inputs / "evil.ckpt", tmp_path / "out"
    done = run("-m", "nlgmetrics", *alignscore("--checkpoint", str(evil), "--output", str(out)))
    assert_one_line_error(done, f"{evil} holds posix.system: refused, because loading it could run code")
    assert not (alignscore_inputs.parent / "ran").exists() and not out.exists()


def test_a_conversion_never_replaces_a_folder_holding_its_input_or_files_it_did_not_write(
    alignscore_inputs, tmp_path, capsys
):
    from nlgmetrics import cli

    out = tmp_path / "out"
    assert cli.main(alignscore("--checkpoint", str(alignscore_inputs / "A.ckpt"), "--output", str(out))) == 0
    assert cli.main(alignscore("--checkpoint", str(alignscore_inputs / "A.ckpt"), "--output", str(out))) == 0
    capsys.readouterr()  # an earlier conversion's folder, only its own files: replaced
    shutil.copyfile(alignscore_inputs / "A.ckpt", out / "A.ckpt")
    before = hashes(out)
    assert cli.main(alignscore("--checkpoint", str(out / "A.ckpt"), "--output", str(out))) == 2
    assert capsys.readouterr().err == (
        f"nlgmetrics: error: --output {out} holds the input {out / 'A.ckpt'}, which the converted folder "
        "would replace: give another folder\n"
    )
    assert hashes(out) == before
    (out / "A.ckpt").rename(out / "mine.ckpt")
    before = hashes(out)
    assert cli.main(alignscore("--checkpoint", str(alignscore_inputs / "A.ckpt"), "--output", str(out))) == 2
    assert "holds mine.ckpt, which no conversion wrote (its alignscore.json does not list it)" in (
        capsys.readouterr().err
    )
    assert hashes(out) == before


def test_a_ctc_conversion_never_replaces_a_folder_holding_its_checkpoint(ctc_inputs, tmp_path, capsys):
    from nlgmetrics.ctc.convert import main as convert_ctc

    out = tmp_path / "out"
    assert convert_ctc(ctc_args(ctc_inputs, out)) == 0
    shutil.copyfile(ctc_inputs / "doc_to_summ.ckpt", out / "doc_to_summ.ckpt")
    before = hashes(out)
    moved = ctc_args(ctc_inputs, out)
    moved[1] = str(out / "doc_to_summ.ckpt")
    assert convert_ctc(moved) == 2
    assert f"--output {out} holds the input {out / 'doc_to_summ.ckpt'}" in capsys.readouterr().err
    assert hashes(out) == before
