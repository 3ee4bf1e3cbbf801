"""The ``gov`` console script: a tiny dispatcher that keeps the hot paths lean.

``gov hook …`` runs on every prompt a person types, so it must never go through
typer's argument handling (a usage error there exits 2) nor import typer, rich or the
numeric stack before it knows it routes in-process. A one-shot ``gov route`` and a plain
``gov card verify`` (a CI step, a pre-commit hook) have lean paths too. Everything else
goes to typer.
"""

from __future__ import annotations

import os
import sys


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "hook":
        from .commands.hook import main as hook_main

        sys.exit(hook_main(args[1:]))
    if args[:2] == ["card", "verify"] and not os.environ.get("GOV_DEBUG"):
        from .commands.card_lean import main as card_main

        code = card_main(args[2:])
        if code is not None:
            sys.exit(code)
    if args and args[0] == "route" and not os.environ.get("GOV_DEBUG"):
        from .commands.route_lean import main as route_main

        code = route_main(args[1:])
        if code is not None:
            sys.exit(code)
    from .main import run

    run(args)


if __name__ == "__main__":
    main()
