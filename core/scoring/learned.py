"""What calibration learned from labelled prompts, as arrays beside the operating point.

``gov calibrate --learn`` keeps two things: the labelled positives' embeddings, routed to
as further example surfaces of their documents (nearest neighbours), and a linear
classifier over embeddings (one weight row and bias per document, fitted with
scikit-learn, applied here as a matrix product and a softmax). When the labelled set has
negatives the classifier also has a "no document" class, trained on them: the
probability left for the documents is then itself evidence for abstaining. The arrays live in an
``.npz`` file read with ``allow_pickle=False``; the point's JSON names the file, its
sha256, and the documents and texts the rows belong to.
"""

from __future__ import annotations

import hashlib
import io
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..atomic import write_bytes_atomic
from ..errors import OperatingPointError

ARRAYS = ("vectors", "classifier_weights", "classifier_bias")


@dataclass
class LearnedArrays:
    """Learned surfaces (rows of ``vectors``, one per name) and the classifier."""

    vectors: NDArray[np.float32]
    names: list[str]
    texts: list[str]
    classifier_weights: NDArray[np.float32]
    classifier_bias: NDArray[np.float32]
    classifier_names: list[str]
    # The classifier's last row is the "no document" class (trained on the negatives).
    abstain_class: bool = False

    def arrays(self) -> dict[str, NDArray[np.float32]]:
        return {"vectors": self.vectors, "classifier_weights": self.classifier_weights,
                "classifier_bias": self.classifier_bias}

    def info(self, sha256: str) -> dict[str, Any]:
        """The JSON half: what each array row belongs to."""
        return {"names": self.names, "texts": self.texts,
                "classifier_names": self.classifier_names, "abstain_class": self.abstain_class,
                "sha256": sha256}


def encode(learned: LearnedArrays) -> bytes:
    buffer = io.BytesIO()
    arrays = learned.arrays()
    np.savez(buffer, vectors=arrays["vectors"], classifier_weights=arrays["classifier_weights"],
             classifier_bias=arrays["classifier_bias"])
    return buffer.getvalue()


def save_learned(learned: LearnedArrays, path: str | os.PathLike[str]) -> str:
    """Write the array file atomically; return its sha256 for the point's JSON."""
    data = encode(learned)
    write_bytes_atomic(path, data)
    return hashlib.sha256(data).hexdigest()


def from_arrays(arrays: dict[str, Any], info: dict[str, Any], where: str,
                dim: int | None = None) -> LearnedArrays:
    """Check the arrays against the JSON half; every mismatch names the file and the field."""
    try:
        vectors = np.asarray(arrays["vectors"], dtype=np.float32)
        weights = np.asarray(arrays["classifier_weights"], dtype=np.float32)
        bias = np.asarray(arrays["classifier_bias"], dtype=np.float32)
    except KeyError as exc:
        raise OperatingPointError(f"{where}: array {exc.args[0]!r} is missing") from None
    except (TypeError, ValueError) as exc:
        raise OperatingPointError(f"{where}: the learned arrays are not numbers ({exc})") from None
    names = list(info.get("names", []))
    texts = list(info.get("texts", []))
    classifier_names = list(info.get("classifier_names", []))
    if vectors.ndim != 2 or vectors.shape[0] != len(names):
        raise OperatingPointError(f"{where}: 'vectors' has {vectors.shape[0]} rows, "
                                  f"learned.names lists {len(names)}")
    abstain_class = bool(info.get("abstain_class", False))
    classes = len(classifier_names) + (1 if abstain_class and classifier_names else 0)
    if weights.ndim != 2 or weights.shape[0] != classes or bias.shape != (classes,):
        raise OperatingPointError(f"{where}: the classifier arrays do not match "
                                  "learned.classifier_names")
    if classes and weights.shape[1] != vectors.shape[1] and vectors.shape[0]:
        raise OperatingPointError(f"{where}: 'classifier_weights' and 'vectors' differ in "
                                  "dimension")
    for array, label in ((vectors, "vectors"), (weights, "classifier_weights")):
        if array.shape[0] and dim is not None and array.shape[1] != dim:
            raise OperatingPointError(f"{where}: {label!r} has dimension {array.shape[1]}, "
                                      f"the index's model has {dim}")
    return LearnedArrays(vectors, names, texts, weights, bias, classifier_names, abstain_class)


def load_learned(path: Path, info: dict[str, Any], dim: int | None = None) -> LearnedArrays:
    """Read the array file beside a point: missing, altered or malformed is an error."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise OperatingPointError(f"{path}: learned array file not found (the operating point's "
                                  "params.learned_surfaces names it)") from None
    except OSError as exc:
        raise OperatingPointError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if hashlib.sha256(data).hexdigest() != info.get("sha256"):
        raise OperatingPointError(
            f"{path}: sha256 differs from the operating point's learned.sha256 "
            "(the file was changed or belongs to another point)")
    _check_sizes(data, info, dim, path)
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files if name in ARRAYS}
    except (OSError, ValueError, EOFError) as exc:
        raise OperatingPointError(f"{path}: not a readable array file ({exc})") from None
    return from_arrays(arrays, info, str(path), dim)


def _check_sizes(data: bytes, info: dict[str, Any], dim: int | None, path: Path) -> None:
    """Refuse an archive whose members would unpack to more than the rows the point names
    could need (a compressed member of a megabyte can stand for gigabytes of zeros)."""
    import zipfile

    rows = len(info.get("names", [])) + 2 * (len(info.get("classifier_names", [])) + 1)
    most = rows * (dim or 4096) * 8 + (1 << 16)
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise OperatingPointError(f"{path}: not a readable array file ({exc})") from None
    if len(members) > 16 or sum(member.file_size for member in members) > most:
        raise OperatingPointError(f"{path}: the learned arrays are larger than the point's "
                                  f"{rows} rows could need; refusing to unpack them")


def softmax_rows(logits: NDArray[Any]) -> NDArray[Any]:
    """Each row's softmax, in the logits' own precision (float32 to route, float64 to
    calibrate); the one softmax routing and calibration share."""
    shifted: NDArray[Any] = logits - logits.max(axis=1, keepdims=True)
    np.exp(shifted, out=shifted)
    shifted /= shifted.sum(axis=1, keepdims=True)
    return shifted


CLASSIFIER_C = 10.0


def fit_classifier(vectors: NDArray[np.float32], owners: NDArray[np.int64], classes: int,
                    ) -> tuple[NDArray[np.float32], NDArray[np.float32]]:
    """Multinomial logistic regression over embeddings; one row per class index (a class
    with no rows can never win). scikit-learn is imported only here, at build or
    calibration time: a route applies the weights with numpy alone."""
    import warnings

    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=CLASSIFIER_C, max_iter=500)
    with warnings.catch_warnings():  # "more classes than half the samples" is the design
        warnings.simplefilter("ignore", UserWarning)
        model.fit(vectors, owners)
    weights = np.zeros((classes, vectors.shape[1]), dtype=np.float32)
    bias = np.full(classes, -1e4, dtype=np.float32)
    seen = np.asarray(model.classes_, dtype=np.int64)
    if seen.size == 2:
        # scikit-learn keeps one row for two classes: split it into two opposite logits.
        weights[seen[1]] = model.coef_[0] / 2
        weights[seen[0]] = -model.coef_[0] / 2
        bias[seen[1]] = model.intercept_[0] / 2
        bias[seen[0]] = -model.intercept_[0] / 2
    else:
        weights[seen] = model.coef_
        bias[seen] = model.intercept_
    return weights, bias
