"""Shared fixtures and the one way tests run ``gov``.

- ``run_gov`` runs the real entry point in a fresh process (``gov_command`` and ``gov_env``
  are its parts, for tests that need a live process); ``invoke_gov`` runs the same entry
  point in this process, for command tests where no lean path or process-level behaviour
  is under test.
- ``example_index`` (and ``bodies_index``) index the example corpus with the real model;
  ``fake_index`` (and ``fake_bodies_index``) index it with the hashed-words stand-in
  (``tests/fake_encoder.py``), installed for the test by ``fake_encoder``.
- Every test runs in the suite's own runtime and cache folders (``GOV_RUNTIME_DIR``,
  ``GOV_CACHE_DIR``, set for the whole session before any session fixture builds, and again
  for each test) without ``GOV_TELEMETRY_PATH``: never the warm server, cache or telemetry
  log of the person running it.
- Markers: ``model`` (loads the real embedding model) and ``slow`` (over about a second, or
  subprocesses and servers). A test using a real-model fixture is marked ``model`` and every
  ``model`` test ``slow``; a test not marked ``slow`` that starts a process (``gov`` or any
  other), or one not marked ``model`` that asks for the real model, fails, so
  ``pytest -m "not slow"`` stays quick and ``-m "not model"`` never loads the model.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

import pytest

from tests.fake_encoder import HashedWordsEncoder

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
POLICIES = EXAMPLES / "policies"

Env = Mapping[str, str | None]

# -- running gov ------------------------------------------------------------------------------

_running: list[pytest.Item] = []  # the test being set up, run or torn down


def _require(marker: str, what: str) -> None:
    item = _running[-1] if _running else None
    if item is not None and item.get_closest_marker(marker) is None:
        raise AssertionError(f"{item.nodeid} {what}: mark it @pytest.mark.{marker}")


def gov_on_path(folder: Path, base: dict[str, str]) -> dict[str, str]:
    """``base`` with a ``gov`` first on PATH that runs this checkout's entry point."""
    _require("slow", "puts gov on PATH for a shell")
    wrapper = folder / "gov"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m gov.cli.entry "$@"\n')
    wrapper.chmod(0o755)
    return {**base, "PATH": f"{folder}{os.pathsep}{base.get('PATH', '')}", "PYTHONPATH": str(REPO)}


def gov_command(*args: str, python: Sequence[str] = ()) -> list[str]:
    """The command line of ``gov ARGS`` in a fresh interpreter (``python``: its own flags)."""
    _require("slow", "starts a gov process")
    return [sys.executable, *python, "-m", "gov.cli.entry", *args]


def gov_env(env: Env | None = None) -> dict[str, str]:
    """This environment with ``NO_COLOR=1`` and without ``GOV_INDEX`` or ``CI``, then ``env``
    on top (a ``None`` value removes a variable)."""
    full = {key: value for key, value in os.environ.items() if key not in ("GOV_INDEX", "CI")}
    full["NO_COLOR"] = "1"
    for key, value in (env or {}).items():
        if value is None:
            full.pop(key, None)
        else:
            full[key] = value
    return full


def run_gov(*args: str, input: bytes | str | None = None, stdin: int | IO[Any] | None = None,
            env: Env | None = None, cwd: Path | None = None, timeout: float = 120,
            python: Sequence[str] = ()) -> subprocess.CompletedProcess[bytes]:
    """Run the real ``gov`` entry point in a fresh process; stdin is ``input`` (empty unless
    given) or the descriptor ``stdin``."""
    data = input.encode() if isinstance(input, str) else input
    if stdin is None and data is None:
        data = b""
    return subprocess.run(gov_command(*args, python=python), input=data, stdin=stdin,
                          capture_output=True, env=gov_env(env), cwd=cwd, timeout=timeout,
                          check=False)


def invoke_gov(*args: str, input: bytes | str | None = None, env: Env | None = None,
               cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run ``gov ARGS`` in this process through the console script's own dispatcher
    (``gov.cli.entry.main``), with the environment ``run_gov`` gives; the same exit code,
    stdout and stderr, without a fresh interpreter."""
    from click.testing import CliRunner

    from gov.cli.entry import main
    from gov.core import telemetry

    full = {"NO_COLOR": "1", "GOV_INDEX": None, "CI": None, **(env or {})}
    before = os.getcwd()
    sigterm = signal.getsignal(signal.SIGTERM)
    try:
        if cwd is not None:
            os.chdir(cwd)
        with CliRunner().isolation(input=input or b"", env=full) as (out, err, _mixed):
            try:
                main(list(args))
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
        return subprocess.CompletedProcess(["gov", *args], code, out.getvalue(), err.getvalue())
    finally:
        os.chdir(before)
        signal.signal(signal.SIGTERM, sigterm)  # a command turns SIGTERM into an exit
        telemetry.reset_sink()


# -- markers ------------------------------------------------------------------------------------

REAL_MODEL_FIXTURES = {"example_index", "bodies_index", "planted_index", "lint_cache"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if REAL_MODEL_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.model)
        if item.get_closest_marker("model") is not None:
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    _running.append(item)
    try:
        return (yield)
    finally:
        _running.pop()


def _refuse_real_model(*_args: object, **_kwargs: object) -> None:
    where = _running[-1].nodeid if _running else "a test"
    raise AssertionError(f"{where} loads the real embedding model: mark it @pytest.mark.model")


_popen_init = subprocess.Popen.__init__


def _popen_only_when_slow(self: subprocess.Popen[Any], *args: Any, **kwargs: Any) -> None:
    _require("slow", "starts a process")
    _popen_init(self, *args, **kwargs)


@pytest.fixture(autouse=True)
def _marks_hold(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Outside ``model`` tests, asking for the real encoder fails the test; outside ``slow``
    tests, so does starting a process."""
    if request.node.get_closest_marker("model") is None:
        from gov.core.encode import embedding

        monkeypatch.setattr(embedding, "get_encoder", _refuse_real_model)
    if request.node.get_closest_marker("slow") is None:
        monkeypatch.setattr(subprocess.Popen, "__init__", _popen_only_when_slow)


# -- isolation ----------------------------------------------------------------------------------


@pytest.fixture(scope="session", autouse=True)
def _private_folders(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A runtime folder (short: a socket path has at most 107 bytes) and a cache folder for
    the whole run, set before any session fixture builds an index (so their embedding
    caches are the suite's, never the user's); warm servers started in it are stopped at
    the end."""
    import shutil
    import tempfile

    runtime = Path(tempfile.mkdtemp(prefix="gov-test-rt-"))
    cache = tmp_path_factory.mktemp("cache")
    folders = {"GOV_RUNTIME_DIR": str(runtime), "GOV_CACHE_DIR": str(cache)}
    with pytest.MonkeyPatch.context() as patch:
        for name, value in folders.items():
            patch.setenv(name, value)
        yield folders
    from gov.core.serving import wire
    from gov.core.serving.protocol import send

    for sock in runtime.glob("*.sock"):
        send(wire.Stop(), 2.0, sock)
    shutil.rmtree(runtime, ignore_errors=True)


@pytest.fixture(autouse=True)
def _isolated(_private_folders: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs apart from the person running the suite: its own runtime folder
    (never their warm server), its own cache folder, no telemetry log of theirs. A test
    that needs one of these sets it itself."""
    for name, value in _private_folders.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("GOV_TELEMETRY_PATH", raising=False)


# -- indexes ------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def example_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example corpus indexed once with the real model."""
    from gov.core.corpus.reader import load_corpus
    from gov.core.routing.indexes import build_index

    path = tmp_path_factory.mktemp("index") / "index"
    build_index(load_corpus([POLICIES], warn=lambda _m: None)).write(path)
    return path


@pytest.fixture(scope="session")
def bodies_index(example_index: Path) -> Path:
    """The example corpus indexed with body evidence, real model. Bodies are on by default,
    so this is ``example_index``; the name says what a test relies on."""
    assert _has_bodies(example_index)
    return example_index


def install_fake_encoder(patch: pytest.MonkeyPatch, encoder: HashedWordsEncoder, cache: Path) -> None:
    """Every encoder gov asks for (to build or to route) is ``encoder``. Its vectors never
    reach the suite's cache folder, where the real model's vectors are kept under the same
    model id: gov's cache folder is ``cache``, a folder of the stand-in's own, and the
    embedding cache keeps its defaults there (body passages and the background bank ask for
    it; other small builds skip it)."""
    from gov.core.encode import embedding

    patch.setattr(embedding, "get_encoder", lambda *_args, **_kwargs: encoder)
    patch.delenv("GOV_EMBED_CACHE", raising=False)
    patch.setenv("GOV_CACHE_DIR", str(cache))


@pytest.fixture
def fake_encoder(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
                 ) -> HashedWordsEncoder:
    """The hashed-words stand-in, installed for this test, with a cache folder of its own."""
    encoder = HashedWordsEncoder()
    install_fake_encoder(monkeypatch, encoder, tmp_path_factory.mktemp("fake-cache"))
    return encoder


@pytest.fixture(scope="session")
def _fake_index_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from gov.core.corpus.reader import load_corpus
    from gov.core.routing.indexes import build_index

    path = tmp_path_factory.mktemp("fake-index") / "index"
    with pytest.MonkeyPatch.context() as patch:
        install_fake_encoder(patch, HashedWordsEncoder(), tmp_path_factory.mktemp("fake-cache"))
        build_index(load_corpus([POLICIES], warn=lambda _m: None)).write(path)
    return path


@pytest.fixture
def fake_index(_fake_index_file: Path, fake_encoder: HashedWordsEncoder) -> Path:
    """The example corpus indexed with the stand-in encoder, which this test routes with.

    It names the bundled model, as a real index would: load it only with the stand-in
    installed (this fixture does), never from a ``gov`` process.
    """
    return _fake_index_file


@pytest.fixture
def fake_bodies_index(_fake_index_file: Path, fake_encoder: HashedWordsEncoder) -> Path:
    """``fake_index`` with body evidence, the stand-in installed (``fake_index`` itself: bodies
    are on by default)."""
    assert _has_bodies(_fake_index_file)
    return _fake_index_file


def _has_bodies(path: Path) -> bool:
    from gov.core.index.stored import open_stored

    return open_stored(path).header.bodies is not None
