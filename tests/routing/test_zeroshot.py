"""The default that transfers: the background gate, explanations, and the dead ends that
say what to do next — against the real model and the example corpus."""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from gov.core.calibration.calibrate import calibrate_index
from gov.core.calibration.labelled import read_labelled
from gov.core.corpus.reader import load_corpus
from gov.core.routing.background import bank_prompts
from gov.core.routing.indexes import build_index, load_index
from tests.conftest import EXAMPLES, POLICIES, run_gov


def test_the_index_measures_its_corpus_against_the_bank(example_index: Path) -> None:
    index = load_index(example_index)
    assert index.operating_point.gate == "background" and index.background is not None
    info = index.header.background
    assert info is not None and info["bank_size"] == len(bank_prompts()) > 300
    threshold, guard = index.background.threshold(index.operating_point)
    assert guard in ("bank", "examples", "orphans")
    assert index.background.bank_top[0] <= threshold <= index.background.bank_top[-1]
    # By construction about alpha of the bank clears the threshold: routed end to end, the
    # bank itself routes rarely.
    routed = [answer for answer in index.route_many(bank_prompts(), record=False) if answer.routes]
    share = index.background.alpha(index.operating_point)
    assert len(routed) / len(bank_prompts()) <= share + 0.02


def test_every_answer_says_why_and_explain_shows_what_was_in_force(example_index: Path) -> None:
    index = load_index(example_index)
    quiet = index.route("what's the capital of france?", record=False, explain=True)
    assert quiet.routes == [] and quiet.reason is not None and quiet.reason.startswith("abstained")
    assert quiet.explain is not None
    gate = quiet.explain["gate"]
    assert gate["best"] < gate["threshold"] and gate["set_by"] in ("bank", "examples", "orphans")
    assert gate["orphan_quantile"] == index.operating_point.orphan_quantile
    assert gate["min_confidence"] == index.operating_point.min_confidence is not None
    assert len(quiet.explain["nearest"]) == 3
    assert all(item["gate"] <= gate["best"] + 1e-9 for item in quiet.explain["nearest"])
    loud = index.route("the pager went off for checkout-api at 3am, what do I do first?",
                       record=False)
    assert loud.names[:1] == ["on-call"] and loud.reason is not None
    assert loud.reason.startswith("routed") and loud.explain is None
    assert 0.0 < (loud.confidence or 0.0) < 1.0


def test_a_prompt_over_the_threshold_abstains_under_the_confidence_floor(
        example_index: Path) -> None:
    # Releasing an SDK sits between release-notes and deployment: it clears the bank and the
    # corpus's floors. Under the shipped floor it routes; a point that asks for more
    # confidence than its route has abstains, saying both numbers and what to do.
    prompt = "cut v3.2.0 of the python SDK and draft the GitHub release text"
    shipped = load_index(example_index)
    routed = shipped.route(prompt, record=False, explain=True)
    assert routed.routes and routed.confidence is not None
    assert routed.explain is not None and routed.explain["gate"]["best"] >= (
        routed.explain["gate"]["threshold"])
    floor = round(min(0.99, routed.confidence + 0.05), 3)
    index = load_index(example_index, operating_point=shipped.operating_point.with_params(
        min_confidence=floor))
    answer = index.route(prompt, record=False, explain=True)
    assert answer.routes == [] and answer.confidence is not None
    assert answer.confidence < floor
    assert answer.explain is not None
    gate = answer.explain["gate"]
    assert gate["best"] >= gate["threshold"]
    assert answer.reason is not None and answer.reason.startswith("abstained: best gate score")
    assert answer.reason.endswith(f", but confidence {answer.confidence:.3f} is under the "
                                  f"point's floor {floor:.3f}")
    # The explanation says what to do: the two it is split between, or an example line.
    assert answer.explain["decided"] == "confidence" and answer.explain["next"]
    assert answer.explain["confidence"]["value"] < answer.explain["confidence"]["floor"]


def test_the_evidence_names_discriminating_words_and_the_nearest_surface(
        example_index: Path) -> None:
    answer = load_index(example_index).route(
        "the pager went off for checkout-api at 3am, what do I do first?", record=False)
    why = answer.routes[0].why
    assert "words: pager" in why and "meaning: trigger 0." in why


@pytest.mark.model
def test_a_fresh_checkout_is_not_stale_but_an_edit_is(tmp_path: Path) -> None:
    corpus = tmp_path / "policies"
    shutil.copytree(POLICIES, corpus)
    target = tmp_path / "idx"
    build_index(load_corpus([corpus], warn=lambda _m: None), bodies=False).write(target)
    later = time.time() + 60
    for path in corpus.glob("*.md"):  # what a clone or checkout does to file times
        os.utime(path, (later, later))
    assert not load_index(target).is_stale()
    page = corpus / "deployment.md"
    page.write_text(page.read_text().replace("boring", "dull"))
    assert load_index(target).is_stale()


def test_plain_text_on_stdin_gets_a_hint_at_text(example_index: Path) -> None:
    result = run_gov("route", "-i", str(example_index), "--format", "jsonl",
                     input="roll back the release please\n")
    assert result.returncode == 1
    (row,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert "use --text" in row["error"]["message"]


@pytest.mark.slow
def test_a_corpus_without_triggers_shows_the_line_to_add(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("# Deploying\n\nWe ship on Tuesdays.\n")
    result = run_gov("index", str(tmp_path), "-o", str(tmp_path / "idx"))
    assert result.returncode == 2
    assert b"**Agent-trigger:** when this applies" in result.stderr


def test_the_hook_names_a_non_default_index(example_index: Path, tmp_path: Path) -> None:
    payload = {"prompt": "the pager went off for checkout-api at 3am, what do I do first?",
               "cwd": str(tmp_path), "hook_event_name": "UserPromptSubmit"}
    result = run_gov("hook", "codex", "-i", str(example_index), "--serve", "never",
                     input=json.dumps(payload))
    context = json.loads(result.stdout)["hookSpecificOutput"]["additionalContext"]
    assert f"gov show NAME -i {example_index}" in context


def test_a_few_labels_move_the_label_free_point(example_index: Path) -> None:
    rows = [json.loads(line) for line in (EXAMPLES / "labelled.jsonl").read_text().splitlines()]
    few = rows[::5]  # 27 prompts
    labelled = read_labelled([(f"row {i}", row) for i, row in enumerate(few)])
    run = calibrate_index(load_index(example_index), labelled, max_fa=0.1)
    first = run.result.rows[0]
    assert first.point.gate == "background"
    # Under 200 labels the label-free point moves only as far as held-out folds support,
    # and one line says what was kept and what was added.
    assert any(re.match(r"27 labels, \d+ ungoverned: ", note) for note in run.result.notes)
    if run.point is not None and run.point.gate == "background":
        moved = run.point
        shipped = load_index(example_index).operating_point
        # Only the bank share and the second-route rule may move.
        for name in ("lexical_weight", "semantic_weight", "semantic_pool", "body_surfaces",
                     "hub_weight", "fusion"):
            assert getattr(moved, name) == getattr(shipped, name), name
        # A share the labels chose is this corpus's own, not grown with size; a kept default
        # gate keeps the shipped growth.
        if moved.background_alpha != shipped.background_alpha:
            assert moved.background_alpha_growth == 0.0
        else:
            assert moved.background_alpha_growth in (0.0, shipped.background_alpha_growth)
        # ... and say whether the corpus's orphan floor still holds (its label-free value).
        assert moved.orphan_quantile in (0.0, shipped.orphan_quantile)
        gate = load_index(example_index, operating_point=moved).background
        assert gate is not None and gate.alpha(moved) == moved.background_alpha


def test_eval_lists_near_misses_and_warns_about_learned_prompts(example_index: Path,
                                                                 tmp_path: Path) -> None:
    routed = run_gov("route", "-i", str(example_index), "--explain", "--format", "jsonl",
                     input=(EXAMPLES / "labelled.jsonl").read_bytes())
    report = json.loads(run_gov("eval", "--format", "json", input=routed.stdout).stdout)
    misses = report["near_misses"]
    silent = report["overall"]["silent_rate"] * report["overall"]["positives"]
    assert len(misses) == round(silent) > 0
    assert all(miss["expected"] and len(miss["nearest"]) == 3 for miss in misses)
    assert all(miss["reason"].startswith("abstained") for miss in misses)
    # An index whose point learned from these very prompts makes eval say so.
    point = tmp_path / "point.json"
    learned = run_gov("calibrate", "-i", str(example_index), "--learn", "--out", str(point),
                      "--max-fa", "0.2", input=(EXAMPLES / "labelled.jsonl").read_bytes())
    assert learned.returncode == 0, learned.stderr
    index = tmp_path / "learned-index"
    assert run_gov("index", str(POLICIES), "-o", str(index), "--operating-point",
                   str(point)).returncode == 0
    warned = run_gov("eval", "-i", str(index), input=routed.stdout)
    assert b"were learned from by the index's operating point" in warned.stderr


def test_calibrate_ends_with_what_the_winner_gave_up(example_index: Path) -> None:
    # --refit: the full grid, as 200 labels or more choose it (134 here)
    result = run_gov("calibrate", "-i", str(example_index), "--max-fa", "0.1", "--refit",
                     input=(EXAMPLES / "labelled.jsonl").read_bytes())
    assert result.returncode == 0, result.stderr
    summary = [line for line in result.stderr.decode().splitlines() if "winner:" in line]
    assert len(summary) == 1 and "silent on" in summary[0]


def test_the_bank_share_sets_how_much_routes(example_index: Path) -> None:
    prompts = [json.loads(line)["prompt"]
               for line in (EXAMPLES / "labelled.jsonl").read_text().splitlines()]
    shipped = load_index(example_index).operating_point
    routed = []
    for alpha in (0.01, 0.05, 0.3):  # the bank alone (the orphan floor off)
        index = load_index(example_index, operating_point=shipped.with_params(
            background_alpha=alpha, orphan_quantile=0.0))
        assert index.background is not None
        threshold, _ = index.background.threshold(index.operating_point)
        if index.background.example_top is None:
            assert threshold == pytest.approx(float(np.quantile(
                index.background.bank_top, 1 - index.background.alpha(index.operating_point))),
                abs=1e-6)
        routed.append(sum(bool(a.routes) for a in index.route_many(prompts, record=False)))
    assert routed[0] < routed[1] < routed[2]
    # The orphan floor only ever raises the threshold: a higher quantile routes less.
    by_orphans = [sum(bool(a.routes) for a in load_index(
        example_index, operating_point=shipped.with_params(orphan_quantile=q)).route_many(
            prompts, record=False)) for q in (0.0, shipped.orphan_quantile, 0.95)]
    assert by_orphans[0] >= by_orphans[1] > by_orphans[2]
