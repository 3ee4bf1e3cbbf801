"""Session memory: a document pasted once in a session is named again in a few bytes.

The store itself (bounded, expiring, hashed keys), then whole sessions of recorded hook
payloads through a real warm server: what each turn prints, what resets it, the opt-out,
and the bytes a 20-turn session saves.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from gov.core.serving.sessions import (
    MAX_NAMES,
    REPEAT_AFTER_TURNS,
    Session,
    SessionStore,
    session_key,
)
from tests.conftest import REPO
from tests.serving.hook_contracts import context_of, prompt_payload, start_payload, valid_output
from tests.serving.test_hook_harnesses import ROUTED, project, run_hook, runtime, server

__all__ = ["project", "runtime", "server"]  # fixtures shared with the harness tests

# A 20-turn session: the same incident comes back turn after turn, with detours
# (replayed by benchmarks/bench_session_memory.py, removed; ran at 204d2fe).
REPLAY = [json.loads(line)["prompt"] for line in
          (REPO / "tests" / "data" / "session-20-turns.jsonl").read_text().splitlines()]


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_store_is_bounded_least_recently_used_first() -> None:
    store = SessionStore(max_sessions=3, clock=Clock())
    for key in "abcd":
        store.get(key)
    store.get("b")
    store.get("e")
    assert len(store) == 3 and set(store._sessions) == {"b", "d", "e"}


def test_idle_sessions_expire() -> None:
    clock = Clock()
    store = SessionStore(idle_seconds=60, clock=clock)
    first = store.get("a")
    first.turn = 7
    clock.now += 61
    store.get("b")
    assert "a" not in store._sessions
    assert store.get("a").turn == 0  # a fresh session, not the old one


def test_a_session_names_a_pasted_document_until_context_is_lost() -> None:
    session = Session(0.0)
    session.turn = 1
    session.note_routed(["deployment"], 0.0, pasted=["deployment"])
    session.turn = 2
    assert session.still_in_context("deployment", 10.0)
    assert not session.still_in_context("testing", 10.0)
    session.forget_context()
    assert not session.still_in_context("deployment", 10.0)
    session.note_routed(["deployment"], 20.0, pasted=["deployment"])
    session.turn += REPEAT_AFTER_TURNS
    assert not session.still_in_context("deployment", 30.0)  # long ago: paste it again


def test_a_session_keeps_at_most_max_names_and_reads_time_routes() -> None:
    session = Session(0.0)
    session.note_routed([f"doc{i}" for i in range(MAX_NAMES + 10)], 0.0,
                        pasted=[f"doc{i}" for i in range(MAX_NAMES + 10)])
    assert len(session.routed) == MAX_NAMES and "doc0" not in session.routed
    session.turn = 3
    assert session.note_read(f"doc{MAX_NAMES + 9}", 12.5) == (True, True, 3, 12.5)
    assert session.note_read(f"doc{MAX_NAMES + 9}", 13.5)[0] is False  # not news: read already
    assert session.note_read("unrouted", 13.0) == (True, False, None, None)
    session.note_routed(["unrouted"], 20.0, pasted=["unrouted"])
    assert session.note_read("unrouted", 21.0) == (True, True, 0, 1.0)  # routed since: news


def test_keys_are_hashes_that_differ_per_index() -> None:
    key = session_key("abc123-secret-session", "/p/.gov/index")
    assert len(key) == 16 and "abc123" not in key
    assert key != session_key("abc123-secret-session", "/other/.gov/index")
    assert key == session_key("abc123-secret-session", "/p/.gov/index")


# --- whole sessions through the warm server --------------------------------------------


def turn(harness: str, prompt: str, project: Path, env: dict[str, str], session: str = "s-1",
         *args: str) -> str:
    result = run_hook(harness, *args, payload=prompt_payload(harness, prompt, project, session),
                      env=env)
    assert result.returncode == 0 and result.stderr == b"", result.stderr
    return context_of(valid_output(harness, result.stdout)) if result.stdout else ""


def test_the_second_turn_says_still_applies_in_a_few_bytes(server: subprocess.Popen[bytes],
                                                           project: Path,
                                                           runtime: dict[str, str]) -> None:
    first = turn("claude-code", ROUTED, project, runtime)
    assert "deployment (matched" in first
    assert turn("claude-code", ROUTED, project, runtime) == "gov: still applies: deployment."
    assert "deployment (matched" in turn("claude-code", ROUTED, project, runtime, "s-2")
    assert "deployment (matched" in turn("claude-code", ROUTED, project, runtime, "s-1",
                                         "--no-session-memory")
    mixed = turn("claude-code", "a secret leaked during the release rollout; rotate the key and "
                 "roll back the deploy to the previous version", project, runtime)
    # (routes both: one is still in context)
    assert "secrets-management (matched" in mixed and mixed.endswith("Still applies: deployment.")


def test_clear_and_compaction_paste_in_full_again(server: subprocess.Popen[bytes], project: Path,
                                                  runtime: dict[str, str]) -> None:
    turn("gemini", ROUTED, project, runtime)
    assert turn("gemini", ROUTED, project, runtime) == "gov: still applies: deployment."
    compress = start_payload("gemini", project) | {"hook_event_name": "PreCompress", "trigger": "auto"}
    assert run_hook("gemini", payload=compress, env=runtime).stdout == b""
    assert "deployment (matched" in turn("gemini", ROUTED, project, runtime)
    assert turn("gemini", ROUTED, project, runtime) == "gov: still applies: deployment."
    clear = start_payload("claude-code", project, "clear")
    turn("claude-code", ROUTED, project, runtime, "c-1")
    run_hook("claude-code", payload=clear | {"session_id": "c-1"}, env=runtime)
    assert "deployment (matched" in turn("claude-code", ROUTED, project, runtime, "c-1")


def test_session_memory_is_never_written_to_disk(server: subprocess.Popen[bytes], project: Path,
                                                 runtime: dict[str, str]) -> None:
    folder = Path(runtime["GOV_RUNTIME_DIR"])
    before = sorted(p.name for p in folder.rglob("*"))
    for prompt in REPLAY[:4]:
        turn("codex", prompt, project, runtime, "disk-session-7f3a")
    assert sorted(p.name for p in folder.rglob("*")) == before
    for path in [*folder.rglob("*"), *project.rglob("*")]:
        if path.is_file() and not path.is_socket():
            assert b"disk-session-7f3a" not in path.read_bytes()


def replay_bytes(harness: str, project: Path, env: dict[str, str], session: str, *args: str) -> list[int]:
    sizes = []
    for prompt in REPLAY:
        result = run_hook(harness, *args, payload=prompt_payload(harness, prompt, project, session),
                          env=env)
        sizes.append(len(result.stdout))
    return sizes


def test_a_replayed_20_turn_session_saves_context_bytes(server: subprocess.Popen[bytes], project: Path,
                                                        runtime: dict[str, str]) -> None:
    full = replay_bytes("codex", project, runtime, "replay-off", "--no-session-memory")
    remembered = replay_bytes("codex", project, runtime, "replay-on")
    assert len(full) == len(remembered) == 20
    assert all(on <= off for on, off in zip(remembered, full, strict=True))
    assert remembered[0] == full[0]  # the first turn pastes in full either way
    saved = sum(full) - sum(remembered)
    assert saved > sum(full) // 3, (sum(full), sum(remembered))
    shortest = min(size for size in remembered if size)
    assert shortest < 150  # "still applies" in its object: a few bytes, not a paragraph
    print(json.dumps({"turns": 20, "bytes_without_memory": sum(full),
                      "bytes_with_memory": sum(remembered), "saved": saved}))


def test_divergence_notices_are_said_once_per_session(project: Path, runtime: dict[str, str],
                                                      server: subprocess.Popen[bytes]) -> None:
    """A corpus far from the operating point's: the first routed turn of a session says so,
    later turns do not (about 200 bytes a turn), a new session hears it again, and
    without session memory every turn says it."""
    from gov.core.routing.point import default_operating_point

    point = default_operating_point()
    data = json.loads((REPO / "core" / "data" / "operating_point.json").read_text())
    data.setdefault("provenance", {})["corpus_size"] = 2000  # the examples have 22
    path = project / "point.json"
    path.write_text(json.dumps(data))
    assert point.gate == "background"

    def turn(session: str, *extra: str) -> str:
        result = run_hook("codex", "--operating-point", str(path), *extra,
                          payload=prompt_payload("codex", ROUTED, project, session=session),
                          env=runtime)
        assert result.returncode == 0, result.stderr
        return context_of(json.loads(result.stdout))

    first, second = turn("s-notice"), turn("s-notice")
    assert "Routing may be off for this corpus" in first and "2000" in first
    assert "Routing may be off" not in second
    assert "Routing may be off" in turn("s-other")
    assert all("Routing may be off" in turn("s-off", "--no-session-memory") for _ in range(2))
