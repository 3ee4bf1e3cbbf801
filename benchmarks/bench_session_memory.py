"""Context bytes a session saves with session memory: a recorded 20-turn session, replayed.

    python benchmarks/bench_session_memory.py [--harness codex]

Builds an index of examples/policies, starts the warm server, and replays the prompts of
``tests/data/session-20-turns.jsonl`` (one incident coming back turn after turn, with
detours) as one harness session through ``gov hook HARNESS``: once with
``--no-session-memory`` and once with session memory on (a fresh session id each run).
Prints per turn the bytes the hook added to the agent's context both ways, and the totals.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from lib import REPO

SESSION = REPO / "tests" / "data" / "session-20-turns.jsonl"


def context_bytes(stdout: bytes) -> int:
    """Bytes of additionalContext the turn adds (0 when the hook printed nothing)."""
    if not stdout:
        return 0
    obj = json.loads(stdout)
    text = obj["hookSpecificOutput"]["additionalContext"]
    return len(text.encode("utf-8"))


def replay(gov: list[str], index: Path, env: dict[str, str], session: str, harness: str,
           *extra: str) -> list[int]:
    sizes = []
    for line in SESSION.read_text().splitlines():
        payload = {"prompt": json.loads(line)["prompt"], "cwd": str(REPO), "session_id": session,
                   "hook_event_name": "UserPromptSubmit", "transcript_path": None}
        done = subprocess.run([*gov, "hook", harness, "-i", str(index), *extra],
                              input=json.dumps(payload).encode(), capture_output=True, env=env,
                              check=True)
        sizes.append(context_bytes(done.stdout))
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--harness", default="codex", choices=["claude-code", "codex"])
    args = parser.parse_args()
    installed = Path(sys.executable).parent / "gov"
    gov = [str(installed)] if installed.exists() else [sys.executable, str(REPO / "scripts" / "gov")]
    with tempfile.TemporaryDirectory() as tmp:
        index = Path(tmp) / "index"
        env = {**os.environ, "GOV_RUNTIME_DIR": str(Path(tmp) / "rt")}
        env.pop("GOV_TELEMETRY_PATH", None)
        subprocess.run([*gov, "index", str(REPO / "examples" / "policies"), "-o", str(index), "-q"],
                       check=True, env=env)
        server = subprocess.Popen([*gov, "serve", "-q", "--idle-timeout", "600"], env=env)
        try:
            time.sleep(1.0)
            off = replay(gov, index, env, "replay-off", args.harness, "--no-session-memory")
            on = replay(gov, index, env, "replay-on", args.harness)
        finally:
            server.terminate()
            server.wait()
    print(f"{'turn':>4}  {'without memory':>15}  {'with memory':>12}")
    for turn, (a, b) in enumerate(zip(off, on, strict=True), start=1):
        print(f"{turn:>4}  {a:>15,}  {b:>12,}")
    saved = sum(off) - sum(on)
    print(f"total {sum(off):>14,}  {sum(on):>12,}   saved {saved:,} bytes of additionalContext "
          f"({saved / max(sum(off), 1):.0%}) over {len(off)} turns")


if __name__ == "__main__":
    main()
