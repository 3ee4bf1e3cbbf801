"""Session memory: what gov routed in each harness session, so a turn need not repeat it.

Harness payloads carry an opaque session id. Within one session, a document pasted into
the agent's context with its evidence is still there a turn later; naming it again costs
a few bytes ("still applies: NAME"), not a paragraph. The same record tells whether the
agent later opened a document it had been routed (``note_read``).

Privacy: a session is keyed by a hash of its id (never the id), and holds only document
names the index knows, turn numbers and times. :class:`SessionStore` lives in the warm
server's memory only: bounded (least recently used sessions go first), expiring (idle
sessions and old entries are dropped), never written to disk. Standard library only.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

import orjson

MAX_SESSIONS = 4096
MAX_NAMES = 64  # documents remembered per session; gov routes at most two per turn
IDLE_SECONDS = 6 * 3600.0  # a session idle this long is forgotten
REPEAT_AFTER_TURNS = 50  # a document pasted this many turns ago is pasted again in full
REPEAT_AFTER_SECONDS = 2 * 3600.0  # likewise after this long


def session_key(session_id: str, index: str = "") -> str:
    """A session's key: a hash of its id (and the index it routes against), never the id."""
    digest = hashlib.sha256(b"gov-session\0" + session_id.encode("utf-8", "surrogatepass")
                            + b"\0" + index.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:16]


class Session:
    """One session: the turn count, and per document when it was routed and first read.

    ``routed[name] = [pasted turn, pasted time, routed turn, routed time]``: when the
    document was last put in context in full, and when gov last named it at all;
    ``read[name] = [turn, time]`` of the first time the agent opened it; ``noticed``:
    whether the corpus's divergence notices were said this session (they are said once).
    """

    __slots__ = ("noticed", "read", "routed", "seen", "turn")

    def __init__(self, now: float) -> None:
        self.turn = 0
        self.routed: dict[str, list[float]] = {}
        self.read: dict[str, list[float]] = {}
        self.seen = now
        self.noticed = False

    def still_in_context(self, name: str, now: float) -> bool:
        """Whether ``name`` was pasted in full recently enough to name it in a few bytes."""
        entry = self.routed.get(name)
        return entry is not None and (self.turn - entry[0] < REPEAT_AFTER_TURNS
                                      and now - entry[1] < REPEAT_AFTER_SECONDS)

    def note_routed(self, names: Iterable[str], now: float, pasted: Iterable[str]) -> None:
        """Record this turn's routes; ``pasted`` are those shown in full this turn."""
        full = set(pasted)
        for name in names:
            entry = self.routed.pop(name, None)
            if entry is None or name in full:
                entry = [self.turn, now, self.turn, now]
            else:
                entry[2], entry[3] = self.turn, now
            self.routed[name] = entry  # most recent last, so the oldest go first
        while len(self.routed) > MAX_NAMES:
            del self.routed[next(iter(self.routed))]

    def note_read(self, name: str, now: float) -> tuple[bool, bool, int | None, float | None]:
        """Record that the agent opened ``name``: (whether this read is news — the first in
        the session, or the first since gov last named it —, whether gov had routed it in
        this session, and turns and seconds since gov last named it)."""
        entry = self.routed.get(name)
        last = self.read.get(name)
        news = last is None or (entry is not None and entry[3] > last[1])
        if last is not None or len(self.read) < MAX_NAMES:
            self.read[name] = [self.turn, now]
        if entry is None:
            return news, False, None, None
        return news, True, int(max(0, self.turn - entry[2])), round(max(0.0, now - entry[3]), 3)

    def forget_context(self) -> None:
        """The agent's context was cleared or compacted: paste everything in full again."""
        for entry in self.routed.values():
            entry[0] = -REPEAT_AFTER_TURNS
        self.noticed = False

    def to_json(self) -> dict[str, Any]:
        return {"turn": self.turn, "routed": self.routed, "read": self.read, "seen": self.seen,
                "noticed": self.noticed}

    @classmethod
    def from_json(cls, data: Any, known: Callable[[str], bool]) -> Session | None:
        """A session read back from a state file; None unless every value has its shape.
        Names the index does not know are dropped."""
        try:
            session = cls(float(data["seen"]))
            session.turn = int(data["turn"])
            session.noticed = data.get("noticed") is True
            for field, size in (("routed", 4), ("read", 2)):
                entries = data[field]
                if not isinstance(entries, dict):
                    return None
                kept: dict[str, list[float]] = getattr(session, field)
                for name, entry in list(entries.items())[:MAX_NAMES]:
                    if known(name) and isinstance(entry, list) and len(entry) == size:
                        kept[name] = [float(value) for value in entry]
        except (KeyError, TypeError, ValueError):
            return None
        return session


class SessionStore:
    """Sessions in memory, bounded and expiring; safe to share between server threads."""

    def __init__(self, max_sessions: int = MAX_SESSIONS, idle_seconds: float = IDLE_SECONDS,
                 clock: Callable[[], float] = time.time) -> None:
        self.max_sessions = max_sessions
        self.idle_seconds = idle_seconds
        self.clock = clock
        self.lock = threading.Lock()
        self._sessions: OrderedDict[str, Session] = OrderedDict()

    def __len__(self) -> int:
        return len(self._sessions)

    def get(self, key: str, adopt: Callable[[], Session | None] | None = None) -> Session:
        """The session under ``key`` (made, or adopted from ``adopt()``, when new). Hold
        :attr:`lock` while reading or changing it."""
        now = self.clock()
        session = self._sessions.get(key)
        if session is not None and now - session.seen > self.idle_seconds:
            del self._sessions[key]
            session = None
        if session is None:
            session = (adopt() if adopt is not None else None) or Session(now)
            self._sessions[key] = session
            self._expire(now)
        else:
            self._sessions.move_to_end(key)
        session.seen = now
        return session

    def _expire(self, now: float) -> None:
        while len(self._sessions) > self.max_sessions:
            self._sessions.popitem(last=False)
        oldest = next(iter(self._sessions.values()), None)
        while oldest is not None and now - oldest.seen > self.idle_seconds:
            self._sessions.popitem(last=False)
            oldest = next(iter(self._sessions.values()), None)


class SessionFiles:
    """The fallback when no warm server answers: one small state file per session.

    Only for read tracking (session memory stays in the server): a file named by the
    session key in the runtime folder's ``sessions/``, holding the same hashed, name-only
    record, written atomically (0600) and removed after :data:`IDLE_SECONDS` idle. The
    warm server takes a session's file over (and deletes it) the first time it sees it.
    """

    def __init__(self, folder: str) -> None:
        self.folder = folder

    def _path(self, key: str) -> str:
        if len(key) != 16 or not all(c in "0123456789abcdef" for c in key):
            raise ValueError("not a session key")
        return os.path.join(self.folder, key + ".json")

    def load(self, key: str, known: Callable[[str], bool]) -> Session | None:
        try:
            with open(self._path(key), "rb") as handle:
                data = orjson.loads(handle.read(1 << 20))
        except (OSError, ValueError):
            return None
        session = Session.from_json(data, known)
        if session is not None and time.time() - session.seen > IDLE_SECONDS:
            return None
        return session

    def take(self, key: str, known: Callable[[str], bool]) -> Session | None:
        session = self.load(key, known)
        with contextlib.suppress(OSError, ValueError):
            os.unlink(self._path(key))
        return session

    def save(self, key: str, session: Session) -> None:
        from ..atomic import write_bytes_atomic

        os.makedirs(self.folder, mode=0o700, exist_ok=True)
        write_bytes_atomic(self._path(key), orjson.dumps(session.to_json()), mode=0o600)
        self._prune()

    def _prune(self) -> None:
        now = time.time()
        with contextlib.suppress(OSError):
            for entry in os.scandir(self.folder):
                with contextlib.suppress(OSError):
                    if entry.name.endswith(".json") and now - entry.stat().st_mtime > IDLE_SECONDS:
                        os.unlink(entry.path)
