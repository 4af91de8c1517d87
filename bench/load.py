"""Service load benchmark: complete games replayed at a fixed concurrency, ours vs an echo.

    python bench/load.py                                    # quick: ours vs echo, 1/8/64 tables
    python bench/load.py --seconds 10 --rounds 3            # the figures in bench/README.md
    python bench/load.py --mode full                        # ListLegalMoves+ValidateMove+ApplyMove
    python bench/load.py --targets ours@w1,ours@w4,ours@w16,ours-aio,ours@w4x2 --concurrency 8,64
    python bench/load.py --targets ours,ours-stream,echo-bare,echo-bare-stream --workers 4
    python bench/load.py --targets ours,echo --pin           # servers on CPU 0, load elsewhere

What it does: records `--games` complete 4-player games through the real servicer
(bench/traffic.py), starts every target server as its own process on 127.0.0.1, then for each
round, concurrency and target runs a point: `--clients` load processes (grpc.aio), holding
`concurrency` tables between them, each table replaying whole games call after call, for
`--warmup` + `--seconds` seconds. Every answer of our service is compared with the recorded
bytes (it must be identical: `mismatch` counts those that are not).

Targets, `KIND[@wN][xP]` (N worker threads, default --workers; P processes sharing the port
with SO_REUSEPORT, default 1):
  ours              python -m tienlen_service (the real service, default settings: one
                    successful call in --log-sample 100 logged)
  ours-logall       the same with --log-sample 1: one JSON log line per call
  echo              bench/echo_server.py: recorded answers, our Server and interceptor;
                    echo-logall: with --log-sample 1
  echo-bare         bench/echo_server.py --bare: recorded answers, plain grpc.server
  echo-busy         echo + 100 µs of pure-Python busy work per call (about our servicer's
                    in-process cost): what any handler of that weight costs in this model;
                    echo-busy10, echo-busy20, echo-busy40: 10, 20, 40 µs
  echo-work         echo that first runs our servicer's ApplyMove on each ApplyMove request
                    and drops its answer: the service's exact work, without our answer path
  echo-engine       echo that first runs only the rules engine's step (engine.apply) on each
                    ApplyMove request's state and move, decoded ahead of time: the pure-Python
                    work no implementation of the service can skip;
                    echo-engine-view: + the spectator view as wire bytes;
                    echo-engine-codec: + the events, the state payload and its token, and the
                    request's parse: every part of ApplyMove but the servicer's glue
  ours-aio          bench/model_server.py --model aio: the engine on grpc.aio + interceptor
  ours-aio-bare     the same, no interceptor
  echo-aio          echo on grpc.aio + interceptor;  echo-aio-bare: no interceptor
  KIND-stream       the same server, with ApplyMove sent over PlayStream (one stream per load
                    process, shared by its tables): ours-stream, echo-stream, echo-bare-stream.
                    A replica serves workers/2 streams: give --workers >= 2 x --clients
  KIND-batch        the same over PlayStream with batches (PlayStreamRequest.batch): one
                    message in flight per stream, the moves queued meanwhile sent together
                    in the next (ours-batch@w4; the echo servers answer single moves only)

Per point: calls/s and moves/s (ApplyMove answers), p50/p99 latency of a call, server CPU
per call (from /proc, all server processes) and its busy cores, client CPU per call, errors.
Then the ratios ours/echo, which hold on a noisy machine where absolute figures drift.
Loopback only; every point is bounded by --seconds and --max-calls; nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import math
import multiprocessing as mp
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import grpc
import grpc.aio
import traffic
from echo_server import PARTS
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tienlen_service.config import Config

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from multiprocessing.connection import Connection

BENCH: Final = Path(__file__).resolve().parent
ROOT: Final = BENCH.parent
PLAY_STREAM: Final = traffic.PREFIX + "PlayStream"
EOF: Final[Any] = grpc.aio.EOF  # type: ignore[attr-defined] # grpc-stubs predates grpc.aio
CLK_TCK: Final = os.sysconf("SC_CLK_TCK")
STARTUP_TIMEOUT: Final = 30.0
CALL_TIMEOUT: Final = 10.0

KINDS: Final[dict[str, list[str]]] = {
    "ours": ["-m", "tienlen_service"],
    "ours-logall": ["-m", "tienlen_service", "--log-sample", "1"],
    "echo-logall": ["bench/echo_server.py", "--log-sample", "1"],
    "echo": ["bench/echo_server.py"],
    "echo-bare": ["bench/echo_server.py", "--bare"],
    "echo-busy": ["bench/echo_server.py", "--busy-us", "100"],
    "echo-busy10": ["bench/echo_server.py", "--busy-us", "10"],
    "echo-busy20": ["bench/echo_server.py", "--busy-us", "20"],
    "echo-busy40": ["bench/echo_server.py", "--busy-us", "40"],
    "echo-work": ["bench/echo_server.py", "--work"],
    "echo-engine": ["bench/echo_server.py", "--engine", "apply"],
    "echo-engine-view": ["bench/echo_server.py", "--engine", "apply,view"],
    "echo-engine-codec": ["bench/echo_server.py", "--engine", ",".join(PARTS)],
    "ours-aio": ["bench/model_server.py", "--model", "aio"],
    "ours-aio-bare": ["bench/model_server.py", "--model", "aio-bare"],
    "echo-aio": ["bench/echo_server.py", "--aio"],
    "echo-aio-bare": ["bench/echo_server.py", "--aio", "--bare"],
}


# --------------------------------------------------------------------------------------------
# Targets and their server processes


@dataclass(frozen=True, slots=True)
class Target:
    """A server configuration to measure, and how the client talks to it."""

    spec: str
    kind: str
    workers: int
    processes: int
    stream: bool
    batch: bool = False

    @classmethod
    def parse(cls, spec: str, default_workers: int) -> Target:
        """`KIND[@wN][xP]`: ours, echo@w8, ours@w4x2, echo-bare-stream, ..."""
        kind, _, rest = spec.partition("@")
        workers, processes = default_workers, 1
        if rest:
            head, _, procs = rest.partition("x")
            if (
                not head.startswith("w")
                or not head[1:].isdigit()
                or (procs and not procs.isdigit())
            ):
                raise ValueError(f"target {spec!r}: expected KIND[@wN][xP]")
            workers, processes = int(head[1:]), int(procs or 1)
        batch = kind.endswith("-batch")
        stream = batch or kind.endswith("-stream")
        kind = kind.removesuffix("-batch").removesuffix("-stream")
        if kind not in KINDS:
            raise ValueError(f"target {spec!r}: unknown kind (one of {', '.join(KINDS)})")
        if processes > 1 and "aio" in kind:
            raise ValueError("SO_REUSEPORT processes are measured for the sync models only")
        if batch and kind.startswith("echo"):
            raise ValueError(f"target {spec!r}: the echo servers answer single moves only")
        return cls(spec, kind, workers, processes, stream, batch)

    @property
    def is_echo(self) -> bool:
        """Whether the answers are canned."""
        return self.kind.startswith("echo")


@dataclass
class Running:
    """The processes of a started target."""

    target: Target
    procs: list[subprocess.Popen[bytes]]
    logs: list[Path]
    port: int

    @property
    def address(self) -> str:
        """host:port to dial."""
        return f"127.0.0.1:{self.port}"

    def cpu_seconds(self) -> float:
        """User + system CPU seconds of all the server processes so far."""
        return sum(_cpu(p.pid) for p in self.procs)

    def rss_bytes(self) -> list[int]:
        """Resident set size of each server process."""
        return [_rss(p.pid) for p in self.procs]

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after 10 s."""
        for p in self.procs:
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(timeout=10)


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime


def _rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def pin_process(pid: int, cpus: frozenset[int]) -> None:
    """Run every thread of process `pid` on `cpus` only. Threads it starts later inherit the
    affinity of the thread that starts them, so pinning the ones alive now pins them all."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        os.sched_setaffinity(int(task.name), cpus)


def split_cpus() -> tuple[frozenset[int], frozenset[int]]:
    """`--pin`: the lowest CPU this process may use for the servers, the others for the load."""
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        raise SystemExit("load: --pin needs at least 2 CPUs")
    return frozenset(allowed[:1]), frozenset(allowed[1:])


def _wait_serving(log: Path, proc: subprocess.Popen[bytes]) -> int:
    """The port of the `serving` JSON line the process writes to its log."""
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
        with log.open() as f:
            for line in f:
                with contextlib.suppress(ValueError):
                    record = json.loads(line)
                    if isinstance(record, dict) and record.get("event") == "serving":
                        return int(record["port"])
        time.sleep(0.02)  # a benchmark's start-up poll (tests wait on health instead)
    raise RuntimeError(f"no serving line within {STARTUP_TIMEOUT} s:\n{log.read_text()[-3000:]}")


def _wait_healthy(address: str) -> None:
    with grpc.insecure_channel(address) as channel:
        health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=STARTUP_TIMEOUT, wait_for_ready=True
        )


def start_target(
    target: Target,
    *,
    keys: str,
    trace: Path,
    workdir: Path,
    log_level: str = "info",
    cpus: frozenset[int] | None = None,
) -> Running:
    """Start a target's server process(es) on 127.0.0.1 and wait until they serve; with
    `cpus`, every thread of each server runs on those CPUs only (`--pin`)."""
    base = KINDS[target.kind]
    extra = ["--trace", str(trace)] if target.is_echo else []
    flags = [
        "--host",
        "127.0.0.1",
        "--metrics-port",
        "0",  # the exporter off: it costs nothing per call, only per scrape
        "--web-port",
        "0",  # no web port: the targets compare gRPC, and none may take :8080
        "--log-format",
        "json",
        "--log-level",
        log_level,
        "--workers",
        str(target.workers),
    ]
    if target.processes > 1:
        flags.append("--reuse-port")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TIENLEN_")}
    env |= {"TIENLEN_KEYS": keys, "PYTHONUNBUFFERED": "0"}
    procs: list[subprocess.Popen[bytes]] = []
    logs: list[Path] = []
    port = 0
    try:
        for i in range(target.processes):
            log = workdir / f"{target.spec.replace('@', '_')}-{i}.log"
            logs.append(log)
            with log.open("wb") as out:
                procs.append(
                    subprocess.Popen(  # our own interpreter and scripts
                        [sys.executable, *base, *extra, *flags, "--port", str(port)],
                        cwd=ROOT,
                        env=env,
                        stdout=out,
                        stderr=subprocess.STDOUT,
                    )
                )
            port = _wait_serving(log, procs[-1])
            if cpus is not None:
                pin_process(procs[-1].pid, cpus)
        running = Running(target, procs, logs, port)
        _wait_healthy(running.address)
    except BaseException:
        for p in procs:
            p.kill()
        raise
    return running


# --------------------------------------------------------------------------------------------
# The load processes


@dataclass(frozen=True, slots=True)
class WorkerJob:
    """What one load process does: its tables, where, how, until when, and on which CPUs
    (None: wherever the OS puts it)."""

    address: str
    trace: str
    first_table: int
    tables: int
    total_tables: int
    channels: int
    stream: bool
    batch: bool
    max_calls: int
    cpus: frozenset[int] | None = None


@dataclass
class WorkerResult:
    """What one load process measured inside the window."""

    calls: int = 0
    moves: int = 0
    latencies_ns: list[int] = field(default_factory=list)
    by_method: dict[str, list[int]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    mismatches: int = 0
    cpu_seconds: float = 0.0
    issued: int = 0


class _StreamMux:
    """One PlayStream call shared by many tables: requests written in turn, answers in order.
    With `batch`, one message is in flight at a time: the moves the tables make while it is
    out go together as the next message (PlayStreamRequest.batch), as a host holding many
    tables would send them."""

    def __init__(self, channel: Any, *, batch: bool = False) -> None:  # a grpc.aio.Channel
        self._call = channel.stream_stream(PLAY_STREAM)(timeout=3600)
        # Each message written: the futures of its answers (one, or a batch's in order).
        self._pending: collections.deque[list[asyncio.Future[bytes]]] = collections.deque()
        self._lock = asyncio.Lock()
        self._batch = batch
        self._queued: list[tuple[bytes, asyncio.Future[bytes]]] = []
        self._writing = False
        self._writer: asyncio.Task[None] | None = None
        self._reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            while True:
                response = await self._call.read()
                if response is EOF:
                    break
                futures = self._pending.popleft()
                answers = traffic.batch_elements(response) if self._batch else [response]
                if len(answers) != len(futures):  # a refused batch: every move gets its refusal
                    answers = [response] * len(futures)
                for future, answer in zip(futures, answers, strict=True):
                    future.set_result(answer)
                if self._batch:
                    self._flush()
        except BaseException as exc:
            waiting = [f for futures in self._pending for f in futures]
            waiting += [f for _, f in self._queued]
            self._pending.clear()
            self._queued.clear()
            for future in waiting:
                future.set_exception(exc)
            raise

    async def request(self, data: bytes) -> bytes:
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        if not self._batch:
            async with self._lock:
                self._pending.append([future])
                await self._call.write(data)
            return await future
        self._queued.append((data, future))
        self._flush()
        return await future

    def _flush(self) -> None:
        """Start writing the queued moves unless a write is under way or a batch waits for its
        answer (then the moves queue up into the next batch: one batch in flight per stream,
        which measured faster than two: 5,800 vs 4,300 moves/s at 8 tables)."""
        if self._writing or not self._queued or self._pending:
            return
        self._writing = True
        self._writer = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        try:
            await asyncio.sleep(0)  # the tables answered together queue their next moves
            if self._queued:  # (a stream that broke meanwhile emptied it)
                batch = self._queued[: traffic.MAX_BATCH]
                del self._queued[: traffic.MAX_BATCH]
                self._pending.append([f for _, f in batch])
                await self._call.write(traffic.batch_message([d for d, _ in batch]))
        finally:
            self._writing = False
        self._flush()

    async def close(self) -> None:
        with contextlib.suppress(grpc.aio.AioRpcError, asyncio.CancelledError):
            await self._call.done_writing()
            await self._reader


async def _run_worker(job: WorkerJob, conn: Connection) -> WorkerResult:
    games = traffic.load(Path(job.trace))
    loop = asyncio.get_running_loop()
    options = [("grpc.use_local_subchannel_pool", 1)]  # one TCP connection per channel
    channels: list[Any] = [  # grpc.aio channels (grpc-stubs types them as sync ones)
        grpc.aio.insecure_channel(job.address, options=options) for _ in range(job.channels)
    ]
    for ch in channels:
        await asyncio.wait_for(ch.channel_ready(), STARTUP_TIMEOUT)
    stubs = [
        {
            m: ch.unary_unary(traffic.PREFIX + m)
            for m in ("NewGame", "NextGame", "ApplyMove", "ValidateMove", "ListLegalMoves")
        }
        for ch in channels
    ]
    # One PlayStream per load process: on a sync server every open stream holds a worker
    # thread for its whole life, so streams must stay fewer than the workers (or the unary
    # calls, NewGame here, starve).
    muxes = [_StreamMux(channels[0], batch=job.batch)] if job.stream else []
    result = WorkerResult()
    conn.send("ready")
    t_warm, t_start, t_end = await loop.run_in_executor(None, conn.recv)
    cpu: list[float] = []
    loop.call_at(t_start, lambda: cpu.append(time.process_time()))
    loop.call_at(t_end, lambda: cpu.append(time.process_time()))
    await asyncio.sleep(max(0.0, t_warm - loop.time()))
    errors: collections.Counter[str] = collections.Counter()
    by_method: dict[str, list[int]] = collections.defaultdict(list)

    async def table(local: int) -> None:
        tid = job.first_table + local
        stub = stubs[local % len(stubs)]
        mux = muxes[local % len(muxes)] if muxes else None
        k = 0
        while True:
            game = games[(tid + k * job.total_tables) % len(games)]
            k += 1
            for call in game:
                if loop.time() >= t_end or result.issued >= job.max_calls:
                    return
                result.issued += 1
                began = time.perf_counter_ns()
                try:
                    if mux is not None and call.method == "ApplyMove":
                        framed = await mux.request(traffic.stream_frame(call.request))
                        answer = framed[len(framed) - len(call.response) :]
                        if framed != traffic.stream_frame(answer):
                            answer = b"<not an applied move>"
                    else:
                        answer = await stub[call.method](call.request, timeout=CALL_TIMEOUT)
                except grpc.aio.AioRpcError as exc:
                    errors[exc.code().name] += 1
                    continue
                elapsed = time.perf_counter_ns() - began
                if call.deterministic and answer != call.response:
                    result.mismatches += 1
                if t_start <= loop.time() < t_end:
                    result.calls += 1
                    result.moves += call.method == "ApplyMove"
                    result.latencies_ns.append(elapsed)
                    by_method[call.method].append(elapsed)

    await asyncio.gather(*(table(i) for i in range(job.tables)))
    for mux in muxes:
        await mux.close()
    for ch in channels:
        await ch.close()
    result.errors = dict(errors)
    result.by_method = dict(by_method)
    result.cpu_seconds = cpu[1] - cpu[0] if len(cpu) == 2 else 0.0
    return result


def _worker_main(job: WorkerJob, conn: Connection) -> None:
    try:
        if job.cpus is not None:
            os.sched_setaffinity(0, job.cpus)  # before grpc starts its threads: they inherit it
        result = asyncio.run(_run_worker(job, conn))
        conn.send(result)
    except BaseException as exc:  # report, don't hang the parent
        conn.send(RuntimeError(f"load worker failed: {exc!r}"))
        raise


# --------------------------------------------------------------------------------------------
# A point: one target at one concurrency


@dataclass
class Point:
    """The figures of one point."""

    target: str
    mode: str
    concurrency: int
    seconds: float
    calls: int
    moves: int
    calls_per_s: float
    moves_per_s: float
    p50_ms: float
    p99_ms: float
    server_cpu_us: float
    server_cores: float
    client_cpu_us: float
    errors: dict[str, int]
    mismatches: int
    method_p50_ms: dict[str, float]
    server_cpu_split: list[float]


def _pct(sorted_ns: Sequence[int], q: float) -> float:
    if not sorted_ns:
        return float("nan")
    return sorted_ns[min(len(sorted_ns) - 1, int(q * len(sorted_ns)))] / 1e6


def run_point(
    running: Running,
    *,
    trace: Path,
    mode: str,
    concurrency: int,
    seconds: float,
    warmup: float,
    clients: int,
    channels: int,
    max_calls: int,
    tick: Callable[[float], None] | None = None,
    cpus: frozenset[int] | None = None,
) -> Point:
    """Drive `running` with `concurrency` tables for warmup + seconds; `tick(elapsed)` is
    called about once a second during the measured window (the memory tool samples RSS);
    with `cpus`, the load processes run on those CPUs only (`--pin`)."""
    ctx = mp.get_context("spawn")  # grpc does not survive fork
    n = max(1, min(clients, concurrency))
    share = [concurrency // n + (i < concurrency % n) for i in range(n)]
    pipes: list[Connection] = []
    procs = []
    first = 0
    for tables in share:
        parent, child = ctx.Pipe()
        job = WorkerJob(
            running.address,
            str(trace),
            first,
            tables,
            concurrency,
            max(1, min(channels, tables)),
            running.target.stream,
            running.target.batch,
            max_calls // n,
            cpus,
        )
        proc = ctx.Process(target=_worker_main, args=(job, child), daemon=True)
        proc.start()
        pipes.append(parent)
        procs.append(proc)
        first += tables
    try:
        for p in pipes:
            if not p.poll(STARTUP_TIMEOUT * 2):
                raise RuntimeError("a load worker did not get ready")
            ready = p.recv()
            if isinstance(ready, BaseException):
                raise ready
        now = time.monotonic()
        t_warm = now + 0.2
        t_start = t_warm + warmup
        t_end = t_start + seconds
        for p in pipes:
            p.send((t_warm, t_start, t_end))
        time.sleep(max(0.0, t_start - time.monotonic()))
        cpu_split0 = [_cpu(pr.pid) for pr in running.procs]
        while (left := t_end - time.monotonic()) > 0:
            time.sleep(min(1.0, left))
            if tick is not None:
                tick(time.monotonic() - t_start)
        cpu_split1 = [_cpu(pr.pid) for pr in running.procs]
        results: list[WorkerResult] = []
        for p in pipes:
            if not p.poll(CALL_TIMEOUT + 30):
                raise RuntimeError("a load worker did not report")
            got = p.recv()
            if isinstance(got, BaseException):
                raise got
            results.append(got)
    finally:
        for proc in procs:
            proc.join(timeout=30)
            if proc.is_alive():
                proc.kill()
    latencies = sorted(x for r in results for x in r.latencies_ns)
    calls = sum(r.calls for r in results)
    moves = sum(r.moves for r in results)
    errors: collections.Counter[str] = collections.Counter()
    by_method: dict[str, list[int]] = collections.defaultdict(list)
    for r in results:
        errors.update(r.errors)
        for m, xs in r.by_method.items():
            by_method[m].extend(xs)
    split = [b - a for a, b in zip(cpu_split0, cpu_split1, strict=True)]
    server_cpu = sum(split)
    return Point(
        target=running.target.spec,
        mode=mode,
        concurrency=concurrency,
        seconds=seconds,
        calls=calls,
        moves=moves,
        calls_per_s=calls / seconds,
        moves_per_s=moves / seconds,
        p50_ms=_pct(latencies, 0.5),
        p99_ms=_pct(latencies, 0.99),
        server_cpu_us=server_cpu / calls * 1e6 if calls else float("nan"),
        server_cores=server_cpu / seconds,
        client_cpu_us=sum(r.cpu_seconds for r in results) / calls * 1e6 if calls else float("nan"),
        errors=dict(errors),
        mismatches=sum(r.mismatches for r in results),
        method_p50_ms={m: _pct(sorted(xs), 0.5) for m, xs in sorted(by_method.items())},
        server_cpu_split=split,
    )


# --------------------------------------------------------------------------------------------
# Reporting


HEADER: Final = (
    f"{'target':<18}{'mode':>6}{'conc':>6}{'calls/s':>9}{'moves/s':>9}{'p50 ms':>8}"
    f"{'p99 ms':>8}{'srv µs/call':>12}{'srv cores':>10}{'cli µs/call':>12}  errors/mismatch"
)


def row(p: Point) -> str:
    errs = ",".join(f"{k}:{v}" for k, v in p.errors.items()) or "0"
    return (
        f"{p.target:<18}{p.mode:>6}{p.concurrency:>6}{p.calls_per_s:>9.0f}{p.moves_per_s:>9.0f}"
        f"{p.p50_ms:>8.2f}{p.p99_ms:>8.2f}{p.server_cpu_us:>12.0f}{p.server_cores:>10.2f}"
        f"{p.client_cpu_us:>12.0f}  {errs}/{p.mismatches}"
    )


def median_points(points: Sequence[Point]) -> Point:
    """The median of each figure over the rounds of one (target, concurrency)."""
    first = points[0]
    med = statistics.median
    return Point(
        target=first.target,
        mode=first.mode,
        concurrency=first.concurrency,
        seconds=sum(p.seconds for p in points),
        calls=sum(p.calls for p in points),
        moves=sum(p.moves for p in points),
        calls_per_s=med(p.calls_per_s for p in points),
        moves_per_s=med(p.moves_per_s for p in points),
        p50_ms=med(p.p50_ms for p in points),
        p99_ms=med(p.p99_ms for p in points),
        server_cpu_us=med(p.server_cpu_us for p in points),
        server_cores=med(p.server_cores for p in points),
        client_cpu_us=med(p.client_cpu_us for p in points),
        errors=dict(sum((collections.Counter(p.errors) for p in points), collections.Counter())),
        mismatches=sum(p.mismatches for p in points),
        method_p50_ms={
            m: med(
                [x for p in points if (x := p.method_p50_ms.get(m, math.nan)) == x] or [math.nan]
            )
            for m in dict.fromkeys(m for p in points for m in p.method_p50_ms)
        },
        server_cpu_split=[
            med(xs) for xs in zip(*(p.server_cpu_split for p in points), strict=True)
        ],
    )


def ratios(summary: Sequence[Point], baselines: Sequence[str]) -> list[str]:
    """Lines of ratios: each non-baseline target against each baseline, per concurrency."""
    by = {(p.target, p.concurrency): p for p in summary}
    lines = []
    targets = list(dict.fromkeys(p.target for p in summary))
    concs = sorted({p.concurrency for p in summary})
    for base in baselines:
        for t in targets:
            if t == base:
                continue
            for c in concs:
                a, b = by.get((t, c)), by.get((base, c))
                if a is None or b is None or not b.calls_per_s or not a.calls_per_s:
                    continue
                lines.append(
                    f"{t + ' / ' + base:<34}{c:>5}  throughput {a.calls_per_s / b.calls_per_s:5.2f}"
                    f"   p50 {a.p50_ms / b.p50_ms:5.2f}   p99 {a.p99_ms / b.p99_ms:5.2f}"
                    f"   server CPU/call {a.server_cpu_us / b.server_cpu_us:5.2f}"
                    f" (+{a.server_cpu_us - b.server_cpu_us:.0f} µs)"
                )
    return lines


def machine() -> str:
    """One line about this machine and run."""
    cpu = "cpu"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())
    return (
        f"{platform.python_implementation()} {platform.python_version()}, grpcio {grpc.__version__}, "
        f"{platform.machine()} {cpu}, {os.cpu_count()} cores, load average {load}"
    )


# --------------------------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__,
    )
    parser.add_argument(
        "--targets", default="ours,echo,echo-bare", help="comma-separated KIND[@wN][xP]"
    )
    parser.add_argument("--concurrency", default="1,8,64", help="tables in flight, comma-separated")
    parser.add_argument("--mode", choices=traffic.MODES, default="apply")
    parser.add_argument("--seconds", type=float, default=4.0, help="measured seconds per point")
    parser.add_argument("--warmup", type=float, default=1.0, help="unmeasured seconds first")
    parser.add_argument("--rounds", type=int, default=1, help="interleaved repetitions (medians)")
    parser.add_argument("--games", type=int, default=200, help="recorded games to replay")
    parser.add_argument(
        "--match-games",
        type=int,
        default=1,
        help="games per recorded match (NextGame between them; later games carry match totals)",
    )
    parser.add_argument("--clients", type=int, default=2, help="load processes")
    parser.add_argument("--channels", type=int, default=2, help="connections per load process")
    parser.add_argument(
        "--workers",
        type=int,
        default=Config().workers,
        help="server worker threads (default: the service's)",
    )
    parser.add_argument("--max-calls", type=int, default=2_000_000, help="cap of calls per point")
    parser.add_argument(
        "--log-level",
        default="info",
        choices=("debug", "info"),
        help="servers' log level (info logs every call; no higher: the bench reads the port"
        " a server picked from its `serving` line, logged at info)",
    )
    parser.add_argument(
        "--pin",
        action="store_true",
        help="servers on the first CPU only, the load processes on the others"
        " (does the load evict the server's caches?)",
    )
    parser.add_argument("--json", type=Path, help="also write every point here")
    parser.add_argument("--baselines", default="echo,echo-bare", help="ratios against these")
    args = parser.parse_args(argv)
    if (
        args.seconds <= 0
        or args.seconds > 600
        or args.rounds < 1
        or args.games < 1
        or args.match_games < 1
    ):
        parser.error(
            "--seconds must be in (0, 600], --rounds, --games and --match-games at least 1"
        )
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    targets = [Target.parse(s.strip(), args.workers) for s in args.targets.split(",") if s.strip()]
    concurrencies = [int(c) for c in args.concurrency.split(",")]
    for t in targets:
        if t.stream and t.kind == "ours" and t.workers // 2 < args.clients:
            sys.exit(
                f"load: {t.spec}: a replica with {t.workers} workers serves {t.workers // 2}"
                f" PlayStream calls, and {args.clients} load processes open one each:"
                f" use --workers {2 * args.clients} (or @w{2 * args.clients})"
            )
    server_cpus, load_cpus = split_cpus() if args.pin else (None, None)
    print(f"# load benchmark — {machine()}")
    if server_cpus is not None and load_cpus is not None:
        print(f"# pinned: servers on CPU {sorted(server_cpus)}, load on CPUs {sorted(load_cpus)}")
    keys = traffic.new_keys()
    with tempfile.TemporaryDirectory(prefix="tienlen-load-") as tmp:
        workdir = Path(tmp)
        trace = workdir / "trace.pickle"
        games = traffic.record(args.games, keys, mode=args.mode, match_games=args.match_games)
        traffic.save(games, trace)
        unit = "games" if args.match_games == 1 else f"matches of {args.match_games} games"
        sizes = ", ".join(
            f"{m} {req:.0f} B -> {resp:.0f} B" for m, (req, resp, _) in traffic.sizes(games).items()
        )
        calls = sum(len(g) for g in games)
        print(
            f"# {args.games} recorded {unit}, {calls / args.games:.0f} calls each"
            f" ({args.mode}): {sizes}"
        )
        print(
            f"# {args.clients} load processes x {args.channels} connections; {args.warmup:g} s warm-up"
            f" + {args.seconds:g} s per point; {args.rounds} round(s); server log level {args.log_level}"
        )
        started: list[Running] = []
        points: dict[tuple[str, int], list[Point]] = collections.defaultdict(list)
        try:
            started.extend(
                start_target(
                    t,
                    keys=keys,
                    trace=trace,
                    workdir=workdir,
                    log_level=args.log_level,
                    cpus=server_cpus,
                )
                for t in targets
            )
            print(HEADER)
            for _ in range(args.rounds):
                for c in concurrencies:
                    for running in started:
                        p = run_point(
                            running,
                            trace=trace,
                            mode=args.mode,
                            concurrency=c,
                            seconds=args.seconds,
                            warmup=args.warmup,
                            clients=args.clients,
                            channels=args.channels,
                            max_calls=args.max_calls,
                            cpus=load_cpus,
                        )
                        points[p.target, c].append(p)
                        print(row(p), flush=True)
        finally:
            for running in started:
                running.stop()
        summary = [median_points(ps) for ps in points.values()]
        if args.rounds > 1:
            print(f"\n# medians over {args.rounds} rounds")
            print(HEADER)
            for p in sorted(summary, key=lambda p: (p.concurrency, p.target)):
                print(row(p))
        if args.mode == "full":
            print("\n# p50 ms per method")
            for p in sorted(summary, key=lambda p: (p.concurrency, p.target)):
                per = "  ".join(f"{m} {v:.2f}" for m, v in p.method_p50_ms.items())
                print(f"{p.target:<18}{p.concurrency:>5}  {per}")
        multi = [p for p in summary if len(p.server_cpu_split) > 1]
        for p in multi:
            split = " / ".join(f"{x:.2f}" for x in p.server_cpu_split)
            print(f"# {p.target} at {p.concurrency}: CPU s per process {split}")
        lines = ratios(summary, [b for b in args.baselines.split(",") if b])
        if lines:
            print("\n# ratios (target / baseline)")
            print("\n".join(lines))
        print(f"# end: load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
        if args.json:
            args.json.write_text(
                json.dumps([asdict(p) for ps in points.values() for p in ps], indent=1)
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
