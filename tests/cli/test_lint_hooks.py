"""gov lint where teams run it: the pre-commit hook as configured, the CI script and the
workflow job."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.conftest import EXAMPLES, REPO, gov_on_path
from tests.lint.conftest import PLANTED
from tests.lint.test_lint_planted import PLANTED_FINDINGS


@pytest.fixture(scope="module")
def env(lint_cache: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    base = {**os.environ, "NO_COLOR": "1", "GOV_CACHE_DIR": str(lint_cache)}
    base.pop("GITHUB_ACTIONS", None)
    base.pop("GOV_INDEX", None)
    return gov_on_path(tmp_path_factory.mktemp("bin"), base)


def test_the_offered_hook_as_configured_passes_the_examples_and_refuses_a_dangling_dependency(
        env: dict[str, str], tmp_path: Path) -> None:
    offered = {hook["id"]: hook for hook in
               yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    hook = offered["gov-lint"]
    assert hook["pass_filenames"] is False and hook["language"] == "python"
    config = yaml.safe_load((EXAMPLES / "pre-commit-config.yaml").read_text())
    (configured,) = [h for repo in config["repos"] for h in repo["hooks"] if h["id"] == "gov-lint"]
    args = configured.get("args", hook.get("args", []))
    assert re.search(hook["files"], "policies/deployment.md")
    assert re.search(hook["files"], "policies/gov-lint.json")
    assert not re.search(hook["files"], "src/app.py")
    shutil.copytree(EXAMPLES / "policies", tmp_path / "policies")
    command = [*shlex.split(hook["entry"]), *args]
    ok = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True,
                        timeout=600, check=False)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    on_call = tmp_path / "policies" / "on-call.md"
    on_call.write_text(on_call.read_text().replace("**Depends-on:** incident-response",
                                                   "**Depends-on:** incident-respnse"))
    refused = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True,
                             timeout=600, check=False)
    assert refused.returncode == 1
    assert "depends-dangling" in refused.stdout and "incident-respnse" in refused.stdout


def test_the_ci_script_annotates_on_github_and_exits_by_severity(env: dict[str, str],
                                                                tmp_path: Path) -> None:
    script = REPO / "examples" / "ci" / "lint-policies.sh"
    github = subprocess.run(["sh", str(script), str(PLANTED)], cwd=REPO, capture_output=True,
                            text=True, env={**env, "GITHUB_ACTIONS": "true"}, timeout=600,
                            check=False)
    assert github.returncode == 1, github.stderr
    lines = github.stdout.splitlines()
    # One annotation per planted finding, at its severity (a note is a notice).
    command = {"error": "::error ", "warning": "::warning ", "note": "::notice "}
    assert sorted(line.split(" ", 1)[0] + " " for line in lines) == sorted(
        command[severity] for *_, severity in PLANTED_FINDINGS)
    lenient = subprocess.run(["sh", str(script), str(PLANTED)], cwd=REPO, capture_output=True,
                             text=True, env={**env, "GOV_LINT_FAIL_ON": "never"}, timeout=600,
                             check=False)
    assert lenient.returncode == 0 and "depends-dangling" in lenient.stdout
    missing = subprocess.run(["sh", str(script), str(tmp_path / "nope")], capture_output=True,
                             text=True, env=env, timeout=60, check=False)
    assert missing.returncode == 2


def test_the_workflow_lints_the_policies_and_uploads_sarif() -> None:
    workflow = yaml.safe_load((EXAMPLES / "ci" / "github-actions.yml").read_text())
    job = workflow["jobs"]["lint-policies"]
    runs = "\n".join(step.get("run", "") for step in job["steps"])
    assert "gov lint" in runs and "--format sarif" in runs
    assert "lint-policies.sh" in runs
    uploads = [step for step in job["steps"]
               if str(step.get("uses", "")).startswith("github/codeql-action/upload-sarif")]
    assert uploads and uploads[0]["with"]["sarif_file"] == "gov-lint.sarif"
    assert job["permissions"]["security-events"] == "write"
