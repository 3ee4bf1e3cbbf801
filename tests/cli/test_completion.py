"""Shell completion offers what a user would type next: the harness names after ``gov hook``
and ``gov hook install``, the values an option lists (--format, --on-duplicate, --families)
and the document names of the index the command would read, in bash, zsh and fish alike.

The scripts under completions/ call gov back (``_GOV_COMPLETE=complete_SHELL gov``); these
tests make that call as the scripts do."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import invoke_gov

ZSH_VALUE = re.compile(r'^(?:_arguments \'\*: :\(\()?"((?:[^"\\]|\\.)*)"', re.MULTILINE)
HARNESSES = ["claude-code", "codex", "gemini", "copilot", "cursor"]


def offered(shell: str, words: str, env: dict[str, str | None] | None = None,
            cwd: Path | None = None) -> list[str]:
    """What ``shell``'s script (completions/) would offer after ``words``, the last word
    being completed: bash passes the words and the cursor's word, zsh and fish the line."""
    if shell == "bash":
        shell_env = {"COMP_WORDS": words, "COMP_CWORD": str(len(words.split(" ")) - 1)}
    else:
        shell_env = {"_TYPER_COMPLETE_ARGS": words, "_TYPER_COMPLETE_FISH_ACTION": "get-args"}
    result = invoke_gov(env={"_GOV_COMPLETE": f"complete_{shell}", **shell_env, **(env or {})},
                        cwd=cwd)
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    if shell == "zsh":  # _arguments '*: :(("value":"help" ...))', one value a line
        return [match.group(1) for match in ZSH_VALUE.finditer(out)]
    return [line.split("\t")[0] for line in out.splitlines() if line]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_harness_names_after_hook_and_hook_install(shell: str) -> None:
    assert offered(shell, "gov hook ") == ["install", "uninstall", *HARNESSES]
    assert offered(shell, "gov hook install ") == HARNESSES
    assert offered(shell, "gov hook uninstall c") == ["claude-code", "codex", "copilot", "cursor"]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_option_values(shell: str) -> None:
    assert offered(shell, "gov route --format ") == ["text", "json", "jsonl"]
    assert offered(shell, "gov route --format j") == ["json", "jsonl"]
    assert offered(shell, "gov lint --on-duplicate ") == ["qualify", "error", "first"]
    assert offered(shell, "gov index --families ") == ["duplicates", "declared", "auto", "none"]
    assert offered(shell, "gov index --families d") == ["duplicates", "declared"]


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_document_names_from_the_index_the_command_would_read(shell: str, fake_index: Path,
                                                               tmp_path: Path) -> None:
    names = offered(shell, f"gov show -i {fake_index} dep")
    assert sorted(names) == ["dependency-management", "deployment"]
    assert offered(shell, "gov show dep", env={"GOV_INDEX": str(fake_index)}) == names
    assert offered(shell, "gov show dep", cwd=tmp_path) == []  # no index: nothing, no error
