"""Summarize a telemetry log in one pass, in memory that does not grow with the log.

Everything kept is a counter: per outcome, failure class, adapter, day and document,
and latency histograms with fixed log-spaced bins (overall and per adapter). A month of
hook events therefore costs the same memory as an hour of them. The one exception is read
tracking (:mod:`gov.core.telemetry.reads`), which keeps one small record per (session,
document) routed or read, capped. Lines that are not gov events (torn by a crash, written by something
else, from a newer schema) are counted and skipped.

:func:`summarize` returns plain data (the ``--format json`` report); the CLI draws it.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Iterator
from typing import Any, NamedTuple

import orjson

from .events import FAILURE_CLASSES, OUTCOMES, WITHHELD, is_document_name
from .latency import (
    INV_LOG_R,
    INV_LOW,
    LOW_MS,
    MAX_RELATIVE_ERROR,
    TOP_BIN,
    LatencyHistogram,
)
from .reads import ReadTally as _Reads
from .since import parse_since

__all__ = ["parse_since", "summarize"]  # parse_since lives in since.py

MAX_NAMES = 65536  # distinct document names tracked; a hostile log cannot grow memory past it
MAX_IDS = 256  # distinct index fingerprints and operating points tracked
MAX_ADAPTERS = 16

def _share(count: int, total: int) -> float | None:
    return round(count / total, 4) if total else None


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


def summarize(
    lines: Iterable[bytes],
    *,
    names: Collection[str] | None = None,
    since: str | None = None,
    top: int = 10,
    fingerprint: str | None = None,
) -> dict[str, Any]:
    """Read JSONL telemetry ``lines`` once and return the report as plain data.

    ``names`` (the corpus's document names) adds the NEVER ROUTED list and the names in
    the log that are not in the corpus. ``since`` is a timestamp from
    :func:`parse_since`; older events are counted as skipped. ``fingerprint`` keeps only
    the events of that index (its corpus fingerprint); the others are counted as skipped.
    The result is what ``gov telemetry report --format json`` prints.

    The loop is the whole cost of a report, so it does the least per event: the fields
    that are the same for many events form one key whose counter is checked once, and
    only latencies, routes and the time are looked at per event.
    """
    scan = _scan(lines, since, fingerprint)
    tally = _tally(scan.groups)
    total = sum(tally.outcomes.values())
    return _report(
        total=total, first=scan.first if total else None, last=scan.last if total else None,
        since=since, outcomes=tally.outcomes, failed_by=tally.failed_by,
        degraded=tally.degraded, adapters=tally.adapters, days=tally.days, docs=scan.docs,
        other_names=scan.other_names, delivered=scan.delivered, warm=scan.warm,
        fingerprints=tally.fingerprints, points=tally.points, names=names, top=top,
        by_adapter=scan.by_adapter, reads=scan.reads, fingerprint=fingerprint,
        skipped=scan.skipped,
    )


class _Scanned(NamedTuple):
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


def _scan(lines: Iterable[bytes], since: str | None, fingerprint: str | None) -> _Scanned:
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
    return _Scanned(groups, docs, other_names, by_adapter, reads, delivered, warm, first, last,
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


class _Tally(NamedTuple):
    """The groups' counters summed by outcome, failure class, adapter, day and id."""

    outcomes: dict[str, int]
    failed_by: dict[str, int]
    adapters: dict[str, int]
    days: dict[str, list[int]]
    fingerprints: dict[str, int]
    points: dict[str, int]
    degraded: int


def _tally(groups: dict[tuple[Any, ...], list[Any] | None]) -> _Tally:
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
    return _Tally(outcomes, failed_by, adapters, days, fingerprints, points, degraded)


def _report(
    *,
    total: int,
    first: str | None,
    last: str | None,
    since: str | None,
    outcomes: dict[str, int],
    failed_by: dict[str, int],
    degraded: int,
    adapters: dict[str, int],
    days: dict[str, list[int]],
    docs: dict[str, int],
    other_names: int,
    delivered: LatencyHistogram,
    warm: LatencyHistogram,
    fingerprints: dict[str, int],
    points: dict[str, int],
    names: Collection[str] | None,
    top: int,
    by_adapter: dict[str, tuple[LatencyHistogram, LatencyHistogram]],
    reads: _Reads,
    fingerprint: str | None,
    skipped: dict[str, int],
) -> dict[str, Any]:
    withheld = docs.pop(WITHHELD, 0)
    routed = outcomes["routed"]
    ranked = sorted(docs.items(), key=lambda item: (-item[1], item[0]))
    corpus = list(dict.fromkeys(names)) if names is not None else None
    never = [name for name in corpus if name not in docs] if corpus is not None else None
    known = set(corpus) if corpus is not None else None
    strangers = [name for name, _ in ranked if name not in known] if known is not None else None
    report: dict[str, Any] = {
        "events": total,
        "index": fingerprint,
        "since": since,
        "first": first,
        "last": last,
        "outcomes": {
            outcome: {"count": outcomes[outcome], "share": _share(outcomes[outcome], total)}
            for outcome in OUTCOMES
        },
        "failed_by_class": {
            cls: {"count": count, "share": _share(count, total)}
            for cls, count in sorted(failed_by.items(), key=lambda item: (-item[1], item[0]))
        },
        "degraded": {"count": degraded, "share": _share(degraded, total)},
        "adapters": dict(sorted(adapters.items(), key=lambda item: (-item[1], item[0]))),
        "latency_ms": _latency(delivered, warm, by_adapter),
        "delivered_histogram": delivered.buckets(),
        "warm_route_histogram": warm.buckets(),
        "documents": _documents(docs, ranked, corpus, never, strangers, routed, top,
                                withheld, other_names),
        "days": [
            {"day": day, "routed": row[0], "abstained": row[1], "failed": row[2]}
            for day, row in sorted(days.items())
        ],
        "reads": reads.summary(),
        "fix": reads.fixes(top),
        "index_fingerprints": dict(sorted(fingerprints.items(), key=lambda i: (-i[1], i[0]))),
        "operating_points": dict(sorted(points.items(), key=lambda i: (-i[1], i[0]))),
        "skipped_lines": skipped,
    }
    report["notes"] = _notes(report)
    return report


def _latency(delivered: LatencyHistogram, warm: LatencyHistogram,
             by_adapter: dict[str, tuple[LatencyHistogram, LatencyHistogram]]) -> dict[str, Any]:
    """The report's latency section: both histograms overall and per adapter (the busiest
    adapter first), and how much of a delivered turn the warm route is."""
    d50, w50 = delivered.quantile(0.5), warm.quantile(0.5)
    return {
        "delivered": delivered.summary(),
        "warm_route": warm.summary(),
        "warm_share_of_delivered_p50": (
            round(w50 / d50, 4) if d50 and w50 is not None else None
        ),
        "max_relative_error": round(MAX_RELATIVE_ERROR, 4),
        "by_adapter": {
            adapter: {"delivered": pair[0].summary(), "warm_route": pair[1].summary()}
            for adapter, pair in sorted(by_adapter.items(),
                                        key=lambda item: (-item[1][0].n, item[0]))
        },
    }


def _documents(docs: dict[str, int], ranked: list[tuple[str, int]], corpus: list[str] | None,
               never: list[str] | None, strangers: list[str] | None, routed: int, top: int,
               withheld: int, other_names: int) -> dict[str, Any]:
    """The report's documents section: the most routed, and against the corpus (when its
    names are known) the never routed and the names the corpus does not hold."""
    return {
        "routed_at_least_once": (
            len(docs) if corpus is None else len(corpus) - len(never or ())
        ),
        "corpus_size": len(corpus) if corpus is not None else None,
        "top": [
            {"name": name, "count": count, "share_of_routed": _share(count, routed)}
            for name, count in ranked[:top]
        ],
        "never_routed": never,
        "not_in_corpus": strangers,
        "withheld_routes": withheld,
        "untracked_routes": other_names,
    }


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def _notes(report: dict[str, Any]) -> list[str]:
    """Plain sentences for what the figures mean, worst first."""
    total = report["events"]
    notes: list[str] = []
    skipped = report["skipped_lines"]
    if not total:
        where = " since " + report["since"] if report["since"] else ""
        notes.append(
            f"No events{where}. No events is not the same as healthy: telemetry may be off "
            "(GOV_TELEMETRY_PATH not set where the agents run), written to another file, "
            "or nothing is calling gov."
        )
    outcomes = report["outcomes"]
    if total and not outcomes["routed"]["count"]:
        notes.append(
            f"Nothing was routed in {total:,} events. A router that cannot see looks like this: "
            "check that the index was built from this corpus and the operating point in force."
        )
    failed = outcomes["failed"]["count"]
    if failed:
        worst = next(iter(report["failed_by_class"]))
        notes.append(
            f"{_plural(failed, 'attempt')} failed ({failed / total:.1%}); "
            f"the most common class is {worst}."
        )
    degraded = report["degraded"]["count"]
    if degraded:
        notes.append(f"{_plural(degraded, 'event')} ran degraded ({degraded / total:.1%}).")
    documents = report["documents"]
    if documents["never_routed"]:
        unrecordable = [n for n in documents["never_routed"] if not is_document_name(n)]
        notes.append(
            f"{len(documents['never_routed'])} of {documents['corpus_size']} documents were never "
            "routed: their triggers may not discriminate, or nothing asked for them."
            + (f" ({len(unrecordable)} of them have names telemetry withholds.)"
               if unrecordable else "")
        )
    if documents["not_in_corpus"]:
        notes.append(
            f"{len(documents['not_in_corpus'])} routed names are not in this corpus: the log "
            "predates a corpus change, or it comes from another index."
        )
    if documents["withheld_routes"]:
        notes.append(
            f"{_plural(documents['withheld_routes'], 'route')} withheld: their names do not fit "
            "telemetry's name rule (letters, digits and _ - . +)."
        )
    overall = report["reads"]["overall"]
    if overall["routed"] and overall["read_rate"] is not None:
        notes.append(
            f"The agent opened {overall['read_rate']:.0%} of the documents gov routed to it "
            f"({overall['read_after_routing']:,} of {overall['routed']:,} route episodes); "
            f"in {_plural(overall['read_unrouted'], 'session-and-document pair')} it opened a "
            "document gov had not routed."
        )
    elif total and not overall["routed"]:
        notes.append("No route episodes with a session: read rates need the harness hook "
                     "(gov hook) with its post-tool event registered.")
    if report["fix"]:
        notes.append(f"{_plural(len(report['fix']), 'document')} to fix; see the fix list.")
    if report["skipped_lines"]["other_index"]:
        notes.append(f"Left out {_plural(report['skipped_lines']['other_index'], 'event')} "
                     "of other indexes (or of this one before its corpus changed).")
    if len(report["index_fingerprints"]) > 1:
        notes.append(f"Events came from {len(report['index_fingerprints'])} different indexes.")
    bad = skipped["torn"] + skipped["foreign"]
    if bad:
        notes.append(
            f"Skipped {skipped['torn']:,} torn and {_plural(skipped['foreign'], 'foreign line')}."
        )
    if skipped["newer_schema"]:
        notes.append(
            f"Skipped {_plural(skipped['newer_schema'], 'event')} from a newer schema: "
            "upgrade gov to read them."
        )
    return notes

