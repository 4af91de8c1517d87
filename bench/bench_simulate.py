"""Self-play throughput: games per CPU second on one core, and bot decision times.

Run: .venv/bin/python bench/bench_simulate.py [--games 500]

CPU time (time.process_time) is reported beside wall time because these machines are shared:
CPU seconds say what one core does, wall seconds what this run got. Rows:
  engine only      random moves straight from engine.legal_plays/apply, no checks, no bots
  simulator        tools/simulate.py's game loop: bots, observations, out-of-turn
                   offers and every invariant check at every step
and the per-decision cost of each bot.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import tienlen_rules as engine
from tienlen_rules import (
    GameState,
    build_rules,
    check_settlement,
    make_bot,
    observe,
    pass_turn,
    play,
    settle,
)

# The simulator is a tool of the repository (tools/), not of the installed packages: run as a
# script, this file sees bench/ first on the path, so the repository root goes there too.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tools.simulate import GameRecord, LocalTable, play_game


def engine_only(variant: str, players: int, games: int) -> int:
    rules = build_rules(variant)
    moves = 0
    for seed in range(games):
        rng = random.Random(seed)
        state, _ = engine.new_game(rules, players, seed=seed)
        while not state.over:
            plays, can_pass = engine.legal_plays(state, state.to_act)
            pick = rng.randrange(len(plays) + can_pass)
            seat = state.to_act
            move = (
                pass_turn(seat)
                if pick == len(plays)
                else play(seat, [c for c in range(52) if plays[pick].cards >> c & 1])
            )
            state, _ = engine.apply(state, move)
            moves += 1
        settle(state)
    return moves


def simulator(variant: str, bots: list[str], games: int) -> int:
    rules = build_rules(variant)
    players = [make_bot(b) for b in bots]
    moves = 0
    for seed in range(games):
        rng = random.Random(seed)
        state, _ = engine.new_game(rules, len(bots), seed=seed)
        state, _ = play_game(state, players, rng, LocalTable(), GameRecord(state))
        check_settlement(state, settle(state))
        moves += state.move_count
    return moves


def timed(fn: Callable[[], int]) -> tuple[float, float, int]:
    wall, cpu = time.perf_counter(), time.process_time()
    moves = fn()
    return time.perf_counter() - wall, time.process_time() - cpu, moves


def decision_states(count: int) -> list[GameState]:
    rules = build_rules("southern")
    bot = make_bot("greedy")
    states: list[GameState] = []
    seed = 0
    while len(states) < count:
        rng = random.Random(seed)
        state, _ = engine.new_game(rules, 4, seed=seed)
        while not state.over and len(states) < count:
            states.append(state)
            state, _ = engine.apply(state, bot.choose(observe(state, state.to_act), rng))
        seed += 1
    return states


def bot_decisions(spec: str, states: list[GameState]) -> tuple[float, float]:
    bot = make_bot(spec)
    rng = random.Random(0)
    samples = []
    for state in states:
        obs = observe(state, state.to_act)
        start = time.process_time()
        bot.choose(obs, rng)
        samples.append((time.process_time() - start) * 1e3)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.99)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=500)
    args = parser.parse_args()
    n = args.games
    print(f"{'run':<52}{'games/CPU s':>12}{'games/wall s':>13}{'moves/game':>11}")
    runs: list[tuple[str, Callable[[], int]]] = [
        ("engine only, random, southern 4p", lambda: engine_only("southern", 4, n)),
        ("simulator, random x4, southern", lambda: simulator("southern", ["random"] * 4, n)),
        (
            "simulator, greedy + random x3, southern",
            lambda: simulator("southern", ["greedy"] + ["random"] * 3, n),
        ),
        ("simulator, greedy x4, southern", lambda: simulator("southern", ["greedy"] * 4, n)),
        ("simulator, random x3, dau", lambda: simulator("dau", ["random"] * 3, n)),
    ]
    for name, fn in runs:
        wall, cpu, moves = timed(fn)
        print(f"{name:<52}{n / cpu:>12.0f}{n / wall:>13.0f}{moves / n:>11.1f}")
    states = decision_states(300)
    print(f"\n{'bot decision (southern, 300 states)':<52}{'median ms':>12}{'p99 ms':>13}")
    for spec in ("random", "greedy", "montecarlo:samples=8", "montecarlo"):
        few = states if not spec.startswith("montecarlo") else states[::10]
        med, p99 = bot_decisions(spec, few)
        print(f"{spec:<52}{med:>12.2f}{p99:>13.2f}")


if __name__ == "__main__":
    main()
