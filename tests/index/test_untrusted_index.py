"""Crafted index files: each is one line naming the file and the rebuild, exit 2, failure
class ``index_load``; never a traceback, a crash, a runaway allocation or an abstention.

Every file here is made by the test from the example index, with the real writer, so all
checksums are right: only gov's own checks stand between the file and a route.
"""

from __future__ import annotations

import io
import json
import resource
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gov.core.errors import IndexLoadError
from gov.core.routing.indexes import load_index
from tests.index.crafted import craft, flip_byte

PROMPT = "roll back the release from last night, checkout is throwing 500s"
Change = Callable[[dict[str, Any], dict[str, np.ndarray]], None]


def _set(name: str, position: int, value: Any) -> Change:
    def change(_header: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        arrays[name][position] = value
    return change


def _fill(name: str, value: float) -> Change:
    def change(_header: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        arrays[name][...] = value
    return change


def _scramble(name: str) -> Change:
    def change(_header: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        arrays[name][1:-1] = np.random.default_rng(0).permutation(arrays[name][1:-1])
    return change


def _rename(first: str) -> Change:
    """Make the first document's name ``first`` (names blob and offsets kept consistent)."""
    def change(_header: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        names = bytes(arrays["doc_names"]).decode().split("\n")
        names[0] = first
        blob = "\n".join(names).encode()
        arrays["doc_names"] = np.frombuffer(blob, dtype=np.uint8).copy()
        arrays["doc_name_offsets"] = np.concatenate(
            ([0], np.cumsum([len(n.encode()) + 1 for n in names]))).astype(np.int64)
    return change


def _header(path: tuple[str, ...], value: Any) -> Change:
    def change(header: dict[str, Any], _arrays: dict[str, np.ndarray]) -> None:
        node = header
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return change


def _records(edit: Callable[[list[Any]], None]) -> Change:
    """Rewrite the document records (every one, as JSON values) with ``edit``."""
    def change(_header: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        blob, offsets = bytes(arrays["doc_records"]), arrays["doc_record_offsets"]
        records = [json.loads(blob[offsets[i]:offsets[i + 1]]) for i in range(len(offsets) - 1)]
        edit(records)
        encoded = [json.dumps(r).encode() if not isinstance(r, bytes) else r for r in records]
        arrays["doc_records"] = np.frombuffer(b"".join(encoded), dtype=np.uint8).copy()
        arrays["doc_record_offsets"] = np.concatenate(
            ([0], np.cumsum([len(e) for e in encoded]))).astype(np.int64)
    return change


def _every_record(key: str, value: Any) -> Change:
    def edit(records: list[Any]) -> None:
        for record in records:
            record[key] = value
    return _records(edit)


def _garbage_records(records: list[Any]) -> None:
    records[:] = [b"{not json" for _ in records]


def _dtype(name: str, dtype: str) -> Change:
    def change(_header: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        arrays[name] = arrays[name].astype(dtype)
    return change


def _drop_rows(name: str) -> Change:
    def change(_header: dict[str, Any], arrays: dict[str, np.ndarray]) -> None:
        arrays[name] = arrays[name][:-1].copy()
    return change


CASES: dict[str, Change] = {
    "huge int32 in surface_doc": _set("surface_doc", 3, 2**31 - 1),
    "negative surface_doc": _set("surface_doc", 3, -5),
    "surface_doc out of order": _set("surface_doc", 1, 7),
    "huge int32 in lex_col_rows": _set("lex_col_rows", 10, 2**31 - 1),
    "negative lex_col_rows": _set("lex_col_rows", 10, -1),
    "negative lex_col_ptr offset": _set("lex_col_ptr", 5, -40),
    "lex_col_ptr past its rows": _set("lex_col_ptr", -1, 10**9),
    "infinite idf": _fill("idf", np.inf),
    "NaN idf": _set("idf", 0, np.nan),
    "NaN embeddings": _fill("embeddings", np.nan),
    "infinite embeddings": _fill("embeddings", np.inf),
    "scrambled vocabulary offsets": _scramble("vocab_offsets"),
    "negative vocabulary offset": _set("vocab_offsets", 2, -8),
    "term column out of range": _set("vocab_hash_col", 0, 2**31 - 1),
    "unsorted term hashes": _scramble("vocab_hash"),
    "scrambled name offsets": _scramble("doc_name_offsets"),
    "escape sequence in a name": _rename("deployment\x1b]0;owned\x07"),
    "bidi override in a name": _rename("deploy\u202ement"),
    "name over 200 characters": _rename("n" * 201),
    "text offsets past the texts": _set("text_offsets", -1, 10**12),
    "negative text offset": _set("text_offsets", 3, -1),
    "record offsets past the records": _set("doc_record_offsets", -1, 10**9),
    "records that are not JSON": _records(_garbage_records),
    "record field of the wrong type": _every_record("examples", 5),
    "record name of the wrong type": _every_record("name", ["x"]),
    "huge lexical.rows in the header": _header(("lexical", "rows"), 2**40),
    "another model dimension in the header": _header(("model", "dim"), 12),
    "surface_doc stored as floats": _dtype("surface_doc", "<f4"),
    "embeddings missing a row": _drop_rows("embeddings"),
    "surface kinds of another length": _drop_rows("surface_kind"),
    "NaN in the background bank": _set("background_bank_top", 0, np.nan),
    "infinite example floor": _set("background_example_top", -1, np.inf),
    "background hub of another length": _drop_rows("background_hub"),
    "stored operating point out of range": _header(("operating_point",), {
        "gov_operating_point": 1, "params": {"top_k": 1000}}),
}


@pytest.fixture(scope="module")
def crafted(example_index: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("crafted")
    return {case: craft(example_index, folder / f"index-{i}", change)
            for i, (case, change) in enumerate(CASES.items())}


@pytest.mark.parametrize("case", list(CASES))
def test_a_crafted_index_is_one_error_naming_the_rebuild(case: str, crafted: dict[str, Path]
                                                         ) -> None:
    path = crafted[case]
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    mapped = int(Path("/proc/self/statm").read_text().split()[0]) * resource.getpagesize()
    limit = mapped + 4 * 1024**3  # a runaway allocation (16 GiB asked for) fails, not swaps
    resource.setrlimit(resource.RLIMIT_AS, (limit if hard < 0 else min(limit, hard), hard))
    try:
        with pytest.raises(IndexLoadError) as caught:
            load_index(path).route(PROMPT, record=False)
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    message = str(caught.value)
    assert str(path) in message and "gov index" in message and "\n" not in message
    assert caught.value.failure_class == "index_load" and caught.value.exit_code == 2


def test_gov_route_on_crafted_indexes_is_exit_2_one_line_and_index_load(
        crafted: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The one-shot ``gov route`` path, in this process: exit 2, one line on stderr naming
    the file and ``gov index``, and one ``index_load`` failure event per file."""
    from gov.cli.commands import route_lean

    sink = tmp_path / "events.jsonl"
    monkeypatch.setenv("GOV_TELEMETRY_PATH", str(sink))
    for case, path in crafted.items():
        code = route_lean.main([PROMPT, "-i", str(path), "--format", "jsonl"])
        out, err = capsys.readouterr()
        assert code == 2, case
        assert out == "" and err.count("\n") == 1, (case, err)
        assert str(path) in err and "gov index" in err and "Traceback" not in err, case
    events = [json.loads(line) for line in sink.read_text().splitlines()]
    assert len(events) == len(crafted)
    assert {(e["outcome"], e["failure_class"]) for e in events} == {("failed", "index_load")}


def test_rebuild_hint_quotes_the_roots_a_header_names(example_index: Path, tmp_path: Path) -> None:
    path = craft(example_index, tmp_path / "idx", lambda header, arrays: (
        header.update(roots=["docs; rm -rf ~", "\x1b[2Jpolicies"]),
        flip_byte(arrays["surface_doc"], 1, 0x7F)))
    with pytest.raises(IndexLoadError) as caught:
        load_index(path)
    assert "gov index 'docs; rm -rf ~' -o" in str(caught.value)
    assert "\x1b" not in str(caught.value)


def test_a_header_naming_another_model_never_downloads_it(example_index: Path, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Routing with such an index reads fastembed's cache only: words only, at once, and
    not one connection attempted."""
    import socket

    path = craft(example_index, tmp_path / "idx", _header(
        ("model",), {"id": "BAAI/bge-small-en-v1.5", "dim": 384, "sha256": None}))
    monkeypatch.setenv("GOV_CACHE_DIR", str(tmp_path / "empty-cache"))
    attempts: list[Any] = []

    def no_network(self: socket.socket, address: Any) -> None:
        attempts.append(address)
        raise OSError("network is off in this test")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: no_network(None, a))  # type: ignore[arg-type]
    loaded = load_index(path)
    answer = loaded.route(PROMPT, record=False)
    assert answer.degraded == "lexical-only" and attempts == []
    assert "not in the local cache" in str(loaded.degraded_reason)


@pytest.mark.parametrize("roots", [["/"], ["loop"]])
def test_staleness_walk_of_crafted_roots_ends(example_index: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              roots: list[str]) -> None:
    """Roots of ``/``, or a folder of links back to itself: the walk follows no link out of
    the root, reads a folder once, and stops at its time budget."""
    import time

    from gov.core.corpus import reader

    base = tmp_path / "base"
    (base / "loop").mkdir(parents=True)
    for name in ("a", "b", "c"):
        (base / "loop" / name).symlink_to(".")
    (base / "loop" / "out").symlink_to("/")
    monkeypatch.setattr(reader, "STALENESS_SECONDS", 1.0)
    path = craft(example_index, tmp_path / "idx", lambda header, _arrays: (
        header.update(roots=roots), header["corpus"].update(
            base="/" if roots == ["/"] else str(base))))
    loaded = load_index(path)
    started = time.monotonic()
    stale = loaded.is_stale()
    assert time.monotonic() - started < 10
    assert stale in (True, False)


def test_a_source_outside_the_corpus_is_never_named(example_index: Path, tmp_path: Path) -> None:
    """A record whose source leaves the corpus (or a file that does not hold the indexed
    text) gets ``gov show NAME -i INDEX`` in the hook's paragraph, never a path."""
    from gov.core.serving.hook_context import render

    secret = tmp_path / "id_rsa"
    secret.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\n")

    def edit(records: list[Any]) -> None:
        for record in records:
            record["source"] = str(secret) if record["name"] == "deployment" else \
                "../../../../../../" + str(secret)

    path = craft(example_index, tmp_path / "idx", _records(edit))
    answer = load_index(path).route(PROMPT, record=False)
    assert answer.routes and answer.sources == {}
    text = render(answer, cwd=str(tmp_path), index=str(path))
    assert "id_rsa" not in text and "gov show NAME -i idx" in text


def test_a_source_inside_the_corpus_with_the_indexed_text_is_named(example_index: Path) -> None:
    answer = load_index(example_index).route(PROMPT, record=False)
    assert answer.sources and all(Path(p).is_file() for p in answer.sources.values())


def test_evidence_and_names_reach_the_agent_cleaned(example_index: Path, tmp_path: Path) -> None:
    from gov.core.serving.hook_context import render

    def edit(records: list[Any]) -> None:
        for record in records:  # as many examples as before: the surfaces stay in step
            record["examples"] = ["\x1b]0;pwn\x07roll back the \u202erelease from last night"
                                  for _ in record["examples"]]

    path = craft(example_index, tmp_path / "idx", _records(edit))
    answer = load_index(path).route("roll back the release from last night", record=False)
    text = render(answer, cwd=str(tmp_path), index=str(path))
    assert answer.routes
    assert all(ch not in text for ch in "\x1b\x07\u202e")
    assert all(ch not in route.why for route in answer.routes for ch in "\x1b\x07\u202e")


@pytest.mark.slow
def test_gov_show_and_route_text_escape_control_sequences(tmp_path: Path) -> None:
    """On a terminal, ``gov show`` and ``gov route --format text`` print a document's
    escape sequences as visible text, never as commands to the terminal."""
    import os
    import pty
    import subprocess

    corpus = tmp_path / "docs.jsonl"
    corpus.write_text(json.dumps({
        "name": "kites", "trigger": "Flying kites on windy beaches",
        "examples": ["\x1b[2Jwhich kite for a windy beach"],
        "body": "Rule one.\x1b]0;owned\x07 \u202eevil\n"}) + "\n")
    index = tmp_path / "idx"
    from tests.conftest import run_gov

    assert run_gov("index", str(corpus), "-o", str(index)).returncode == 0
    for args in (["show", "kites", "-i", str(index)],
                 ["route", "which kite should I fly on a windy beach", "-i", str(index),
                  "--format", "text"]):
        leader, follower = pty.openpty()
        proc = subprocess.run([sys.executable, "-m", "gov.cli.entry", *args], stdout=follower,
                              stderr=subprocess.PIPE, env={**os.environ, "NO_COLOR": "1"},
                              timeout=120, check=False)
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(leader)
        shown = b"".join(chunks).decode()
        assert proc.returncode == 0, proc.stderr
        assert "\x1b]0" not in shown and "\x07" not in shown and "\u202e" not in shown
        assert "\\x1b" in shown or args[0] == "route"  # route's evidence is cleaned instead


def test_a_learned_archive_that_would_unpack_to_gigabytes_is_refused(tmp_path: Path) -> None:
    import hashlib
    import zipfile

    from gov.core.errors import OperatingPointError
    from gov.core.scoring.learned import load_learned

    bomb = tmp_path / "learned.npz"
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(header, {"descr": "<f4", "fortran_order": False,
                                                  "shape": (100_000, 384)})
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive, \
            archive.open("vectors.npy", "w", force_zip64=True) as member:
        member.write(header.getvalue())
        zeros = bytes(1 << 20)
        for _ in range(100_000 * 384 * 4 >> 20):
            member.write(zeros)
    info = {"names": ["a"], "texts": ["t"], "classifier_names": [],
            "sha256": hashlib.sha256(bomb.read_bytes()).hexdigest()}
    assert bomb.stat().st_size < 1024 * 1024  # 150 MB unpacked
    with pytest.raises(OperatingPointError, match="larger than"):
        load_learned(bomb, info, 384)
