"""What each ``gov card`` command does, as a library function of the same name.

The CLI parses options, calls one of these and renders what comes back; Python callers get
the same behaviour with the same names: ``validate_cards``, ``verify_cards``, ``new_card``,
``new_cards``, ``write_cards`` and ``budget_cards`` (``export_cards`` and ``import_cards``
live in ``gov.core.cards.interop``). Errors name parameters, never command-line options.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from ..errors import GovError
from .sources import CardSourceError, Record, read_paths, resolve_sources

if TYPE_CHECKING:
    from .budget import TokenCounter
    from .contracts import Contract


class CardOutputError(GovError):
    """A file the cards cannot be written to."""

    exit_code = 2
    failure_class = "input"


@dataclass
class CardRun:
    """The results of checking some cards, streamed, with what a person should know first.

    ``notes`` are said before the results: patterns that matched nothing while others
    matched, the repository and base compared against. ``contract`` is the one that ran.
    """

    results: Iterator[dict[str, Any]]
    notes: list[str] = field(default_factory=list)
    contract: Contract | None = None


def validate_cards(specs: Sequence[str], *, stdin: IO[bytes] | None = None) -> CardRun:
    """Check the cards in ``specs`` (files, folders, globs, ``-``) against the card schema."""
    from .report import validation_results

    sources = resolve_sources(specs)
    return CardRun(validation_results(read_paths(sources.paths, stdin)), list(sources.notes))


def verify_cards(
    specs: Sequence[str],
    *,
    contract: str | Contract = "default",
    now: datetime | None = None,
    strict: bool = False,
    repo: str | Path | None = None,
    base: str | None = None,
    stdin: IO[bytes] | None = None,
) -> CardRun:
    """Validate the cards in ``specs``, then run ``contract``'s checks on each valid one.

    ``contract`` is a built-in name, a contract file's path or a loaded ``Contract``;
    ``now`` (timezone-aware) is the instant timestamps are judged against. With ``repo``
    (a folder in a git repository) the repository checks run too, counting as the change
    under review the commits since ``base`` (when given) and the working tree.
    """
    from .contracts import Contract, load_contract
    from .report import verification_results
    from .timestamps import now_utc

    if base is not None and repo is None:
        raise GovError("base: a base revision needs a repository (repo)")
    chosen = contract if isinstance(contract, Contract) else load_contract(contract)
    sources = resolve_sources(specs)
    notes = list(sources.notes)
    state = None
    if repo is not None:
        from .repo_checks import open_repo

        state = open_repo(repo, base)
        notes.append(state.describe())
    records = read_paths(sources.paths, stdin)
    results = verification_results(records, chosen, now=now or now_utc(), strict=strict, repo=state)
    return CardRun(results, notes, chosen)


def new_card(fields: Mapping[str, Any], *, now: str | None = None) -> dict[str, Any]:
    """A valid card from partial ``fields`` with ovi-cards' builder defaults, as JSON data.

    Raises ``CardInvalid`` naming each field and the rule it breaks.
    """
    from .build import build_card

    return build_card(fields, now=now).to_json()


@dataclass(frozen=True, slots=True)
class Made:
    """One line of partial cards: the card it made, or why it made none."""

    line: int
    card: dict[str, Any] | None = None
    error: str | None = None


def new_cards(data: bytes, defaults: Mapping[str, Any] | None = None) -> Iterator[Made]:
    """One card per JSON line of partial fields in ``data``; ``defaults`` fill what a line lacks.

    A line's own ``memory_suggestion`` is merged over the default one field by field.
    """
    import io

    from ..jsonl import read_lines
    from .tools import problem_text
    from .validate import CardInvalid

    base = dict(defaults or {})
    for line in read_lines(io.BytesIO(data)):
        if line.error is not None:
            yield Made(line.number, error=line.error)
            continue
        if not isinstance(line.value, dict):
            yield Made(line.number, error="$: a line must be a JSON object of card fields (type)")
            continue
        fields = {**base, **line.value}
        if isinstance(fields.get("card_type"), str):
            fields["card_type"] = fields["card_type"].upper()
        if isinstance(base.get("memory_suggestion"), dict) and isinstance(
            line.value.get("memory_suggestion"), dict
        ):
            fields["memory_suggestion"] = {**base["memory_suggestion"], **line.value["memory_suggestion"]}
        try:
            yield Made(line.number, card=new_card(fields))
        except CardInvalid as exc:
            yield Made(line.number, error=problem_text(exc.problems))


def write_cards(path: str | Path, data: bytes) -> None:
    """Replace the file at ``path`` with ``data`` atomically; its folder must exist."""
    from ..atomic import write_bytes_atomic

    target = Path(path)
    if not target.parent.is_dir():
        raise CardOutputError(f"cannot write {path}: folder {target.parent} does not exist")
    try:
        write_bytes_atomic(target, data, parents=False)
    except OSError as exc:
        raise CardOutputError(f"cannot write {path}: {exc.strerror or exc}") from None


@dataclass
class Budget:
    """What ``budget_cards`` measured, and the records it left out because they are not cards."""

    report: dict[str, Any]
    skipped: list[str]
    notes: list[str]


def _not_a_card(record: Record) -> str | None:
    """Why ``record`` is not a valid card, in one line, or None when it is one."""
    from .validate import check_card

    if record.error is not None:
        why = record.error
    else:
        card, problems = check_card(record.value)
        if card is not None:
            return None
        why = str(problems[0]) if problems else "not a card"
    where = record.file + (f":{record.line}" if record.line is not None else "")
    if record.index is not None:
        where += f" [{record.index}]"
    return f"{where}: not a valid card ({why})"


def budget_cards(
    specs: Sequence[str],
    raw: Sequence[str] | None = None,
    *,
    agents: int = 5,
    steps: int = 20,
    counter: TokenCounter | None = None,
    stdin: IO[bytes] | None = None,
) -> Budget:
    """Sizes of the valid cards in ``specs`` against the ``raw`` outputs they replace.

    Records that are not valid cards are left out and listed in ``skipped``, one line each;
    with no valid card at all it raises ``CardSourceError``.
    """
    import orjson

    from .budget import measure

    sources = resolve_sources(specs)
    cards: list[str] = []
    skipped: list[str] = []
    for record in read_paths(sources.paths, stdin):
        reason = _not_a_card(record)
        if reason is None:
            cards.append(orjson.dumps(record.value).decode())
        else:
            skipped.append(reason)
    if not cards:
        raise CardSourceError(f"{', '.join(specs)}: no valid cards to measure")
    raws = [_read_text(path) for path in resolve_sources(_files_of(raw)).paths] if raw else None
    report = measure(cards, raws, agents=agents, steps=steps, counter=counter)
    return Budget(report, skipped, list(sources.notes))


def _files_of(specs: Sequence[str]) -> list[str]:
    """Raw outputs: every file of a folder (any name), files and globs as given."""
    import os

    out: list[str] = []
    for spec in specs:
        if os.path.isdir(spec):
            out.extend(sorted(str(p) for p in Path(spec).iterdir() if p.is_file()))
        else:
            out.append(spec)
    return out


def _read_text(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise CardSourceError(f"{path}: cannot read: {exc.strerror or exc}") from None
