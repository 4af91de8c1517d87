"""Server CPU per ApplyMove over the web port (Connect, gRPC-Web) beside the gRPC port.

    python bench/web_load.py                          # quick: ~1 min
    python bench/web_load.py --seconds 10 --rounds 3  # the figures in bench/README.md

One service process (`python -m tienlen_service`, both ports, 2 workers, JSON log line per
call) is given recorded games (bench/traffic.py: complete 4-player games, seeded). For each
round and transport, `--threads` client threads in this process replay the games' ApplyMove
requests for `--seconds`, each on one kept-alive connection:

  grpc          the gRPC port (HTTP/2), protobuf bytes: the baseline
  connect-proto the web port, Connect unary, application/proto
  connect-json  the web port, Connect unary, application/json (standard proto3 JSON in; the
                web port's JSON out: zeros kept, card text)
  grpc-web      the web port, gRPC-Web binary (application/grpc-web+proto)

Per point: calls/s, p50 latency, and the server's CPU per call (user + system time of the
process from /proc over the timed window, divided by the calls answered). The protobuf
answers are checked byte for byte against the recording (`mismatch`). The ratios to `grpc`
are what to read: the machine is shared and noisy. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final

import grpc
import traffic
from google.protobuf import json_format

from tienlen.v1 import service_pb2

if TYPE_CHECKING:
    from collections.abc import Callable

ROOT: Final = Path(__file__).resolve().parent.parent
CLK_TCK: Final = os.sysconf("SC_CLK_TCK")
TRANSPORTS: Final = ("grpc", "connect-proto", "connect-json", "grpc-web")
PATH: Final = "/tienlen.v1.TienLenEngine/ApplyMove"
STARTUP_TIMEOUT: Final = 30.0


@dataclass
class Point:
    transport: str
    calls: int = 0
    mismatch: int = 0
    errors: int = 0
    latencies: list[float] = field(default_factory=list)
    seconds: float = 0.0
    cpu: float = 0.0

    @property
    def cpu_us(self) -> float:
        return self.cpu / self.calls * 1e6 if self.calls else float("nan")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def start_server(
    keys: str, web_port: int, workers: int, log: Path
) -> tuple[subprocess.Popen[bytes], int]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TIENLEN_")}
    env["TIENLEN_KEYS"] = keys
    with log.open("wb") as out:
        proc = subprocess.Popen(  # our own interpreter and module
            [
                sys.executable, "-m", "tienlen_service", "--host", "127.0.0.1", "--port", "0",
                "--web-port", str(web_port), "--metrics-port", "0", "--workers", str(workers),
                "--log-format", "json",
            ],
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited:\n{log.read_text()[-3000:]}")
        for line in log.read_text().splitlines():
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if isinstance(record, dict) and record.get("event") == "serving":
                    return proc, int(record["port"])
        time.sleep(0.02)  # a benchmark's start-up poll (tests wait on health instead)
    raise RuntimeError("no serving line")


class Requests:
    """The recorded ApplyMove calls in each transport's encoding."""

    def __init__(self, games: list[traffic.Game]) -> None:
        calls = [c for game in games for c in game if c.method == "ApplyMove"]
        self.proto = [(c.request, c.response) for c in calls]
        self.json = [
            json_format.MessageToJson(service_pb2.ApplyMoveRequest.FromString(c.request)).encode()
            for c in calls
        ]
        self.grpc_web = [
            (b"\x00" + struct.pack(">I", len(c.request)) + c.request, c.response) for c in calls
        ]


def run_point(
    transport: str, requests: Requests, grpc_port: int, web_port: int, threads: int,
    seconds: float, pid: int,
) -> Point:  # fmt: skip
    point = Point(transport)
    lock = threading.Lock()
    stop = threading.Event()
    started = threading.Barrier(threads + 1)

    def worker(index: int) -> None:
        local = Point(transport)
        send = _sender(transport, requests, grpc_port, web_port)
        n = len(requests.proto)
        i = index * (n // threads)
        started.wait()
        try:
            while not stop.is_set():
                t0 = time.perf_counter()
                ok, same = send(i % n)
                local.latencies.append(time.perf_counter() - t0)
                local.calls += 1
                local.errors += not ok
                local.mismatch += not same
                i += 1
        finally:
            with lock:
                point.calls += local.calls
                point.errors += local.errors
                point.mismatch += local.mismatch
                point.latencies += local.latencies

    pool = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
    for t in pool:
        t.start()
    started.wait()
    cpu0, t0 = server_cpu(pid), time.monotonic()
    stop.wait(seconds)
    stop.set()
    point.cpu, point.seconds = server_cpu(pid) - cpu0, time.monotonic() - t0
    for t in pool:
        t.join()
    return point


def _sender(
    transport: str, requests: Requests, grpc_port: int, web_port: int
) -> Callable[[int], tuple[bool, bool]]:
    if transport == "grpc":
        channel = grpc.insecure_channel(f"127.0.0.1:{grpc_port}")
        call = channel.unary_unary(PATH)  # bytes in, bytes out

        def send_grpc(i: int) -> tuple[bool, bool]:
            request, expected = requests.proto[i]
            answer = call(request, timeout=10)
            return True, answer == expected

        return send_grpc
    conn = http.client.HTTPConnection("127.0.0.1", web_port, timeout=10)

    def post(body: bytes, content_type: str) -> tuple[int, bytes]:
        conn.request("POST", PATH, body=body, headers={"content-type": content_type})
        response = conn.getresponse()
        return response.status, response.read()

    if transport == "connect-proto":

        def send_proto(i: int) -> tuple[bool, bool]:
            request, expected = requests.proto[i]
            status, body = post(request, "application/proto")
            return status == 200, body == expected

        return send_proto
    if transport == "connect-json":

        def send_json(i: int) -> tuple[bool, bool]:
            status, _ = post(requests.json[i], "application/json")
            return status == 200, True  # JSON has no byte-exact recording

        return send_json

    def send_grpc_web(i: int) -> tuple[bool, bool]:
        body, expected = requests.grpc_web[i]
        status, answer = post(body, "application/grpc-web+proto")
        (length,) = struct.unpack(">I", answer[1:5])
        message, trailer = answer[5 : 5 + length], answer[5 + length :]
        return status == 200 and b"grpc-status: 0" in trailer, message == expected

    return send_grpc_web


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--threads", type=int, default=4, help="client threads (connections)")
    parser.add_argument("--workers", type=int, default=2, help="the server's --workers")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--transports", default=",".join(TRANSPORTS))
    args = parser.parse_args()
    transports = args.transports.split(",")

    keys = traffic.new_keys()
    requests = Requests(traffic.record(args.games, keys))
    web_port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        proc, grpc_port = start_server(keys, web_port, args.workers, Path(tmp) / "server.log")
        try:
            for t in transports:  # warm-up: imports, caches, connections
                run_point(t, requests, grpc_port, web_port, args.threads, 1.0, proc.pid)
            results: dict[str, list[Point]] = {t: [] for t in transports}
            for _ in range(args.rounds):
                for t in transports:
                    results[t].append(
                        run_point(
                            t, requests, grpc_port, web_port, args.threads, args.seconds, proc.pid
                        )
                    )
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    report(results, args)


def report(results: dict[str, list[Point]], args: argparse.Namespace) -> None:
    print(
        f"ApplyMove, {len(next(iter(results.values())))} rounds x {args.seconds:g} s, "
        f"{args.threads} client threads, server --workers {args.workers}"
    )
    print(f"{'transport':<14} {'calls/s':>8} {'p50 ms':>7} {'cpu µs/call':>12} "
          f"{'x grpc':>7} {'errors':>6} {'mismatch':>8}")  # fmt: skip
    base = (
        statistics.median(p.cpu_us for p in results.get("grpc", [])) if "grpc" in results else None
    )
    for transport, points in results.items():
        rate = statistics.median(p.calls / p.seconds for p in points)
        p50 = statistics.median(statistics.median(p.latencies) for p in points) * 1000
        cpu = statistics.median(p.cpu_us for p in points)
        ratio = f"{cpu / base:7.2f}" if base else "      -"
        print(
            f"{transport:<14} {rate:8.0f} {p50:7.2f} {cpu:12.0f} {ratio} "
            f"{sum(p.errors for p in points):6d} {sum(p.mismatch for p in points):8d}"
        )


if __name__ == "__main__":
    main()
