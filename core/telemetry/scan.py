"""The one pass a telemetry report makes over the log, in memory that does not grow.

Events whose fixed fields agree (schema, day, outcome, failure class, degraded, adapter,
index, operating point) share one counter, checked once per combination; per event only the
latencies (binned inline into fixed log-spaced bins), the routes and the time are looked
at. :mod:`gov.core.telemetry.report` turns what this gathers into the report.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

import orjson

from .events import FAILURE_CLASSES
from .latency import INV_LOG_R, INV_LOW, LOW_MS, TOP_BIN, LatencyHistogram
from .reads import ReadTally as _Reads

MAX_NAMES = 65536  # distinct document names tracked; a hostile log cannot grow memory past it
MAX_IDS = 256  # distinct index fingerprints and operating points tracked
MAX_ADAPTERS = 16
_DAY_SHAPE = "dddd-dd-dd"
_ADAPTER_MAX = 16
MAX_GROUPS = 100_000  # distinct (day, outcome, class, ...) combinations kept apart
_UNSEEN: list[Any] = []


def _is_day(text: object) -> bool:
    return type(text) is str and len(text) == 10 and all(
        ("0" <= c <= "9") if s == "d" else c == s for c, s in zip(text, _DAY_SHAPE, strict=True)
    )


def _group_of(key: tuple[Any, ...]) -> list[Any] | None:
    """A new counter for an event's fixed fields, or None if they are not a gov v1 event.

    Checked once per distinct combination rather than once per event: a month of events
    has only a few hundred combinations.
    """
    version, day, outcome, failure, degraded, adapter, fingerprint, point = key
    if type(version) is not int or version not in (1, 2) or not _is_day(day):
        return None
    if outcome not in ("routed", "abstained", "failed") or type(degraded) is not bool:
        return None
    if outcome == "failed":
        if failure not in FAILURE_CLASSES:
            failure = "unknown"
    elif failure is not None:
        return None
    if type(adapter) is not str or len(adapter) > _ADAPTER_MAX:
        return None
    if not all(v is None or type(v) is str for v in (fingerprint, point)):
        return None
    return [0, outcome == "routed", key]


class Scanned(NamedTuple):
    """What the one pass over the log leaves: counters per group of fixed fields, per
    document and per adapter, the two latency histograms and what was skipped."""

    groups: dict[tuple[Any, ...], list[Any] | None]
    docs: dict[str, int]
    other_names: int
    by_adapter: dict[str, tuple[LatencyHistogram, LatencyHistogram]]
    reads: _Reads
    delivered: LatencyHistogram
    warm: LatencyHistogram
    first: str
    last: str
    skipped: dict[str, int]


# A read event's verdict from ReadTally.add, as the skipped-lines counter it adds to.
_READ_SKIPS = {"older": "before_since", "other_index": "other_index", "foreign": "foreign"}


def scan_log(lines: Iterable[bytes], since: str | None, fingerprint: str | None) -> Scanned:
    """The one pass over the log: counts each event :func:`_events` accepts. Every
    per-event cost is here, so the state lives in locals and only rare paths call out."""
    delivered, warm = LatencyHistogram(), LatencyHistogram()
    d_counts, w_counts = delivered.counts, warm.counts
    d_low = w_low = math.inf
    d_high = w_high = -math.inf
    groups: dict[tuple[Any, ...], list[Any] | None] = {}
    docs: dict[str, int] = {}
    by_adapter: dict[str, tuple[LatencyHistogram, LatencyHistogram]] = {}
    reads = _Reads()
    skipped = dict.fromkeys(("torn", "foreign", "newer_schema", "before_since", "other_index"), 0)
    other_names = 0
    first, last = "\uffff", ""
    accepted = _events(lines, since, fingerprint, groups, reads, skipped)
    for group, adapter, ts, ms, d_bin, ms2, w_bin, routes, event in accepted:
        group[0] += 1
        adapter_hists = by_adapter.get(adapter)
        if adapter_hists is None and len(by_adapter) < MAX_ADAPTERS:
            adapter_hists = by_adapter[adapter] = (LatencyHistogram(), LatencyHistogram())
        if adapter_hists is not None:
            if d_bin >= 0:
                adapter_hists[0].add(ms)
            if w_bin >= 0:
                adapter_hists[1].add(ms2)
        session = event.get("session") if routes else None
        if ts < first:
            first = ts
        if ts > last:
            last = ts
        if d_bin >= 0:
            d_counts[d_bin] += 1
            if ms < d_low:
                d_low = ms
            if ms > d_high:
                d_high = ms
        if w_bin >= 0:
            w_counts[w_bin] += 1
            if ms2 < w_low:
                w_low = ms2
            if ms2 > w_high:
                w_high = ms2
        for name in routes:
            if type(name) is str:
                if name in docs:
                    docs[name] += 1
                elif len(docs) < MAX_NAMES:
                    docs[name] = 1
                else:
                    other_names += 1
                if type(session) is str:
                    reads.routed(session, name, ts[:10])
    delivered.n, delivered.low, delivered.high = sum(d_counts), d_low, d_high
    warm.n, warm.low, warm.high = sum(w_counts), w_low, w_high
    return Scanned(groups, docs, other_names, by_adapter, reads, delivered, warm, first, last,
                    skipped)


def _events(
    lines: Iterable[bytes],
    since: str | None,
    fingerprint: str | None,
    groups: dict[tuple[Any, ...], list[Any] | None],
    reads: _Reads,
    skipped: dict[str, int],
) -> Iterator[tuple[Any, ...]]:
    """Parse each line and yield the route events the report counts, as (group, adapter,
    ts, delivered ms, its bin, route ms, its bin, routes, event); a bin is -1 for no
    latency. Read events go to ``reads``; every line left out adds to ``skipped`` under
    its reason (torn, foreign, newer schema, before ``since``, another index)."""
    loads, decode_error = orjson.loads, orjson.JSONDecodeError
    log, low, inv_low, inv_log_r, top_bin = math.log, LOW_MS, INV_LOW, INV_LOG_R, TOP_BIN
    for raw in lines:
        try:
            event = loads(raw)
            if event.get("kind") == "read":
                verdict = reads.add(event, since, fingerprint)
                if verdict in _READ_SKIPS:
                    skipped[_READ_SKIPS[verdict]] += 1
                continue
            ts = event["ts"]
            key = (event["v"], ts[:10], event["outcome"], event["failure_class"],
                   event["degraded"], event["adapter"], event["index_fingerprint"],
                   event["operating_point_id"])
            group = groups.get(key, _UNSEEN)
            if group is _UNSEEN:
                group = _new_group(groups, key)
            if group is None or len(ts) != 24:
                raise TypeError
            ms = event["delivered_ms"]
            d_bin = -1 if ms is None else (
                0 if ms <= low else min(int(log(ms * inv_low) * inv_log_r) + 1, top_bin))
            ms2 = event["route_ms"]
            w_bin = -1 if ms2 is None else (
                0 if ms2 <= low else min(int(log(ms2 * inv_low) * inv_log_r) + 1, top_bin))
            routes = event["routes"] if group[1] else ()
            if type(routes) not in (list, tuple):
                raise TypeError
        except decode_error:
            if raw.strip():
                skipped["torn"] += 1
            continue
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            newer = type(event) is dict and type(event.get("v")) is int and event["v"] > 2
            skipped["newer_schema" if newer else "foreign"] += 1
            continue
        if since is not None and ts < since:
            skipped["before_since"] += 1
        elif fingerprint is not None and key[6] != fingerprint:
            skipped["other_index"] += 1
        else:
            yield group, key[5], ts, ms, d_bin, ms2, w_bin, routes, event


def _new_group(groups: dict[tuple[Any, ...], list[Any] | None],
               key: tuple[Any, ...]) -> list[Any] | None:
    """The counter for a combination seen for the first time. Past MAX_GROUPS
    combinations the index and operating-point ids are folded away, so a hostile log
    cannot grow memory."""
    group = _group_of(key)
    if len(groups) < MAX_GROUPS:
        groups[key] = group
    elif group is not None:  # too many combinations: fold ids away
        folded = (*key[:6], None, None)
        group = groups.get(folded) or groups.setdefault(folded, _group_of(folded))
    return group


class Tally(NamedTuple):
    """The groups' counters summed by outcome, failure class, adapter, day and id."""

    outcomes: dict[str, int]
    failed_by: dict[str, int]
    adapters: dict[str, int]
    days: dict[str, list[int]]
    fingerprints: dict[str, int]
    points: dict[str, int]
    degraded: int


def tally_groups(groups: dict[tuple[Any, ...], list[Any] | None]) -> Tally:
    """Sum the groups' counters per field: done once per distinct combination after the
    pass, not once per event."""
    outcomes = {"routed": 0, "abstained": 0, "failed": 0}
    failed_by: dict[str, int] = {}
    adapters: dict[str, int] = {}
    days: dict[str, list[int]] = {}
    fingerprints: dict[str, int] = {}
    points: dict[str, int] = {}
    degraded = 0
    slots = {"routed": 0, "abstained": 1, "failed": 2}
    for group in groups.values():
        if not group or not group[0]:
            continue
        count = group[0]
        _, day, outcome, failure, is_degraded, adapter, fingerprint, point = group[2]
        outcomes[outcome] += count
        days.setdefault(day, [0, 0, 0])[slots[outcome]] += count
        if outcome == "failed":
            failure = failure if failure in FAILURE_CLASSES else "unknown"
            failed_by[failure] = failed_by.get(failure, 0) + count
        degraded += count if is_degraded else 0
        adapters[adapter] = adapters.get(adapter, 0) + count
        for ids, value in ((fingerprints, fingerprint), (points, point)):
            if value is not None and (value in ids or len(ids) < MAX_IDS):
                ids[value] = ids.get(value, 0) + count
    return Tally(outcomes, failed_by, adapters, days, fingerprints, points, degraded)
