"""Hostile work against one replica: crafted hints and held streams; does health stay fast?

Starts a replica (bench/hostile.py's `Replica`: `python -m tienlen_service` on loopback, the
default 2 workers), then, from this one process, in one run:

1. **worst-case hint cost per bot**: for every bot and difficulty level, the median time of a
   SuggestMove on each crafted position over its median on an ordinary opening (NewGame seed 4),
   as a ratio. The crafted positions are what anyone can set up with ReplayGame (no key): a
   Đấu game without instant wins whose seat 0 leads 3S-AS plus 6C-JC ("long straight": a 12-card
   straight that 34 unseen cards could beat half a million ways) or the 18 cards that form the
   most combinations, 5,139 ("most plays"). The same positions are timed on the engine alone
   (`tienlen_rules.suggest`, the most CPU one hint took, nothing remembered from an earlier
   one), the figures docs/BOTS.md quotes.
2. **health under hostile work**: gRPC health's median latency on the idle replica; then with
   every stream slot held by an idle PlayStream, `--hinters` clients sending crafted hints in a
   loop (greedy, random and easy on the long straight, 300 ms deadlines) and `--searchers`
   clients sending montecarlo hints: health's median and worst latency meanwhile, and their
   ratios to idle.

Figures, not a test (tests/bench/test_bench_smoke.py runs it with tiny counts):

    nice -n 10 .venv/bin/python bench/hostile_work.py
    .venv/bin/python bench/hostile_work.py --repeat 3 --checks 30 --json /tmp/work.json
"""

from __future__ import annotations

import argparse
import itertools
import json
import queue
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hostile import Replica  # noqa: E402 - bench/ is not a package: its sibling script

import tienlen_rules as engine  # noqa: E402
from tienlen.v1 import cards_pb2, record_pb2, rules_pb2, service_pb2, service_pb2_grpc  # noqa: E402
from tienlen_service import codec  # noqa: E402

POSITIONS = {
    "long straight": "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 6C 7C 8C 9C 10C JC",
    "most plays": "6S 6D 6H 7S 7C 7D 7H 8S 8C 8D 8H 9S 9C 9D 9H 10S 10D 10H",
}
BOTS = [*engine.BOTS, *(lv.name for lv in engine.LEVELS if lv.name not in engine.BOTS)]
CHEAP_HINTS = ("greedy", "random", "easy")
HINT_DEADLINE = 0.3


def crafted_record(hand: str) -> record_pb2.GameRecord:
    """A Đấu game (no instant wins) dealt with seat 0 holding `hand` (18 cards), seat 0 to lead."""
    own = engine.parse_set(hand)
    rest = [c for c in range(52) if not own >> c & 1]
    hands = [own, sum(1 << c for c in rest[0::2]), sum(1 << c for c in rest[1::2])]
    return record_pb2.GameRecord(
        rules=rules_pb2.RuleSetSpec(variant="dau", options={"instant_wins": "none"}),
        players=3,
        dealer=0,
        leader=0,
        first_game=False,
        hands=[
            cards_pb2.Hand(cards=[codec.card_from_text(t) for t in engine.format_cards(h).split()])
            for h in hands
        ],
    )


def crafted_state(hand: str, suits: tuple[int, ...] = (0, 1, 2, 3)) -> engine.GameState:
    """The crafted position in-process, its suits renamed by `suits` (the same position to
    every bot, but no plan the engine remembers from another renaming fits it)."""
    own = sum(1 << (c & ~3 | suits[c & 3]) for c in engine.parse_cards(hand))
    rest = [c for c in range(52) if not own >> c & 1]
    hands = (own, sum(1 << c for c in rest[0::2]), sum(1 << c for c in rest[1::2]))
    rules = engine.build_rules("dau", {"instant_wins": "none"})
    return engine.new_game(rules, 3, hands=hands, leader=0, first_game=False)[0]


class Client:
    """One channel to the replica, with the positions it plays."""

    def __init__(self, port: int) -> None:
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self.stub = service_pb2_grpc.TienLenEngineStub(self.channel)
        self.health = health_pb2_grpc.HealthStub(self.channel)
        ordinary = self.stub.NewGame(service_pb2.NewGameRequest(seed=4), timeout=10).game
        self.positions = {"ordinary": (ordinary.state_token, ordinary.to_act)}
        for name, hand in POSITIONS.items():
            request = service_pb2.ReplayGameRequest(record=crafted_record(hand))
            replayed = self.stub.ReplayGame(request, timeout=10).game
            self.positions[name] = (replayed.state_token, replayed.to_act)

    def hint_ms(self, position: str, bot: str, timeout: float = 60.0) -> float:
        token, seat = self.positions[position]
        request = service_pb2.SuggestMoveRequest(state_token=token, seat=seat, bot=bot)
        start = time.perf_counter()
        try:
            self.stub.SuggestMove(request, timeout=timeout)
        except grpc.RpcError as exc:
            if exc.code() not in (
                grpc.StatusCode.DEADLINE_EXCEEDED,
                grpc.StatusCode.RESOURCE_EXHAUSTED,
            ):
                raise
        return (time.perf_counter() - start) * 1000

    def health_ms(self) -> float:
        start = time.perf_counter()
        self.health.Check(health_pb2.HealthCheckRequest(), timeout=30)
        return (time.perf_counter() - start) * 1000


def hint_costs(client: Client, bots: list[str], repeat: int) -> dict[str, dict[str, float]]:
    """Per bot: the median ms of each position, and each crafted one's ratio to the ordinary."""
    out: dict[str, dict[str, float]] = {}
    for bot in bots:
        row = {
            name: statistics.median(client.hint_ms(name, bot) for _ in range(repeat))
            for name in ("ordinary", *POSITIONS)
        }
        row["worst ratio"] = max(row[name] / row["ordinary"] for name in POSITIONS)
        out[bot] = row
        cells = "  ".join(f"{name} {row[name]:8.2f} ms" for name in ("ordinary", *POSITIONS))
        print(f"hint {bot:<11} {cells}  worst/ordinary {row['worst ratio']:7.1f}x")
    return out


def engine_worst_ms(bots: list[str], repeat: int) -> dict[str, list[float]]:
    """Per bot, [the median CPU ms of a hint on the ordinary opening, the most one hint took on
    the crafted positions] (`time.process_time`: a loaded machine slows it less than wall
    time), each bot in a process of its own and each crafted hint on a suit renaming of the
    position no earlier hint used: nothing remembered helps."""
    worst: dict[str, list[float]] = {}
    for bot in bots:
        child = subprocess.run(
            [sys.executable, __file__, "--engine-child", bot, "--repeat", str(repeat)],
            capture_output=True,
            text=True,
            check=True,
        )
        worst[bot] = [float(x) for x in child.stdout.split()[-2:]]
        print(
            f"engine {bot:<11} CPU per hint: opening {worst[bot][0]:8.2f} ms, worst crafted"
            f" {worst[bot][1]:8.2f} ms"
        )
    return worst


def engine_child(bot: str, repeat: int) -> tuple[float, float]:
    """`engine_worst_ms` for one bot, in this (fresh) process: the opening first (which also
    warms what any hint imports or builds once), then the crafted positions."""
    opening, _ = engine.new_game(engine.build_rules("southern"), 4, seed=4)
    times = []
    for seed in range(repeat):
        start = time.process_time()
        engine.suggest(opening, opening.to_act, bot, seed=seed)
        times.append((time.process_time() - start) * 1000)
    renamings = itertools.permutations(range(4))
    most = 0.0
    for hand in POSITIONS.values():
        for seed in range(repeat):
            state = crafted_state(hand, next(renamings))
            start = time.process_time()
            engine.suggest(state, 0, bot, seed=seed)
            most = max(most, (time.process_time() - start) * 1000)
    return statistics.median(times), most


def health_under_attack(port: int, args: argparse.Namespace, streams: int) -> dict[str, Any]:
    """Health's latency idle, then while streams are held and crafted hints run."""
    probe = Client(port)
    idle = [probe.health_ms() for _ in range(args.checks)]
    stop = threading.Event()
    held: list[Any] = []
    for _ in range(streams):  # every stream slot, held by a stream that sends nothing
        requests: queue.Queue[service_pb2.PlayStreamRequest | None] = queue.Queue()
        held.append((requests, probe.stub.PlayStream(iter(requests.get, None))))
    sent = {"hints": 0}
    ready = threading.Semaphore(0)

    def hinter(bots: tuple[str, ...], deadline: float) -> None:
        client = Client(port)
        ready.release()
        while not stop.is_set():
            for bot in bots:
                sent["hints"] += 1  # counted as sent: the call is under way
                client.hint_ms("long straight", bot, timeout=deadline)
        client.channel.close()

    workers = [
        threading.Thread(target=hinter, args=(CHEAP_HINTS, HINT_DEADLINE))
        for _ in range(args.hinters)
    ] + [
        threading.Thread(target=hinter, args=(("montecarlo",), 10.0)) for _ in range(args.searchers)
    ]
    for worker in workers:
        worker.start()
    for _ in workers:  # every attacker has its positions and is about to send
        ready.acquire()
    busy = [probe.health_ms() for _ in range(args.checks)]
    stop.set()
    for worker in workers:
        worker.join()
    for requests, call in held:
        requests.put(None)
        call.cancel()
    probe.channel.close()
    figures = {
        "idle_p50_ms": round(statistics.median(idle), 3),
        "attack_p50_ms": round(statistics.median(busy), 3),
        "attack_max_ms": round(max(busy), 3),
        "hints_sent": sent["hints"],
        "streams_held": streams,
    }
    figures["p50_ratio"] = round(figures["attack_p50_ms"] / figures["idle_p50_ms"], 2)
    figures["max_ratio"] = round(figures["attack_max_ms"] / figures["idle_p50_ms"], 2)
    print(
        f"health idle p50 {figures['idle_p50_ms']:.3f} ms; with {streams} streams held, "
        f"{args.hinters} crafted hinters and {args.searchers} searchers "
        f"({sent['hints']} hints): p50 {figures['attack_p50_ms']:.3f} ms "
        f"({figures['p50_ratio']}x), max {figures['attack_max_ms']:.3f} ms "
        f"({figures['max_ratio']}x)"
    )
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed hints per bot and position")
    parser.add_argument("--checks", type=int, default=200, help="health checks per phase")
    parser.add_argument("--hinters", type=int, default=4, help="clients sending crafted hints")
    parser.add_argument("--searchers", type=int, default=2, help="clients sending montecarlo")
    parser.add_argument("--bots", default=",".join(BOTS), help="the bots and levels to time")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--engine-child", help=argparse.SUPPRESS)  # one bot's engine timing
    args, extra = parser.parse_known_args()
    if args.engine_child:
        print(*engine_child(args.engine_child, min(args.repeat, 12)))
        return 0
    replica = Replica(1024, extra)
    try:
        client = Client(replica.grpc_port)
        workers = int(replica.serving.get("workers", 2))
        figures: dict[str, Any] = {"workers": workers}
        bots = [b.strip() for b in args.bots.split(",") if b.strip()]
        figures["hints"] = hint_costs(client, bots, args.repeat)
        client.channel.close()
        figures["health"] = health_under_attack(replica.grpc_port, args, workers // 2)
        figures["engine_worst_ms"] = engine_worst_ms(bots, args.repeat)
    finally:
        replica.proc.terminate()
        replica.proc.wait(timeout=60)
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
