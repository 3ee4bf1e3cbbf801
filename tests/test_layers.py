"""The layers of ``core/`` are its folders, and no module imports from a layer above its own.

The data flow is corpus → encode → index → scoring → routing, with calibration and serving
side by side above routing, telemetry beside everything, cards apart, and the doctor on
top. Every import counts, lazy ones inside functions included: a lower layer that reaches
up, even late, is the tangle the folders are there to prevent.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import REPO

CORE = REPO / "core"
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


def layer_of(module: str) -> str:
    """``gov.core.index.build`` → ``index``; ``gov.core.errors`` → ``errors``."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 else ""


def modules() -> list[Path]:
    return sorted(p for p in CORE.rglob("*.py"))


def imports(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "gov.core":
                found.extend((node.lineno, f"gov.core.{alias.name}") for alias in node.names)
            else:
                found.append((node.lineno, node.module))
    return found


def own_layer(path: Path) -> str:
    relative = path.relative_to(CORE)
    return relative.parts[0] if len(relative.parts) > 1 else relative.stem


@pytest.mark.parametrize("path", modules(), ids=lambda p: str(p.relative_to(REPO)))
def test_no_module_imports_from_a_layer_above_its_own(path: Path) -> None:
    mine = own_layer(path)
    allowed = ALLOWED.get(mine)
    wrong = []
    for line, module in imports(path):
        if module.split(".")[0] in HEAVY_UI:
            wrong.append(f"line {line}: {module} (core never imports the CLI's libraries)")
        if not module.startswith("gov."):
            continue
        if module.startswith("gov.cli"):
            wrong.append(f"line {line}: {module} (core never imports the CLI)")
            continue
        theirs = layer_of(module)
        if theirs in BASE or theirs == mine or allowed is None:
            continue
        if theirs not in allowed:
            wrong.append(f"line {line}: {module} ({mine} may not import {theirs})")
    assert not wrong, f"{path.relative_to(REPO)}:\n" + "\n".join(wrong)


def test_every_layer_is_a_folder_and_every_folder_a_known_layer() -> None:
    folders = {p.name for p in CORE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == set(ALLOWED) - {"doctor"}
    top = {p.stem for p in CORE.glob("*.py")} - {"__init__"}
    assert top == (BASE - {"", "__version__"}) | {"doctor"}


def test_nothing_in_core_starts_the_cli() -> None:
    """The library never spawns ``gov.cli``: the warm server has an entry of its own."""
    offenders = [str(p.relative_to(REPO)) for p in modules()
                 if "gov.cli" in p.read_text(encoding="utf-8")]
    assert offenders == []


def test_no_module_in_core_is_much_over_400_lines() -> None:
    long = {str(p.relative_to(REPO)): n for p in modules()
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 420}
    assert long == {}
