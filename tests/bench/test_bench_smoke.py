"""The load benchmark runs end to end (tiny counts, no timing asserted: machines are noisy).

One short run of bench/load.py in a child process against real servers on loopback: our
service (unary, and with ApplyMove over PlayStream), the echo baseline with our interceptor,
and the engine on grpc.aio, in the mode that sends ListLegalMoves, ValidateMove and
ApplyMove. It proves the tool works and that our service's answers to replayed games are byte
for byte the recorded ones (`mismatches`), which is what makes the echo comparison fair.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGETS = ("ours", "echo", "ours-stream", "ours-aio")


def test_load_tool_replays_games_against_every_kind_of_target(tmp_path: Path) -> None:
    out = tmp_path / "points.json"
    command = [
        sys.executable,
        "bench/load.py",
        "--mode",
        "full",
        "--targets",
        ",".join(TARGETS),
        "--concurrency",
        "2",
        "--seconds",
        "0.5",
        "--warmup",
        "0.2",
        "--games",
        "3",
        "--match-games",
        "2",
        "--clients",
        "1",
        "--channels",
        "1",
        "--max-calls",
        "5000",
        "--json",
        str(out),
    ]
    run = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=180, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    points = json.loads(out.read_text())
    assert [p["target"] for p in points] == list(TARGETS)
    for point in points:
        assert point["calls"] > 0, point
        assert point["moves"] > 0, point
        assert point["errors"] == {}, point
        assert point["mismatches"] == 0, point
        assert set(point["method_p50_ms"]) <= {
            "NewGame",
            "NextGame",
            "ListLegalMoves",
            "ValidateMove",
            "ApplyMove",
        }
    assert "ours / echo" in run.stdout
    assert "3 recorded matches of 2 games" in run.stdout
