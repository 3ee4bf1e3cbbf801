"""The one index search: -i, $GOV_INDEX, the harness's project folder, then up the tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from gov.core.index.locate import FORWARDED_ENVS, GOV_DIR, find_index


def index_in(folder: Path) -> Path:
    path = folder / GOV_DIR / "index"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x")
    return path


@pytest.fixture()
def tree(tmp_path: Path) -> dict[str, Path]:
    home = tmp_path / "home"
    repo = home / "repo"
    deep = repo / "src" / "api"
    deep.mkdir(parents=True)
    (repo / ".git").mkdir()
    return {"home": home, "repo": repo, "deep": deep, "tmp": tmp_path}


def test_a_subfolder_finds_the_project_index_above(tree: dict[str, Path]) -> None:
    index = index_in(tree["repo"])
    found = find_index(cwd=str(tree["deep"]), environ={"HOME": str(tree["home"])})
    assert found.exists and found.path == str(index)
    assert found.source == "the working folder, above it"


def test_the_walk_stops_at_the_repository_root(tree: dict[str, Path]) -> None:
    index_in(tree["home"])  # above the repository: not this project's
    found = find_index(cwd=str(tree["deep"]), environ={"HOME": str(tree["home"])})
    assert not found.exists
    assert found.path == str(tree["deep"] / GOV_DIR / "index")


def test_the_walk_stops_at_home(tree: dict[str, Path]) -> None:
    index_in(tree["tmp"])  # above home
    outside = tree["home"] / "notes"
    outside.mkdir()
    assert not find_index(cwd=str(outside), environ={"HOME": str(tree["home"])}).exists
    mine = index_in(tree["home"])  # home itself is looked at
    assert find_index(cwd=str(outside), environ={"HOME": str(tree["home"])}).path == str(mine)


def test_precedence(tree: dict[str, Path]) -> None:
    nearest = index_in(tree["repo"])
    other = tree["tmp"] / "other"
    other_index = index_in(other)
    cursor_root = tree["tmp"] / "cursor"
    cursor_index = index_in(cursor_root)
    env = {"HOME": str(tree["home"])}
    cwd = str(tree["deep"])
    assert find_index(cwd=cwd, environ=env).path == str(nearest)
    payload = {"workspace_roots": [str(cursor_root)]}
    assert find_index(cwd=cwd, environ=env, payload=payload).path == str(cursor_index)
    claude = env | {"CLAUDE_PROJECT_DIR": str(other)}
    assert find_index(cwd=cwd, environ=claude, payload=payload).path == str(other_index)
    assert find_index(cwd=cwd, environ=claude, payload=payload).source == "$CLAUDE_PROJECT_DIR"
    named = claude | {"GOV_INDEX": str(nearest)}
    assert find_index(cwd=cwd, environ=named).path == str(nearest)
    assert find_index(str(other_index), cwd=cwd, environ=named).source == "-i"


def test_relative_paths_are_read_from_the_payloads_folder(tree: dict[str, Path]) -> None:
    index = index_in(tree["repo"])
    payload = {"cwd": str(tree["repo"])}
    found = find_index(".gov/index", cwd="/", environ={}, payload=payload)
    assert found.exists and found.path == str(index)
    assert find_index(cwd="/", environ={"HOME": str(tree["home"])},
                      payload={"cwd": str(tree["deep"])}).path == str(index)


def test_an_unset_project_folder_does_not_count(tree: dict[str, Path]) -> None:
    index = index_in(tree["repo"])
    env = {"HOME": str(tree["home"]), "CLAUDE_PROJECT_DIR": "", "GEMINI_PROJECT_DIR": ""}
    assert find_index(cwd=str(tree["deep"]), environ=env).path == str(index)


def test_the_hook_forwards_every_variable_the_search_reads() -> None:
    from gov.core.serving.hook_grammar import ENV_KEYS  # the hook process's and the server's

    assert set(FORWARDED_ENVS) <= set(ENV_KEYS)
    assert set(ENV_KEYS) - set(FORWARDED_ENVS) == {"GOV_TELEMETRY_PATH"}


def test_gov_is_spelled_in_one_place() -> None:
    from gov.core.corpus.walk import SKIP_DIRS

    assert GOV_DIR in SKIP_DIRS  # the corpus walker never reads an index as a document
    repo = Path(__file__).resolve().parents[2]
    spelled = [p for p in (repo / "core").rglob("*.py")
               if '".gov"' in p.read_text() and p.name not in ("locate.py", "walk.py")]
    spelled += [p for p in (repo / "cli").rglob("*.py") if '".gov"' in p.read_text()]
    assert spelled == []
