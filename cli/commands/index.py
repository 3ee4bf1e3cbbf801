"""``gov index``: build the index file from a corpus, or verify an existing one."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gov.core.errors import UsageError

from .. import conventions, options, reporters
from ..options import PointOpt
from ..resolve import index_path, load_point, output_path

if TYPE_CHECKING:
    from gov.core.corpus.document import Corpus

HELP = """Build the index file that routing reads, from folders of documents.

Reads markdown policies (an **Agent-trigger:** line each), SKILL.md skills, Cursor .mdc and
Continue rules (YAML front matter), and JSONL documents ('-' reads them from stdin).
Rebuilding re-embeds only documents whose text changed.

Example:

    gov index examples/policies -o .gov/index

    gov index --verify -o .gov/index

Each document's body is evidence of its meaning: its first passages are embedded and kept
as one summary vector (--no-bodies leaves bodies out: the trigger and examples alone; past
20,000 documents they are left out unless --bodies asks, as they would be most of the build).
The corpus is also measured against a bank of prompts no document governs, so the default
routes only what scores above them on this corpus (see gov route --explain).

Past about a million surfaces, --ann adds an approximate-search graph (extra gov[ann]):
routes then read the vectors of the nearest surfaces' documents, not every vector.

Near-duplicates form routing families: a route takes at most one document of a family (its
best), so two copies of one skill never take both routes of a turn, and the family's evidence
counts as one when gov decides whether to speak. The default, --families duplicates, makes a
family of each cluster of documents gov lint calls near-duplicates (its overlap rule,
thresholds from gov-lint.json beside the corpus); a **Family:** line names related documents,
which keep both routes, and two documents whose Family lines differ are never one family.
--families declared makes a family of each Family line instead, auto of both, none of
neither.
"""


def register(app: typer.Typer) -> None:
    app.command("index", help=HELP)(index_command)


@options.shared(formats=("text", "json"), tty="text", pipe="text")
def index_command(
    paths: Annotated[list[str] | None, typer.Argument(help="Corpus folders or files; '-' for JSONL on stdin.",
                                                      show_default=False)] = None,
    output: Annotated[Path | None, typer.Option("--output", "-o", help="Index file to write (default: $GOV_INDEX, else .gov/index).")] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Fail on a file without a trigger instead of skipping it.")] = False,
    model: Annotated[str | None, typer.Option("--model", help="A fastembed model id instead of the bundled offline model (may download).")] = None,
    lexical_only: Annotated[bool, typer.Option("--lexical-only", help="Build without embeddings (routes by words alone).")] = False,
    operating_point: PointOpt = None,
    bodies: Annotated[bool | None, typer.Option("--bodies/--no-bodies", help="Embed the first passages of each document's body as one summary vector of its meaning, or leave bodies out (default: embed them up to 20,000 documents).", show_default=False)] = None,
    ann: Annotated[bool, typer.Option("--ann", help="Also store an approximate-search graph (usearch), for corpora of about 10^6 surfaces; the ann extra: pip install '.[ann]' in gov's checkout.")] = False,
    ann_candidates: Annotated[int | None, typer.Option("--ann-candidates", min=1, max=4096, help="Nearest surfaces a route asks the graph for (default 64); their documents are scored exactly.")] = None,
    families: Annotated[str, typer.Option("--families", metavar="duplicates|declared|auto|none", help="Routing families: clusters of near-duplicates (duplicates, the default), documents sharing a Family line (declared), both (auto), or none.")] = "duplicates",
    on_duplicate: Annotated[str, typer.Option("--on-duplicate", metavar="qualify|error|first", help="Documents sharing a name: qualify each by its folder (default), stop with an error listing them, or keep the first.")] = "qualify",
    list_skipped: Annotated[bool, typer.Option("--skipped", help="After building, list every file left out with its reason (gov list --skipped lists them later).")] = False,
    verify: Annotated[bool, typer.Option("--verify", help="Check an existing index whole (every checksum) instead of building.")] = False,
    *,
    view: options.Output,
) -> int:
    target = index_path(output) if verify else output_path(output)  # verify searches; a build writes here
    out_format = view.format
    if verify:
        return _verify(target, out_format)
    if not paths:
        raise UsageError("give at least one corpus folder or file (or '-' for stdin)")
    if ann_candidates is not None and not ann:
        raise UsageError("--ann-candidates needs --ann")
    if families not in ("duplicates", "declared", "auto", "none"):
        raise UsageError(f"--families must be duplicates, declared, auto or none, not {families!r}")
    from gov.core.corpus.names import ON_DUPLICATE
    from gov.core.corpus.reader import load_corpus
    from gov.core.routing.indexes import build_index

    if on_duplicate not in ON_DUPLICATE:
        raise UsageError(f"--on-duplicate must be qualify, error or first, not {on_duplicate!r}")
    corpus = load_corpus(paths, strict=strict, warn=conventions.warn,
                         on_duplicate=on_duplicate)
    duplicates = None
    if families in ("duplicates", "auto"):
        from gov.core.lint.config import find_config, load_config

        duplicates = load_config(find_config(paths)).duplicates()
    progress, finish = _progress(len(corpus.documents))
    try:
        built = build_index(
            corpus,
            model_id=model or None,
            lexical_only=lexical_only,
            operating_point=load_point(operating_point),
            previous=target if target.is_file() else None,
            progress=progress,
            ann=ann,
            ann_candidates=ann_candidates,
            bodies=bodies,
            families=families,
            duplicates=duplicates,
        )
    finally:
        finish()
    built.write(target)
    header = built.header
    from gov.core.index.bodies import MAX_DOCUMENTS, wanted

    if bodies is None and header.model_id is not None and not wanted(None, header.corpus.size):
        conventions.warn(f"bodies left out: {header.corpus.size:,} documents is over "
                         f"{MAX_DOCUMENTS:,}, where embedding them would be most of the build; "
                         "gov index --bodies embeds them")
    summary = _summary(target, built, corpus)
    _emit(summary, out_format, _summary_text(summary, built.header, target, corpus, list_skipped))
    conventions.notice(closing_line(corpus))
    return 0


def _verify(target: Path, out_format: str) -> int:
    """``--verify``: every checksum of an existing index read, and whether its corpus has
    changed since (exit 1 when stale, so a CI step can rebuild)."""
    from gov.core.routing.indexes import load_index

    loaded = load_index(target, verify=True)
    stale = loaded.is_stale()
    checked = {"index": str(target), "ok": not stale, "documents": len(loaded.names),
                               "stale": stale, "fingerprint": loaded.fingerprint}
    _emit(checked, out_format, f"{target}: checksums ok, {len(loaded.names)} documents"
          + (", STALE: its corpus changed since the build" if stale else ", fresh"))
    return 1 if stale else 0


def _summary(target: Path, built: Any, corpus: Corpus) -> dict[str, Any]:
    """What one build made, as ``--format json`` prints it: the counts, what was left out
    and why, the model and what the build measured (separability, background, families)."""
    from gov.core.routing.indexes import divergence_of

    header = built.header
    build = header.build
    return {
        "index": str(target),
        "documents": header.corpus.size,
        "retired": list(header.corpus.retired),
        "skipped": list(header.corpus.skipped),
        "candidates": corpus.candidates,
        "problems": [skip._asdict() for skip in corpus.problems],
        "collisions": {name: list(names) for name, names in corpus.collisions},
        "lenient": len(corpus.lenient),
        "surfaces": build["surfaces"],
        "reused_vectors": build["reused_vectors"],
        "cached_vectors": build.get("cached_vectors", 0),
        "model": header.model_id,
        "fingerprint": header.corpus.fingerprint,
        "separability": header.separability,
        "divergence": divergence_of(built),
        "search": "approximate (usearch)" if header.ann else "exact",
        "bodies": header.bodies,
        "families": header.families,
        "background": header.background,
    }


def _summary_text(summary: dict[str, Any], header: Any, target: Path, corpus: Corpus,
                  list_skipped: bool) -> str:
    """The summary as lines for people: one per thing the build did, only when it did it."""
    build = header.build
    retired: list[str] = summary["retired"]
    reasons: list[str] = summary["divergence"]
    lines = [
        f"indexed {summary['documents']} documents ({build['surfaces']} surfaces) -> {target}",
        f"  model: {summary['model'] or 'none (lexical only)'}; "
        f"reused {build['reused_vectors']} embeddings from the previous index"
        + (f", {summary['cached_vectors']} from the embedding cache"
           if summary["cached_vectors"] else ""),
    ]
    if header.bodies:
        body = header.bodies
        lines.append(f"  bodies: {body['documents']} documents with a body; {body['passages']} "
                     f"passages (at most {body['passages_per_document']} per document), "
                     f"{body['passages_cached']} from the embedding cache")
    if header.background:
        ground = header.background
        lines.append(f"  background: {ground['bank_kept']} of {ground['bank_size']} bank prompts "
                     f"kept; threshold {ground['threshold']:.3f}"
                     + (f"; {ground['examples_scored']} example lines scored"
                        if ground["examples_scored"] else ""))
    if header.ann:
        lines.append(f"  search: approximate (usearch HNSW over {header.ann['surfaces']} surfaces, "
                     f"{header.ann['candidates']} candidates per prompt, scored exactly)")
    if header.families and header.families.get("families"):
        group = header.families
        auto = (f", {group['clusters']} of them clusters of near-duplicates"
                if group.get("clusters") else "")
        lines.append(f"  families: {group['families']} families of {group['documents']} documents"
                     f" take one route each{auto}")
    if retired:
        lines.append(f"  left out (status): {', '.join(retired)}")
    if list_skipped:
        lines.extend(f"  skipped {skip.file}" + (f":{skip.line}" if skip.line else "")
                     + f": {skip.reason}: {skip.problem}" for skip in corpus.problems)
    for reason in reasons:
        lines.append(f"  divergence: {reason}")
    return "\n".join(lines)


def closing_line(corpus: Corpus) -> str:
    """``indexed 1,612 documents from 1,666 candidate files; 54 skipped (40 no description,
    14 not UTF-8)``: what one build kept and left out, in one line."""
    kept = len(corpus.documents)
    line = f"indexed {kept:,} document{'s' if kept != 1 else ''}"
    if corpus.retired:
        line += f" ({len(corpus.retired):,} more retired)"
    line += f" from {corpus.candidates:,} candidate file{'s' if corpus.candidates != 1 else ''}"
    if corpus.problems:
        reasons = ", ".join(f"{count:,} {reason}" for reason, count in corpus.reasons.items())
        line += f"; {len(corpus.problems):,} skipped ({reasons}); gov list --skipped lists them"
    return line


class SummaryView:
    """What was built (or verified): JSON for scripts, lines for people (none with -q)."""

    def __init__(self, summary: dict[str, Any], lines: str) -> None:
        self.summary, self.lines = summary, lines

    def json(self) -> Any:
        return self.summary

    def text(self, console: Any) -> None:
        if not conventions.STATE.quiet:
            console.out(self.lines, highlight=False)


def _emit(summary: dict[str, Any], out_format: str, text: str) -> None:
    reporters.report(out_format, SummaryView(summary, text))


def _progress(documents: int) -> tuple[Any, Any]:
    """A progress bar on stderr while a build embeds, only on a terminal (``--quiet``, a pipe
    or ``CI`` show none; ``NO_COLOR`` and ``--color never`` draw it without colour): the
    documents, the texts embedded of all there are to embed, and the time left."""
    if not conventions.show_progress():
        return None, lambda: None
    import sys

    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    # A terminal by now (show_progress), so drawn as one even when colour is off: the
    # shared console calls a colourless stream a plain file, where a bar never redraws.
    console = Console(file=sys.stderr, force_terminal=True, highlight=False,
                      no_color=not conventions.use_color(sys.stderr))
    label = f"{documents:,} document{'s' if documents != 1 else ''}"
    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TextColumn("texts"), TimeElapsedColumn(), TextColumn("elapsed,"),
                   TimeRemainingColumn(), TextColumn("left"),
                   console=console, transient=True)
    task = bar.add_task(f"embedding {label}", total=None)
    bar.start()

    def update(done: int, total: int) -> None:
        # Once every text is embedded the rest of the build (the background bank, the head)
        # has no count of its own: the bar says so instead of sitting at 100 %.
        described = f"{label} embedded; measuring" if done >= total else f"embedding {label}"
        bar.update(task, completed=done, total=total, description=described)

    return update, bar.stop
