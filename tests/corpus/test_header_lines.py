"""Routing header lines keep their line numbers (gov lint points at them), and Lint-ignore
is read with them: from markdown, front matter and JSONL."""

from __future__ import annotations

import io
from pathlib import Path

from gov.core.corpus.markdown import is_header_line, parse_markdown
from gov.core.corpus.reader import load_corpus, parse_jsonl_documents

POLICY = """# Deployment

**Agent-trigger:** Deploying a service to production.
**Agent-example:** ship it to prod
**Agent-example:** roll back the release
**Family:** delivery
**Depends-on:** incident-response, on-call
**Lint-ignore:** hub, overlap

```
**Agent-example:** not an example: inside a code fence
```
"""


def test_markdown_header_lines_have_their_numbers() -> None:
    parsed = parse_markdown(POLICY)
    assert parsed.title == "Deployment" and parsed.title_line == 1
    assert parsed.trigger_line == 3
    assert parsed.examples == ["ship it to prod", "roll back the release"]
    assert parsed.example_lines == [4, 5]
    assert parsed.family_line == 6
    assert parsed.depends_line == 7
    assert parsed.lint_ignore == ["hub", "overlap"] and parsed.lint_ignore_line == 8
    assert is_header_line("**Lint-ignore:** hub")


def test_front_matter_keys_have_their_lines(tmp_path: Path) -> None:
    skill = tmp_path / "writer"
    skill.mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: writer\ndescription: Write release announcements for customers.\n"
        "lint-ignore: [hub]\nfamily: docs\n---\n\n# Writer\n")
    parsed = parse_markdown((skill / "SKILL.md").read_text())
    assert parsed.front_matter_lines == {"name": 2, "description": 3, "lint-ignore": 4,
                                         "family": 5}
    corpus = load_corpus([skill], warn=lambda _m: None, base=tmp_path)
    assert corpus.documents[0].lint_ignore == ("hub",)


def test_lint_ignore_does_not_change_what_routes() -> None:
    """Lint-ignore is lint's business: two documents differing only in it route alike."""
    lines = [b'{"name": "a", "trigger": "A specific trigger.", "lint_ignore": ["hub"]}\n']
    plain = [b'{"name": "a", "trigger": "A specific trigger."}\n']
    (ignored,) = parse_jsonl_documents(io.BytesIO(b"".join(lines)), "x.jsonl")
    (same,) = parse_jsonl_documents(io.BytesIO(b"".join(plain)), "x.jsonl")
    assert ignored.lint_ignore == ("hub",) and same.lint_ignore == ()
    assert ignored.content_hash == same.content_hash


def test_a_corpus_records_why_a_file_was_skipped(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# Notes\n\nNo trigger here.\n")
    (tmp_path / "ok.md").write_text("# Ok\n\n**Agent-trigger:** Something specific.\n")
    corpus = load_corpus([tmp_path], warn=lambda _m: None, base=tmp_path)
    assert corpus.skipped == ["notes.md"]
    assert corpus.problems == [("notes.md", None, "no **Agent-trigger:** line", "no description")]
