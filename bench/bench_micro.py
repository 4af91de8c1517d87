"""Micro-benchmarks of everything a call does, in-process, no gRPC: median and p99 µs per op.

    python bench/bench_micro.py                 # quick (~20 s)
    python bench/bench_micro.py --games 400 --samples 20000

Sections: the engine (classify, validate, apply, legal moves for 13- and 18-card hands with
the worst cases, settlement, random self-play games per CPU second), the state token
(sign/verify, seal/open), the codec (state encode/decode, events, views), the servicer
(ApplyMove, ValidateMove, ListLegalMoves, GetView from request bytes to response bytes, as
grpc calls them) with ApplyMove split into its steps, and our interceptor's cost per call.
Inputs are states of seeded random games, so the figures cover the spread of real positions.
Each op is timed one call at a time; a baseline (an empty call) is printed for scale.
Not a test: these machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import functools
import io
import os
import platform
import random
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import grpc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # noqa: PTH100, PTH120

import traffic
from bench_engine import collect
from bench_movegen import WORST_13, WORST_18

import tienlen_rules as engine
from tienlen.v1 import game_pb2, service_pb2
from tienlen_rules import SPECTATOR, GameState, Move, build_rules, classify, parse_set, settle, view
from tienlen_service import codec
from tienlen_service.logs import DEFAULT_LOG_SAMPLE, AccessLog, configure_logging
from tienlen_service.metrics import Metrics
from tienlen_service.observability import CallObserver
from tienlen_service.state_cache import StateCache
from tienlen_service.tokens import KeyRing, TokenCodec

Row = tuple[str, float, float, int, str]


def timed(
    fn: Callable[..., object],
    args: Sequence[tuple[Any, ...]],
    limit: int,
    between: Callable[[], object] | None = None,
) -> tuple[float, float, int]:
    """Median and p99 µs of one call per argument tuple (at most `limit` calls, spread);
    `between` runs before each call, untimed."""
    if len(args) > limit:
        step = len(args) / limit
        args = [args[int(i * step)] for i in range(limit)]
    clock = time.perf_counter_ns
    samples = []
    for a in args:
        if between is not None:
            between()
        start = clock()
        fn(*a)
        samples.append(clock() - start)
    samples.sort()
    return samples[len(samples) // 2] / 1000, samples[int(len(samples) * 0.99)] / 1000, len(samples)


def self_play_rate(games: int) -> tuple[float, float]:
    """Random-bot 4-player Southern games per CPU second (legal moves, pick, apply, settle)."""
    rules = build_rules("southern")
    moves = 0
    cpu = time.process_time()
    for seed in range(games):
        rng = random.Random(seed)
        state, _ = engine.new_game(rules, 4, seed=seed)
        while not state.over:
            state, _ = engine.apply(state, rng.choice(engine.legal_moves(state, state.to_act)))
            moves += 1
        settle(state)
    elapsed = time.process_time() - cpu
    return games / elapsed, moves / games


class HappyContext:
    """A ServicerContext for the happy path (the interceptor reads metadata and the code)."""

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return ()

    def code(self) -> None:
        return None

    def is_active(self) -> bool:
        return True

    def abort_with_status(self, status: object) -> None:
        raise RuntimeError(status)


def engine_rows(args: argparse.Namespace) -> list[Row]:
    rules = build_rules()
    pairs, finals = collect("southern", 4, args.games)
    plays = [(s, m) for s, m in pairs if not m.is_pass]
    masks = [(sum(1 << c for c in m.cards), rules) for _, m in plays]
    leads13 = [
        (s, s.to_act) for s, _ in pairs if s.table is None and s.hands[s.to_act].bit_count() == 13
    ]
    dau = build_rules("dau")
    dau_pairs, _ = collect("dau", 3, max(10, args.games // 4))
    n = args.samples
    rows: list[Row] = [
        ("classify a play", *timed(classify, masks, n), "≤ 5"),
        ("validate a move", *timed(engine.validate, pairs, n), "≤ 10"),
        ("apply a move", *timed(engine.apply, pairs, n), "≤ 15"),
        (
            "legal moves, seat to act",
            *timed(lambda s, _m: engine.legal_moves(s, s.to_act), pairs, n),
            "≤ 40",
        ),
        ("legal moves, 13-card lead", *timed(engine.legal_moves, leads13, n), "≤ 40"),
    ]
    for name, text in WORST_13.items():
        hand = parse_set(text)
        rows.append(
            (
                f"  13 worst: {name}",
                *timed(engine.combination_list, [(hand, rules)] * 200, n),
                "≤ 40",
            )
        )
    rows.append(
        (
            "legal moves, Đấu 18 cards",
            *timed(lambda s, _m: engine.legal_moves(s, s.to_act), dau_pairs, n),
            "-",
        )
    )
    for name, text in WORST_18.items():
        hand = parse_set(text)
        rows.append(
            (f"  18 worst: {name}", *timed(engine.combination_list, [(hand, dau)] * 50, n), "-")
        )
    rows.append(("settle a finished game", *timed(settle, [(f,) for f in finals], n), "-"))
    return rows


def token_rows(args: argparse.Namespace, payloads: list[bytes]) -> list[Row]:
    ring = KeyRing.generate()
    signed, sealed = TokenCodec(ring, seal=False), TokenCodec(ring, seal=True)
    signed_tokens = [(signed.encode(p),) for p in payloads]
    sealed_tokens = [(sealed.encode(p),) for p in payloads]
    n = args.samples
    return [
        ("token sign", *timed(signed.encode, [(p,) for p in payloads], n), "-"),
        ("token verify", *timed(signed.decode, signed_tokens, n), "-"),
        ("token seal (sign + AES-GCM)", *timed(sealed.encode, [(p,) for p in payloads], n), "-"),
        ("token open", *timed(sealed.decode, sealed_tokens, n), "-"),
    ]


def codec_rows(args: argparse.Namespace, pairs: list[tuple[GameState, Move]]) -> list[Row]:
    gid = os.urandom(16)
    payloads = [(codec.encode_state(s, gid),) for s, _ in pairs]
    decode = codec.decode_state  # uncached: a token made by another replica
    cache = StateCache()

    def hit(token: bytes) -> tuple[GameState, bytes]:
        return cache.decode(token, bytes)  # a stand-in verify: only the first call runs it

    stepped = [engine.apply(s, m) for s, m in pairs]
    later = _second_games(max(4, args.games // 8))
    n = args.samples
    return [
        ("state encode", *timed(codec.encode_state, [(s, gid) for s, _ in pairs], n), "-"),
        (
            "  the same, in game 2 of a match",
            *timed(codec.encode_state, [(s, gid) for s in later], n),
            "-",
        ),
        ("state decode (uncached)", *timed(decode, payloads, n), "-"),
        (
            "state decode (cache hit, no verify)",
            *timed(hit, _warm(hit, payloads[:500]), n),
            "-",
        ),
        ("events -> wire bytes", *timed(codec.events_to_wire, [(e,) for _, e in stepped], n), "-"),
        (
            "spectator view -> wire bytes",
            *timed(
                lambda s: codec.view_to_wire(view(s, SPECTATOR), s), [(s,) for s, _ in stepped], n
            ),
            "-",
        ),
        (
            "  the same, in game 2 of a match",
            *timed(lambda s: codec.view_to_wire(view(s, SPECTATOR), s), [(s,) for s in later], n),
            "-",
        ),
    ]


def _second_games(matches: int) -> list[GameState]:
    """Every state of the second game of seeded random 4-player Southern matches: the seats'
    match totals are not zero there (some negative), unlike in the first game."""
    rules = build_rules("southern")
    states: list[GameState] = []
    for seed in range(matches):
        rng = random.Random(seed)
        state, _ = engine.new_game(rules, 4, seed=seed)
        for number in range(2):
            if number:
                state, _ = engine.next_game(state, seed=seed + 1000)
            while not state.over:
                state, _ = engine.apply(state, rng.choice(engine.legal_moves(state, state.to_act)))
                if number:
                    states.append(state)
    return states


def _warm(fn: Callable[..., object], args: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    for a in args:
        fn(*a)
    return args


def servicer_rows(args: argparse.Namespace) -> tuple[list[Row], list[Row]]:
    keys = traffic.new_keys()
    svc = traffic.servicer(keys)
    full = traffic.record(max(4, args.games // 8), keys, mode="full")
    calls = [c for g in full for c in g]
    ctx: Any = HappyContext()
    n = args.samples
    plan = {
        "ApplyMove": (service_pb2.ApplyMoveRequest, svc.ApplyMove),
        "ValidateMove": (service_pb2.ValidateMoveRequest, svc.ValidateMove),
        "ListLegalMoves": (service_pb2.ListLegalMovesRequest, svc.ListLegalMoves),
    }
    states = svc._states  # noqa: SLF001
    rows: list[Row] = []
    for method, (message, fn) in plan.items():
        reqs = [(c.request,) for c in calls if c.method == method]

        def rpc(data: bytes, message: Any = message, fn: Any = fn) -> bytes:
            states.clear()  # the token was made by another replica: decoded in full
            out: bytes = fn(message.FromString(data), ctx).SerializeToString()
            return out

        rows.append((f"{method} (bytes -> bytes)", *timed(rpc, reqs, n), "-"))
    # A game's moves in order on one replica (a PlayStream, a sticky balancer): each token
    # is the one this servicer made for the previous move, so it is in its state cache.
    for label, wanted in (
        ("ApplyMove, this replica's last token", game_pb2.UPDATE_VIEW_UNSPECIFIED),
        ("  the same, UPDATE_VIEW_BASIC", game_pb2.UPDATE_VIEW_BASIC),
    ):

        def apply_in_order(data: bytes, wanted: game_pb2.UpdateView.ValueType = wanted) -> bytes:
            request = service_pb2.ApplyMoveRequest.FromString(data)
            request.view = wanted
            out: bytes = svc.ApplyMove(request, ctx).SerializeToString()
            return out

        states.clear()
        applies = [(c.request,) for c in calls if c.method == "ApplyMove"]
        rows.append((label, *timed(apply_in_order, applies, n), "-"))
    # The same calls with the CPU caches cold, as in a loaded server, where the gRPC core, the
    # other threads and other processes run between two calls: each call is preceded by a
    # walk over unrelated Python objects (bench/README.md §5).
    states.clear()
    applies = [(c.request,) for c in calls if c.method == "ApplyMove"]
    rows.append(
        (
            "ApplyMove, in order, caches cold",
            *timed(apply_in_order, applies, min(n, 400), between=_evict_caches),
            "-",
        )
    )
    views = [(c.request,) for c in calls if c.method == "ApplyMove"]

    def get_view(data: bytes) -> bytes:
        apply = service_pb2.ApplyMoveRequest.FromString(data)
        req = service_pb2.GetViewRequest(state_token=apply.state_token, seat=apply.seat)
        out: bytes = svc.GetView(req, ctx).SerializeToString()
        return out

    rows.append(("GetView (seat)", *timed(get_view, views, n), "-"))
    return rows, apply_steps(svc, [c for c in calls if c.method == "ApplyMove"], n)


@functools.cache
def _ballast() -> list[dict[str, Any]]:
    return [{"n": i, "s": str(i)} for i in range(200_000)]


def _evict_caches() -> None:
    """Walk ~30,000 of 200,000 unrelated Python objects: what other processes and the gRPC
    core do to the CPU caches between two calls of a loaded server."""
    for item in _ballast()[::7]:
        item["n"] += 1


def apply_steps(svc: Any, calls: list[traffic.Call], n: int) -> list[Row]:
    """ApplyMove taken apart, step by step, as the servicer runs it."""
    tokens = svc._tokens  # noqa: SLF001
    update = svc._update  # noqa: SLF001
    count_events = svc._counts.step  # noqa: SLF001
    reqs = [service_pb2.ApplyMoveRequest.FromString(c.request) for c in calls]
    payloads = [tokens.decode(r.state_token) for r in reqs]
    decode = codec.decode_state
    decoded = [decode(p) for p in payloads]
    moves = [codec.move_from_pb(r.move, r.seat) for r in reqs]
    stepped = [engine.apply(s, m) for (s, _), m in zip(decoded, moves, strict=True)]

    def respond(s: GameState, e: Any, g: bytes) -> service_pb2.ApplyMoveResponse:
        response = service_pb2.ApplyMoveResponse()
        update(response.game, s, g, e, applied=True)
        return response

    responses = [respond(s, e, gid) for (s, e), (_, gid) in zip(stepped, decoded, strict=True)]
    enc = [(s, gid) for (s, _), (_, gid) in zip(stepped, decoded, strict=True)]
    return [
        (
            "1 parse request",
            *timed(service_pb2.ApplyMoveRequest.FromString, [(c.request,) for c in calls], n),
            "-",
        ),
        ("2 verify token", *timed(tokens.decode, [(r.state_token,) for r in reqs], n), "-"),
        ("3 decode state", *timed(decode, [(p,) for p in payloads], n), "-"),
        ("4 move from pb", *timed(codec.move_from_pb, [(r.move, r.seat) for r in reqs], n), "-"),
        (
            "5 engine apply",
            *timed(engine.apply, list(zip((s for s, _ in decoded), moves, strict=True)), n),
            "-",
        ),
        ("6 encode state", *timed(codec.encode_state, enc, n), "-"),
        ("7 sign token", *timed(tokens.encode, [(codec.encode_state(*e),) for e in enc], n), "-"),
        (
            "8 events -> wire bytes",
            *timed(codec.events_to_wire, [(e,) for _, e in stepped], n),
            "-",
        ),
        (
            "9 view -> wire bytes",
            *timed(
                lambda s: codec.view_to_wire(view(s, SPECTATOR), s), [(s,) for s, _ in stepped], n
            ),
            "-",
        ),
        (
            "10 domain metrics",
            *timed(lambda s, e: count_events(s.rules, e, applied=True), stepped, n),
            "-",
        ),
        (
            "11 fill the response (6-10 + settle)",
            *timed(
                respond,
                [(s, e, g) for (s, e), (_, g) in zip(stepped, decoded, strict=True)],
                n,
            ),
            "-",
        ),
        (
            "12 serialize response",
            *timed(lambda r: r.SerializeToString(), [(r,) for r in responses], n),
            "-",
        ),
    ]


def interceptor_rows(args: argparse.Namespace) -> list[Row]:
    """Our interceptor around an empty handler: metrics only, metrics + a JSON log line per call
    (`--log-sample 1`), and the default (one successful call in 100 logged)."""
    ctx: Any = HappyContext()
    method = "/tienlen.v1.TienLenEngine/ApplyMove"
    bare = grpc.unary_unary_rpc_method_handler(lambda req, _ctx: req)
    assert bare.unary_unary is not None
    rows: list[Row] = []
    n = args.samples
    payload = [(b"x" * 200,)] * n
    rows.append(("empty handler", *timed(bare.unary_unary, [(p, ctx) for (p,) in payload], n), "-"))
    sink = io.StringIO()
    for name, log_calls, sample in (
        ("interceptor, metrics only", False, 1),
        ("interceptor, metrics + log line", True, 1),
        ("interceptor, default (log 1 in 100)", True, DEFAULT_LOG_SAMPLE),
    ):
        configure_logging("info", "json", stream=sink)
        observer = CallObserver(Metrics(), access_log=AccessLog(sample=sample), log_calls=log_calls)
        wrapped = observer.wrap(method, bare)
        assert wrapped.unary_unary is not None
        rows.append((name, *timed(wrapped.unary_unary, [(p, ctx) for (p,) in payload], n), "-"))
        sink.seek(0)
        sink.truncate()
    return rows


def print_section(title: str, rows: Sequence[Row]) -> None:
    print(f"\n{title:<40}{'median µs':>11}{'p99 µs':>10}{'calls':>8}  target")
    for name, median, p99, count, target in rows:
        print(f"{name:<40}{median:>11.2f}{p99:>10.2f}{count:>8}  {target}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=120, help="seeded random games for the inputs")
    parser.add_argument("--samples", type=int, default=4000, help="calls timed per op (at most)")
    parser.add_argument(
        "--self-play", type=int, default=300, help="games for the games/CPU-s figure"
    )
    args = parser.parse_args()
    print(
        f"# micro-benchmarks — {platform.python_implementation()} {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} cores, load average "
        f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}; {args.games} seeded games"
    )
    empty = timed(lambda: None, [()] * args.samples, args.samples)
    print(f"baseline: an empty Python call {empty[0]:.2f} µs median")
    pairs, _ = collect("southern", 4, args.games)
    print_section("engine", engine_rows(args))
    rate, per_game = self_play_rate(args.self_play)
    print(
        f"{'random self-play, 4p southern':<40}{rate:>11.0f} games per CPU second ({per_game:.0f} moves/game; target ≥ 500)"
    )
    gid = os.urandom(16)
    print_section(
        "state token (game-sized payloads)",
        token_rows(args, [codec.encode_state(s, gid) for s, _ in pairs]),
    )
    print_section("codec", codec_rows(args, pairs))
    rows, steps = servicer_rows(args)
    print_section("servicer (request bytes -> response bytes)", rows)
    print_section("ApplyMove step by step", steps)
    print_section("interceptor (per call)", interceptor_rows(args))


if __name__ == "__main__":
    main()
