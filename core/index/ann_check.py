"""The approximate-search graph's structure, checked before usearch is given it.

usearch opens a serialised graph as a view and trusts it: a neighbour slot past the end,
a node whose level disagrees with the level table, a vector size that does not match
the header, and it reads outside the buffer (the process dies; one changed byte in five
of forty random mutations did that to the hook). The index file's checksums do not help
(a crafted file recomputes them), so the layout is checked here, with numpy, before
:class:`~gov.core.index.ann.NearestSurfaces` hands it over. The layout (usearch 2.x,
``index_dense_gt::save`` then ``index_gt::save``), little-endian::

    u32 rows, u32 bytes per vector          then rows × bytes of vectors (f16 here)
    64-byte head: "usearch", u16 version ×3, u8 metric, scalar, key and slot kinds,
                  u64 present, u64 deleted, u64 dimensions, bool multi
    u64 size, connectivity, connectivity_base, max_level, entry_slot
    i16 level of each node
    each node: u64 key, i16 level, then per level 0..level: u32 count, then slots
               (connectivity_base u32 slots at level 0, connectivity above)

Every count, level, slot and key is checked; nothing but the vectors' values is taken
on trust, and they are only compared, never used to address memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

HEAD_BYTES = 64
GRAPH_HEADER_BYTES = 40
NODE_HEAD_BYTES = 10  # u64 key + i16 level
METRIC_IP, SCALAR_F16, KEY_U64, SLOT_U32 = ord("i"), 12, 14, 15
MAX_LEVEL = 64
CHUNK_NODES = 16384


class GraphProblem(ValueError):
    """The serialised graph breaks its layout (the caller names the file)."""


def _u(blob: NDArray[np.uint8], offset: int, dtype: str, count: int = 1) -> NDArray[Any]:
    size = np.dtype(dtype).itemsize * count
    if offset < 0 or offset + size > blob.shape[0]:
        raise GraphProblem("the graph ends early")
    return np.frombuffer(blob, dtype=dtype, count=count, offset=offset)


def check_graph(blob: NDArray[np.uint8], info: Mapping[str, Any], surfaces: int,
                dim: int) -> None:
    """Raise :class:`GraphProblem` unless ``blob`` is a well-formed usearch graph of exactly
    ``surfaces`` f16 vectors of ``dim`` dimensions under inner product, as gov builds it."""
    blob = np.ascontiguousarray(blob, dtype=np.uint8).reshape(-1)
    rows, width = (int(v) for v in _u(blob, 0, "<u4", 2))
    if rows != surfaces or width != dim * 2:
        raise GraphProblem(f"the graph holds {rows} vectors of {width} bytes, the index "
                           f"{surfaces} of {dim * 2}")
    offset = 8 + rows * width
    head = bytes(_u(blob, offset, "|u1", HEAD_BYTES))
    major = int.from_bytes(head[7:9], "little")
    kinds = tuple(head[13:17])
    present, deleted, dims = (int.from_bytes(head[17 + 8 * i: 25 + 8 * i], "little")
                              for i in range(3))
    if head[:7] != b"usearch" or major != 2:
        raise GraphProblem("the graph is not a usearch 2 index")
    if kinds != (METRIC_IP, SCALAR_F16, KEY_U64, SLOT_U32) or head[41] != 0:
        raise GraphProblem("the graph's metric, scalar, key or slot kind is not gov's")
    if present != surfaces or deleted != 0 or dims != dim:
        raise GraphProblem("the graph's head does not match its vectors")
    offset += HEAD_BYTES
    size, connectivity, base, max_level, entry = (int(v) for v in
                                                  _u(blob, offset, "<u8", 5))
    if size != surfaces or int(info.get("connectivity", -1)) != connectivity:
        raise GraphProblem("the graph's size or connectivity does not match the index")
    if not 2 <= connectivity <= base <= 4 * connectivity or not 0 <= max_level <= MAX_LEVEL \
            or not 0 <= entry < size:
        raise GraphProblem("the graph's header is out of range")
    offset += GRAPH_HEADER_BYTES
    levels = _u(blob, offset, "<i2", size).astype(np.int64)
    offset += 2 * size
    if int(levels.min()) < 0 or int(levels.max()) != max_level or int(levels[entry]) != max_level:
        raise GraphProblem("the graph's node levels are out of range")
    base_bytes = 4 + 4 * base
    level_bytes = 4 + 4 * connectivity
    sizes = NODE_HEAD_BYTES + base_bytes + levels * level_bytes
    starts = offset + np.concatenate(([0], np.cumsum(sizes)[:-1]))
    if offset + int(sizes.sum()) != blob.shape[0]:
        raise GraphProblem("the graph's nodes do not fill it exactly")
    seen = np.zeros(size, dtype=np.int64)
    for first in range(0, size, CHUNK_NODES):
        chunk = slice(first, min(first + CHUNK_NODES, size))
        seen += _check_nodes(blob, starts[chunk], levels[chunk], size, connectivity, base)
    if not bool((seen == 1).all()):
        raise GraphProblem("the graph's keys are not each surface once")


def _gather(blob: NDArray[np.uint8], starts: NDArray[np.int64], width: int) -> NDArray[np.uint8]:
    """``width`` bytes from each start, as a (starts, width) matrix."""
    gathered: NDArray[np.uint8] = blob[starts[:, None] + np.arange(width, dtype=np.int64)]
    return gathered


def _check_slots(blob: NDArray[np.uint8], starts: NDArray[np.int64], capacity: int,
                 size: int) -> None:
    """One level of neighbour lists at ``starts``: a count within the capacity, and every
    counted slot a node of the graph."""
    if not starts.size:
        return
    lists = _gather(blob, starts, 4 + 4 * capacity).view("<u4")
    counts = lists[:, 0].astype(np.int64)
    if int(counts.max()) > capacity:
        raise GraphProblem("a node has more neighbours than the graph allows")
    used = np.arange(capacity)[None, :] < counts[:, None]
    if bool((lists[:, 1:][used] >= size).any()):
        raise GraphProblem("a neighbour is not a node of the graph")


def _check_nodes(blob: NDArray[np.uint8], starts: NDArray[np.int64], levels: NDArray[np.int64],
                 size: int, connectivity: int, base: int) -> NDArray[np.int64]:
    """Check one chunk of nodes; return how often each key occurs in it."""
    heads = _gather(blob, starts, NODE_HEAD_BYTES)
    keys = heads[:, :8].copy().view("<u8").reshape(-1)
    own_levels = heads[:, 8:].copy().view("<i2").reshape(-1)
    if not np.array_equal(own_levels.astype(np.int64), levels):
        raise GraphProblem("a node's level disagrees with the level table")
    if bool((keys >= size).any()):
        raise GraphProblem("a node's key is not a surface of the index")
    _check_slots(blob, starts + NODE_HEAD_BYTES, base, size)
    base_bytes = 4 + 4 * base
    for level in range(1, int(levels.max()) + 1 if levels.size else 1):
        above = np.flatnonzero(levels >= level)
        _check_slots(blob, starts[above] + NODE_HEAD_BYTES + base_bytes
                     + (level - 1) * (4 + 4 * connectivity), connectivity, size)
    return np.bincount(keys.astype(np.int64), minlength=size)
