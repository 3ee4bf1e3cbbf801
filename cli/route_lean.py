"""The lean path for a one-shot ``gov route PROMPT``: no typer, no rich, no pydantic.

A one-shot route in a fresh process is what a shell alias or a script pays per prompt,
and typer with its option parsing costs about a quarter of a second before any routing.
This path takes only the simple form — one PROMPT with ``-i/--index``,
``--operating-point``, ``--format json|jsonl``, ``-e``, ``--lexical-only``, ``-q`` — and
returns None for anything else (stdin, ``--corpus``, text output, ``--help``, a typo),
which then goes through the typer command with identical results.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

VALUE_OPTIONS = {"-i": "index", "--index": "index", "--operating-point": "point", "--format": "format"}
FLAGS = {"-e": "exit_status", "--exit-status": "exit_status", "--lexical-only": "lexical_only",
         "-q": "quiet", "--quiet": "quiet"}


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
    if options["prompt"] is None or options["format"] not in (None, "json", "jsonl"):
        return None
    if options["format"] is None:
        if sys.stdout.isatty():
            return None  # text for people goes through rich
        options["format"] = "jsonl"
    return options


def run(options: dict[str, Any]) -> int:
    from gov.cli.route_output import default_index, from_server, output_row, write_served
    from gov.core import telemetry

    start = telemetry.process_start() or time.perf_counter()
    prompt: str = options["prompt"]
    index = Path(options["index"]) if options["index"] else None
    point = Path(options["point"]) if options["point"] else None
    if not options["lexical_only"]:
        served = from_server(prompt, index, point)
        if served is not None:
            return write_served(prompt, served, options["format"], options["exit_status"], start)
    with telemetry.attempt("cli", start=start) as attempt:
        from gov.core.errors import IndexLoadError
        from gov.core.routing.point import load_operating_point
        from gov.core.routing.router import load_index

        target = index or default_index()
        if not target.exists():
            raise IndexLoadError(f"no index at {target}",
                                 hint=f"build one with: gov index PATH -o {target}, or pass --corpus PATH")
        loaded = load_index(target, operating_point=load_operating_point(point) if point else None,
                            lexical_only=options["lexical_only"])
        if loaded.is_stale():
            roots = " ".join(loaded.header.get("roots", []))
            sys.stderr.write(f"gov: warning: index {target} is stale (its corpus changed since the build); "
                             f"rebuild with: gov index {roots} -o {target}\n")
        result = loaded.route(prompt, record=False)
        attempt.result_of(loaded, result)
        import orjson

        row = output_row({"prompt": prompt}, result)
        option = orjson.OPT_APPEND_NEWLINE | (orjson.OPT_INDENT_2 if options["format"] == "json" else 0)
        sys.stdout.buffer.write(orjson.dumps([row] if options["format"] == "json" else row, option=option))
        sys.stdout.buffer.flush()
    if loaded.degraded:
        sys.stderr.write(f"gov: warning: routing was lexical-only: {loaded.degraded_reason}\n")
    return 1 if options["exit_status"] and not result.routes else 0


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

        if not isinstance(exc, GovError):
            raise
        sys.stderr.write(f"gov: error: {exc}\n")
        return exc.exit_code
