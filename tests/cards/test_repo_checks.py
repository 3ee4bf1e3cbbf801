"""Cards checked against the work they describe, in a scratch git repository built here.

``golden_repo/repo.json`` describes the repository: files committed and tagged ``base``, the
next commit (HEAD), and uncommitted changes on top. Each repository check has a card that
must pass and one that must fail it exactly, judged by the real ``gov card verify --repo``.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gov.core.cards.repo_checks import REPO_CHECKS, Repo, RepoError, open_repo
from tests.conftest import run_gov

from .conftest import jsonl

GOLDEN = Path(__file__).parent / "golden_repo"
FILES = sorted(GOLDEN.glob("*/*.json"))
GIT_ENV = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_AUTHOR_DATE": "2025-06-01T08:00:00Z",
           "GIT_COMMITTER_DATE": "2025-06-01T08:00:00Z", "GIT_CONFIG_NOSYSTEM": "1"}  # fmt: skip


def git(repo: Path, *args: str) -> None:
    env = {**os.environ, **GIT_ENV, "HOME": str(repo.parent)}
    subprocess.run(["git", "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
                   cwd=repo, env=env, check=True, capture_output=True)  # fmt: skip


def write_files(repo: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(text)


@pytest.fixture(scope="module")
def scratch_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    spec = json.loads((GOLDEN / "repo.json").read_text())
    repo = tmp_path_factory.mktemp("scratch") / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    write_files(repo, spec["base"])
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "base")
    git(repo, "tag", "base")
    write_files(repo, spec["head"]["write"])
    for name in spec["head"]["delete"]:
        (repo / name).unlink()
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "head")
    write_files(repo, spec["worktree"]["write"])
    for name in spec["worktree"]["delete"]:
        (repo / name).unlink()
    return repo


def verify(repo: Path, tmp_path: Path, cards: list[dict[str, Any]], *args: str) -> tuple[int, list[dict[str, Any]], str]:
    path = tmp_path / "cards.jsonl"
    path.write_text("".join(json.dumps(card) + "\n" for card in cards))
    out = run_gov("card", "verify", str(path), "--now", "2025-06-01T12:00:00Z", "-f", "jsonl", *args)
    return out.returncode, jsonl(out.stdout), out.stderr.decode()


def test_every_repository_check_has_a_pass_and_a_fail_golden_file() -> None:
    assert {p.parent.name for p in FILES} == {check.name for check in REPO_CHECKS}
    for check in REPO_CHECKS:
        assert (GOLDEN / check.name / "pass.json").is_file() and (GOLDEN / check.name / "fail.json").is_file()


@pytest.mark.slow
@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_golden_card_in_the_scratch_repository(scratch_repo: Path, tmp_path: Path, path: Path) -> None:
    record = json.loads(path.read_text())
    check, expect = record["check"], record["expect"]
    assert (path.parent.name, path.stem) == (check, expect)
    base = ["--base", record["base"]] if record["base"] else []
    code, results, err = verify(scratch_repo, tmp_path, record["cards"], "--repo", str(scratch_repo), *base)
    assert all(r["valid"] for r in results), results
    for earlier in results[:-1]:
        assert earlier["hard_failures"] + earlier["soft_failures"] == [], earlier
    judged = results[-1]
    assert code == (0 if judged["passed"] else 1)
    failures = judged["hard_failures"] + judged["soft_failures"]
    if expect == "fail":
        assert failures == [check], judged
    else:
        assert failures == [], judged
        assert check in judged["checks_passed"]
    assert f"repository checks on {scratch_repo}" in err


@pytest.mark.slow
def test_without_a_repository_the_checks_do_not_run(scratch_repo: Path, tmp_path: Path) -> None:
    record = json.loads((GOLDEN / "artifacts_exist" / "fail.json").read_text())
    code, [result], _ = verify(scratch_repo, tmp_path, record["cards"])
    assert code == 0 and result["passed"]
    assert not {c.name for c in REPO_CHECKS} & set(result["checks_passed"])


@pytest.mark.slow
def test_a_contract_switches_a_repository_check_off(scratch_repo: Path, tmp_path: Path) -> None:
    contract = tmp_path / "team.json"
    contract.write_text(json.dumps({"id": "team", "extends": "default", "checks": {"artifacts_exist": "OFF"}}))
    record = json.loads((GOLDEN / "artifacts_exist" / "fail.json").read_text())
    code, [result], _ = verify(scratch_repo, tmp_path, record["cards"], "--repo", str(scratch_repo),
                               "-c", str(contract))  # fmt: skip
    assert code == 0 and result["contract_id"] == "result-team"
    assert "artifacts_exist" not in result["checks_passed"] + result["hard_failures"]


@pytest.mark.slow
def test_a_failing_artifact_names_itself_and_fails_hard(scratch_repo: Path, tmp_path: Path) -> None:
    record = json.loads((GOLDEN / "artifacts_exist" / "fail.json").read_text())
    code, [result], _ = verify(scratch_repo, tmp_path, record["cards"], "--repo", str(scratch_repo))
    assert code == 1 and result["hard_failures"] == ["artifacts_exist"]
    assert "src/missing.py is neither at HEAD nor in the working tree" in result["summary"]


@pytest.mark.slow
@pytest.mark.parametrize(("args", "message"), [
    (["--repo", "{tmp}"], "not a git repository"),
    (["--repo", "{tmp}/nowhere"], "is not a folder"),
    (["--repo", "{repo}", "--base", "no-such-rev"], "base: 'no-such-rev' is not a commit"),
    (["--base", "base"], "--base needs --repo"),
])  # fmt: skip
def test_repository_errors_are_one_line_exit_2(scratch_repo: Path, tmp_path: Path, args: list[str], message: str) -> None:
    args = [a.format(tmp=tmp_path, repo=scratch_repo) for a in args]
    record = json.loads((GOLDEN / "artifacts_exist" / "pass.json").read_text())
    code, results, err = verify(scratch_repo, tmp_path, record["cards"], *args)
    assert code == 2 and results == []
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.slow
@pytest.mark.parametrize(("artifact", "path"), [
    ("src/app.py", "src/app.py"), ("./src/app.py", "src/app.py"), ("src/app.py:12", "src/app.py"),
    ("src/app.py:12:3", "src/app.py"), ("src/app.py#L3-L9", "src/app.py"), ("docs/", "docs"),
    ("README.md", "README.md"), ("setup.cfg", "setup.cfg"),
    ("https://example.com/a.py", None), ("example.com", None), ("PR-123", None), ("#45", None),
    ("jira:APP-7", None), ("sha256:abc", None), ("src/*.py", None), ("two words.txt", None),
    ("../outside.py", None), ("/etc/passwd", None), ("v1.2.3", None), ("Makefile", None),
])  # fmt: skip
def test_what_looks_like_a_path(scratch_repo: Path, artifact: str, path: str | None) -> None:
    repo = open_repo(scratch_repo)
    assert repo.relative(artifact) == path
    assert repo.relative(str(scratch_repo / "src" / "app.py")) == "src/app.py"


@pytest.mark.slow
def test_open_repo_reads_head_and_the_change(scratch_repo: Path) -> None:
    repo = open_repo(scratch_repo / "src", "base")  # any folder inside the repository
    assert isinstance(repo, Repo) and repo.root == scratch_repo.resolve()
    assert "old/legacy.py" not in repo.head_files and "src/feature.py" in repo.head_files
    assert repo.changed == {"src/app.py", "src/feature.py", "tests/test_app.py", "old/legacy.py",
                            "src/util.py", "notes/scratch.md"}  # fmt: skip
    assert open_repo(scratch_repo).changed == {"src/util.py", "notes/scratch.md"}
    with pytest.raises(RepoError, match="base"):
        open_repo(scratch_repo, "nope")
