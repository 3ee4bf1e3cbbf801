"""``gov completion SHELL``: print the shell completion script for bash, zsh or fish.

The script asks ``gov`` itself for candidates (``_GOV_COMPLETE=complete_SHELL gov`` with
the words typed so far), so completions always match the installed commands. The app is
built with ``add_completion=False`` (no ``--install-completion`` clutter on the root
command), which also leaves typer's completion classes unregistered: :func:`register`
registers them, or the script's callback would answer "Shell bash not supported".
"""

from __future__ import annotations

import sys
from enum import StrEnum
from typing import Annotated

import typer

from .. import options

PROG_NAME = "gov"
COMPLETE_VAR = "_GOV_COMPLETE"
SHELLS = ("bash", "zsh", "fish")

HELP = """Print the completion script for bash, zsh or fish, generated from the installed commands.

The script calls gov back with the words typed so far, so completions never go stale
after an upgrade. The same scripts are committed under completions/ (gov.bash, _gov and
gov.fish).

Example:

    gov completion bash > ~/.local/share/bash-completion/completions/gov

    gov completion zsh > ~/.zfunc/_gov    # with fpath+=(~/.zfunc) before compinit

    gov completion fish > ~/.config/fish/completions/gov.fish
"""


class Shell(StrEnum):
    bash = "bash"
    zsh = "zsh"
    fish = "fish"


def script(shell: str) -> str:
    """The script for ``shell``, as ``_GOV_COMPLETE=source_SHELL gov`` prints it."""
    # typer.completion re-exports these (stable since typer 0.12) without listing them.
    from typer.completion import get_completion_script  # type: ignore[attr-defined]

    return get_completion_script(prog_name=PROG_NAME, complete_var=COMPLETE_VAR, shell=shell) + "\n"


def register(app: typer.Typer) -> None:
    from typer.completion import completion_init  # type: ignore[attr-defined]

    completion_init()
    app.command("completion", help=HELP)(completion_command)


@options.shared()
def completion_command(
    shell: Annotated[Shell, typer.Argument(help="bash, zsh or fish.", show_default=False)],
    *,
    view: options.Output,
) -> int:
    sys.stdout.write(script(shell.value))
    return 0
