"""``gov list``: what an index holds, document by document, or what its build left out."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from gov.core.errors import UsageError

from .. import conventions, options, reporters
from ..options import IndexOpt
from ..resolve import index_path

if TYPE_CHECKING:
    from rich.console import Console

    from gov.core.corpus.document import Skip
    from gov.core.index.listing import Listed

HELP = """List the documents an index holds: name, source, trigger, family and how each was read.

A document read leniently (front matter that is not strict YAML, a name qualified by its
folder because another document shares it, a trigger taken from the first paragraph) carries
a note saying so; --lenient lists those documents alone. --skipped lists the files the build
left out instead, each with its reason. --names prints the names alone, one a line (what
shell completion and a session-start catalogue point to).

Example:

    gov list -i .gov/index

    gov list --skipped --format jsonl

    gov list --names
"""


def register(app: typer.Typer) -> None:
    app.command("list", help=HELP)(list_command)


@options.shared(formats=("text", "json", "jsonl"), tty="text", pipe="text")
def list_command(
    index: IndexOpt = None,
    lenient: Annotated[bool, typer.Option("--lenient", help="Only the documents read with a note (lenient front matter, a qualified name, a trigger from the first paragraph).")] = False,
    skipped: Annotated[bool, typer.Option("--skipped", help="The files the build left out, with the reason, instead of the documents.")] = False,
    names: Annotated[bool, typer.Option("--names", help="Only the documents' names, one a line (with --format json, one array).")] = False,
    *,
    view: options.Output,
) -> int:
    from gov.core.index.listing import listed_documents, skipped_files
    from gov.core.index.locate import no_index
    from gov.core.index.stored import open_stored

    target = index_path(index)
    if not target.exists():
        raise no_index(target)
    stored = open_stored(target)
    if names and skipped:
        raise UsageError("--names lists documents; --skipped lists files: give one")
    if names:
        return _names(stored, lenient, view.format)
    out = reporters.reporter(view.format)
    if skipped:
        files = skipped_files(stored)
        for skip in files:
            out.item(SkipView(skip))
        out.close()
        if not files and view.format == "text":
            conventions.notice("the build skipped no file")
        return 0
    count = 0
    for doc in listed_documents(stored):
        if lenient and not doc.notes:
            continue
        count += 1
        out.item(DocumentView(doc))
    out.close()
    if not count and view.format == "text":
        conventions.notice("no document was read leniently" if lenient else "no documents")
    return 0


def _names(stored: Any, lenient: bool, out_format: str) -> int:
    """The names alone: one a line, or one JSON array."""
    import sys

    from gov.core.index.listing import listed_documents
    from gov.core.sanitize import clean

    from ..reporters import write_json

    chosen = [doc.name for doc in listed_documents(stored) if doc.notes or not lenient]
    if out_format == "json":
        write_json(chosen)  # gov's one JSON writer: compact, UTF-8 as is
    else:  # a name is one line of plain text, whatever the index holds
        sys.stdout.write("".join(clean(name) + "\n" for name in chosen))
    return 0


class DocumentView:
    """One document: a JSON record, or a few lines of text."""

    def __init__(self, doc: Listed) -> None:
        self.doc = doc

    def json(self) -> Any:
        return self.doc.to_json()

    def text(self, console: Console) -> None:
        doc = self.doc
        family = ""
        if doc.family or doc.family_id is not None:
            family = "  family " + " ".join(str(part) for part in (doc.family, doc.family_id)
                                            if part is not None)
        console.print(f"[bold]{reporters.shown(doc.name)}[/bold]  {reporters.shown(doc.source)}"
                      f"{family}", highlight=False, soft_wrap=True)
        console.print(f"  {reporters.shown(_short(doc.trigger))}", highlight=False, soft_wrap=True)
        for note in doc.notes:
            console.print(f"  note: {reporters.shown(note)}", highlight=False, style="yellow",
                          soft_wrap=True)


class SkipView:
    """One skipped file and why."""

    def __init__(self, skip: Skip) -> None:
        self.skip = skip

    def json(self) -> Any:
        skip = self.skip
        return {"file": skip.file, "line": skip.line, "reason": skip.reason,
                "problem": skip.problem}

    def text(self, console: Console) -> None:
        skip = self.skip
        where = f"{skip.file}:{skip.line}" if skip.line else skip.file
        console.print(f"{reporters.shown(where)}: {reporters.shown(skip.reason)}: "
                      f"{reporters.shown(skip.problem)}", highlight=False, soft_wrap=True)


def _short(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
