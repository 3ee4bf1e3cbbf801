"""Corpus folders someone else wrote: links, FIFOs, devices, YAML bombs, oversize files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gov.core.corpus import reader
from gov.core.corpus.reader import load_corpus
from gov.core.errors import CorpusError

SKILL = "---\nname: {name}\ndescription: {description}\n---\nBody of {name}.\n"


def skill(folder: Path, name: str, description: str = "Rotating the keys of a service") -> Path:
    (folder / name).mkdir(parents=True)
    path = folder / name / "SKILL.md"
    path.write_text(SKILL.format(name=name, description=description))
    return path


def test_links_back_to_the_root_are_read_once_not_forever(tmp_path: Path) -> None:
    skill(tmp_path, "keys")
    for name in ("a", "b", "c", "d"):
        (tmp_path / name).symlink_to(".")
    warnings: list[str] = []
    started = time.monotonic()
    corpus = load_corpus([tmp_path], warn=warnings.append)
    assert time.monotonic() - started < 10
    assert corpus.names == ["keys"]
    assert sum("symlink loop" in w for w in warnings) == 4


def test_a_linked_folder_outside_the_root_is_still_indexed(tmp_path: Path) -> None:
    """Skill folders linked in from elsewhere are common: the build follows them."""
    skill(tmp_path / "elsewhere", "outside")
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "outside").symlink_to(tmp_path / "elsewhere" / "outside")
    assert load_corpus([tmp_path / "corpus"], warn=lambda _m: None).names == ["outside"]


def test_fifo_device_and_socket_are_skipped_with_a_warning(tmp_path: Path) -> None:
    import socket

    skill(tmp_path, "keys")
    os.mkfifo(tmp_path / "pipe.md")
    (tmp_path / "zero.md").symlink_to("/dev/zero")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(tmp_path / "sock.md"))
    warnings: list[str] = []
    try:
        started = time.monotonic()
        corpus = load_corpus([tmp_path], warn=warnings.append)
    finally:
        listener.close()
    assert time.monotonic() - started < 10
    assert corpus.names == ["keys"]
    skipped = [w for w in warnings if "not a regular file" in w]
    assert len(skipped) == 2 and all(n in " ".join(skipped) for n in ("pipe", "sock"))
    # a link out of the corpus says only that (whatever its target is)
    assert [w for w in warnings if "zero" in w] == [
        f"skipping {tmp_path / 'zero.md'}: a link that leaves the corpus (its target is not read)"]


def test_a_fifo_or_device_named_as_the_corpus_is_one_error(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.jsonl")
    for path in (tmp_path / "pipe.jsonl", Path("/dev/zero")):
        with pytest.raises(CorpusError, match="not a regular file"):
            load_corpus([path], warn=lambda _m: None)


def test_yaml_alias_bomb_in_depends_on_is_read_as_plain_text_never_expanded(tmp_path: Path) -> None:
    lines = ["---", "name: bomb", "description: Rotating keys", "a: &a [x,x,x,x,x,x,x,x,x]"]
    for level in "bcdefgh":
        previous = chr(ord(level) - 1)
        lines.append(f"{level}: &{level} [" + ",".join([f"*{previous}"] * 9) + "]")
    lines += ["depends_on: [*h,*h,*h,*h,*h,*h,*h,*h,*h]", "---", "Body."]
    (tmp_path / "bomb").mkdir()
    (tmp_path / "bomb" / "SKILL.md").write_text("\n".join(lines) + "\n")
    assert len((tmp_path / "bomb" / "SKILL.md").read_bytes()) < 500
    skill(tmp_path, "keys")
    warnings: list[str] = []
    corpus = load_corpus([tmp_path], warn=warnings.append)
    assert corpus.names == ["bomb", "keys"]
    bomb = corpus.documents[0]
    assert bomb.depends_on == ("*h",) * 9  # the alias as written, nothing built from it
    assert any("aliases" in note for note in bomb.notes)


@pytest.mark.parametrize("value, problem", [
    ("{a: 1}", "list of document names"),
    ("[1, 2]", "list of document names"),
    ("[[nested]]", "list of document names"),
    ('["bad\\u001b[31mname"]', "not a document name"),
    ("[" + ", ".join(f"d{i}" for i in range(65)) + "]", "at most 64"),
])
def test_depends_on_is_a_short_list_of_names(tmp_path: Path, value: str, problem: str) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "SKILL.md").write_text(
        f"---\nname: x\ndescription: Rotating keys\ndepends_on: {value}\n---\nBody.\n")
    warnings: list[str] = []
    assert load_corpus([tmp_path], warn=warnings.append).names == []
    assert any(problem in w for w in warnings), warnings


def test_front_matter_name_of_the_wrong_type_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "SKILL.md").write_text(
        "---\nname: {a: 1}\ndescription: Rotating keys\n---\nBody.\n")
    with pytest.raises(CorpusError, match="'name' must be a string"):
        load_corpus([tmp_path], strict=True)


@pytest.mark.parametrize("name", ["deploy\x1b[31m", "deploy\u202ement", "a\u200bb", "n" * 201])
def test_names_with_control_or_invisible_characters_are_refused(tmp_path: Path, name: str) -> None:
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text(json.dumps({"name": name, "trigger": "Rotating keys"}) + "\n")
    with pytest.raises(CorpusError, match="document name"):
        load_corpus([corpus])


def test_per_file_and_per_corpus_budgets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "MAX_DOCUMENT_BYTES", 1000)
    big = skill(tmp_path / "one", "big")
    big.write_text(big.read_text() + "x" * 2000)
    skill(tmp_path / "one", "small")
    warnings: list[str] = []
    assert load_corpus([tmp_path / "one"], warn=warnings.append).names == ["small"]
    assert any("1,000-byte limit" in w for w in warnings)
    monkeypatch.setattr(reader, "MAX_CORPUS_BYTES", 150)
    for name in ("a", "b", "c"):
        skill(tmp_path / "two", name)
    with pytest.raises(CorpusError, match="over 150 bytes"):
        load_corpus([tmp_path / "two"], warn=lambda _m: None)
    lines = tmp_path / "docs.jsonl"
    lines.write_text(json.dumps({"name": "x", "trigger": "y" * 400}))  # one line, no newline
    with pytest.raises(CorpusError, match="GOV_MAX_CORPUS_BYTES"):
        load_corpus([lines])


@pytest.mark.slow
def test_gov_index_of_a_hostile_folder_finishes(tmp_path: Path) -> None:
    """Through the real command: links to ``.``, a FIFO and a link to /dev/zero."""
    from tests.conftest import run_gov

    corpus = tmp_path / "corpus"
    skill(corpus, "keys")
    for name in ("a", "b"):
        (corpus / name).symlink_to(".")
    os.mkfifo(corpus / "pipe.md")
    (corpus / "zero.md").symlink_to("/dev/zero")
    result = run_gov("index", str(corpus), "-o", str(tmp_path / "idx"), "--lexical-only",
                     timeout=120)
    assert result.returncode == 0, result.stderr
    assert b"not a regular file" in result.stderr and b"symlink loop" in result.stderr
    assert b"zero.md: a link that leaves the corpus" in result.stderr


@pytest.mark.slow
def test_card_globs_do_not_follow_links_in_loops(tmp_path: Path) -> None:
    from gov.core.cards.sources import resolve

    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "one.json").write_text("{}")
    for name in ("a", "b"):
        (tmp_path / "cards" / name).symlink_to(".")
    code = ("import sys; from gov.core.cards.sources import resolve; "
            "print(len(resolve([sys.argv[1]])))")
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path / "cards" / "**" / "*.json")],
                            capture_output=True, timeout=60, check=False)
    assert result.returncode == 0 and result.stdout.strip() == b"1", result.stderr
    assert resolve([str(tmp_path / "cards" / "*.json")]) == [str(tmp_path / "cards" / "one.json")]
