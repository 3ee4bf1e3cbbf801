"""One hook turn, whoever runs it: the warm server, or the hook process itself.

``gov hook HARNESS`` reads the harness's payload, and the payload's event says what to do:
a prompt is routed and the paragraph rendered in the harness's own output object; a
session start gives the harnesses that cannot add context per prompt the corpus's
document names; a compaction makes session memory paste everything again; a tool call
is looked at for a document read. :func:`run` does all of it from bytes in to bytes out,
so the warm server renders the hook's stdout itself and the hook process only passes
bytes along; when no server answers, the hook runs the same function in-process.

Whatever goes wrong, a turn ends with nothing on stdout and one line for stderr (none for
tool events, which fire on every tool call and which Gemini CLI would show the user).
"""

from __future__ import annotations

import json  # stdlib, not orjson: it reads the harness payload as before (a BOM, UTF-16)
import os
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from .. import telemetry
from ..index.locate import Found, find_index
from . import harness, hook_grammar
from .hook_context import MIN_PROMPT_CHARS, catalogue, render
from .hook_reads import catalogue_of, tool_turn
from .reads import Catalogue
from .sessions import Session, SessionFiles, SessionStore, session_key
from .wire import MAX_PROMPT_CHARS, MAX_STDIN

if TYPE_CHECKING:
    from ..routing.answer import RouteAnswer
    from ..routing.router import Router


class HookProblem(Exception):
    """A reason the hook does nothing this turn (one line on stderr, never blocking)."""

    def __init__(self, message: str, failure_class: str = "input") -> None:
        super().__init__(message)
        self.failure_class = failure_class


def parse_args(argv: list[str]) -> dict[str, Any] | None:
    """Options as a dict (:func:`gov.core.serving.hook_grammar.parse`), or None when help was
    asked for."""
    try:
        return hook_grammar.parse(argv, harness.HARNESSES)
    except ValueError as exc:
        raise HookProblem(str(exc)) from None


def read_payload(data: bytes) -> dict[str, Any]:
    if not data or not data.strip():
        raise HookProblem("empty stdin: expected the harness's hook payload (JSON)")
    if len(data) > MAX_STDIN:
        raise HookProblem(f"stdin is over {MAX_STDIN} bytes; not routing this prompt")
    try:
        payload = json.loads(data, parse_constant=_no_constant)
    except (ValueError, RecursionError):  # bad JSON, bad UTF-8, NaN, absurd nesting
        raise HookProblem("stdin is not valid JSON") from None
    if not isinstance(payload, dict):
        raise HookProblem("stdin must be a JSON object")
    return payload


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _prompt_of(payload: dict[str, Any]) -> str:
    prompt = payload.get("prompt")
    if not isinstance(prompt, str):
        raise HookProblem("payload field 'prompt' is missing or not a string")
    try:
        prompt.encode("utf-8")
    except UnicodeEncodeError:
        raise HookProblem("payload field 'prompt' is not valid Unicode (a lone surrogate)") from None
    return prompt


class Backend(Protocol):
    """Where a turn's routes come from: the server's loaded indexes, or an in-process load."""

    attempts: int
    sessions: SessionStore | None
    memory: bool  # whether session memory may shorten a paragraph (the warm server only)

    def route(self, index: str, point: str | None, prompt: str) -> RouteAnswer: ...

    def names(self, index: str, point: str | None) -> list[str]: ...

    def catalogue(self, index: str, point: str | None) -> Catalogue: ...

    def adopt(self, key: str, index: str) -> Session | None: ...


class Turn:
    """A turn's output: stdout bytes, a stderr line, and what to do once they are delivered
    (record telemetry, remember what was pasted) — never before, so the harness waits for
    none of it and nothing is remembered for an answer that was not sent."""

    __slots__ = ("_after", "attempt", "sink", "stderr", "stdout")

    def __init__(self, attempt: telemetry.Attempt | None, sink: telemetry.Sink | None) -> None:
        self.stdout = b""
        self.stderr = ""
        self.attempt = attempt
        self.sink = sink
        self._after: list[Callable[[], None]] = []

    def finish(self, delivered: bool = True) -> None:
        """Run the deferred work (only the telemetry when the answer was not delivered)."""
        if self.attempt is not None:
            self.attempt.stop()
        if delivered:
            for step in self._after:
                try:
                    step()
                except Exception:  # memory and telemetry never cost a turn
                    continue
        if self.attempt is not None and delivered:
            self.attempt.close()


def _found(options: dict[str, Any], payload: dict[str, Any], cwd: str,
           environ: Mapping[str, str]) -> Found:
    """The index the turn reads: :func:`gov.core.index.locate.find_index`, the one search."""
    return find_index(options["index"], cwd=cwd, environ=environ, payload=payload)


def _index_for(options: dict[str, Any], payload: dict[str, Any], cwd: str,
               environ: Mapping[str, str]) -> str:
    return _found(options, payload, cwd, environ).path


def _checked_paths(options: dict[str, Any], payload: dict[str, Any], cwd: str,
                   environ: Mapping[str, str]) -> tuple[str, str | None]:
    index, point, _shown = _checked(options, payload, cwd, environ)
    return index, point


def _checked(options: dict[str, Any], payload: dict[str, Any], cwd: str,
             environ: Mapping[str, str]) -> tuple[str, str | None, bool]:
    """The index, the operating point, and whether the paragraph must name the index
    (``gov show`` run from the payload's folder would not find it by itself)."""
    from ..index.locate import no_index

    found = _found(options, payload, cwd, environ)
    point = os.path.abspath(os.path.join(cwd, options["point"])) if options["point"] else None
    if not found.exists:
        raise HookProblem(str(no_index(found.path, corpus_option=False)), "index_load")
    if point is not None and not os.path.isfile(point):
        raise HookProblem(f"operating point {point} not found", "index_load")
    walked = found.source.startswith(("the payload's cwd", "the working folder"))
    return found.path, point, not walked


def _json_line(obj: dict[str, Any]) -> bytes:
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8") + b"\n"  # a lone surrogate raises: no output


def run(argv: list[str], data: bytes, *, cwd: str, environ: Mapping[str, str], start: float,
        backend: Backend, sink: telemetry.Sink | None = None) -> Turn:
    """One turn from the hook's argv and stdin bytes to its stdout bytes and stderr line.

    ``cwd`` and ``environ`` are the hook process's; ``start`` is its start on the
    ``perf_counter`` clock; ``sink`` receives the telemetry event (default: the active
    sink). Never raises; call :meth:`Turn.finish` once the output is delivered.
    """
    attempt = telemetry.attempt("hook", start=start, sink=sink)
    turn = Turn(attempt, sink)
    quiet = False
    try:
        options = parse_args(argv)
        if options is None:
            turn.attempt = None
            return turn
        payload = read_payload(data)
        kind, _name = harness.event_of(payload)
        host = harness.host_of(options["harness"], payload)
        if kind != harness.PROMPT:
            turn.attempt = None  # not a route attempt: no route event
            quiet = kind == harness.POST_TOOL
        _dispatch(turn, kind, host, options, payload, cwd, environ, backend)
    except BaseException as exc:
        failure = getattr(exc, "failure_class", None)
        if turn.attempt is not None:
            turn.attempt.fail(failure if isinstance(failure, str) else exc)
        turn.stdout = b""
        if not quiet:
            turn.stderr = _one_line(exc)
        if not isinstance(exc, Exception):
            raise
    return turn


def _one_line(exc: BaseException) -> str:
    if isinstance(exc, (HookProblem, harness.UnknownEvent)) or hasattr(exc, "exit_code"):
        message = str(exc)
    else:
        message = f"{type(exc).__name__}: {exc}"
    first = message.splitlines()[0] if message.strip() else type(exc).__name__
    return "gov hook: " + first.replace("\0", " ")[:500]


def _session(backend: Backend, payload: dict[str, Any], index: str) -> tuple[str, Session] | None:
    """The session's key and record (adopted from a state file the first time), or None."""
    session_id = harness.session_of(payload)
    if session_id is None or backend.sessions is None:
        return None
    store = backend.sessions
    key = session_key(session_id, index)
    with store.lock:
        return key, store.get(key, adopt=lambda: backend.adopt(key, index))


def _dispatch(turn: Turn, kind: str, host: str, options: dict[str, Any], payload: dict[str, Any],
              cwd: str, environ: Mapping[str, str], backend: Backend) -> None:
    if kind == harness.PROMPT:
        prompt = _prompt_of(payload)
        if host not in harness.PROMPT_CONTEXT:
            turn.attempt = None  # the host drops prompt output: no route, no event
            index = _index_for(options, payload, cwd, environ)
            counted = _session(backend, payload, index) if os.path.isfile(index) else None
            if counted is not None and backend.sessions is not None:
                with backend.sessions.lock:
                    counted[1].turn += 1  # turns still count: reads are timed in turns
            return
        index, point, named = _checked(options, payload, cwd, environ)
        # gov show finds the nearest index itself; any other is named in the paragraph
        shown = index if named else None
        _prompt_turn(turn, host, options, payload, prompt, index, point, backend, shown)
        return
    index, point = _checked_paths(options, payload, cwd, environ)
    found = _session(backend, payload, index)
    if kind == harness.POST_TOOL:
        if found is not None:
            tool_turn(turn, found, payload, cwd, index, point, backend)
        return
    if found is not None and harness.forgets_context(kind, payload):
        store = backend.sessions
        assert store is not None
        with store.lock:
            found[1].forget_context()
    if kind == harness.SESSION_START and host in harness.START_CONTEXT:
        output = harness.start_output(host, catalogue(backend.names(index, point)))
        if output is not None:
            turn.stdout = _json_line(output)


def _prompt_turn(turn: Turn, host: str, options: dict[str, Any], payload: dict[str, Any],
                 prompt: str, index: str, point: str | None, backend: Backend,
                 shown: str | None = None) -> None:
    attempt = turn.attempt
    assert attempt is not None
    found = _session(backend, payload, index)
    session = found[1] if found is not None else None
    store = backend.sessions
    if found is not None and session is not None and store is not None:
        attempt.session = found[0]
        with store.lock:
            session.turn += 1
    if len(prompt.strip()) < MIN_PROMPT_CHARS:
        attempt.result([])
        return
    answer = backend.route(index, point, prompt[:MAX_PROMPT_CHARS])  # a prefix routes a paste
    attempt.attempts = backend.attempts
    attempt.answered(answer)
    if not answer.routes:
        return
    now = time.time()
    kept: frozenset[str] = frozenset()
    noticed = False
    if session is not None and store is not None and options["memory"] and backend.memory:
        with store.lock:
            kept = frozenset(name for name in answer.names if session.still_in_context(name, now))
            noticed = session.noticed
    output = harness.prompt_output(host, render(answer, harness.cwd_of(payload), kept, shown,
                                                notices=not noticed))
    if output is None:
        return
    turn.stdout = _json_line(output)
    if session is not None and store is not None:
        names, pasted = answer.names, [name for name in answer.names if name not in kept]

        said = bool(answer.notices)

        def remember() -> None:
            with store.lock:
                session.note_routed(names, now, pasted)
                session.noticed = session.noticed or said

        turn._after.append(remember)


class InProcess:
    """The backend when no warm server answers: the index is loaded in the hook process.
    No session memory here: it lives in the warm server, which the hook starts on demand."""

    memory = False

    def __init__(self, attempts: int = 1, files: SessionFiles | None = None) -> None:
        self.attempts = attempts
        self.files = files  # read tracking without a server: a state file per session
        self.sessions = SessionStore() if files is not None else None
        self.used = False  # whether the turn needed an index: then a warm server would help
        self._loaded: dict[tuple[str, str | None], Router] = {}

    def route(self, index: str, point: str | None, prompt: str) -> RouteAnswer:
        from ..routing.indexes import load_index
        from ..routing.point import load_operating_point

        self.used = True
        key = (index, point)
        if key not in self._loaded:
            self._loaded[key] = load_index(
                index, operating_point=load_operating_point(point) if point else None)
        return self._loaded[key].route(prompt, record=False)

    def names(self, index: str, point: str | None) -> list[str]:
        from ..index.stored import read_document_names

        self.used = True
        return read_document_names(index)

    def catalogue(self, index: str, point: str | None) -> Catalogue:
        from ..routing.indexes import load_index

        self.used = True
        key = (index, point)
        if key not in self._loaded:
            self._loaded[key] = load_index(index)  # no model is loaded until a route needs it
        return catalogue_of(self._loaded[key])

    def adopt(self, key: str, index: str) -> Session | None:
        """The session's state file, when read tracking keeps one (telemetry is on)."""
        if self.files is None:
            return None
        from ..index.stored import read_document_names

        known = frozenset(read_document_names(index))
        return self.files.load(key, known.__contains__)

    def save_sessions(self) -> None:
        """Write back every session this turn touched (atomically; never raises)."""
        if self.files is None or self.sessions is None:
            return
        for key, session in list(self.sessions._sessions.items()):
            try:
                self.files.save(key, session)
            except (OSError, ValueError):
                continue
