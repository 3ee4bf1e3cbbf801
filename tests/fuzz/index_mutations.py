"""Crafted-index mutations for the hook's fuzzing: a byte, a number or a header field of a
good index changed, every checksum recomputed, then one hook turn over the result.

Used three ways: the hypothesis property in ``tests/fuzz/test_index_fuzz.py`` (in
process), a runner for many mutations in one child process (an approximate-search graph
that crashes usearch kills the child, not the test run)::

    python -m tests.fuzz.index_mutations INDEX COUNT SEED [ARRAY]

and the atheris target ``index`` in :mod:`tests.fuzz.targets`.
"""

from __future__ import annotations

import io
import json
import math
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np

SPECIAL = [0, 1, -1, 2, 255, 2**15, 2**31 - 1, -(2**31), 2**32 - 1, 2**62, -(2**62),
           math.nan, math.inf, -math.inf, 1e300, -1e-300]
HEADER_CHANGES: list[tuple[tuple[str, ...], Any]] = [
    (("roots",), ["/"]), (("roots",), ["\x1b]0;x\x07", "a b"]), (("corpus", "base"), "/"),
    (("lexical", "rows"), 2**40), (("lexical", "rows"), 0), (("model", "dim"), 7),
    (("model", "id"), "BAAI/bge-small-en-v1.5"), (("model",), None),
    (("lexical", "ngram_range"), [1, 5]), (("ann", "candidates"), -3),
    (("ann", "expansion_search"), 10**9), (("ann", "surfaces"), 1), (("bodies",), {"documents": 3}),
    (("operating_point",), {"gov_operating_point": 1, "params": {"rrf_k": -1}}),
    (("corpus", "stamps"), [["x", 1, 2]] * 3),
]


def load(path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    from gov.core.index.fileformat import open_index_file

    opened = open_index_file(path)
    header = {k: v for k, v in opened.header.items() if k != "arrays"}
    return header, {name: np.array(opened.array(name)) for name in opened.header["arrays"]}


def mutate(header: dict[str, Any], arrays: dict[str, np.ndarray], data: bytes,
           only: str | None = None) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """A mutated copy, chosen by ``data`` (any bytes); ``only`` limits it to one array."""
    data = data + bytes(12)
    header = json.loads(json.dumps(header))
    arrays = {name: array.copy() for name, array in arrays.items()}
    names = [only] if only else sorted(arrays)
    kind = data[0] % (4 if only is None else 2)
    name = names[data[1] % len(names)]
    array = arrays[name]
    where = int.from_bytes(data[2:6], "little")
    if kind == 0 and array.size:  # one byte
        raw = array.view(np.uint8).reshape(-1)
        raw[where % raw.size] = data[6]
    elif kind == 1 and array.size:  # one element set to an awkward number
        value = SPECIAL[data[6] % len(SPECIAL)]
        flat = array.reshape(-1)
        if array.dtype.kind == "f" or isinstance(value, int):
            try:
                flat[where % flat.size] = value
            except (OverflowError, ValueError):
                flat[where % flat.size] = 0
    elif kind == 2:  # a header field
        path, value = HEADER_CHANGES[data[6] % len(HEADER_CHANGES)]
        node = header
        for key in path[:-1]:
            if not isinstance(node.get(key), dict):
                node[key] = {}
            node = node[key]
        node[path[-1]] = value
    elif kind == 3 and array.ndim == 1:  # an array one element shorter or longer
        arrays[name] = array[:-1].copy() if data[6] % 2 else np.append(array, array[-1:])
    return header, arrays


def hook_turn(index: Path, prompt: str = "roll back the release from last night, checkout is "
              "throwing 500s") -> tuple[int, bytes, str]:
    """One hook turn, in process, never through a warm server: (exit code, stdout, stderr)."""
    from gov.cli.commands.hook import main

    out, err = io.BytesIO(), io.StringIO()
    payload = json.dumps({"prompt": prompt, "cwd": "/tmp"}).encode()
    code = main(["codex", "-i", str(index), "--serve", "never"], stdin=io.BytesIO(payload),
                stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def well_behaved(code: int, out: bytes, err: str) -> str | None:
    """What is wrong with a hook turn's result, or ``None``."""
    if code != 0:
        return f"exit {code}"
    if out and set(json.loads(out)) != {"hookSpecificOutput"}:
        return "stdout is not one hook object"
    if err.count("\n") > 1 or "Traceback" in err:
        return f"stderr is not one line: {err!r}"
    return None


def main(argv: list[str]) -> int:
    source, count, seed = Path(argv[0]), int(argv[1]), int(argv[2])
    only = argv[3] if len(argv) > 3 else None
    header, arrays = load(source)
    rng = random.Random(seed)
    target = source.with_name(source.name + ".mutated")
    from gov.core.index.fileformat import write_index_file

    tally = {"runs": 0, "routed": 0, "one_line_error": 0, "quiet": 0, "bad": []}
    for _ in range(count):
        data = bytes(rng.randrange(256) for _ in range(12))
        write_index_file(target, *mutate(header, arrays, data, only))
        code, out, err = hook_turn(target)
        problem = well_behaved(code, out, err)
        tally["runs"] += 1
        if problem:
            tally["bad"].append([data.hex(), problem])
        elif out:
            tally["routed"] += 1
        elif err:
            tally["one_line_error"] += 1
        else:
            tally["quiet"] += 1
    print(json.dumps(tally))
    return 1 if tally["bad"] else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
