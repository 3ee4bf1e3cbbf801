"""Every corpus format, and every way a corpus file can be wrong."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gov.core.corpus.reader import load_corpus
from gov.core.errors import CorpusError
from tests.conftest import POLICIES
from tests.corpus.conftest import POLICY, write


def test_missing_trigger_is_skipped_with_a_warning_naming_the_file(tmp_path: Path) -> None:
    write(tmp_path / "a.md", POLICY)
    write(tmp_path / "notes.md", "# Notes\n\nNo trigger here.\n")
    warnings: list[str] = []
    corpus = load_corpus([tmp_path], warn=warnings.append, base=tmp_path)
    assert corpus.names == ["a"]
    assert corpus.skipped == ["notes.md"]
    assert len(warnings) == 1 and "notes.md" in warnings[0] and "Agent-trigger" in warnings[0]


def test_strict_makes_a_missing_trigger_an_error(tmp_path: Path) -> None:
    write(tmp_path / "notes.md", "# Notes\n")
    with pytest.raises(CorpusError, match=r"notes\.md.*strict"):
        load_corpus([tmp_path], strict=True, base=tmp_path)


def test_skill_folder_just_works(tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    write(skills / "pdf-forms" / "SKILL.md",
          "---\nname: pdf-forms\ndescription: Fill in and extract PDF form fields.\n---\n# PDF\nSteps.\n")
    write(skills / "pdf-forms" / "reference.md", "# Reference without a trigger\n")
    write(skills / "csv-cleanup" / "SKILL.md",
          "---\ndescription: >-\n  Clean messy CSV files: fix encodings,\n  drop empty rows.\n---\nBody\n")
    warnings: list[str] = []
    corpus = load_corpus([skills], warn=warnings.append)
    assert sorted(corpus.names) == ["csv-cleanup", "pdf-forms"]  # name defaults to the folder
    by_name = {doc.name: doc for doc in corpus.documents}
    assert by_name["csv-cleanup"].trigger == "Clean messy CSV files: fix encodings, drop empty rows."
    assert by_name["pdf-forms"].kind == "skill"
    assert warnings == []  # a skill's resources are not documents


def test_cursor_mdc_and_continue_rules(tmp_path: Path) -> None:
    write(tmp_path / ".cursor" / "rules" / "api.mdc",
          '---\ndescription: "REST API conventions: pagination, errors"\nglobs: ["src/api/**"]\n'
          "alwaysApply: false\n---\nUse cursor pagination.\n")
    write(tmp_path / ".continue" / "rules" / "tests.md",
          "---\nname: testing-rules\ndescription: Writing unit tests\n---\nUse pytest.\n")
    corpus = load_corpus([tmp_path])
    by_name = {doc.name: doc for doc in corpus.documents}
    assert by_name["api"].trigger == "REST API conventions: pagination, errors"
    assert by_name["api"].kind == "mdc"
    assert by_name["testing-rules"].trigger == "Writing unit tests"


def test_jsonl_documents_from_a_file_and_stdin(tmp_path: Path) -> None:
    lines = (
        b'{"name": "a", "trigger": "alpha things", "body": "Alpha body", "examples": ["x"],'
        b' "family": "f", "depends_on": ["b"]}\n'
        b'{"name": "b", "trigger": "beta things"}\n'
    )
    write(tmp_path / "docs.jsonl", lines)
    corpus = load_corpus([tmp_path / "docs.jsonl"], base=tmp_path)
    assert corpus.names == ["a", "b"]
    assert corpus.documents[0].depends_on == ("b",)
    assert corpus.documents[0].source == "docs.jsonl:1"
    import io

    from_stdin = load_corpus(["-"], stdin=io.BytesIO(lines))
    assert from_stdin.names == ["a", "b"]
    assert from_stdin.fingerprint == corpus.fingerprint


@pytest.mark.parametrize(
    ("line", "field"),
    [
        (b'{"name": "a"}', "trigger"),
        (b'{"name": "", "trigger": "t"}', "name"),
        (b'{"name": "a", "trigger": "t", "examples": "x"}', "examples"),
        (b'{"name": 3, "trigger": "t"}', "name"),
        (b"[1, 2]", "JSON object"),
        (b"{not json", "invalid JSON"),
    ],
)
def test_bad_jsonl_documents_name_file_line_and_field(tmp_path: Path, line: bytes, field: str) -> None:
    write(tmp_path / "docs.jsonl", b'{"name": "ok", "trigger": "fine"}\n' + line + b"\n")
    with pytest.raises(CorpusError) as caught:
        load_corpus([tmp_path / "docs.jsonl"], base=tmp_path)
    assert "docs.jsonl:2" in str(caught.value) and field in str(caught.value)


def test_duplicate_names_are_qualified_by_their_folders_in_one_warning(tmp_path: Path) -> None:
    write(tmp_path / "one" / "deploy.md", POLICY)
    write(tmp_path / "two" / "deploy.md", POLICY)
    write(tmp_path / "one" / "x" / "review.md", POLICY.replace("# Deploying", "# Review"))
    write(tmp_path / "two" / "x" / "review.md", POLICY.replace("# Deploying", "# Review"))
    warnings: list[str] = []
    corpus = load_corpus([tmp_path], base=tmp_path, warn=warnings.append)
    # The shortest distinguishing folder path: one folder for deploy, two for review.
    assert sorted(corpus.names) == ["one/deploy", "one/x/review", "two/deploy", "two/x/review"]
    assert corpus.collisions == [("deploy", ("one/deploy", "two/deploy")),
                                 ("review", ("one/x/review", "two/x/review"))]
    assert len(warnings) == 1
    assert "deploy -> one/deploy, two/deploy" in warnings[0]
    assert "review -> one/x/review, two/x/review" in warnings[0]
    by_name = {doc.name: doc for doc in corpus.documents}
    assert any("two/deploy.md" in note for note in by_name["one/deploy"].notes)


def test_on_duplicate_error_names_every_collision_and_first_keeps_the_first(tmp_path: Path) -> None:
    for folder in ("one", "two"):
        write(tmp_path / folder / "deploy.md", POLICY)
        write(tmp_path / folder / "review.md", POLICY.replace("# Deploying", "# Review"))
    with pytest.raises(CorpusError) as caught:
        load_corpus([tmp_path], base=tmp_path, on_duplicate="error")
    message = str(caught.value)
    assert all(f"{folder}/{name}.md" in message for folder in ("one", "two")
               for name in ("deploy", "review"))
    corpus = load_corpus([tmp_path], base=tmp_path, on_duplicate="first", warn=lambda _m: None)
    assert sorted(corpus.names) == ["deploy", "review"]
    assert {doc.source for doc in corpus.documents} == {"one/deploy.md", "one/review.md"}
    assert [(skip.file, skip.reason) for skip in corpus.problems] == [
        ("two/deploy.md", "duplicate name"), ("two/review.md", "duplicate name")]


def test_a_skill_is_qualified_by_its_folder_and_same_folder_names_get_a_number(
        tmp_path: Path) -> None:
    skill = "---\nname: brand-guidelines\ndescription: Applying the brand's colours.\n---\nBody\n"
    write(tmp_path / "skills" / "brand-guidelines-anthropic" / "SKILL.md", skill)
    write(tmp_path / "skills" / "brand-guidelines-community" / "SKILL.md", skill)
    lines = b'{"name": "x", "trigger": "one"}\n{"name": "x", "trigger": "two"}\n'
    write(tmp_path / "docs.jsonl", lines)
    corpus = load_corpus([tmp_path], base=tmp_path, warn=lambda _m: None)
    names = sorted(corpus.names)
    assert names[:2] == ["brand-guidelines-anthropic", "brand-guidelines-community"]
    assert len(names) == 4 and names[2] != names[3] and all("x" in n for n in names[2:])


def test_non_utf8_empty_trigger_huge_and_unreadable_files(tmp_path: Path) -> None:
    write(tmp_path / "latin.md", "# Caf\xe9\n\n**Agent-trigger:** caf\xe9 rules\n".encode("latin-1"))
    write(tmp_path / "empty.md", "# E\n\n**Agent-trigger:**   \n")
    write(tmp_path / "huge.md", "**Agent-trigger:** big\n" + "x" * (5 * 1024 * 1024))
    os.symlink(tmp_path / "missing-target.md", tmp_path / "dangling.md")
    write(tmp_path / "good.md", POLICY)
    warnings: list[str] = []
    corpus = load_corpus([tmp_path], warn=warnings.append, base=tmp_path)
    assert corpus.names == ["good"]
    joined = "\n".join(warnings)
    assert "latin.md:1: not valid UTF-8" in joined
    assert "empty.md:3: the trigger is empty" in joined
    assert "huge.md" in joined and "limit" in joined
    assert "dangling.md" in joined
    assert len(warnings) == 4


def test_missing_path_is_an_error() -> None:
    with pytest.raises(CorpusError, match="no such file or folder"):
        load_corpus(["/nonexistent/policies"])


def test_example_corpus_loads_cleanly() -> None:
    warnings: list[str] = []
    corpus = load_corpus([POLICIES], warn=warnings.append)
    assert warnings == []
    assert 15 <= len(corpus.documents) <= 25
    assert corpus.retired, "the example corpus shows a retired document"
    families: dict[str, int] = {}
    for doc in corpus.documents:
        if doc.family:
            families[doc.family] = families.get(doc.family, 0) + 1
    assert sum(1 for count in families.values() if count >= 2) >= 3
