"""Each lean path and its typer twin, run on the same inputs in fresh processes, print the
same stdout and exit with the same code (their grammar is one module, gov.cli.grammar).

The lean door is the console script (``gov route``, ``gov card verify``, ``gov hook``, each
taken by cli/entry.py's dispatcher); the typer door is ``gov.cli.main.run``, which never
takes a lean path.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, REPO, gov_env, run_gov

CARDS = EXAMPLES / "cards"
NOW = "2025-06-01T12:00:00Z"
TYPER_ONLY = "import sys; from gov.cli.main import run; run(sys.argv[1:])"


def both(*args: str, input: bytes = b"", cwd: Path = REPO
         ) -> tuple[subprocess.CompletedProcess[bytes], subprocess.CompletedProcess[bytes]]:
    """(lean, typer): the console script's run of ``gov ARGS`` and the typer command's."""
    lean = run_gov(*args, input=input, cwd=cwd)
    typer_run = subprocess.run([sys.executable, "-c", TYPER_ONLY, *args], input=input,
                               capture_output=True, env=gov_env(), cwd=cwd, timeout=120,
                               check=False)
    return lean, typer_run


def same(lean: subprocess.CompletedProcess[bytes],
         typer_run: subprocess.CompletedProcess[bytes]) -> None:
    assert (lean.returncode, lean.stdout) == (typer_run.returncode, typer_run.stdout), (
        lean.stderr, typer_run.stderr)
    assert "Traceback" not in lean.stderr.decode() + typer_run.stderr.decode()


# --- gov route -i IDX PROMPT (one-shot) -------------------------------------------------------


@pytest.mark.slow
def test_route_without_an_index_is_the_same_usage_error(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-index"
    lean, typer_run = both("route", "-i", str(missing), "--format", "jsonl", "roll back the release")
    same(lean, typer_run)
    assert lean.returncode == 2 and lean.stdout == b""
    assert lean.stderr.decode().splitlines()[-1] == typer_run.stderr.decode().splitlines()[-1]
    assert str(missing) in lean.stderr.decode()


@pytest.mark.slow
def test_route_with_no_index_found_is_the_same_usage_error(tmp_path: Path) -> None:
    lean, typer_run = both("route", "--format", "json", "roll back the release", cwd=tmp_path)
    same(lean, typer_run)
    assert lean.returncode == 2


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["yaml", "JSON", ""])
def test_route_with_a_bad_format_is_the_same_usage_error(fmt: str, tmp_path: Path) -> None:
    lean, typer_run = both("route", "-i", str(tmp_path / "index"), "--format", fmt, "a prompt")
    same(lean, typer_run)
    assert lean.returncode == 2 and lean.stdout == b""


@pytest.mark.slow
@pytest.mark.model
@pytest.mark.parametrize("args", [
    ["--format", "jsonl", "--lexical-only"],
    ["--format=json", "--lexical-only", "-e"],
    ["--format", "jsonl", "--lexical-only", "-q", "-e"],
    ["--format", "json"],
])  # fmt: skip
@pytest.mark.parametrize("prompt", ["how many vacation days do I get", "what is the capital of France"])
def test_route_one_shot_lean_and_typer_agree(example_index: Path, args: list[str],
                                             prompt: str) -> None:
    lean, typer_run = both("route", "-i", str(example_index), *args, prompt)
    assert lean.returncode in (0, 1) and len(_rows(lean.stdout)) == 1, lean.stderr
    # latency differs run to run; every other field must agree
    same(_no_timing(lean), _no_timing(typer_run))


def _rows(stdout: bytes) -> list[dict[str, object]]:
    """The rows of ``--format json`` (one array) or ``jsonl`` (one a line)."""
    text = stdout.decode()
    if text.lstrip().startswith("["):
        rows: list[dict[str, object]] = json.loads(text)
        return rows
    return [json.loads(line) for line in text.splitlines()]


def _no_timing(run: subprocess.CompletedProcess[bytes]) -> subprocess.CompletedProcess[bytes]:
    parsed = _rows(run.stdout)
    for row in parsed:
        for key in [k for k in row if "ms" in k.split("_") or k.endswith("_ms")]:
            row[key] = 0
    return subprocess.CompletedProcess(run.args, run.returncode,
                                       json.dumps(parsed, sort_keys=True).encode(), run.stderr)


# --- gov card verify ---------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("paths", [
    [CARDS / "good"],
    [CARDS / "bad" / "invalid-mixed.jsonl"],
    [CARDS / "bad" / "result-vague.json", CARDS / "good"],
])  # fmt: skip
@pytest.mark.parametrize("fmt", ["jsonl", "json", "github", "text"])
def test_card_verify_lean_and_typer_agree(paths: list[Path], fmt: str) -> None:
    lean, typer_run = both("card", "verify", *map(str, paths), "--now", NOW, "-f", fmt)
    same(lean, typer_run)
    assert lean.returncode == (0 if paths == [CARDS / "good"] else 1)
    assert lean.stdout or (fmt == "github" and lean.returncode == 0)  # annotations only for failures


@pytest.mark.slow
@pytest.mark.parametrize("args", [["-f", "yaml"], ["--color", "sometimes"], ["--contract", "nope.json"]])
def test_card_verify_errors_agree(args: list[str]) -> None:
    lean, typer_run = both("card", "verify", str(CARDS / "good"), "--now", NOW, *args)
    same(lean, typer_run)
    assert lean.returncode == 2


# --- gov hook ----------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("args", [["claude-code", "--serve", "never"], ["claude-code", "--serve=never", "-i", "missing"],
                                  ["--help"], ["nonsense", "--serve", "never"]])  # fmt: skip
def test_hook_lean_and_typer_agree(args: list[str], tmp_path: Path) -> None:
    payload = json.dumps({"prompt": "roll back the release", "cwd": str(tmp_path)}).encode()
    lean, typer_run = both("hook", *args, input=payload, cwd=tmp_path)
    same(lean, typer_run)
    assert lean.returncode == 0  # a turn never blocks the harness


def test_the_grammar_imports_nothing() -> None:
    tree = ast.parse((REPO / "cli" / "grammar.py").read_text())
    imported = [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)]
    assert [getattr(node, "module", None) for node in imported] == ["__future__"]


def test_the_lean_parsers_read_the_grammar() -> None:
    from gov.cli import grammar
    from gov.cli.commands import card_lean, route_lean
    from gov.cli.conventions import Color

    assert {name for name, dest in route_lean.VALUE_OPTIONS.items() if dest == "index"} == set(grammar.INDEX)
    assert set(card_lean.VALUE_OPTIONS) >= {*grammar.FORMAT, *grammar.CONTRACT, *grammar.COLOR}
    assert tuple(color.value for color in Color) == grammar.COLORS
    assert card_lean.parse(["x", "-f", "yaml"]) is None  # not a choice: typer says so
    assert route_lean.parse(["-i", "x", "--format", "text", "p"]) is None


@pytest.mark.parametrize("env", [
    {"GOV_RUNTIME_DIR": "{tmp}/mine"},
    {"XDG_RUNTIME_DIR": "{tmp}/xdg"},
    {"TMPDIR": "{tmp}/t"},
])  # fmt: skip
def test_the_hook_client_and_the_server_find_one_runtime_folder(
        env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gov.cli.commands import hook
    from gov.core.serving import protocol

    for name in ("GOV_RUNTIME_DIR", "XDG_RUNTIME_DIR", "TMPDIR", "TEMP", "TMP"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value.format(tmp=tmp_path))
    assert hook._runtime_dir() is None  # not there yet: the full client creates it
    made = protocol.runtime_dir()
    assert made.is_dir() and str(made).startswith(str(tmp_path))
    assert hook._runtime_dir() == str(made)
