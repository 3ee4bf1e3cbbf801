"""Fault injection: damaged index files, full or read-only disks, racing writers, signals."""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gov.core.corpus.reader import load_corpus
from gov.core.errors import IndexBuildError, IndexLoadError
from gov.core.index.fileformat import FORMAT_VERSION, PREFIX
from gov.core.routing.indexes import build_index, load_index
from tests.conftest import POLICIES, run_gov


def test_truncated_at_every_tenth_byte_is_one_clear_error(tmp_path: Path) -> None:
    import io

    docs = b"".join(json.dumps({"name": f"d{i}", "trigger": f"topic {i} words", "examples": [f"ex {i}"]})
                    .encode() + b"\n" for i in range(3))
    small = tmp_path / "small"
    build_index(load_corpus(["-"], stdin=io.BytesIO(docs))).write(small)
    data = small.read_bytes()
    bad = tmp_path / "cut"
    for offset in range(0, len(data), 10):
        bad.write_bytes(data[:offset])
        with pytest.raises(IndexLoadError) as caught:
            load_index(bad)
        assert "gov index" in str(caught.value), offset


def test_another_versions_index(example_index: Path, tmp_path: Path) -> None:
    data = bytearray(example_index.read_bytes())
    magic, _version, flags, header_len, total, digest = PREFIX.unpack(bytes(data[: PREFIX.size]))
    data[: PREFIX.size] = PREFIX.pack(magic, FORMAT_VERSION + 1, flags, header_len, total, digest)
    (tmp_path / "v2").write_bytes(bytes(data))
    with pytest.raises(IndexLoadError, match=f"version {FORMAT_VERSION + 1}"):
        load_index(tmp_path / "v2")


def test_symlink_loop_and_directory(tmp_path: Path) -> None:
    os.symlink(tmp_path / "b", tmp_path / "a")
    os.symlink(tmp_path / "a", tmp_path / "b")
    with pytest.raises(IndexLoadError, match="cannot open the index"):
        load_index(tmp_path / "a")
    result = run_gov("route", "x", "-i", str(tmp_path / "a"))
    assert result.returncode == 2 and "Traceback" not in result.stderr.decode()


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES])
def test_failed_write_keeps_the_previous_index(example_index: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch, code: int) -> None:
    target = tmp_path / "index"
    target.write_bytes(example_index.read_bytes())
    before = target.read_bytes()
    built = build_index(load_corpus([POLICIES], warn=lambda _m: None), previous=target)

    def failing_fsync(_fd: int) -> None:
        raise OSError(code, os.strerror(code))

    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(IndexBuildError) as caught:
        built.write(target)
    assert os.strerror(code) in str(caught.value) and "unchanged" in str(caught.value)
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["index"]  # no temp file left behind


def test_real_full_device_keeps_the_previous_file(tmp_path: Path) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    from gov.core.atomic import atomic_writer

    target = tmp_path / "point.json"
    target.write_text("old")
    with pytest.raises(OSError), atomic_writer(target) as handle, open("/dev/full", "wb") as full:
        handle.write(b"new")
        full.write(b"x" * 100_000)
        full.flush()
    assert target.read_text() == "old"


def test_two_index_runs_on_one_output_leave_one_complete_index(tmp_path: Path) -> None:
    target = tmp_path / "index"
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text("".join(json.dumps({"name": f"d{i}", "trigger": f"topic number {i} words"}) + "\n"
                             for i in range(30)))
    procs = [subprocess.Popen([sys.executable, "-m", "gov.cli.entry", "index", str(source), "-o",
                               str(target), "-q"], stderr=subprocess.PIPE)
             for source in (POLICIES, jsonl)]
    for proc in procs:
        assert proc.wait(timeout=300) == 0
    loaded = load_index(target, verify=True)
    assert sorted(loaded.names) in (sorted(load_corpus([POLICIES]).names),
                                    sorted(f"d{i}" for i in range(30)))
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_sigterm_mid_stream_leaves_whole_lines(example_index: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "gov.cli.entry", "route", "-i", str(example_index),
                             "--batch-size", "8"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    for i in range(40):
        proc.stdin.write(json.dumps({"prompt": f"deploy the service number {i} to production"}).encode() + b"\n")
    proc.stdin.flush()
    time.sleep(0.5)
    first = proc.stdout.readline()  # at least one batch has been written
    proc.send_signal(signal.SIGTERM)
    proc.stdin.close()
    # Drain through the same buffered reader: readline() may already hold the next lines,
    # which communicate() (reading the raw descriptor) would skip.
    rest = proc.stdout.read()
    assert proc.stderr is not None
    err = proc.stderr.read()
    proc.wait(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM
    lines = (first + rest).decode().splitlines()
    assert lines and all(json.loads(line)["routes"] is not None for line in lines)
    assert (first + rest).endswith(b"\n")
    assert b"Traceback" not in err


def test_stdin_terminal_gets_a_hint_not_a_hang(example_index: Path) -> None:
    import pty

    parent, child = pty.openpty()
    try:
        result = subprocess.run([sys.executable, "-m", "gov.cli.entry", "route", "-i", str(example_index)],
                                stdin=child, capture_output=True, timeout=60, check=False)
    finally:
        os.close(parent)
        os.close(child)
    assert result.returncode == 2
    assert b"no prompt" in result.stderr


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"\xef\xbb\xbf" + b'{"prompt": "deploy with a bom"}\r\n', None),
        (b'{"prompt": "a\x00b"}\n', "NUL"),
        (b'{"prompt": "caf\xe9"}\n', "UTF-8"),
        (b"[" * 5000 + b"]" * 5000 + b"\n", "JSON"),
        (b'{"prompt": ' + b'"' + b"x" * (10 * 1024 * 1024) + b'"}\n', None),
    ],
)
def test_encodings_and_monsters_are_per_line(example_index: Path, raw: bytes, message: str | None) -> None:
    stdin = raw + b'{"prompt": "rotate the leaked key", "after": true}\n'
    result = run_gov("route", "-i", str(example_index), input=stdin)
    out = [json.loads(line) for line in result.stdout.decode().splitlines()]
    assert len(out) == 2 and out[1]["after"] is True
    if message is None:
        assert "routes" in out[0] and result.returncode == 0
    else:
        assert message in out[0]["error"]["message"] and result.returncode == 1
