"""What lint reports: findings (rule, severity, file, line, message, fix) and the report.

A finding points at one line of one file: the surface that collides, the trigger that is
vague, the ``**Depends-on:**`` line that dangles. The report holds the findings in the
order people read them (documents worst first) and says which rules did not run, and why.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .rules import RANK


@dataclass(frozen=True)
class Finding:
    """One problem with one document, at one line, and the one-line fix."""

    rule: str
    severity: str
    document: str | None
    file: str | None
    line: int | None
    message: str
    fix: str
    # Machine-readable evidence (similarities, the other documents): JSON values only.
    data: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def rank(self) -> int:
        return RANK[self.severity]

    def to_json(self) -> dict[str, Any]:
        return {"rule": self.rule, "severity": self.severity, "document": self.document,
                "file": self.file, "line": self.line, "message": self.message, "fix": self.fix,
                **({"data": self.data} if self.data else {})}


@dataclass(frozen=True)
class Skipped:
    """A rule that did not run, and why."""

    rule: str
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"rule": self.rule, "reason": self.reason}


@dataclass
class LintReport:
    """Every finding, documents worst first; the rules skipped; what was linted."""

    findings: list[Finding]
    skipped: list[Skipped] = field(default_factory=list)
    documents: int = 0
    seconds: float = 0.0
    source: str = ""
    # Seconds per phase (documents, pairwise, hubs), for benchmarks.
    phases: dict[str, float] = field(default_factory=dict)
    # Families of near-duplicates: how many, how many documents in them, how many listed
    # as family findings (empty when the pairwise rules did not run).
    families: dict[str, int] = field(default_factory=dict)

    def counts(self) -> dict[str, int]:
        counts = {"error": 0, "warning": 0, "note": 0}
        for finding in self.findings:
            counts[finding.severity] += 1
        return counts

    def fails(self, fail_on: str) -> bool:
        """Whether a finding is at or above ``fail_on`` (``never``: none fails)."""
        if fail_on == "never":
            return False
        return any(finding.rank >= RANK[fail_on] for finding in self.findings)

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "documents": self.documents, "counts": self.counts(),
                "skipped": [item.to_json() for item in self.skipped],
                "seconds": round(self.seconds, 3),
                "phases": {name: round(value, 3) for name, value in self.phases.items()},
                **({"families": self.families} if self.families else {})}


def ordered(findings: list[Finding]) -> list[Finding]:
    """Grouped by document, the documents with the worst (then most) findings first; within
    a document, worst first, then by line."""
    groups: dict[str | None, list[Finding]] = {}
    for finding in findings:
        groups.setdefault(finding.file or finding.document, []).append(finding)

    def weight(items: list[Finding]) -> tuple[int, int, int, str]:
        worst = max(item.rank for item in items)
        return (-worst, -sum(1 for item in items if item.rank == worst), -len(items),
                items[0].file or items[0].document or "")

    out: list[Finding] = []
    for items in sorted(groups.values(), key=weight):
        out.extend(sorted(items, key=lambda f: (-f.rank, f.line or 0, f.rule, f.message)))
    return out
