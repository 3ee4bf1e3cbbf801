"""Generate the completion scripts, the man pages, the CLI reference (docs/cli.md) and the
README's command table from the app.

Everything a person reads about a command outside ``--help`` is derived from the same
help text, by walking the command tree typer builds, so the docs cannot drift from the
commands: ``python docs/generate.py --write`` regenerates every file and ``--check``
(which the tests run) exits 1 naming the ones that are stale. Output is deterministic:
no dates, no terminal widths, commands in the order ``gov --help`` lists them.
"""

from __future__ import annotations

import argparse
import inspect
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer

from gov.cli.conventions import metavar_of, prepare_help

PROG = "gov"
README = "README.md"
REFERENCE = "docs/cli.md"
# The generated part of docs/cli.md (the whole reference) and of the README (the command table).
START = "<!-- cli-reference:start -->"
END = "<!-- cli-reference:end -->"
TABLE_START = "<!-- cli-table:start -->"
TABLE_END = "<!-- cli-table:end -->"
COMPLETION_FILES = {"bash": "completions/gov.bash", "zsh": "completions/_gov",
                    "fish": "completions/gov.fish"}
# Section 1 under man/, so MANPATH="$PWD/man:" man gov-route finds the pages of a checkout.
MAN_DIR = "man/man1"
# Options every command but the hook shares; the reference states them once.
SHARED_OPTIONS = ("--color", "--quiet", "--debug", "--help")
ENVIRONMENT = (
    ("GOV_INDEX", "The index file when no -i is given (else .gov/index in the harness's project "
                  "folder, else the nearest .gov/index above the working folder)."),
    ("GOV_TELEMETRY_PATH", "Append one JSON line per route attempt to this file (off when "
                           "unset)."),
    ("NO_COLOR", "Any value turns colour off, unless --color always."),
    ("GOV_DEBUG", "Any value acts as --debug: tracebacks on errors."),
    ("CI", "Any value turns progress bars off."),
    ("GOV_RUNTIME_DIR", "The warm server's runtime folder (default: $XDG_RUNTIME_DIR/gov, else "
                        "gov-UID in the temporary folder)."),
    ("GOV_SERVE_TIMEOUT", "Seconds the hook waits for the warm server (default 1.5)."),
    ("GOV_CACHE_DIR", "gov's cache folder (default: $XDG_CACHE_HOME/gov, else ~/.cache/gov)."),
    ("GOV_MAX_DOCUMENT_BYTES", "The largest document gov index reads (default 4 MiB)."),
)
EXIT_STATUS = (
    ("0", "Success."),
    ("1", "The command ran and found problems: a failed check, an invalid card, malformed "
          "input lines, no events."),
    ("2", "A usage or input error (a bad option or argument, a missing or unreadable input); "
          "the message names what to fix."),
)
HOOK_EXIT_STATUS = (
    ("0", "Always, whatever happens: a hook must never block a prompt. Problems are one line "
          "on standard error."),
)


@dataclass
class Block:
    """A paragraph of help text (``code`` keeps its lines; text lines are joined)."""

    code: bool
    lines: list[str]

    @property
    def text(self) -> str:
        return " ".join(line.strip() for line in self.lines)


@dataclass
class Param:
    term: str          # "-i, --index FILE" or "PROMPT"
    names: list[str]   # every option string ("-i", "--index"), [] for an argument
    help: str
    argument: bool


@dataclass
class CommandDoc:
    """One command as documentation: name, synopsis, prose, options, examples, children."""

    words: list[str]                  # ["gov", "card", "verify"]
    synopsis: str                     # "gov card verify [OPTIONS] [PATHS]..."
    summary: str
    description: list[Block]
    examples: list[Block]
    params: list[Param]
    commands: list[CommandDoc] = field(default_factory=list)

    @property
    def name(self) -> str:
        return " ".join(self.words)

    @property
    def page(self) -> str:
        return "-".join(self.words)

    @property
    def is_group(self) -> bool:
        return bool(self.commands)


# --- reading the command tree ------------------------------------------------------------


def parse_help(text: str) -> tuple[str | None, list[Block], list[Block]]:
    """Split help into (usage line if it starts with one, description blocks, example blocks).

    A paragraph whose lines are all indented is code. ``Example:`` (or ``Examples:``) on a
    line of its own starts the examples. Click's ``\\b`` (no rewrap) lines and everything
    after ``\\f`` are dropped, as ``--help`` drops them.
    """
    text = inspect.cleandoc(text.split("\f")[0])
    paragraphs: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.strip() in ("", "\b"):
            if line.strip() == "" and paragraphs[-1]:
                paragraphs.append([])
            continue
        paragraphs[-1].append(line.rstrip())
    usage = None
    description: list[Block] = []
    examples: list[Block] = []
    target = description
    for lines in (p for p in paragraphs if p):
        if all(line.startswith((" ", "\t")) for line in lines):
            indent = min(len(line) - len(line.lstrip()) for line in lines)
            target.append(Block(True, [line[indent:] for line in lines]))
            continue
        if lines[0].strip() in ("Example:", "Examples:"):
            target = examples
            if len(lines) > 1:
                rest = lines[1:]
                indent = min(len(line) - len(line.lstrip()) for line in rest)
                target.append(Block(True, [line[indent:] for line in rest]))
            continue
        if usage is None and not description and lines[0].lower().startswith("usage: "):
            usage = lines[0][len("usage: "):].strip()
            lines = lines[1:]
            if not lines:
                continue
        target.append(Block(False, lines))
    return usage, description, examples


def _argument_term(param: Any) -> str:
    metavar = metavar_of(param)
    if param.nargs == -1:
        metavar += "..."
    if not param.required and not metavar.startswith("["):
        metavar = f"[{metavar}]"
    return metavar


def _param(param: Any, ctx: typer.Context) -> Param | None:
    if getattr(param, "hidden", False):
        return None
    record = param.get_help_record(ctx)
    help_text = " ".join((record[1] if record else "").split())
    if param.param_type_name == "argument":
        return Param(_argument_term(param), [], help_text, True)
    names = sorted(param.opts, key=len) + list(param.secondary_opts)
    term = ", ".join(names)
    if not param.is_flag and not getattr(param, "count", False):
        term += " " + metavar_of(param)
    return Param(term, names, help_text, False)


def describe(command: Any, words: list[str], parent: typer.Context | None = None) -> CommandDoc:
    """The documentation of ``command`` and, for a group, of every visible subcommand."""
    settings = {"terminal_width": 80, "max_content_width": 80,
                **(getattr(command, "context_settings", None) or {})}
    ctx = typer.Context(command, info_name=words[-1], parent=parent, **settings)
    usage, description, examples = parse_help(command.help or "")
    params = [doc for doc in (_param(p, ctx) for p in command.get_params(ctx)) if doc]
    subcommands = []
    if hasattr(command, "list_commands"):
        for name in command.list_commands(ctx):
            child = command.get_command(ctx, name)
            if child is not None and not child.hidden:
                subcommands.append(describe(child, [*words, name], ctx))
    if usage is None:
        pieces = [" ".join(words), "[OPTIONS]"]
        pieces += [p.term for p in params if p.argument]
        if subcommands:
            pieces.append("COMMAND [ARGS]...")
        usage = " ".join(pieces)
    elif not usage.startswith(" ".join(words)):
        usage = f"{' '.join(words)} {usage}"
    first = next((block.text for block in description if not block.code), "")
    return CommandDoc(words, usage, summary_of(first), description, examples, params,
                      subcommands)


def summary_of(paragraph: str) -> str:
    """The head of a paragraph for NAME lines and tables: up to its first sentence end or
    colon outside brackets ("Check cards against the card schema: one result..." gives
    "Check cards against the card schema")."""
    depth = 0
    for position, char in enumerate(paragraph):
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0 and paragraph[position + 1:position + 2] == " " and (
                char == ":" or (char == "." and paragraph[position + 2:position + 3].isupper())):
            return paragraph[:position]
    return paragraph.rstrip(".")


def command_tree(app: typer.Typer | None = None) -> CommandDoc:
    if app is None:
        from gov.cli.main import app as main_app

        app = main_app
    return describe(prepare_help(typer.main.get_command(app)), [PROG])


def walk(doc: CommandDoc) -> list[CommandDoc]:
    """``doc`` and its descendants, depth first, in ``--help`` order."""
    out = [doc]
    for child in doc.commands:
        out.extend(walk(child))
    return out


# --- man pages -------------------------------------------------------------------------------


def roff_escape(text: str) -> str:
    """Text safe on a roff line: backslashes and hyphens escaped, no control character first."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + text if text.startswith((".", "'")) else text


def _roff_block(block: Block) -> list[str]:
    if not block.code:
        return [".PP", roff_escape(block.text)]
    return [".PP", ".RS 4", ".nf", *(roff_escape(line) for line in block.lines), ".fi", ".RE"]


def _roff_term(term: str) -> str:
    """Option names bold, metavars italic: ``-i, --index FILE``."""
    parts = []
    for piece in term.split(", "):
        name, _, metavar = piece.partition(" ")
        if name.startswith("-"):
            parts.append(f"\\fB{roff_escape(name)}\\fR"
                         + (f" \\fI{roff_escape(metavar)}\\fR" if metavar else ""))
        else:
            parts.append(f"\\fI{roff_escape(piece)}\\fR")
    return ", ".join(parts)


def man_page(doc: CommandDoc, root: CommandDoc, version: str) -> str:
    """A roff man page in section 1 for one command."""
    title = roff_escape(doc.page.upper())
    lines = [
        f'.\\" {doc.page}(1), generated by python docs/generate.py from the help text; '
        "do not edit.",
        f'.TH "{title}" "1" "" "{PROG} {version}" "gov manual"',
        ".SH NAME",
        f"{roff_escape(doc.page)} \\- {roff_escape(doc.summary)}",
        ".SH SYNOPSIS",
        ".nf",
        roff_escape(doc.synopsis),
        ".fi",
        ".SH DESCRIPTION",
    ]
    for block in doc.description:
        lines += _roff_block(block)
    if doc.commands:
        lines.append(".SH COMMANDS")
        for child in doc.commands:
            lines += [".TP", f"\\fB{roff_escape(child.words[-1])}\\fR",
                      f"{roff_escape(child.summary)}. See \\fB{roff_escape(child.page)}\\fR(1)."]
    arguments = [p for p in doc.params if p.argument]
    options = [p for p in doc.params if not p.argument]
    if arguments:
        lines.append(".SH ARGUMENTS")
        for param in arguments:
            lines += [".TP", _roff_term(param.term), roff_escape(param.help or "")]
    if options:
        lines.append(".SH OPTIONS")
        for param in options:
            lines += [".TP", _roff_term(param.term), roff_escape(param.help or "")]
    if doc.examples:
        lines.append(".SH EXAMPLES")
        for block in doc.examples:
            lines += _roff_block(block)
    lines.append(".SH EXIT STATUS")
    for code, meaning in HOOK_EXIT_STATUS if doc.words[1:] == ["hook"] else EXIT_STATUS:
        lines += [".TP", f"\\fB{code}\\fR", roff_escape(meaning)]
    if doc is root:
        lines.append(".SH ENVIRONMENT")
        for name, meaning in ENVIRONMENT:
            lines += [".TP", f"\\fB{roff_escape(name)}\\fR", roff_escape(meaning)]
        lines += [".SH FILES", ".TP", "\\fI.gov/index\\fR",
                  "The index file commands use when neither \\fB\\-i\\fR nor "
                  "\\fBGOV_INDEX\\fR names one: in the harness's project folder, else the "
                  "nearest one above the working folder."]
    lines.append(".SH SEE ALSO")
    lines.append(", ".join(f"\\fB{roff_escape(page)}\\fR(1)" for page in _see_also(doc, root)))
    return "\n".join(lines) + "\n"


def _see_also(doc: CommandDoc, root: CommandDoc) -> list[str]:
    if doc is root:
        return [child.page for child in walk(root)[1:]]
    parent = next(d for d in walk(root) if doc in d.commands)
    pages = [PROG] if parent is root else [PROG, parent.page]
    pages += [child.page for child in doc.commands]
    if parent is not root:
        pages += [sibling.page for sibling in parent.commands if sibling is not doc]
    return pages


# --- docs/cli.md and the README's table ---------------------------------------------------------


def _md_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _md_anchor(doc: CommandDoc, page: str = "") -> str:
    return page + "#" + "-".join(doc.words)


def _md_blocks(blocks: list[Block], language: str = "") -> list[str]:
    """Paragraphs as text; consecutive code blocks as one fenced block, blank-line separated."""
    out: list[str] = []
    for index, block in enumerate(blocks):
        follows_code = index > 0 and blocks[index - 1].code
        if not block.code:
            out += [block.text, ""]
            continue
        if follows_code:
            del out[-2:]  # reopen the previous fence: drop its closing line and the blank
            out += ["", *block.lines, "```", ""]
            continue
        out += [f"```{language}", *block.lines, "```", ""]
    return out


def _command_table(root: CommandDoc, page: str = "") -> list[str]:
    out = ["| command | what it does |", "|---|---|"]
    for doc in walk(root)[1:]:
        out.append(f"| [`{doc.name}`]({_md_anchor(doc, page)}) | {_md_cell(doc.summary)} |")
    return out


def readme_table(root: CommandDoc) -> str:
    """The README's command table, between (and including) its two markers."""
    out = [TABLE_START,
           f"<!-- Generated by `python docs/generate.py --write`; the full reference is "
           f"{REFERENCE}. -->",
           "", *_command_table(root, REFERENCE), "", TABLE_END]
    return "\n".join(out) + "\n"


def reference_section(root: CommandDoc) -> str:
    """The CLI reference in markdown, between (and including) the two markers."""
    out = [
        START,
        "<!-- Generated by `python docs/generate.py --write` from the commands' help text; "
        "edit the help, not this section. -->",
        "",
        "Every command takes `-h/--help`. Every command but `gov hook` also takes "
        "`--color auto|always|never` (colour only on a terminal and never with `NO_COLOR` "
        "set, unless `always`), `-q/--quiet` (no notices or progress) and `--debug` (the "
        "traceback on errors); they are left out of the tables below. Exit status: 0 "
        "success, 1 the command found problems, 2 a usage or input error. `gov hook HARNESS` "
        "always exits 0.",
        "",
        "Each command has a man page generated from the same text, in `man/man1/`: from the "
        "checkout, `MANPATH=\"$PWD/man:\" man gov-route` (or `man -l man/man1/gov-route.1`). "
        "Completion scripts for bash, zsh and fish are in `completions/` and printed by "
        "`gov completion SHELL`.",
        "",
        *_command_table(root),
    ]
    for doc in walk(root):
        out += ["", f"## {doc.name}", "", "```", doc.synopsis, "```", ""]
        out += _md_blocks(doc.description)
        if doc.commands and doc is not root:
            out += ["| command | what it does |", "|---|---|"]
            out += [f"| [`{child.name}`]({_md_anchor(child)}) | {_md_cell(child.summary)} |"
                    for child in doc.commands]
            out.append("")
        shared = doc.words[1:] != ["hook"]
        rows = [p for p in doc.params
                if not (shared and p.names and any(n in SHARED_OPTIONS for n in p.names))]
        if rows:
            out += ["| argument or option | meaning |", "|---|---|"]
            out += [f"| `{_md_cell(p.term)}` | {_md_cell(p.help or '')} |" for p in rows]
            out.append("")
        if doc.examples:
            out += ["Example:", ""]
            out += _md_blocks(doc.examples, "sh")
        while out[-1] == "":
            out.pop()
    out += ["", END]
    return "\n".join(out) + "\n"


def splice(text: str, section: str, start: str = START, end: str = END,
           name: str = REFERENCE) -> str:
    """``text`` with the part between the markers (inclusive) replaced by ``section``."""
    first, last = text.find(start), text.find(end)
    if first < 0 or last < first:
        raise SystemExit(f"{name}: the markers {start} and {end} are missing; add them where "
                         "the generated text belongs")
    stop = last + len(end)
    if text[stop:stop + 1] == "\n":
        stop += 1
    return text[:first] + section + text[stop:]


# --- all generated files -----------------------------------------------------------------------


def generated(root_dir: Path, app: typer.Typer | None = None) -> dict[Path, str]:
    """Every generated file under ``root_dir`` and the text it should hold."""
    from gov.cli.commands.completion import script
    from gov.core import __version__

    tree = command_tree(app)
    files = {root_dir / path: script(shell) for shell, path in COMPLETION_FILES.items()}
    for doc in walk(tree):
        files[root_dir / MAN_DIR / f"{doc.page}.1"] = man_page(doc, tree, __version__)
    reference = root_dir / REFERENCE
    files[reference] = splice(reference.read_text(encoding="utf-8"), reference_section(tree))
    readme = root_dir / README
    files[readme] = splice(readme.read_text(encoding="utf-8"), readme_table(tree), TABLE_START,
                           TABLE_END, README)
    return files


def stale(root_dir: Path, app: typer.Typer | None = None) -> tuple[dict[Path, str], list[Path]]:
    """(files whose content differs from what they should hold, obsolete man pages)."""
    files = generated(root_dir, app)
    differing = {}
    for path, text in files.items():
        try:
            current = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            current = None
        if current != text:
            differing[path] = text
    # Pages in man/ itself are where they were before man/man1/: obsolete too.
    pages = [*(root_dir / MAN_DIR).glob(f"{PROG}*.1"), *(root_dir / "man").glob(f"{PROG}*.1")]
    obsolete = sorted(p for p in pages if p not in files)
    return differing, obsolete


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python docs/generate.py",
        description="Regenerate (--write) or check (--check) gov's completion scripts, man "
                    "pages, docs/cli.md and the README's command table.")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="write every stale file")
    mode.add_argument("--check", action="store_true", help="exit 1 naming the stale files")
    parser.add_argument("--root", type=Path, default=Path("."),
                        help="the repository root (default: the current folder)")
    args = parser.parse_args(argv)
    root_dir: Path = args.root
    if not all((root_dir / name).is_file() for name in (README, REFERENCE, "pyproject.toml")):
        parser.error(f"{root_dir.resolve()} is not the repository root (no {README}, {REFERENCE} "
                     "and pyproject.toml); run from there or pass --root")
    differing, obsolete = stale(root_dir)
    names = sorted(str(p.relative_to(root_dir)) for p in [*differing, *obsolete])
    if args.check:
        for name in names:
            sys.stdout.write(f"stale: {name}\n")
        if names:
            sys.stderr.write(f"docgen: {len(names)} generated file(s) are stale; run: "
                             "python docs/generate.py --write\n")
        return 1 if names else 0
    for path, text in differing.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for path in obsolete:
        path.unlink()
    for name in names:
        sys.stdout.write(f"wrote: {name}\n" if root_dir / name in differing
                         else f"removed: {name}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
