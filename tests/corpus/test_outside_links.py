"""Links in a corpus that point out of it: the warnings say only that the link leaves the
corpus, never whether its target exists, is a FIFO, a device or cannot be read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gov.core.corpus.reader import load_corpus
from gov.core.corpus.walk import LEAVES
from gov.core.errors import CorpusError

SKILL = "---\nname: {name}\ndescription: Rotating the keys of a service\n---\nBody.\n"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """A corpus of one skill, and links out of it to: nothing, a FIFO, a device, a plain file
    that is no document, a folder that is no skill pack, a capitalised file."""
    outside = tmp_path / "outside"
    outside.mkdir()
    os.mkfifo(outside / "pipe")
    (outside / "notes.txt").write_text("no front matter here\n")
    (outside / "folder").mkdir()
    root = tmp_path / "corpus"
    (root / "keys").mkdir(parents=True)
    (root / "keys" / "SKILL.md").write_text(SKILL.format(name="keys"))
    for name, target in (("gone.md", outside / "missing"), ("pipe.md", outside / "pipe"),
                         ("null.md", Path("/dev/null")), ("notes.md", outside / "notes.txt"),
                         ("SECRETS.md", outside / "notes.txt"), ("dir.md", outside / "folder"),
                         ("missing-folder", outside / "nowhere")):
        (root / name).symlink_to(target)
    return root


def _warnings(root: Path) -> list[str]:
    warnings: list[str] = []
    corpus = load_corpus([root], warn=warnings.append, base=root.parent)
    assert corpus.names == ["keys"]
    return warnings


def test_each_link_out_is_said_to_leave_the_corpus_and_nothing_more(corpus: Path) -> None:
    warnings = _warnings(corpus)
    said = {name: [w for w in warnings if f"{name}:" in w or f"{name} " in w]
            for name in ("gone.md", "pipe.md", "null.md", "notes.md", "SECRETS.md")}
    for name, lines in said.items():
        assert len(lines) == 1, (name, warnings)
        assert lines[0].endswith(LEAVES), lines[0]
    text = "\n".join(warnings)
    for leak in ("broken", "not a regular file", "FIFO", "no description", "front matter",
                 "permission", "No such file", "missing", "outside"):
        assert leak not in text, (leak, text)


def test_a_missing_target_and_an_existing_one_read_the_same(corpus: Path) -> None:
    """The line for a link to nothing and for a link to a FIFO differ only in the link's name."""
    warnings = _warnings(corpus)
    gone = next(w for w in warnings if "gone.md" in w).replace("gone.md", "X")
    pipe = next(w for w in warnings if "pipe.md" in w).replace("pipe.md", "X")
    assert gone == pipe


def test_strict_mode_says_only_that_the_link_leaves(corpus: Path) -> None:
    for name in ("gone.md", "pipe.md", "null.md", "SECRETS.md", "dir.md", "missing-folder"):
        (corpus / name).unlink()
    with pytest.raises(CorpusError) as raised:
        load_corpus([corpus], strict=True, warn=lambda _m: None, base=corpus.parent)
    assert "notes.md" in str(raised.value) and LEAVES in str(raised.value)
    assert "description" not in str(raised.value)


def test_a_link_inside_the_corpus_keeps_its_reason(tmp_path: Path) -> None:
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "SKILL.md").write_text(SKILL.format(name="keys"))
    (tmp_path / "gone.md").symlink_to(tmp_path / "missing.md")
    os.mkfifo(tmp_path / "pipe.fifo")
    (tmp_path / "pipe.md").symlink_to(tmp_path / "pipe.fifo")
    warnings = _warnings(tmp_path)
    assert any("gone.md" in w and "broken link" in w for w in warnings), warnings
    assert any("pipe.md" in w and "not a regular file" in w for w in warnings), warnings


def test_a_linked_document_outside_is_still_read(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "rule.md").write_text(SKILL.format(name="rule"))
    (tmp_path / "corpus" / "keys").mkdir(parents=True)
    (tmp_path / "corpus" / "keys" / "SKILL.md").write_text(SKILL.format(name="keys"))
    (tmp_path / "corpus" / "rule.md").symlink_to(tmp_path / "elsewhere" / "rule.md")
    corpus = load_corpus([tmp_path / "corpus"], warn=lambda _m: None, base=tmp_path)
    assert sorted(corpus.names) == ["keys", "rule"]
