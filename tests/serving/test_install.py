"""``gov hook install|uninstall``: the merge, against each harness's published settings
examples (``tests/data/harness/``) and the reference files in ``examples/harness/``."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from gov.core.errors import InputError
from gov.core.serving import install
from gov.core.serving.harness import EVENTS, HARNESSES
from tests.conftest import REPO
from tests.serving.hook_contracts import fixture

EXAMPLES = REPO / "examples" / "harness"
EXAMPLE_FILE = {"claude-code": "settings.json", "codex": "codex-hooks.json",
                "gemini": "gemini-settings.json", "copilot": "copilot-hooks.json",
                "cursor": "cursor-hooks.json"}

# Someone else's settings, in each harness's own layout, that must survive.
OTHERS: dict[str, dict[str, Any]] = {
    "claude-code": {"model": "opus", "permissions": {"allow": ["Bash(ls)"]}, "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}],
        "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "./log-prompt.sh"}]}]}},
    "codex": {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "audit"}]}]}},
    "gemini": {**fixture("gemini-settings.hooks.example.json"), "theme": "dark"},
    "copilot": fixture("copilot-hooks.config.example.json"),
    "cursor": fixture("cursor-hooks.config.example.json"),
}


def hooks_of(settings: dict[str, Any]) -> list[tuple[str, dict[str, Any], str | None]]:
    """(event, hook object, matcher) for every hook in a settings file, either layout."""
    out = []
    for event, entries in settings["hooks"].items():
        for entry in entries:
            for hook in entry.get("hooks", [entry]):
                out.append((event, hook, entry.get("matcher")))
    return out


@pytest.mark.parametrize("harness", HARNESSES)
def test_install_writes_exactly_the_reference_file(harness: str, tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    change = install.install(harness, path, program="gov")
    assert change.action == "created"
    assert json.loads(path.read_text()) == json.loads((EXAMPLES / EXAMPLE_FILE[harness]).read_text())


# Keys each harness's published example shows for one hook (and the ones its reference
# names besides): an installed hook uses no other.
HOOK_KEYS = {
    "claude-code": {"type", "command", "timeout"},
    "codex": {"type", "command", "timeout", "statusMessage"},
    "gemini": set(fixture("gemini-settings.hooks.example.json")["hooks"]["BeforeTool"][0]["hooks"][0]),
    "copilot": set(fixture("copilot-hooks.config.example.json")["hooks"]["preToolUse"][0]),
    "cursor": {k for hooks in fixture("cursor-hooks.config.example.json")["hooks"].values()
               for h in hooks for k in h} | {"timeout"},
}


@pytest.mark.parametrize("harness", HARNESSES)
def test_every_installed_file_matches_its_harness_contract(harness: str, tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    install.install(harness, path, program=shlex.quote("/opt/my tools/bin/gov"))
    settings = json.loads(path.read_text())
    spec = install.TARGETS[harness]
    if spec.version:  # Copilot's and Cursor's files are versioned
        assert settings["version"] == 1
    found = hooks_of(settings)
    assert {event for event, _, _ in found} == {event for event, _ in spec.events}
    for event, hook, matcher in found:
        assert event in EVENTS, event
        assert set(hook) <= HOOK_KEYS[harness], (event, hook)
        command = hook.get("command") or hook["bash"]
        assert shlex.split(command) == ["/opt/my tools/bin/gov", "hook", harness]
        if spec.layout == "flat":  # Copilot and Cursor: no matcher, and '*' is no regex
            assert "matcher" not in hook
        if matcher is not None:
            re.compile(matcher)  # Cursor and Copilot also read .claude/settings.json
    if harness == "gemini":  # the published example's layout, entry for entry
        example = fixture("gemini-settings.hooks.example.json")["hooks"]["BeforeTool"][0]
        assert all(set(group) <= set(example) for groups in settings["hooks"].values()
                   for group in groups)


@pytest.mark.parametrize("harness", HARNESSES)
def test_install_keeps_everything_else_and_uninstall_restores_it(harness: str, tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    original = OTHERS[harness]
    path.write_text(json.dumps(original, indent=4))
    before = path.read_bytes()
    change = install.install(harness, path, program="gov")
    assert change.action == "updated" and change.backup == install.backup_path(path)
    assert change.backup.read_bytes() == before
    merged = json.loads(path.read_text())
    for key, value in original.items():
        if key != "hooks":
            assert merged[key] == value
    for event, entries in original["hooks"].items():
        assert merged["hooks"][event][: len(entries)] == entries  # theirs first, in place
    written = path.read_bytes()
    again = install.install(harness, path, program="gov")
    assert again.action == "unchanged" and path.read_bytes() == written  # twice = once
    removed = install.uninstall(harness, path)
    assert removed.action == "removed"
    assert json.loads(path.read_text()) == original
    assert install.uninstall(harness, path).action == "absent"


def test_a_file_install_created_is_gone_after_uninstall(tmp_path: Path) -> None:
    path = tmp_path / ".cursor" / "hooks.json"
    install.install("cursor", path)
    assert install.uninstall("cursor", path).action == "deleted"
    assert not path.exists() and not install.backup_path(path).exists()


def test_a_hand_copied_bare_command_is_replaced_not_doubled(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text((EXAMPLES / "settings.json").read_text())  # the old way: cp the example
    install.install("claude-code", path, program="/venv/bin/gov")
    commands = [hook["command"] for _, hook, _ in hooks_of(json.loads(path.read_text()))]
    assert commands == ["/venv/bin/gov hook claude-code"] * 3


def test_only_this_harness_and_only_gov_are_touched(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    theirs = {"hooks": {"UserPromptSubmit": [{"hooks": [
        {"type": "command", "command": "gov hook codex"},  # another harness's gov entry
        {"type": "command", "command": "govern hook claude-code"},  # not gov
        {"type": "command", "command": "echo gov hook claude-code"}]}]}}  # not gov either
    path.write_text(json.dumps(theirs))
    install.install("claude-code", path)
    install.uninstall("claude-code", path)
    assert json.loads(path.read_text()) == theirs


def test_dry_run_writes_nothing_and_shows_the_diff(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"model": "opus"}\n')
    change = install.install("claude-code", path, program="gov", dry_run=True)
    assert change.action == "updated" and "+      {" in change.diff and '"model"' in change.diff
    assert path.read_text() == '{"model": "opus"}\n'
    assert not install.backup_path(path).exists()


@pytest.mark.parametrize(("text", "where"), [('{"hooks": [}', ":1:"), ("[1]", ":1:"),
                                              ('{\n"hooks": {"X": {}}}', "hooks.X"),
                                              ('{"hooks": 3}', "'hooks'")])
def test_a_broken_settings_file_is_an_input_error_and_left_alone(text: str, where: str,
                                                                 tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        install.install("claude-code", path)
    assert str(path) in str(caught.value) and where in str(caught.value)
    assert caught.value.exit_code == 2
    assert path.read_text() == text


def test_the_command_names_this_gov_and_survives_sh(tmp_path: Path) -> None:
    program = install.this_gov()
    assert Path(shlex.split(program)[0]).is_absolute()
    assert install.is_gov_command(install.gov_command("gemini"), "gemini")
    spaced = install.gov_command("cursor", shlex.quote("/a b/bin/gov"))
    assert install.is_gov_command(spaced, "cursor") and not install.is_gov_command(spaced, "codex")
    assert install.is_gov_command("'/py thon' -m gov.cli.entry hook codex")


def test_user_scope_honours_the_harness_home_variables(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path)}
    assert install.settings_path("claude-code", user=True, environ=env) == tmp_path / ".claude/settings.json"
    assert install.settings_path("codex", user=True, environ=env | {"CODEX_HOME": "/c"}) == Path("/c/hooks.json")
    assert install.settings_path("copilot", user=True, environ=env) == tmp_path / ".copilot/hooks/gov.json"
    assert install.settings_path("copilot", project=tmp_path) == tmp_path / ".github/hooks/gov.json"


def test_installed_in_finds_settings_above_and_the_users_own(tmp_path: Path) -> None:
    home = tmp_path / "home"
    project = home / "p"
    (project / "src").mkdir(parents=True)
    (project / ".git").mkdir()
    install.install("cursor", install.settings_path("cursor", project))
    install.install("gemini", install.settings_path("gemini", user=True, environ={"HOME": str(home)}))
    found = install.installed_in(project / "src", home)
    assert [(f.harness, f.project) for f in found] == [("cursor", project), ("gemini", None)]


def test_the_examples_readme_lists_each_files_events() -> None:
    rows = [line for line in (EXAMPLES / "README.md").read_text().splitlines()
            if line.startswith("| ") and "`" in line]
    for harness, name in EXAMPLE_FILE.items():
        row = next(r for r in rows if f"`{name}`" in r.split("|")[2])
        listed = set(re.findall(r"`([A-Za-z]+)`", row.split("|")[4])) - {"clear", "compact"}
        assert listed == {event for event, _ in install.TARGETS[harness].events}, harness


def test_the_fixture_readme_cites_only_whole_commits() -> None:
    text = (REPO / "tests" / "data" / "harness" / "README.md").read_text()
    for sha in re.findall(r"`([0-9a-f]{7,})`", text):
        assert len(sha) == 40, sha
    assert "SOURCES.md" not in (REPO / "tests" / "data" / "harness" / "copilot-types.ts.txt").read_text()
