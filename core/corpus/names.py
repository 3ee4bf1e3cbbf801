"""Document names: the rule a name follows, lists of names (``Depends-on``,
``Lint-ignore``), and names two documents share made unique (``--on-duplicate``).

Where two documents share a name, each is named by its folder path under the corpus root,
with the fewest folders that tell them apart (``development-tools/accessibility-tester``);
a skill is known by its folder. See ``docs/corpus.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, Literal

from .. import sanitize
from ..errors import CorpusError
from .document import Document, Skip
from .markdown import ParseProblem

MAX_DEPENDENCIES = 64
OnDuplicate = Literal["qualify", "error", "first"]
ON_DUPLICATE: tuple[OnDuplicate, ...] = ("qualify", "error", "first")
Collisions = list[tuple[str, tuple[str, ...]]]


def as_names(value: Any, key: str) -> list[str]:
    """``depends_on`` as a list of document names: a comma-separated string or a list of
    strings, each a valid name, at most :data:`MAX_DEPENDENCIES` (checked before any use:
    YAML can make a tiny file into a huge nested value)."""
    if value is None:
        return []
    if isinstance(value, str):
        items = [item.strip() for item in value.split(",") if item.strip()]
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        items = [item.strip() for item in value if item.strip()]
    else:
        raise ParseProblem(f"front matter '{key}' must be a list of document names",
                           reason="invalid front matter")
    check_dependencies(items, key)
    return items


def check_dependencies(items: Sequence[str], key: str) -> None:
    if len(items) > MAX_DEPENDENCIES:
        raise ParseProblem(f"'{key}' lists {len(items)} documents; at most {MAX_DEPENDENCIES}",
                           reason="invalid front matter")
    for item in items:
        problem = sanitize.name_problem(item)
        if problem is not None:
            raise ParseProblem(f"'{key}' entry {item[:40]!r} is not a document name: it {problem}",
                               reason="invalid front matter")


def check_name(name: str, where: str) -> None:
    problem = sanitize.name_problem(name)
    if problem is not None:
        raise CorpusError(f"{where}: document name {name[:40]!r} {problem}")


def _qualified(folders: tuple[str, ...], name: str, depth: int) -> str:
    return "/".join((*folders[len(folders) - depth:], name)) if depth else name


def unique_names(found: list[Document], folders: list[tuple[str, ...]],
                 on_duplicate: OnDuplicate, warn: Callable[[str], None]
                 ) -> tuple[list[Document], list[Skip], Collisions]:
    """Every name made unique (``on_duplicate``, see :func:`gov.core.corpus.reader.load_corpus`):
    the documents in their order, the ones left out (``"first"``), and each shared name with
    the names its documents got. ``folders``: each document's folders, outermost first."""
    groups: dict[str, list[int]] = {}
    for position, doc in enumerate(found):
        groups.setdefault(doc.name, []).append(position)
    shared = {name: group for name, group in groups.items() if len(group) > 1}
    if not shared:
        return found, [], []
    if on_duplicate == "error":
        listed = "; ".join(f"{name!r} in " + ", ".join(found[i].source for i in group)
                           for name, group in shared.items())
        raise CorpusError(f"duplicate document name{'s:' if len(shared) > 1 else ''} {listed}; "
                          "rename them, or gov index --on-duplicate qualify names each by its "
                          "folder")
    if on_duplicate == "first":
        dropped = {i for group in shared.values() for i in group[1:]}
        skips = [Skip(found[i].source, None, f"the name {found[i].name!r} is taken by "
                      f"{found[groups[found[i].name][0]].source}", "duplicate name")
                 for i in sorted(dropped)]
        return ([doc for i, doc in enumerate(found) if i not in dropped], skips,
                [(name, (found[group[0]].name,)) for name, group in shared.items()])
    taken = set(groups)
    renamed: dict[int, str] = {}
    for name, group in shared.items():
        # A skill is known by its folder (the last of its folders), whatever name it gives.
        leaves = [(folders[i][:-1], folders[i][-1]) if found[i].kind == "skill" and folders[i]
                  else (folders[i], name) for i in group]
        deepest = max(len(outer) for outer, _leaf in leaves)
        first = 0 if all(leaf != name for _outer, leaf in leaves) else 1
        for depth in range(first, deepest + 1):
            names = [_qualified(outer, leaf, depth) for outer, leaf in leaves]
            if len(set(names)) == len(names) and not taken.intersection(names):
                break
        else:  # the same folders (two files naming themselves alike, or one JSONL file)
            names = [_qualified(outer, leaf, deepest) for outer, leaf in leaves]
            names = [f"{qualified}~{n}" if n else qualified for n, qualified in enumerate(names)]
        for i, qualified in zip(group, names, strict=True):
            renamed[i] = qualified
            taken.add(qualified)
    out = []
    for i, doc in enumerate(found):
        if i in renamed:
            others = ", ".join(found[j].source for j in shared[doc.name] if j != i)
            doc = replace(doc, name=renamed[i], notes=(
                *doc.notes, f"name {doc.name!r} qualified by its folder (also the name of "
                f"{others})"))
        out.append(doc)
    listed = "; ".join(f"{name} -> " + ", ".join(renamed[i] for i in group)
                       for name, group in shared.items())
    warn(f"{len(shared):,} name(s) shared by two or more documents, each qualified by its folder "
         f"(--on-duplicate error|first to change): {listed}")
    return out, [], [(name, tuple(renamed[i] for i in group)) for name, group in shared.items()]
