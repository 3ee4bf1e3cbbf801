"""Hook turn latency, process start to exit, side by side with a bare Python start.

    python benchmarks/bench_hook.py [--turns 40] [--inprocess-turns 5]

Builds an index of examples/policies in a temp folder, starts the warm server, and then
alternates, turn by turn: ``python -c pass`` (the floor: the same interpreter starting and
exiting), ``gov hook codex`` with a real UserPromptSubmit payload answered by the warm
server, the same with telemetry on (``GOV_TELEMETRY_PATH`` set), and a PostToolUse event
of the same session reading the routed document (``gov show deployment``: a read event)
with telemetry on. No ``OTEL_*`` variable is set: OpenTelemetry is off, as by default;
``--python`` runs another install's ``gov`` (an older checkout, to compare). Alternating keeps a
busy machine's noise in every row alike; the ratio to ``python -c pass`` is the figure
that means something on a shared machine. Then a few in-process turns (``--serve
never``). Each hook turn is a fresh session, so every answer is a full paragraph.

The hook runs as the installed ``gov`` command (``bin/gov`` beside the interpreter). Child
processes run with ``PYTHONDONTWRITEBYTECODE`` unset and a warm-up turn first, as an
installed package has its bytecode compiled.

Targets: warm median <= 25 ms on an idle machine and <= 1.6x ``python -c pass``;
in-process median <= 0.8 s.
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

from lib import EXAMPLES, REPO, RESULTS, gov_command, median, percentile, run

PROMPTS = [
    "roll back last night's release, checkout is throwing 500s",
    "we leaked a secret in the deploy logs, rotate it and redeploy",
    "the pager went off for checkout-api at 3am, what do I do first?",
    "what's the capital of france and why is it paris",
]


def timed(cmd: list[str], stdin: bytes, env: dict[str, str]) -> tuple[float, float, bytes]:
    """Wall and CPU milliseconds of one process, and its stdout."""
    done = run(cmd, stdin=stdin, env=env).checked(" ".join(cmd[:3]))
    return done.wall_s * 1000.0, done.cpu_s * 1000.0, done.stdout


def payload(turn: int) -> bytes:
    return json.dumps({"prompt": PROMPTS[turn % len(PROMPTS)], "cwd": str(REPO),
                       "hook_event_name": "UserPromptSubmit", "session_id": f"bench-{turn}",
                       "turn_id": "t", "model": "m", "permission_mode": "default",
                       "transcript_path": None}).encode()


def tool_payload(turn: int) -> bytes:
    """The post-tool event after :func:`payload`'s prompt: the agent runs gov show."""
    return json.dumps({"cwd": str(REPO), "hook_event_name": "PostToolUse",
                       "session_id": f"bench-{turn}", "turn_id": "t", "model": "m",
                       "permission_mode": "default", "transcript_path": None,
                       "tool_name": "Bash", "tool_use_id": "call-1", "tool_response": "ok",
                       "tool_input": {"command": "gov show deployment"}}).encode()


def row(label: str, walls: list[float], cpus: list[float], floor: float | None) -> dict[str, object]:
    middle, p90 = median(walls), percentile(walls, 0.9)
    ratio = f"{middle / floor:5.2f}x" if floor else "   - "
    print(f"{label:<30} median {middle:8.1f} ms   p90 {p90:8.1f} ms   min {min(walls):7.1f} ms   "
          f"CPU {median(cpus):6.1f} ms   {ratio} of python -c pass")
    return {"label": label, "median_ms": round(middle, 1), "p90_ms": round(p90, 1),
            "min_ms": round(min(walls), 1), "cpu_ms": round(median(cpus), 1),
            "ratio_to_python": round(middle / floor, 2) if floor else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=40)
    parser.add_argument("--inprocess-turns", type=int, default=5)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    gov = gov_command(args.python)
    with tempfile.TemporaryDirectory() as tmp:
        index = Path(tmp) / "index"
        env = {**os.environ, "GOV_RUNTIME_DIR": str(Path(tmp) / "rt")}
        env.pop("GOV_TELEMETRY_PATH", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        for name in [name for name in env if name.startswith("OTEL_")]:
            env.pop(name)  # OpenTelemetry off, as it is unless asked for
        on = {**env, "GOV_TELEMETRY_PATH": str(Path(tmp) / "telemetry.jsonl")}
        subprocess.run([*gov, "index", str(EXAMPLES / "policies"), "-o", str(index), "-q"],
                       check=True, env=env)
        hook = [*gov, "hook", "codex", "-i", str(index)]
        server = subprocess.Popen([*gov, "serve", "-q", "--idle-timeout", "600"], env=env)
        try:
            time.sleep(1.0)
            for turn in range(3):  # load the index in the server; compile bytecode
                timed(hook, payload(turn), env)
                timed(hook, payload(turn), on)
            print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
                  f"{args.turns} turns each, alternating; {' '.join(gov)}")
            samples: dict[str, tuple[list[float], list[float]]] = {
                key: ([], []) for key in ("python", "warm", "warm_telemetry", "tool")}
            for turn in range(args.turns):
                for key, cmd, stdin, environ in (
                        ("python", [args.python, "-c", "pass"], b"", env),
                        ("warm", hook, payload(turn), env),
                        ("warm_telemetry", hook, payload(turn), on),
                        ("tool", hook, tool_payload(turn), on)):
                    wall, cpu, out = timed(cmd, stdin, environ)
                    if key == "tool":
                        assert out == b"", out  # a tool event prints nothing
                    elif key != "python" and turn % len(PROMPTS) == 0:
                        assert b"deployment" in out, out  # an answer, not a silent failure
                    samples[key][0].append(wall)
                    samples[key][1].append(cpu)
        finally:
            server.terminate()
            server.wait()
        inproc: tuple[list[float], list[float]] = ([], [])
        for turn in range(args.inprocess_turns):
            wall, cpu, _ = timed([*hook, "--serve", "never"], payload(turn), env)
            inproc[0].append(wall)
            inproc[1].append(cpu)
        log = Path(on["GOV_TELEMETRY_PATH"])
        kinds = [json.loads(line).get("kind", "route") for line in log.read_text().splitlines()]
        print(f"telemetry log: {kinds.count('route')} route events, {kinds.count('read')} read events")
        floor = median(samples["python"][0])
        rows = [row("python -c pass", *samples["python"], None),
                row("hook, warm server", *samples["warm"], floor),
                row("hook, warm, telemetry on", *samples["warm_telemetry"], floor),
                row("post-tool, warm, telemetry on", *samples["tool"], floor),
                row("hook, in-process", *inproc, floor)]
        warm = rows[1]
        verdict = "ok" if float(warm["ratio_to_python"]) <= 1.6 else "MISSED"  # type: ignore[arg-type]
        print(f"warm turn: {warm['median_ms']} ms, {warm['ratio_to_python']}x python -c pass "
              f"(target <= 1.6x, and <= 25 ms on an idle machine): {verdict}")
        if Path(args.python).absolute().parent != Path(sys.executable).absolute().parent:
            return  # another install's figures: printed, not recorded
        out = RESULTS / "hook.json"
        out.parent.mkdir(exist_ok=True)
        out.write_text(json.dumps({"load_average": os.getloadavg()[0], "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
