"""The index file format: a checksummed JSON header, then aligned raw arrays.

Layout (little-endian)::

    0   magic  b"GOVINDEX"
    8   u32    format version
    12  u32    flags (0)
    16  u64    header length in bytes
    24  u64    total file size in bytes (catches truncation and appended bytes)
    32  32B    sha256 of the header bytes
    64  header JSON (orjson): metadata + array manifest (dtype, shape, offset, sha256)
        arrays, each starting on a 64-byte boundary, uncompressed

Arrays are read with ``numpy.frombuffer`` over a memory map: no pickle anywhere, and a
large index is paged in lazily. The header (which includes the manifest and the
document records) is always verified; array checksums are verified when asked
(``verify=True``: the warm server at load, ``gov index --verify``, ``gov doctor``).
:func:`read_header` needs only the standard library and orjson, for light readers.
"""

from __future__ import annotations

import hashlib
import mmap
import os
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from ..atomic import atomic_writer
from ..bounded import NotRegularFile, open_regular
from ..errors import IndexLoadError

if TYPE_CHECKING:
    import numpy as np

MAGIC = b"GOVINDEX"
FORMAT_VERSION = 1
PREFIX = struct.Struct("<8sIIQQ32s")
ALIGN = 64
ALLOWED_DTYPES = frozenset({"<f4", "<f8", "<i4", "<i8", "|i1", "|u1", "<u4", "<u8"})


def _align(offset: int) -> int:
    return (offset + ALIGN - 1) // ALIGN * ALIGN


def rebuild_hint(path: str | os.PathLike[str], header: dict[str, Any] | None = None) -> str:
    """The command that rebuilds ``path``. Its roots come from the header, which may be
    crafted: each is shown only if it is plain text, and shell-quoted."""
    import shlex

    from ..sanitize import clean

    raw = (header or {}).get("roots")
    roots = [root for root in raw[:8] if isinstance(root, str) and root
             and clean(root) == root] if isinstance(raw, list) else []
    shown = " ".join(shlex.quote(root) for root in roots) or "PATH"
    return f"rebuild it with: gov index {shown} -o {shlex.quote(clean(str(path)))}"


def write_index_file(
    path: str | os.PathLike[str], header: dict[str, Any], arrays: dict[str, np.ndarray]
) -> None:
    """Write header and arrays to ``path`` atomically."""
    import numpy as np

    manifest: dict[str, dict[str, Any]] = {}
    blobs: list[tuple[int, bytes]] = []
    offset = 0
    for name, array in arrays.items():
        contiguous = np.ascontiguousarray(array)
        dtype = contiguous.dtype.newbyteorder("<") if contiguous.dtype.byteorder == ">" else contiguous.dtype
        contiguous = contiguous.astype(dtype, copy=False)
        if contiguous.dtype.str not in ALLOWED_DTYPES:
            raise ValueError(f"array {name!r} has unsupported dtype {contiguous.dtype.str}")
        data = contiguous.tobytes()
        offset = _align(offset)
        manifest[name] = {
            "dtype": contiguous.dtype.str,
            "shape": list(contiguous.shape),
            "offset": offset,
            "nbytes": len(data),
            "sha256": hashlib.sha256(data).hexdigest(),
        }
        blobs.append((offset, data))
        offset += len(data)
    full_header = dict(header)
    full_header["arrays"] = manifest
    header_bytes = orjson.dumps(full_header)
    data_start = _align(PREFIX.size + len(header_bytes))
    total = data_start + offset
    prefix = PREFIX.pack(MAGIC, FORMAT_VERSION, 0, len(header_bytes), total,
                         hashlib.sha256(header_bytes).digest())
    with atomic_writer(path) as handle:
        handle.write(prefix)
        handle.write(header_bytes)
        position = PREFIX.size + len(header_bytes)
        for blob_offset, data in blobs:
            target = data_start + blob_offset
            handle.write(b"\0" * (target - position))
            handle.write(data)
            position = target + len(data)


def _read_prefix(handle: Any, path: str, size: int) -> tuple[int, int, bytes]:
    raw = handle.read(PREFIX.size)
    if len(raw) < PREFIX.size:
        raise IndexLoadError(f"{path}: not a gov index (too short; truncated?)", hint=rebuild_hint(path))
    magic, version, _flags, header_len, total, digest = PREFIX.unpack(raw)
    if magic != MAGIC:
        raise IndexLoadError(f"{path}: not a gov index file", hint=rebuild_hint(path))
    if version != FORMAT_VERSION:
        raise IndexLoadError(
            f"{path}: index format version {version}, this gov reads version {FORMAT_VERSION}",
            hint=rebuild_hint(path),
        )
    if total != size:
        state = "truncated" if size < total else "has trailing bytes"
        raise IndexLoadError(f"{path}: index file is {state} ({size} of {total} bytes)",
                             hint=rebuild_hint(path))
    if header_len > size - PREFIX.size:
        raise IndexLoadError(f"{path}: index header is corrupt", hint=rebuild_hint(path))
    return header_len, total, digest


def _open(path: str | os.PathLike[str]) -> tuple[Any, int]:
    shown = str(path)
    try:
        handle = os.fdopen(open_regular(path), "rb")  # a FIFO would block open() forever
    except FileNotFoundError:
        raise IndexLoadError(f"{shown}: no index here", hint=rebuild_hint(shown)) from None
    except IsADirectoryError:
        raise IndexLoadError(f"{shown}: is a folder, not an index file", hint=rebuild_hint(shown)) from None
    except NotRegularFile as exc:
        raise IndexLoadError(f"{shown}: {exc.strerror}, not an index file",
                             hint=rebuild_hint(shown)) from None
    except OSError as exc:
        raise IndexLoadError(f"{shown}: cannot open the index: {exc.strerror or exc}",
                             hint=rebuild_hint(shown)) from None
    try:
        size = os.fstat(handle.fileno()).st_size
    except OSError as exc:
        handle.close()
        raise IndexLoadError(f"{shown}: cannot read the index: {exc.strerror or exc}") from None
    return handle, size


def _parse_header(path: str, header_bytes: bytes, digest: bytes) -> dict[str, Any]:
    if hashlib.sha256(header_bytes).digest() != digest:
        raise IndexLoadError(f"{path}: index header checksum mismatch (corrupt file)",
                             hint=rebuild_hint(path))
    try:
        header = orjson.loads(header_bytes)
    except orjson.JSONDecodeError:
        raise IndexLoadError(f"{path}: index header is not valid JSON", hint=rebuild_hint(path)) from None
    if not isinstance(header, dict) or not isinstance(header.get("arrays"), dict):
        raise IndexLoadError(f"{path}: index header is malformed", hint=rebuild_hint(path))
    return header


def read_header(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The verified header of an index file, without touching its arrays (no numpy)."""
    shown = str(path)
    handle, size = _open(path)
    with handle:
        try:
            return _read_verified(handle, shown, size)[0]
        except OSError as exc:
            raise IndexLoadError(f"{shown}: cannot read the index: {exc.strerror or exc}") from None


def _read_verified(handle: Any, shown: str, size: int) -> tuple[dict[str, Any], int]:
    """The checked prefix, then the verified header; returns (header, header length)."""
    header_len, _total, digest = _read_prefix(handle, shown, size)
    return _parse_header(shown, handle.read(header_len), digest), header_len


def read_array_bytes(path: str | os.PathLike[str], name: str,
                     header: dict[str, Any] | None = None) -> bytes:
    """One array's raw bytes, checked against its sha256, without numpy or a memory map."""
    shown = str(path)
    header = header if header is not None else read_header(path)
    entry = header["arrays"].get(name)
    if entry is None:
        raise IndexLoadError(f"{shown}: index lacks array {name!r}", hint=rebuild_hint(shown, header))
    check_entry(shown, name, entry, header)
    handle, size = _open(path)
    with handle:
        try:
            header_len, _total, _digest = _read_prefix(handle, shown, size)
            handle.seek(_align(PREFIX.size + header_len) + int(entry["offset"]))
            data = bytes(handle.read(int(entry["nbytes"])))
        except OSError as exc:
            raise IndexLoadError(f"{shown}: cannot read the index: {exc.strerror or exc}") from None
    if hashlib.sha256(data).hexdigest() != entry["sha256"]:
        raise IndexLoadError(f"{shown}: array {name!r} fails its checksum (corrupt file)",
                             hint=rebuild_hint(shown, header))
    return data


@dataclass
class IndexFile:
    """An opened index: the verified header and memory-mapped arrays."""

    path: str
    header: dict[str, Any]
    _map: mmap.mmap | None
    _data_start: int

    def array(self, name: str) -> np.ndarray:
        import numpy as np

        entry = self.header["arrays"].get(name)
        if entry is None:
            raise IndexLoadError(f"{self.path}: index lacks array {name!r}",
                                 hint=rebuild_hint(self.path, self.header))
        dtype = np.dtype(entry["dtype"])
        count = 1
        for dim in entry["shape"]:
            count *= int(dim)
        if entry["nbytes"] != count * dtype.itemsize:
            raise IndexLoadError(f"{self.path}: array {name!r} has an inconsistent size",
                                 hint=rebuild_hint(self.path, self.header))
        if count == 0 or self._map is None:
            return np.zeros(entry["shape"], dtype=dtype)
        start = self._data_start + int(entry["offset"])
        array = np.frombuffer(self._map, dtype=dtype, count=count, offset=start)
        return array.reshape(entry["shape"])

    def verify_arrays(self) -> None:
        """Check every array's sha256; a flipped bit is an error, never a wrong answer."""
        for name, entry in self.header["arrays"].items():
            if self._map is None or entry["nbytes"] == 0:
                actual = hashlib.sha256(b"").hexdigest()
            else:
                start = self._data_start + int(entry["offset"])
                actual = hashlib.sha256(self._map[start : start + int(entry["nbytes"])]).hexdigest()
            if actual != entry["sha256"]:
                raise IndexLoadError(f"{self.path}: array {name!r} fails its checksum (corrupt file)",
                                     hint=rebuild_hint(self.path, self.header))


def check_entry(shown: str, name: str, entry: Any, header: dict[str, Any]) -> None:
    """One array's manifest entry, whole: a dtype gov reads, a shape of sizes, an offset and
    a length, a checksum; anything else is one :class:`IndexLoadError` naming what."""
    def bad(what: str) -> IndexLoadError:
        return IndexLoadError(f"{shown}: array {name!r} has a bad manifest entry ({what})",
                              hint=rebuild_hint(shown, header))

    if not isinstance(entry, dict):
        raise bad("not an object")
    if entry.get("dtype") not in ALLOWED_DTYPES:
        raise bad("dtype")
    shape = entry.get("shape")
    if not isinstance(shape, list) or not all(type(n) is int and n >= 0 for n in shape):
        raise bad("shape")
    for key in ("offset", "nbytes"):
        if type(entry.get(key)) is not int or entry[key] < 0:
            raise bad(key)
    if not isinstance(entry.get("sha256"), str):
        raise bad("sha256")


def open_index_file(path: str | os.PathLike[str], verify: bool = False) -> IndexFile:
    """Open ``path``: verify the prefix and header, map the arrays."""
    shown = str(path)
    handle, size = _open(path)
    with handle:
        try:
            header, header_len = _read_verified(handle, shown, size)
            data_start = _align(PREFIX.size + header_len)
            for name, entry in header["arrays"].items():
                check_entry(shown, name, entry, header)
                if data_start + int(entry["offset"]) + int(entry["nbytes"]) > size:
                    raise IndexLoadError(f"{shown}: array {name!r} runs past the end of the file",
                                         hint=rebuild_hint(shown, header))
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) if size > data_start else None
        except OSError as exc:
            raise IndexLoadError(f"{shown}: cannot read the index: {exc.strerror or exc}") from None
    opened = IndexFile(shown, header, mapped, data_start)
    if verify:
        opened.verify_arrays()
    return opened
