r"""Bot strength, duplicate style: two bots, the same seeded deals, each deal played twice.

    nice -n 10 .venv/bin/python bench/bots.py --deals 150 --preset southern --a expert --b greedy

Every deal (`new_game(rules, n, seed=base + i)`, a first game: the holder of the starting
card leads) is played twice, once with the seats A B A B and once with B A B A (3 players,
Đấu: A B A then B A B), so every seat's cards are played once by each bot and the luck of the
deal cancels. One sample per deal:

    (mean net of A's seat-games  -  mean net of B's seat-games) / 2      in stakes

which, when the game is zero-sum, is exactly A's mean net per seat per game (2 vs 2: what A's
two seats won, per seat and game, over both seatings). The table gives its mean over the deals
with a 95 % interval (normal, from the deals' spread), how often A finished first (of A's
seat-games), and each bot's CPU per decision (`time.process_time` around `Bot.choose`: median
and p95, in ms). The game loop is the simulator's (`tools.simulate.play_game`: out-of-turn chops
and steals offered, every invariant checked). `--jobs 2` splits the deals over processes.

Besides the engine's bots (`make_bot` specs and level names), two specs exist only here:
`previous[:param=value...]` is the expert as it was before issue #40 (`bench/previous_expert.py`,
kept for measuring); `cheat[:param=value...]` is the expert given the true deal instead of
sampled ones (one exact pass over it: the *cheating ceiling*, what the hidden hands are worth to
the search; it reads the table's state, which no real bot can); `reading[:param=value...]` is
the expert on deals weighted by every pass of the game (`bench/reading.py`: the table's record,
which the state does not keep; `history=0`: this round's passes only, which it does);
`learned[:horizon=N...]` is the expert with its playouts cut after N moves and scored by a
learned evaluation (`bench/evaluation.py`).

This is a measurement, not a test: it asserts nothing. Run it niced on a shared machine.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from research_bots import TruthTable, bench_bot

from tienlen_rules import Bot, Move, Observation, build_rules, new_game, settle
from tools.simulate import GameRecord, play_game

Z95 = 1.959963984540054
PRESETS = ("southern", "northern", "hue", "da_nang", "dau", "dem_la")


@dataclass
class Timed:
    """A bot whose every decision's CPU time is recorded."""

    bot: Bot
    times: list[float] = field(default_factory=list)

    @property
    def name(self) -> str:
        """The wrapped bot's name."""
        return self.bot.name

    def choose(self, obs: Observation, rng: random.Random) -> Move:
        """The wrapped bot's move, timed."""
        start = time.process_time()
        move = self.bot.choose(obs, rng)
        self.times.append(time.process_time() - start)
        return move


@dataclass
class DealResult:
    """One deal, both seatings."""

    sample: float
    a_first: int
    a_games: int
    a_times: list[float]
    b_times: list[float]


def seatings(players: int) -> tuple[list[str], list[str]]:
    """A B A B / B A B A (3 players: A B A / B A B)."""
    first = ["a" if seat % 2 == 0 else "b" for seat in range(players)]
    return first, ["b" if who == "a" else "a" for who in first]


def play_deal(args: tuple[str, str, str, int, int]) -> DealResult:
    """Play deal `seed` under both seatings."""
    preset, spec_a, spec_b, players, seed = args
    rules = build_rules(preset)
    table = TruthTable()
    a, b = Timed(bench_bot(spec_a, table)), Timed(bench_bot(spec_b, table))
    nets: dict[str, list[float]] = {"a": [], "b": []}
    a_first = a_games = 0
    for round_, seating in enumerate(seatings(players)):
        state, _ = new_game(rules, players, seed=seed)
        bots = [a if who == "a" else b for who in seating]
        rng = random.Random(seed * 2 + round_)
        final, _ = play_game(state, bots, rng, table, GameRecord(state))
        net = settle(final).net
        for seat, who in enumerate(seating):
            nets[who].append(net[seat] / rules.stake)
            if who == "a":
                a_games += 1
                a_first += final.places[seat] == 1
    sample = (statistics.fmean(nets["a"]) - statistics.fmean(nets["b"])) / 2
    return DealResult(sample, a_first, a_games, a.times, b.times)


@dataclass
class Row:
    """The summary of a run."""

    preset: str
    a: str
    b: str
    deals: int
    mean: float
    low: float
    high: float
    a_first: float
    a_ms: tuple[float, float]
    b_ms: tuple[float, float]
    cpu_seconds: float


def _ms(times: Sequence[float]) -> tuple[float, float]:
    if not times:
        return (0.0, 0.0)
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]
    return statistics.median(ordered) * 1000, p95 * 1000


def run(preset: str, a: str, b: str, deals: int, base: int, jobs: int) -> Row:
    """Play `deals` deals from seed `base`; the summary."""
    players = 3 if preset == "dau" else 4
    tasks = [(preset, a, b, players, base + i) for i in range(deals)]
    start = time.process_time()
    results: list[DealResult] = []
    if jobs > 1:
        with multiprocessing.Pool(jobs) as pool:
            for result in pool.imap(play_deal, tasks, chunksize=1):
                _progress(results, result, preset, a, b)
        # the workers' CPU: the OS's count of the children's times once they are done
        cpu = _children_cpu() + time.process_time() - start
    else:
        for task in tasks:
            _progress(results, play_deal(task), preset, a, b)
        cpu = time.process_time() - start
    return summary(preset, a, b, results, cpu)


PROGRESS_EVERY = 10


def _progress(results: list[DealResult], result: DealResult, preset: str, a: str, b: str) -> None:
    """Keep the result; every `PROGRESS_EVERY` deals, the summary so far on stderr (a long run
    stopped early still says what it measured)."""
    results.append(result)
    if len(results) % PROGRESS_EVERY == 0:
        print(markdown(summary(preset, a, b, results, 0.0)), file=sys.stderr, flush=True)


def summary(preset: str, a: str, b: str, results: list[DealResult], cpu: float) -> Row:
    """The row of these deals."""
    deals = len(results)
    samples = [r.sample for r in results]
    mean = statistics.fmean(samples)
    half = Z95 * statistics.stdev(samples) / math.sqrt(len(samples)) if len(samples) > 1 else 0.0
    a_times = [t for r in results for t in r.a_times]
    b_times = [t for r in results for t in r.b_times]
    first = sum(r.a_first for r in results) / max(1, sum(r.a_games for r in results))
    return Row(
        preset, a, b, deals, mean, mean - half, mean + half, first, _ms(a_times), _ms(b_times), cpu
    )


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


HEADER = (
    "| preset | A | B | deals | A per seat per game (95 % CI) | A 1st | A ms median / p95 "
    "| B ms median / p95 |\n| --- | --- | --- | --- | --- | --- | --- | --- |"
)


def markdown(row: Row) -> str:
    """One table row."""
    return (
        f"| {row.preset} | {row.a} | {row.b} | {row.deals} "
        f"| **{row.mean:+.2f}** [{row.low:+.2f}, {row.high:+.2f}] | {row.a_first:.2f} "
        f"| {row.a_ms[0]:.2f} / {row.a_ms[1]:.2f} | {row.b_ms[0]:.2f} / {row.b_ms[1]:.2f} |"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line, run, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=40)
    parser.add_argument(
        "--preset", default="southern", help=f"one of {', '.join(PRESETS)}, or 'all'"
    )
    parser.add_argument("--a", default="expert", help="the bot measured (a bot spec)")
    parser.add_argument("--b", default="greedy", help="the baseline (a bot spec)")
    parser.add_argument("--seed", type=int, default=1, help="the first deal's seed")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    presets = PRESETS if args.preset == "all" else (args.preset,)
    print(HEADER, flush=True)
    for preset in presets:
        row = run(preset, args.a, args.b, args.deals, args.seed, args.jobs)
        print(markdown(row) + f"  <!-- {row.cpu_seconds:.0f} CPU s -->", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
