"""The conventions every gov command shares, kept in one place.

Exit codes: 0 success, 1 the check or input had problems, 2 usage or internal error.
Results go to stdout; progress, warnings and notices to stderr. Colour follows
``--color auto|always|never`` and ``NO_COLOR``. Errors are one line; the traceback only
with ``--debug``. A closed pipe ends the command quietly.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import sys
import traceback
import typing
from collections.abc import Callable
from enum import Enum
from pathlib import PurePath
from typing import IO, TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from gov.core.errors import GovError, UsageError

from . import grammar

if TYPE_CHECKING:
    from rich.console import Console

EXIT_OK = 0
EXIT_PROBLEMS = 1
EXIT_USAGE = 2
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a command killed by a closed pipe


class Color(str, Enum):
    auto = "auto"
    always = "always"
    never = "never"


ColorOpt = Annotated[
    Color,
    typer.Option(*grammar.COLOR, help="Colour: auto (terminal, unless NO_COLOR is set), always, never."),
]
QuietOpt = Annotated[bool, typer.Option(*grammar.QUIET, help="Print no notices or progress.")]
DebugOpt = Annotated[bool, typer.Option("--debug", help="Show the traceback on errors.")]


class _State:
    color: Color = Color.auto
    quiet: bool = False
    debug: bool = False


STATE = _State()
assert tuple(Color) == grammar.COLORS, "conventions.Color and grammar.COLORS must agree"


def configure(color: Color = Color.auto, quiet: bool = False, debug: bool = False) -> None:
    """Record the shared options of the running command."""
    STATE.color = color
    STATE.quiet = quiet
    STATE.debug = debug or bool(os.environ.get("GOV_DEBUG"))


def use_color(stream: IO[str]) -> bool:
    """Whether to colour ``stream``: ``--color`` wins, then ``NO_COLOR``, then the terminal."""
    if STATE.color is Color.always:
        return True
    if STATE.color is Color.never or os.environ.get("NO_COLOR"):
        return False
    return stream.isatty()


def is_tty(stream: IO[Any]) -> bool:
    try:
        return stream.isatty()
    except (ValueError, AttributeError):
        return False


def console(stderr: bool = False) -> Console:
    """A rich console for stdout or stderr that honours the colour policy."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    color = use_color(stream)
    return Console(
        file=stream,
        force_terminal=color,
        no_color=not color,
        highlight=False,
        soft_wrap=not is_tty(stream),
        width=None if is_tty(stream) else 200,
    )


def notice(message: str) -> None:
    """A notice for people, on stderr, unless ``--quiet``; cleaned (it may quote a corpus)."""
    if not STATE.quiet:
        from gov.core.sanitize import clean

        sys.stderr.write(f"gov: {clean(message)}\n")
        sys.stderr.flush()


def warn(message: str) -> None:
    """A warning on stderr; ``--quiet`` silences notices and progress, not warnings."""
    from gov.core.sanitize import clean

    sys.stderr.write(f"gov: warning: {clean(message)}\n")
    sys.stderr.flush()


def error_line(message: str) -> None:
    """One line, whatever the message holds (it may quote a crafted file)."""
    from gov.core.sanitize import clean

    sys.stderr.write(f"gov: error: {clean(message)}\n")
    sys.stderr.flush()


def resolve_format(requested: str | None, *, tty_default: str, pipe_default: str,
                   allowed: tuple[str, ...] | None = None) -> str:
    """The output format: the one asked for (one of ``allowed``, else a usage error), else
    ``tty_default`` on a terminal and ``pipe_default`` in a pipe."""
    if requested:
        if allowed is not None and requested not in allowed:
            choices = ", ".join(allowed[:-1]) + f" or {allowed[-1]}" if len(allowed) > 1 else allowed[0]
            raise UsageError(f"--format {requested!r}: use {choices}")
        return requested
    return tty_default if is_tty(sys.stdout) else pipe_default


def show_progress() -> bool:
    """Progress bars only on an interactive stderr and never with ``--quiet``."""
    return not STATE.quiet and is_tty(sys.stderr) and not os.environ.get("CI")


def _quiet_broken_pipe() -> int:
    # Point stdout at /dev/null so the interpreter's final flush cannot raise again.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return EXIT_BROKEN_PIPE


# --- help text: examples verbatim, placeholders named ---------------------------------------


def value_kind(param: Any) -> tuple[list[str] | None, str, bool]:
    """(choices, kind, a file only) of a parameter's value, from typer's or click's model.

    typer since 0.2x describes a parameter's type with a ``type_descriptor`` (the Python
    annotation); older typer builds click parameter types. Kind is int, float, path or str.
    """
    desc = getattr(param, "type_descriptor", None)
    if desc is not None:
        choices = [str(getattr(c, "value", c)) for c in desc.choices] if desc.choices else None
        annotation = desc.annotation
        if typing.get_origin(annotation) is list:
            annotation = typing.get_args(annotation)[0]
        kind = {int: "int", float: "float"}.get(annotation, "str")
        if isinstance(annotation, type) and issubclass(annotation, PurePath):
            kind = "path"
        file_only = getattr(desc.parameter_info, "dir_okay", True) is False
        return choices, kind, file_only
    ptype = param.type
    raw = getattr(ptype, "choices", None)
    choices = [str(getattr(c, "value", c)) for c in raw] if raw else None
    name = getattr(ptype, "name", "")
    kind = "int" if "integer" in name else "float" if "float" in name else (
        "path" if name == "path" else "str")
    return choices, kind, getattr(ptype, "dir_okay", True) is False


def metavar_of(param: Any) -> str:
    """A readable metavar: the declared one, the choices, or one named after the option."""
    declared = getattr(param, "metavar", None)
    if declared:
        return str(declared)
    choices, kind, file_only = value_kind(param)
    if choices:
        return "|".join(choices)
    if kind == "int":
        return "N"
    if kind == "float":
        return "NUMBER"
    if param.param_type_name == "argument":
        return str(param.name).upper()
    if kind == "path":
        return "FILE" if file_only else "PATH"
    return str(max(param.opts, key=len).lstrip("-").upper())


def _verbatim(text: str) -> str:
    """``text`` with click's no-rewrap marker before every indented paragraph, so examples
    print as written (a rewrapped line breaks a pasted ``\\`` continuation)."""
    out: list[str] = []
    paragraph: list[str] = []

    def flush() -> None:
        if not paragraph:
            return
        split = next((i for i, line in enumerate(paragraph) if line.startswith((" ", "\t"))), None)
        if split is not None and all(line.startswith((" ", "\t")) for line in paragraph[split:]):
            if split:
                out.extend([*paragraph[:split], ""])
            out.extend(["\b", *paragraph[split:]])
        else:
            out.extend(paragraph)
        paragraph.clear()

    for line in text.splitlines():
        if line.strip() in ("", "\b"):
            flush()
            if line.strip() == "" and out and out[-1] != "":
                out.append("")
            continue
        paragraph.append(line)
    flush()
    return "\n".join(out)


def prepare_help(command: Any) -> Any:
    """Ready a click command tree for ``--help``: examples verbatim, and every value named by
    a metavar (``TEXT``, ``PATH``, ``N``) instead of the Python type typer would print."""
    if command.help:
        head, marker, tail = command.help.partition("\f")
        command.help = _verbatim(inspect.cleandoc(head)) + marker + tail
    for param in command.params:
        if getattr(param, "is_flag", False) or getattr(param, "count", False):
            continue
        if value_kind(param)[0]:
            continue  # choices print as <a|b|c>
        if param.metavar is None:
            param.metavar = metavar_of(param)
        if param.param_type_name == "argument":
            param.display_type_rich = lambda ctx: None  # its metavar names it already
    for child in getattr(command, "commands", {}).values():
        prepare_help(child)
    return command


F = TypeVar("F", bound=Callable[..., Any])


def _exit_on_sigterm() -> None:
    """Turn SIGTERM into a normal exit, so buffered output ends on a whole line and
    temporary files are removed, as with Ctrl-C."""
    import signal

    def terminate(_signum: int, _frame: Any) -> None:
        raise SystemExit(128 + signal.SIGTERM)

    with contextlib.suppress(ValueError):  # not the main thread
        signal.signal(signal.SIGTERM, terminate)


def exit_code_of(exc: BaseException) -> int:
    """Turn an exception raised by a command into an exit code, printing one line."""
    if isinstance(exc, BrokenPipeError):
        return _quiet_broken_pipe()
    if isinstance(exc, GovError):
        error_line(str(exc))
        if STATE.debug:
            traceback.print_exception(exc)
        return exc.exit_code
    if isinstance(exc, KeyboardInterrupt):
        sys.stderr.write("gov: interrupted\n")
        return 130
    if isinstance(exc, MemoryError):
        error_line("out of memory")
        return EXIT_USAGE
    error_line(f"internal error: {type(exc).__name__}: {exc} (rerun with --debug for the traceback)")
    if STATE.debug:
        traceback.print_exception(exc)
    return EXIT_USAGE


def command(func: F) -> F:
    """Wrap a command body: errors become one line and an exit code, never a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        _exit_on_sigterm()
        try:
            code = func(*args, **kwargs)
        except typer.Exit:
            raise
        except (typer.Abort, SystemExit):
            raise
        except BaseException as exc:
            raise typer.Exit(exit_code_of(exc)) from None
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            raise typer.Exit(_quiet_broken_pipe()) from None
        raise typer.Exit(code or 0)

    return wrapper  # type: ignore[return-value]
