"""The load benchmark runs end to end (tiny counts, no timing asserted: machines are noisy).

One short run of bench/load.py in a child process against real servers on loopback: our
service (unary, and with ApplyMove over PlayStream), the echo baseline with our interceptor,
and the engine on grpc.aio, in the mode that sends ListLegalMoves, ValidateMove and
ApplyMove. It proves the tool works and that our service's answers to replayed games are byte
for byte the recorded ones (`mismatches`), which is what makes the echo comparison fair.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
TARGETS = ("ours", "echo", "ours-stream", "ours-aio", "echo-engine-codec")
# --pin (servers on one CPU, load on the others) is exercised where there are CPUs to split.
PIN = ["--pin"] if len(os.sched_getaffinity(0)) >= 2 else []


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
        *PIN,
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
    assert ("# pinned: servers on CPU" in run.stdout) == bool(PIN)


# A thread now; after a line on stdin, one more thread; then it waits to be killed.
_THREADED_CHILD = """
import sys, threading, time
threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
print("ready", flush=True)
sys.stdin.readline()
threading.Thread(target=time.sleep, args=(30,), daemon=True).start()
print("again", flush=True)
time.sleep(30)
"""


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs 2 CPUs to pin to one")
def test_pinning_a_server_pins_its_threads_alive_now_and_those_they_start_later() -> None:
    cpu = min(os.sched_getaffinity(0))
    child = subprocess.Popen(
        [sys.executable, "-c", _THREADED_CHILD],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdin is not None
        assert child.stdout is not None
        assert child.stdout.readline() == "ready\n"
        pin = f"import load; load.pin_process({child.pid}, frozenset({{{cpu}}}))"
        subprocess.run(  # bench/ is not a package: load.py runs from there
            [sys.executable, "-c", pin], cwd=ROOT / "bench", check=True, timeout=60
        )
        child.stdin.write("go\n")
        child.stdin.flush()
        assert child.stdout.readline() == "again\n"
        tasks = [int(t.name) for t in Path(f"/proc/{child.pid}/task").iterdir()]
        assert len(tasks) == 3
        assert all(os.sched_getaffinity(t) == {cpu} for t in tasks)
    finally:
        child.kill()
        child.wait()


def bench_figures(tmp_path: Path, script: str, *args: str) -> dict[str, Any]:
    """Run a bench script with `args` (and --json), check it exits 0, return its figures."""
    out = tmp_path / "figures.json"
    command = [sys.executable, script, *args, "--json", str(out)]
    run = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False
    )
    assert run.returncode == 0, run.stdout + run.stderr
    figures: dict[str, Any] = json.loads(out.read_text())
    return figures


def test_hostile_bench_keeps_grpc_serving_through_a_slowloris_and_a_header_flood(
    tmp_path: Path,
) -> None:
    """bench/hostile.py with tiny counts: a replica at 1,024 open files answers every ApplyMove
    and stays SERVING in each phase, refuses the oversize headers, and drains on SIGTERM."""
    figures = bench_figures(
        tmp_path,
        "bench/hostile.py",
        "--slowloris", "12",
        "--trickle", "0.2",
        "--flood", "2",
        "--flood-mib", "1",
        "--calls", "5",
    )  # fmt: skip
    assert figures["open_files"] == 1024
    for phase in ("before", "slowloris", "header flood", "after"):
        assert figures[phase]["health"] == "SERVING", phase
        assert figures[phase]["failed"] == 0, phase
    assert figures["refused"]["HEADERS_TOO_LARGE"] == 2
    assert figures["exit_code"] == 0


def test_hostile_work_bench_measures_crafted_hints_and_health_under_them(tmp_path: Path) -> None:
    """bench/hostile_work.py with tiny counts: every bot's hint on the crafted positions is
    answered and timed, and health answers while the stream slots are held and hints run."""
    figures = bench_figures(
        tmp_path,
        "bench/hostile_work.py",
        "--repeat", "1",
        "--checks", "3",
        "--hinters", "1",
        "--searchers", "1",
    )  # fmt: skip
    assert {"greedy", "random", "easy", "montecarlo", "expert"} <= set(figures["hints"])
    for row in figures["hints"].values():
        assert row["worst ratio"] > 0
    assert figures["health"]["streams_held"] == figures["workers"] // 2
    assert figures["health"]["hints_sent"] >= 1
    assert set(figures["engine_worst_ms"]) == set(figures["hints"])
    assert all(opening <= worst * 100 for opening, worst in figures["engine_worst_ms"].values())
