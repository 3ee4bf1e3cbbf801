#!/usr/bin/env python3
"""How long ``route_policies`` takes over MCP, measured from a real client on stdio.

The target: at most 10 ms per call after start-up. The benchmark starts ``gov mcp`` with
the SDK's ``stdio_client``, waits for ``initialize`` (the server loads the index and warms
the model before it answers) and lists the tools, then calls ``route_policies`` N times in
sequence with the prompts of ``examples/labelled.jsonl`` in turn, timing each round trip on
the client. For comparison it also times ``Router.route`` in this process on the same
prompts, and reads the server's CPU time per call from /proc: on a busy machine wall time
measures the neighbours too, CPU time much less so.

    python benchmarks/bench_mcp.py                 # builds a temporary index of examples/policies
    python benchmarks/bench_mcp.py -i .gov/index -n 500 --check

The machine's load average is printed with the numbers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from lib import EXAMPLES, loadavg, median, side_by_side, summary

TARGET_MS = 10.0


def prompts() -> list[str]:
    rows = (json.loads(line) for line in (EXAMPLES / "labelled.jsonl").open())
    return [row["prompt"] for row in rows]


def build_index(target: Path) -> None:
    from gov.core.corpus.reader import load_corpus
    from gov.core.routing.indexes import build_index as build

    build(load_corpus([EXAMPLES / "policies"], warn=lambda _m: None)).write(target)


def server_cpu_ms() -> float | None:
    """CPU time used so far by the server process (this process's child), where /proc says."""
    try:
        children = " ".join(p.read_text() for p in Path("/proc/self/task").glob("*/children"))
        for pid in children.split():
            if b"gov.cli.entry" in Path(f"/proc/{pid}/cmdline").read_bytes():
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                ticks = int(fields[11]) + int(fields[12])  # utime + stime
                return ticks * 1000.0 / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        pass
    return None


async def over_mcp(index: Path, texts: list[str], calls: int, threads: int,
                   ) -> tuple[float, list[float], float | None]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "gov.cli.entry", "mcp", "-i", str(index), "--threads", str(threads), "-q"])
    started = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.list_tools()  # as clients do on connecting; also primes output checks
        startup = (time.perf_counter() - started) * 1000.0
        timings = []
        cpu_before = server_cpu_ms()
        for i in range(calls):
            began = time.perf_counter()
            result = await session.call_tool("route_policies", {"prompt": texts[i % len(texts)]})
            timings.append((time.perf_counter() - began) * 1000.0)
            if getattr(result, "is_error", getattr(result, "isError", False)):
                raise SystemExit(f"route_policies failed: {result.content}")
        cpu_after = server_cpu_ms()
    cpu = None
    if cpu_before is not None and cpu_after is not None:
        cpu = (cpu_after - cpu_before) / calls
    return startup, timings, cpu


def in_process(index: Path, texts: list[str], calls: int) -> list[float]:
    from gov.core.routing.indexes import load_index

    loaded = load_index(index)
    loaded.route(texts[0])
    timings = []
    for i in range(calls):
        began = time.perf_counter()
        loaded.route(texts[i % len(texts)])
        timings.append((time.perf_counter() - began) * 1000.0)
    return timings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-i", "--index", type=Path, help="index file (default: build one)")
    parser.add_argument("-n", "--calls", type=int, default=200)
    parser.add_argument("--threads", type=int, default=0,
                        help="the server's embedding threads (gov mcp --threads)")
    parser.add_argument("--check", action="store_true",
                        help=f"exit 1 when the median over MCP exceeds {TARGET_MS:g} ms")
    args = parser.parse_args()
    texts = prompts()
    with tempfile.TemporaryDirectory() as scratch:
        index = args.index
        if index is None:
            index = Path(scratch) / "index"
            build_index(index)
        startup, mcp_ms, cpu = asyncio.run(over_mcp(index, texts, args.calls, args.threads))
        local_ms = in_process(index, texts, args.calls)
    over = median(mcp_ms)
    print(f"machine: {os.cpu_count()} cores, load average {loadavg()}")
    print(f"start-up to tools listed: {startup:.0f} ms; first call {mcp_ms[0]:.2f} ms")
    print(summary("route_policies over MCP", mcp_ms))
    print(summary("Router.route in process", local_ms))
    print(side_by_side("median, MCP against in process", over, median(local_ms),
                       names=("MCP", "in process")))
    if cpu is not None:
        print(f"server CPU per call: {cpu:.2f} ms (less moved by other load than wall time)")
    verdict = "within" if over <= TARGET_MS else "over"
    print(f"target {TARGET_MS:g} ms per call (median): {verdict}")
    return 1 if args.check and over > TARGET_MS else 0


if __name__ == "__main__":
    sys.exit(main())
