"""`card verify --repo` reads a repository it does not trust: its own git config must not
run anything (core.fsmonitor, hooks, pagers, external diff)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from gov.core.cards.repo_checks import open_repo


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True,
                   env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_AUTHOR_NAME": "t",
                        "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
                        "GIT_COMMITTER_EMAIL": "t@t"})


@pytest.mark.slow
def test_a_repositorys_fsmonitor_hooks_and_external_diff_never_run(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / "a.txt").write_text("a\n")
    _git(repo, "add", "a.txt")
    _git(repo, "commit", "-q", "-m", "one")
    (repo / "a.txt").write_text("b\n")
    ran = tmp_path / "ran"
    script = tmp_path / "evil.sh"
    script.write_text(f"#!/bin/sh\necho \"$0 $*\" >> {ran}\nexit 0\n")
    script.chmod(0o755)
    for key in ("core.fsmonitor", "diff.external", "core.pager", "core.hooksPath"):
        _git(repo, "config", key, str(script) if key != "core.hooksPath" else str(tmp_path))
    (tmp_path / "post-index-change").symlink_to(script)
    (tmp_path / "reference-transaction").symlink_to(script)
    found = open_repo(repo, base="HEAD")
    assert "a.txt" in found.changed
    assert not ran.exists(), ran.read_text()
