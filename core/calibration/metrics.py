"""Routing quality from routed, labelled rows: the figures ``gov eval`` and calibration share.

A row is the output of ``gov route`` over a labelled prompt: ``expected`` (``[]`` marks a
prompt no document governs), ``routes``, and optionally ``sibling``, ``family`` and
``kind``. Routes marked ``dependency_of`` are expansions, not choices, so precision,
top-1 and false alarms count only the routes the router chose.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError


def f1_score(precision: float | None, recall: float | None) -> float:
    """The harmonic mean of precision and recall; 0 where either is 0 or unmeasured."""
    if not precision or not recall:
        return 0.0
    return 2 * precision * recall / (precision + recall)


@dataclass(frozen=True)
class Row:
    """One labelled prompt and what it routed to, in rank order."""

    expected: frozenset[str]
    routed: tuple[str, ...]
    siblings: frozenset[str] = frozenset()
    family: str | None = None
    kind: str | None = None
    dependencies: tuple[str, ...] = ()


@dataclass
class Tally:
    """Counts behind every rate, so sets can be merged and rates recomputed exactly."""

    rows: int = 0
    positives: int = 0
    negatives: int = 0
    expected_labels: int = 0
    found_at_1: int = 0
    found_at_2: int = 0
    found: int = 0
    found_with_dependencies: int = 0
    routed: int = 0
    correct_routes: int = 0
    top1_correct: int = 0
    false_alarms: int = 0
    silent: int = 0
    sibling_rows: int = 0
    sibling_hits: int = 0
    dependencies: int = 0

    def add(self, row: Row) -> None:
        self.rows += 1
        self.routed += len(row.routed)
        self.dependencies += len(row.dependencies)
        if row.siblings:
            self.sibling_rows += 1
            if row.siblings.intersection(row.routed):
                self.sibling_hits += 1
        if not row.expected:
            self.negatives += 1
            if row.routed:
                self.false_alarms += 1
            return
        self.positives += 1
        self.expected_labels += len(row.expected)
        self.found_at_1 += len(row.expected.intersection(row.routed[:1]))
        self.found_at_2 += len(row.expected.intersection(row.routed[:2]))
        self.found += len(row.expected.intersection(row.routed))
        self.found_with_dependencies += len(
            row.expected.intersection(row.routed + row.dependencies)
        )
        self.correct_routes += len(row.expected.intersection(row.routed))
        if not row.routed:
            self.silent += 1
        elif row.routed[0] in row.expected:
            self.top1_correct += 1

    def metrics(self) -> dict[str, float | int | None]:
        """Rates with ``None`` where the denominator is empty: unmeasured, not zero."""

        def rate(part: int, whole: int) -> float | None:
            return part / whole if whole else None

        recall = rate(self.found, self.expected_labels)
        # Precision over all rows: a route on a negative is a wrong route too.
        precision = rate(self.correct_routes, self.routed)
        f1 = None if recall is None else f1_score(precision, recall)
        out: dict[str, float | int | None] = {
            "rows": self.rows,
            "positives": self.positives,
            "negatives": self.negatives,
            "recall_at_1": rate(self.found_at_1, self.expected_labels),
            "recall_at_2": rate(self.found_at_2, self.expected_labels),
            "recall": recall,
            "precision": precision,
            "f1": f1,
            "top1": rate(self.top1_correct, self.positives),
            "false_alarm_rate": rate(self.false_alarms, self.negatives),
            "silent_rate": rate(self.silent, self.positives),
            "harmful_sibling_rate": rate(self.sibling_hits, self.sibling_rows),
            "routes_per_prompt": rate(self.routed, self.rows),
        }
        if self.dependencies:
            out["recall_with_dependencies"] = rate(self.found_with_dependencies,
                                                   self.expected_labels)
        return out


@dataclass
class Report:
    """Overall and per-kind figures, family confusion, and the names no route could match."""

    overall: Tally = field(default_factory=Tally)
    kinds: dict[str, Tally] = field(default_factory=dict)
    families: dict[str, Tally] = field(default_factory=dict)
    confusions: dict[str, Counter[str]] = field(default_factory=dict)
    errors: int = 0
    unknown_names: list[str] = field(default_factory=list)
    # Rows whose prompt the operating point learned from (their figures are not held out).
    learned_from: int = 0
    # Positives that routed nothing: the prompt, what it expected, and (when the rows were
    # routed with --explain) what it came nearest to and the rule that held it back.
    near_misses: list[dict[str, Any]] = field(default_factory=list)

    def add(self, row: Row) -> None:
        self.overall.add(row)
        if row.kind is not None:
            self.kinds.setdefault(row.kind, Tally()).add(row)
        if row.family is not None and row.expected:
            self.families.setdefault(row.family, Tally()).add(row)
            wrong = [name for name in row.routed if name not in row.expected]
            if wrong:
                self.confusions.setdefault(row.family, Counter()).update(wrong)

    def to_json(self) -> dict[str, Any]:
        return {
            "overall": self.overall.metrics(),
            "kinds": {kind: tally.metrics() for kind, tally in sorted(self.kinds.items())},
            "families": {
                family: {
                    "rows": tally.positives,
                    "top1": tally.metrics()["top1"],
                    "wrong_routes": dict(self.confusions.get(family, Counter()).most_common()),
                }
                for family, tally in sorted(self.families.items())
            },
            "error_rows": self.errors,
            "unknown_names": self.unknown_names,
            "near_misses": self.near_misses,
        }


def _names(value: Any, field_name: str, where: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InputError(f"{where}: field '{field_name}' must be a list of document names")
    return value


def _parts(path: str) -> tuple[str, ...]:
    return tuple(part for part in path.replace("\\", "/").split("/") if part not in ("", "."))


class SourceLabels:
    """Labels given as source paths, read as the document names of an index: a path names
    every document whose source file it matches, one being a suffix of the other at a path
    component (``cct/skills/x/SKILL.md`` matches ``skills/x/SKILL.md`` and
    ``../lib/cct/skills/x/SKILL.md``). A path that matches no document stays as written,
    so its row still counts as governed (and can never be found)."""

    def __init__(self, sources: Iterable[tuple[str, str]]) -> None:
        self.whole: dict[tuple[str, ...], set[str]] = {}  # a source's parts -> names
        self.tails: dict[tuple[str, ...], set[str]] = {}  # every tail of a source -> names
        for name, source in sources:
            parts = _parts(source)
            if not parts:
                continue
            self.whole.setdefault(parts, set()).add(name)
            for start in range(len(parts)):
                self.tails.setdefault(parts[start:], set()).add(name)
        self.unmatched: set[str] = set()

    def names(self, path: str) -> list[str]:
        parts = _parts(path)
        found = set(self.tails.get(parts, ()))  # the label is a tail of a source
        for start in range(1, len(parts)):  # a source is a tail of the label
            found.update(self.whole.get(parts[start:], ()))
        if not found:
            self.unmatched.add(path)
            return [path]
        return sorted(found)

    def __call__(self, paths: Iterable[str]) -> list[str]:
        return [name for path in paths for name in self.names(path)]


def parse_row(record: Any, where: str,
              labels: Callable[[Iterable[str]], list[str]] | None = None) -> Row | None:
    """A routed row as a :class:`Row`; ``None`` for an error row that ``gov route`` wrote.
    ``labels`` reads ``expected`` and ``sibling`` as names (e.g. :class:`SourceLabels`)."""
    if not isinstance(record, dict):
        raise InputError(f"{where}: expected a JSON object (a row that gov route wrote)")
    if "error" in record and "routes" not in record:
        return None
    if "expected" not in record:
        raise InputError(f"{where}: field 'expected' is missing (label the prompt with the "
                         "documents that govern it, [] for none)")
    expected = _names(record["expected"], "expected", where)
    siblings = _names(record.get("sibling"), "sibling", where)
    if labels is not None:
        expected, siblings = labels(expected), labels(siblings)
    routes = record.get("routes")
    if not isinstance(routes, list):
        raise InputError(f"{where}: field 'routes' is missing; pipe the rows through gov route")
    chosen: list[str] = []
    dependencies: list[str] = []
    for route in routes:
        if not isinstance(route, dict) or not isinstance(route.get("name"), str):
            raise InputError(f"{where}: each route must be an object with a 'name'")
        (dependencies if route.get("dependency_of") else chosen).append(route["name"])
    family = record.get("family")
    kind = record.get("kind")
    return Row(
        expected=frozenset(expected),
        routed=tuple(chosen),
        siblings=frozenset(siblings),
        family=family if isinstance(family, str) else None,
        kind=kind if isinstance(kind, str) else None,
        dependencies=tuple(dependencies),
    )


def evaluate(rows: Iterable[Row], known_names: Sequence[str] | None = None,
             errors: int = 0) -> Report:
    """Tally rows; with ``known_names``, list expected names no document carries."""
    report = Report(errors=errors)
    wanted: set[str] = set()
    for row in rows:
        report.add(row)
        wanted.update(row.expected)
    if known_names is not None:
        report.unknown_names = sorted(wanted.difference(known_names))
    return report


def evaluate_jsonl(lines: Iterable[bytes], *, shown: str = "stdin",
                   known_names: Sequence[str] | None = None,
                   learned_prompts: Collection[str] = (),
                   sources: SourceLabels | None = None) -> Report:
    """``gov eval``: tally the routed, labelled JSONL rows of ``lines`` (``shown`` names the
    source in errors); route-error rows are counted apart, never scored. Rows whose prompt
    is among ``learned_prompts`` (what the point learned from) are counted, to warn. With
    ``sources``, labels are source paths (``gov eval --by source``); the paths no document
    matches are the report's ``unknown_names``."""
    from ..jsonl import read_lines

    rows = []
    near: list[dict[str, Any]] = []
    errors = learned = 0
    for line in read_lines(lines):
        where = f"{shown} line {line.number}"
        if line.error is not None:
            raise InputError(f"{where}: {line.error}")
        row = parse_row(line.value, where, sources)
        if row is None:
            errors += 1
        else:
            rows.append(row)
            learned += line.value.get("prompt") in learned_prompts
            if row.expected and not row.routed and len(near) < MAX_NEAR_MISSES:
                near.append(near_miss(line.value, row))
    if not rows:
        raise InputError(f"{shown}: no routed rows to evaluate")
    report = evaluate(rows, known_names if sources is None else None, errors)
    if sources is not None:
        report.unknown_names = sorted(sources.unmatched)
    report.learned_from = learned
    report.near_misses = near
    return report


MAX_NEAR_MISSES = 200


def near_miss(record: dict[str, Any], row: Row) -> dict[str, Any]:
    """A positive that abstained: its prompt and labels, and, from ``gov route --explain``,
    the documents it came nearest to and the rule that held it back."""
    value = record.get("explain")
    explained: dict[str, Any] = value if isinstance(value, dict) else {}
    nearest = [item.get("name") for item in explained.get("nearest") or []
               if isinstance(item, dict) and isinstance(item.get("name"), str)]
    prompt = record.get("prompt")
    return {"prompt": prompt if isinstance(prompt, str) else None,
            "expected": sorted(row.expected), "nearest": nearest,
            "reason": explained.get("reason") if isinstance(explained.get("reason"), str) else None}
