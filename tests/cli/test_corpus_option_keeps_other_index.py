"""``gov route --corpus DIR`` never replaces the default index built from another corpus
(``.gov/index``, the one the hook reads): it builds beside it and says so."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.conftest import run_gov

KITES = "which kite should I fly on a windy beach"


def test_corpus_option_builds_beside_the_index_of_another_corpus(tmp_path: Path,
                                                                 example_index: Path) -> None:
    project = tmp_path / "project"
    (project / ".gov").mkdir(parents=True)
    hooked = project / ".gov" / "index"
    shutil.copyfile(example_index, hooked)
    before = hooked.read_bytes()
    other = tmp_path / "other"
    other.mkdir()
    (other / "docs.jsonl").write_text("".join(json.dumps(d) + "\n" for d in [
        {"name": "kites", "trigger": "Choosing and flying kites on windy beaches"},
        {"name": "bread", "trigger": "Baking sourdough bread at home"}]))

    first = run_gov("route", KITES, "--corpus", str(other), "--format", "jsonl", cwd=project)
    assert first.returncode == 0, first.stderr
    assert hooked.read_bytes() == before  # the hook's index is untouched
    err = first.stderr.decode()
    assert "holds an index of another corpus" in err and "built index" in err
    beside = sorted(p.name for p in (project / ".gov").iterdir())
    assert len(beside) == 2 and beside[0] == "index" and beside[1].startswith("index-")
    assert [r["name"] for r in json.loads(first.stdout)["routes"]] == ["kites"]

    again = run_gov("route", KITES, "--corpus", str(other), "--format", "jsonl", cwd=project)
    assert again.returncode == 0 and "built index" not in again.stderr.decode()
    assert sorted(p.name for p in (project / ".gov").iterdir()) == beside  # found again

    hook_corpus = run_gov("route", "roll back last night's release", "--format", "jsonl",
                          cwd=project)
    assert hook_corpus.returncode == 0 and hooked.read_bytes() == before
    assert "deployment" in [r["name"] for r in json.loads(hook_corpus.stdout)["routes"]]
