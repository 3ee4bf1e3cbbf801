"""The generated docs are current, every command documents itself, and every command follows
the shared conventions; completions and man pages work through the real tools.

Decisions the conventions tests encode:

- ``gov hook`` is exempt from ``--color``/``-q``/``--debug`` and from exit 2: it parses its
  own arguments on the lean path and must never exit non-zero, whatever it is given.
- ``--format`` is required where the output has a shape a program reads; the commands in
  ``NO_FORMAT`` print one fixed thing (a protocol, a script, a schema file) instead.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from docs import generate as docgen
from gov.cli.commands.completion import script
from tests.conftest import REPO, gov_on_path, invoke_gov, run_gov

TREE = docgen.command_tree()
DOCS = docgen.walk(TREE)
LEAVES = [doc for doc in DOCS if not doc.is_group]
NO_FORMAT = {
    "gov hook": "speaks the harness's hook protocol",
    "gov mcp": "speaks MCP on stdio",
    "gov completion": "prints a shell script",
    "gov card schema": "prints a JSON Schema file",
    "gov card contract": "prints a contract file",
}
SHARED = ("--color", "--quiet", "-q", "--debug")


def ids(docs: list[docgen.CommandDoc]) -> list[str]:
    return [doc.name for doc in docs]


LEAN = "gov hook"  # a lean path: its cases run in a fresh process (slow), the others in this one


def by_process(docs: list[docgen.CommandDoc]) -> list[Any]:
    return [pytest.param(doc, id=doc.name, marks=[pytest.mark.slow] if doc.name == LEAN else [])
            for doc in docs]


def gov(doc: docgen.CommandDoc) -> Callable[..., subprocess.CompletedProcess[bytes]]:
    """How ``doc``'s command runs in these tests: ``run_gov`` for the lean path, else ``invoke_gov``."""
    return run_gov if doc.name == LEAN else invoke_gov


@pytest.fixture(scope="module")
def gov_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """An environment whose PATH starts with a ``gov`` that runs this checkout's entry point."""
    return gov_on_path(tmp_path_factory.mktemp("bin"), dict(os.environ))


# --- the generated files ---------------------------------------------------------------------


@pytest.mark.slow
def test_generated_files_are_current() -> None:
    """Fails when help text changed without regenerating: run python docs/generate.py --write."""
    result = subprocess.run([sys.executable, str(REPO / "docs" / "generate.py"), "--check"], cwd=REPO,
                            capture_output=True, text=True, timeout=120, check=False,
                            env={**os.environ, "COLUMNS": "37"})
    assert result.returncode == 0, (
        f"{result.stdout}{result.stderr}\nregenerate with: python docs/generate.py --write")


def copy_roots(tmp_path: Path) -> None:
    """The files the generator splices into, and the one that marks the repository root."""
    for name in (docgen.README, docgen.REFERENCE, "pyproject.toml"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, tmp_path / name)


def test_generation_is_deterministic(tmp_path: Path) -> None:
    copy_roots(tmp_path)
    first = docgen.generated(tmp_path)
    second = docgen.generated(tmp_path)
    assert {p.relative_to(tmp_path): t for p, t in first.items()} == {
        p.relative_to(tmp_path): t for p, t in second.items()}
    pages = {p.name for p in first if p.suffix == ".1"}
    assert pages == {f"{doc.page}.1" for doc in DOCS}
    assert {"gov.1", "gov-route.1", "gov-card-verify.1", "gov-telemetry-report.1"} <= pages


@pytest.mark.slow
def test_check_names_stale_and_obsolete_files(tmp_path: Path) -> None:
    copy_roots(tmp_path)
    assert docgen.main(["--write", "--root", str(tmp_path)]) == 0
    assert docgen.main(["--check", "--root", str(tmp_path)]) == 0
    (tmp_path / "man" / "man1" / "gov-route.1").write_text("old\n")
    (tmp_path / "man" / "man1" / "gov-gone.1").write_text("a command that no longer exists\n")
    (tmp_path / "man" / "gov-show.1").write_text("where pages were before man/man1/\n")
    result = subprocess.run([sys.executable, str(REPO / "docs" / "generate.py"), "--check", "--root",
                             str(tmp_path)], capture_output=True, text=True, timeout=120,
                            check=False)
    assert result.returncode == 1
    assert result.stdout.splitlines() == ["stale: man/gov-show.1", "stale: man/man1/gov-gone.1",
                                          "stale: man/man1/gov-route.1"]
    assert "python docs/generate.py --write" in result.stderr
    assert docgen.main(["--write", "--root", str(tmp_path)]) == 0
    assert not (tmp_path / "man" / "man1" / "gov-gone.1").exists()
    assert not (tmp_path / "man" / "gov-show.1").exists()


@pytest.mark.parametrize(("name", "start", "end"), [
    (docgen.REFERENCE, docgen.START, docgen.END),
    (docgen.README, docgen.TABLE_START, docgen.TABLE_END),
])
def test_generated_text_changes_only_between_the_markers(name: str, start: str, end: str) -> None:
    text = (REPO / name).read_text(encoding="utf-8")
    before, _, rest = text.partition(start)
    _, _, after = rest.partition(end)
    spliced = docgen.splice(text, start + "\nX\n" + end + "\n", start, end, name)
    assert spliced.startswith(before) and spliced.endswith(after)
    assert before.startswith("# "), f"{name}: the generated part follows the page's own title"
    with pytest.raises(SystemExit, match="markers"):
        docgen.splice("no markers here\n", "x", start, end, name)


def test_readme_table_links_every_command_to_the_reference() -> None:
    readme = (REPO / docgen.README).read_text(encoding="utf-8")
    reference = (REPO / docgen.REFERENCE).read_text(encoding="utf-8")
    headings = set(re.findall(r"^## (gov.*)$", reference, flags=re.M))
    assert headings == {doc.name for doc in DOCS}
    for doc in DOCS[1:]:
        assert f"[`{doc.name}`](docs/cli.md#{doc.page})" in readme, doc.name


@pytest.mark.slow  # typer's bash script asks bash for its version
def test_committed_completions_match_the_cli() -> None:
    for shell, path in docgen.COMPLETION_FILES.items():
        committed = (REPO / path).read_text(encoding="utf-8")
        printed = invoke_gov("completion", shell)
        assert printed.returncode == 0
        assert printed.stdout.decode() == committed == script(shell)
        sourced = invoke_gov(env={"_GOV_COMPLETE": f"source_{shell}"})
        assert sourced.stdout.decode().strip() == committed.strip()


# --- help text ---------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("doc", DOCS, ids=ids(DOCS))
def test_help_prints_examples_verbatim_and_names_placeholders(doc: docgen.CommandDoc) -> None:
    """Pasted examples must work: no line of one is rewrapped, even on a narrow terminal, and
    values are named by their metavar (TEXT, PATH, N), never by a Python type."""
    result = run_gov(*doc.words[1:], "--help", env={"COLUMNS": "60"})
    assert result.returncode == 0, result.stderr
    text = result.stdout.decode()
    printed = [line.strip() for line in text.splitlines()]
    for block in (b for b in doc.examples if b.code):
        for line in block.lines:
            assert line.strip() in printed, f"{doc.name}: example line rewrapped: {line.strip()!r}"
    python_types = re.findall(r"<(?:list\[|str>|int|float|Path|bool|dict)[^>]*>", text)
    assert not python_types, f"{doc.name}: Python types as placeholders: {python_types}"


@pytest.mark.parametrize("doc", DOCS, ids=ids(DOCS))
def test_every_command_has_help_and_an_example(doc: docgen.CommandDoc) -> None:
    assert doc.summary, f"{doc.name} has no help text"
    assert doc.examples and all(block.lines for block in doc.examples), (
        f"{doc.name}: its help needs an 'Example:' block with indented commands")
    assert any(doc.name in line for block in doc.examples for line in block.lines), (
        f"{doc.name}: no example runs {doc.name}")
    for param in doc.params:
        assert param.help.strip(), f"{doc.name} {param.term}: no help text"


def test_parse_help() -> None:
    usage, description, examples = docgen.parse_help(
        "usage: gov x [-i FILE]\n\nDo a thing.\n\n\b\n  keep\n  lines\n\nExample:\n\n"
        "    gov x -i f\n\n    gov x\n\fhidden from help")
    assert usage == "gov x [-i FILE]"
    assert [(b.code, b.lines) for b in description] == [(False, ["Do a thing."]),
                                                       (True, ["keep", "lines"])]
    assert [b.lines for b in examples] == [["gov x -i f"], ["gov x"]]
    assert docgen.summary_of("Check cards (a: b): one result. More") == "Check cards (a: b)"
    assert docgen.summary_of("Run it. Then stop.") == "Run it"


def test_roff_escape() -> None:
    assert docgen.roff_escape(".hidden") == "\\&.hidden"
    assert docgen.roff_escape("'quoted") == "\\&'quoted"
    assert docgen.roff_escape("a\\b --x") == "a\\eb \\-\\-x"


# --- conventions -------------------------------------------------------------------------------


def option_names(doc: docgen.CommandDoc) -> set[str]:
    return {name for param in doc.params for name in param.names}


@pytest.mark.parametrize("doc", LEAVES, ids=ids(LEAVES))
def test_shared_options(doc: docgen.CommandDoc) -> None:
    names = option_names(doc)
    assert {"-h", "--help"} <= names
    if doc.name == "gov hook":
        return
    missing = [name for name in SHARED if name not in names]
    assert not missing, f"{doc.name} lacks {missing} (see cli/conventions.py)"
    if doc.name not in NO_FORMAT:
        assert "--format" in names, f"{doc.name} prints a shaped result but has no --format"


@pytest.mark.parametrize("doc", by_process(DOCS))
def test_help_exits_0_with_the_shared_options(doc: docgen.CommandDoc) -> None:
    shared = [] if doc.is_group or doc.name == "gov hook" else [
        "--color", "never", "-q", "--debug"]
    result = gov(doc)(*doc.words[1:], *shared, "--help")
    assert result.returncode == 0, result.stderr.decode()
    assert "Example:" in result.stdout.decode()
    assert not result.stderr


@pytest.mark.parametrize("doc", by_process(LEAVES))
def test_unknown_option_is_a_usage_error(doc: docgen.CommandDoc) -> None:
    result = gov(doc)(*doc.words[1:], "--no-such-option", input=b"")
    if doc.name == "gov hook":
        assert result.returncode == 0
        assert result.stderr.decode().count("\n") == 1
        assert result.stderr.startswith(b"gov hook: ")
        return
    assert result.returncode == 2, result.stderr.decode()
    assert "--no-such-option" in result.stderr.decode()
    assert not result.stdout


FORMATTED = [doc for doc in LEAVES if "--format" in option_names(doc)]


@pytest.mark.parametrize("doc", by_process(FORMATTED))
def test_unknown_format_is_a_usage_error(doc: docgen.CommandDoc, tmp_path: Path) -> None:
    required = ["x" for param in doc.params if param.argument and not param.term.startswith("[")]
    result = gov(doc)(*doc.words[1:], *required, "--format", "yaml", input=b"", cwd=tmp_path)
    assert result.returncode == 2, result.stderr.decode()
    assert "yaml" in result.stderr.decode()
    assert not result.stdout


def test_version_names_the_model() -> None:
    from gov.core import __version__
    from gov.core.encode.bundle import default_id

    for flag in ("--version", "-V"):
        result = invoke_gov(flag)
        assert result.returncode == 0
        assert result.stdout.decode() == f"gov {__version__} (embedding model: {default_id()})\n"


@pytest.mark.model  # gov doctor checks that the embedding model loads
def test_color_follows_the_flag_and_no_color(tmp_path: Path) -> None:
    ansi = re.compile(rb"\x1b\[")
    env = {"GOV_RUNTIME_DIR": str(tmp_path / "run")}
    always = invoke_gov("doctor", "-i", str(tmp_path / "none"), "--color", "always", env=env,
                        cwd=tmp_path)
    assert ansi.search(always.stdout)
    plain = invoke_gov("doctor", "-i", str(tmp_path / "none"), env=env, cwd=tmp_path)
    assert not ansi.search(plain.stdout)  # NO_COLOR=1, and not a terminal either


# --- man pages -----------------------------------------------------------------------------------


def test_man_pages_have_the_sections() -> None:
    for doc in DOCS:
        text = (REPO / docgen.MAN_DIR / f"{doc.page}.1").read_text(encoding="utf-8")
        sections = re.findall(r"^\.SH (.+)$", text, flags=re.M)
        for section in ("NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXAMPLES", "EXIT STATUS",
                        "SEE ALSO"):
            assert section in sections, f"{doc.page}.1 lacks {section}"
        assert ".TH" in text and "generated" in text.splitlines()[0]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("man") is None or shutil.which("nroff") is None,
                    reason="man (man-db) and nroff are not installed")
@pytest.mark.parametrize("doc", DOCS, ids=ids(DOCS))
def test_man_page_renders(doc: docgen.CommandDoc) -> None:
    page = REPO / docgen.MAN_DIR / f"{doc.page}.1"
    result = subprocess.run(["man", "--warnings", "-l", str(page)], capture_output=True,
                            timeout=60, check=False,
                            env={**os.environ, "MANWIDTH": "80", "MANPAGER": "cat",
                                 "PAGER": "cat", "LC_ALL": "C.UTF-8"})
    assert result.returncode == 0, result.stderr.decode()
    assert result.stderr == b"", result.stderr.decode()
    text = result.stdout.decode()
    assert "NAME" in text and "EXAMPLES" in text
    assert doc.synopsis.split(" [")[0] in text


# --- completion ----------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@pytest.mark.parametrize(("words", "offered"), [
    (["gov", "ro"], "route"),
    (["gov", "card", "ver"], "verify"),
    (["gov", "route", "--form"], "--format"),
    (["gov", "completion", "f"], "fish"),
])
def test_bash_completion(gov_env: dict[str, str], words: list[str], offered: str) -> None:
    """Source the committed script and complete as bash would, through a real gov process."""
    line = (f'source "{REPO / docgen.COMPLETION_FILES["bash"]}"; '
            f"COMP_WORDS=({' '.join(words)}); COMP_CWORD={len(words) - 1}; "
            '_gov_completion gov; printf "%s\\n" "${COMPREPLY[@]}"')
    result = subprocess.run(["bash", "--norc", "--noprofile", "-c", line], env=gov_env,
                            capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert offered in result.stdout.splitlines(), result.stdout + result.stderr


@pytest.mark.slow
def test_completion_protocol_for_zsh_and_fish(gov_env: dict[str, str]) -> None:
    zsh = subprocess.run(["gov"], capture_output=True, text=True, timeout=120, check=False,
                         env={**gov_env, "_GOV_COMPLETE": "complete_zsh",
                              "_TYPER_COMPLETE_ARGS": "gov ro"})
    assert zsh.returncode == 0 and '"route"' in zsh.stdout, zsh.stderr
    fish = subprocess.run(["gov"], capture_output=True, text=True, timeout=120, check=False,
                          env={**gov_env, "_GOV_COMPLETE": "complete_fish",
                               "_TYPER_COMPLETE_FISH_ACTION": "get-args",
                               "_TYPER_COMPLETE_ARGS": "gov card v"})
    assert fish.returncode == 0, fish.stderr
    assert {"validate", "verify"} <= {row.split("\t")[0] for row in fish.stdout.splitlines()}


@pytest.mark.slow
@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_completion_script_parses(shell: str) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    path = REPO / docgen.COMPLETION_FILES[shell]
    result = subprocess.run([shell, "-n", str(path)], capture_output=True, text=True,
                            timeout=60, check=False)
    assert result.returncode == 0, result.stderr


def test_completion_rejects_other_shells() -> None:
    result = invoke_gov("completion", "tcsh")
    assert result.returncode == 2
    assert "tcsh" in result.stderr.decode()
