"""The rules that read one document at a time, on a corpus with one of each problem
(tests/lint/fixtures/malformed), and on documents made in the test."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from gov.core.lint import lint_paths
from gov.core.lint.config import load_config
from gov.core.lint.documents import LintDocument, lint_document
from gov.core.lint.findings import Finding
from gov.core.lint.surface_rules import (
    boilerplate,
    budget_finding,
    relation_findings,
    trigger_findings,
)
from tests.lint.conftest import HERE

MALFORMED = HERE / "fixtures" / "malformed"
STOP = frozenset({"the", "is", "about", "it", "a", "of", "and", "what", "we", "do"})


def collect() -> tuple[list[Finding], object]:
    found: list[Finding] = []

    def emit(rule: str, doc: LintDocument | None, line: int | None, message: str, fix: str,
             data: dict[str, object] | None = None) -> Finding:
        finding = Finding(rule, "warning", doc.name if doc else None, doc.file if doc else None,
                          line, message, fix, dict(data or {}))
        found.append(finding)
        return finding

    return found, emit


def doc(name: str, trigger: str, examples: tuple[str, ...] = (), **extra: object) -> LintDocument:
    text = f"# {extra.pop('title', name.title())}\n\n**Agent-trigger:** {trigger}\n" + "".join(
        f"**Agent-example:** {example}\n" for example in examples)
    return lint_document(name, f"{name}.md", "markdown", trigger, examples,
                         extra.get("family"), extra.get("depends_on", ()), text)  # type: ignore[arg-type]


def test_each_document_rule_finds_its_problem_at_its_line(lint_cache: Path) -> None:
    config = load_config(None).with_options(max_tokens=500,
                                            disabled=["overlap", "shadowed", "hub"])
    report = lint_paths([MALFORMED], config=config)
    found = {(f.rule, Path(f.file or "").name, f.line, f.severity) for f in report.findings}
    assert found == {
        ("trigger-missing", "no-trigger.md", 1, "error"),
        ("unreadable", "broken.mdc", 1, "error"),
        ("family-single", "capacity.md", 4, "warning"),
        ("trigger-is-title", "vendor-contracts.md", 3, "warning"),
        ("trigger-stopwords", "glossary.md", 3, "warning"),
        ("example-repeats-trigger", "parking.md", 4, "warning"),
        ("trigger-long", "procurement.md", 3, "warning"),
        ("budget", "handbook.md", 3, "error"),
    }
    by_rule = {f.rule: f for f in report.findings}
    assert "did you mean 'operations'" in by_rule["family-single"].message
    assert "3,612 bytes" in by_rule["budget"].message  # no tokenizer here: bytes, 4 a token
    assert "never closed" in by_rule["unreadable"].message
    # The skill's one-word trigger is let off by its front matter's lint-ignore.
    assert not any(f.document == "writer" for f in report.findings)


def test_the_budget_rule_runs_only_with_a_budget(lint_cache: Path) -> None:
    config = load_config(None).with_options(disabled=["overlap", "shadowed", "hub"])
    report = lint_paths([MALFORMED], config=config)
    assert "budget" not in {f.rule for f in report.findings}


def test_boilerplate_shared_by_most_triggers_makes_a_trigger_vague() -> None:
    topics = ["balance", "transfer", "card lost", "pin change", "refund", "exchange rate",
              "top up", "statement", "direct debit", "overdraft", "loan rates"]
    docs = [doc(t.replace(" ", "_"), f"The user's request is about: {t} (domain: banking).")
            for t in topics]
    config = load_config(None)
    shared = boilerplate(docs, config)
    assert {"user", "request", "domain", "banking"} <= shared
    found, emit = collect()
    for item in docs:
        list(trigger_findings(item, emit, config, STOP, shared))  # type: ignore[arg-type]
    assert Counter(f.rule for f in found) == {"trigger-stopwords": len(docs)}
    assert all(f.line == 3 for f in found)
    # Fewer documents than boilerplate_min_documents: no template is inferred.
    assert boilerplate(docs[:5], config) == set()


def test_a_specific_trigger_raises_nothing() -> None:
    found, emit = collect()
    config = load_config(None)
    item = doc("deployment", "Deploying, releasing or rolling back a service in production; "
               "changing a deploy pipeline or shipping during a freeze.")
    list(trigger_findings(item, emit, config, STOP, set()))  # type: ignore[arg-type]
    assert found == []


@pytest.mark.parametrize("trigger,rule", [
    ("Code.", "trigger-short"),
    ("Deployment", "trigger-is-title"),
    ("what is it about and what do we do", "trigger-stopwords"),
    (" ".join(["payments"] * 101), "trigger-long"),
])
def test_trigger_rules_one_finding_each(trigger: str, rule: str) -> None:
    found, emit = collect()
    item = doc("deployment", trigger)
    list(trigger_findings(item, emit, load_config(None), STOP, set()))  # type: ignore[arg-type]
    assert [f.rule for f in found] == [rule]


def test_dependencies_on_retired_and_missing_documents_dangle() -> None:
    found, emit = collect()
    item = doc("on-call", "Carrying the pager and answering pages.",
               depends_on=("incident-response", "legacy-runbook", "ghost", "on-call"))
    sizes: Counter[str] = Counter()
    list(relation_findings(item, emit, {"on-call", "incident-response"},  # type: ignore[arg-type]
                           {"legacy-runbook"}, sizes))
    messages = {f.data["missing"]: f.message for f in found}
    assert set(messages) == {"legacy-runbook", "ghost"}
    assert "is retired" in messages["legacy-runbook"]
    assert "is not in the corpus" in messages["ghost"]


def test_budget_in_bytes_without_a_tokenizer() -> None:
    _found, emit = collect()
    item = lint_document("big", "big.md", "markdown", "Big things.", (), None, (),
                         "# Big\n\n**Agent-trigger:** Big things.\n" + "x" * 4000)
    assert budget_finding(item, emit, 2000, None) is None  # type: ignore[arg-type]
    assert budget_finding(item, emit, 900, None) is not None  # type: ignore[arg-type]
    counted = budget_finding(item, emit, 900, ("words", lambda text: len(text.split())))  # type: ignore[arg-type]
    assert counted is None  # five words: within 900 tokens by that tokenizer


def test_jsonl_documents_point_at_their_line() -> None:
    item = lint_document("a", "docs/policies.jsonl:7", "jsonl", "A trigger.", ("x", "y"),
                         "fam", ("b",), "", ignore=["hub"])
    assert item.file == "docs/policies.jsonl"
    assert item.trigger_line == 7 and item.example_lines == (7, 7) and item.depends_line == 7
    assert item.ignore == frozenset({"hub"})


def test_a_corpus_with_nothing_routable_reports_what_was_skipped(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# Notes\n\nNo trigger here.\n")
    report = lint_paths([tmp_path])
    assert [(f.rule, Path(f.file or "").name, f.line) for f in report.findings] == [
        ("trigger-missing", "notes.md", 1)]
    assert report.documents == 0 and report.fails("error")


def test_a_healthy_library_s_other_files_are_not_findings(tmp_path: Path,
                                                          fake_encoder: object) -> None:
    """A collection's README and LICENSE, a skill's supporting files (a binary JSONL
    included), Cursor rules with unquoted globs and duplicate names: none is a finding."""
    rule = "---\ndescription: Writing {0} components with hooks.\nglobs: **/*.tsx\n---\nBody\n"
    (tmp_path / "rules").mkdir()
    for name in ("react", "vue"):
        (tmp_path / "rules" / f"{name}.mdc").write_text(rule.format(name))
    skill = tmp_path / "skills" / "pdf"
    (skill / "data").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: pdf\ndescription: Filling PDF forms.\n---\nBody\n")
    (skill / "reference.md").write_text("# Reference\n")
    (skill / "data" / "bench.jsonl").write_bytes(b"\x00\xff" * 32)
    (tmp_path / "other" / "pdf").mkdir(parents=True)
    (tmp_path / "other" / "pdf" / "SKILL.md").write_text(
        "---\nname: pdf\ndescription: Merging PDF files.\n---\nBody\n")
    (tmp_path / "README.md").write_text("# My rules\n")
    (tmp_path / "LICENSE.md").write_text("MIT\n")
    (tmp_path / "ANTHROPIC_ATTRIBUTION.md").write_text("# Attribution\n")
    report = lint_paths([tmp_path])
    assert report.documents == 4
    assert [f for f in report.findings if f.rule in ("unreadable", "trigger-missing")] == []


def test_a_binary_or_undecodable_file_is_unreadable_not_a_failed_lint(tmp_path: Path,
                                                                     fake_encoder: object) -> None:
    (tmp_path / "ok.md").write_text("# Ok\n\n**Agent-trigger:** Reviewing pull requests.\n")
    (tmp_path / "blob.jsonl").write_bytes(b"\x00" * 40 + b"\n")
    report = lint_paths([tmp_path])
    assert [(f.rule, Path(f.file or "").name) for f in report.findings
            if f.rule == "unreadable"] == [("unreadable", "blob.jsonl")]
