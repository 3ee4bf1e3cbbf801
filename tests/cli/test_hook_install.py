"""``gov hook install`` end to end, tried as a new user would: gov in a virtualenv that is
not on PATH, a fresh project, the installed command run exactly as the harness runs it
(``sh -c``, a bare PATH, from a subfolder), then ``gov doctor`` and uninstall."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO
from tests.serving.hook_contracts import context_of, prompt_payload, valid_output

ROUTED = "roll back last night's release, checkout is throwing 500s"
THEIRS = {"model": "opus", "env": {"A": "1"}, "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "echo pre"}]}],
    "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "true"}]}]}}


def gov_path() -> str:
    """This checkout's console script, by absolute path (its folder is not on PATH below)."""
    script = Path(sys.executable).parent / "gov"
    assert script.is_file(), "the tests run from the project's virtualenv"
    return str(script)


def bare_env(home: Path, **extra: str) -> dict[str, str]:
    keep = {k: os.environ[k] for k in ("GOV_RUNTIME_DIR", "GOV_CACHE_DIR") if k in os.environ}
    return {"PATH": "/usr/bin:/bin", "HOME": str(home), **keep, **extra}


def gov(*args: str, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([gov_path(), *args], capture_output=True, text=True, cwd=cwd,
                          env=bare_env(home), timeout=300, check=False)


def as_the_harness_runs(command: str, payload: dict[str, Any], cwd: Path,
                        env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["/bin/sh", "-c", command], input=json.dumps(payload).encode(),
                          capture_output=True, cwd=cwd, env=env, timeout=120, check=False)


@pytest.fixture()
def project(tmp_path: Path) -> dict[str, Path]:
    home = tmp_path / "home"
    root = home / "work" / "shop"
    (root / "src" / "api").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(json.dumps(THEIRS, indent=2))
    shutil.copytree(REPO / "examples" / "policies", root / "policies")
    return {"home": home, "root": root, "sub": root / "src" / "api"}


@pytest.mark.slow
@pytest.mark.model
def test_install_route_doctor_uninstall_as_a_new_user(project: dict[str, Path]) -> None:
    home, root, sub = project["home"], project["root"], project["sub"]
    settings = root / ".claude" / "settings.json"
    assert shutil.which("gov", path="/usr/bin:/bin") is None  # gov is not on the bare PATH

    installed = gov("hook", "install", "claude-code", cwd=root, home=home)
    assert installed.returncode == 0, installed.stderr
    assert "UserPromptSubmit" in installed.stdout and str(settings) in installed.stdout
    merged = json.loads(settings.read_text())
    assert merged["model"] == "opus" and merged["env"] == {"A": "1"}
    assert merged["hooks"]["PreToolUse"] == THEIRS["hooks"]["PreToolUse"]
    assert merged["hooks"]["UserPromptSubmit"][0] == THEIRS["hooks"]["UserPromptSubmit"][0]
    command = merged["hooks"]["UserPromptSubmit"][-1]["hooks"][0]["command"]
    assert command.split()[0] == gov_path()
    written = settings.read_bytes()
    again = gov("hook", "install", "claude-code", cwd=root, home=home)
    assert again.returncode == 0 and "nothing changed" in again.stdout
    assert settings.read_bytes() == written  # twice = once

    # No index yet: doctor names the hook and fails with the fix.
    doctor = gov("doctor", "--format", "json", cwd=sub, home=home)
    assert doctor.returncode == 1, doctor.stdout
    hooks = [c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "hook: claude-code"]
    assert len(hooks) == 1 and hooks[0]["status"] == "fail"
    assert hooks[0]["fix"] == f"gov index PATH -o {root / '.gov' / 'index'}"

    built = gov("index", "policies", "-o", ".gov/index", cwd=root, home=home)
    assert built.returncode == 0, built.stderr

    # From a subfolder, bare PATH, as Claude Code runs it.
    payload = prompt_payload("claude-code", ROUTED, sub)
    routed = as_the_harness_runs(command, payload, sub, bare_env(home))
    assert routed.returncode == 0 and routed.stderr == b"", routed.stderr
    assert "deployment" in context_of(valid_output("claude-code", routed.stdout))

    # $CLAUDE_PROJECT_DIR set, run from somewhere else entirely.
    elsewhere = home
    payload = prompt_payload("claude-code", ROUTED, elsewhere, session="s-2")
    routed = as_the_harness_runs(command, payload, elsewhere,
                                 bare_env(home, CLAUDE_PROJECT_DIR=str(root)))
    assert routed.returncode == 0 and routed.stderr == b"", routed.stderr
    context = context_of(valid_output("claude-code", routed.stdout))
    # gov show run from there would not find this index by itself: the paragraph names it
    assert "deployment" in context and "gov show NAME -i work/shop/.gov/index" in context

    doctor = gov("doctor", "--format", "json", cwd=sub, home=home)
    hooks = [c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "hook: claude-code"]
    assert hooks[0]["status"] == "ok", hooks
    assert doctor.returncode == 0, doctor.stdout

    removed = gov("hook", "uninstall", "claude-code", cwd=root, home=home)
    assert removed.returncode == 0, removed.stderr
    assert json.loads(settings.read_text()) == THEIRS
    gov("serve", "--stop", cwd=root, home=home)


@pytest.mark.slow
def test_install_errors_exit_2_with_one_line(tmp_path: Path) -> None:
    home = tmp_path
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text("{\n  oops\n}\n")
    broken = gov("hook", "install", "claude-code", cwd=tmp_path, home=home)
    assert broken.returncode == 2 and broken.stderr.count("\n") == 1
    assert "settings.json:2: not valid JSON" in broken.stderr
    unknown = gov("hook", "install", "vim", cwd=tmp_path, home=home)
    assert unknown.returncode == 2 and "unknown harness 'vim'" in unknown.stderr
    dry = gov("hook", "install", "cursor", "--dry-run", cwd=tmp_path, home=home)
    assert dry.returncode == 0 and "(dry run: nothing written)" in dry.stdout
    assert not (tmp_path / ".cursor").exists()
