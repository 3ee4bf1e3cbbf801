"""``gov lint`` as a user runs it (a real subprocess): formats, exit codes, the examples,
and SARIF output that validates against the SARIF 2.1.0 schema."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest

from gov.core.routing.point import default_operating_point
from tests.conftest import EXAMPLES, REPO, run_gov
from tests.lint.conftest import PLANTED
from tests.lint.test_lint_planted import PLANTED_FINDINGS

SARIF_SCHEMA = REPO / "tests" / "data" / "sarif-schema-2.1.0.json"


@pytest.fixture(scope="module")
def env(lint_cache: Path) -> dict[str, str]:
    return {"GOV_CACHE_DIR": str(lint_cache)}


@pytest.fixture(scope="module")
def lint(planted_index: Path, env: dict[str, str]):  # type: ignore[no-untyped-def]
    def run(*args: str, index: bool = True):  # type: ignore[no-untyped-def]
        extra = ["-i", str(planted_index)] if index else []
        return run_gov("lint", str(PLANTED), *extra, *args, env=env, cwd=REPO)
    return run


def test_json_lists_every_finding_and_exits_1_on_an_error(lint) -> None:  # type: ignore[no-untyped-def]
    done = lint("-f", "json")
    assert done.returncode == 1, done.stderr
    findings = json.loads(done.stdout)
    assert {(f["rule"], Path(f["file"]).name, f["line"], f["severity"]) for f in findings} \
        == PLANTED_FINDINGS
    assert all(f["fix"] and f["message"] and f["document"] for f in findings)
    assert findings[0]["severity"] == "error"


def test_fail_on_and_disable_decide_the_exit_code(lint) -> None:  # type: ignore[no-untyped-def]
    assert lint("-f", "json", "--fail-on", "never").returncode == 0
    assert lint("-f", "json", "--disable", "depends-dangling").returncode == 0
    done = lint("-f", "jsonl", "--disable", "depends-dangling", "--fail-on", "warning")
    assert done.returncode == 1
    lines = done.stdout.decode().splitlines()
    assert len(lines) == len(PLANTED_FINDINGS) - 1
    assert all(json.loads(line)["rule"] != "depends-dangling" for line in lines)


def test_github_annotations_point_at_the_lines(lint) -> None:  # type: ignore[no-untyped-def]
    done = lint("-f", "github")
    lines = done.stdout.decode().splitlines()
    assert len(lines) == len(PLANTED_FINDINGS)
    shown = PLANTED.relative_to(REPO)
    assert any(line.startswith(f"::error file={shown}/security-incidents.md,line=6,"
                               "title=gov lint%3A depends-dangling::") for line in lines)
    assert any(line.startswith(f"::warning file={shown}/team-events.md,line=6,"
                               "title=gov lint%3A shadowed::") for line in lines)


def test_text_groups_findings_by_document_worst_first(lint) -> None:  # type: ignore[no-untyped-def]
    done = lint()
    text = done.stdout.decode()
    lines = text.splitlines()
    shown = PLANTED.relative_to(REPO)
    assert lines[0].startswith(f"{shown}/security-incidents.md")
    assert "error" in lines[1] and "depends-dangling" in lines[1] and "fix:" in lines[2]
    headers = [line for line in lines if line.startswith(str(shown))]
    assert len(headers) == len({file for _, file, _, _ in PLANTED_FINDINGS})  # one per document
    assert lines[-1].startswith("gov lint: 1 error, 5 warnings, 1 note in 11 documents")


def test_sarif_output_validates_against_the_sarif_2_1_0_schema(lint) -> None:  # type: ignore[no-untyped-def]
    done = lint("-f", "sarif")
    assert done.returncode == 1
    log = json.loads(done.stdout)
    schema = json.loads(SARIF_SCHEMA.read_text())
    validator = jsonschema.Draft4Validator(schema,
                                           format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(log)]
    assert errors == []
    # The schema does reject a malformed log: a result whose region has no start line.
    broken = json.loads(done.stdout)
    del broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startLine"]
    assert list(validator.iter_errors(broken))
    assert log["version"] == "2.1.0" and log["$schema"]
    (run,) = log["runs"]
    rules = run["tool"]["driver"]["rules"]
    assert run["tool"]["driver"]["name"] == "gov"
    # What GitHub code scanning requires of each rule and result.
    for rule in rules:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["text"]
    found = set()
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        location = result["locations"][0]["physicalLocation"]
        assert not location["artifactLocation"]["uri"].startswith("/")
        found.add((result["ruleId"], Path(location["artifactLocation"]["uri"]).name,
                   location["region"]["startLine"], result["level"]))
        assert result["message"]["text"]
    assert found == PLANTED_FINDINGS


# What the shipped examples really have under the shipped default point: an example line
# that, with itself left out, the router sends to another document (checked below by
# routing it against the examples without it). A warning. (With each document's body
# words in its score, the other lines and the trigger flagged before stay with their own
# documents.)
EXAMPLE_FINDINGS = {
    ("shadowed", "incident-response.md", 6),
}


def test_the_examples_pass_and_report_only_what_they_have(env: dict[str, str], example_index: Path,
                                                          tmp_path: Path) -> None:
    """``gov lint examples/policies`` exits 0 (no error) and reports exactly the shadowed lines
    the examples have; each shadowed example line, routed by the real router against the
    examples with that line taken out, really goes to another document."""
    done = run_gov("lint", "examples/policies", "-f", "json", env=env, cwd=REPO, timeout=300)
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
    findings = json.loads(done.stdout)
    assert {(f["rule"], Path(f["file"]).name, f["line"]) for f in findings} == EXAMPLE_FINDINGS
    assert {f["severity"] for f in findings} == {"warning"}
    # the same findings as text, through the session's index of these files (fresh for them:
    # lint reads it instead of building its own again)
    text = run_gov("lint", "examples/policies", "-i", str(example_index), env=env, cwd=REPO,
                   timeout=300)
    assert text.returncode == 0
    assert text.stdout.decode().splitlines()[-1].startswith(
        "gov lint: 0 errors, 1 warning, 0 notes in 22 documents")

    copy = tmp_path / "policies"
    shutil.copytree(EXAMPLES / "policies", copy)
    examples: dict[str, str] = {}
    for finding in findings:
        path = copy / Path(finding["file"]).name
        lines = path.read_text().split("\n")
        line = lines[finding["line"] - 1]
        if line.startswith("**Agent-example:** "):
            examples[line.split(":** ", 1)[1]] = finding["document"]
            path.write_text("\n".join(lines[: finding["line"] - 1] + lines[finding["line"]:]))
    assert len(examples) == 1
    index = tmp_path / "index"
    built = run_gov("index", str(copy), "-o", str(index), env=env, cwd=REPO, timeout=600)
    assert built.returncode == 0, built.stderr
    # The rule ranks without the index's head (fitted on these very lines), so the router
    # checks it the same way: the shipped point with the head's weight at 0.
    point = tmp_path / "no-head.json"
    shipped = default_operating_point().to_json()
    shipped["params"]["learned_weight"] = 0.0
    point.write_text(json.dumps(shipped))
    routed = run_gov("route", "-i", str(index), "-f", "jsonl", "--explain",
                     "--operating-point", str(point),
                     input="".join(json.dumps({"prompt": p}) + "\n" for p in examples),
                     env=env, cwd=REPO, timeout=300)
    assert routed.returncode == 0, routed.stderr
    for row in map(json.loads, routed.stdout.decode().splitlines()):
        # Another document ranks first (whether or not the gate lets it route).
        names = [route["name"] for route in row["routes"]]
        assert examples[row["prompt"]] not in names, row
        assert row["explain"]["nearest"][0]["name"] != examples[row["prompt"]], row


def test_linting_the_index_alone_finds_the_same(planted_index: Path, env: dict[str, str]) -> None:
    done = run_gov("lint", "-i", str(planted_index), "-f", "json", env=env, cwd=REPO)
    assert done.returncode == 1, done.stderr
    findings = json.loads(done.stdout)
    assert {(f["rule"], Path(f["file"]).name, f["line"]) for f in findings} \
        == {item[:3] for item in PLANTED_FINDINGS}
    assert all(Path(REPO / f["file"]).resolve().parent == PLANTED for f in findings)


@pytest.mark.parametrize("args,words", [
    (["--fail-on", "loud"], "--fail-on must be error, warning, note or never"),
    (["--disable", "hubs"], "--disable: unknown rule 'hubs'"),
])
def test_usage_errors_exit_2_with_one_line(lint, args: list[str], words: str) -> None:  # type: ignore[no-untyped-def]
    done = lint(*args)
    assert done.returncode == 2
    err = done.stderr.decode().strip().splitlines()
    assert len(err) == 1 and words in err[0]
    assert b"Traceback" not in done.stderr


def test_a_bad_config_names_its_file_and_line(tmp_path: Path, env: dict[str, str]) -> None:
    config = tmp_path / "gov-lint.json"
    config.write_text('{\n  "rules": {\n    "hub": "loud"\n  }\n}\n')
    done = run_gov("lint", str(PLANTED), "--config", str(config), env=env, cwd=REPO)
    assert done.returncode == 2
    assert f"{config}:3: rules.hub" in done.stderr.decode()


def test_no_index_and_no_paths_is_a_usage_error(tmp_path: Path, env: dict[str, str]) -> None:
    done = run_gov("lint", env=env, cwd=tmp_path)
    assert done.returncode == 2
    assert "no index" in done.stderr.decode().lower()
