"""Read rates from a telemetry log: was the route read?

A document routed in a harness session is a *route episode*; the agent then opened it
(read after routing) or never did (routed but never read). A document the agent opened in
a session where gov had not routed it was *read unrouted*: the agent found it itself, a
miss gov could learn from. Episodes are counted per (session, document) pair, in log
order, so a read after the route counts whether or not the hook still remembered the route
(a restarted server, say). Memory: one small record per pair, at most :data:`MAX_PAIRS`.
"""

from __future__ import annotations

from typing import Any

from .latency import LatencyHistogram

MAX_PAIRS = 500_000  # (session, document) pairs tracked
FIX_MIN_ROUTED = 5  # route episodes before a low read rate is worth fixing
FIX_MAX_READ_RATE = 0.3
FIX_MIN_UNROUTED = 3  # unrouted reads before a miss is worth fixing


def _share(count: int, total: int) -> float | None:
    return round(count / total, 4) if total else None


class ReadTally:
    """Route episodes and reads per (session, document), in log order.

    A pair is ``[day first routed or None, read after routing, read unrouted]`` plus, for
    reads after routing, the delays the hook measured.
    """

    def __init__(self) -> None:
        self.pairs: dict[tuple[str, str], list[Any]] = {}
        self.untracked = 0
        self.turns: dict[int, int] = {}
        self.seconds = LatencyHistogram()

    def _pair(self, session: str, name: str) -> list[Any] | None:
        pair = self.pairs.get((session, name))
        if pair is None:
            if len(self.pairs) >= MAX_PAIRS:
                self.untracked += 1
                return None
            pair = self.pairs[(session, name)] = [None, False, False]
        return pair

    def routed(self, session: str, name: str, day: str) -> None:
        pair = self._pair(session, name)
        if pair is not None and pair[0] is None:
            pair[0] = day

    def add(self, event: dict[str, Any], since: str | None, fingerprint: str | None) -> str:
        """Count one read event; what became of it (counted, older, other_index, foreign)."""
        ts, session, name = event.get("ts"), event.get("session"), event.get("document")
        routed, turns, seconds = (event.get("routed"), event.get("turns_since_route"),
                                  event.get("seconds_since_route"))
        if (type(ts) is not str or len(ts) != 24 or event.get("v") != 2 or type(session) is not str
                or type(name) is not str or type(routed) is not bool):
            return "foreign"
        if since is not None and ts < since:
            return "older"
        if fingerprint is not None and event.get("index_fingerprint") != fingerprint:
            return "other_index"
        pair = self._pair(session, name)
        if pair is None:
            return "counted"
        if routed or pair[0] is not None:
            if not pair[1]:
                pair[1] = True
                if pair[0] is None:
                    pair[0] = ts[:10]
                if type(turns) is int and 0 <= turns < 10_000:
                    self.turns[turns] = self.turns.get(turns, 0) + 1
                if isinstance(seconds, (int, float)) and seconds >= 0:
                    self.seconds.add(float(seconds) * 1000.0)
        else:
            pair[2] = True
        return "counted"

    def per_document(self) -> dict[str, list[int]]:
        """name -> [route episodes, read after routing, read unrouted]."""
        docs: dict[str, list[int]] = {}
        for (_, name), (day, after, unrouted) in self.pairs.items():
            row = docs.setdefault(name, [0, 0, 0])
            row[0] += day is not None
            row[1] += after
            row[2] += unrouted
        return docs

    def summary(self) -> dict[str, Any]:
        docs = self.per_document()
        routed = sum(row[0] for row in docs.values())
        after = sum(row[1] for row in docs.values())
        unrouted = sum(row[2] for row in docs.values())
        days: dict[str, list[int]] = {}
        for day, read_after, _ in self.pairs.values():
            if day is not None:
                row = days.setdefault(day, [0, 0])
                row[0] += 1
                row[1] += read_after
        ordered_turns = sorted(self.turns.items())
        half = sum(self.turns.values()) / 2
        running, turns_p50 = 0, None
        for turns, count in ordered_turns:
            running += count
            if running >= half:
                turns_p50 = turns
                break
        seconds = self.seconds.summary()
        return {
            "overall": {"routed": routed, "read_after_routing": after,
                        "read_unrouted": unrouted, "routed_never_read": routed - after,
                        "read_rate": _share(after, routed)},
            "delay": {"turns_p50": turns_p50,
                      "turns_max": ordered_turns[-1][0] if ordered_turns else None,
                      "seconds_p50": _seconds(seconds.get("p50")),
                      "seconds_p90": _seconds(seconds.get("p90"))},
            "documents": [
                {"name": name, "routed": row[0], "read_after_routing": row[1],
                 "read_unrouted": row[2], "routed_never_read": row[0] - row[1],
                 "read_rate": _share(row[1], row[0])}
                for name, row in sorted(docs.items(), key=lambda item: (-item[1][0], item[0]))
            ],
            "days": [{"day": day, "routed": row[0], "read_after_routing": row[1],
                      "read_rate": _share(row[1], row[0])} for day, row in sorted(days.items())],
            "untracked_pairs": self.untracked,
        }

    def fixes(self, top: int) -> list[dict[str, Any]]:
        """What to fix, worst first: documents routed but rarely read, and documents read
        without being routed."""
        found: list[tuple[int, dict[str, Any]]] = []
        for name, (routed, after, unrouted) in self.per_document().items():
            if routed >= FIX_MIN_ROUTED and after / routed <= FIX_MAX_READ_RATE:
                found.append((routed - after, {
                    "name": name, "problem": "rarely_read", "routed": routed, "read": after,
                    "message": f"routed in {routed} sessions, read in {after}: sharpen its "
                               "trigger (it is routed to prompts it does not help)"}))
            if unrouted >= FIX_MIN_UNROUTED:
                found.append((unrouted, {
                    "name": name, "problem": "read_unrouted", "read_unrouted": unrouted,
                    "message": f"read in {unrouted} sessions without being routed: add "
                               "examples of the prompts that led the agent to it"}))
        found.sort(key=lambda item: (-item[0], item[1]["name"], item[1]["problem"]))
        return [item for _, item in found[:top]]


def _seconds(ms: float | None) -> float | None:
    return None if ms is None else round(ms / 1000.0, 3)
