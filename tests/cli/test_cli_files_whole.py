"""Issue 33 §8, 9, 16, 17: the command line writes every file whole, checks ``--shard-dir`` before any
model loads, refuses contradictory flags and says clearly what is wrong with a folder given as input.

A real SIGINT reaches a real ``nlgmetrics score`` while it writes a large file. A full disk is emulated with
``RLIMIT_FSIZE`` in the child process: ``write()`` then fails with EFBIG partway through a file exactly where
a full disk fails it with ENOSPC (the CLI treats every OSError alike), for any user and on any file system,
so the test always runs (a tiny tmpfs would need root and the right to mount)."""

from __future__ import annotations

import json
import os
import re
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nlgmetrics import cli
from nlgmetrics.core.files import replaced_when_complete, write_text_whole

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


def big_input(folder: Path) -> Path:
    """About 50 MB of rows (long extra fields) in ``folder/in.jsonl``: writing their scores takes a while."""
    blob = ("The cat sat on the mat. Ünïcödé text. " * 140_000)[:5_000_000]
    rows = [
        {"id": i, "predictions": f"The cat sat {i}.", "sources": "A cat sat.", "blob": blob}
        for i in range(10)
    ]
    return write_jsonl(folder / "in.jsonl", rows)


def signalled_while_writing(folder: Path, signum: int) -> tuple[int, str]:
    """``nlgmetrics score in.jsonl --output out.jsonl`` in ``folder``, sent ``signum`` the moment anything
    in the folder changes (a temporary file appears, or the output is truncated in place); its exit status
    and stderr."""
    command = [sys.executable, "-m", "nlgmetrics", "score", "in.jsonl", *SCORE, "--output", "out.jsonl"]
    env = dict(os.environ, OMP_NUM_THREADS="1")
    child = subprocess.Popen(command, cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    before = entries(folder)
    while child.poll() is None and entries(folder) == before:
        time.sleep(0.0005)
    child.send_signal(signum)
    _, err = child.communicate(timeout=600)
    return child.returncode, err.decode()


def earlier_output_and_a_signal(tmp_path: Path, signum: int) -> tuple[Path, int, str]:
    """A run folder with the big input and an earlier output, the signal sent while the new one is written:
    the folder, the exit status and stderr."""
    folder = tmp_path / "run"
    folder.mkdir()
    big_input(folder)
    (folder / "out.jsonl").write_text(EARLIER, encoding="utf-8")
    return (folder, *signalled_while_writing(folder, signum))


def test_sigint_while_the_output_is_written_leaves_the_earlier_file_and_no_temporary_one(tmp_path):
    folder, code, err = earlier_output_and_a_signal(tmp_path, signal.SIGINT)
    assert code == 130, err  # interrupted, not finished before the signal
    assert err.splitlines()[-1] == "nlgmetrics: interrupted"
    assert sorted(p.name for p in folder.iterdir()) == ["in.jsonl", "out.jsonl"]  # no temporary file
    assert (folder / "out.jsonl").read_text(encoding="utf-8") == EARLIER


def test_sigterm_while_the_output_is_written_leaves_the_earlier_file_and_no_temporary_one(tmp_path):
    """SIGTERM (what ``timeout``, ``docker stop`` and Slurm send; issue 40 §11) cleans up as Ctrl-C does,
    then still ends the process as SIGTERM (its status says so to whoever sent it)."""
    folder, code, err = earlier_output_and_a_signal(tmp_path, signal.SIGTERM)
    assert code == -signal.SIGTERM, err  # ended by the signal, not finished before it
    assert sorted(p.name for p in folder.iterdir()) == ["in.jsonl", "out.jsonl"]  # no temporary file
    assert (folder / "out.jsonl").read_text(encoding="utf-8") == EARLIER


def test_what_a_killed_write_left_is_removed_by_the_next_complete_one_and_nothing_else(tmp_path, capsys):
    """SIGKILL cannot be caught: the temporary file stays. The next complete write of the same output
    removes it, and only it: other names in the folder, another output's temporary file and names that
    merely look alike stay (issue 40 §11)."""
    folder = tmp_path / "run"
    folder.mkdir()
    big_input(folder)
    code, err = signalled_while_writing(folder, signal.SIGKILL)
    assert code == -signal.SIGKILL, err
    (left,) = [p.name for p in folder.iterdir() if p.name not in ("in.jsonl", "out.jsonl")]
    assert re.fullmatch(r"\.out\.jsonl\.[0-9a-f]{12}\.partial", left), left
    others = [
        ".scores.jsonl.0123456789ab.partial",
        ".out.jsonl.notours.partial",
        "out.jsonl.0123456789ab.partial",
    ]
    others += [".out.jsonl.0123456789ab.partial.keep", ".out.jsonl.shards"]
    for name in others:
        (folder / name).write_text("not this write's\n")
    pairs = write_jsonl(folder / "pairs.jsonl", [{"predictions": "A cat.", "sources": "A cat sat."}] * 2)
    code, err = run(capsys, "score", str(pairs), *SCORE, "--output", str(folder / "out.jsonl"))
    assert code == 0, err
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        ["in.jsonl", "out.jsonl", "pairs.jsonl", *others]
    )
    assert len((folder / "out.jsonl").read_text().splitlines()) == 2


def test_a_write_under_way_keeps_its_temporary_file_while_another_completes(tmp_path):
    """Two writes of one target at once (a process each, or two in one process): the one that completes
    first leaves the other's temporary file alone, and the other still completes."""
    target = tmp_path / "result.json"
    with replaced_when_complete(target) as slow:
        slow.write_text("second\n")
        write_text_whole(target, "first\n")
        assert slow.read_text() == "second\n" and target.read_text() == "first\n"
    assert target.read_text() == "second\n" and [p.name for p in tmp_path.iterdir()] == ["result.json"]


FULL_DISK = """import contextlib, io, json, resource, sys
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
from nlgmetrics import cli
from nlgmetrics.core.files import replaced_when_complete, write_text_whole
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


def test_a_named_pipe_as_output_is_written_through_to_its_reader(tmp_path, capsys, pairs):
    """A FIFO is not a file to replace (issue 40 §12): its reader gets the scored rows and the pipe stays a
    pipe (before, a renamed regular file took its place and the reader got 0 bytes)."""
    fifo = tmp_path / "out.jsonl"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE, text=True)
    try:
        code, err = run(capsys, "score", str(pairs), *SCORE, "--output", str(fifo))
        got, _ = reader.communicate(timeout=60)  # the writer closed the pipe: the reader ends
    finally:
        reader.kill()
    assert code == 0, err
    assert [json.loads(line)["predictions"] for line in got.splitlines()] == ["The cat sat on the mat."] * 2
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl", "pairs.jsonl"]


def null_node(node: Path) -> Path:
    """``node``: the null device. Root gets its own node of it (``mknod``, so that the system's /dev/null is
    never at stake, even in code that would replace it); anyone else a link to /dev/null, whose folder they
    cannot write into."""
    if os.geteuid() == 0:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    else:
        node.symlink_to("/dev/null")
    return node


@pytest.fixture
def null_device(tmp_path) -> Path:
    """``null.json``: the null device (:func:`null_node`)."""
    return null_node(tmp_path / "null.json")


def test_a_device_as_output_is_written_through_never_replaced(tmp_path, capsys, null_device):
    """A character device (/dev/null) and /dev/stdout (a pipe here) are written into, not replaced by a
    regular file (issue 40 §12)."""
    judged = write_jsonl(tmp_path / "judged.jsonl", JUDGED)
    code, err = run(capsys, "meta-eval", str(judged), "--resamples", "0", "--output", str(null_device))
    assert code == 0, err
    assert stat.S_ISCHR(null_device.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["judged.jsonl", "null.json"]
    command = [sys.executable, "-m", "nlgmetrics", "meta-eval", str(judged), "--resamples", "0"]
    done = subprocess.run(
        [*command, "--output", "/dev/stdout", "--json"], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    written, printed = json.JSONDecoder().raw_decode(done.stdout)[0], done.stdout  # the file, then --json
    assert "sample" in written and printed.count('"sample"') == 2


def test_a_device_or_pipe_without_a_suffix_takes_the_inputs_format(tmp_path, capsys, pairs):
    """``--output /dev/null`` and a named pipe without a suffix are written into, in the input's format (issue
    47 §13: "unknown file type" before, though the docs say devices are written into)."""
    null = null_node(tmp_path / "null")
    code, err = run(capsys, "score", str(pairs), *SCORE, "--output", str(null))
    assert code == 0, err
    assert stat.S_ISCHR(null.stat().st_mode) and sorted(p.name for p in tmp_path.iterdir()) == [
        "null",
        "pairs.jsonl",
    ]
    table = tmp_path / "pairs.csv"
    table.write_text("predictions,sources\nThe cat sat.,A cat sat on the mat.\n", encoding="utf-8")
    fifo = tmp_path / "scores"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE, text=True)
    try:
        code, err = run(capsys, "score", str(table), *SCORE, "--output", str(fifo))
        got, _ = reader.communicate(timeout=60)
    finally:
        reader.kill()
    assert code == 0, err
    header, row = got.splitlines()
    assert header.split(",")[:3] == ["predictions", "sources", "ctc_consistency"] and row.startswith(
        "The cat sat.,"
    )
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_score_into_dev_stdout_leaves_stdout_to_the_rows(pairs):
    """``--output /dev/stdout`` (a pipe here): the scored rows are the whole of stdout (readable by ``jq``);
    the header, means and signature go to stderr."""
    command = [sys.executable, "-m", "nlgmetrics", "score", str(pairs), *SCORE, "--output", "/dev/stdout"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(rows) == 2 and all(-1 <= row["ctc_consistency"] <= 1 for row in rows)
    assert "wrote /dev/stdout" in done.stderr and "signature: nlgmetrics:" in done.stderr


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


def test_a_read_only_file_system_as_shard_dir_is_one_line(tmp_path, pairs):
    """A real read-only file system (issue 40 §10), where removing even a name never created fails with
    EROFS (the probe's clean-up raised it, a traceback hiding the error line): a tmpfs mounted read-only
    in the command's own mount namespace (``unshare --map-root-user --mount``: no root needed where user
    namespaces are allowed, and nothing outside the command sees the mount). ``chattr +i`` (the fixture
    above) gives EPERM instead, and permissions do not stop root."""
    mounted = tmp_path / "ro"
    mounted.mkdir()
    unshare = [
        "unshare",
        "--map-root-user",
        "--mount",
        "sh",
        "-c",
        'mount -t tmpfs -o ro tmpfs "$0" && exec "$@"',
    ]
    tried = subprocess.run([*unshare, str(mounted), "true"], capture_output=True, text=True)
    if tried.returncode != 0:
        pytest.skip(f"no read-only mount can be made here: {tried.stderr.strip() or tried.returncode}")
    argv = ["score", str(pairs), *SCORE, "--output", str(tmp_path / "out.jsonl"), "--num-processes", "2"]
    command = [*unshare, str(mounted), sys.executable, "-m", "nlgmetrics", *argv]
    done = subprocess.run(
        [*command, "--shard-dir", str(mounted / "shards")], capture_output=True, text=True, timeout=300
    )
    one_line_error(
        done.returncode,
        done.stderr,
        f"--shard-dir {mounted}/shards: cannot write into {mounted} (Read-only file system)",
    )
    assert done.stdout == "" and not (tmp_path / "out.jsonl").exists()


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
