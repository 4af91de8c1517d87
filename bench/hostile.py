"""One hostile client against a replica's web port: does the gRPC port keep serving?

Starts a replica (`python -m tienlen_service`, loopback only) with its open-file limit set
to `--fds` (soft and hard: it cannot raise it), then, from this one process:

1. **before**: gRPC health and the p50 latency of a normal ApplyMove (`--calls` calls);
2. **slowloris**: `--slowloris` connections to the web port, each sending a request's first
   line and then one more header byte every `--trickle` seconds (never the end of the head);
   gRPC health and ApplyMove p50 measured while they trickle;
3. **header flood**: `--flood` connections at once, each sending one header of `--flood-mib`
   MiB; measured during it, with the replica's resident memory;
4. **after**: everything closed; how long until gRPC health answers SERVING again, and p50;
5. **drain**: the slowloris again, then SIGTERM: seconds until the replica exits (its
   `--grace` is 10 s).

Prints one line per phase, plus what the replica refused (/metrics) and how many log lines it
wrote. Figures, not a test (tests/bench/test_bench_smoke.py runs it with tiny counts):

    nice -n 10 .venv/bin/python bench/hostile.py                  # 1,024 fds, 1,000 half-sent requests
    .venv/bin/python bench/hostile.py --slowloris 20 --flood 2 --calls 20 --trickle 0.2
"""

from __future__ import annotations

import argparse
import base64
import json
import resource
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tienlen.v1 import service_pb2, service_pb2_grpc  # noqa: E402

HEALTH_TIMEOUT = 2.0
_HEAD = b"POST /tienlen.v1.TienLenEngine/ApplyMove HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Replica:
    """The replica under test, with a fixed open-file limit; its log lines counted."""

    def __init__(self, fds: int, extra: list[str]) -> None:
        self.grpc_port, self.web_port, self.metrics_port = free_port(), free_port(), free_port()
        key = "bench:" + base64.urlsafe_b64encode(secrets.token_bytes(32)).decode().rstrip("=")

        def limit() -> None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (fds, fds))

        self.proc = subprocess.Popen(
            [
                sys.executable, "-m", "tienlen_service", "--host", "127.0.0.1",
                "--port", str(self.grpc_port), "--web-port", str(self.web_port),
                "--metrics-port", str(self.metrics_port), "--keys", key,
                "--log-format", "json", *extra,
            ],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            preexec_fn=limit,  # noqa: PLW1509 - only setrlimit, before exec
        )  # fmt: skip
        self.lines = 0
        self.bytes = 0
        self.notable: list[str] = []  # warnings and errors, and the shutdown's lines
        self.serving: dict[str, Any] = {}
        self._serving = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        if not self._serving.wait(60):
            raise SystemExit("the replica did not start")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines += 1
            self.bytes += len(line)
            try:
                record = json.loads(line)
            except ValueError:
                self.notable.append(line.decode(errors="replace")[:200])
                continue
            if record.get("event") == "serving":
                self.serving = record
                self._serving.set()
            elif record.get("level") in {"warning", "error"} or record.get("event") in {
                "shutdown_requested",
                "draining",
                "streams_closed",
                "stopped",
            }:
                self.notable.append(line.decode(errors="replace")[:300])

    def metric(self, name: str) -> dict[str, float]:
        """One metric's samples from /metrics ({} when the exporter does not answer: a replica
        out of file descriptors can't accept its scrape either)."""
        try:
            with urllib.request.urlopen(
                f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=10
            ) as page:
                text = page.read().decode()
        except OSError:
            return {}
        out: dict[str, float] = {}
        for line in text.splitlines():
            if line.startswith(name):
                key, _, value = line.rpartition(" ")
                out[key[len(name) :] or "-"] = float(value)
        return out


class Game:
    """A normal gRPC client: one dealt game, ApplyMove of the same legal lead, timed."""

    def __init__(self, port: int) -> None:
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self.stub = service_pb2_grpc.TienLenEngineStub(self.channel)
        self.health = health_pb2_grpc.HealthStub(self.channel)
        game = self.stub.NewGame(service_pb2.NewGameRequest(players=4, seed=7), timeout=10).game
        seat = game.to_act
        moves = self.stub.ListLegalMoves(
            service_pb2.ListLegalMovesRequest(state_token=game.state_token, seat=seat),
            timeout=10,
        )
        self.request = service_pb2.ApplyMoveRequest(
            state_token=game.state_token, seat=seat, move=moves.moves[-1].move
        )

    def health_status(self) -> str:
        try:
            answer = self.health.Check(health_pb2.HealthCheckRequest(), timeout=HEALTH_TIMEOUT)
        except grpc.RpcError as exc:
            return exc.code().name
        return str(health_pb2.HealthCheckResponse.ServingStatus.Name(answer.status))

    def p50_ms(self, calls: int) -> tuple[float, int]:
        """The median ApplyMove latency (ms) over `calls` calls, and how many failed."""
        times: list[float] = []
        failed = 0
        for _ in range(calls):
            start = time.perf_counter()
            try:
                self.stub.ApplyMove(self.request, timeout=5)
            except grpc.RpcError:
                failed += 1
                continue
            times.append((time.perf_counter() - start) * 1000)
        return (statistics.median(times) if times else float("nan")), failed


class Slowloris:
    """`count` half-sent requests, one more byte each every `trickle` seconds; a connection
    the server closes is opened again at the next byte (the attacker keeps `count` open)."""

    def __init__(self, port: int, count: int, trickle: float) -> None:
        self._port = port
        self.socks: list[socket.socket] = []
        self.failed_connects = 0
        self.closed_by_server = 0
        for _ in range(count):
            self._open()
        self._count = count
        self._stop = threading.Event()
        self._trickle = trickle
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _open(self) -> None:
        try:
            sock = socket.create_connection(("127.0.0.1", self._port), timeout=2)
            sock.sendall(_HEAD)
        except OSError:
            self.failed_connects += 1
            return
        sock.setblocking(False)
        self.socks.append(sock)

    def _run(self) -> None:
        while not self._stop.wait(self._trickle):
            self.socks = [sock for sock in self.socks if self._trickle_one(sock)]
            for _ in range(self._count - len(self.socks)):
                if self._stop.is_set():
                    break
                self._open()

    def _trickle_one(self, sock: socket.socket) -> bool:
        """One more byte; False (and closed) when the server answered or closed it."""
        try:
            sock.recv(1, socket.MSG_PEEK)  # anything, or the end: the server let it go
        except BlockingIOError:
            try:
                sock.send(b"a")
            except OSError:
                pass
            else:
                return True
        except OSError:
            pass
        self.closed_by_server += 1
        sock.close()
        return False

    def hold(self, seconds: float) -> None:
        """Keep trickling for `seconds` (past the server's read deadline)."""
        self._stop.wait(seconds)

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        for sock in self.socks:
            sock.close()


def recovery(game: Game) -> float:
    """Seconds from now until gRPC health answers SERVING (each try waits for its answer)."""
    start = time.perf_counter()
    for _ in range(1000):
        if game.health_status() == "SERVING":
            break
    return round(time.perf_counter() - start, 3)


def header_flood(port: int, count: int, mib: int) -> int:
    """`count` connections at once, each one header of `mib` MiB; how many the server cut
    short (closed before the header was sent whole)."""
    cut = [0]
    lock = threading.Lock()

    def one() -> None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                sock.sendall(_HEAD)
                chunk = b"a" * 65536
                for _ in range(mib * 16):
                    sock.sendall(chunk)
                sock.sendall(b"\r\n\r\n")
                sock.recv(1024)
        except OSError:
            with lock:
                cut[0] += 1

    threads = [threading.Thread(target=one) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return cut[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fds", type=int, default=1024, help="the replica's open-file limit")
    parser.add_argument("--slowloris", type=int, default=1000, help="half-sent requests")
    parser.add_argument("--trickle", type=float, default=1.0, help="seconds between bytes")
    parser.add_argument("--flood", type=int, default=8, help="connections of the header flood")
    parser.add_argument("--flood-mib", type=int, default=32, help="MiB of each flood header")
    parser.add_argument(
        "--hold",
        type=float,
        default=12.0,
        help="seconds the slowloris goes on (past --web-read-timeout)",
    )
    parser.add_argument("--calls", type=int, default=200, help="ApplyMove calls per phase")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args, extra = parser.parse_known_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # this client needs its sockets

    replica = Replica(args.fds, extra)
    game = Game(replica.grpc_port)
    figures: dict[str, Any] = {"open_files": replica.serving.get("open_files"),
                               "web_max_connections": replica.serving.get("web_max_connections")}  # fmt: skip

    def phase(name: str) -> None:
        health = game.health_status()
        p50, failed = game.p50_ms(args.calls)
        figures[name] = {"health": health, "p50_ms": round(p50, 3), "failed": failed}
        print(f"{name:<14} health={health:<18} ApplyMove p50={p50:7.3f} ms  failed={failed}")

    print(
        f"replica: open files {figures['open_files']}, web connection cap "
        f"{figures['web_max_connections']}"
    )
    phase("before")
    loris = Slowloris(replica.web_port, args.slowloris, args.trickle)
    figures["slowloris_held"] = len(loris.socks)
    phase("slowloris")
    loris.hold(args.hold)
    phase("slowloris late")
    loris.close()
    figures["slowloris_recovery_s"] = recovery(game)
    phase("after slowloris")
    rss_before = replica.metric("process_resident_memory_bytes").get("-", 0.0)
    flood_box: dict[str, int] = {}
    flood = threading.Thread(
        target=lambda: flood_box.update(
            cut=header_flood(replica.web_port, args.flood, args.flood_mib)
        )
    )
    flood.start()
    phase("header flood")
    flood.join()
    rss_after = replica.metric("process_resident_memory_bytes").get("-", 0.0)
    figures["flood_recovery_s"] = recovery(game)
    phase("after")
    refused = replica.metric("tienlen_web_connections_refused_total")
    figures["refused"] = {k.split('"')[1]: v for k, v in refused.items() if '"' in k}
    figures["flood_cut"] = flood_box.get("cut", 0)
    figures["rss_mib"] = [round(rss_before / 2**20), round(rss_after / 2**20)]
    print(
        f"slowloris: {args.slowloris} kept open ({loris.closed_by_server} answered and closed by "
        f"the server, {loris.failed_connects} connects failed); health SERVING "
        f"{figures['slowloris_recovery_s']} s after it stopped"
    )
    print(
        f"header flood: {figures['flood_cut']} of {args.flood} x {args.flood_mib} MiB cut short; "
        f"RSS {figures['rss_mib'][0]} -> {figures['rss_mib'][1]} MiB; health SERVING "
        f"{figures['flood_recovery_s']} s after it"
    )
    print(f"refused by reason: {figures['refused']}")

    loris = Slowloris(replica.web_port, args.slowloris, args.trickle)
    start = time.perf_counter()
    replica.proc.send_signal(signal.SIGTERM)
    code = replica.proc.wait(timeout=60)
    figures["sigterm_exit_s"] = round(time.perf_counter() - start, 3)
    figures["exit_code"] = code
    loris.close()
    figures["log_lines"] = replica.lines
    figures["log_bytes"] = replica.bytes
    for line in replica.notable[-12:]:
        print("  log:", line.strip())
    print(
        f"SIGTERM with {args.slowloris} half-sent requests open: exit {code} after "
        f"{figures['sigterm_exit_s']} s; the replica wrote {replica.lines} log lines "
        f"({replica.bytes} bytes)"
    )
    game.channel.close()
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2))
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    return 0 if code == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
