"""Instructions per call: callgrind over whole server processes, ours vs echo-bare.

    python bench/instructions.py                          # ours vs echo-bare, 8 games, + breakdown
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

Targets are load.py's kinds (`ours`, `echo-bare`, `echo`, `ours-logall`, ...); a `-stream`
kind sends the ApplyMove calls over one PlayStream (`ours-stream@w4`).

The breakdown (`--breakdown`, on by default) runs the in-process path of ApplyMove part by
part — the parts the servicer calls, each in a loop over the recorded games' moves — under
callgrind in one child process that switches its own counting on and dumps after each part:
instructions per ApplyMove for each part, and the whole servicer call (request bytes ->
response bytes) for comparison. The control calls' own cost (an empty window) is subtracted.

`--json FILE` writes {"ours": N, "echo-bare": N, "ratio": R} (instructions per call of the
first target and of the baseline, and their ratio), plus "targets" (every target's figures)
and "breakdown". Nothing here is a test and nothing is asserted; tests/bench runs a tiny
version and checks the answers. Needs valgrind (`apt-get install valgrind`).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import queue
import re
import shutil
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
from bench_micro import HappyContext
from load import KINDS, Target, machine

from tienlen_service.config import Config

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

BENCH: Final = Path(__file__).resolve().parent
ROOT: Final = BENCH.parent
STARTUP_TIMEOUT: Final = 600.0  # start-up under valgrind, on a loaded machine
CALL_TIMEOUT: Final = 120.0
CONTROL_TIMEOUT: Final = 120.0
VALGRIND: Final = "valgrind"
CONTROL: Final = "callgrind_control"
_TOTALS: Final = re.compile(rb"^totals:\s+(\d+)", re.MULTILINE)
_DESC: Final = re.compile(rb"^desc: Trigger: .*?dump (\S+)", re.MULTILINE)


def callgrind_available() -> bool:
    """Whether valgrind and callgrind_control are on the PATH."""
    return shutil.which(VALGRIND) is not None and shutil.which(CONTROL) is not None


def callgrind_command(out_dir: Path, name: str) -> list[str]:
    """The valgrind prefix: instrumentation off until switched on, all threads together."""
    return [
        VALGRIND,
        "--tool=callgrind",
        "--instr-atstart=no",
        "--separate-threads=no",
        "--trace-children=no",
        "--dump-instr=no",
        "--compress-strings=no",
        f"--callgrind-out-file={out_dir}/{name}.%p",
        f"--log-file={out_dir}/{name}.valgrind.%p",
    ]


def control(pid: int, *args: str) -> None:
    """`callgrind_control ARGS PID` (it waits until the process has done it)."""
    subprocess.run(  # valgrind's own tool
        [CONTROL, *args, str(pid)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=CONTROL_TIMEOUT,
    )


def dumps(out_dir: Path, name: str, pid: int) -> dict[str, int]:
    """Label -> instructions of every `callgrind_control -d LABEL` dump of process `pid`."""
    found: dict[str, int] = {}
    for path in out_dir.glob(f"{name}.{pid}.*"):
        data = path.read_bytes()
        desc, totals = _DESC.search(data), _TOTALS.search(data)
        if desc is not None and totals is not None:
            found[desc.group(1).decode()] = int(totals.group(1))
    return found


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


def _python() -> str:
    # The venv's interpreter by its own path (valgrind runs it; a shell shim would be traced
    # instead, and --trace-children=no would then miss the server).
    return sys.executable


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
            [*callgrind_command(out_dir, name), _python(), *KINDS[target.kind], *extra, *flags],
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
) -> Measured:
    """Instructions of `target`'s whole server process answering `calls`."""
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
    return Measured(target.spec, answered, counted, mismatches, errors)


# --------------------------------------------------------------------------------------------
# The in-process breakdown (run as a child under callgrind: `--components-child`)


def components(
    keys: str, games: list[traffic.Game]
) -> list[tuple[str, Callable[..., object], list[tuple[Any, ...]]]]:
    """The parts of ApplyMove as the servicer runs them, each with its arguments per recorded
    move: (label, function, argument tuples). The first is the whole servicer call."""
    # Imported here: the parent process needs none of it.
    import tienlen_rules as engine
    from tienlen.v1 import service_pb2
    from tienlen_rules import SPECTATOR, view
    from tienlen_service import codec
    from tienlen_service.logs import AccessLog, configure_logging
    from tienlen_service.metrics import Metrics
    from tienlen_service.observability import ObservabilityInterceptor

    svc = traffic.servicer(keys)
    tokens = svc._tokens  # noqa: SLF001 - the bench takes the servicer apart
    states = svc._states  # noqa: SLF001
    ctx: Any = HappyContext()
    applies = [c for g in games for c in g if c.method == "ApplyMove"]
    reqs = [service_pb2.ApplyMoveRequest.FromString(c.request) for c in applies]
    decoded = [codec.decode_state(tokens.decode(r.state_token)) for r in reqs]
    moves = [codec.move_from_pb(r.move, r.seat) for r in reqs]
    stepped = [engine.apply(s, m) for (s, _), m in zip(decoded, moves, strict=True)]
    new_states = [s for s, _ in stepped]
    game_ids = [g for _, g in decoded]
    payloads = [codec.encode_state(s, g) for s, g in zip(new_states, game_ids, strict=True)]
    views = [view(s, SPECTATOR) for s in new_states]
    view_bytes = [codec.view_to_wire(v, s) for v, s in zip(views, new_states, strict=True)]
    event_bytes = [codec.events_to_wire(e) for _, e in stepped]
    answers = [service_pb2.ApplyMoveResponse.FromString(c.response) for c in applies]
    tokens_out = [a.game.state_token for a in answers]

    def servicer_call(data: bytes) -> bytes:
        # What the gRPC port runs: the request parsed, the answer's wire bytes sent as they are.
        return svc.apply_move_wire(service_pb2.ApplyMoveRequest.FromString(data), ctx)

    # The interceptor around an empty handler, as the service builds it (default sampling).
    configure_logging("info", "json", stream=io.StringIO())
    interceptor = ObservabilityInterceptor(Metrics(), access_log=AccessLog())
    bare = grpc.unary_unary_rpc_method_handler(lambda req, _ctx: req)
    details: Any = type("D", (), {"method": traffic.PREFIX + "ApplyMove"})()
    wrapped = interceptor.intercept_service(lambda _d: bare, details)
    assert wrapped is not None
    assert wrapped.unary_unary is not None
    intercepted = wrapped.unary_unary

    def request_part(data: bytes) -> object:
        request = service_pb2.ApplyMoveRequest.FromString(data)
        return codec.move_from_pb(request.move, request.seat)

    def cache_hit(token: bytes, seat: int, seat_token: str) -> object:
        return svc._seat_state(token, seat, seat_token)  # noqa: SLF001

    def answer_part(token: bytes, gid: bytes, state: Any, events: bytes, view_: bytes) -> bytes:
        # The answer as the servicer writes it around the events' and the view's wire bytes
        # (and a finished game's settlement): what the port sends as it is.
        return codec.apply_answer_wire(codec.assemble_update(token, gid, state, events, view_))

    count = svc._count_events  # noqa: SLF001
    zipped = list(zip(new_states, game_ids, strict=True))
    for (state, game_id), token in zip(zipped, tokens_out, strict=True):
        states._remember(token, (state, game_id))  # noqa: SLF001 - each token known good

    def remember(token: bytes, entry: tuple[Any, bytes]) -> None:
        states._remember(token, entry)  # noqa: SLF001

    return [
        (
            "servicer ApplyMove, bytes -> bytes (in order)",
            servicer_call,
            [(c.request,) for c in applies],
        ),
        ("interceptor (empty handler)", intercepted, [(c.request, ctx) for c in applies]),
        ("request parse + move", request_part, [(c.request,) for c in applies]),
        (
            "state lookup (cache hit) + seat",
            cache_hit,
            [(r.state_token, r.seat, r.seat_token) for r in reqs],
        ),
        (
            "engine step (engine.apply)",
            engine.apply,
            list(zip((s for s, _ in decoded), moves, strict=True)),
        ),
        ("domain metrics", lambda s, e: count(s.rules, e, applied=True), stepped),
        ("state payload (encode_state)", codec.encode_state, zipped),
        ("token signing", tokens.encode, [(p,) for p in payloads]),
        ("state cache insert", remember, [(t, e) for t, e in zip(tokens_out, zipped, strict=True)]),
        ("events -> wire bytes", codec.events_to_wire, [(e,) for _, e in stepped]),
        (
            "spectator view -> wire bytes",
            codec.spectator_view_to_wire,
            [(s,) for s in new_states],
        ),
        (
            "answer: GameUpdate around event/view bytes",
            answer_part,
            [
                (t, g, s, e, v)
                for t, g, s, e, v in zip(
                    tokens_out, game_ids, new_states, event_bytes, view_bytes, strict=True
                )
            ],
        ),
        ("token verify (cache miss only)", tokens.decode, [(r.state_token,) for r in reqs]),
        (
            "state decode (cache miss only)",
            codec.decode_state,
            [(tokens.decode(r.state_token),) for r in reqs],
        ),
        (
            "an empty Python call (the loop's floor)",
            lambda *_a: None,
            [(c.request,) for c in applies],
        ),
    ]


def _components_child(args: argparse.Namespace) -> int:
    """Under callgrind: each part in a loop, counting switched on around it and dumped."""
    games = traffic.load(args.trace)
    parts = components(os.environ["TIENLEN_KEYS"], games)
    pid = os.getpid()
    plan: dict[str, int] = {}
    for _label, fn, items in parts:  # warm: first calls, caches, lazily built tables
        for item in items:
            fn(*item)
    control(pid, "-i", "on")
    for index in range(2):
        control(pid, "-z")
        control(pid, "-d", f"empty{index}")
    for index, (_label, fn, items) in enumerate(parts):
        control(pid, "-z")
        for _ in range(args.repeat):
            for item in items:
                fn(*item)
        control(pid, "-d", f"part{index}")
        plan[f"part{index}"] = len(items) * args.repeat
    control(pid, "-i", "off")
    args.plan.write_text(json.dumps({"labels": [p[0] for p in parts], "iterations": plan}))
    return 0


@dataclass
class Part:
    """One part of the breakdown."""

    label: str
    per_call: float


def breakdown(keys: str, trace: Path, out_dir: Path, repeat: int) -> list[Part]:
    """Run `_components_child` under callgrind; instructions per ApplyMove of each part."""
    plan = out_dir / "plan.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("TIENLEN_")}
    env["TIENLEN_KEYS"] = keys
    proc = subprocess.run(  # valgrind over our own interpreter and this script
        [
            *callgrind_command(out_dir, "parts"),
            _python(),
            str(BENCH / "instructions.py"),
            "--components-child",
            "--trace",
            str(trace),
            "--plan",
            str(plan),
            "--repeat",
            str(repeat),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=STARTUP_TIMEOUT * 3,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(
            f"the breakdown child failed:\n{proc.stdout.decode()[-2000:]}{proc.stderr.decode()[-2000:]}"
        )
    got = json.loads(plan.read_text())
    counted = dumps(out_dir, "parts", proc_pid(out_dir, "parts"))
    overhead = min(counted["empty0"], counted["empty1"])
    return [
        Part(label, (counted[key] - overhead) / got["iterations"][key])
        for label, key in zip(got["labels"], got["iterations"], strict=True)
    ]


def proc_pid(out_dir: Path, name: str) -> int:
    """The pid of the one callgrind run named `name` in `out_dir`."""
    pids = {
        int(p.name.split(".")[1])
        for p in out_dir.glob(f"{name}.*")
        if p.name.split(".")[1].isdigit()
    }
    if len(pids) != 1:
        raise RuntimeError(f"expected one {name} run in {out_dir}, found {sorted(pids)}")
    return pids.pop()


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
    parser.add_argument("--components-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--trace", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--plan", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.games < 1 or args.repeat < 1:
        parser.error("--games and --repeat must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.components_child:
        return _components_child(args)
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
        results: list[Measured] = []
        for target in targets:
            m = measure_target(
                target, keys=keys, trace=trace, warmup=warmup, calls=calls, out_dir=out_dir
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
            print(f"\n# ratios to {args.baseline}")
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
