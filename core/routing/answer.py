"""The route answer: the one type every adapter renders, and its one JSON form.

A route is answered once, as a :class:`RouteAnswer`; the warm server sends its JSON form
(:meth:`RouteAnswer.to_wire`), and every adapter renders it from there: ``gov route``
writes :meth:`RouteAnswer.row`, the hook renders a paragraph
(:mod:`gov.core.serving.hook_context`), MCP returns a tool result, and telemetry records
:meth:`RouteAnswer.event_fields`. Plain classes, standard library only: the hook and the
one-shot route read a served answer without importing numpy (or even ``dataclasses``).
"""

from __future__ import annotations

from typing import Any

# The fields gov adds to a routed row; an input row's own values for them are replaced.
GOV_KEYS = ("routes", "degraded", "confidence", "notices", "explain", "error")


def _rounded(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


class Route:
    """One routed document: the fused score that ordered it, each raw score, the evidence."""

    __slots__ = ("dependency_of", "lexical", "name", "score", "semantic", "why")

    def __init__(self, name: str, score: float, lexical: float | None, semantic: float | None,
                 why: str, dependency_of: str | None = None) -> None:
        self.name = name
        self.score = score
        self.lexical = lexical
        self.semantic = semantic
        self.why = why
        self.dependency_of = dependency_of

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "score": round(self.score, 6),
            "lexical": _rounded(self.lexical, 6),
            "semantic": _rounded(self.semantic, 6),
            "why": self.why,
        }
        if self.dependency_of is not None:
            out["dependency_of"] = self.dependency_of
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Route:
        return cls(data["name"], float(data["score"]), data.get("lexical"), data.get("semantic"),
                   data.get("why") or "", data.get("dependency_of"))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Route) and self.to_json() == other.to_json()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Route({self.to_json()!r})"


class RouteAnswer:
    """The routes for one prompt (empty: abstained), the notices that apply, and where the
    answer came from (corpus size, fingerprint, operating point, route time)."""

    __slots__ = ("confidence", "corpus_size", "degraded", "explain", "fingerprint", "notices",
                 "operating_point_id", "reason", "route_ms", "routes", "sources")

    def __init__(self, routes: list[Route], *, degraded: str | None = None,
                 confidence: float | None = None, notices: list[str] | None = None,
                 sources: dict[str, str] | None = None, corpus_size: int | None = None,
                 fingerprint: str | None = None, operating_point_id: str | None = None,
                 route_ms: float | None = None, reason: str | None = None,
                 explain: dict[str, Any] | None = None) -> None:
        self.routes = routes
        self.degraded = degraded
        self.confidence = confidence
        self.notices = notices if notices is not None else []
        self.sources = sources if sources is not None else {}
        self.corpus_size = corpus_size
        self.fingerprint = fingerprint
        self.operating_point_id = operating_point_id
        self.route_ms = route_ms
        # The rule that made gov route or abstain, in one sentence; ``explain`` (asked for)
        # adds the nearest documents with each signal's score and the thresholds in force.
        self.reason = reason
        self.explain = explain

    @property
    def names(self) -> list[str]:
        return [route.name for route in self.routes]

    @property
    def chosen(self) -> list[Route]:
        """The routes the router chose (dependency expansions left out)."""
        return [route for route in self.routes if route.dependency_of is None]

    # -- the JSON form (the warm server's reply) ------------------------------------------
    def to_wire(self) -> dict[str, Any]:
        return {
            "ok": True,
            "routes": [route.to_json() for route in self.routes],
            "degraded": self.degraded,
            "confidence": _rounded(self.confidence, 4),
            "notices": list(self.notices),
            "sources": dict(self.sources),
            "corpus_size": self.corpus_size,
            "fingerprint": self.fingerprint,
            "operating_point_id": self.operating_point_id,
            "route_ms": self.route_ms,
            "reason": self.reason,
            "explain": self.explain,
        }

    @classmethod
    def from_wire(cls, data: dict[str, Any]) -> RouteAnswer:
        """An answer from its JSON form; ``KeyError``/``TypeError``/``ValueError`` when the
        form is not one (a caller falls back to routing in-process)."""
        routes = data["routes"]
        if not isinstance(routes, list):
            raise TypeError("routes must be a list")
        return cls([Route.from_json(route) for route in routes], degraded=data.get("degraded"),
                   confidence=data.get("confidence"), notices=list(data.get("notices") or ()),
                   sources=dict(data.get("sources") or {}), corpus_size=data.get("corpus_size"),
                   fingerprint=data.get("fingerprint"),
                   operating_point_id=data.get("operating_point_id"),
                   route_ms=data.get("route_ms"), reason=data.get("reason"),
                   explain=data.get("explain"))

    # -- renderings -------------------------------------------------------------------------
    def row(self, record: dict[str, Any]) -> dict[str, Any]:
        """The row ``gov route`` writes: ``record`` without gov's own keys, then the answer."""
        out = {key: value for key, value in record.items() if key not in GOV_KEYS}
        out["routes"] = [route.to_json() for route in self.routes]
        if self.degraded:
            out["degraded"] = self.degraded
        if self.confidence is not None:
            out["confidence"] = round(self.confidence, 4)
        if self.notices:
            out["notices"] = list(self.notices)
        if self.explain is not None:
            out["explain"] = self.explain
        return out

    def event_fields(self) -> dict[str, Any]:
        """What a telemetry event records of this answer (names, never text)."""
        names = self.names
        return {"routes": names, "route_ms": self.route_ms, "degraded": bool(self.degraded),
                "corpus_size": self.corpus_size, "index_fingerprint": self.fingerprint,
                "operating_point_id": self.operating_point_id, "known": frozenset(names)}

    def __eq__(self, other: object) -> bool:
        """Equal answers route alike; how long each took is a measurement, not the answer."""
        if not isinstance(other, RouteAnswer):
            return NotImplemented
        mine, theirs = self.to_wire(), other.to_wire()
        mine.pop("route_ms")
        theirs.pop("route_ms")
        return mine == theirs

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RouteAnswer({self.to_wire()!r})"



def error_row(line: int, message: str) -> dict[str, Any]:
    """The row ``gov route`` writes in place of an input line it could not route."""
    return {"error": {"line": line, "message": message}}
