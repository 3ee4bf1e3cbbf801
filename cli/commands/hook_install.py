"""``gov hook install|uninstall HARNESS``: gov's hook merged into (or taken out of) a
harness's settings file, through :mod:`gov.core.serving.install`.

Reached from ``gov hook``'s lean entry (which parses its own arguments), so this module
parses its own too and prints one line per error; exit codes as everywhere: 0 done, 2 a
usage or input error.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TextIO

from gov.core.serving.harness import HARNESSES

USAGE = ("usage: gov hook install|uninstall {" + "|".join(HARNESSES) + "} "
         "[--user | --project DIR] [--program PROGRAM] [--dry-run]")

HELP = USAGE + """

install merges gov's entries into the harness's own settings file, keeping every other key
and hook; uninstall removes exactly gov's entries (any command running `gov hook HARNESS`).
Installing twice is installing once. The file is replaced atomically and the previous one
kept beside it as FILE.gov-backup.

  (default)          the project's settings in the current folder: .claude/settings.json,
                     .codex/hooks.json, .gemini/settings.json, .github/hooks/gov.json,
                     .cursor/hooks.json
  --project DIR      the project's settings in DIR
  --user             the user's own settings (~/.claude/settings.json, ~/.codex/hooks.json,
                     ~/.gemini/settings.json, ~/.copilot/hooks/gov.json, ~/.cursor/hooks.json)
  --program PROGRAM  the program the command runs (default: this gov by absolute path, which
                     works without PATH; give `gov` for a file the whole team shares)
  --dry-run          print the change as a diff and write nothing

Example:

    gov hook install claude-code

    gov hook install cursor --program gov --dry-run

    gov hook uninstall claude-code
"""


class _Usage(Exception):
    pass


def _parse(argv: list[str]) -> dict[str, object]:
    options: dict[str, object] = {"harness": None, "user": False, "project": None,
                                  "program": None, "dry_run": False}
    args = list(argv)
    while args:
        arg = args.pop(0)
        key, eq, inline = arg.partition("=")
        if key in ("--project", "--program"):
            value = inline if eq else (args.pop(0) if args else None)
            if not value:
                raise _Usage(f"{key} needs a value")
            options[key[2:]] = value
        elif arg == "--user":
            options["user"] = True
        elif arg == "--dry-run":
            options["dry_run"] = True
        elif arg in HARNESSES and options["harness"] is None:
            options["harness"] = arg
        elif not arg.startswith("-") and options["harness"] is None:
            raise _Usage(f"unknown harness {arg[:60]!r}: one of {', '.join(HARNESSES)}")
        else:
            raise _Usage(f"unknown argument {arg[:60]!r}")
    if options["harness"] is None:
        raise _Usage("name the harness: " + ", ".join(HARNESSES))
    if options["user"] and options["project"] is not None:
        raise _Usage("--user and --project are exclusive")
    return options


def main(action: str, argv: list[str], stdout: TextIO | None = None,
         stderr: TextIO | None = None) -> int:
    """Install or uninstall; the exit code."""
    out, err = stdout or sys.stdout, stderr or sys.stderr
    if any(arg in ("-h", "--help") for arg in argv):
        out.write(HELP)
        return 0
    from gov.core.errors import GovError
    from gov.core.serving import install

    try:
        options = _parse(argv)
        harness = str(options["harness"])
        project = Path(str(options["project"])) if options["project"] is not None else None
        if project is not None and not project.is_dir():
            raise _Usage(f"--project {project}: not a folder")
        path = install.settings_path(harness, project, bool(options["user"]))
        dry = bool(options["dry_run"])
        if action == "install":
            program = options["program"]
            change = install.install(harness, path, program=str(program) if program else None,
                                     dry_run=dry)
        else:
            change = install.uninstall(harness, path, dry_run=dry)
    except _Usage as exc:
        err.write(f"gov: error: {exc}\n{USAGE}\n")
        return 2
    except GovError as exc:
        err.write(f"gov: error: {exc}\n")
        return int(exc.exit_code)
    if dry and change.diff:
        out.write(change.diff)
        out.write("(dry run: nothing written)\n")
    out.write(("would change " if dry and change.diff else "") + change.summary() + "\n")
    if action == "install" and not options["user"]:
        _note_index(project or Path.cwd(), err)
    return 0


def _note_index(project: Path, err: TextIO) -> None:
    """Say so when the hook would find no index from the project folder yet."""
    from gov.core.index.locate import find_index

    found = find_index(cwd=os.fspath(project), environ={})
    if not found.exists:
        err.write(f"gov: note: no index at {found.path} yet; build it with: "
                  f"gov index PATH -o {found.path}\n")
