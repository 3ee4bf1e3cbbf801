"""The layers of ``core/`` are its folders, and no module imports from a layer above its own;
``cli/`` sits on top of all of them.

The data flow is corpus → encode → index → scoring → routing, with calibration and serving
side by side above routing, telemetry beside everything, cards apart, and the doctor on
top. Every import counts, however it is written: absolute or relative (``from ..index import
stored``, ``from . import x``), lazy ones inside functions and ``TYPE_CHECKING`` blocks, and
``importlib.import_module`` (or ``__import__``) with a literal name (an f-string counts by its
literal head). A lower layer that reaches up, even late, is the tangle the folders are there
to prevent. ``cli/`` may import ``gov.core`` and itself; ``core/`` never imports ``gov.cli``,
typer, rich or click.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import REPO

CORE = REPO / "core"
CLI = REPO / "cli"
ROOTS = {"gov.core": CORE, "gov.cli": CLI}
BASE = {"errors", "atomic", "bounded", "jsonl", "sanitize", "", "__version__"}  # gov.core itself and its version
# What each layer may import, besides itself and the base modules.
ALLOWED = {
    "telemetry": set(),
    "cards": set(),
    "corpus": set(),
    "encode": set(),
    "index": {"corpus", "encode"},
    "scoring": {"corpus", "encode", "index"},
    "routing": {"telemetry", "corpus", "encode", "index", "scoring"},
    "calibration": {"corpus", "encode", "index", "scoring", "routing"},
    "serving": {"telemetry", "corpus", "encode", "index", "scoring", "routing", "cards"},
    "lint": {"corpus", "encode", "index", "scoring", "routing"},
    "doctor": {"telemetry", "corpus", "encode", "index", "scoring", "routing", "serving"},
}
HEAVY_UI = ("typer", "rich", "click")
IMPORT_FUNCTIONS = {"import_module", "__import__"}


# --- reading imports -------------------------------------------------------------------------


def module_name(path: Path) -> str:
    """``core/index/build.py`` → ``gov.core.index.build``; ``cli/commands/__init__.py`` →
    ``gov.cli.commands``."""
    for name, root in ROOTS.items():
        if path.is_relative_to(root):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            return ".".join((name, *parts))
    raise AssertionError(f"{path} is in neither core/ nor cli/")


def file_of(module: str) -> Path | None:
    """The file of a ``gov.core``/``gov.cli`` module, or None (not gov's, or not a module)."""
    for name, root in ROOTS.items():
        if module == name or module.startswith(name + "."):
            folder = root.joinpath(*module[len(name):].split(".")[1:])
            for candidate in (folder / "__init__.py", folder.with_suffix(".py")):
                if candidate.is_file():
                    return candidate
    return None


def absolute(path: Path, level: int, module: str | None) -> str:
    """The absolute name of ``from {'.' * level}{module} import ...`` written in ``path``."""
    if level == 0:
        return module or ""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    assert level <= len(package), f"{path}: a relative import above gov"
    base = package[:len(package) - (level - 1)]
    return ".".join([*base, *([module] if module else [])])


def _literal_head(node: ast.expr) -> tuple[str, bool] | None:
    """A string literal (whole), or an f-string's literal head (partial), else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value, True
    if isinstance(node, ast.JoinedStr) and node.values:
        first = node.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            return first.value, False
    return None


def _dynamic(path: Path, node: ast.Call) -> str | None:
    """The module an ``importlib.import_module``/``__import__`` call names literally."""
    func = node.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    if name not in IMPORT_FUNCTIONS or not node.args:
        return None
    head = _literal_head(node.args[0])
    if head is None:
        return None
    text, whole = head
    if not whole:  # f"gov.cli.commands.{name}": the package its literal head names
        text = text.rsplit(".", 1)[0] if "." in text else ""
    if text.startswith("."):
        package = next((k.value for k in node.keywords if k.arg == "package"), None)
        package = package.value if isinstance(package, ast.Constant) else None
        if not isinstance(package, str):
            return None
        stripped = text.lstrip(".")
        level = len(text) - len(stripped)
        parts = package.split(".")
        text = ".".join([*parts[:len(parts) - (level - 1)], *([stripped] if stripped else [])])
    return text or None


def imports(path: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports, absolute, with its line (``from X import y`` counts as
    ``X.y`` where that is a module of gov's, else as ``X``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = absolute(path, node.level, node.module)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.append((node.lineno, sub if file_of(sub) is not None else base))
        elif isinstance(node, ast.Call) and (module := _dynamic(path, node)) is not None:
            found.append((node.lineno, module))
    return found


def layer_of(module: str) -> str:
    """``gov.core.index.build`` → ``index``; ``gov.core.errors`` → ``errors``."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 else ""


def core_modules() -> list[Path]:
    return sorted(CORE.rglob("*.py"))


def cli_modules() -> list[Path]:
    return sorted(CLI.rglob("*.py"))


def own_layer(path: Path) -> str:
    relative = path.relative_to(CORE)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


# --- the rules -------------------------------------------------------------------------------


@pytest.mark.parametrize("path", core_modules(), ids=lambda p: str(p.relative_to(REPO)))
def test_no_module_imports_from_a_layer_above_its_own(path: Path) -> None:
    mine = own_layer(path)
    allowed = ALLOWED.get(mine)
    wrong = []
    for line, module in imports(path):
        if module.split(".")[0] in HEAVY_UI:
            wrong.append(f"line {line}: {module} (core never imports the CLI's libraries)")
        if not module.startswith("gov."):
            continue
        if module == "gov.cli" or module.startswith("gov.cli."):
            wrong.append(f"line {line}: {module} (core never imports the CLI)")
            continue
        theirs = layer_of(module)
        if theirs in BASE or theirs == mine or allowed is None:
            continue
        if theirs not in allowed:
            wrong.append(f"line {line}: {module} ({mine} may not import {theirs})")
    assert not wrong, f"{path.relative_to(REPO)}:\n" + "\n".join(wrong)


@pytest.mark.parametrize("path", [*core_modules(), *cli_modules()], ids=lambda p: str(p.relative_to(REPO)))
def test_every_import_of_gov_names_a_module_or_a_package_of_gov(path: Path) -> None:
    """What the rules read is what Python reads: every ``gov`` import, relative ones resolved,
    is a file in ``core/`` or ``cli/`` (a misresolved relative import would hide a layer)."""
    missing = [f"line {line}: {module}" for line, module in imports(path)
               if module.startswith("gov.") and file_of(module) is None]
    assert not missing, f"{path.relative_to(REPO)}: no such module:\n" + "\n".join(missing)


@pytest.mark.parametrize("path", cli_modules(), ids=lambda p: str(p.relative_to(REPO)))
def test_the_cli_imports_only_gov_core_and_itself_of_gov(path: Path) -> None:
    wrong = [f"line {line}: {module}" for line, module in imports(path)
             if (module == "gov" or module.startswith("gov."))
             and not module.startswith(("gov.core", "gov.cli"))]
    assert not wrong, f"{path.relative_to(REPO)}:\n" + "\n".join(wrong)


@pytest.mark.parametrize("path", [*core_modules(), *cli_modules()], ids=lambda p: str(p.relative_to(REPO)))
def test_siblings_are_imported_by_their_path(path: Path) -> None:
    """Inside ``core/`` and inside ``cli/`` gov's own modules are imported relatively
    (``from ..index import stored``): the import names the file to open, where ``gov.core``
    is a mapping in ``pyproject.toml`` only. ``cli/`` imports ``core/`` as ``gov.core``, its
    public face; names in strings (``importlib``, ``python -m``) stay absolute."""
    root = "gov.core" if path.is_relative_to(CORE) else "gov.cli"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    written = [(node.lineno, node.module or "") for node in ast.walk(tree)
               if isinstance(node, ast.ImportFrom) and node.level == 0]
    written += [(node.lineno, alias.name) for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names]
    absolute_ = [f"line {line}: {module}" for line, module in sorted(written)
                 if module == root or module.startswith(root + ".")]
    assert not absolute_, f"{path.relative_to(REPO)} imports its siblings by package name:\n" + \
        "\n".join(absolute_)


def test_every_layer_is_a_folder_and_every_folder_a_known_layer() -> None:
    folders = {p.name for p in CORE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == set(ALLOWED) - {"doctor"}
    top = {p.stem for p in CORE.glob("*.py")} - {"__init__"}
    assert top == (BASE - {"", "__version__"}) | {"doctor"}


# The installer writes the command a harness runs (``PYTHON -m gov.cli.entry hook HARNESS``
# where no ``gov`` script is found) and recognises it in the harness's settings: it names the
# CLI's entry, it never runs it.
NAMES_THE_ENTRY = {"core/serving/install.py"}


def _code_strings(path: Path) -> list[tuple[int, str]]:
    """String literals of ``path``'s code, docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings]


def test_nothing_in_core_starts_the_cli() -> None:
    """The library never spawns ``gov.cli``: the warm server has an entry of its own. Only the
    installer names the CLI's entry (for the harness to run), and it starts no process."""
    offenders = [f"{p.relative_to(REPO)}:{line}" for p in core_modules()
                 for line, text in _code_strings(p)
                 if "gov.cli" in text and str(p.relative_to(REPO)) not in NAMES_THE_ENTRY]
    assert offenders == []
    for name in NAMES_THE_ENTRY:
        called = [module for _line, module in imports(REPO / name)
                  if module.split(".")[0] in ("subprocess", "multiprocessing")]
        assert called == [], f"{name} names the CLI's entry and may not start processes"


def test_no_module_in_core_is_much_over_400_lines() -> None:
    long = {str(p.relative_to(REPO)): n for p in core_modules()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 420}
    assert long == {}


# --- the rules see what they claim to see ------------------------------------------------------


def test_imports_are_read_however_they_are_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                                   ) -> None:
    """Relative, lazy, ``TYPE_CHECKING``, ``importlib`` (literal and f-string head) and
    ``__import__`` imports are all resolved to the absolute module they load."""
    monkeypatch.setitem(ROOTS, "gov.core", tmp_path / "core")
    folder = tmp_path / "core" / "index"
    folder.mkdir(parents=True)
    for name in ("__init__.py", "stored.py"):
        (folder / name).write_text("")
    (tmp_path / "core" / "__init__.py").write_text("")
    (tmp_path / "core" / "routing").mkdir()
    (tmp_path / "core" / "routing" / "__init__.py").write_text("from . import select\n")
    (tmp_path / "core" / "routing" / "select.py").write_text("")
    module = folder / "build.py"
    module.write_text(
        "from typing import TYPE_CHECKING\n"
        "from . import stored\n"
        "from .. import errors\n"
        "from ..routing import select\n"
        "if TYPE_CHECKING:\n"
        "    from ...cli import main\n"
        "def late():\n"
        "    import importlib\n"
        "    from .stored import open_stored\n"
        "    importlib.import_module('gov.cli.entry')\n"
        "    importlib.import_module(f'gov.core.routing.{late}')\n"
        "    importlib.import_module('.routing', package='gov.core')\n"
        "    __import__('rich')\n")
    found = dict((module_, line) for line, module_ in imports(module))
    assert found == {"typing": 1, "gov.core.index.stored": 9, "gov.core": 3,
                     "gov.core.routing.select": 4, "gov.cli.main": 6, "importlib": 8,
                     "gov.cli.entry": 10, "gov.core.routing": 12, "rich": 13}
    assert imports(tmp_path / "core" / "routing" / "__init__.py") == [(1, "gov.core.routing.select")]
