"""Every recipe in examples/recipes.sh runs as written: a real shell, a real ``gov`` on PATH,
a fresh folder each, so each recipe is shown to work on its own."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from docs import generate as docgen
from tests.conftest import EXAMPLES, REPO, gov_on_path, run_gov

RECIPES = EXAMPLES / "recipes.sh"
COMMANDS = {doc.name for doc in docgen.walk(docgen.command_tree())}
NEEDS = {
    "index": ["gov index"],
    "route-eval": ["gov route", "gov eval"],
    "calibrate": ["gov calibrate", "gov route", "gov eval"],
    "cards": ["gov card verify"],
    "telemetry": ["gov route", "gov telemetry report"],
}

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("sh") is None, reason="no POSIX sh")]


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """PATH starts with a ``gov`` that runs this checkout's entry point; no ambient settings
    but the suite's cache folder (never the user's; the background bank's vectors are read
    back from it rather than embedded again by every recipe's build)."""
    clean = {key: value for key, value in os.environ.items()
             if not key.startswith("GOV_") and key != "NO_COLOR"}
    return {**gov_on_path(tmp_path_factory.mktemp("bin"), clean), "NO_COLOR": "1",
            "GOV_RUNTIME_DIR": str(tmp_path_factory.mktemp("runtime")),
            "GOV_CACHE_DIR": os.environ["GOV_CACHE_DIR"]}


def recipe(name: str, env: dict[str, str], cwd: Path, *args: str
           ) -> subprocess.CompletedProcess[str]:
    missing = [command for command in NEEDS.get(name, []) if command not in COMMANDS]
    if missing:
        pytest.skip(f"recipe {name!r} needs {', '.join(missing)}, which the CLI does not have yet")
    return subprocess.run(["sh", str(RECIPES), name, *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def test_index(env: dict[str, str], tmp_path: Path) -> None:
    result = recipe("index", env, tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / ".gov" / "recipes" / "index").is_file()
    assert "indexed 22 documents" in result.stdout


def test_route_eval(env: dict[str, str], tmp_path: Path) -> None:
    result = recipe("route-eval", env, tmp_path)
    assert result.returncode == 0, result.stderr
    routed = (tmp_path / ".gov" / "recipes" / "routed.jsonl").read_text().splitlines()
    labelled = (EXAMPLES / "labelled.jsonl").read_text().splitlines()
    assert len(routed) == len([line for line in labelled if line.strip()])
    first = json.loads(routed[0])
    assert "routes" in first and "expected" in first  # the labels passed through
    assert "routing quality" in result.stdout and "recall@2" in result.stdout


def test_calibrate(env: dict[str, str], tmp_path: Path) -> None:
    result = recipe("calibrate", env, tmp_path)
    assert result.returncode == 0, result.stderr
    point = json.loads((tmp_path / ".gov" / "recipes" / "point.json").read_text())
    assert isinstance(point, dict) and point
    assert "rule:" in result.stdout and "routing quality" in result.stdout


def test_cards(env: dict[str, str], tmp_path: Path) -> None:
    good = recipe("cards", env, tmp_path)
    assert good.returncode == 0, good.stdout + good.stderr
    assert "5 cards: 5 passed" in good.stderr
    pinned = recipe("cards", {**env, "GOV_CARD_NOW": "2025-06-01T12:00:00Z"}, tmp_path)
    assert pinned.returncode == 0
    assert "(0 with soft failures)" in pinned.stderr  # judged as of then, none is stale
    bad = recipe("cards", env, tmp_path, str(EXAMPLES / "cards" / "bad"))
    assert bad.returncode == 1
    assert "FAIL" in bad.stdout or "INVALID" in bad.stdout


def test_telemetry(env: dict[str, str], tmp_path: Path) -> None:
    result = recipe("telemetry", env, tmp_path)
    assert result.returncode == 0, result.stderr
    log = (tmp_path / ".gov" / "recipes" / "telemetry.jsonl").read_text().splitlines()
    assert log and all(json.loads(line)["outcome"] for line in log)
    labelled = (EXAMPLES / "labelled.jsonl").read_text()
    assert not any(json.loads(line)["prompt"] in "\n".join(log)
                   for line in labelled.splitlines()[:5])  # no prompt text in the log
    assert f"{len(log)} events" in result.stdout


def test_unknown_recipe_is_a_usage_error(env: dict[str, str], tmp_path: Path) -> None:
    result = subprocess.run(["sh", str(RECIPES), "nope"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 2
    assert result.stderr.startswith("usage: ")


def test_workflow_uses_gov_for_both_halves() -> None:
    workflow = yaml.safe_load((EXAMPLES / "ci" / "github-actions.yml").read_text())
    runs = {name: "\n".join(step.get("run", "") for step in job["steps"])
            for name, job in workflow["jobs"].items()}
    assert "gov card verify" in runs["verify-cards"]
    for command in ("gov index", "gov doctor", "gov route", "gov eval"):
        assert command in runs["route-eval"]


def test_precommit_card_hook_as_configured() -> None:
    """Run the offered hook's entry on the files its pattern selects, as pre-commit would."""
    offered = {hook["id"]: hook for hook in
               yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}
    config = yaml.safe_load((EXAMPLES / "pre-commit-config.yaml").read_text())
    # Local hooks (no release to pin yet) with the entries and patterns the repository offers.
    assert [repo["repo"] for repo in config["repos"]] == ["local"]
    local = {hook["id"]: hook for hook in config["repos"][0]["hooks"]}
    assert list(local) == ["gov-card-verify", "gov-lint", "gov-index"]
    for name in ("gov-card-verify", "gov-lint"):
        assert local[name]["language"] == "system"
        for key in ("entry", "files", "args", "pass_filenames"):
            assert local[name].get(key) == offered[name].get(key), (name, key)
    hook = local["gov-card-verify"]
    pattern = re.compile(hook["files"])
    for folder, expected in (("good", 0), ("bad", 1)):
        files = sorted(str(path.relative_to(REPO)) for path in (EXAMPLES / "cards" / folder)
                       .rglob("*") if path.is_file())
        selected = [name for name in files if pattern.search(name)]
        assert selected == files, "the hook's pattern should select every example card"
        result = run_gov(*shlex.split(hook["entry"])[1:], *selected, cwd=REPO, timeout=300)
        assert result.returncode == expected, (result.stdout + result.stderr).decode()


def test_precommit_local_index_hook(env: dict[str, str], tmp_path: Path) -> None:
    config = yaml.safe_load((EXAMPLES / "pre-commit-config.yaml").read_text())
    (hook,) = [hook for repo in config["repos"] if repo["repo"] == "local"
               for hook in repo["hooks"] if hook["id"] == "gov-index"]
    assert hook["language"] == "system" and hook["pass_filenames"] is False
    shutil.copytree(EXAMPLES / "policies", tmp_path / "policies")
    assert re.search(hook["files"], "policies/deployment.md")
    ok = subprocess.run(shlex.split(hook["entry"]), cwd=tmp_path, env=env, capture_output=True,
                        text=True, timeout=600, check=False)
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / ".gov" / "index").is_file()
    (tmp_path / "policies" / "no-trigger.md").write_text("# A policy\n\nNo trigger line.\n")
    refused = subprocess.run(shlex.split(hook["entry"]), cwd=tmp_path, env=env,
                             capture_output=True, text=True, timeout=600, check=False)
    assert refused.returncode == 2  # an input error; pre-commit refuses on any non-zero exit
    assert "no-trigger" in refused.stderr
