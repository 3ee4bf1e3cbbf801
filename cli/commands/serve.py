"""``gov serve``: keep indexes and the model loaded so each hook turn costs milliseconds."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from .. import conventions, options

HELP = """Run the warm route server on a Unix socket in your runtime folder.

The hook and gov route use it when it is there (the hook starts it on demand). It reloads
an index whose file changed, serves several indexes and exits after --idle-timeout seconds
without requests.

Example:

    gov serve --status

    gov serve --idle-timeout 600 &

    gov serve --stop
"""


def register(app: typer.Typer) -> None:
    app.command("serve", help=HELP)(serve_command)


@options.shared(formats=("text", "json"), tty="text", pipe="text")
def serve_command(
    status: Annotated[bool, typer.Option("--status", help="Say whether a server is running, and exit.")] = False,
    stop: Annotated[bool, typer.Option("--stop", help="Stop the running server.")] = False,
    idle_timeout: Annotated[int, typer.Option("--idle-timeout", min=1, help="Seconds without requests before exiting.")] = 1800,
    *,
    view: options.Output,
) -> int:
    fmt = view.format
    from gov.core.serving import server as serve

    if status:
        info = serve.status()
        if fmt == "json":
            from gov.core.serving.protocol import identity

            from ..reporters import write_json

            # As the server sent it: a reply is taken only from this installation and version.
            sent = {"ok": True, **info.fields(), **identity()} if info else {}
            write_json({"running": info is not None, **sent})
        elif info is None:
            sys.stdout.write("gov serve: not running\n")
        else:
            sys.stdout.write(f"gov serve: running (pid {info.pid}, up {info.uptime_s} s, "
                             f"{info.requests} requests, indexes: {', '.join(info.indexes) or 'none'})\n")
        return 0 if info is not None else 1
    if stop:
        stopped = serve.stop()
        conventions.notice("stopped the server" if stopped else "no server was running")
        return 0
    from gov.core.serving.protocol import socket_path

    conventions.notice(f"serving on {socket_path()} (idle timeout {idle_timeout} s)")
    code = serve.serve(idle_seconds=idle_timeout)
    if code == 1:
        conventions.notice("a server is already running")
    return code
