"""Issue 33 §8, 9, 16, 17: the command line writes every file whole, checks ``--shard-dir`` before any
model loads, refuses contradictory flags and says clearly what is wrong with a folder given as input.

A real SIGINT reaches a real ``nlgmetrics score`` while it writes a large file. A full disk is emulated with
``RLIMIT_FSIZE`` in the child process: ``write()`` then fails with EFBIG partway through a file exactly where
a full disk fails it with ENOSPC (the CLI treats every OSError alike), for any user and on any file system,
so the test always runs (a tiny tmpfs would need root and the right to mount)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nlgmetrics import cli

SCORE = ["--metric", "ctc_consistency", "--config", "E-minilm", "--no-progress"]
EARLIER = '{"an": "earlier, complete output"}\n'
JUDGED = [
    {"doc_id": d, "system_id": s, "scores": float((d + 2 * s) % 5), "predict_scores": float((3 * d + s) % 7)}
    for d in range(4)
    for s in range(3)
]
"""Records for meta-eval: a document and a system each, human and metric scores."""


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def one_line_error(code: int, err: str, *parts: str) -> None:
    assert code == 2 and err.startswith("nlgmetrics: error: ") and err.count("\n") == 1, (code, err)
    for part in parts:
        assert part in err, (part, err)


def run(capsys, *argv: str) -> tuple[int, str]:
    code = cli.main(list(argv))
    return code, capsys.readouterr().err


@pytest.fixture
def pairs(tmp_path) -> Path:
    return write_jsonl(
        tmp_path / "pairs.jsonl",
        [{"predictions": "The cat sat on the mat.", "sources": "A cat sat on the mat all day."}] * 2,
    )


# --- §8: written whole ---------------------------------------------------------------------------------


def entries(folder: Path) -> tuple:
    """What a watcher sees of ``folder``: its names, and the size and time of each file."""
    return tuple(
        (p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(folder.iterdir()) if p.exists()
    )


def test_sigint_while_the_output_is_written_leaves_the_earlier_file_and_no_temporary_one(tmp_path):
    """About 50 MB of rows (long extra fields): the write takes a while, and the SIGINT is sent the moment
    anything in the folder changes (a temporary file appears, or the output is truncated in place)."""
    folder = tmp_path / "run"
    folder.mkdir()
    blob = ("The cat sat on the mat. Ünïcödé text. " * 140_000)[:5_000_000]
    rows = [
        {"id": i, "predictions": f"The cat sat {i}.", "sources": "A cat sat.", "blob": blob}
        for i in range(10)
    ]
    write_jsonl(folder / "in.jsonl", rows)
    (folder / "out.jsonl").write_text(EARLIER, encoding="utf-8")
    command = [sys.executable, "-m", "nlgmetrics", "score", "in.jsonl", *SCORE, "--output", "out.jsonl"]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    child = subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    before = entries(folder)
    while child.poll() is None and entries(folder) == before:
        time.sleep(0.0005)
    child.send_signal(signal.SIGINT)
    _, err = child.communicate(timeout=600)
    assert child.returncode == 130, err.decode()  # interrupted, not finished before the signal
    assert err.decode().splitlines()[-1] == "nlgmetrics: interrupted"
    assert sorted(p.name for p in folder.iterdir()) == ["in.jsonl", "out.jsonl"]  # no temporary file
    assert (folder / "out.jsonl").read_text(encoding="utf-8") == EARLIER


FULL_DISK = """import contextlib, io, json, resource, sys
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
from nlgmetrics import cli
answers = []
for argv in json.loads(sys.argv[2]):
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        answers.append([cli.main(argv), err.getvalue()])
print(json.dumps(answers))
"""
"""Runs commands in one process whose files cannot grow past argv[1] bytes (writes fail with EFBIG)."""


def test_a_full_disk_leaves_every_earlier_output_whole_and_no_temporary_file(tmp_path):
    limit = 512  # below each output's size; the shard folder's check writes 4096 bytes
    judged = write_jsonl(tmp_path / "judged.jsonl", JUDGED)
    for name in ("out.jsonl", "result.json", "chart.png"):
        (tmp_path / name).write_text(EARLIER, encoding="utf-8")
    big = write_jsonl(
        tmp_path / "big.jsonl", [{"predictions": "A cat.", "sources": "A cat sat.", "x": "x" * 400}] * 2
    )
    commands = [
        ["score", str(big), *SCORE, "--output", str(tmp_path / "out.jsonl")],
        ["meta-eval", str(judged), "--resamples", "0", "--output", str(tmp_path / "result.json")],
        ["meta-eval", str(judged), "--resamples", "0", "--plot", str(tmp_path / "chart.png")],
        ["score", str(big), *SCORE, "--num-processes", "2", "--shard-dir", str(tmp_path / "shards")],
    ]
    before = sorted(p.name for p in tmp_path.iterdir())
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK, str(limit), json.dumps(commands)],
        capture_output=True, text=True, timeout=600, env=dict(os.environ, OMP_NUM_THREADS="1"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no temporary file, no shard folder
    for name in ("out.jsonl", "result.json", "chart.png"):
        assert (tmp_path / name).read_text(encoding="utf-8") == EARLIER
    (score, output, chart, shards) = json.loads(done.stdout.splitlines()[-1])
    code, err = score  # after the lines some libraries print when torch loads
    assert "Traceback" not in err
    one_line_error(
        code, err.splitlines(keepends=True)[-1], f"cannot write {tmp_path / 'out.jsonl'}: File too large"
    )
    one_line_error(*output, f"cannot write {tmp_path / 'result.json'}: File too large")
    one_line_error(*chart, f"cannot write {tmp_path / 'chart.png'}: File too large")
    one_line_error(*shards, "--shard-dir", "shards: cannot write into", "File too large")


def test_outputs_replace_earlier_ones_keeping_their_mode_and_links(tmp_path, capsys, pairs):
    """A rewritten output keeps the permissions of the file it replaces, and an output given through a
    symbolic link replaces the linked file (the link stays a link)."""
    judged = write_jsonl(tmp_path / "judged.jsonl", JUDGED)
    target = tmp_path / "kept" / "result.json"
    target.parent.mkdir()
    target.write_text(EARLIER)
    target.chmod(0o640)
    (tmp_path / "link.json").symlink_to(target)
    code, err = run(
        capsys, "meta-eval", str(judged), "--resamples", "0", "--output", str(tmp_path / "link.json")
    )
    assert code == 0, err
    assert (tmp_path / "link.json").is_symlink() and "sample" in json.loads(target.read_text())
    assert target.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in target.parent.iterdir()) == ["result.json"]


# --- §9: the shard folder, before any model loads ------------------------------------------------------


@pytest.fixture
def read_only(tmp_path):
    """A folder nobody may write into, root included: ``chattr +i`` for root (whom permissions do not
    stop), mode 0555 for anyone else."""
    folder = tmp_path / "read-only"
    folder.mkdir()
    if os.geteuid() != 0:
        folder.chmod(0o555)
        yield folder
        folder.chmod(0o755)
        return
    made = subprocess.run(["chattr", "+i", str(folder)], capture_output=True, text=True)
    if made.returncode != 0:
        pytest.skip(f"root, and chattr +i is not allowed here: {made.stderr.strip()}")
    yield folder
    subprocess.run(["chattr", "-i", str(folder)], check=True)


@pytest.mark.parametrize(
    ("shard_dir", "message"),
    [
        ("pairs.jsonl", "--shard-dir {tmp}/pairs.jsonl is a file: give a folder"),
        (
            "pairs.jsonl/shards",
            "--shard-dir {tmp}/pairs.jsonl/shards is under {tmp}/pairs.jsonl, which is a file",
        ),
        ("read-only/shards", "--shard-dir {tmp}/read-only/shards: cannot write into {tmp}/read-only ("),
        ("taken/../out.jsonl", "--shard-dir {tmp}/taken/../out.jsonl is the output file {tmp}/out.jsonl"),
        ("taken", "--shard-dir {tmp}/taken: shard-1-of-2.json is a folder, where that shard's scores go"),
    ],
)
def test_a_bad_shard_dir_is_one_line_before_any_process_starts(
    tmp_path, capfd, request, pairs, shard_dir, message
):
    if shard_dir.startswith("read-only"):
        request.getfixturevalue("read_only")
    (tmp_path / "taken" / "shard-1-of-2.json").mkdir(parents=True)
    argv = ["score", str(pairs), *SCORE, "--output", str(tmp_path / "out.jsonl"), "--num-processes", "2"]
    code = cli.main([*argv, "--shard-dir", str(tmp_path / shard_dir)])
    out, err = capfd.readouterr()  # the workers' output too, had any started
    one_line_error(code, err, message.format(tmp=tmp_path))
    assert out == "" and not (tmp_path / "out.jsonl").exists()


# --- §16: contradictory flags --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (
            ["--column", "predictions=a", "--column", "predictions=b"],
            "--column predictions is given twice ('a', then 'b'); read each field from one column",
        ),
        (
            ["--option", "aggregation=sum", "--option", "aggregation=mean"],
            "--option aggregation is given twice with different values ('sum', then 'mean')",
        ),
        (
            ["--config", "E-minilm", "--config", "D-xsum"],
            "--config is given twice with different values ('E-minilm', then 'D-xsum'); give it once",
        ),
    ],
)
def test_contradictory_repeated_flags_are_refused(capsys, pairs, flags, message):
    code, err = run(capsys, "score", str(pairs), "--metric", "ctc_consistency", *flags)
    one_line_error(code, err, message)


def test_the_same_value_twice_is_no_contradiction(capsys, pairs, tmp_path):
    flags = ["--column", "predictions=predictions", "--config", "E-minilm", "--option", "aggregation=sum"]
    code, err = run(
        capsys, "score", str(pairs), *SCORE, *flags, *flags[-2:], "--output", str(tmp_path / "o.jsonl")
    )
    assert code == 0, err


@pytest.mark.parametrize("plot", ["result.png", "./result.png", "link.png", "sub/../result.png"])
def test_meta_eval_output_and_plot_on_one_file_is_refused(tmp_path, capsys, monkeypatch, plot):
    monkeypatch.chdir(tmp_path)
    judged = write_jsonl(tmp_path / "judged.jsonl", JUDGED)
    (tmp_path / "sub").mkdir()
    Path("link.png").symlink_to(tmp_path / "result.png")  # a link to a file that does not exist yet
    code, err = run(capsys, "meta-eval", str(judged), "--output", "result.png", "--plot", plot)
    one_line_error(code, err, f"--output result.png and --plot {plot} are the same file")
    assert not (tmp_path / "result.png").exists()


# --- §17: a folder as input, a reversed --column -------------------------------------------------------


@pytest.mark.parametrize("given", [".", "sub/", "sub"])
def test_a_folder_as_input_is_one_clear_line(tmp_path, capsys, monkeypatch, given):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    code, err = run(capsys, "score", given, "--metric", "ctc_consistency")
    one_line_error(code, err, f"the input '{given.rstrip('/') or given}' is a folder; give a .jsonl")
    assert "--output" not in err


def test_an_input_of_another_type_is_named_as_the_input_not_as_an_output(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("predictions\n")
    code, err = run(capsys, "score", str(tmp_path / "notes.txt"), "--metric", "ctc_consistency")
    one_line_error(code, err, f"the input {tmp_path}/notes.txt: unknown file type '.txt'")
    assert "--output" not in err


def test_a_reversed_column_flag_names_the_right_order(capsys, pairs):
    code, err = run(
        capsys, "score", str(pairs), "--metric", "ctc_consistency", "--column", "summary=predictions"
    )
    one_line_error(
        code, err, "has no input 'summary'", "FIELD=COLUMN: --column predictions=summary reads predictions"
    )
