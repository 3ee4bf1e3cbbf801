"""A content-addressed cache of surface embeddings on disk, so a large build can resume.

Embedding 100,000 documents takes minutes; a build that is interrupted (a laptop lid,
Ctrl-C, a CI timeout) should not start over. Vectors are keyed by a hash of the model's
identity and the surface text, and stored in chunks under the gov cache folder::

    <cache>/embeddings/<model>/<chunk>.vectors.npy   float32 (n, dim)
    <cache>/embeddings/<model>/<chunk>.keys.npy      uint8   (n, 16): blake2b-128 of the text

Each file is written atomically, vectors first and keys last, so a chunk exists only once
both are whole; a half-written chunk is invisible. Files are read with
``allow_pickle=False`` (vectors memory-mapped), and chunks are added, never rewritten, so
two builds may share the folder. Delete the folder to reclaim the space.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ..atomic import atomic_writer
from ..errors import IndexBuildError
from . import bundle

KEY_BYTES = 16
SAVE_SECONDS = 5.0  # embedding work between two saves: at most this much is lost
STEP_TEXTS = 512  # texts per encoder call (grouped by length inside it)
MIN_TEXTS = 1024  # smaller builds take seconds and skip the cache (GOV_EMBED_CACHE=1 forces it)
Progress = Callable[[int, int], None]


def text_key(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=KEY_BYTES).digest()


def model_folder(model_id: str, model_sha256: str | None) -> Path:
    """The cache folder of one model (its pinned hash, when known, is part of the name)."""
    slug = re.sub(r"[^A-Za-z0-9._-]+", "_", model_id).strip("_") or "model"
    if model_sha256:
        slug += "-" + model_sha256[:12]
    return bundle.cache_dir() / "embeddings" / slug


class EmbeddingCache:
    """Surface vectors of one model, read from and appended to a folder of chunks."""

    def __init__(self, folder: Path, dim: int | None) -> None:
        self.folder = folder
        self.dim = dim
        self._sequence = 0

    def lookup(self, texts: Sequence[str]) -> dict[str, NDArray[np.float32]]:
        """The cached vectors among ``texts`` (unreadable or mismatched chunks are skipped)."""
        wanted = {text_key(text): text for text in texts}
        found: dict[str, NDArray[np.float32]] = {}
        if not wanted or not self.folder.is_dir():
            return found
        for keys_path in sorted(self.folder.glob("*.keys.npy")):
            try:
                keys = np.load(keys_path, allow_pickle=False)
                vectors = np.load(keys_path.with_name(keys_path.name.replace(
                    ".keys.npy", ".vectors.npy")), mmap_mode="r", allow_pickle=False)
            except (OSError, ValueError):
                continue
            if (keys.dtype != np.uint8 or keys.ndim != 2 or keys.shape[1] != KEY_BYTES
                    or vectors.dtype != np.float32 or vectors.ndim != 2
                    or vectors.shape[0] != keys.shape[0]
                    or (self.dim is not None and vectors.shape[1] != self.dim)):
                continue
            for row, raw in enumerate(keys):
                text = wanted.get(raw.tobytes())
                if text is not None and text not in found:
                    found[text] = np.array(vectors[row])
            if len(found) == len(wanted):
                break
        return found

    def add(self, texts: Sequence[str], vectors: NDArray[np.float32]) -> None:
        """Save one chunk: vectors first, keys last (the keys file marks the chunk whole)."""
        if not texts:
            return
        try:
            self._add(texts, vectors)
        except OSError as exc:  # read-only, not a folder, a full disk
            raise IndexBuildError(
                f"{self.folder}: cannot write the embedding cache: {exc.strerror or exc}; free "
                "some space or make the folder writable, point GOV_CACHE_DIR at another folder, "
                "or build without the cache (GOV_EMBED_CACHE=0)") from None

    def _add(self, texts: Sequence[str], vectors: NDArray[np.float32]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self._sequence += 1
        stem = f"{time.time_ns():x}-{os.getpid()}-{self._sequence}"
        keys = np.frombuffer(b"".join(text_key(t) for t in texts), dtype=np.uint8)
        for suffix, array in ((".vectors.npy", np.ascontiguousarray(vectors, dtype=np.float32)),
                              (".keys.npy", keys.reshape(len(texts), KEY_BYTES))):
            buffer = io.BytesIO()
            np.save(buffer, array, allow_pickle=False)
            with atomic_writer(self.folder / f"{stem}{suffix}") as handle:
                handle.write(buffer.getbuffer())


def use_cache(missing: int, wanted: bool | None = None) -> bool:
    """Whether a build that must embed ``missing`` texts goes through the disk cache:
    ``GOV_EMBED_CACHE`` decides when set (off means off for every caller), else ``wanted``,
    else whether the build is large."""
    setting = os.environ.get("GOV_EMBED_CACHE", "").strip().lower()
    if setting in ("0", "false", "no", "off"):
        return False
    if setting in ("1", "true", "yes", "on"):
        return True
    return wanted if wanted is not None else missing >= MIN_TEXTS


def embed_missing(texts: Sequence[str], model_id: str, *, model_sha256: str | None,
                  dim: int | None, progress: Progress | None = None, cache: bool | None = None,
                  download: bool = False,
                  ) -> tuple[dict[str, NDArray[np.float32]], int]:
    """Vectors for ``texts`` (distinct): from the disk cache, else embedded and saved.

    Returns the vectors and how many came from the cache. Progress counts all ``texts``,
    cached ones first, so a resumed build's bar starts where the last one stopped. What
    was embedded is saved every :data:`SAVE_SECONDS` of work, so an interrupted build
    loses seconds, not minutes. ``cache`` asks for the disk cache or not (default: on for
    large builds); ``GOV_EMBED_CACHE`` overrides it. ``download``: the user named this model (see
    :func:`~gov.core.encode.embedding.get_encoder`).
    """
    chunks = EmbeddingCache(model_folder(model_id, model_sha256), dim) \
        if use_cache(len(texts), cache) else None
    vectors = chunks.lookup(texts) if chunks is not None else {}
    hits = len(vectors)
    todo = [text for text in texts if text not in vectors]
    if progress is not None and hits:
        progress(hits, len(texts))
    if todo:
        from .embedding import get_encoder

        encoder = get_encoder(model_id, purpose="build", download=download)
        unsaved: list[str] = []
        blocks: list[NDArray[np.float32]] = []
        saved_at = time.monotonic()
        for start in range(0, len(todo), STEP_TEXTS):
            part = todo[start : start + STEP_TEXTS]
            block = np.asarray(encoder.embed(part), dtype=np.float32)
            for text, vector in zip(part, block, strict=True):
                vectors[text] = vector
            if progress is not None:
                progress(hits + start + len(part), len(texts))
            if chunks is None:
                continue
            unsaved.extend(part)
            blocks.append(block)
            if time.monotonic() - saved_at >= SAVE_SECONDS or start + STEP_TEXTS >= len(todo):
                chunks.add(unsaved, np.vstack(blocks))
                unsaved, blocks, saved_at = [], [], time.monotonic()
    return vectors, hits
