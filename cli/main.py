"""The typer application: the root command and the registry of subcommand modules."""

from __future__ import annotations

import importlib
import sys
from typing import Annotated

import typer

from gov.core import __version__

app = typer.Typer(
    name="gov",
    help=(
        "Route prompts to the policies that govern them, and verify the task cards agents hand "
        "back.\n\n"
        "Example:\n\n"
        "    gov index examples/policies -o .gov/index\n\n"
        "    gov route \"roll back last night's release\" -i .gov/index"
    ),
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

# One module per subcommand group; each exposes ``register(app)``.
COMMAND_MODULES = [
    "gov.cli.commands.index",
    "gov.cli.commands.route",
    "gov.cli.commands.show",
    "gov.cli.commands.list",
    "gov.cli.commands.hook",
    "gov.cli.commands.card",
    "gov.cli.commands.eval",
    "gov.cli.commands.lint",
    "gov.cli.commands.calibrate",
    "gov.cli.commands.label",
    "gov.cli.commands.telemetry",
    "gov.cli.commands.serve",
    "gov.cli.commands.mcp",
    "gov.cli.commands.doctor",
    "gov.cli.commands.completion",
]


def _version(value: bool) -> None:
    if value:
        from gov.core.encode.bundle import default_id

        sys.stdout.write(f"gov {__version__} (embedding model: {default_id()})\n")
        raise typer.Exit(0)


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option("--version", "-V", help="Print the version and the embedding model.",
                     callback=_version, is_eager=True),
    ] = False,
) -> None:
    """gov: policy routing and task cards for AI agent fleets."""


def _register() -> None:
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue
            raise
        register = getattr(module, "register", None)
        if register is not None:
            register(app)


_register()


def run(args: list[str]) -> None:
    """Run the app; a usage error is one line naming the help to read, exit 2."""
    from typer.exceptions import TyperException

    from .conventions import prepare_help

    try:
        command = prepare_help(typer.main.get_command(app))
        code = command.main(args=args, prog_name="gov", standalone_mode=False)
    except TyperException as exc:
        if type(exc).__name__ == "NoArgsIsHelpError":  # bare `gov` or a bare group: its help
            sys.stdout.write(exc.format_message().rstrip("\n") + "\n")
            sys.exit(0)
        ctx = getattr(exc, "ctx", None)
        where = ctx.command_path if ctx is not None else "gov"
        sys.stderr.write(f"gov: error: {exc.format_message()} (see {where} --help)\n")
        sys.exit(exc.exit_code)
    except typer.Abort:
        sys.stderr.write("gov: interrupted\n")
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)
