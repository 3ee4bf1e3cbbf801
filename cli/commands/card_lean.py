"""The lean path for ``gov card verify``: no typer, no rich, no pydantic.

A CI step or a pre-commit hook starts a fresh process per run, and typer with its option
parsing (which imports pydantic) costs more than checking thousands of cards. This path
takes the plain form — paths, ``-f/--format``, ``-c/--contract``, ``--now``, ``--strict``,
``--repo``, ``--base``, ``--color``, ``-q/--quiet`` — and returns None for anything else
(``--help``, ``--debug``, a typo, a value that is not one of the choices), which then goes
through the typer command. Both run ``verify`` below, so their output is the same.
"""

from __future__ import annotations

import os
import sys
from typing import IO, Any

from .. import grammar

FORMATS = grammar.CARD_RESULT_FORMATS  # the card formats of cli/reporters.py's registry
COLORS = grammar.COLORS
VALUE_OPTIONS = grammar.table(format=grammar.FORMAT, contract=grammar.CONTRACT, now=grammar.NOW,
                              repo=grammar.REPO, base=grammar.BASE, color=grammar.COLOR)
FLAGS = grammar.table(strict=grammar.STRICT, quiet=grammar.QUIET)


def parse(args: list[str]) -> dict[str, Any] | None:
    """The options of the plain form, or None when the typer command must handle it."""
    options: dict[str, Any] = {"paths": [], "format": None, "contract": grammar.CONTRACT_DEFAULT, "now": None,
                               "repo": None, "base": None, "color": "auto", "strict": False,
                               "quiet": False}
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        key, eq, inline = arg.partition("=")
        if arg == "--":
            options["paths"].extend(rest)
            break
        if key in VALUE_OPTIONS:
            if eq and not key.startswith("--"):
                return None  # -f=json: click reads the value as "=json"; leave it to typer
            value = inline if eq else (rest.pop(0) if rest else None)
            if value is None or (value.startswith("-") and value != "-"):
                return None
            options[VALUE_OPTIONS[key]] = value
        elif arg in FLAGS:
            options[FLAGS[arg]] = True
        elif arg.startswith("-") and arg != "-":
            return None
        else:
            options["paths"].append(arg)
    if options["format"] not in (None, *FORMATS) or options["color"] not in COLORS:
        return None
    return options


def _tty(stream: IO[Any] | None) -> bool:
    try:
        return stream is not None and stream.isatty()
    except (ValueError, AttributeError):
        return False


def use_color(choice: str, stream: IO[Any]) -> bool:
    """``--color`` wins, then ``NO_COLOR``, then whether ``stream`` is a terminal."""
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return _tty(stream)


def verify(
    paths: list[str],
    *,
    fmt: str,
    contract: str,
    now: str | None,
    strict: bool,
    repo: str | None,
    base: str | None,
    color: bool,
    quiet: bool,
    stdin: IO[bytes] | None,
) -> int:
    """Run ``gov card verify`` once its options are read: results to stdout, notes and the
    tally to stderr (unless ``quiet``); the exit code. Errors are ``GovError``s."""
    from gov.core.cards.contracts import describe_source
    from gov.core.cards.timestamps import parse_rfc3339
    from gov.core.cards.workflows import verify_cards
    from gov.core.errors import UsageError

    from ..reporters import write_card_results

    when = None
    if now is not None:
        try:
            when = parse_rfc3339(now)
        except ValueError:
            raise UsageError(
                f"--now: {now!r} is not an RFC 3339 date-time with a time zone",
                hint="e.g. 2025-06-01T12:00:00Z",
            ) from None
    if base is not None and repo is None:
        raise UsageError("--base needs --repo", hint="--repo DIR --base REV")
    run = verify_cards(paths, contract=contract, now=when, strict=strict, repo=repo, base=base,
                       stdin=stdin)  # fmt: skip

    def notice(message: str) -> None:
        if not quiet:
            sys.stderr.write(f"gov: {message}\n")
            sys.stderr.flush()

    for line in run.notes:
        notice(line)
    tally = write_card_results(run.results, fmt, verifying=True, color=color)
    message = tally.describe(True) if tally.cards else "no cards found"
    notice(f"{message} ({describe_source(run.contract)})" if run.contract else message)
    return 0 if tally.ok else 1


def main(args: list[str]) -> int | None:
    """Verify in the plain form and return the exit code, or None to use the typer command."""
    options = parse(args)
    if options is None:
        return None
    paths = options["paths"]
    if not paths:
        if sys.stdin is None or _tty(sys.stdin):
            return None  # the typer command says what to do
        paths = ["-"]
    fmt = options["format"] or (grammar.CARD_TTY if _tty(sys.stdout) else grammar.CARD_PIPE)
    try:
        code = verify(paths, fmt=fmt, contract=options["contract"], now=options["now"],
                      strict=options["strict"], repo=options["repo"], base=options["base"],
                      color=use_color(options["color"], sys.stdout), quiet=options["quiet"],
                      stdin=sys.stdin.buffer if sys.stdin is not None else None)  # fmt: skip
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 141
    except KeyboardInterrupt:
        sys.stderr.write("gov: interrupted\n")
        return 130
    except Exception as exc:
        from gov.core.errors import GovError

        if isinstance(exc, GovError):
            sys.stderr.write(f"gov: error: {exc}\n")
            return exc.exit_code
        sys.stderr.write(f"gov: error: internal error: {type(exc).__name__}: {exc} "
                         "(rerun with --debug for the traceback)\n")  # fmt: skip
        return 2
