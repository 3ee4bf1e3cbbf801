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

from collections.abc import Collection, Iterable
from typing import Any

from .events import OUTCOMES, WITHHELD, is_document_name
from .latency import (
    MAX_RELATIVE_ERROR,
    LatencyHistogram,
)
from .reads import ReadTally as _Reads
from .scan import scan_log, tally_groups
from .since import parse_since

__all__ = ["parse_since", "summarize"]  # parse_since lives in since.py


def _share(count: int, total: int) -> float | None:
    return round(count / total, 4) if total else None


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
    scan = scan_log(lines, since, fingerprint)
    tally = tally_groups(scan.groups)
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

