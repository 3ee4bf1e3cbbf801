"""The ``gov card`` contract, through a real subprocess: output, formats, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from gov.core.cards.schema import CONTRACT_SCHEMA_PATH, SCHEMA_PATH
from gov.core.cards.validate import check_card
from tests.cards.conftest import EXAMPLES, NOW, REPO, base_card, jsonl
from tests.conftest import gov_command, gov_env, invoke_gov, run_gov

COMMANDS = ["new", "validate", "verify", "schema", "contract", "budget", "export", "import"]


def test_every_command_has_a_worked_example() -> None:
    from typer.testing import CliRunner

    from gov.cli.main import app

    runner = CliRunner()
    for name in [None, *COMMANDS]:
        args = ["card", "--help"] if name is None else ["card", name, "--help"]
        out = runner.invoke(app, args, prog_name="gov")
        assert out.exit_code == 0, (name, out.output)
        assert "Example:" in out.output, name
        assert "gov card" in out.output.split("Example:", 1)[1], name


PROBE = """
import sys
sys.argv = ["gov", *sys.argv[1:]]
from gov.cli.entry import main
try:
    main()
except SystemExit:
    pass
heavy = sorted(m for m in ("numpy", "sklearn", "fastembed", "jsonschema", "typer", "pydantic")
               if m in sys.modules)
sys.stderr.write("LOADED=" + ",".join(heavy) + "\\n")
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["card", "--help"],
        ["card", "verify", str(EXAMPLES / "good"), "--now", NOW, "-q"],
        ["card", "validate", str(EXAMPLES / "good"), "-q"],
        ["card", "new", "NOTE", "--task-id", "t", "--agent", "a:b", "--objective", "Look",
         "--outcome", "Looked at the queue"],
    ],
)  # fmt: skip
def test_cards_never_load_the_numeric_stack(args: list[str]) -> None:
    out = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, timeout=60, check=False)
    loaded = [line for line in out.stderr.decode().splitlines() if line.startswith("LOADED=")]
    assert loaded, out.stderr.decode()
    heavy = set(loaded[-1].removeprefix("LOADED=").split(",")) - {""}
    assert not heavy & {"numpy", "sklearn", "fastembed"}
    if args[0] == "card" and "--help" not in args:
        # Valid cards never need jsonschema either: it only explains rejections.
        assert "jsonschema" not in heavy
    if args[:2] == ["card", "verify"]:
        # The plain verify runs on the lean path: neither typer nor pydantic.
        assert not heavy & {"typer", "pydantic"}, heavy


# --- gov card new ---------------------------------------------------------------------

NEW_ARGS = ["--task-id", "t-9", "--agent", "coder:model", "--objective", "Fix the login loop",
            "--outcome", "Login loop fixed in the session handler"]  # fmt: skip


@pytest.mark.parametrize(
    ("kind", "confidence", "memory"),
    [
        ("RESULT", 0.8, {"store": False, "tags": []}),
        ("error", 0.7, {"store": True, "target": "SOP", "tags": []}),
        ("PLAN", 0.6, {"store": False, "tags": []}),
        ("PATCH", 0.85, {"store": True, "target": "BEST_PRACTICE", "tags": []}),
        ("NOTE", 0.7, {"store": False, "tags": []}),
    ],
)
def test_new_uses_ovis_builder_defaults(kind: str, confidence: float, memory: dict) -> None:
    extra = ["--artifact", "auth/session.py"] if kind == "PATCH" else []
    out = invoke_gov("card", "new", kind, *NEW_ARGS, *extra)
    assert out.returncode == 0, out.stderr
    [card] = jsonl(out.stdout)
    assert check_card(card)[1] == []
    assert card["card_type"] == kind.upper() and card["schema_version"] == "0.1.0"
    assert (card["confidence"], card["memory_suggestion"]) == (confidence, memory)
    assert card["timestamp"].endswith("+00:00")
    assert list(card) == list(base_card())


def test_new_takes_every_field() -> None:
    out = invoke_gov(
        "card", "new", "RESULT", *NEW_ARGS, "--fact", "f1", "--fact", "f2", "--action", "a1",
        "--next", "n1", "--artifact", "x.py", "--confidence", "0.55", "--store", "kv",
        "--tag", "auth", "--tag", "login-loop", "--timestamp", "2025-06-01T09:00:00Z",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    [card] = jsonl(out.stdout)
    assert card["key_facts"] == ["f1", "f2"] and card["actions_taken"] == ["a1"]
    assert card["next_actions"] == ["n1"] and card["artifacts"] == ["x.py"]
    assert card["confidence"] == 0.55 and card["timestamp"] == "2025-06-01T09:00:00Z"
    assert card["memory_suggestion"] == {"store": True, "target": "KV",
                                         "tags": ["auth", "login-loop"]}  # fmt: skip


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["RESULT", *NEW_ARGS, "--fact", "a", "--fact", "b", "--fact", "c", "--fact", "d"],
         "--fact: must have at most 3 items, has 4 (key_facts, maxItems)"),
        (["RESULT", *NEW_ARGS, "--confidence", "1.5"], "--confidence: must be between 0 and 1"),
        (["RESULT", *NEW_ARGS, "--tag", "Not Kebab"], "--tag: must be lower-case kebab-case"),
        (["RESULT", *NEW_ARGS, "--store", "ATTIC"], "--store: must be one of SOP"),
        (["RESULT", *NEW_ARGS, "--timestamp", "yesterday"],
         "--timestamp: must be an RFC 3339 date-time"),
        (["PATCH", *NEW_ARGS], "--artifact: a PATCH card needs at least one artifact"),
        (["NOTE", *NEW_ARGS, "--action", "did a thing"], "--action: a NOTE only observes"),
        (["MEMO", *NEW_ARGS], "TYPE: must be one of RESULT, ERROR, PLAN, PATCH, NOTE"),
        (["RESULT", "--agent", "a:b"], "--task-id: required field is missing"),
        ([], "TYPE is required"),
    ],
)  # fmt: skip
def test_new_rejects_bad_input_with_exit_2_naming_option_and_rule(args: list[str], needle: str) -> None:
    out = invoke_gov("card", "new", *args)
    assert out.returncode == 2
    assert out.stdout == b""
    err = out.stderr.decode()
    assert needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_new_from_jsonl_makes_one_card_per_line_and_names_bad_lines() -> None:
    lines = [
        {"task_id": "a", "outcome": "Index rebuilt in 40 seconds"},
        {"task_id": "b", "outcome": "Index rebuilt", "key_facts": ["1", "2", "3", "4"]},
        "not an object",
        {"task_id": "c", "card_type": "error", "outcome": "Index build error: disk full"},
    ]
    data = "".join(json.dumps(line) + "\n" for line in lines).encode() + b"{broken\n"
    out = invoke_gov("card", "new", "RESULT", "--from", "-", "--agent", "indexer:local",
                  "--objective", "Rebuild the index", input=data)  # fmt: skip
    assert out.returncode == 2  # invalid input, as for the options
    cards = jsonl(out.stdout)
    assert [(c["task_id"], c["card_type"]) for c in cards] == [("a", "RESULT"), ("c", "ERROR")]
    assert all(c["source_agent"] == "indexer:local" for c in cards)
    assert cards[1]["memory_suggestion"] == {"store": True, "target": "SOP", "tags": []}
    err = out.stderr.decode().splitlines()
    assert err[0] == "gov: error: -:2: key_facts: must have at most 3 items, has 4 (maxItems)"
    assert err[1].startswith("gov: error: -:3: $: a line must be a JSON object")
    assert err[2].startswith("gov: error: -:5: invalid JSON")


def test_new_writes_the_output_file_whole(tmp_path: Path) -> None:
    target = tmp_path / "card.json"
    target.write_text("old")
    out = invoke_gov("card", "new", "RESULT", *NEW_ARGS, "-o", str(target), "-f", "json")
    assert out.returncode == 0 and out.stdout == b""
    card = json.loads(target.read_text())
    assert check_card(card)[1] == []
    assert target.read_text().startswith("{\n  ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["card.json"]


def test_new_output_needs_an_existing_folder_and_gets_ordinary_permissions(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "card.json"
    out = invoke_gov("card", "new", "RESULT", *NEW_ARGS, "-o", str(missing))
    assert out.returncode == 2 and out.stdout == b""
    err = out.stderr.decode()
    assert err.count("\n") == 1 and str(missing.parent) in err and "does not exist" in err
    assert not (tmp_path / "no").exists()
    target = tmp_path / "card.json"
    umask = os.umask(0)
    os.umask(umask)
    assert invoke_gov("card", "new", "RESULT", *NEW_ARGS, "-o", str(target)).returncode == 0
    assert target.stat().st_mode & 0o777 == 0o666 & ~umask
    target.chmod(0o600)  # a replaced file keeps the permissions it had
    assert invoke_gov("card", "new", "RESULT", *NEW_ARGS, "-o", str(target)).returncode == 0
    assert target.stat().st_mode & 0o777 == 0o600


# --- gov card validate / verify --------------------------------------------------------


@pytest.mark.parametrize("args", [
    ["-f", "jsonl"], ["--format=text", "--color", "always"], ["-f", "github", "--strict"],
    ["-f", "json", "-c", "extended", "-q"], ["--now", "noon"], ["--base", "HEAD"],
    ["-c", "missing.json"], ["-f", "text", "--repo", "."],
])  # fmt: skip
@pytest.mark.slow
def test_the_lean_verify_path_matches_the_typer_command(args: list[str]) -> None:
    paths = [str(EXAMPLES / "good"), str(EXAMPLES / "bad" / "invalid-mixed.jsonl"), str(EXAMPLES / "nothing-*.json")]
    now = [] if "--now" in args else ["--now", NOW]
    lean = run_gov("card", "verify", *paths, *now, *args, cwd=REPO)
    typer_only = "import sys; from gov.cli.main import run; run(sys.argv[1:])"  # never the lean path
    full = subprocess.run([sys.executable, "-c", typer_only, "card", "verify", *paths, *now, *args],
                          capture_output=True, cwd=REPO, env={**os.environ, "NO_COLOR": "1"},
                          timeout=60, check=False)  # fmt: skip
    assert (lean.returncode, lean.stdout, lean.stderr) == (full.returncode, full.stdout, full.stderr)
    assert "Traceback" not in lean.stderr.decode()


def test_verify_good_examples_pass_even_strictly() -> None:
    out = invoke_gov("card", "verify", str(EXAMPLES / "good"), "--now", NOW, "--strict")
    assert out.returncode == 0, out.stdout
    results = jsonl(out.stdout)
    assert len(results) == 5 and all(r["passed"] and not r["soft_failures"] for r in results)
    assert "5 cards: 5 passed" in out.stderr.decode()


def test_verify_bad_examples_fail() -> None:
    out = invoke_gov("card", "verify", str(EXAMPLES / "bad"), "--now", NOW)
    assert out.returncode == 1
    results = jsonl(out.stdout)
    assert len(results) == 9
    for result in results:
        assert result["passed"] is False
        assert (not result["valid"]) or result["hard_failures"]


def test_verify_result_fields() -> None:
    out = invoke_gov("card", "verify", str(EXAMPLES / "bad" / "invalid-mixed.jsonl"),
                  str(EXAMPLES / "good" / "plan.json"), "--now", NOW, "-f", "jsonl")  # fmt: skip
    bad1, bad2, good = jsonl(out.stdout)
    assert list(good) == [
        "file", "line", "index", "task_id", "card_type", "valid", "errors", "contract_id",
        "passed", "hard_failures", "soft_failures", "checks_passed", "adjusted_confidence",
        "confidence_delta", "summary",
    ]  # fmt: skip
    assert (bad1["line"], bad1["task_id"], bad1["valid"]) == (1, "survey-1", False)
    assert bad1["errors"] == [{"path": "key_facts", "rule": "maxItems",
                               "message": "must have at most 3 items, has 4"}]  # fmt: skip
    assert [(e["path"], e["rule"]) for e in bad2["errors"]] == [
        ("memory_suggestion.tags[0]", "pattern"), ("memory_suggestion.target", "required")
    ]  # fmt: skip
    assert bad2["contract_id"] is None and bad2["passed"] is False
    assert good["contract_id"] == "plan-default" and good["adjusted_confidence"] == 0.65


def test_validate_reports_array_indexes_and_lines(write_json) -> None:  # type: ignore[no-untyped-def]
    path = write_json("cards.json", [base_card(), base_card(confidence="high")])
    out = invoke_gov("card", "validate", str(path), "-f", "json")
    assert out.returncode == 1
    results = json.loads(out.stdout)
    starts = [n for n, line in enumerate(path.read_text().splitlines(), 1) if line == "  {"]
    assert [(r["index"], r["line"], r["valid"]) for r in results] == [
        (0, starts[0], True), (1, starts[1], False)
    ]  # fmt: skip
    assert results[1]["errors"] == [{"path": "confidence", "rule": "type",
                                     "message": "must be a number"}]  # fmt: skip
    assert "verdict" not in results[0] and "passed" not in results[0]


def test_text_format(write_json) -> None:  # type: ignore[no-untyped-def]
    path = write_json("c.jsonl", [base_card(), base_card(key_facts=[], task_id="t-2"),
                                  base_card(outcome="")], lines=True)  # fmt: skip
    out = invoke_gov("card", "verify", str(path), "--now", NOW, "-f", "text")
    lines = out.stdout.decode().splitlines()
    assert lines[0].startswith("PASS") and f"{path}:1" in lines[0] and "result-default" in lines[0]
    assert lines[1].startswith("WARN") and "0.8 -> 0.7" in lines[1]
    assert lines[2] == "    soft: result_has_key_facts"
    assert any(x.startswith("INVALID") and f"{path}:3" in x for x in lines)
    assert "    outcome: must not be empty (minLength)" in lines
    assert "\x1b[" not in out.stdout.decode()
    colored = invoke_gov("card", "verify", str(path), "--now", NOW, "-f", "text", "--color", "always")
    assert "\x1b[32mPASS\x1b[0m" in colored.stdout.decode()


def test_github_format_annotates_failures_and_warnings(write_json) -> None:  # type: ignore[no-untyped-def]
    cards = [base_card(), base_card(key_facts=[], task_id="t,2"),
             base_card(outcome="Done.", task_id="t-3")]  # fmt: skip
    path = write_json("c.jsonl", cards, lines=True)
    out = invoke_gov("card", "verify", str(path), "--now", NOW, "-f", "github")
    lines = out.stdout.decode().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"::warning file={path},line=2,title=card t%2C2 has soft failures::")
    assert lines[1].startswith(f"::error file={path},line=3,title=card t-3 failed verification::")
    assert "hard: outcome_not_empty" in lines[1]
    assert out.returncode == 1


def test_strict_and_contract_options(write_json) -> None:  # type: ignore[no-untyped-def]
    path = write_json("c.json", base_card(key_facts=[]))
    assert invoke_gov("card", "verify", str(path), "--now", NOW).returncode == 0
    strict = invoke_gov("card", "verify", str(path), "--now", NOW, "--strict")
    assert strict.returncode == 1 and jsonl(strict.stdout)[0]["passed"] is False
    future = write_json("f.json", base_card(timestamp="2025-06-02T12:00:00Z"))
    assert invoke_gov("card", "verify", str(future), "--now", NOW, "--strict").returncode == 0
    extended = invoke_gov("card", "verify", str(future), "--now", NOW, "--strict", "-c", "extended")
    [result] = jsonl(extended.stdout)
    assert extended.returncode == 1 and result["soft_failures"] == ["timestamp_current"]
    assert result["contract_id"] == "result-extended"


def test_now_decides_staleness(write_json) -> None:  # type: ignore[no-untyped-def]
    path = write_json("c.json", base_card())
    fresh = jsonl(invoke_gov("card", "verify", str(path), "--now", NOW).stdout)[0]
    stale = jsonl(invoke_gov("card", "verify", str(path), "--now", "2025-06-03T12:00:00+02:00").stdout)[0]
    assert "timestamp_recent" in fresh["checks_passed"] and stale["soft_failures"] == ["timestamp_recent"]


@pytest.mark.slow
def test_reads_stdin() -> None:
    data = (json.dumps(base_card()) + "\n").encode()
    for args in (["-"], []):
        out = run_gov("card", "verify", *args, "--now", NOW, input=data)
        assert out.returncode == 0, out.stderr
        assert jsonl(out.stdout)[0]["file"] == "-"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["card", "verify", "no-such.json"], "no-such.json: no such file"),
        (["card", "verify", "nothing-here-*.json"], "no file matches this pattern"),
        (["card", "verify", str(EXAMPLES / "good"), "--now", "noon"], "--now: 'noon' is not"),
        (["card", "verify", str(EXAMPLES / "good"), "-c", "nope.json"], "nope.json: cannot read"),
        (["card", "verify", str(EXAMPLES / "good"), "-f", "xml"], "--format 'xml': use"),
        (["card", "validate", "no-such.json"], "no-such.json: no such file"),
    ],
)
def test_usage_and_io_errors_exit_2(args: list[str], needle: str) -> None:
    out = invoke_gov(*args)
    assert out.returncode == 2
    assert needle in out.stderr.decode() and "Traceback" not in out.stderr.decode()


@pytest.mark.slow
def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    path = tmp_path / "many.jsonl"
    path.write_text((json.dumps(base_card()) + "\n") * 3000)
    proc = subprocess.Popen(
        gov_command("card", "verify", str(path), "--now", NOW),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=gov_env(),
    )  # fmt: skip
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=60)
    assert "Traceback" not in err and "error" not in err
    assert proc.returncode in (0, 141)


# --- schema, contract, budget ---------------------------------------------------------


def test_schema_prints_the_shipped_schemas() -> None:
    assert invoke_gov("card", "schema").stdout == SCHEMA_PATH.read_bytes()
    assert invoke_gov("card", "schema", "contract").stdout == CONTRACT_SCHEMA_PATH.read_bytes()
    assert json.loads(SCHEMA_PATH.read_bytes())["$schema"].endswith("2020-12/schema")


def test_contract_prints_a_resolved_contract(tmp_path: Path) -> None:
    out = invoke_gov("card", "contract", "extended")
    data = json.loads(out.stdout)
    assert data["id"] == "extended" and data["checks"]["timestamp_recent"] == "OFF"
    own = tmp_path / "own.json"
    own.write_text(json.dumps({"id": "own", "extends": "extended", "soft_penalty": 0.05}))
    resolved = json.loads(invoke_gov("card", "contract", str(own)).stdout)
    assert resolved["soft_penalty"] == 0.05 and resolved["checks"] == data["checks"]


BUDGET = EXAMPLES / "budget"


def _fake_tiktoken(tmp_path: Path, body: str) -> dict[str, str]:
    (tmp_path / "tiktoken.py").write_text(body)
    return {"PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}


@pytest.mark.slow
def test_budget_counts_bytes_and_says_why_no_tokens(tmp_path: Path) -> None:
    env = _fake_tiktoken(tmp_path, "raise ImportError('not here')\n")
    out = run_gov("card", "budget", str(BUDGET / "cards.jsonl"), "--raw", str(BUDGET / "raw"),
                  "-f", "json", env=env)  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "tiktoken is not installed, so gov counts bytes only" in out.stderr.decode()
    report = json.loads(out.stdout)
    assert "tokens" not in report
    sizes = report["bytes"]
    cards = [len(line) for line in (BUDGET / "cards.jsonl").read_bytes().splitlines()]
    raws = sorted((BUDGET / "raw").iterdir())
    assert sizes["cards"]["count"] == 5 and sizes["cards"]["total"] == sum(cards)
    assert sizes["raw"]["total"] == sum(len(p.read_bytes()) for p in raws)
    ctx = sizes["context_budget"]
    assert (ctx["agents"], ctx["steps"]) == (5, 20)
    assert ctx["cards"] == round(sum(cards) / 5 * 100)
    assert 0 < ctx["savings"] < 1 and sizes["per_card_reduction"]["pairs"] == 5


def test_budget_counts_only_valid_cards_and_names_the_rest(tmp_path: Path) -> None:
    good = [json.dumps(base_card(task_id=f"t-{n}"), separators=(",", ":")) for n in range(2)]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join([good[0], '{"a": 1}', good[1], json.dumps(base_card(outcome="")), "[]"]) + "\n")
    out = invoke_gov("card", "budget", str(path), "--bytes-only", "-f", "json")
    assert out.returncode == 1, out.stderr
    report = json.loads(out.stdout)
    assert report["bytes"]["cards"]["count"] == 2
    assert report["bytes"]["cards"]["total"] == sum(len(line) for line in good)
    err = out.stderr.decode()
    for line in (2, 4, 5):
        assert f"{path}:{line}: not a valid card" in err
    assert "3 records are not valid cards" in err
    nothing = tmp_path / "nothing.json"
    nothing.write_text('{"a": 1}')
    none = invoke_gov("card", "budget", str(nothing), "--bytes-only")
    assert none.returncode == 2 and "no valid cards to measure" in none.stderr.decode()


@pytest.mark.slow
def test_budget_offline_encoding_is_reported(tmp_path: Path) -> None:
    env = _fake_tiktoken(tmp_path, "def get_encoding(name):\n    raise OSError('network is unreachable')\n")
    out = run_gov("card", "budget", str(BUDGET / "cards.jsonl"), env=env)
    assert out.returncode == 0
    assert "encoding is not available" in out.stderr.decode()
    assert "bytes only" in out.stderr.decode()
    assert out.stdout.decode().startswith("bytes:\n  cards")


@pytest.mark.slow
def test_budget_counts_tokens_when_an_encoding_loads(tmp_path: Path) -> None:
    env = _fake_tiktoken(tmp_path, (
        "class _Enc:\n"
        "    def encode(self, text, disallowed_special=()):\n"
        "        return text.split()\n"
        "def get_encoding(name):\n"
        "    return _Enc()\n"
    ))  # fmt: skip
    out = run_gov("card", "budget", str(BUDGET / "cards.jsonl"), "--raw", str(BUDGET / "raw"),
                  "--agents", "2", "--steps", "3", "-f", "json", env=env)  # fmt: skip
    report = json.loads(out.stdout)
    assert report["encoding"] == "cl100k_base"
    assert report["tokens"]["context_budget"]["agents"] == 2
    assert report["tokens"]["raw"]["total"] == sum(
        len(p.read_text().split()) for p in (BUDGET / "raw").iterdir()
    )
    text = run_gov("card", "budget", str(BUDGET / "cards.jsonl"), env=env).stdout.decode()
    assert "tokens (cl100k_base):" in text


# --- CI and pre-commit ------------------------------------------------------------------


def test_pre_commit_hook_runs_gov_card_verify() -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    [hook] = [h for h in hooks if h["id"] == "gov-card-verify"]
    assert hook["entry"].startswith("gov card verify")
    import re

    pattern = re.compile(hook["files"])
    assert pattern.search("cards/run-1.jsonl") and pattern.search("out/review.card.json")
    assert not pattern.search("package.json")


def _lint(directory: Path, **env: str) -> subprocess.CompletedProcess[bytes]:
    bindir = Path(sys.executable).parent
    full = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
            "GOV_CARD_NOW": NOW, "NO_COLOR": "1", **env}  # fmt: skip
    full.pop("GITHUB_ACTIONS", None) if "GITHUB_ACTIONS" not in env else None
    script = REPO / "examples" / "ci" / "lint-cards.sh"
    return subprocess.run(["sh", str(script), str(directory)], capture_output=True,
                          env=full, timeout=60, check=False)  # fmt: skip


@pytest.mark.slow
@pytest.mark.skipif(not (Path(sys.executable).parent / "gov").exists(), reason="gov not on PATH")
def test_ci_lint_script(tmp_path: Path) -> None:
    good = _lint(EXAMPLES / "good", GOV_CARD_STRICT="1")
    assert good.returncode == 0 and good.stdout.decode().startswith("PASS")
    bad = _lint(EXAMPLES / "bad", GITHUB_ACTIONS="true")
    assert bad.returncode == 1
    assert all(line.startswith("::error ") for line in bad.stdout.decode().splitlines())
    assert _lint(tmp_path).returncode == 0
    assert _lint(tmp_path / "missing").returncode == 2
