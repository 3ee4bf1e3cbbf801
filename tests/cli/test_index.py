"""The ``gov index`` and ``gov show`` commands: summaries, options, refusals, racing writers.

Fresh processes for the plain build, ``gov show`` and the race; the options in this process."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from gov.core.corpus.reader import load_corpus
from gov.core.index.bodies import PASSAGES_PER_DOCUMENT
from gov.core.routing.indexes import load_index
from tests.conftest import POLICIES, gov_command, gov_env, invoke_gov, run_gov
from tests.corpus.conftest import POLICY, write


@pytest.mark.slow
def test_index_and_show_commands(tmp_path: Path) -> None:
    target = tmp_path / "idx"
    # the build in a fresh process; reading what it wrote runs the same entry point in this one
    built = run_gov("index", str(POLICIES), "-o", str(target), "--format", "json")
    assert built.returncode == 0, built.stderr
    summary = json.loads(built.stdout)
    assert summary["documents"] == 22 and summary["retired"] == ["legacy-release-train"]
    verified = invoke_gov("index", "--verify", "-o", str(target))
    assert verified.returncode == 0 and "checksums ok" in verified.stdout.decode()
    shown = invoke_gov("show", "on-call", "-i", str(target))
    assert shown.stdout.decode() == (POLICIES / "on-call.md").read_text()
    unknown = invoke_gov("show", "nope", "-i", str(target))
    assert unknown.returncode == 2 and "no document named 'nope' among the index's 22" in (
        unknown.stderr.decode())
    typo = invoke_gov("show", "deploymnet", "-i", str(target))
    assert typo.returncode == 2 and "did you mean deployment" in typo.stderr.decode()
    assert "access-control" not in typo.stderr.decode()  # the nearest names, not all 22
    retired = invoke_gov("show", "legacy-release-train", "-i", str(target))
    assert retired.returncode == 2 and "is retired" in retired.stderr.decode()


def test_cli_index_reports_a_bad_corpus_in_one_line(tmp_path: Path) -> None:
    write(tmp_path / "one" / "x.md", POLICY)
    write(tmp_path / "two" / "x.md", POLICY)
    result = invoke_gov("index", str(tmp_path), "-o", str(tmp_path / "idx"),
                        "--on-duplicate", "error")
    assert result.returncode == 2  # an input error
    err = result.stderr.decode()
    assert err.count("\n") == 1 and "duplicate document name 'x'" in err
    assert "Traceback" not in err
    assert not (tmp_path / "idx").exists()


def test_cli_index_ann_and_route_exact(tmp_path: Path, example_index: Path) -> None:
    target = tmp_path / "idx"
    target.write_bytes(example_index.read_bytes())  # its vectors are reused
    built = invoke_gov("index", str(POLICIES), "-o", str(target), "--ann", "--format", "json")
    assert built.returncode == 0, built.stderr
    assert json.loads(built.stdout)["search"] == "approximate (usearch)"
    text = invoke_gov("index", str(POLICIES), "-o", str(target), "--ann")
    assert "search: approximate (usearch HNSW over 46 surfaces" in text.stdout.decode()
    prompt = "roll the new build out to production tonight"
    near = invoke_gov("route", prompt, "-i", str(target), "--format", "json")
    exact = invoke_gov("route", prompt, "-i", str(target), "--format", "json", "--exact")
    assert near.returncode == 0 and exact.returncode == 0, near.stderr + exact.stderr
    assert json.loads(near.stdout) == json.loads(exact.stdout)
    lonely = invoke_gov("index", str(POLICIES), "-o", str(target), "--ann-candidates", "8")
    assert lonely.returncode == 2 and b"--ann-candidates needs --ann" in lonely.stderr
    words = invoke_gov("index", str(POLICIES), "-o", str(tmp_path / "lex"), "--ann", "--lexical-only")
    assert words.returncode != 0 and b"--ann needs embeddings" in words.stderr


def test_cli_index_bodies(tmp_path: Path, example_index: Path) -> None:
    target = tmp_path / "idx"
    target.write_bytes(example_index.read_bytes())
    built = invoke_gov("index", str(POLICIES), "-o", str(target), "--format", "json")
    assert built.returncode == 0, built.stderr
    summary = json.loads(built.stdout)
    bodies = summary["bodies"]
    assert bodies["documents"] == 22 and 22 < bodies["passages"] <= 22 * PASSAGES_PER_DOCUMENT
    text = invoke_gov("index", str(POLICIES), "-o", str(target))
    assert (f"bodies: 22 documents with a body; {bodies['passages']} passages (at most 8 per "
            f"document), {bodies['passages']} from the embedding cache") in text.stdout.decode()
    plain = invoke_gov("index", str(POLICIES), "-o", str(tmp_path / "plain"), "--no-bodies",
                    "--format", "json")
    assert plain.returncode == 0 and json.loads(plain.stdout)["bodies"] is None
    words = invoke_gov("index", str(POLICIES), "-o", str(tmp_path / "lex"), "--lexical-only",
                    "--format", "json")
    assert words.returncode == 0 and json.loads(words.stdout)["bodies"] is None


@pytest.mark.slow
def test_two_index_runs_on_one_output_leave_one_complete_index(tmp_path: Path) -> None:
    target = tmp_path / "index"
    jsonl = tmp_path / "docs.jsonl"
    jsonl.write_text("".join(json.dumps({"name": f"d{i}", "trigger": f"topic number {i} words"}) + "\n"
                             for i in range(30)))
    procs = [subprocess.Popen(gov_command("index", str(source), "-o", str(target), "-q"),
                              env=gov_env(), stderr=subprocess.PIPE)
             for source in (POLICIES, jsonl)]
    for proc in procs:
        assert proc.wait(timeout=300) == 0
    loaded = load_index(target, verify=True)
    assert sorted(loaded.names) in (sorted(load_corpus([POLICIES]).names),
                                    sorted(f"d{i}" for i in range(30)))
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.slow  # builds an index (fitting the background gate): seconds
def test_cli_index_says_when_it_leaves_bodies_out_for_size(
        tmp_path: Path, fake_encoder: object, monkeypatch: pytest.MonkeyPatch) -> None:
    from gov.core.index import bodies

    monkeypatch.setattr(bodies, "MAX_DOCUMENTS", 21)  # the examples corpus has 22
    left = invoke_gov("index", str(POLICIES), "-o", str(tmp_path / "left"), "--format", "json")
    assert left.returncode == 0, left.stderr
    assert json.loads(left.stdout)["bodies"] is None
    warning, closing = left.stderr.decode().splitlines()
    assert warning == ("gov: warning: bodies left out: 22 documents is over 21, where embedding "
                       "them would be most of the build; gov index --bodies embeds them")
    assert closing.startswith("gov: indexed 22 documents")
    asked = invoke_gov("index", str(POLICIES), "-o", str(tmp_path / "asked"), "--bodies",
                       "--format", "json")
    assert asked.returncode == 0 and b"bodies left out" not in asked.stderr
    assert json.loads(asked.stdout)["bodies"]["documents"] == 22
