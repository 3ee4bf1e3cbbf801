"""``gov hook claude-code|codex``: the UserPromptSubmit hook, which never blocks a prompt.

It runs on every prompt a person types, so it parses its own arguments (typer's usage
errors exit 2, which a harness may treat as "block the turn"), imports nothing heavy
before it knows it must route in-process, asks the warm server first, and whatever goes
wrong exits 0 with nothing on stdout and one line on stderr.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from typing import Any

HARNESSES = ("claude-code", "codex")
MAX_STDIN = 4 * 1024 * 1024

HELP = """usage: gov hook {claude-code|codex} [-i INDEX] [--operating-point FILE] [--serve auto|never]

The UserPromptSubmit hook: reads the harness's JSON payload on stdin, routes its prompt,
and prints {"hookSpecificOutput": {"hookEventName": "UserPromptSubmit",
"additionalContext": "..."}} only when a document governs the prompt. It always exits 0;
problems are one line on stderr.

  -i, --index FILE          index (default: $GOV_INDEX, else .gov/index under the payload's cwd)
  --operating-point FILE    operating point JSON
  --serve auto|never        use the warm server, starting it on demand (auto, the default)

Example:

    echo '{"prompt": "roll back the release from last night", "cwd": "."}' | gov hook claude-code

    In .claude/settings.json: {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command",
    "command": "gov hook claude-code"}]}]}}
"""


class HookProblem(Exception):
    """A reason the hook does nothing this turn (reported on stderr, never blocking)."""

    def __init__(self, message: str, failure_class: str = "input") -> None:
        super().__init__(message)
        self.failure_class = failure_class


def parse_args(argv: list[str]) -> dict[str, Any] | None:
    """Options as a dict, or None when help was asked for."""
    if any(arg in ("-h", "--help") for arg in argv):
        return None
    options: dict[str, Any] = {"harness": None, "index": None, "point": None, "serve": "auto"}
    args = list(argv)
    while args:
        arg = args.pop(0)
        key, _, inline = arg.partition("=")
        if key in ("-i", "--index", "--operating-point", "--serve"):
            value = inline if inline else (args.pop(0) if args else None)
            if value is None:
                raise HookProblem(f"{key} needs a value")
            if key == "--serve":
                if value not in ("auto", "never"):
                    raise HookProblem("--serve must be auto or never")
                options["serve"] = value
            else:
                options["index" if key in ("-i", "--index") else "point"] = value
        elif arg in HARNESSES and options["harness"] is None:
            options["harness"] = arg
        else:
            raise HookProblem(f"unknown argument {arg!r} (see gov hook --help)")
    if options["harness"] is None:
        raise HookProblem("name the harness: gov hook claude-code, or gov hook codex")
    return options


def read_payload(stream: Any) -> dict[str, Any]:
    import json  # not orjson: its import alone costs a warm turn about 10 ms

    data = stream.read(MAX_STDIN + 1)
    if not data or not data.strip():
        raise HookProblem("empty stdin: expected the harness's UserPromptSubmit JSON")
    if len(data) > MAX_STDIN:
        raise HookProblem(f"stdin is over {MAX_STDIN} bytes; not routing this prompt")
    try:
        payload = json.loads(data, parse_constant=_no_constant)
    except (ValueError, RecursionError):  # bad JSON, bad UTF-8, NaN, absurd nesting
        raise HookProblem("stdin is not valid JSON") from None
    if not isinstance(payload, dict):
        raise HookProblem("stdin must be a JSON object")
    if not isinstance(payload.get("prompt"), str):
        raise HookProblem("payload field 'prompt' is missing or not a string")
    try:
        payload["prompt"].encode("utf-8")
    except UnicodeEncodeError:
        raise HookProblem("payload field 'prompt' is not valid Unicode (a lone surrogate)") from None
    return payload


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def index_for(options: dict[str, Any], payload: dict[str, Any]) -> str:
    from gov.core.index.locate import default_index

    cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
    base = cwd or os.getcwd()
    path = options["index"] or default_index(base)
    return os.path.abspath(os.path.join(base, path))


def route(options: dict[str, Any], index_path: str, prompt: str) -> tuple[Any, int]:
    """The answer from the warm server, else from routing in-process; and the attempts."""
    from gov.core.routing.answer import RouteAnswer

    point = os.path.abspath(options["point"]) if options["point"] else None
    if not os.path.isfile(index_path):
        from gov.core.index.locate import no_index

        raise HookProblem(str(no_index(index_path, corpus_option=False)), "index_load")
    if point is not None and not os.path.isfile(point):
        raise HookProblem(f"operating point {point} not found", "index_load")
    attempts = 0
    if options["serve"] != "never":
        from gov.core.serving import protocol

        attempts += 1
        served = protocol.request(
            {"op": "route", "index": index_path, "prompt": prompt, "operating_point": point},
            timeout=float(os.environ.get("GOV_SERVE_TIMEOUT", "1.5")),
        )
        if served is not None:
            try:
                return RouteAnswer.from_wire(served), attempts
            except (KeyError, TypeError, ValueError):
                pass  # not an answer: route in-process
        else:
            protocol.spawn_server()
    attempts += 1
    from gov.core.routing.indexes import load_index
    from gov.core.routing.point import load_operating_point

    loaded = load_index(index_path, operating_point=load_operating_point(point) if point else None)
    return loaded.route(prompt, record=False), attempts


def run(argv: list[str], stdin: Any, stdout: Any, start: float) -> None:
    from gov.core import telemetry
    from gov.core.serving.hook_context import MIN_PROMPT_CHARS, hook_output, render

    record = telemetry.attempt("hook", start=start)
    try:
        options = parse_args(argv)
        if options is None:
            stdout.write(HELP.encode())
            return
        payload = read_payload(stdin)
        prompt = payload["prompt"]
        if len(prompt.strip()) < MIN_PROMPT_CHARS:
            record.result([])
            return
        index_path = index_for(options, payload)
        answer, attempts = route(options, index_path, prompt)
        record.attempts = attempts
        record.answered(answer)
        if answer.routes:
            import json

            cwd = payload.get("cwd") if isinstance(payload.get("cwd"), str) else None
            shown = index_path if options["index"] or os.environ.get("GOV_INDEX") else None
            text = json.dumps(hook_output(render(answer, cwd, shown)), ensure_ascii=False,
                              separators=(",", ":"))
            stdout.write(text.encode("utf-8") + b"\n")  # a lone surrogate raises: no output
            stdout.flush()
    except BaseException as exc:
        failure = getattr(exc, "failure_class", None)
        record.fail(failure if isinstance(failure, str) else exc)
        raise
    finally:
        record.close()


def main(argv: list[str], stdin: Any = None, stdout: Any = None, stderr: Any = None) -> int:
    """Run the hook; always return 0."""
    start = time.perf_counter()
    with contextlib.suppress(Exception):  # timing is best effort
        from gov.core.telemetry.attempt import process_start

        start = process_start() or start
    try:
        run(argv, stdin or sys.stdin.buffer, stdout or sys.stdout.buffer, start)
    except BaseException as exc:  # a hook must never block the prompt
        message = str(exc) if isinstance(exc, HookProblem) or hasattr(exc, "exit_code") else (
            f"{type(exc).__name__}: {exc}")
        first = message.splitlines()[0] if message else type(exc).__name__
        with contextlib.suppress(Exception):
            from gov.core.sanitize import clean  # the message may quote a crafted file

            first = clean(first, 2000)
            (stderr or sys.stderr).write(f"gov hook: {first}\n")
    return 0


def register(app: Any) -> None:
    """List ``hook`` in ``gov --help`` and completions; the console script runs it lean."""
    import typer

    def hook_command(ctx):  # type: ignore[no-untyped-def]
        raise typer.Exit(main(list(ctx.args)))

    hook_command.__annotations__ = {"ctx": typer.Context, "return": None}
    app.command("hook", help=HELP, short_help="The UserPromptSubmit hook for Claude Code and Codex.",
                context_settings={"ignore_unknown_options": True,
                                                     "allow_extra_args": True})(hook_command)
