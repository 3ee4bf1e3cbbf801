"""One markdown file: header lines, front matter, status, code fences, bad YAML."""

from __future__ import annotations

from pathlib import Path

import pytest

from gov.core.corpus.markdown import ParseProblem, parse_markdown
from gov.core.corpus.reader import load_corpus
from tests.corpus.conftest import POLICY, write


def test_markdown_header_lines_are_read(tmp_path: Path) -> None:
    write(tmp_path / "deploying.md", POLICY)
    corpus = load_corpus([tmp_path], base=tmp_path)
    (doc,) = corpus.documents
    assert doc.name == "deploying"
    assert doc.trigger == "Shipping a service to production, or rolling one back."
    assert doc.examples == ("roll back last night's release", "push the new build to prod")
    assert doc.family == "delivery"
    assert doc.depends_on == ("on-call", "testing")
    assert "Exception: hotfixes may skip the window." in doc.text
    assert doc.source == "deploying.md"


@pytest.mark.parametrize("status", ["retired", "draft", "superseded", "deprecated", "withdrawn"])
def test_status_leaves_document_out(tmp_path: Path, status: str) -> None:
    write(tmp_path / "a.md", POLICY)
    write(tmp_path / "old.md", POLICY.replace("**Family:**", f"**Status:** {status}\n**Family:**"))
    corpus = load_corpus([tmp_path])
    assert corpus.names == ["a"]
    assert [doc.name for doc in corpus.retired] == ["old"]


def test_two_trigger_lines_name_both_lines(tmp_path: Path) -> None:
    write(tmp_path / "a.md", "# A\n\n**Agent-trigger:** one\n**Agent-trigger:** two\n")
    warnings: list[str] = []
    load_corpus([tmp_path], warn=warnings.append, base=tmp_path)
    assert "a.md:4" in warnings[0] and "line 3" in warnings[0]


def test_trigger_inside_a_code_fence_is_ignored(tmp_path: Path) -> None:
    write(tmp_path / "a.md", "# A\n\n```\n**Agent-trigger:** not me\n```\n**Agent-trigger:** me\n")
    assert load_corpus([tmp_path]).documents[0].trigger == "me"


def test_bad_yaml_is_read_leniently_with_a_note_naming_the_line(tmp_path: Path) -> None:
    write(tmp_path / "r.mdc", "---\ndescription: [unclosed\n---\nbody\n")
    warnings: list[str] = []
    corpus = load_corpus([tmp_path], warn=warnings.append, base=tmp_path)
    assert corpus.documents[0].trigger == "[unclosed"
    (note,) = corpus.documents[0].notes
    assert "not strict YAML" in note and "line 2" in note
    assert len(warnings) == 1 and "1 file(s)' front matter read leniently" in warnings[0]


def test_strict_yaml_is_still_a_problem_when_not_lenient() -> None:
    with pytest.raises(ParseProblem, match="not valid YAML"):
        parse_markdown("---\nglobs: **/*\n---\nbody\n", lenient=False)
