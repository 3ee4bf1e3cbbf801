"""Sentence embeddings: the bundled model through onnxruntime + tokenizers directly,
any other model through fastembed.

The bundled model runs through onnxruntime and tokenizers (mean pooling, l2 norm) to
route and to build: importing fastembed costs about half a second, which a one-shot route
would pay on every prompt, and its batches of 256 padded to the longest text made a build
five times slower and four times larger in memory than the length-grouped runs here
(measured with ``benchmarks/bench_build.py`` at 87bd3aa).
``tests/encode/test_embedding.py`` checks the vectors match fastembed's. A user-chosen
fastembed model id goes through fastembed, and is downloaded only when the user named it
on the command line (``gov index --model ID``): an index's header names its model, and a
repository can ship a header naming any model, so the route and hook paths read
fastembed's cache and never the network.
"""

from __future__ import annotations

import contextlib
import gc
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import orjson
from numpy.typing import NDArray

from ..errors import ModelError
from . import bundle

Vectors = NDArray[np.float32]


class Encoder(Protocol):
    """Turns texts into l2-normalised float32 vectors."""

    model_id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> Vectors: ...


def _bundle_paths(verify_hash: bool, spec: bundle.EncoderSpec | None = None) -> tuple[Path, Path]:
    """The model and tokenizer files of ``spec`` (default: the default model), checked."""
    paths = (spec or bundle.spec()).paths(verify_hash=verify_hash)
    return paths["model"], paths["tokenizer"]


def _onnxruntime() -> Any:
    """onnxruntime, imported so that it keeps quiet on stderr (the hook's stderr is gov's own
    line). Importing it tries to store a telemetry device id under HOME and, when HOME cannot
    be written, prints a coloured warning: its telemetry is off unless the user set
    ``ORT_DISABLE_TELEMETRY`` themselves, and its default logger reports errors only."""
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    import onnxruntime as ort

    ort.set_default_logger_severity(3)
    return ort


class OnnxEncoder:
    """A model gov runs itself (``runtime="onnx"``; by default the default model) through
    onnxruntime and tokenizers: routes and builds.

    ``workers`` > 1 (a build) runs that many length groups at once, each on one thread of
    one session: on two cores this costs less CPU than two threads inside each small run.
    """

    def __init__(self, verify_hash: bool = False, threads: int | None = None,
                 workers: int = 1, spec: bundle.EncoderSpec | None = None) -> None:
        spec = spec or bundle.spec()
        if spec.dim is None or spec.max_tokens is None:
            raise ModelError(f"embedding model {spec.id!r} does not run on gov's own encoder")
        self.model_id: str = spec.id
        self.dim: int = spec.dim
        self._batch = spec.batch_size
        model_path, tokenizer_path = _bundle_paths(verify_hash, spec)
        try:
            ort = _onnxruntime()
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ModelError(f"cannot import the embedding runtime: {exc}") from None
        try:
            tokenizer = Tokenizer.from_file(str(tokenizer_path))
            tokenizer.enable_truncation(max_length=spec.max_tokens)
            tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
            options = ort.SessionOptions()
            options.log_severity_level = 3
            # Idle worker threads sleep instead of spinning after each run: on a small or
            # busy machine spinning threads take the cores the rest of the route needs.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            # A memory plan is kept per input shape, and every length group is a new shape:
            # on 1,354 skill descriptions plans cost 85 MB at 2,048-token runs and 33 MB at
            # 512, and saved no time (docs/scale.md, "Cold builds").
            options.enable_mem_pattern = False
            if threads:
                options.intra_op_num_threads = threads
            session = ort.InferenceSession(
                str(model_path), options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # onnxruntime raises its own exception types
            raise ModelError(f"cannot load the embedding model: {exc}") from None
        self._tokenizer = tokenizer
        self._session = session
        self._inputs = {item.name for item in session.get_inputs()}
        self._workers = max(1, workers)
        self._pool: Any = None

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed ``texts``, run in groups of similar token length to pad less.

        A text's vector does not depend on the other texts run with it nor on its padding
        (masked positions add exact zeros), so grouping changes the cost, not the result.
        """
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        step = _SORT_WINDOW * self._batch
        for first in range(0, len(texts), step):
            chunk = list(texts[first : first + step])
            encoded = self._tokenizer.encode_batch(chunk)
            ids = np.array([item.ids for item in encoded], dtype=np.int64)
            mask = np.array([item.attention_mask for item in encoded], dtype=np.int64)
            lengths = mask.sum(axis=1)
            order = np.argsort(lengths, kind="stable")
            jobs = []
            start = 0
            for size in _length_groups(lengths[order].tolist(), self._batch):
                rows = order[start : start + size]
                width = int(lengths[rows].max())
                jobs.append((first + rows, ids[rows, :width], mask[rows, :width]))
                start += size
            if self._workers > 1 and len(jobs) > 1:
                if self._pool is None:
                    from concurrent.futures import ThreadPoolExecutor

                    self._pool = ThreadPoolExecutor(self._workers)
                for (rows, _ids, _mask), vectors in zip(
                        jobs, self._pool.map(lambda job: self._run(job[1], job[2]), jobs),
                        strict=True):
                    out[rows] = vectors
            else:
                for rows, batch_ids, batch_mask in jobs:
                    out[rows] = self._run(batch_ids, batch_mask)
        return out

    def _run(self, ids: NDArray[np.int64], mask: NDArray[np.int64]) -> Vectors:
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden: Vectors = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        vectors: Vectors = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return vectors


# What one model run costs beyond its tokens, counted in tokens (measured on two cores).
_RUN_COST_TOKENS = 16
# Tokens of one run at most (rows × width): attention grows with rows × width². On 1,354
# skill descriptions the encoder peaked at 508 MB with 2,048 and 317 MB with 512, in about
# the same CPU (docs/scale.md, "Cold builds"). The vectors do not depend on it.
_RUN_TOKENS = 512
# Texts tokenized and sorted by length together, in batches: bounds the padded arrays.
_SORT_WINDOW = 32


def _length_groups(lengths: list[int], most: int) -> list[int]:
    """Sizes of consecutive groups of ascending ``lengths`` (at most ``most`` each) that
    minimise the padded tokens run plus a fixed cost per run."""
    count = len(lengths)
    best = [0] * (count + 1)
    cut = [0] * (count + 1)
    for end in range(1, count + 1):
        width = lengths[end - 1]
        first = max(0, end - min(most, max(1, _RUN_TOKENS // max(width, 1))))
        best[end] = best[first] + _RUN_COST_TOKENS + (end - first) * width
        cut[end] = first
        for begin in range(first + 1, end):
            cost = best[begin] + _RUN_COST_TOKENS + (end - begin) * width
            if cost < best[end]:
                best[end], cut[end] = cost, begin
    sizes = []
    end = count
    while end > 0:
        sizes.append(end - cut[end])
        end = cut[end]
    return sizes[::-1]


def assemble_bundled_model(target: Path | None = None) -> Path:
    """Lay out the default model as a fastembed model folder (verified copies + three JSONs)."""
    model_path, tokenizer_path = _bundle_paths(verify_hash=True)
    folder = target or bundle.cache_dir() / "models" / "all-MiniLM-L6-v2-int8"
    folder.mkdir(parents=True, exist_ok=True)
    for source, name in ((model_path, "model.onnx"), (tokenizer_path, "tokenizer.json")):
        destination = folder / name
        if destination.is_file() and destination.stat().st_size == source.stat().st_size:
            continue
        temporary = folder / f".{name}.{os.getpid()}.tmp"
        shutil.copyfile(source, temporary)
        os.replace(temporary, destination)
    for name, content in (
        ("config.json", bundle.FASTEMBED_CONFIG),
        ("special_tokens_map.json", bundle.FASTEMBED_SPECIAL_TOKENS),
        ("tokenizer_config.json", bundle.FASTEMBED_TOKENIZER_CONFIG),
    ):
        temporary = folder / f".{name}.{os.getpid()}.tmp"
        temporary.write_bytes(orjson.dumps(content, option=orjson.OPT_INDENT_2) + b"\n")
        os.replace(temporary, folder / name)
    return folder


_REGISTERED: set[str] = set()


class FastembedEncoder:
    """fastembed's TextEmbedding: any model a user picks by id (and the default model, to
    check the lean encoder against). ``download``: fetch the model if it is not cached."""

    def __init__(self, model_id: str | None = None, download: bool = False) -> None:
        spec = bundle.spec(model_id)
        model_id = spec.id
        self.model_id = model_id
        self._batch = spec.batch_size
        try:
            from fastembed import TextEmbedding
        except ImportError as exc:
            raise ModelError(f"cannot import fastembed: {exc}") from None
        with contextlib.suppress(ImportError):  # its own log lines would break gov's one line
            from loguru import logger

            logger.disable("fastembed")
        cache = bundle.cache_dir() / "fastembed"
        try:
            if spec.runtime == "onnx" and spec.dim is not None:
                folder = assemble_bundled_model()
                self._register_bundled(spec.id, spec.dim)
                os.environ["HF_HUB_OFFLINE"] = "1"
                self._model: Any = TextEmbedding(
                    model_id, cache_dir=str(cache), specific_model_path=str(folder)
                )
                self.dim = spec.dim
            else:
                self._model = TextEmbedding(model_id, cache_dir=str(cache),
                                            local_files_only=not download)
                self.dim = int(self._model.embedding_size)
        except ModelError:
            raise
        except Exception as exc:  # fastembed raises many kinds; all mean "no model"
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            if not download:
                raise ModelError(f"embedding model {model_id!r} is not in the local cache (gov "
                                 "downloads a model only for gov index --model ID)") from None
            raise ModelError(f"cannot load embedding model {model_id!r}: {first}") from None

    @staticmethod
    def _register_bundled(model_id: str, dim: int) -> None:
        if model_id in _REGISTERED:
            return
        from fastembed import TextEmbedding
        from fastembed.common.model_description import ModelSource, PoolingType

        known = {item["model"].lower() for item in TextEmbedding.list_supported_models()}
        if model_id.lower() not in known:
            TextEmbedding.add_custom_model(
                model=model_id,
                pooling=PoolingType.MEAN,
                normalization=True,
                sources=ModelSource(hf="gov/bundled-all-MiniLM-L6-v2-int8"),
                dim=dim,
                model_file="model.onnx",
            )
        _REGISTERED.add(model_id)

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        vectors = list(self._model.embed(list(texts), batch_size=self._batch))
        return np.asarray(vectors, dtype=np.float32)


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def model_sha256(model_id: str) -> str | None:
    """The pinned sha256 of a model's weights, when gov knows it (a registered model)."""
    return bundle.spec(model_id).weights_sha256


_ENCODERS: dict[tuple[str, str, bool], Encoder] = {}


def get_encoder(model_id: str | None = None, purpose: str = "route",
                download: bool = False) -> Encoder:
    """A cached encoder of ``model_id`` (``None``: the default model): gov's lean ONNX
    encoder for a model it runs itself, fastembed otherwise.

    ``purpose`` ("route" or "build") keeps the two uses' sessions apart; ``download``
    (only for a model the user named on the command line) lets fastembed fetch a model
    it has not cached. Without it a missing model is a :class:`ModelError`, at once.
    """
    spec = bundle.spec(model_id)
    download = download and spec.runtime == "fastembed"
    key = (spec.id, purpose, download)
    encoder = _ENCODERS.get(key)
    if encoder is None:
        factory: Callable[[], Encoder]
        if spec.runtime == "onnx" and purpose == "build":
            def factory() -> Encoder:
                return OnnxEncoder(threads=1, workers=_cores(), spec=spec)
        elif spec.runtime == "onnx":
            def factory() -> Encoder:
                return OnnxEncoder(spec=spec)
        else:
            def factory() -> Encoder:
                return FastembedEncoder(spec.id, download=download)
        encoder = factory()
        _ENCODERS[key] = encoder
    return encoder


def release(purpose: str) -> None:
    """Drop the cached encoders of one ``purpose``: a build frees its session and the
    memory its runs grew before fitting the head, which would otherwise stack on top."""
    for key in [key for key in _ENCODERS if key[1] == purpose]:
        del _ENCODERS[key]
    _trim_heap()


def _trim_heap() -> None:
    """Hand freed heap pages back to the system (glibc keeps them for reuse otherwise, so
    a released session's arena would still count in the build's peak)."""
    gc.collect()
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    with contextlib.suppress(OSError, AttributeError):  # not glibc: nothing to trim
        ctypes.CDLL(None).malloc_trim(0)
