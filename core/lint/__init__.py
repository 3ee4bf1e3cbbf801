"""``gov lint``: find the documents of a corpus that cannot route, before a user does.

The rules (:mod:`gov.core.lint.rules`) are switched and tuned by a small config file
(:mod:`gov.core.lint.config`); :func:`lint_corpus` and :func:`lint_index`
(:mod:`gov.core.lint.linter`) return :class:`~gov.core.lint.findings.Finding` records,
each with its rule, severity, file, line and a one-line fix.
"""

from __future__ import annotations

from .findings import Finding, LintReport
from .linter import lint_corpus, lint_index, lint_paths

__all__ = ["Finding", "LintReport", "lint_corpus", "lint_index", "lint_paths"]
