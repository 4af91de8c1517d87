"""ApplyMove in process, part by part, under callgrind: the parts the servicer calls, each in
a loop over the recorded games' moves, in one child process that switches its own counting on
and dumps after each part (instructions per ApplyMove of each part, and the whole servicer
call for comparison; the control calls' own cost, an empty window, subtracted). Run by
bench/instructions.py (`--breakdown`), as `instruction_parts.py --trace T --plan P`.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import grpc
import traffic
from bench_micro import HappyContext
from callgrind import STARTUP_TIMEOUT, callgrind_command, control, dumps, proc_pid, python

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

BENCH: Final = Path(__file__).resolve().parent
ROOT: Final = BENCH.parent


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
    from tienlen_service.observability import CallObserver
    from tienlen_service.state_cache import StateCache

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

    # A replica that answers every other move of each game (instructions.py's miss path):
    # each token it gets is another replica's; a cache of one state keeps it from seeing a
    # token twice over the repeated passes.
    missing = traffic.servicer(keys)
    missing._states = StateCache(size=1)  # noqa: SLF001
    missed = [c for g in games for c in [c for c in g if c.method == "ApplyMove"][::2]]

    def missed_call(data: bytes) -> bytes:
        return missing.apply_move_wire(service_pb2.ApplyMoveRequest.FromString(data), ctx)

    # The call observer around an empty handler, as the service wraps it (default sampling).
    configure_logging("info", "json", stream=io.StringIO())
    observer = CallObserver(Metrics(), access_log=AccessLog())
    bare = grpc.unary_unary_rpc_method_handler(lambda req, _ctx: req)
    wrapped = observer.wrap(traffic.PREFIX + "ApplyMove", bare)
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

    count = svc._counts.step  # noqa: SLF001
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
        ("call observer (empty handler)", intercepted, [(c.request, ctx) for c in applies]),
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
            "servicer ApplyMove on a miss (every other move)",
            missed_call,
            [(c.request,) for c in missed],
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
            python(),
            str(BENCH / "instruction_parts.py"),
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


def main(argv: Sequence[str] | None = None) -> int:
    """The child: `--trace` the recorded games, `--plan` where to write the labels."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--trace", type=Path, required=True)
    parser.add_argument("--plan", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=1)
    return _components_child(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
