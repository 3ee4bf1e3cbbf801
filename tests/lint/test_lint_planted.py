"""A corpus with one of each problem planted in it yields exactly those findings, each at its
file and line; switching a rule off (per document, per corpus, per run) removes exactly it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from gov.core.lint import LintReport, lint_paths
from gov.core.lint.config import load_config
from tests.lint.conftest import PLANTED

# (rule, file, line, severity): the problems planted in tests/lint/fixtures/planted.
PLANTED_FINDINGS = {
    # time-off and leave-requests say the same thing; each points at its surface that
    # collides most (the first example).
    ("overlap", "leave-requests.md", 4, "warning"),
    ("overlap", "time-off.md", 4, "warning"),
    # ... and make one family, noted at its first document's trigger.
    ("family", "leave-requests.md", 3, "note"),
    # team-events has an example that is business travel's ("book a flight to Lisbon").
    ("shadowed", "team-events.md", 6, "warning"),
    # general-assistant's surfaces are everyday words (meals, days out, the weather, the
    # week): it takes generic prompts the background gate lets through. (A document that
    # copies the bank itself, greetings and jokes, is held back by the gate's hub penalty
    # and routed for almost none: no finding.)
    ("hub", "general-assistant.md", 3, "warning"),
    # meeting-rooms' trigger is one word.
    ("trigger-short", "meeting-rooms.md", 3, "warning"),
    # security-incidents depends on a document that does not exist.
    ("depends-dangling", "security-incidents.md", 6, "error"),
}


def keys(report: LintReport, base: Path = PLANTED) -> set[tuple[str, str, int | None, str]]:
    out = set()
    for finding in report.findings:
        assert finding.file is not None
        path = Path(finding.file).resolve()
        assert path.parent == base.resolve(), finding
        out.add((finding.rule, path.name, finding.line, finding.severity))
    return out


@pytest.fixture(scope="module")
def planted_report(planted_index: Path) -> LintReport:
    return lint_paths([PLANTED], index=planted_index)


def test_the_planted_corpus_yields_exactly_the_planted_findings(planted_report: LintReport) -> None:
    assert keys(planted_report) == PLANTED_FINDINGS
    assert planted_report.documents == 11
    assert planted_report.skipped == []
    assert planted_report.fails("error") and planted_report.fails("warning")


@pytest.mark.parametrize("rule,file,line,severity", sorted(PLANTED_FINDINGS))
def test_each_planted_problem_is_found_at_its_file_and_line(
        planted_report: LintReport, rule: str, file: str, line: int, severity: str) -> None:
    matches = [f for f in planted_report.findings
               if f.rule == rule and Path(f.file or "").name == file]
    assert len(matches) == 1, matches
    finding = matches[0]
    assert finding.line == line
    assert finding.severity == severity
    assert finding.fix and finding.message
    # The line really is the one the finding is about.
    text = (PLANTED / file).read_text().splitlines()[line - 1]
    expected_start = {"overlap": "**Agent-example:**", "shadowed": "**Agent-example:**",
                      "family": "**Agent-trigger:**",
                      "hub": "**Agent-trigger:**", "trigger-short": "**Agent-trigger:**",
                      "depends-dangling": "**Depends-on:**"}[rule]
    assert text.startswith(expected_start)


def test_findings_name_the_other_document(planted_report: LintReport) -> None:
    by_rule = {(f.rule, f.document): f for f in planted_report.findings}
    assert by_rule[("overlap", "time-off")].data["others"][0]["document"] == "leave-requests"
    assert set(by_rule[("overlap", "leave-requests")].data["cluster"]) == {"time-off",
                                                                           "leave-requests"}
    family = by_rule[("family", "leave-requests")]
    assert family.data["members"] == ["leave-requests", "time-off"]
    assert {"meaning", "trigger-meaning"} <= set(family.data["signals"])
    assert planted_report.families == {"families": 1, "documents": 2, "listed": 1}
    shadow = by_rule[("shadowed", "team-events")]
    assert shadow.data["taker"] == "business-travel"
    assert "book a flight to Lisbon" in shadow.message
    hub = by_rule[("hub", "general-assistant")]
    # Under the shipped default the background gate lets through only its own small share
    # of the bank (3 % at 11 documents); the hub takes half of what gets through, far more
    # than any other document.
    assert hub.data["prompts"] == 553 and hub.data["routed"] >= 5
    assert hub.data["routed"] >= 0.4 * hub.data["through"]
    assert hub.message.startswith(f"routed for {hub.data['routed']} of the "
                                  f"{hub.data['through']} generic prompts that clear the "
                                  "background gate (of 553")
    assert hub.data["first"] > 553 / 4
    dangling = by_rule[("depends-dangling", "security-incidents")]
    assert dangling.data["missing"] == "incident-response-playbook"


def test_findings_come_grouped_by_document_worst_first(planted_report: LintReport) -> None:
    files = [f.file for f in planted_report.findings]
    assert planted_report.findings[0].severity == "error"
    # Each document's findings are together.
    seen: list[str | None] = []
    for file in files:
        if not seen or seen[-1] != file:
            assert file not in seen
            seen.append(file)


def test_without_an_index_lint_builds_one_and_finds_the_same(planted_report: LintReport,
                                                             lint_cache: Path) -> None:
    again = lint_paths([PLANTED])
    assert keys(again) == keys(planted_report)


def test_lint_ignore_lines_switch_a_rule_off_for_one_document(planted_copy: Path,
                                                              planted_index: Path) -> None:
    hub = planted_copy / "general-assistant.md"
    hub.write_text(hub.read_text().replace(
        "**Agent-example:** what", "**Lint-ignore:** hub\n**Agent-example:** what", 1))
    events = planted_copy / "team-events.md"
    events.write_text(events.read_text().replace(
        "**Agent-example:** plan", "**Lint-ignore:** shadowed, no-such-rule\n**Agent-example:** plan", 1))
    report = lint_paths([planted_copy], index=planted_index)
    found = keys(report, planted_copy)
    assert ("hub", "general-assistant.md", 3, "warning") not in found
    assert not any(rule == "shadowed" for rule, *_ in found)
    # The unknown rule id is itself a finding, at the Lint-ignore line.
    assert found == {item for item in PLANTED_FINDINGS if item[0] not in ("hub", "shadowed")} | {
        ("lint-ignore-unknown", "team-events.md", 4, "note")}


def test_a_document_alone_is_no_hub_and_lint_says_why(tmp_path: Path, lint_cache: Path) -> None:
    # The planted hub, alone: whatever clears the gate is its own, so it takes all of it,
    # which says nothing about its surfaces; beside ten others it is a hub (above).
    (tmp_path / "general-assistant.md").write_text(
        (PLANTED / "general-assistant.md").read_text())
    report = lint_paths([tmp_path])
    assert report.documents == 1
    assert not any(f.rule == "hub" for f in report.findings)
    assert [s.rule for s in report.skipped] == ["hub"]
    assert "one document" in report.skipped[0].reason


def test_a_corpus_config_switches_rules_off_and_sets_severities(planted_copy: Path,
                                                                planted_index: Path) -> None:
    (planted_copy / "gov-lint.json").write_text(json.dumps({
        "rules": {"overlap": "off", "trigger-short": "error", "depends-dangling": "note"}}))
    report = lint_paths([planted_copy], index=planted_index)
    found = keys(report, planted_copy)
    assert not any(rule == "overlap" for rule, *_ in found)
    assert ("trigger-short", "meeting-rooms.md", 3, "error") in found
    assert ("depends-dangling", "security-incidents.md", 6, "note") in found
    assert report.fails("error")


def test_disabling_a_rule_for_one_run(planted_index: Path) -> None:
    config = load_config(None).with_options(disabled=["hub", "shadowed"])
    report = lint_paths([PLANTED], index=planted_index, config=config)
    assert {rule for rule, *_ in keys(report)} == {"overlap", "family", "trigger-short",
                                                   "depends-dangling"}


def test_past_the_exact_limit_overlap_comes_from_the_graph_and_skips_are_said(
        tmp_path: Path, lint_cache: Path) -> None:
    # Not importorskip: importing usearch before onnxruntime crashes (see core/index/ann.py).
    if importlib.util.find_spec("usearch") is None:
        pytest.skip("usearch is not installed (pip install 'gov[ann]')")
    from gov.core.corpus.reader import load_corpus
    from gov.core.lint import lint_index
    from gov.core.routing.indexes import build_index

    index = tmp_path / "index"
    build_index(load_corpus([PLANTED], warn=lambda _m: None), ann=True).write(index)
    (tmp_path / "gov-lint.json").write_text(json.dumps({"thresholds": {"exact_surface_limit": 5}}))
    config = load_config(tmp_path / "gov-lint.json")
    report = lint_index(index, config=config)
    found = {(rule, file, line) for rule, file, line, _ in keys(report)}
    # The graph finds the same near-duplicates; shadowed surfaces are not routed at this size.
    assert {item for item in found if item[0] in ("overlap", "family")} == {
        ("overlap", "leave-requests.md", 4), ("overlap", "time-off.md", 4),
        ("family", "leave-requests.md", 3)}
    assert not any(rule == "shadowed" for rule, *_ in found)
    skipped = {item.rule: item.reason for item in report.skipped}
    assert set(skipped) == {"shadowed", "overlap"}
    assert "approximate-search graph" in skipped["overlap"]
    assert "over exact_surface_limit (5)" in skipped["shadowed"]
    # --exact compares every pair whatever the size.
    exact = lint_index(index, config=config, exact=True)
    assert ("shadowed", "team-events.md", 6) in {(r, f, n) for r, f, n, _ in keys(exact)}
    assert exact.skipped == []
