"""What a ``gov hook HARNESS …`` invocation says: its argument grammar, the one parser of it,
and the variables a hook process forwards to the warm server.

Declared here, once, because the warm server (started as ``python -m
gov.core.serving.server``) parses the argv a hook process hands it, and the library never
imports the CLI: ``gov.cli.grammar`` takes the hook's option names from this module, the
hook's ``--help`` is written from :data:`OPTIONS`, and :func:`parse` reads them for the
server and the in-process turn alike. Imports nothing: the hook process reads it on every
turn.
"""

# Option names (long first, then the short one), shared with the typer commands through
# gov.cli.grammar
INDEX = ("--index", "-i")
OPERATING_POINT = ("--operating-point",)
SERVE = ("--serve",)
NO_SESSION_MEMORY = ("--no-session-memory",)
HELP = ("-h", "--help")

SERVE_CHOICES = ("auto", "never")
SERVE_AUTO, SERVE_NEVER = SERVE_CHOICES

# what a hook process tells the server: what finds the index (gov.core.index.locate's
# FORWARDED_ENVS, a test holds them in) and where telemetry goes
ENV_KEYS = ("GOV_INDEX", "CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CURSOR_PROJECT_DIR",
            "GOV_TELEMETRY_PATH")


class Option:
    """One option: its names, the key :func:`parse` stores it under, its value's name in the
    help (None for a flag, which stores ``flag_value``), its choices, default and help lines."""

    __slots__ = ("choices", "default", "dest", "flag_value", "help", "metavar", "names")

    def __init__(self, names: "tuple[str, ...]", dest: str, metavar: "str | None", default: object,
                 help: "tuple[str, ...]", choices: "tuple[str, ...]" = (),
                 flag_value: object = None) -> None:
        self.names, self.dest, self.metavar, self.default = names, dest, metavar, default
        self.help, self.choices, self.flag_value = help, choices, flag_value

    def usage(self) -> str:
        """``-i, --index FILE``: the short name first, as the help lists it."""
        names = ", ".join(sorted(self.names, key=len))
        return f"{names} {self.metavar}" if self.metavar else names


OPTIONS = (
    Option(INDEX, "index", "FILE", None, (
        "index (default: $GOV_INDEX, else .gov/index in the harness's",
        "project folder ($CLAUDE_PROJECT_DIR, $GEMINI_PROJECT_DIR,",
        "$CURSOR_PROJECT_DIR, the payload's workspace_roots or cwd), else",
        "the nearest .gov/index above the working folder, up to the",
        "repository root or home)")),
    Option(OPERATING_POINT, "point", "FILE", None, ("operating point JSON",)),
    Option(SERVE, "serve", "|".join(SERVE_CHOICES), SERVE_AUTO, (
        "use the warm server, starting it on demand (auto, the default)",), SERVE_CHOICES),
    Option(NO_SESSION_MEMORY, "memory", None, True, ("paste every route in full on every turn",),
           flag_value=False),
)
_BY_NAME = {name: option for option in OPTIONS for name in option.names}


def parse(argv: "list[str]", harnesses: "tuple[str, ...]") -> "dict[str, object] | None":
    """``{"harness": …, "index": …, "point": …, "serve": …, "memory": …}``, or None when help
    was asked for; ValueError with a one-line message for anything else."""
    if any(arg in HELP for arg in argv):
        return None
    options: dict[str, object] = {"harness": None, **{o.dest: o.default for o in OPTIONS}}
    args = list(argv)
    while args:
        arg = args.pop(0)
        key, equals, inline = arg.partition("=")
        option = _BY_NAME.get(key)
        if option is not None and option.metavar is not None:
            value = inline if inline else (args.pop(0) if args else None)
            if value is None:
                raise ValueError(f"{key} needs a value")
            if option.choices and value not in option.choices:
                raise ValueError(f"{key} must be {' or '.join(option.choices)}")
            options[option.dest] = value
        elif option is not None and not equals:
            options[option.dest] = option.flag_value
        elif arg in harnesses and options["harness"] is None:
            options["harness"] = arg
        else:
            raise ValueError(f"unknown argument {arg[:60]!r} (see gov hook --help)")
    if options["harness"] is None:
        raise ValueError("name the harness: gov hook " + "|".join(harnesses))
    return options


def serve_never(argv: "list[str]") -> bool:
    """Whether argv says ``--serve never`` (the hook process decides this before anything
    else is parsed: the warm server parses the rest)."""
    for i, arg in enumerate(argv):
        if arg in (f"{name}={SERVE_NEVER}" for name in SERVE) or (
                arg in SERVE and argv[i + 1 : i + 2] == [SERVE_NEVER]):
            return True
    return False


def options_help(width: int = 28) -> str:
    """The help's option lines: each option's usage, its help in a column from ``width``."""
    lines = []
    for option in OPTIONS:
        first, *rest = option.help
        lines.append(f"{'  ' + option.usage():<{width - 2}}  {first}")
        lines.extend(f"{'':<{width}}{line}" for line in rest)
    return "\n".join(lines)
