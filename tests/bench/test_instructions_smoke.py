"""bench/instructions.py runs end to end under callgrind (tiny counts; no speed asserted).

One run over one recorded game: our service and the bare echo, each a whole server process
under valgrind, and the in-process breakdown. It proves the tool counts a window of calls
(not start-up: the window's instructions are far below a Python start-up's), that our answers
in that window are byte for byte the recorded ones, and that the JSON carries what the
README's table is made of. valgrind comes with `make apt-deps`; without it the test skips.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.skipif(
    shutil.which("valgrind") is None or shutil.which("callgrind_control") is None,
    reason="valgrind is not installed (make apt-deps installs it)",
)
def test_instruction_counts_cover_the_replayed_calls_and_every_answer_matches(
    tmp_path: Path,
) -> None:
    out = tmp_path / "instructions.json"
    command = [
        sys.executable,
        "bench/instructions.py",
        "--games",
        "1",
        "--repeat",
        "1",
        "--targets",
        "ours,echo-bare",
        "--json",
        str(out),
    ]
    run = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=900, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(out.read_text())
    assert set(report) >= {"ours", "echo-bare", "ratio", "ours/miss", "miss_ratio", "targets"}
    targets = {t["target"]: t for t in report["targets"]}
    assert set(targets) == {"ours", "ours/miss", "echo-bare"}
    # The miss path: every other call of twice as many games, each with another replica's token.
    assert targets["ours/miss"]["calls"] >= targets["ours"]["calls"] // 2
    for target in targets.values():
        assert target["calls"] > 5, target  # one game's ApplyMove calls (half: the miss path)
        assert target["errors"] == 0, target
        assert target["mismatches"] == 0, target
        # A window of calls, not the process's life: a Python start-up alone runs tens of
        # millions of instructions; a call runs under a few million.
        assert 0 < target["per_call"] < 5_000_000, target
    assert report["ratio"] == pytest.approx(report["ours"] / report["echo-bare"])
    assert report["miss_ratio"] == pytest.approx(report["ours/miss"] / report["echo-bare"])
    labels = [part["label"] for part in report["breakdown"]]
    assert labels[0].startswith("servicer ApplyMove")
    assert all(part["per_call"] > 0 for part in report["breakdown"]), report["breakdown"]
    assert "# ratios to echo-bare" in run.stdout
