"""Approximate nearest-surface search, for corpora past about a million surfaces (optional).

Exact routing reads every surface vector per prompt: 1.5 GB at 10^6 surfaces. An index
built with ``gov index --ann`` (extra ``gov[ann]``) also holds a usearch HNSW graph over
the same vectors, stored inside the index file and opened as a view of its memory map.
A route asks the graph for the ``candidates`` nearest surfaces, then scores every surface
of the documents they belong to exactly, from the index's float32 matrix, so a document
the graph reaches gets the same semantic score as under exact search. A document it does
not reach scores 0 on meaning (its lexical evidence still counts). ``docs/scale.md`` has
the measurements behind the choice of usearch and its settings.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..errors import IndexBuildError, IndexLoadError

ARRAY = "ann_usearch"
# HNSW graph degree and build-time beam; search-time beam; surfaces asked for per prompt.
SETTINGS: dict[str, Any] = {"connectivity": 16, "expansion_add": 128, "expansion_search": 256,
                            "candidates": 64}
INSTALL_HINT = "pip install 'gov[ann]'"
MAX_SETTING = 4096


def _usearch_index() -> Any:
    """usearch's Index class, imported after onnxruntime.

    Measured with usearch 2.26.6 and onnxruntime 1.32: importing usearch first makes the
    later onnxruntime import crash the process (a segmentation fault while loading its
    native library); the other order works. Routing needs onnxruntime anyway.
    """
    if importlib.util.find_spec("onnxruntime") is not None:
        import onnxruntime  # noqa: F401  (load order: see the docstring)
    from usearch.index import Index as UsearchIndex

    return UsearchIndex


def build(vectors: NDArray[np.float32], *, candidates: int | None = None,
          ) -> tuple[NDArray[np.uint8], dict[str, Any]]:
    """The serialised graph as a byte array for the index file, and its settings."""
    try:
        UsearchIndex = _usearch_index()
        import usearch
    except ImportError:
        raise IndexBuildError(f"--ann needs the usearch package: {INSTALL_HINT}") from None
    settings = dict(SETTINGS)
    if candidates is not None:
        settings["candidates"] = int(candidates)
    graph = UsearchIndex(ndim=int(vectors.shape[1]), metric="ip", dtype="f16",
                         connectivity=settings["connectivity"],
                         expansion_add=settings["expansion_add"],
                         expansion_search=settings["expansion_search"])
    graph.add(np.arange(vectors.shape[0], dtype=np.uint64), np.ascontiguousarray(vectors))
    blob = np.frombuffer(bytes(graph.save()), dtype=np.uint8)
    info = {"backend": "usearch", "usearch_version": usearch.__version__, "dtype": "f16",
            "metric": "ip", "surfaces": int(vectors.shape[0]), **settings}
    return blob, info


def _setting(info: dict[str, Any], name: str, where: str, hint: str | None) -> int:
    value = info.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_SETTING:
        raise IndexLoadError(f"{where}: index header field 'ann.{name}' must be a whole number "
                             f"from 1 to {MAX_SETTING}", hint=hint)
    return value


class NearestSurfaces:
    """The stored graph, opened as a view (nothing copied), answering top-k surface queries.

    ``shape`` is the index's surface matrix (surfaces, dimensions): the graph must hold
    exactly those, and its layout is checked (:mod:`gov.core.index.ann_check`) before
    usearch reads a byte of it.
    """

    def __init__(self, blob: NDArray[np.uint8], info: dict[str, Any], where: str,
                 shape: tuple[int, int], hint: str | None = None) -> None:
        from .ann_check import GraphProblem, check_graph

        candidates = _setting(info, "candidates", where, hint)
        expansion = _setting(info, "expansion_search", where, hint)
        try:
            check_graph(blob, info, *shape)
        except GraphProblem as exc:
            raise IndexLoadError(f"{where}: the approximate-search graph is damaged ({exc})",
                                 hint=hint) from None
        try:
            UsearchIndex = _usearch_index()
        except ImportError:
            raise IndexLoadError(f"{where}: the index has an approximate-search graph and "
                                 f"usearch is not installed", hint=INSTALL_HINT) from None
        try:
            graph = UsearchIndex.restore(blob, view=True)
        except (RuntimeError, ValueError) as exc:
            raise IndexLoadError(f"{where}: the approximate-search graph is unreadable ({exc})",
                                 hint=hint) from None
        if graph is None or graph.size != int(info.get("surfaces", -1)):
            raise IndexLoadError(f"{where}: the approximate-search graph is unreadable or does "
                                 "not match the index's surfaces")
        graph.expansion_search = expansion
        self.graph = graph
        self.candidates = candidates

    def search(self, vectors: NDArray[np.float32]) -> list[NDArray[np.int64]]:
        """For each query vector, the ids of its nearest surfaces (at most ``candidates``)."""
        count = min(self.candidates, int(self.graph.size))
        found = self.graph.search(np.ascontiguousarray(vectors, dtype=np.float32), count)
        keys = np.atleast_2d(np.asarray(found.keys))
        # One query comes back as Matches (no counts), several as BatchMatches.
        counts = (np.atleast_1d(np.asarray(found.counts)) if hasattr(found, "counts")
                  else np.array([keys.shape[1]]))
        return [keys[row, : int(counts[row])].astype(np.int64) for row in range(keys.shape[0])]
