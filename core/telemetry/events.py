"""Telemetry events: what one event may hold, checked field by field.

A router that stopped working looks exactly like one that is appropriately quiet; route
events tell the two apart. Read events tell a useful router from a useless one: whether
the agent opened a document gov had routed to it in the same harness session. Neither can
collect secrets: an event holds enums, numbers, hashes and document names, and nothing
else. There is no free-text field, so prompt text, paths and tokens have nowhere to go;
a session is the hash of its id. Sinks are in :mod:`gov.core.telemetry.sinks`, the adapter
helper in :mod:`gov.core.telemetry.attempt`; ``gov.core.telemetry`` re-exports all three.
"""

from __future__ import annotations

import math
import time
from collections.abc import Collection, Iterable, Mapping
from typing import Any, Literal

from .. import __version__

SCHEMA_VERSION = 2  # 2 added kind, session, read events and the cli-stream adapter
ENV_PATH = "GOV_TELEMETRY_PATH"

Outcome = Literal["routed", "abstained", "failed"]
Adapter = Literal["hook", "cli", "cli-stream", "mcp", "server", "library"]
Via = Literal["show", "file", "mcp"]

OUTCOMES: tuple[str, ...] = ("routed", "abstained", "failed")
FAILURE_CLASSES: tuple[str, ...] = (
    "input", "corpus_load", "index_load", "index_build", "route", "render",
)
# cli: a one-shot `gov route PROMPT`; cli-stream: each row of `gov route` over a stream.
ADAPTERS: tuple[str, ...] = ("hook", "cli", "cli-stream", "mcp", "server", "library")
VIAS: tuple[str, ...] = ("show", "file", "mcp")
KINDS: tuple[str, ...] = ("route", "read")
FIELDS: tuple[str, ...] = (
    "ts", "v", "kind", "outcome", "failure_class", "degraded", "corpus_size",
    "index_fingerprint", "operating_point_id", "adapter", "delivered_ms", "route_ms", "routes",
    "attempts", "session", "gov_version",
)
READ_FIELDS: tuple[str, ...] = (
    "ts", "v", "kind", "adapter", "session", "document", "via", "routed", "turns_since_route",
    "seconds_since_route", "index_fingerprint", "gov_version",
)

#: Stands in for a route whose name did not pass the name check, so the outcome is
#: still counted while the value is kept out.
WITHHELD = "<withheld>"

MAX_NAME = 200  # as the corpus allows
MAX_ROUTES = 16  # gov returns at most 2; room for other routers, never for a dump.
_NAME_PUNCT = frozenset("_-.+")
# Names a document would never have but a file would: a source file name is a path leak.
_FILE_SUFFIXES = frozenset((
    "md", "mdc", "markdown", "txt", "json", "jsonl", "yaml", "yml", "toml", "py", "rst", "html",
    "htm", "pdf", "csv", "log", "env", "key", "pem",
))
# Shapes of well-known credentials; a document name starting like this is withheld.
_SECRET_PREFIXES = (
    "sk-", "sk_", "rk_live", "rk_test", "pk_live", "pk_test", "ghp_", "gho_", "ghu_", "ghs_",
    "ghr_", "github_pat_", "glpat-", "xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-", "xapp-",
    "AKIA", "ASIA", "AIza", "eyJ", "npm_", "hf_", "pypi-", "shpat_", "whsec_", "SG.",
    "dop_v1_", "AGE-SECRET",
)
_HEX = frozenset("0123456789abcdef")

_STATS: dict[str, int] = {"emitted": 0, "sink_errors": 0, "invalid": 0, "withheld": 0,
                          "otel_errors": 0, "otel_export_failures": 0}


# --- checking values ----------------------------------------------------------------


def _secret_shaped(name: str) -> bool:
    if name.startswith(_SECRET_PREFIXES):
        return True
    for segment in name.replace("-", "_").replace(".", "_").split("_"):
        if len(segment) >= 32 and all(c in _HEX for c in segment.lower()):
            return True
        if len(segment) >= 20 and any(c.isdigit() for c in segment) and any(
            c.isalpha() for c in segment
        ):
            return True
    return False


def is_document_name(name: object) -> bool:
    """Whether ``name`` has the shape of a document name and of nothing else.

    A name is a short token of letters, digits and ``_-.+``: no space (so no prose),
    no slash, backslash or colon (so no path or URL), no ``=`` or ``@`` (so no
    ``key=value`` or address), no file suffix such as ``.md`` (so no source file name),
    and nothing shaped like a credential. Membership in the corpus is checked
    separately, through ``known``.
    """
    if type(name) is not str or not 0 < len(name) <= MAX_NAME:
        return False
    first = name[0]
    if not (first.isalnum() or first == "_") or ".." in name:
        return False
    if not all(c.isalnum() or c in _NAME_PUNCT for c in name):
        return False
    stem, dot, suffix = name.rpartition(".")
    if dot and stem and suffix.lower() in _FILE_SUFFIXES:
        return False
    return not _secret_shaped(name)


def is_session(value: object) -> bool:
    """Whether ``value`` is a session key: 16 lowercase hex digits (a hash, never an id)."""
    return type(value) is str and len(value) == 16 and all(c in _HEX for c in value)


def is_digest(value: object) -> bool:
    """Whether ``value`` is a hex digest, optionally ``algo:``-prefixed (``sha256:ab12…``)."""
    if type(value) is not str or len(value) > 160:
        return False
    algo, colon, digest = value.rpartition(":")
    if colon and not (0 < len(algo) <= 16 and algo.isascii() and algo.isalnum()):
        return False
    return 8 <= len(digest) <= 128 and all(c in _HEX for c in digest)


_TS_SHAPE = "dddd-dd-ddTdd:dd:dd.dddZ"


def _is_ts(value: object) -> bool:
    # The one timestamp shape gov writes: 2026-12-02T11:44:15.123Z.
    return (
        type(value) is str
        and len(value) == len(_TS_SHAPE)
        and all(
            ("0" <= c <= "9") if s == "d" else c == s
            for c, s in zip(value, _TS_SHAPE, strict=True)
        )
    )


def _ms(value: object, field: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
        if math.isfinite(number) and number >= 0:
            return round(number, 3)
    raise ValueError(f"{field} must be a finite number of milliseconds >= 0 or None")


def rfc3339(epoch: float) -> str:
    """``epoch`` seconds as RFC 3339 UTC with milliseconds: ``2026-12-02T11:44:15.123Z``."""
    whole, ms = divmod(int(epoch * 1000), 1000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + f".{ms:03d}Z"


# --- building events ----------------------------------------------------------------


def make_event(
    *,
    outcome: Outcome,
    adapter: Adapter,
    routes: Iterable[str] = (),
    failure_class: str | None = None,
    degraded: bool = False,
    corpus_size: int | None = None,
    index_fingerprint: str | None = None,
    operating_point_id: str | None = None,
    delivered_ms: float | None = None,
    route_ms: float | None = None,
    attempts: int = 1,
    session: str | None = None,
    known: Collection[str] | None = None,
    ts: float | None = None,
    strict: bool = True,
) -> dict[str, Any]:
    """Build one checked route event, or raise :class:`ValueError` saying what is wrong.

    Invariants: ``failed`` carries a failure class and no routes; ``routed`` carries at
    least one name; ``abstained`` carries none and no class. Every value must be an enum,
    a number, a digest or a document name (see :func:`is_document_name`; with ``known``,
    the names must also be in it). With ``strict=False`` a bad name becomes
    :data:`WITHHELD` and a bad digest becomes ``None`` instead of raising, so an odd
    corpus never silences telemetry; a bad outcome, class, adapter or number still raises.
    ``ts`` (epoch seconds) defaults to now. Error messages never quote the bad value.
    """
    if ts is not None and (type(ts) not in (int, float) or not math.isfinite(ts) or ts < 0):
        raise ValueError("ts must be epoch seconds")
    return _build(
        ts=rfc3339(time.time() if ts is None else ts),
        version=__version__,
        outcome=outcome,
        adapter=adapter,
        routes=routes,
        failure_class=failure_class,
        degraded=degraded,
        corpus_size=corpus_size,
        index_fingerprint=index_fingerprint,
        operating_point_id=operating_point_id,
        delivered_ms=delivered_ms,
        route_ms=route_ms,
        attempts=attempts,
        session=session,
        known=known,
        strict=strict,
    )


def make_read_event(
    *,
    adapter: Adapter,
    session: str,
    document: str,
    via: Via,
    routed: bool,
    turns_since_route: int | None = None,
    seconds_since_route: float | None = None,
    index_fingerprint: str | None = None,
    known: Collection[str] | None = None,
    ts: float | None = None,
) -> dict[str, Any]:
    """Build one checked read event: the agent opened ``document`` in ``session``.

    ``routed`` says whether gov had routed it earlier in the session; then the delays say
    how long after gov last named it (turns, seconds). ``document`` must be a document
    name (of ``known``, when given) and ``session`` a session key: a read of anything else
    is not recorded. Raises :class:`ValueError` otherwise.
    """
    if ts is not None and (type(ts) not in (int, float) or not math.isfinite(ts) or ts < 0):
        raise ValueError("ts must be epoch seconds")
    if known is not None and document not in known:
        raise ValueError("a read names a document the index does not hold (value withheld)")
    return _build_read(ts=rfc3339(time.time() if ts is None else ts), version=__version__,
                       adapter=adapter, session=session, document=document, via=via,
                       routed=routed, turns_since_route=turns_since_route,
                       seconds_since_route=seconds_since_route,
                       index_fingerprint=index_fingerprint)


def validate_event(event: Mapping[str, Any]) -> dict[str, Any]:
    """Check an event made elsewhere (or edited since) field by field; return a clean copy.

    :func:`emit` runs every event through this, so a dict with an extra key, a wrong
    type or a non-name route never reaches a sink, however it was made.
    """
    if not isinstance(event, Mapping):
        raise ValueError("an event is a mapping")
    kind = event.get("kind")
    expected = READ_FIELDS if kind == "read" else FIELDS
    if set(event) != set(expected):
        raise ValueError(f"a {kind if kind in KINDS else 'route'} event has exactly the keys "
                         f"{', '.join(expected)}")
    if type(event["v"]) is not int or event["v"] != SCHEMA_VERSION:
        raise ValueError(f"v must be {SCHEMA_VERSION}")
    if not _is_ts(event["ts"]):
        raise ValueError("ts must be RFC 3339 UTC with milliseconds")
    if event["gov_version"] != __version__:
        raise ValueError("gov_version must be this gov's version")
    if kind == "read":
        fields = {k: event[k] for k in READ_FIELDS if k not in ("ts", "v", "kind", "gov_version")}
        return _build_read(ts=event["ts"], version=event["gov_version"], **fields)
    if kind != "route":
        raise ValueError("kind must be route or read")
    if type(event["routes"]) is not list:
        raise ValueError("routes must be a list")
    fields = {k: event[k] for k in FIELDS if k not in ("ts", "v", "kind", "gov_version")}
    return _build(ts=event["ts"], version=event["gov_version"], known=None, strict=True,
                  **fields)


def _build_read(*, ts: str, version: str, adapter: object, session: object, document: object,
                via: object, routed: object, turns_since_route: object,
                seconds_since_route: object, index_fingerprint: object) -> dict[str, Any]:
    if type(adapter) is not str or adapter not in ADAPTERS:
        raise ValueError(f"adapter must be one of {', '.join(ADAPTERS)}")
    if not is_session(session):
        raise ValueError("session must be a session key (16 hex digits; value withheld)")
    if not is_document_name(document):
        raise ValueError("document is not a document name (value withheld)")
    if type(via) is not str or via not in VIAS:
        raise ValueError(f"via must be one of {', '.join(VIAS)}")
    if type(routed) is not bool:
        raise ValueError("routed must be True or False")
    if turns_since_route is not None and (type(turns_since_route) is not int
                                          or turns_since_route < 0):
        raise ValueError("turns_since_route must be an int >= 0 or None")
    if not routed and (turns_since_route is not None or seconds_since_route is not None):
        raise ValueError("a read of a document that was not routed has no delays")
    if index_fingerprint is not None and not is_digest(index_fingerprint):
        raise ValueError("index_fingerprint must be a hex digest or None")
    return {
        "ts": ts,
        "v": SCHEMA_VERSION,
        "kind": "read",
        "adapter": adapter,
        "session": session,
        "document": document,
        "via": via,
        "routed": routed,
        "turns_since_route": turns_since_route,
        "seconds_since_route": _ms(seconds_since_route, "seconds_since_route"),
        "index_fingerprint": index_fingerprint,
        "gov_version": version,
    }


def _build(
    *,
    ts: str,
    version: str,
    outcome: object,
    adapter: object,
    routes: Iterable[str],
    failure_class: object,
    degraded: object,
    corpus_size: object,
    index_fingerprint: object,
    operating_point_id: object,
    delivered_ms: object,
    route_ms: object,
    attempts: object,
    session: object,
    known: Collection[str] | None,
    strict: bool,
) -> dict[str, Any]:
    if type(outcome) is not str or outcome not in OUTCOMES:
        raise ValueError(f"outcome must be one of {', '.join(OUTCOMES)}")
    if type(adapter) is not str or adapter not in ADAPTERS:
        raise ValueError(f"adapter must be one of {', '.join(ADAPTERS)}")
    checked = _checked_routes(routes, known, strict)
    _check_outcome(outcome, failure_class, checked)
    if type(degraded) is not bool:
        raise ValueError("degraded must be True or False")
    if corpus_size is not None and (type(corpus_size) is not int or corpus_size < 0):
        raise ValueError("corpus_size must be an int >= 0 or None")
    if type(attempts) is not int or attempts < 1:
        raise ValueError("attempts must be an int >= 1")
    if session is not None and not is_session(session):
        raise ValueError("session must be a session key (16 hex digits; value withheld)")
    digests = _checked_digests(index_fingerprint, operating_point_id, strict)
    return {
        "ts": ts,
        "v": SCHEMA_VERSION,
        "kind": "route",
        "outcome": outcome,
        "failure_class": failure_class,
        "degraded": degraded,
        "corpus_size": corpus_size,
        "index_fingerprint": digests[0],
        "operating_point_id": digests[1],
        "adapter": adapter,
        "delivered_ms": _ms(delivered_ms, "delivered_ms"),
        "route_ms": _ms(route_ms, "route_ms"),
        "routes": checked,
        "attempts": attempts,
        "session": session,
        "gov_version": version,
    }


def _checked_routes(routes: Iterable[str], known: Collection[str] | None,
                    strict: bool) -> list[str]:
    """The event's route names. A name that is not a document name (or not in ``known``)
    may be a prompt pasted by mistake, so it is never written: strict raises, else it is
    replaced by WITHHELD and counted."""
    if isinstance(routes, (str, bytes)):
        raise ValueError("routes must be a list of document names, not one string")
    names = list(routes)
    if len(names) > MAX_ROUTES:
        raise ValueError(f"at most {MAX_ROUTES} routes")
    checked: list[str] = []
    for name in names:
        if name == WITHHELD or (is_document_name(name) and (known is None or name in known)):
            checked.append(name)
        elif strict:
            raise ValueError("a route is not a document name (value withheld)")
        else:
            _STATS["withheld"] += 1
            checked.append(WITHHELD)
    return checked


def _check_outcome(outcome: str, failure_class: object, checked: list[str]) -> None:
    """An outcome and its routes and failure class agree: only a failed event has a
    class and no routes, a routed one has routes, an abstained one none; a report reads
    the outcome as the truth."""
    if outcome == "failed":
        if type(failure_class) is not str or failure_class not in FAILURE_CLASSES:
            raise ValueError(
                f"a failed event needs failure_class, one of {', '.join(FAILURE_CLASSES)}"
            )
        if checked:
            raise ValueError("a failed event has no routes")
    elif failure_class is not None:
        raise ValueError(f"only a failed event has a failure_class, not {outcome}")
    if outcome == "routed" and not checked:
        raise ValueError("a routed event needs at least one document name")
    if outcome == "abstained" and checked:
        raise ValueError("an abstained event has no routes")


def _checked_digests(index_fingerprint: object, operating_point_id: object,
                     strict: bool) -> list[str | None]:
    """The two ids as hex digests; anything else could carry text that must not reach
    the log, so strict raises, else it is dropped (None) and counted as withheld."""
    digests: list[str | None] = []
    for field, value in (("index_fingerprint", index_fingerprint),
                         ("operating_point_id", operating_point_id)):
        if value is None or is_digest(value):
            digests.append(value)  # type: ignore[arg-type]
        elif strict:
            raise ValueError(f"{field} must be a hex digest (optionally algo:-prefixed) or None")
        else:
            _STATS["withheld"] += 1
            digests.append(None)
    return digests
