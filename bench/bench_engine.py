"""Engine micro-benchmarks: median and p99 µs per operation, in-process, no gRPC.

Run: `make bench-engine` or `.venv/bin/python bench/bench_engine.py [--games 300]`.
Operations are timed one call at a time over states collected from seeded random games, so
the figures cover the whole spread of real positions. Not a test: machines here are noisy.
"""

from __future__ import annotations

import argparse
import platform
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import tienlen_rules as engine
from tienlen_rules import GameState, Move, build_rules, classify, format_cards, parse_set, settle


def collect(
    variant: str, players: int, games: int
) -> tuple[list[tuple[GameState, Move]], list[GameState]]:
    """(state, move) pairs and final states from seeded random games."""
    rules = build_rules(variant)
    pairs: list[tuple[GameState, Move]] = []
    finals: list[GameState] = []
    for seed in range(games):
        rng = random.Random(seed)
        state, _ = engine.new_game(rules, players, seed=seed)
        while not state.over:
            move = rng.choice(engine.legal_moves(state, state.to_act))
            pairs.append((state, move))
            state, _ = engine.apply(state, move)
        finals.append(state)
    return pairs, finals


def timed(fn: Callable[..., Any], args: Sequence[tuple[Any, ...]]) -> tuple[float, float, int]:
    """Median and p99 µs of one call per argument tuple."""
    samples = []
    clock = time.perf_counter_ns
    for a in args:
        start = clock()
        fn(*a)
        samples.append(clock() - start)
    samples.sort()
    return samples[len(samples) // 2] / 1000, samples[int(len(samples) * 0.99)] / 1000, len(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=300)
    args = parser.parse_args()
    rules = build_rules()
    pairs, finals = collect("southern", 4, args.games)
    plays = [(s, m) for s, m in pairs if not m.is_pass]
    texts = [(format_cards(sum(1 << c for c in m.cards)),) for _, m in plays]
    masks = [(sum(1 << c for c in m.cards), rules) for _, m in plays]
    rows = [
        ("parse a play", timed(parse_set, texts), "-"),
        ("classify", timed(classify, masks), "≤ 5"),
        ("validate a move", timed(engine.validate, pairs), "≤ 10"),
        ("apply a move", timed(engine.apply, pairs), "≤ 15"),
        (
            "legal moves (to act)",
            timed(lambda s, _m: engine.legal_moves(s, s.to_act), pairs),
            "≤ 40",
        ),
        ("settle a game", timed(settle, [(f,) for f in finals]), "-"),
    ]
    print(
        f"# engine micro-benchmarks — {platform.python_implementation()} {platform.python_version()}, "
        f"{platform.machine()}, {platform.processor() or 'cpu'}; {args.games} seeded southern games"
    )
    print(f"{'operation':<24}{'median µs':>12}{'p99 µs':>10}{'calls':>9}  target")
    for name, (median, p99, n), target in rows:
        print(f"{name:<24}{median:>12.2f}{p99:>10.2f}{n:>9}  {target}")


if __name__ == "__main__":
    main()
