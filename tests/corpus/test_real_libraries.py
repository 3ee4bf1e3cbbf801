"""What public agent libraries hold, as they ship: each file below reproduces one that a real
collection (Claude Code templates, Cursor rules, skill packs) holds and that once stopped or
emptied a build."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gov.core.corpus.markdown import first_paragraph, lenient_front_matter
from gov.core.corpus.reader import load_corpus
from gov.core.corpus.walk import repository_file
from tests.corpus.conftest import write

AGENT = ("---\nname: api-architect\ndescription: Expert API architect. Use this agent when: you "
         "need to design a GraphQL schema\n\n  <example>\n  <user_request>Design a GraphQL "
         "API</user_request>\n  </example>\nmodel: sonnet\ntools: Read, Grep\n---\n\n# API\nBody.\n")


def load(root: Path) -> tuple[object, list[str]]:
    warnings: list[str] = []
    return load_corpus([root], warn=warnings.append, base=root.parent), warnings


def test_cursor_globs_unquoted_is_read_as_cursor_reads_it(tmp_path: Path) -> None:
    rule = ('---\ndescription: "Cursor rules for TypeScript and React."\nglobs: **/*\n'
            "alwaysApply: false\n---\nYou are a senior developer.\n")
    for name in ("a", "b", "c"):
        write(tmp_path / "rules" / f"{name}.mdc", rule)
    corpus = load_corpus([tmp_path / "rules"], warn=(warnings := []).append)
    assert corpus.names == ["a", "b", "c"]
    assert corpus.documents[0].trigger == "Cursor rules for TypeScript and React."
    assert all(doc.notes and "not strict YAML" in doc.notes[0] for doc in corpus.documents)
    # One line for all of them, not one per file.
    assert warnings == ["3 file(s)' front matter read leniently (not strict YAML, read as the "
                        "harnesses read it); gov list --lenient shows them"]


def test_agent_with_an_unquoted_colon_and_tools_star(tmp_path: Path) -> None:
    write(tmp_path / "agents" / "api-graphql" / "api-architect.md", AGENT)
    write(tmp_path / "agents" / "data-ai" / "monday-bug-fixer.md",
          "---\nname: monday-bug-fixer\ndescription: Elite bug-fixing agent for Monday.com.\n"
          "tools: *\n---\n\nBody.\n")
    corpus, _warnings = load(tmp_path / "agents")
    by_name = {doc.name: doc for doc in corpus.documents}  # type: ignore[attr-defined]
    assert by_name["api-architect"].trigger.startswith(
        "Expert API architect. Use this agent when: you need to design a GraphQL schema")
    assert "<user_request>Design a GraphQL API</user_request>" in by_name["api-architect"].trigger
    assert by_name["monday-bug-fixer"].trigger == "Elite bug-fixing agent for Monday.com."


def test_lenient_front_matter_reads_blocks_lists_and_quotes() -> None:
    read = lenient_front_matter(
        "name: 'x'\ndescription: |\n  first line\n\n  second: line\ntools: *\n"
        "globs: [src/**, \"*.ts\"]\nallowed:\n  - Bash(git:*)\n  - Read\n<stray line>\n"
        "folded: >-\n  a\n  b\n")
    assert read == {"name": "x", "description": "first line\n\nsecond: line", "tools": "*",
                    "globs": ["src/**", "*.ts"], "allowed": ["Bash(git:*)", "Read"],
                    "folded": "a b"}


def test_a_nul_byte_is_removed_not_a_reason_to_skip(tmp_path: Path) -> None:
    write(tmp_path / "agents" / "x.md",
          b"---\nname: x\ndescription: Reviewing pull\x00 requests.\n---\nBody\x01.\n")
    corpus, warnings = load(tmp_path / "agents")
    (doc,) = corpus.documents  # type: ignore[attr-defined]
    assert doc.trigger == "Reviewing pull requests." and "\x01" not in doc.text
    assert doc.notes == ("2 control byte(s) removed",)
    assert warnings == []


def test_a_binary_jsonl_or_markdown_is_skipped_with_a_reason_and_the_build_goes_on(
        tmp_path: Path) -> None:
    root = tmp_path / "lib"
    write(root / "data.jsonl", b'{"name": "caf\xe9", "trigger": "latin-1, not UTF-8"}\n')
    write(root / "blob.jsonl", b"\x00" * 64 + b"\n")
    write(root / "image.md", b"\x89PNG\r\n\x1a\n" + b"\x00\xff" * 40)
    write(root / "ok.md", "# Ok\n\n**Agent-trigger:** Reviewing code.\n")
    corpus, warnings = load(root)
    assert corpus.names == ["ok"]  # type: ignore[attr-defined]
    reasons = {skip.file: skip.reason for skip in corpus.problems}  # type: ignore[attr-defined]
    assert reasons == {"lib/blob.jsonl": "binary", "lib/data.jsonl": "not UTF-8",
                       "lib/image.md": "not UTF-8"}
    assert corpus.candidates == 4  # type: ignore[attr-defined]
    assert len(warnings) == 3 and all(w.startswith("skipping lib/") for w in warnings)


@pytest.mark.parametrize("name", ["LICENSE.md", "LICENSE", "ANTHROPIC_ATTRIBUTION.md",
                                  "README.md", "readme.markdown", "README.zh-CN.md",
                                  "CHANGELOG.md", "CONTRIBUTING.md", "CODE_OF_CONDUCT.md",
                                  "SECURITY.md", "NOTICE.md", "COPYING", "AGENTS.md"])
def test_a_repository_s_own_files_are_not_documents(name: str) -> None:
    assert repository_file(name)


@pytest.mark.parametrize("name", ["security.md", "deploy.md", "readme-best-practices.mdc",
                                  "README.mdc", "release-notes.md"])
def test_documents_that_only_look_like_repository_files(name: str) -> None:
    assert not repository_file(name)


def test_licence_readme_and_a_skill_s_supporting_files_are_neither_warnings_nor_skips(
        tmp_path: Path) -> None:
    root = tmp_path / "skills"
    skill = "---\nname: {0}\ndescription: Working with {0} files.\n---\nBody\n"
    write(root / "README.md", "# My collection\n\nNo trigger: it is about the collection.\n")
    write(root / "LICENSE.md", "MIT License\n")
    write(root / "ANTHROPIC_ATTRIBUTION.md", "# Attribution\n")
    write(root / "QUICKSTART.md", "# Quick start\n\nRun it.\n")
    write(root / "pdf" / "SKILL.md", skill.format("pdf"))
    write(root / "pdf" / "reference.md", "# Reference\n\nNo trigger.\n")
    write(root / "pdf" / "references" / "forms.md", "# Forms\n")
    write(root / "pdf" / "scripts" / "run.md", "# Run\n")
    write(root / "pdf" / "data" / "bench.jsonl", b"\x00\x01\x02")
    write(root / "pdf" / "CHANGELOG.md", "# 1.0\n")
    write(root / "game" / "SKILL.md", skill.format("game"))
    write(root / "game" / "2d-games" / "SKILL.md", skill.format("2d-games"))  # nested: a skill
    write(root / "db" / "SKILL.MD", skill.format("db"))  # in capitals: a skill all the same
    write(root / "db" / "schema.md", "# Schema\n")
    corpus, warnings = load(root)
    assert sorted(corpus.names) == ["2d-games", "db", "game", "pdf"]  # type: ignore[attr-defined]
    assert {doc.kind for doc in corpus.documents} == {"skill"}  # type: ignore[attr-defined]
    assert warnings == [] and corpus.problems == []  # type: ignore[attr-defined]
    assert corpus.candidates == 4  # type: ignore[attr-defined]


def test_duplicate_agent_names_in_two_category_folders(tmp_path: Path) -> None:
    agent = "---\nname: accessibility-tester\ndescription: Testing {0} accessibility.\n---\nBody\n"
    write(tmp_path / "agents" / "accessibility" / "accessibility-tester.md", agent.format("web"))
    write(tmp_path / "agents" / "development-tools" / "accessibility-tester.md",
          agent.format("app"))
    corpus, warnings = load(tmp_path / "agents")
    assert corpus.names == ["accessibility/accessibility-tester",  # type: ignore[attr-defined]
                            "development-tools/accessibility-tester"]
    assert warnings == ["1 name(s) shared by two or more documents, each qualified by its folder "
                        "(--on-duplicate error|first to change): accessibility-tester -> "
                        "accessibility/accessibility-tester, "
                        "development-tools/accessibility-tester"]


def test_commands_and_agents_without_a_description_take_their_first_paragraph(
        tmp_path: Path) -> None:
    write(tmp_path / "commands" / "orchestration" / "archive.md",
          "# Orchestration Archive Command\n\nProperly archive completed orchestrations while "
          "preserving [lessons](x.md) learned.\n\n## Usage\n")
    write(tmp_path / "policies" / "notes.md", "# Notes\n\nNot an agent: no trigger, skipped.\n")
    corpus = load_corpus([tmp_path / "commands", tmp_path / "policies"], base=tmp_path,
                         warn=lambda _m: None)
    (doc,) = corpus.documents
    assert doc.name == "archive"
    assert doc.trigger == ("Properly archive completed orchestrations while preserving lessons "
                           "learned.")
    assert doc.notes == ("no description: its first paragraph is the trigger",)
    assert [(skip.file, skip.reason) for skip in corpus.problems] == [
        ("policies/notes.md", "no description")]


def test_first_paragraph_skips_headings_code_lists_and_links_alone() -> None:
    body = ("# Title\n\n[Diagram](d.html)\n\n```\ncode here is not prose\n```\n\n- a list item\n\n"
            "The first real paragraph\nspans two lines.\n\nSecond.\n")
    assert first_paragraph(body) == "The first real paragraph spans two lines."
    assert first_paragraph("# Only a title\n") is None


def test_many_skipped_files_are_counted_not_listed_one_by_one(tmp_path: Path) -> None:
    for number in range(14):
        write(tmp_path / "lib" / f"note{number:02}.md", "# Note\n\nNo trigger.\n")
    write(tmp_path / "lib" / "ok.md", "# Ok\n\n**Agent-trigger:** Reviewing code.\n")
    corpus, warnings = load(tmp_path / "lib")
    assert len(corpus.problems) == 14 and corpus.reasons == {"no description": 14}  # type: ignore[attr-defined]
    assert len(warnings) == 11
    assert warnings[-1].startswith("… and 4 more skipped file(s); gov index --skipped")


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab: -|>'\"[],*#\n\t")), max_size=200))
def test_lenient_front_matter_never_fails_and_holds_only_text(source: str) -> None:
    read = lenient_front_matter(source)
    for value in read.values():
        assert isinstance(value, str) or (isinstance(value, list)
                                          and all(isinstance(item, str) for item in value))
