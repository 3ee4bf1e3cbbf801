"""The README is true: short, its quick start runs line by line as written, its install lines
name this checkout, its man-page step finds the pages, and every relative link in README.md and
docs/*.md points at a file (and a heading) that exists.

The quick start's install lines are checked by reading them, not run (they would reinstall the
checkout); the lines after them run against the checkout's own ``.venv``, through a symlink,
in a fresh folder with its own home, runtime and cache folders."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from tests.conftest import REPO

README = REPO / "README.md"
TEXT = README.read_text(encoding="utf-8")
VENV_BIN = REPO / ".venv" / "bin"
PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]


def section(text: str, title: str) -> str:
    """The body of the ``## title`` section, its ``###`` subsections included."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S)
    assert match, f"README.md has no '## {title}' section"
    return match.group(1)


def blocks(text: str, language: str | None = "sh") -> list[list[str]]:
    """The lines of each fenced block (of ``language``; None: every block)."""
    found = re.findall(r"^```(\w*)\n(.*?)^```", text, flags=re.M | re.S)
    return [body.splitlines() for lang, body in found if language is None or lang == language]


def command_lines(text: str) -> list[str]:
    return [line.strip() for block in blocks(text) for line in block
            if line.strip() and not line.strip().startswith("#")]


QUICK = section(TEXT, "Quick start")
QUICK_LINES = command_lines(QUICK)
EXTRAS = set(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"])


def test_readme_is_short() -> None:
    assert len(TEXT.splitlines()) <= 250


def test_quick_start_opens_with_the_two_setup_commands() -> None:
    first, _explain, second, *harness = QUICK_LINES
    assert first.startswith("python3 -m venv .venv && .venv/bin/pip install -q . && .venv/bin/gov route ")
    assert second.startswith("python3 -m venv .venv && .venv/bin/pip install -q -e '.[dev]'")
    assert [line.split()[:3] for line in harness] == [
        ["gov", "index", "policies/"], ["gov", "hook", "install"], ["gov", "doctor"]]


def test_ci_runs_the_readmes_test_command() -> None:
    """.ci/run installs and tests exactly as the quick start's second command says."""
    second = next(line for line in QUICK_LINES if "'.[dev]'" in line)
    venv, *steps = second.split(" && ")
    assert venv == "python3 -m venv .venv"
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "python3 -m venv .venv\n. .venv/bin/activate\n" in ci
    _, _, tail = ci.partition("# The README's test command (Quick start, second command):\n")
    assert [step.removeprefix(".venv/bin/") for step in steps] == tail.strip().splitlines()
    # The quick tier first, the slow one last: between them every test runs, and a broken
    # quick test fails the run in under a minute.
    tests = [step for step in steps if step.startswith(".venv/bin/pytest")]
    assert tests == ['.venv/bin/pytest -m "not slow"', ".venv/bin/pytest -m slow"]
    assert steps.index(tests[0]) == 1 and steps[-1] == tests[1]


def pip_targets(line: str) -> list[str]:
    """The requirement arguments of the ``pip install`` in a command line."""
    for part in line.split(" && "):
        words = shlex.split(part, comments=True)
        if len(words) > 2 and words[0].endswith("pip") and words[1] == "install":
            return [w for w in words[2:] if not w.startswith("-") and "=" not in w]
    return []


def test_every_pip_install_names_this_checkout_and_real_extras() -> None:
    """No package index serves gov: install lines take '.' or '.[extra]' of this checkout."""
    lines = command_lines(TEXT) + re.findall(r"`([^`]*pip install [^`]*)`", TEXT)
    for page in PAGES[1:]:
        lines += command_lines(page.read_text(encoding="utf-8"))
    checked = 0
    for line in (line for line in lines if "pip install" in line):
        for target in pip_targets(line):
            assert not re.match(r"gov\b", target), f"{line!r}: no index serves gov"
            match = re.fullmatch(r"\.(?:\[([\w,]+)\])?", target)
            if target.startswith("."):
                assert match, f"{line!r}: {target!r}"
                assert set(filter(None, (match.group(1) or "").split(","))) <= EXTRAS, line
                checked += 1
    assert checked >= 6  # the two set-up commands and the extras table, at least


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", ""))
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    return {slug(h) for h in re.findall(r"^#+ (.+)$", text, flags=re.M)}


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(REPO)) for p in PAGES])
def test_relative_links_resolve(page: Path) -> None:
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    broken = []
    for target in re.findall(r"\[[^\]]*\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto: and the like
        path, _, fragment = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        if not resolved.exists():
            broken.append(f"{target} (no {resolved.relative_to(REPO)})")
        elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
            broken.append(f"{target} (no heading #{fragment})")
    assert not broken, f"{page.relative_to(REPO)}: broken links: {broken}"


# --- run as written ------------------------------------------------------------------------------


def fresh_env(tmp_path: Path, path: str) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if not key.startswith(("GOV_", "CLAUDE_", "GEMINI_", "CURSOR_", "CODEX_", "COPILOT_"))}
    (tmp_path / "home").mkdir(exist_ok=True)
    return {**env, "PATH": path, "HOME": str(tmp_path / "home"), "NO_COLOR": "1",
            "GOV_RUNTIME_DIR": str(tmp_path / "run"), "GOV_CACHE_DIR": str(tmp_path / "cache")}


def sh(line: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["sh", "-c", line], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600, check=False)


def masked(text: str) -> str:
    return re.sub(r"-?\d+\.\d+", "N", text)


@pytest.mark.slow
@pytest.mark.model
def test_quick_start_runs_as_written(tmp_path: Path) -> None:
    checkout = tmp_path / "gov"
    checkout.mkdir()
    (checkout / ".venv").symlink_to(REPO / ".venv")
    shutil.copytree(REPO / "examples", checkout / "examples")
    project = tmp_path / "project"
    shutil.copytree(REPO / "examples" / "policies", project / "policies")
    plain = fresh_env(tmp_path, "/usr/bin:/bin")
    active = {**plain, "PATH": f"{VENV_BIN}:/usr/bin:/bin"}  # . .venv/bin/activate
    outputs = []
    for line in QUICK_LINES:
        if line.startswith("gov "):
            result = sh(line, project, active)
            assert result.returncode == 0, f"{line}\n{result.stdout}{result.stderr}"
            outputs.append(result.stdout)
            continue
        for part in line.split(" && "):
            words = shlex.split(part)
            if words[:3] == ["python3", "-m", "venv"] or "install" in words[1:2]:
                assert words[-1] == ".venv" or pip_targets(part), part  # read, not run
                continue
            if words[0] in (".venv/bin/pytest", ".venv/bin/ruff", ".venv/bin/mypy"):
                assert (checkout / words[0]).is_file(), part  # the suite itself is not rerun here
                continue
            result = sh(part, checkout, plain)
            assert result.returncode == 0, f"{part}\n{result.stdout}{result.stderr}"
            outputs.append(result.stdout)
    routed, abstained, *_ = outputs
    assert "1. on-call" in routed
    shown = next(block for block in blocks(QUICK, "") if block and block[0].endswith("?"))
    # The output shown is the output printed, up to its scores and which floor set the bar.
    assert [masked(line).split(" set by ")[0] for line in abstained.splitlines()] == [
        masked(line).split(" set by ")[0] for line in shown], abstained
    settings = project / ".claude" / "settings.json"
    assert f"{VENV_BIN / 'gov'} hook claude-code" in settings.read_text()
    assert "hook: claude-code" in outputs[-1]  # gov doctor saw the installed hook

    # The team and undo lines, with HARNESS as the quick start's harness.
    team, undo = (re.search(rf"`(gov hook {verb} HARNESS[^`]*)`", QUICK).group(1)  # type: ignore[union-attr]
                  for verb in ("install", "uninstall"))
    result = sh(undo.replace("HARNESS", "claude-code"), project, active)
    assert result.returncode == 0 and not settings.exists(), result.stderr
    result = sh(team.replace("HARNESS", "claude-code"), project, active)
    assert result.returncode == 0, result.stderr
    assert '"gov hook claude-code"' in settings.read_text()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("man") is None, reason="man is not installed")
def test_the_man_page_step_finds_the_checkouts_pages(tmp_path: Path) -> None:
    (line,) = [line for line in command_lines(section(TEXT, "Commands")) if " man " in f" {line}"]
    env = {**fresh_env(tmp_path, os.environ.get("PATH", "/usr/bin:/bin")), "MANPAGER": "cat",
           "PAGER": "cat", "MANWIDTH": "80", "LC_ALL": "C.UTF-8"}
    result = sh(line, REPO, env)
    assert result.returncode == 0, result.stderr
    assert "GOV-ROUTE(1)" in result.stdout and "SYNOPSIS" in result.stdout
    where = sh(line.replace("man gov-route", "man -w gov"), REPO, env)
    assert where.stdout.strip() == str(REPO / "man" / "man1" / "gov.1")
