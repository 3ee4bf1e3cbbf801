"""The options commands share, declared once: one decorator adds ``--format``, ``--color``,
``--quiet`` and ``--debug``, and the index options are one set of types.

A command declares the formats it writes and its defaults on a terminal and in a pipe::

    @options.shared(formats=("text", "json"), tty="text", pipe="text")
    def eval_command(source: ..., *, view: options.Output) -> int:
        ...

The decorator gives typer a signature with the shared options added (and ``view``
removed), resolves them into an :class:`Output`, and runs the body under the conventions
of :mod:`gov.cli.conventions`: errors become one line and an exit code, never a traceback.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer

from . import conventions, grammar, reporters
from .conventions import Color, ColorOpt, DebugOpt, QuietOpt

F = TypeVar("F", bound=Callable[..., Any])

IndexOpt = Annotated[
    Path | None,
    typer.Option(*grammar.INDEX, help="Index file (default: $GOV_INDEX, else .gov/index).",
                 dir_okay=False),
]
CorpusOpt = Annotated[
    list[Path] | None,
    typer.Option("--corpus", help="Corpus folder or file; builds or refreshes the index as needed."),
]
PointOpt = Annotated[
    Path | None,
    typer.Option(*grammar.OPERATING_POINT, help="Operating point JSON (overrides the index's)."),
]
LexicalOnlyOpt = Annotated[
    bool, typer.Option(*grammar.LEXICAL_ONLY, help="Route by words alone (no embedding model).")
]


# An option whose metavar lists its values ("qualify|error|first") completes to them.
_VALUES = re.compile(r"[a-z0-9][a-z0-9_-]*(\|[a-z0-9][a-z0-9_-]*)+")


def values(listed: str) -> Callable[[str], list[str]]:
    """Shell completion for an option taking one of ``listed`` ("text|json")."""
    def complete(incomplete: str) -> list[str]:
        return [value for value in listed.split("|") if value.startswith(incomplete)]

    return complete


def document_names(ctx: typer.Context, incomplete: str) -> list[str]:
    """Shell completion for a document name: the names in the index the command would read
    (``-i`` as typed so far, else the one search); nothing when there is none."""
    try:
        from gov.core.index.stored import open_stored

        from .resolve import index_path

        stored = open_stored(index_path(ctx.params.get("index")))
        return [name for name in stored.names if name.startswith(incomplete)]
    except Exception:  # completion offers nothing rather than a traceback
        return []


def _complete_values(parameters: list[inspect.Parameter]) -> None:
    """Give each option whose metavar lists its values a completion of them."""
    for parameter in parameters:
        for info in getattr(parameter.annotation, "__metadata__", ()):
            if (isinstance(info, typer.models.OptionInfo) and info.autocompletion is None
                    and info.metavar and _VALUES.fullmatch(info.metavar)):
                info.autocompletion = values(info.metavar)


@dataclass(frozen=True)
class Output:
    """The shared options of the running command, resolved."""

    format: str
    color: Color
    quiet: bool
    debug: bool


def _format_help(formats: tuple[str, ...], tty: str, pipe: str) -> str:
    listed = ", ".join(formats[:-1]) + f" or {formats[-1]}" if len(formats) > 1 else formats[0]
    default = (f"{tty} on a terminal, {pipe} in a pipe" if tty != pipe else tty)
    return f"Output format: {listed} (default: {default})."


def shared(*, formats: tuple[str, ...] = ("text",), tty: str = "text", pipe: str | None = None,
           format_help: str | None = None) -> Callable[[F], F]:
    """Add the shared options to a command whose body takes ``view: Output``.

    ``formats`` are the ones the command writes (``--format`` is offered when there are
    several); ``tty`` and ``pipe`` are the defaults on a terminal and in a pipe.
    """
    formats = reporters.check_formats(formats)  # only formats the registry writes
    pipe_default = pipe or tty

    def decorate(func: F) -> F:
        signature = inspect.signature(func, eval_str=True)
        own = [p for p in signature.parameters.values() if p.name != "view"]
        added = []
        if len(formats) > 1:
            help_text = format_help or _format_help(formats, tty, pipe_default)
            added.append(inspect.Parameter(
                "fmt", inspect.Parameter.KEYWORD_ONLY, default=None,
                annotation=Annotated[str | None, typer.Option(
                    *grammar.FORMAT, help=help_text, metavar="|".join(formats),
                    show_default=False, autocompletion=values("|".join(formats)))]))
        added += [
            inspect.Parameter("color", inspect.Parameter.KEYWORD_ONLY, default=Color.auto,
                              annotation=ColorOpt),
            inspect.Parameter("quiet", inspect.Parameter.KEYWORD_ONLY, default=False,
                              annotation=QuietOpt),
            inspect.Parameter("debug", inspect.Parameter.KEYWORD_ONLY, default=False,
                              annotation=DebugOpt),
        ]

        @functools.wraps(func)
        def wrapper(**kwargs: Any) -> Any:
            requested = kwargs.pop("fmt", None)
            color, quiet, debug = kwargs.pop("color"), kwargs.pop("quiet"), kwargs.pop("debug")
            conventions.configure(color, quiet, debug)
            chosen = conventions.resolve_format(requested, tty_default=tty,
                                                pipe_default=pipe_default, allowed=formats)
            return func(**kwargs, view=Output(chosen, color, quiet, debug))

        parameters = [*own, *added]
        _complete_values(parameters)
        wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=parameters)
        wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
        del wrapper.__wrapped__  # typer must read the new signature, not the body's
        return conventions.command(wrapper)  # type: ignore[return-value]

    return decorate
