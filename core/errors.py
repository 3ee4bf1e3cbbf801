"""One exception family for everything a user can fix.

Each error carries the exit code the CLI should use and a failure class that
telemetry records, so a failure is never mistaken for an abstention. Every error here is a
usage or input error, exit 2; exit 1 is kept for findings and failed checks (a lint
finding, a card that fails, a doctor check, ``-e`` with nothing routed), decided by the
command from its result, never by an exception.
"""

from __future__ import annotations

from typing import Literal

FailureClass = Literal["input", "corpus_load", "index_load", "index_build", "route", "render"]


class GovError(Exception):
    """An error meant for the user: one line that says what to fix."""

    exit_code: int = 2
    failure_class: FailureClass = "route"

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        if self.hint:
            return f"{self.message} ({self.hint})"
        return self.message


class InputError(GovError):
    """Bad input on stdin or in an argument."""

    exit_code = 2
    failure_class = "input"


class UsageError(GovError):
    """A flag or argument that cannot work together with the others."""

    exit_code = 2
    failure_class = "input"


class CorpusError(GovError):
    """A corpus that cannot be read: a bad file, a duplicate name, a missing trigger."""

    exit_code = 2
    failure_class = "corpus_load"


class IndexLoadError(GovError):
    """An index file that is missing, corrupt, stale or built for another model."""

    exit_code = 2
    failure_class = "index_load"


class IndexBuildError(GovError):
    """An index that could not be built or written."""

    exit_code = 2
    failure_class = "index_build"


class ModelError(GovError):
    """The embedding model cannot be found, verified or loaded."""

    exit_code = 2
    failure_class = "index_load"


class OperatingPointError(GovError):
    """An operating point file that is missing, malformed or measured under another model."""

    exit_code = 2
    failure_class = "index_load"
