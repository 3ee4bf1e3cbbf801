"""Near-duplicates the triggers alone reveal, narrower copies of a trigger, and the families
lint shows, with the real model: two documents whose triggers say the same thing in
another word order overlap even when their example lines differ; templated triggers whose
examples tell the documents apart do not; a trigger that is a narrower copy of another's is
subsumed; the families are listed (capped) and counted, and routing's families (the same
detector) join the same documents."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from gov.core.lint import LintReport, lint_paths
from gov.core.lint.config import load_config
from tests.conftest import run_gov

DEPLOY = ("Deploying, releasing or rolling back a service in production, including canary "
          "and blue-green rollouts.")
RELEASE = ("Releasing, deploying or rolling back services in production, including "
           "blue-green and canary rollouts.")
ROLLBACK = "Rolling back a service in production."

# name -> (trigger, example lines)
DOCUMENTS = {
    "deploy-service": (DEPLOY, (
        "ship version 2.4 of the payments API to prod",
        "start a canary for the checkout service at five percent",
        "how do I cut a release of the billing service today")),
    "release-services": (RELEASE, (
        "the new search build broke prod, revert it",
        "switch traffic from the blue to the green cluster",
        "promote last night's build of the orders service to production")),
    "expense-claims": ("Claiming back money spent on work: receipts, mileage, meals with "
                       "clients, and how to submit an expense report.", (
        "how do I claim back the taxi fare from the airport",
        "I lost the receipt for a client dinner, can I still expense it",
        "what is the mileage rate for driving to a customer site")),
    "laptops": ("Ordering, replacing or repairing a work laptop, monitor, keyboard or other "
                "equipment.", (
        "my laptop screen is cracked, how do I get it fixed",
        "order a second monitor for my desk",
        "the new starter needs a laptop by Monday")),
    "hiring": ("Opening a job requisition, scheduling interviews, writing an offer letter, or "
               "onboarding a new hire.", (
        "open a requisition for a senior data engineer",
        "book three interviewers for Thursday afternoon",
        "draft an offer for the backend candidate")),
}


def write(folder: Path, documents: dict[str, tuple[str, tuple[str, ...]]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, (trigger, examples) in documents.items():
        lines = [f"# {name.replace('-', ' ').title()}", "", f"**Agent-trigger:** {trigger}",
                 *(f"**Agent-example:** {example}" for example in examples), "",
                 "What this team does about it, in a sentence or two."]
        (folder / f"{name}.md").write_text("\n".join(lines) + "\n")
    return folder


def by_rule(report: LintReport, rule: str) -> dict[str | None, list]:  # type: ignore[type-arg]
    found: dict[str | None, list] = {}  # type: ignore[type-arg]
    for finding in report.findings:
        if finding.rule == rule:
            found.setdefault(finding.document, []).append(finding)
    return found


@pytest.fixture(scope="module")
def reordered(tmp_path_factory: pytest.TempPathFactory, lint_cache: Path) -> tuple[Path,
                                                                                    LintReport]:
    folder = write(tmp_path_factory.mktemp("reordered") / "corpus", DOCUMENTS)
    return folder, lint_paths([folder])


@pytest.mark.model
def test_triggers_in_another_word_order_overlap_whatever_their_examples(
        reordered: tuple[Path, LintReport]) -> None:
    _, report = reordered
    overlap = by_rule(report, "overlap")
    assert set(overlap) == {"deploy-service", "release-services"}
    for name, other in (("deploy-service", "release-services"),
                        ("release-services", "deploy-service")):
        (finding,) = overlap[name]
        assert finding.line == 3  # the trigger: only the triggers alone say the same thing
        assert finding.data["others"][0]["document"] == other
        coverage = finding.data["others"][0]["coverage"]
        # Their examples differ, so every surface together does not make them duplicates:
        # the triggers do, by meaning and by their words in any order.
        assert "meaning" not in coverage and "words" not in coverage
        assert coverage["trigger-meaning"] >= 0.9 and coverage["trigger-words"] >= 0.99
        assert "the triggers" in finding.message
    assert not by_rule(report, "subsumed")


@pytest.mark.model
def test_lint_lists_the_family_and_counts_the_families(reordered: tuple[Path,
                                                                        LintReport]) -> None:
    folder, report = reordered
    (family,) = [f for f in report.findings if f.rule == "family"]
    assert family.severity == "note" and family.document == "deploy-service"
    assert family.line == 3
    assert family.data["members"] == ["deploy-service", "release-services"]
    assert set(family.data["signals"]) == {"trigger-meaning", "trigger-words"}
    assert "a family of 2 near-duplicates" in family.message
    assert report.families == {"families": 1, "documents": 2, "listed": 1}
    assert report.to_json()["families"] == report.families
    # Listed at most families_listed times; still counted.
    (folder / "gov-lint.json").write_text(json.dumps({"thresholds": {"families_listed": 0}}))
    try:
        capped = lint_paths([folder])
    finally:
        (folder / "gov-lint.json").unlink()
    assert not by_rule(capped, "family")
    assert capped.families == {"families": 1, "documents": 2, "listed": 0}
    assert len(by_rule(capped, "overlap")) == 2


@pytest.mark.model
def test_gov_lint_shows_the_families_in_text_and_json(reordered: tuple[Path,
                                                                       LintReport]) -> None:
    folder, _ = reordered
    text = run_gov("lint", str(folder), "--fail-on", "never", env={"NO_COLOR": "1"})
    assert text.returncode == 0, text.stderr
    lines = text.stdout.decode().splitlines()
    assert "near-duplicate families: 1 (2 documents), 1 listed as family findings" in lines
    assert lines[-1].startswith("gov lint: 0 errors, ")
    assert any(" family  a family of 2 near-duplicates: 'deploy-service', "
               "'release-services'" in line for line in lines)
    done = run_gov("lint", str(folder), "-f", "json", "--fail-on", "never")
    rows = json.loads(done.stdout)
    (family,) = [row for row in rows if row["rule"] == "family"]
    assert family["data"]["members"] == ["deploy-service", "release-services"]


@pytest.mark.model
def test_routing_families_come_from_the_same_detector(reordered: tuple[Path,
                                                                       LintReport]) -> None:
    from gov.core.corpus.reader import load_corpus
    from gov.core.index.stored import StoredIndex
    from gov.core.routing.indexes import build_index

    folder, _ = reordered
    stored = StoredIndex(build_index(load_corpus([folder], warn=lambda _m: None),
                                     families="auto"))
    ids = dict(zip(stored.names, np.asarray(stored.array("doc_family")).tolist(), strict=True))
    assert ids["deploy-service"] == ids["release-services"]
    assert len({ids[name] for name in ("deploy-service", "expense-claims", "laptops",
                                       "hiring")}) == 4


@pytest.mark.model
@pytest.mark.parametrize("examples", [(), (
    "the 3.2 release of the cart service is failing, take it back to 3.1",
    "undo yesterday's deploy of the auth service",
    "revert production to the previous build")], ids=["trigger-only", "with-examples"])
def test_a_trigger_that_is_a_narrower_copy_is_subsumed(
        tmp_path: Path, lint_cache: Path, examples: tuple[str, ...]) -> None:
    folder = write(tmp_path / "corpus", {**DOCUMENTS, "rollback": (ROLLBACK, examples)})
    report = lint_paths([folder])
    subsumed = by_rule(report, "subsumed")
    assert set(subsumed) == {"rollback"}
    (finding,) = subsumed["rollback"]
    assert finding.line == 3 and finding.severity == "warning"
    assert {item["document"] for item in finding.data["broader"]} == {"deploy-service",
                                                                      "release-services"}
    for item in finding.data["broader"]:
        assert item["words"] >= 0.9 and item["meaning"] >= 0.6
    assert "narrower copy" in finding.message and ROLLBACK in finding.message
    # A narrower copy is not a near-duplicate: the family is still the two broad ones.
    assert set(by_rule(report, "overlap")) == {"deploy-service", "release-services"}
    (family,) = by_rule(report, "family").values()
    assert family[0].data["members"] == ["deploy-service", "release-services"]


@pytest.mark.model
def test_templated_triggers_told_apart_by_their_examples_do_not_overlap(
        tmp_path: Path, lint_cache: Path) -> None:
    # One template, the same words in another order ("meeting schedule", "schedule
    # meeting"): the triggers alone are alike, the examples are what each document is.
    documents = {name: DOCUMENTS[name] for name in ("expense-claims", "laptops", "hiring")}
    documents["meeting-schedule"] = (
        "The user's request is about: meeting schedule (domain: work).",
        ("what meetings do I have this afternoon", "am I free at 3 pm tomorrow",
         "list my meetings for Thursday"))
    documents["schedule-meeting"] = (
        "The user's request is about: schedule meeting (domain: work).",
        ("set up a meeting with Dana on Friday at noon",
         "book a call with the design team next week",
         "invite Sam to a one-hour sync tomorrow morning"))
    folder = write(tmp_path / "corpus", documents)
    report = lint_paths([folder])
    assert not by_rule(report, "overlap") and not by_rule(report, "family")
    assert not by_rule(report, "subsumed")
    assert report.families == {"families": 0, "documents": 0, "listed": 0}
    # Without their examples the two are one trigger twice: near-duplicates.
    bare = write(tmp_path / "bare", {name: (trigger, ()) for name, (trigger, _) in
                                     documents.items()})
    assert set(by_rule(lint_paths([bare]), "overlap")) == {"meeting-schedule",
                                                          "schedule-meeting"}


@pytest.mark.model
def test_the_new_rules_switch_off(reordered: tuple[Path, LintReport]) -> None:
    folder, _ = reordered
    config = load_config(None).with_options(disabled=["family", "overlap", "shadowed", "hub"])
    report = lint_paths([folder], config=config)
    assert not {f.rule for f in report.findings} & {"family", "overlap"}
