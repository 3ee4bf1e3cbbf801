"""``gov eval``: the table and JSON (in this process), and the route-then-eval loop (fresh processes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, invoke_gov, run_gov


def routed(expected: list[str], routes: list[str], **extra: object) -> dict[str, object]:
    return {"prompt": "p", "expected": expected,
            "routes": [{"name": name, "score": 1.0} for name in routes], **extra}


def test_cli_table_and_json(tmp_path: Path) -> None:
    data = "".join(json.dumps(r) + "\n" for r in (
        routed(["a"], ["a"], kind="k1"), routed([], ["a"], kind="k2"),
        {"error": {"line": 3, "message": "bad line"}},
    ))
    text = invoke_gov("eval", input=data)
    assert text.returncode == 0, text.stderr
    out = text.stdout.decode()
    assert "k1" in out and "k2" in out and "top-1" in out
    assert b"1 row(s) were route errors" in text.stderr
    as_json = invoke_gov("eval", "--format", "json", input=data)
    report = json.loads(as_json.stdout)
    assert report["overall"]["false_alarm_rate"] == 1.0
    assert report["overall"]["top1"] == 1.0
    assert report["error_rows"] == 1
    bad = invoke_gov("eval", input='{"prompt": "p", "routes": []}\n')
    assert bad.returncode == 2  # an input error
    assert b"line 1: field 'expected' is missing" in bad.stderr
    file = tmp_path / "routed.jsonl"
    file.write_text(data)
    assert invoke_gov("eval", str(file), "--format", "json").returncode == 0


def test_route_then_eval_is_the_whole_loop(example_index: Path) -> None:
    labelled = (EXAMPLES / "labelled.jsonl").read_bytes()
    route = run_gov("route", "-i", str(example_index), "--format", "jsonl", input=labelled)
    assert route.returncode == 0, route.stderr
    result = run_gov("eval", "-i", str(example_index), "--format", "json", input=route.stdout)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    count = len(labelled.splitlines())
    assert report["overall"]["rows"] == count
    assert set(report["kinds"]) == {"positive", "negative", "two_docs"}
    assert report["unknown_names"] == []
    assert 0.0 <= report["overall"]["false_alarm_rate"] <= 1.0


@pytest.mark.slow
def test_eval_by_source_matches_paths_at_a_folder_boundary(tmp_path: Path) -> None:
    """Labels written against a library's paths score an index built from its parent
    folder or from the library itself; a path that matches nothing stays a positive."""
    from tests.corpus.conftest import write

    lib = tmp_path / "lib"
    skill = "---\nname: {0}\ndescription: Working with {0} documents and forms.\n---\nBody\n"
    write(lib / "cct" / "skills" / "docs" / "pdf" / "SKILL.md", skill.format("pdf"))
    write(lib / "cct" / "skills" / "other" / "pdf" / "SKILL.md", skill.format("pdf"))
    write(lib / "cct" / "agents" / "review" / "code-reviewer.md",
          "---\nname: code-reviewer\ndescription: Reviewing pull requests.\n---\nBody\n")
    for where, root in ((lib, "cct"), (lib / "cct", ".")):
        target = tmp_path / f"{where.name}.idx"
        built = invoke_gov("index", root, "-o", str(target), "--lexical-only", cwd=where)
        assert built.returncode == 0, built.stderr
        rows = [routed(["cct/skills/docs/pdf/SKILL.md"], ["docs/pdf"]),
                routed(["cct/skills/docs/pdf/SKILL.md"], ["other/pdf"]),
                routed(["cct/agents/review/code-reviewer.md"], []),
                routed(["cct/agents/gone.md"], ["code-reviewer"]),
                routed([], ["code-reviewer"]), routed([], [])]
        data = "".join(json.dumps(row) + "\n" for row in rows)
        result = invoke_gov("eval", "--by", "source", "-i", str(target), "--format", "json",
                            input=data)
        assert result.returncode == 0, result.stderr
        overall = json.loads(result.stdout)["overall"]
        assert (overall["positives"], overall["negatives"]) == (4, 2)
        assert overall["top1"] == 0.25 and overall["false_alarm_rate"] == 0.5
        assert b"expected paths the index has no document for" in result.stderr
        assert b"cct/agents/gone.md" in result.stderr
    # By name (the default) the same paths are names nothing routes.
    by_name = invoke_gov("eval", "--format", "json", input=data)
    assert json.loads(by_name.stdout)["overall"]["top1"] == 0.0
    needs_index = invoke_gov("eval", "--by", "source", input=data)
    assert needs_index.returncode == 2 and b"--by source needs -i" in needs_index.stderr
