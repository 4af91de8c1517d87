"""Instructions per call: callgrind over whole server processes, ours vs echo-bare, on the
cache-hit path and on the miss path, in one run.

    python bench/instructions.py                          # ours (hit, miss) vs echo-bare, 8 games
    python bench/instructions.py --games 8 --json out.json
    python bench/instructions.py --targets ours,ours-stream@w4,echo-bare --no-breakdown
    python bench/instructions.py --breakdown-only --repeat 3

Why instructions: CPU time per call on a shared 2-core machine moves with everyone else's
work, and the ratio of two servers measured minutes apart moves with it. The number of
instructions a server process executes to answer the same requests does not (within a few
tenths of a percent between runs), so a change of a few percent shows.

What it does: records `--games` complete 4-player games through the real servicer
(bench/traffic.py, the recordings bench/load.py replays), then for each target starts the
server process (the same command and flags as bench/load.py's) under
`valgrind --tool=callgrind --instr-atstart=no --separate-threads=no --trace-children=no`, so
that start-up is not counted and every thread of the process (gRPC's poller and event-engine
threads, the workers) is counted together. It replays one warm-up game uninstrumented, then
switches instrumentation on (`callgrind_control -i on`), replays the measured calls one after
another (one table: the count does not depend on timing), dumps the counts
(`callgrind_control -d`) and stops the server. Every answer of our service is compared with
the recorded bytes (`mismatches` must be 0). By default the measured calls are the recorded
games' ApplyMove calls (`--calls all`: every call, NewGame too, as load.py sends them);
instructions per call is the window's total over the calls answered.

Two paths: replayed in order, each call carries the token the replica itself made answering
the call before (a state cache hit: a PlayStream, a single replica, or affinity that sends a
game's calls to one replica, deploy/README.md). `TARGET/miss` (unless `--no-miss`) replays
every other ApplyMove of each game (`miss_calls`; twice as many games, so that about as many
calls are measured): the calls between are answered by another replica, so every token
measured is verified and its state decoded, as behind a round-robin balancer over two
replicas or more.

Targets are load.py's kinds (`ours`, `echo-bare`, `echo`, `ours-logall`, ...); a `-stream`
kind sends the ApplyMove calls over one PlayStream (`ours-stream@w4`).

The breakdown (`--breakdown`, on by default) runs the in-process path of ApplyMove part by
part (bench/instruction_parts.py), under callgrind.

`--json FILE` writes {"ours": N, "echo-bare": N, "ratio": R, "ours/miss": N, "miss_ratio": R}
(instructions per call of the first target on both paths and of the baseline, and the
ratios), plus "targets" (every target's figures) and "breakdown". Nothing here is a test and
nothing is asserted; tests/bench runs a tiny version and checks the answers. Needs valgrind
(`apt-get install valgrind`).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import grpc
import traffic
from callgrind import (
    CONTROL_TIMEOUT,
    ROOT,
    STARTUP_TIMEOUT,
    callgrind_available,
    callgrind_command,
    control,
    dumps,
    python,
)
from instruction_parts import breakdown
from load import KINDS, Target, machine

from tienlen_service.config import Config

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

CALL_TIMEOUT: Final = 120.0
MISS_SEEDS: Final = 10_000  # the first seed of the miss path's additional games

# --------------------------------------------------------------------------------------------
# A server process under callgrind


@dataclass
class Measured:
    """One target's count over the measured window."""

    target: str
    calls: int
    instructions: int
    mismatches: int
    errors: int

    @property
    def per_call(self) -> float:
        """Instructions per call answered in the window."""
        return self.instructions / self.calls if self.calls else float("nan")


def _start(
    target: Target, keys: str, trace: Path, out_dir: Path
) -> tuple[subprocess.Popen[bytes], Path, int]:
    name = target.spec.replace("@", "_")
    extra = ["--trace", str(trace)] if target.is_echo else []
    flags = [
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--metrics-port",
        "0",
        "--web-port",
        "0",
        "--log-format",
        "json",
        "--log-level",
        "info",
        "--workers",
        str(target.workers),
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith("TIENLEN_")}
    env |= {"TIENLEN_KEYS": keys, "PYTHONUNBUFFERED": "1"}
    log = out_dir / f"{name}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(  # valgrind over our own interpreter and scripts
            [*callgrind_command(out_dir, name), python(), *KINDS[target.kind], *extra, *flags],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(
                f"{target.spec} exited with {proc.returncode}:\n{log.read_text()[-3000:]}"
            )
        for line in log.read_text(errors="replace").splitlines():
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if isinstance(record, dict) and record.get("event") == "serving":
                    return proc, log, int(record["port"])
        time.sleep(0.2)  # a benchmark's start-up poll (tests wait on health instead)
    proc.kill()
    raise RuntimeError(f"{target.spec}: no serving line within {STARTUP_TIMEOUT:g} s")


class _Stream:
    """One PlayStream call, one message at a time (answers in order)."""

    def __init__(self, channel: grpc.Channel) -> None:
        self._requests: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        call = channel.stream_stream(traffic.PREFIX + "PlayStream")
        self._answers = call(self._iterate(), timeout=3600)

    def _iterate(self) -> Iterator[bytes]:
        while (item := self._requests.get()) is not None:
            yield item

    def request(self, data: bytes) -> bytes:
        self._requests.put(traffic.stream_frame(data))
        framed: bytes = next(self._answers)
        return framed

    def close(self) -> None:
        self._requests.put(None)
        with contextlib.suppress(grpc.RpcError, StopIteration):
            next(self._answers)


def _replay(
    channel: grpc.Channel, calls: Sequence[traffic.Call], stream: _Stream | None
) -> tuple[int, int, int]:
    """Send `calls` one after another: (answered, mismatches, errors)."""
    stubs: dict[str, Any] = {}
    answered = mismatches = errors = 0
    for call in calls:
        try:
            if stream is not None and call.method == "ApplyMove":
                framed = stream.request(call.request)
                answer = framed[len(framed) - len(call.response) :]
                if framed != traffic.stream_frame(answer):
                    answer = b"<not an applied move>"
            else:
                stub = stubs.get(call.method)
                if stub is None:
                    stub = stubs[call.method] = channel.unary_unary(call.path)
                answer = stub(call.request, timeout=CALL_TIMEOUT)
        except grpc.RpcError:
            errors += 1
            continue
        answered += 1
        mismatches += call.deterministic and answer != call.response
    return answered, mismatches, errors


def measure_target(
    target: Target,
    *,
    keys: str,
    trace: Path,
    warmup: Sequence[traffic.Call],
    calls: Sequence[traffic.Call],
    out_dir: Path,
    label: str | None = None,
) -> Measured:
    """Instructions of `target`'s whole server process answering `calls` (reported as
    `label`, by default the target's spec)."""
    proc, log, port = _start(target, keys, trace, out_dir)
    name = target.spec.replace("@", "_")
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=STARTUP_TIMEOUT)
            stream = _Stream(channel) if target.stream else None
            _replay(channel, warmup, stream)  # uninstrumented: first calls, caches, imports
            control(proc.pid, "-i", "on")
            control(proc.pid, "-z")
            answered, mismatches, errors = _replay(channel, calls, stream)
            control(proc.pid, "-d", "window")
            control(proc.pid, "-i", "off")
            if stream is not None:
                stream.close()
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=CONTROL_TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    counted = dumps(out_dir, name, proc.pid).get("window")
    if counted is None:
        raise RuntimeError(f"{target.spec}: no callgrind dump; see {log}")
    return Measured(label or target.spec, answered, counted, mismatches, errors)


def miss_calls(games: Sequence[traffic.Game]) -> list[traffic.Call]:
    """Every other ApplyMove call of each game: the calls between are answered by another
    replica, so every call measured carries a state token this replica neither made nor saw
    (a cache miss: the token verified, the state decoded), as behind a round-robin balancer
    with two replicas or more. The replica still sees each game every other move, so what it
    keeps per game (the payload's per-game runs) is there, as with a few replicas."""
    return [c for g in games for c in [c for c in g if c.method == "ApplyMove"][::2]]


# --------------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__,
    )
    parser.add_argument("--targets", default="ours,echo-bare", help="comma-separated load.py kinds")
    parser.add_argument("--baseline", default="echo-bare", help="the ratios' denominator")
    parser.add_argument("--games", type=int, default=8, help="recorded games to replay")
    parser.add_argument("--mode", choices=traffic.MODES, default="apply")
    parser.add_argument(
        "--calls", choices=("apply", "all"), default="apply", help="which calls are measured"
    )
    parser.add_argument(
        "--workers", type=int, default=Config().workers, help="server worker threads"
    )
    parser.add_argument(
        "--no-breakdown", dest="breakdown", action="store_false", help="skip the in-process parts"
    )
    parser.add_argument("--breakdown-only", action="store_true", help="only the in-process parts")
    parser.add_argument("--repeat", type=int, default=2, help="passes over the moves per part")
    parser.add_argument(
        "--json", type=Path, help='write {"ours": N, "echo-bare": N, "ratio": R, ...}'
    )
    parser.add_argument("--keep", type=Path, help="keep the callgrind files in this directory")
    parser.add_argument(
        "--no-miss",
        dest="miss",
        action="store_false",
        help="skip the cache-miss path (every call's token from another replica)",
    )
    args = parser.parse_args(argv)
    if args.games < 1 or args.repeat < 1:
        parser.error("--games and --repeat must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if not callgrind_available():
        sys.exit(
            "instructions: valgrind (with callgrind_control) is not installed: apt-get install valgrind"
        )
    targets = [Target.parse(s.strip(), args.workers) for s in args.targets.split(",") if s.strip()]
    if args.breakdown_only:
        targets = []
    print(f"# instructions per call (callgrind) — {machine()}")
    keys = traffic.new_keys()
    with tempfile.TemporaryDirectory(prefix="tienlen-instr-") as tmp:
        out_dir = args.keep or Path(tmp)
        out_dir.mkdir(parents=True, exist_ok=True)
        trace = out_dir / "trace.pickle"
        games = traffic.record(args.games + 1, keys, mode=args.mode)
        traffic.save(games, trace)
        warmup, measured = games[0], games[1:]
        calls = [c for g in measured for c in g if args.calls == "all" or c.method == "ApplyMove"]
        print(
            f"# {args.games} recorded games ({args.mode}), {len(calls)} measured calls ({args.calls}); one warm-up game"
        )
        # The miss path over twice as many games (as many more, dealt from other seeds), so
        # that its window holds about as many calls as the hit path's: the cyclic collector's
        # passes fall in a short window or not, and a long one averages them.
        more = (
            traffic.record(args.games, keys, mode=args.mode, seed=MISS_SEEDS) if args.miss else []
        )
        missed = miss_calls([*measured, *more])
        results: list[Measured] = []
        for target in targets:
            runs = [(target.spec, calls)]
            if args.miss and not target.is_echo and not target.stream:
                runs.append((f"{target.spec}/miss", missed))
            for label, replayed in runs:
                m = measure_target(
                    target,
                    keys=keys,
                    trace=trace,
                    warmup=warmup,
                    calls=replayed,
                    out_dir=out_dir,
                    label=label,
                )
                results.append(m)
                print(
                    f"{m.target:<22}{m.per_call:>14,.0f} instructions/call  ({m.calls} calls,"
                    f" {m.instructions:,} in all; mismatches {m.mismatches}, errors {m.errors})",
                    flush=True,
                )
        by_spec = {m.target: m for m in results}
        report: dict[str, Any] = {}
        base = by_spec.get(args.baseline)
        if base is not None:
            print(f"\n# ratios to {args.baseline} (/miss: every call's token from another replica)")
            for m in results:
                if m is not base:
                    print(
                        f"{m.target:<22}{m.per_call / base.per_call:>8.2f}x  (+{m.per_call - base.per_call:,.0f} per call)"
                    )
            first = next((m for m in results if m is not base), None)
            if first is not None:
                report = {
                    first.target: first.per_call,
                    base.target: base.per_call,
                    "ratio": first.per_call / base.per_call,
                }
                miss = by_spec.get(f"{first.target}/miss")
                if miss is not None:
                    report |= {
                        miss.target: miss.per_call,
                        "miss_ratio": miss.per_call / base.per_call,
                    }
        report["targets"] = [asdict(m) | {"per_call": m.per_call} for m in results]
        if args.breakdown or args.breakdown_only:
            parts = breakdown(keys, trace, out_dir, args.repeat)
            whole = parts[0].per_call
            print(
                f"\n# ApplyMove in process, part by part (instructions per move; {len(calls)} moves x {args.repeat})"
            )
            for p in parts:
                print(f"{p.label:<52}{p.per_call:>12,.0f}{100 * p.per_call / whole:>8.1f} %")
            named = sum(p.per_call for p in parts[2:12])
            print(
                f"{'sum of the parts of a cache hit (3rd-12th rows)':<52}{named:>12,.0f}{100 * named / whole:>8.1f} %"
            )
            report["breakdown"] = [asdict(p) for p in parts]
        print(f"# end: load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        if args.json:
            args.json.write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
