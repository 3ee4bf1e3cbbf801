"""Crafting damaged and hostile index files from a good one, checksums recomputed.

A repository can ship ``.gov/index``: whoever wrote it can change any byte and recompute
every checksum. These helpers rewrite an index with a changed header or changed arrays
through the real writer, so the file passes every checksum and only gov's own checks
stand between it and a route.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from gov.core.index.fileformat import open_index_file, write_index_file


def read(path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """An index's header (without its manifest) and writable copies of its arrays."""
    opened = open_index_file(path)
    header = {k: v for k, v in opened.header.items() if k != "arrays"}
    arrays = {name: np.array(opened.array(name)) for name in opened.header["arrays"]}
    return header, arrays


def craft(source: Path, target: Path,
          change: Callable[[dict[str, Any], dict[str, np.ndarray]], None]) -> Path:
    """Copy ``source`` to ``target`` with ``change(header, arrays)`` applied in place."""
    header, arrays = read(source)
    change(header, arrays)
    write_index_file(target, header, arrays)
    return target


def flip_byte(array: np.ndarray, position: int, value: int) -> None:
    """Set one byte of ``array`` (any dtype) to ``value``."""
    raw = array.view(np.uint8).reshape(-1)
    raw[position % raw.size] = value
