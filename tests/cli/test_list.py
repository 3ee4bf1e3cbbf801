"""``gov list``: what an index holds, the notes on how each document was read, and the files
its build skipped, from the index the other commands find."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import invoke_gov
from tests.corpus.conftest import write

AGENT = "---\nname: tester\ndescription: Testing {0} accessibility.\ntools: *\n---\nBody\n"


def library(root: Path) -> Path:
    write(root / "agents" / "web" / "tester.md", AGENT.format("web"))
    write(root / "agents" / "app" / "tester.md", AGENT.format("app").replace("tools: *\n", ""))
    write(root / "agents" / "README.md", "# Agents\n\nAbout the collection.\n")
    write(root / "commands" / "deploy.md", "# Deploy\n\nShip the service to production now.\n")
    write(root / "commands" / "empty.md", "# Empty\n")
    write(root / "commands" / "latin.md", "---\ndescription: caf\xe9\n---\n".encode("latin-1"))
    return root


@pytest.mark.slow
def test_index_closes_with_one_line_and_list_shows_documents_notes_and_skips(
        tmp_path: Path) -> None:
    lib = library(tmp_path / "lib")
    built = invoke_gov("index", "lib", "-o", "lib.idx", "--lexical-only", "--skipped",
                       cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    err = built.stderr.decode().splitlines()
    assert err[-1] == ("gov: indexed 3 documents from 5 candidate files; 2 skipped "
                       "(1 no description, 1 not UTF-8); gov list --skipped lists them")
    assert "tester -> app/tester, web/tester" in built.stderr.decode()
    assert "lib/commands/latin.md:2: not UTF-8" in built.stdout.decode()  # --skipped

    listed = invoke_gov("list", "-i", "lib.idx", "--format", "jsonl", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    by_name = {row["name"]: row for row in rows}
    assert sorted(by_name) == ["app/tester", "deploy", "web/tester"]
    assert by_name["deploy"]["trigger"] == "Ship the service to production now."
    assert by_name["deploy"]["notes"] == ["no description: its first paragraph is the trigger"]
    assert by_name["web/tester"]["source"] == "lib/agents/web/tester.md"
    assert any("not strict YAML" in note for note in by_name["web/tester"]["notes"])
    assert any("qualified by its folder" in note for note in by_name["app/tester"]["notes"])
    assert set(rows[0]) == {"name", "source", "kind", "trigger", "family", "family_id", "notes"}

    lenient = invoke_gov("list", "-i", "lib.idx", "--lenient", "--format", "json", cwd=tmp_path)
    assert len(json.loads(lenient.stdout)) == 3  # every one was read with a note

    skipped = invoke_gov("list", "-i", "lib.idx", "--skipped", "--format", "json", cwd=tmp_path)
    assert [(row["file"], row["reason"]) for row in json.loads(skipped.stdout)] == [
        ("lib/commands/empty.md", "no description"), ("lib/commands/latin.md", "not UTF-8")]

    text = invoke_gov("list", "-i", "lib.idx", cwd=tmp_path).stdout.decode()
    assert "web/tester  lib/agents/web/tester.md" in text and "note: front matter read" in text

    # The qualified name is the document's name everywhere: gov show takes it.
    shown = invoke_gov("show", "web/tester", "-i", "lib.idx", cwd=tmp_path)
    assert shown.returncode == 0 and shown.stdout.decode() == (lib / "agents" / "web" /
                                                                "tester.md").read_text()


def test_list_reads_the_index_the_other_commands_find(tmp_path: Path) -> None:
    write(tmp_path / "docs" / "a.md", "# A\n\n**Agent-trigger:** Reviewing code.\n")
    assert invoke_gov("index", "docs", "--lexical-only", cwd=tmp_path).returncode == 0
    listed = invoke_gov("list", "--format", "json", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    assert [row["name"] for row in json.loads(listed.stdout)] == ["a"]
    none = invoke_gov("list", "--skipped", cwd=tmp_path)
    assert none.returncode == 0 and b"skipped no file" in none.stderr
    missing = invoke_gov("list", "-i", "nope.idx", cwd=tmp_path)
    assert missing.returncode != 0 and b"Traceback" not in missing.stderr


def test_names_alone_one_a_line_or_one_array(fake_index: Path) -> None:
    import json

    from tests.conftest import invoke_gov

    lines = invoke_gov("list", "--names", "-i", str(fake_index))
    assert lines.returncode == 0, lines.stderr
    names = lines.stdout.decode().splitlines()
    assert "deployment" in names and all(" " not in name for name in names)
    array = invoke_gov("list", "--names", "-i", str(fake_index), "--format", "json")
    assert json.loads(array.stdout) == names
    assert array.stdout == ("[" + ",".join(f'"{name}"' for name in names) + "]\n").encode()  # orjson's bytes
    both = invoke_gov("list", "--names", "--skipped", "-i", str(fake_index))
    assert both.returncode == 2 and b"give one" in both.stderr
