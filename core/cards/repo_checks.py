"""Checks that hold a card against the repository it describes, not only against itself.

They run only when a repository is given (``gov card verify --repo DIR [--base REV]``) and
are contract checks like the others: named, with a severity per contract, switchable.

- ``artifacts_exist``: every artifact that looks like a path is a file or folder at HEAD, in
  the working tree, or among the files the change under review deletes.
- ``patch_artifacts_changed``: a PATCH card's path artifacts are among the files changed
  between the base revision and HEAD, or in the working tree.
- ``claimed_tests_touched``: a RESULT or PATCH whose actions say tests were added, written
  or updated touched at least one test file.
- ``task_reports_agree``: no two cards of one run report the same task with contradicting
  outcomes (two cards of one type saying different things, or a RESULT and an ERROR).

Git is read through ``git`` itself, a few commands per run, never per card; nothing here
is loaded or compiled until a repository is given.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from ..errors import GovError
from .plain import CardData

_GIT_TIMEOUT = 60

@functools.cache
def _path_patterns() -> tuple[re.Pattern[str], re.Pattern[str], re.Pattern[str]]:
    """(scheme, location, file name): compiled once a repository is given."""
    return (
        # Things in an artifact list that are not paths: URLs and other scheme:thing references.
        re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*:"),
        # A location inside a file: path:12, path:12:3, path#L12, path#L12-L20.
        re.compile(r"(?::\d+(?::\d+)?|#L\d+(?:-L?\d+)?)$"),
        re.compile(r"^[^/]*[A-Za-z_][^/]*\.[A-Za-z][A-Za-z0-9]{0,9}$"),
    )

_DOMAINS = frozenset(("com", "org", "net", "io", "dev", "ai", "app", "co", "gov", "edu"))
@functools.cache
def _test_claim() -> re.Pattern[str]:
    """Actions that claim test work, as opposed to running tests that already exist."""
    return re.compile(
        r"\b(?:add(?:s|ed|ing)?|wr(?:ite|ites|ote|itten|iting)|creat(?:e|es|ed|ing)|"
        r"updat(?:e|es|ed|ing)|extend(?:s|ed|ing)?|expand(?:s|ed|ing)?|new|regression|fix(?:es|ed)?)"
        r"\b[^.;]*?\b(?:unit[- ]?)?tests?\b"
        r"|\btests?\b[^.;]*?\b(?:added|written|created|updated|extended)\b",
        re.IGNORECASE,
    )


@functools.cache
def _test_file() -> re.Pattern[str]:
    """Paths of test files, by the conventions of the common test runners."""
    return re.compile(
        r"(?:^|/)(?:tests?|__tests__|specs?|testing)/"
        r"|(?:^|/)test_[^/]*$|_test\.[A-Za-z0-9]+$|\.(?:test|spec)\.[A-Za-z0-9]+$"
        r"|(?:^|/)[^/]*Tests?\.(?:java|kt|cs|swift|scala)$|_spec\.rb$|(?:^|/)conftest\.py$"
    )


_CONFLICTING_TYPES = frozenset(("RESULT", "ERROR"))


class RepoError(GovError):
    """A repository or revision the repository checks cannot read."""

    exit_code = 2
    failure_class = "input"


# The checked repository is not trusted: its own config must not make git run anything.
_GIT_SAFE = ("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "-c", "core.pager=cat",
             "-c", "diff.external=", "-c", "core.untrackedCache=false", "-c", "protocol.allow=never",
             "-c", "core.sshCommand=false", "--no-pager")
_GIT_UNSET = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS",
              "GIT_CONFIG_COUNT", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_SSH", "GIT_SSH_COMMAND",
              "GIT_ASKPASS", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR")


def git_command(root: Path, *args: str) -> tuple[list[str], dict[str, str]]:
    """The command line and environment of a read-only git run in an untrusted repository:
    no fsmonitor, hooks, pager, external diff or transport from its config, no system config."""
    env = {key: value for key, value in os.environ.items() if key not in _GIT_UNSET}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0", GIT_OPTIONAL_LOCKS="0",
               GIT_PAGER="cat", PAGER="cat")
    return ["git", *_GIT_SAFE, "-C", str(root), *args], env


def _git(root: Path, *args: str) -> bytes:
    import subprocess

    command, env = git_command(root, *args)
    try:
        done = subprocess.run(
            command,
            env=env,
            capture_output=True,
            timeout=_GIT_TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        raise RepoError("repo: git is not installed (the repository checks read git)") from None
    except subprocess.TimeoutExpired:
        raise RepoError(f"repo: git {args[0]} took more than {_GIT_TIMEOUT} s in {root}") from None
    if done.returncode != 0:
        lines = done.stderr.decode(errors="replace").strip().splitlines()
        why = lines[-1] if lines else f"exit status {done.returncode}"
        raise RepoError(f"repo: git {args[0]} failed in {root}: {why}")
    return done.stdout


def _names(output: bytes) -> list[str]:
    return [name for name in output.decode("utf-8", "surrogateescape").split("\0") if name]


def _has_commit(root: Path, rev: str) -> bool:
    import subprocess

    command, env = git_command(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    done = subprocess.run(
        command,
        env=env,
        capture_output=True,
        timeout=_GIT_TIMEOUT,
        check=False,
    )
    return done.returncode == 0


@dataclass
class Repo:
    """What the repository checks know of one repository, read once per run.

    ``changed`` holds the files changed between ``base`` and HEAD (when a base is given)
    and every change in the working tree: staged, unstaged and untracked files.
    """

    root: Path
    base: str | None
    head_files: frozenset[str]
    head_folders: frozenset[str]
    changed: frozenset[str]
    reports: dict[str, tuple[str, str, str]] = field(default_factory=dict)

    def describe(self) -> str:
        """For people: which repository, and which changes count as the change."""
        since = f"changes since {self.base} and in the working tree" if self.base else (
            "changes in the working tree (give a base revision to count commits too)"
        )
        return f"repository checks on {self.root}: {since}"

    def relative(self, artifact: str) -> str | None:
        """The repository path an artifact names, or None when it does not look like one.

        URLs, ``scheme:id`` references, anything with spaces or glob characters, and bare
        words without a file extension are not paths; nor is an absolute path outside the
        repository. ``path:12`` and ``path#L12`` name the file ``path``.
        """
        scheme, location, file_name = _path_patterns()
        text = location.sub("", artifact.strip())
        if not text or any(c.isspace() for c in text) or any(c in text for c in "*?[]{}<>|\"'`$"):
            return None
        if text.startswith(("#", "@", "~")) or "://" in text or scheme.match(text):
            return None
        if os.path.isabs(text):
            try:
                text = Path(text).resolve().relative_to(self.root).as_posix()
            except ValueError:
                return None  # outside the repository: not judged
        pure = PurePosixPath(text)
        parts = [p for p in pure.parts if p not in (".", "")]
        if not parts or ".." in parts:
            return None
        normal = "/".join(parts)
        if "/" not in text:  # a bare name: a path only when it looks like a file name
            match = file_name.match(normal)
            if match is None or normal.rsplit(".", 1)[1].lower() in _DOMAINS:
                return None
        return normal

    def exists(self, path: str) -> bool:
        if path in self.head_files or path in self.head_folders or path in self.changed:
            return True
        return (self.root / path).exists()

    def touched(self, path: str) -> bool:
        if path in self.changed:
            return True
        prefix = path + "/"
        return any(name.startswith(prefix) for name in self.changed)


def open_repo(directory: str | os.PathLike[str], base: str | None = None) -> Repo:
    """Read the repository holding ``directory``: HEAD's files, and the change under review."""
    where = Path(directory)
    if not where.is_dir():
        raise RepoError(f"repo: {directory} is not a folder")
    root = Path(_git(where, "rev-parse", "--show-toplevel").decode().strip()).resolve()
    has_head = _has_commit(root, "HEAD")
    head_files: frozenset[str] = frozenset()
    if has_head:
        head_files = frozenset(_names(_git(root, "ls-tree", "-r", "-z", "--name-only", "HEAD")))
    folders = {str(parent) for name in head_files for parent in PurePosixPath(name).parents}
    folders.discard(".")
    changed: set[str] = set()
    if base is not None:
        if not _has_commit(root, base):
            raise RepoError(f"base: {base!r} is not a commit in {root}")
        if has_head:
            changed.update(_names(_git(root, "diff", "--name-only", "-z", "--no-renames", base, "HEAD")))
    if has_head:
        changed.update(_names(_git(root, "diff", "--name-only", "-z", "--no-renames", "HEAD")))
    else:
        changed.update(_names(_git(root, "ls-files", "-z")))
    changed.update(_names(_git(root, "ls-files", "-z", "--others", "--exclude-standard")))
    return Repo(root, base, head_files, frozenset(folders), frozenset(changed))


# --- the checks -----------------------------------------------------------------------------


def _paths(card: CardData, repo: Repo) -> list[tuple[str, str]]:
    found = []
    for artifact in card["artifacts"]:
        path = repo.relative(artifact)
        if path is not None:
            found.append((artifact, path))
    return found


def _listing(names: Sequence[str]) -> str:
    shown = ", ".join(names[:3])
    return shown + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def _artifacts_exist(card: CardData, repo: Repo, where: str) -> str | None:
    missing = [artifact for artifact, path in _paths(card, repo) if not repo.exists(path)]
    if not missing:
        return None
    return f"artifact {_listing(missing)} is neither at HEAD nor in the working tree."


def _patch_artifacts_changed(card: CardData, repo: Repo, where: str) -> str | None:
    untouched = [artifact for artifact, path in _paths(card, repo) if not repo.touched(path)]
    if not untouched:
        return None
    since = f"between {repo.base} and HEAD" if repo.base else "in the working tree"
    return f"PATCH names {_listing(untouched)}, which did not change {since}."


def _claimed_tests_touched(card: CardData, repo: Repo, where: str) -> str | None:
    if not any(_test_claim().search(action) for action in card["actions_taken"]):
        return None
    if any(_test_file().search(name) for name in repo.changed):
        return None
    return "actions_taken say tests were written, but no test file changed."


def _normalised(text: str) -> str:
    return " ".join(text.casefold().split()).rstrip(".!")


def _task_reports_agree(card: CardData, repo: Repo, where: str) -> str | None:
    seen = repo.reports.get(card["task_id"])
    if seen is None:
        repo.reports[card["task_id"]] = (card["card_type"], _normalised(card["outcome"]), where)
        return None
    kind, outcome, first = seen
    task = card["task_id"]
    if kind == card["card_type"] and outcome != _normalised(card["outcome"]):
        return f"task {task} has another {kind} card with a different outcome ({first})."
    if {kind, card["card_type"]} == _CONFLICTING_TYPES:
        return f"task {task} was also reported as {kind} ({first})."
    return None


@dataclass(frozen=True, slots=True)
class RepoCheck:
    """A check that needs the repository: it returns why the card fails, or None."""

    name: str
    card_types: frozenset[str] | None  # None: every card type
    test: Callable[[CardData, Repo, str], str | None]


REPO_CHECKS: tuple[RepoCheck, ...] = (
    RepoCheck("artifacts_exist", frozenset(("RESULT", "ERROR", "PATCH", "NOTE")), _artifacts_exist),
    RepoCheck("patch_artifacts_changed", frozenset(("PATCH",)), _patch_artifacts_changed),
    RepoCheck("claimed_tests_touched", frozenset(("RESULT", "PATCH")), _claimed_tests_touched),
    RepoCheck("task_reports_agree", None, _task_reports_agree),
)
REPO_CHECKS_BY_NAME = {check.name: check for check in REPO_CHECKS}
