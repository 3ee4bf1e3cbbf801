"""The lean path for a one-shot ``gov route PROMPT``: no typer, no rich, no pydantic.

A one-shot route in a fresh process is what a shell alias or a script pays per prompt,
and typer with its option parsing costs about a quarter of a second before any routing.
This path takes only the simple form — one PROMPT with ``-i/--index``,
``--operating-point``, ``--format json|jsonl``, ``-e``, ``--lexical-only``, ``-q`` — and
returns None for anything else (stdin, ``--corpus``, text output, ``--help``, a typo),
which then goes through the typer command with identical results. The typer command
shares :func:`from_server` and :func:`write_one` with it.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gov.core.index.locate import Found
    from gov.core.routing.answer import RouteAnswer

from .. import grammar

VALUE_OPTIONS = grammar.table(index=grammar.INDEX, point=grammar.OPERATING_POINT,
                              format=grammar.FORMAT[:1])  # -f goes to typer
FLAGS = grammar.table(exit_status=grammar.EXIT_STATUS, lexical_only=grammar.LEXICAL_ONLY,
                      quiet=grammar.QUIET)


def parse(args: list[str]) -> dict[str, Any] | None:
    """The options of the simple form, or None when the typer command must handle it."""
    options: dict[str, Any] = {"prompt": None, "index": None, "point": None, "format": None,
                               "exit_status": False, "lexical_only": False, "quiet": False}
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        key, eq, inline = arg.partition("=")
        if key in VALUE_OPTIONS:
            value = inline if eq else (rest.pop(0) if rest else None)
            if value is None or value.startswith("-"):
                return None
            options[VALUE_OPTIONS[key]] = value
        elif arg in FLAGS:
            options[FLAGS[arg]] = True
        elif arg.startswith("-") or options["prompt"] is not None:
            return None
        else:
            options["prompt"] = arg
    if options["prompt"] is None or options["format"] not in (None, *grammar.ROUTE_LEAN_FORMATS):
        return None
    if options["format"] is None:
        if sys.stdout.isatty():
            return None  # text for people goes through rich
        options["format"] = grammar.ROUTE_PIPE
    return options


def from_server(prompt: str, found: Found, point: str | None) -> RouteAnswer | None:
    """The warm server's answer for one prompt on the index ``found`` (the caller's one
    search), or None to route in-process."""
    from gov.core.routing.answer import RouteAnswer
    from gov.core.serving import protocol, wire

    if not found.exists:
        return None
    served = protocol.request(
        wire.RouteRequest(found.path, prompt, os.path.abspath(point) if point else None),
        timeout=1.0,
    )
    if served is None:
        return None
    try:
        return RouteAnswer.from_wire(served.answer)
    except (KeyError, TypeError, ValueError):
        return None


def write_one(prompt: str, answer: RouteAnswer, out_format: str, exit_status: bool,
              start: float, attempts: int = 1) -> int:
    """Write one prompt's row (json or jsonl) and record its telemetry event."""
    from gov.core import telemetry

    with telemetry.attempt("cli", start=start) as attempt:
        attempt.attempts = attempts
        attempt.answered(answer)
        from ..reporters import write_json

        row = answer.row({"prompt": prompt})
        write_json([row] if out_format == "json" else row, indent=out_format == "json")
        sys.stdout.buffer.flush()
    return 1 if exit_status and not answer.routes else 0


def run(options: dict[str, Any]) -> int:
    from gov.core import telemetry

    start = telemetry.process_start() or time.perf_counter()
    telemetry.warn_on_loss()  # an unwritable or refused log is said once, not lost unseen
    prompt: str = options["prompt"]
    from gov.core.index.locate import find_index, no_index

    found = find_index(options["index"])  # once: the server and the process read the same
    if not options["lexical_only"]:
        served = from_server(prompt, found, options["point"])
        if served is not None:
            return write_one(prompt, served, options["format"], options["exit_status"], start)
    with telemetry.attempt("cli", start=start):  # records a failure to open the index
        from gov.core.routing.indexes import load_index
        from gov.core.routing.point import load_operating_point

        target = options["index"] or found.path  # named as given
        if not found.exists:
            raise no_index(target)
        point = options["point"]
        loaded = load_index(target,
                            operating_point=load_operating_point(point) if point else None,
                            lexical_only=options["lexical_only"])
        if loaded.is_stale():
            sys.stderr.write(f"gov: warning: {stale_warning(loaded, target)}\n")
        answer = loaded.route(prompt, record=False)
    code = write_one(prompt, answer, options["format"], options["exit_status"], start)
    if loaded.degraded:
        sys.stderr.write(f"gov: warning: routing was lexical-only: {loaded.degraded_reason}\n")
    return code


def stale_warning(loaded: Any, target: object) -> str:
    from gov.core.index.fileformat import rebuild_hint

    return (f"index {target} is stale (its corpus changed since the build); "
            + rebuild_hint(str(target), {"roots": list(loaded.header.roots)}).replace(
                "rebuild it with", "rebuild with"))


def main(args: list[str]) -> int | None:
    """Route the simple form and return its exit code, or None to use the typer command."""
    options = parse(args)
    if options is None:
        return None
    try:
        return run(options)
    except BrokenPipeError:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except OSError:
            pass
        return 141
    except Exception as exc:
        from gov.core.errors import GovError
        from gov.core.sanitize import clean

        if not isinstance(exc, GovError):
            if os.environ.get("GOV_DEBUG"):
                raise
            sys.stderr.write(f"gov: error: internal error: {type(exc).__name__}: "
                             f"{clean(str(exc), 400)} (rerun with GOV_DEBUG=1 for the traceback)\n")
            return 2
        sys.stderr.write(f"gov: error: {clean(str(exc))}\n")
        return exc.exit_code
