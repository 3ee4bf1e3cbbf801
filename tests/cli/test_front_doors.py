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
                                  ["--help"], ["nonsense", "--serve", "never"],
                                  ["codex", "--serve=never", "--operating-point", "missing.json", "--no-session-memory"],
                                  ["gemini", "--serve=never", "--serve", "sometimes"]])  # fmt: skip
def test_hook_lean_and_typer_agree(args: list[str], tmp_path: Path) -> None:
    payload = json.dumps({"prompt": "roll back the release", "cwd": str(tmp_path)}).encode()
    lean, typer_run = both("hook", *args, input=payload, cwd=tmp_path)
    same(lean, typer_run)
    assert lean.stderr == typer_run.stderr  # the one line a turn's problem prints
    assert lean.returncode == 0  # a turn never blocks the harness


def _imported_modules(path: Path) -> list[str | None]:
    tree = ast.parse(path.read_text())
    imported = [node for node in ast.walk(tree) if isinstance(node, ast.Import | ast.ImportFrom)]
    return [getattr(node, "module", None) for node in imported]


def test_the_grammar_imports_nothing_but_the_hooks_grammar() -> None:
    assert _imported_modules(REPO / "cli" / "grammar.py") == [
        "__future__", "gov.core.serving.hook_grammar", "gov.core.serving.hook_grammar"]
    assert _imported_modules(REPO / "core" / "serving" / "hook_grammar.py") == []


# --- the hook's grammar: one declaration, read by the help, both parsers and the typer door ----


def test_the_options_the_hook_shares_are_declared_once() -> None:
    import typer

    from gov.cli import grammar
    from gov.cli.main import app
    from gov.core.serving import hook_grammar

    assert grammar.INDEX is hook_grammar.INDEX and grammar.OPERATING_POINT is hook_grammar.OPERATING_POINT
    # the typer door's gov route takes -i/--index and --operating-point by those names
    route = typer.main.get_command(app).commands["route"]  # type: ignore[attr-defined]
    declared = {param.name: set(param.opts) for param in route.params}
    assert declared["index"] == set(hook_grammar.INDEX)
    assert declared["operating_point"] == set(hook_grammar.OPERATING_POINT)


def test_the_hook_help_is_written_from_its_grammar() -> None:
    from gov.cli.commands.hook import help_text
    from gov.core.serving.harness import HARNESSES
    from gov.core.serving.hook_grammar import OPTIONS

    text = help_text()
    usage = text.splitlines()[0]
    assert usage.startswith("usage: gov hook {" + "|".join(HARNESSES) + "}")
    for option in OPTIONS:
        assert any(f"[{name} " in usage or f"[{name}]" in usage for name in option.names), option.names
        listed = [line for line in text.splitlines() if line.startswith("  " + option.usage() + " ")]
        assert len(listed) == 1 and listed[0].endswith(option.help[0]), option.names
        for choice in option.choices:
            assert choice in listed[0]


@pytest.mark.parametrize("args", [["--serve", "sometimes"], ["--index"], ["--operating-point"],
                                  ["--no-session-memory=no"], ["--bogus"], []])
def test_the_in_process_turn_and_the_server_parse_the_hook_alike(args: list[str]) -> None:
    """hook_turn.parse_args (what the warm server and the in-process turn run) is the
    grammar's parser: the same options, the same one-line refusals."""
    from gov.core.serving import harness, hook_grammar, hook_turn

    with pytest.raises(ValueError) as direct:
        hook_grammar.parse(["claude-code", *args] if args else [], harness.HARNESSES)
    with pytest.raises(hook_turn.HookProblem) as turned:
        hook_turn.parse_args(["claude-code", *args] if args else [])
    assert str(direct.value) == str(turned.value) and "\n" not in str(direct.value)


def test_every_option_of_the_hook_parses_as_its_grammar_says() -> None:
    from gov.core.serving import hook_turn
    from gov.core.serving.hook_grammar import OPTIONS, SERVE_NEVER, serve_never

    defaults = hook_turn.parse_args(["codex"])
    assert defaults == {"harness": "codex", **{option.dest: option.default for option in OPTIONS}}
    for option in OPTIONS:
        for name in option.names:
            value = (option.choices or ("some-file",))[-1]
            argv = ["codex", name, value] if option.metavar else ["codex", name]
            parsed = hook_turn.parse_args(argv)
            assert parsed is not None
            assert parsed[option.dest] == (value if option.metavar else option.flag_value)
            if option.metavar:
                assert hook_turn.parse_args(["codex", f"{name}={value}"]) == parsed
    assert hook_turn.parse_args(["codex", "-h"]) is None
    # the hook process decides --serve never before the server parses the rest
    assert serve_never(["codex", "--serve", SERVE_NEVER]) and serve_never(["codex", f"--serve={SERVE_NEVER}"])
    assert not serve_never(["codex", "--serve", "auto"]) and not serve_never(["codex", "-i", "never"])


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
