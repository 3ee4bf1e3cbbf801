"""``gov doctor``'s checks: is this installation able to route, and if not, what to fix.

Each check is one :class:`Check` with a status and, when something is off, the command
or step that fixes it. Only ``fail`` makes the installation unhealthy: a missing default
index or an optional extra that is not installed are things to know, not breakage. The
checks run in-process, in the same interpreter (and so with the same ``sys.path``) that
``gov`` itself uses, which is what makes a shadowed package visible here.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import os
import platform
import re
import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from . import __version__
from .encode import bundle
from .errors import GovError

Status = Literal["ok", "warn", "fail", "info"]

# Optional modules: (import name, what needs it, how to install it).
EXTRAS = (
    ("mcp", "gov mcp", "pip install 'gov[mcp]'"),
    ("usearch", "approximate search: gov index --ann", "pip install 'gov[ann]'"),
    ("tiktoken", "token counts in gov card budget", "pip install tiktoken"),
)


@dataclass(frozen=True)
class Check:
    """One line of the checklist: what was checked, how it went, and the fix if any."""

    name: str
    status: Status
    detail: str
    fix: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "status": self.status, "detail": self.detail, "fix": self.fix}


@dataclass(frozen=True)
class Report:
    """The whole checklist; healthy when no check failed."""

    checks: list[Check] = field(default_factory=list)

    @property
    def problems(self) -> int:
        return sum(1 for check in self.checks if check.status == "fail")

    @property
    def warnings(self) -> int:
        return sum(1 for check in self.checks if check.status == "warn")

    @property
    def ok(self) -> bool:
        return self.problems == 0

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "problems": self.problems, "warnings": self.warnings,
                "checks": [check.to_json() for check in self.checks]}


def _requirement(package: str) -> tuple[str, str]:
    """(distribution name, gov's pinned requirement line) for ``package``, for pip."""
    wanted = re.sub(r"[-_.]+", "-", package).lower()
    try:
        requires = importlib.metadata.requires("gov") or []
    except importlib.metadata.PackageNotFoundError:
        requires = []
    for line in requires:
        name = re.split(r"[<>=!~;\[ ]", line, maxsplit=1)[0]
        if re.sub(r"[-_.]+", "-", name).lower() == wanted and ";" not in line:
            return name, line.strip()
    return wanted, wanted


def _reinstall(package: str) -> str:
    return f"pip install --force-reinstall '{_requirement(package)[1]}'"


def _resolved(package: str) -> list[str]:
    """The folders ``package`` resolves to on this interpreter's path ([] if none)."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    return [str(folder) for folder in spec.submodule_search_locations]


def _installed_copy(item: bundle.ModelFile) -> Path | None:
    """Where pip installed ``item``, whatever the import path resolves to (None if nowhere)."""
    if item.package is None:  # gov's own file: beside the module that names it
        return None
    try:
        dist = importlib.metadata.distribution(_requirement(item.package)[0])
    except importlib.metadata.PackageNotFoundError:
        return None
    candidate = Path(str(dist.locate_file(f"{item.package}/{item.relative}")))
    return candidate if candidate.is_file() else None


def check_model_files() -> list[Check]:
    """The bundled model's files: present where their packages resolve, sha256 as pinned."""
    located = {item.role: item for item in bundle.spec().files}
    checks = []
    for result in bundle.check_bundle(verify_hash=True):
        if result.ok:
            checks.append(Check(f"{result.role} file", "ok", f"{result.path} (sha256 as pinned)"))
            continue
        item = located[result.role]
        detail = f"the embedding model's {result.role} file ({item.owner}): {result.problem}"
        fix = _reinstall(item.owner)
        folders = _resolved(item.package) if item.package else []
        installed = _installed_copy(item)
        if result.path is None and folders and installed is not None:
            detail = (f"the embedding model's {result.role} file is missing: package "
                      f"{item.package} resolves to {', '.join(folders)}, which has no "
                      f"{item.relative}; it shadows the installed copy in {installed.parent}")
            fix = "remove or rename the shadowing folder (look at PYTHONPATH and the current folder)"
        checks.append(Check(f"{result.role} file", "fail", detail, fix))
    return checks


def check_runtime(model_ok: bool) -> Check:
    """The embedding runtime imports and, with good model files, embeds one sentence."""
    for module in ("onnxruntime", "tokenizers", "fastembed"):
        try:
            importlib.import_module(module)
        except Exception as exc:  # any import failure is the finding
            return Check("embedding runtime", "fail", f"cannot import {module}: {exc}",
                         _reinstall(module))
    if not model_ok:
        return Check("embedding runtime", "warn",
                     "onnxruntime, tokenizers and fastembed import; the model was not loaded "
                     "because its files failed the check above",
                     "fix the model files, then rerun gov doctor")
    from .encode.embedding import get_encoder

    try:
        vectors = get_encoder().embed(["is the embedding model working"])
    except GovError as exc:
        return Check("embedding runtime", "fail", f"the model does not load: {exc}",
                     "reinstall gov: pip install --force-reinstall gov")
    except Exception as exc:  # a broken runtime can fail in any way
        return Check("embedding runtime", "fail",
                     f"the model does not run: {type(exc).__name__}: {exc}",
                     _reinstall("onnxruntime"))
    model = bundle.spec()
    shape = getattr(vectors, "shape", None)
    if shape != (1, model.dim):
        return Check("embedding runtime", "fail",
                     f"the model returned vectors of shape {shape}, not (1, {model.dim})",
                     "reinstall gov: pip install --force-reinstall gov")
    return Check("embedding runtime", "ok",
                 f"onnxruntime and tokenizers load {model.id} "
                 f"({model.dim} dimensions); fastembed imports")


def check_index(path: Path, explicit: bool) -> Check:
    """The index: readable whole (every checksum), built for this model, and fresh."""
    from .index.fileformat import rebuild_hint
    from .index.locate import no_index
    from .routing.indexes import load_index

    if not path.exists():
        missing = no_index(path, corpus_option=False)
        if explicit:
            return Check("index", "fail", missing.message, missing.hint or "")
        return Check("index", "warn", f"{missing.message} (the default location)",
                     f"{missing.hint}, or name one with -i or GOV_INDEX")
    try:
        loaded = load_index(path, verify=True)
    except GovError as exc:
        return Check("index", "fail", exc.message, exc.hint or rebuild_hint(path))
    except OSError as exc:
        return Check("index", "fail", f"{path}: cannot read: {exc.strerror or exc}",
                     "check the path and its permissions")
    if loaded.is_stale():
        return Check("index", "fail",
                     f"{path} is stale: its corpus changed since the build",
                     rebuild_hint(path, loaded.stored.raw_header))
    model = loaded.model_id or "none (lexical only)"
    search = "; approximate search (usearch)" if loaded.scorer.nearest is not None else ""
    search += "; body evidence" if loaded.scorer.body_vectors is not None else ""
    return Check("index", "ok", f"{path}: {len(loaded.names)} documents, every checksum "
                                f"verified, fresh; model {model}{search}")


def check_runtime_dir() -> tuple[Check, Path | None]:
    """The warm server's runtime folder: a plain folder, ours, closed to others."""
    from .serving.protocol import RuntimeDirError, runtime_dir

    try:
        folder = runtime_dir(create=False)
    except RuntimeDirError as exc:
        return Check("runtime folder", "fail", exc.message,
                     "remove that folder, or point GOV_RUNTIME_DIR at a folder of your own"), None
    except OSError as exc:
        return Check("runtime folder", "fail", f"cannot inspect the runtime folder: {exc}",
                     "point GOV_RUNTIME_DIR at a folder of your own"), None
    state = "private to you" if folder.exists() else "not created yet; gov serve creates it 0700"
    return Check("runtime folder", "ok", f"{folder} ({state})"), folder


def check_server(folder: Path | None) -> Check:
    """Whether the warm server is running: information, never a failure."""
    if folder is None:
        return Check("warm server", "info", "not checked: the runtime folder is unsafe")
    if not folder.exists():
        return Check("warm server", "info",
                     "not running (the hook starts it on demand, or run: gov serve &)")
    from .serving import server as serve

    info = serve.status()
    if info is None:
        return Check("warm server", "info",
                     "not running (the hook starts it on demand, or run: gov serve &)")
    indexes = ", ".join(info.indexes) or "none loaded yet"
    return Check("warm server", "info",
                 f"running: pid {info.pid}, up {info.uptime_s} s, "
                 f"{info.requests} requests, indexes: {indexes}")


def check_telemetry(folder: Path | None, environ: dict[str, str] | None = None) -> Check:
    """Where telemetry goes: off, a log gov can write, or one it cannot (refused or
    unwritable), and the hook turns whose events were lost (counted in the runtime folder)."""
    import time

    from .telemetry.losses import read_losses
    from .telemetry.sinks import RefusedSink, sink_for

    environ = dict(os.environ) if environ is None else environ
    raw = environ.get("GOV_TELEMETRY_PATH", "")
    fix = "set GOV_TELEMETRY_PATH to an absolute file gov can write, where the agents run gov"
    lost = read_losses(folder) if folder is not None else None
    said = ""
    if lost is not None:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(lost.last))
        said = f"; {lost.count:,} hook event(s) lost, the last at {when}: {lost.reason}"
    sink = sink_for(raw)
    if isinstance(sink, RefusedSink):
        return Check("telemetry", "warn", sink.reason + said, fix)
    if sink is None:
        if lost is not None:
            return Check("telemetry", "warn", "off in this shell" + said, fix)
        return Check("telemetry", "info", "off (GOV_TELEMETRY_PATH is not set)")
    target = Path(sink.path)
    probe = target if target.exists() else next(
        (parent for parent in target.parents if parent.exists()), target.parent)
    writable = (target.is_file() or not target.exists()) and os.access(probe, os.W_OK) and (
        probe == target or probe.is_dir())
    if not writable:
        return Check("telemetry", "warn", f"{target}: gov cannot write this log" + said, fix)
    if lost is not None:
        return Check("telemetry", "warn", f"{target}" + said,
                     "fix what the reason says; the count is in the runtime folder "
                     "(delete telemetry-lost.json there to start it again)")
    return Check("telemetry", "ok", f"{target} (writable)")


def check_extras() -> list[Check]:
    """Optional modules: missing is information, installed but broken is a warning."""
    checks = []
    for module, used_by, install in EXTRAS:
        name = f"extra: {module}"
        if importlib.util.find_spec(module) is None:
            checks.append(Check(name, "info", f"not installed (needed only for {used_by})", install))
            continue
        try:
            importlib.import_module(module)
        except Exception as exc:  # any import failure is the finding
            checks.append(Check(name, "warn", f"installed but does not import: {exc}",
                                f"{install} --force-reinstall"))
            continue
        checks.append(Check(name, "ok", f"installed ({used_by})"))
    return checks


def check_hooks(cwd: Path, environ: dict[str, str] | None = None) -> list[Check]:
    """The harness settings in and above ``cwd`` (and the user's own) that run ``gov hook``,
    and whether each command would work there: its program runs without the shell's PATH,
    it finds an index from its project folder, and this gov's warm server answers."""
    from .serving.install import installed_in

    env = dict(os.environ) if environ is None else environ
    home = Path(env["HOME"]).absolute() if env.get("HOME") else None
    found = installed_in(cwd, home)
    if not found:
        return [Check("harness hooks", "info", f"no harness settings in or above {cwd} run gov hook",
                      "gov hook install HARNESS (claude-code, codex, gemini, copilot, cursor)")]
    return [_hook_check(item.harness, item.path, command, item.project, cwd.absolute(), env)
            for item in found for command in item.commands]


def _hook_check(harness: str, path: Path, command: str, project: Path | None, cwd: Path,
                env: dict[str, str]) -> Check:
    """One installed hook command, run as the harness would run it from its project."""
    from .index.locate import find_index
    from .serving.install import this_gov

    name = f"hook: {harness}"
    where = f"{path} runs {command}"
    reinstall = f"gov hook install {harness}" + (" --user" if project is None else
                                                  f" --project {shlex.quote(str(project))}")
    words = shlex.split(command)
    program = words[0] if words else ""
    if os.path.isabs(program):
        if not (os.path.isfile(program) and os.access(program, os.X_OK)):
            return Check(name, "fail", f"{where}: {program} does not exist or is not executable",
                         reinstall)
    elif shutil.which(program, path=os.defpath) is None:
        return Check(name, "fail", f"{where}: {program!r} is found only through PATH, which a "
                                   "harness started from a desktop or another shell may not have",
                     reinstall + " (names this gov by absolute path)")
    explicit = next((words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-i", "--index")), None)
    folder = project or cwd
    keep = {k: v for k, v in env.items() if k in ("HOME", "GOV_INDEX")}
    located = find_index(explicit, cwd=str(folder), environ=keep | {"CLAUDE_PROJECT_DIR": str(folder)})
    if not located.exists:
        return Check(name, "fail", f"{where}: no index at {located.path}, so every prompt "
                                   "routes nothing", f"gov index PATH -o {located.path}")
    detail = f"{where}; index {located.path} (from {located.source})"
    if shlex.split(this_gov())[0] == program:
        from .serving import server as serve

        running = serve.status() is not None
        detail += "; warm server answering" if running else "; warm server starts on the first prompt"
    return Check(name, "ok", detail)


def diagnose(index: Path, index_explicit: bool,
             progress: Callable[[str], None] | None = None, cwd: Path | None = None) -> Report:
    """Run every check, in the order a person would fix them."""
    def step(name: str) -> None:
        if progress is not None:
            progress(f"checking {name}")

    checks = [Check("gov", "info", f"gov {__version__}, Python {platform.python_version()}, "
                                   f"embedding model {bundle.default_id()}")]
    step("the model files")
    files = check_model_files()
    checks.extend(files)
    step("the embedding runtime")
    checks.append(check_runtime(all(check.status == "ok" for check in files)))
    step("the index")
    checks.append(check_index(index, index_explicit))
    folder_check, folder = check_runtime_dir()
    checks.append(folder_check)
    step("the warm server")
    checks.append(check_server(folder))
    checks.append(check_telemetry(folder))
    step("the harness hooks")
    checks.extend(check_hooks(cwd or Path.cwd()))
    checks.extend(check_extras())
    return Report(checks)
