"""``gov hook HARNESS``: the hook on every prompt and tool call, which never blocks a turn.

It runs on every prompt a person types (and, for read tracking, after every tool call), so
this module is the whole of the hook process's fast path: it imports nothing Python has
not loaded at start-up but ``_socket``, reads stdin as bytes, hands argv, stdin and a few
environment variables to the warm server (which parses, routes, remembers and renders the
harness's output itself; :mod:`gov.core.serving.hook_service`), and prints what comes
back. Only when no server answers does it import the library and run the same turn
in-process (:func:`gov.core.serving.hook_turn.run`), starting the server for next time.
Whatever goes wrong it exits 0 with nothing on stdout and at most one line on stderr;
it parses its own arguments, as typer's usage errors exit 2, which a harness may treat
as "block the turn".
"""

import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, BinaryIO, TextIO

    from gov.core.serving.wire import HookReply

TEXT = """The harness hook: reads the harness's JSON payload on stdin and acts on its event, the
same command for every event of one harness:

  prompt (UserPromptSubmit; Gemini CLI: BeforeAgent)  routes the prompt and prints the
      harness's context object, {{"hookSpecificOutput": {{"hookEventName": ...,
      "additionalContext": "..."}}}}, only when a document governs the prompt. Within a
      session a document already pasted is named again in a few bytes ("still applies").
  session start (Copilot, Cursor)  these cannot add context per prompt: prints the
      corpus's document names and how to ask gov, once per session.
  tool use (PostToolUse; Gemini CLI: AfterTool)  notes whether the agent opened a
      document gov routed earlier in the session (gov show NAME, a read of its file,
      get_policy or gov://documents/NAME over MCP) as a telemetry read event, with only
      names the index knows, the session's id hashed, and turns and seconds since the
      route; prints nothing.
  compaction, or a session start after clear or compact  session memory pastes in full
      again.

Set up with `gov hook install HARNESS` (see `gov hook install --help`): it merges gov's
entries into the harness's settings file, naming this gov by absolute path.

A turn always exits 0; problems are one line on stderr (none for tool events, which fire
on every tool call).

{options}

What install writes for each harness is in examples/harness/.

Example:

    gov hook install claude-code

    echo '{{"prompt": "roll back the release from last night", "cwd": "."}}' | gov hook claude-code
"""


def help_text() -> str:
    """``gov hook --help``: the usage and the options from the hook's one grammar
    (:mod:`gov.core.serving.hook_grammar`, which the warm server parses by)."""
    from gov.core.serving.harness import HARNESSES
    from gov.core.serving.hook_grammar import (
        INDEX,
        NO_SESSION_MEMORY,
        OPERATING_POINT,
        SERVE,
        SERVE_CHOICES,
        options_help,
    )

    usage = (f"usage: gov hook {{{'|'.join(HARNESSES)}}} [{INDEX[1]} INDEX] [{OPERATING_POINT[0]} FILE]"
             f" [{SERVE[0]} {'|'.join(SERVE_CHOICES)}] [{NO_SESSION_MEMORY[0]}]\n"
             "       gov hook install|uninstall HARNESS [--user | --project DIR] [--program PROGRAM] [--dry-run]\n\n")
    return usage + TEXT.format(options=options_help())


def _process_start() -> float:
    """When this process started, on the ``perf_counter`` clock (a monotonic clock shared by
    every process, so the server can time the turn); now, where /proc cannot say."""
    import time

    now = time.perf_counter()
    try:
        with open("/proc/self/stat", "rb") as handle:
            stat = handle.read()
        ticks = int(stat[stat.rindex(b")") + 2 :].split()[19])
        elapsed = time.clock_gettime(time.CLOCK_BOOTTIME) - (ticks + 0.5) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - elapsed if 0 <= elapsed < 60 else now


def _runtime_dir() -> "str | None":
    """The warm server's folder (as ``protocol.runtime_dir`` finds it), if it is safely ours.
    None means: let the full client decide (it also creates and repairs the folder)."""
    from gov.core.serving.identity import runtime_folder

    folder = runtime_folder()
    try:
        info = os.lstat(folder)
    except OSError:
        return None
    if info.st_mode & 0o170000 != 0o040000 or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return None
    return folder


def _ask_server(argv: "list[str]", data: bytes, start: float
                ) -> "tuple[str, bytes, HookReply | None]":
    """The first exchange with the warm server (:mod:`gov.core.serving.wire`, one deadline
    for the whole exchange, a capped reply): its outcome, the request's bytes, and the
    reply when it is this installation's."""
    from gov.core.serving import identity, wire  # gov's version, a hash and the framing
    from gov.core.serving.hook_grammar import ENV_KEYS

    environ = {key: os.environ.get(key) or "" for key in ENV_KEYS}
    request = wire.HookRequest(argv, os.getcwd(), environ, start, data).encode()
    folder = _runtime_dir()
    if folder is None:
        return wire.ABSENT, request, None
    began = time.monotonic()
    outcome, blob = wire.exchange(os.path.join(folder, identity.stem() + ".sock"), request,
                                  began + wire.reply_seconds())
    if outcome != wire.ANSWERED:
        return outcome, request, None
    reply = identity.accepted(blob)
    if reply is None:
        return wire.WRONG, request, None  # garbage, or another installation's or version's server
    return outcome, request, reply


def main(argv: "list[str]", stdin: "BinaryIO | None" = None, stdout: "BinaryIO | None" = None,
         stderr: "TextIO | None" = None) -> int:
    """Run the hook (always 0), or ``install``/``uninstall`` (their exit code)."""
    if argv[:1] in (["install"], ["uninstall"]):  # setting up, not a turn: real exit codes
        from .hook_install import main as manage

        return manage(argv[0], argv[1:])
    start = _process_start()
    err = stderr or sys.stderr
    try:
        from gov.core.serving import hook_grammar  # imports nothing

        if any(arg in hook_grammar.HELP for arg in argv):
            (stdout or sys.stdout.buffer).write(help_text().encode())
            return 0
        from gov.core.serving.wire import MAX_STDIN  # standard library only

        data = (stdin or sys.stdin.buffer).read(MAX_STDIN + 1)
        asked = not hook_grammar.serve_never(argv)
        if asked:
            began = time.monotonic()
            outcome, request, served = _ask_server(argv, data, start)
            if served is None:  # one hook restarts the server; the others wait or pass
                from gov.core.serving import protocol

                decision, served = protocol.recover(outcome, request, began)
                if decision == protocol.NOTHING:
                    return 0
            if served is not None:
                out = stdout or sys.stdout.buffer
                if served.stdout:
                    out.write(served.stdout)
                    out.flush()
                if served.stderr:
                    err.write(served.stderr + "\n")
                return 0
        _in_process(argv, data, start, stdout or sys.stdout.buffer, err, asked)
    except BaseException as exc:  # a hook must never block the turn
        try:
            first = (str(exc).splitlines() or [""])[0] or type(exc).__name__
            err.write(f"gov hook: {type(exc).__name__}: {first}\n")
        except Exception:  # nowhere left to say it
            pass
    return 0


def _in_process(argv: "list[str]", data: bytes, start: float, stdout: "BinaryIO", stderr: "TextIO",
                asked: bool) -> None:
    """The turn without a server: the same function the server runs, in this process."""
    from gov.core import telemetry
    from gov.core.serving import hook_turn
    from gov.core.telemetry.sinks import block_otel

    block_otel()  # the warm server exports; this process must not wait to
    files = None
    if telemetry.active_sink() is not None:  # read tracking needs the session's routes
        from gov.core.serving.hook_service import count_losses, session_folder

        count_losses()  # for gov doctor: the hook's stderr says nothing of telemetry
        from gov.core.serving.sessions import SessionFiles

        try:
            files = SessionFiles(session_folder())
        except Exception:  # an unsafe runtime folder: no read tracking this turn
            files = None
    backend = hook_turn.InProcess(attempts=2 if asked else 1, files=files)
    turn = hook_turn.run(argv, data, cwd=os.getcwd(), environ=os.environ, start=start,
                         backend=backend)
    try:
        if turn.stdout:
            stdout.write(turn.stdout)
            stdout.flush()
        if turn.stderr:
            stderr.write(turn.stderr + "\n")
    finally:
        turn.finish()
        backend.save_sessions()
    if asked and backend.used:
        from gov.core.serving import protocol

        protocol.spawn_server()  # next turn goes to the warm server


def register(app: "Any") -> None:
    """List ``hook`` in ``gov --help`` and completions; the console script runs it lean."""
    import typer

    def hook_command(ctx):  # type: ignore[no-untyped-def]
        raise typer.Exit(main(list(ctx.args)))

    hook_command.__annotations__ = {"ctx": typer.Context, "return": None}
    app.command("hook", help=help_text(), short_help="The harness hook: routes each prompt, notes which routed documents the agent read.",
                cls=_completing_command(),
                context_settings={"ignore_unknown_options": True,
                                  "allow_extra_args": True})(hook_command)


def _completing_command() -> "Any":
    """The hook's command class: its words are parsed by :func:`main`, not by options, so
    it completes them itself: install, uninstall or a harness first, a harness after
    install or uninstall."""
    from typer.core import TyperCommand

    class HookCommand(TyperCommand):
        def get_help(self, ctx: "Any") -> str:
            return help_text().rstrip("\n")  # what the lean path prints for --help (click adds the newline)

        def shell_complete(self, ctx: "Any", incomplete: str) -> "Any":
            from click.shell_completion import CompletionItem

            from gov.core.serving.harness import HARNESSES

            words = [word for word in ctx.args if not word.startswith("-")]
            if incomplete.startswith("-") or len(words) > 1 or (
                    words and words[0] not in ("install", "uninstall")):
                return super().shell_complete(ctx, incomplete)
            offered = list(HARNESSES) if words else ["install", "uninstall", *HARNESSES]
            return [CompletionItem(word) for word in offered if word.startswith(incomplete)]

    return HookCommand
