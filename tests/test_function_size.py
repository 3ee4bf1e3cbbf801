"""No function in core/ or cli/ is over 80 lines: a longer one is split into named steps, so
a reader sees what it does from the names before reading how."""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
MAX_LINES = 80


def long_functions(root: Path, limit: int = MAX_LINES) -> dict[str, int]:
    """``path:line name`` -> length, for every function (nested ones too) in ``root`` over
    ``limit`` lines, decorators and docstring included."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                assert node.end_lineno is not None
                length = node.end_lineno - node.lineno + 1
                if length > limit:
                    found[f"{path.relative_to(root.parent)}:{node.lineno} {node.name}"] = length
    return found


def test_no_function_in_core_or_cli_is_over_80_lines() -> None:
    assert {**long_functions(REPO / "core"), **long_functions(REPO / "cli")} == {}


def test_the_scan_finds_a_long_function(tmp_path: Path) -> None:
    # The rule sees what it claims to: a nested function and an async one are counted.
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_LINES))
    (tmp_path / "long.py").write_text(
        f"def outer():\n    def inner():\n{body.replace('    ', '        ')}\n    return 1\n\n"
        f"async def short():\n    return 2\n", encoding="utf-8")
    found = long_functions(tmp_path)
    assert sorted(name.split()[-1] for name in found) == ["inner", "outer"]
    assert long_functions(tmp_path, limit=MAX_LINES + 3) == {}
