r"""How the expert decides, by cards left in play: a census of its decisions.

    nice -n 19 .venv/bin/python bench/expert_census.py --deals 20 --preset southern

Plays `--deals` seeded deals, the expert in seats 0 and 2 and `greedy` in 1 and 3, and sorts
every decision the expert makes in turn with a choice (two or more moves) by how it was made:
`one candidate` (nothing to weigh), `forced` (the base move goes out or starts a line of
bosses: no search), `listed` (every
possible deal played once: exact), `solved` (an endgame: each sampled deal solved exactly),
`sampled` (the determinised search with playouts); with how often the search overrode the base
move and the median CPU per decision. A measurement, not a test.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tienlen_rules import build_rules, game, new_game
from tienlen_rules.bots import make_bot, observe
from tienlen_rules.bots.base import decline, to_move
from tienlen_rules.bots.deals import deal_count
from tienlen_rules.bots.expert import ENUMERATE_DEALS, ExpertBot, forced

BUCKETS = ((40, 52), (27, 39), (14, 26), (9, 13), (0, 8))


def bucket(cards: int) -> str:
    """The census row of a position with `cards` cards in play."""
    for low, high in BUCKETS:
        if low <= cards <= high:
            return f"{low}-{high}"
    return "?"  # pragma: no cover - every count is in a bucket


def main(argv: Sequence[str] | None = None) -> int:
    """Play, sort, print the census."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--preset", default="southern")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rules = build_rules(args.preset)
    players = 3 if args.preset == "dau" else 4
    expert, greedy = ExpertBot(), make_bot("greedy")
    kinds: dict[str, Counter[str]] = defaultdict(Counter)
    overrides: Counter[str] = Counter()
    times: dict[str, list[float]] = defaultdict(list)
    for seed in range(args.seed, args.seed + args.deals):
        state, _ = new_game(rules, players, seed=seed)
        rng = random.Random(seed)
        while not state.over:
            seat = state.to_act
            obs = observe(state, seat)
            if seat % 2 or len(obs.plays) + obs.can_pass < 2:
                move = greedy.choose(obs, rng) if seat % 2 else expert.choose(obs, rng)
                state, _ = game.apply(state, move)
                continue
            live = sum(n for s, n in enumerate(obs.hand_counts) if not state.places[s])
            start = time.process_time()
            search = expert.search(obs, random.Random(seed))
            row = bucket(live)
            times[row].append(time.process_time() - start)
            if search.nodes == 0:
                kind = "forced" if forced(obs, search.base) else "one candidate"
            elif deal_count(obs) <= ENUMERATE_DEALS:
                kind = "listed"
            elif live <= expert.solve_cards:
                kind = "solved"
            else:
                kind = "sampled"
            kinds[row][kind] += 1
            overrides[row] += search.chosen != search.base
            combo = search.chosen
            move = decline(obs) if combo is None else to_move(seat, combo)
            state, _ = game.apply(state, move)
    columns = ("one candidate", "forced", "listed", "solved", "sampled")
    print("| cards in play | decisions | " + " | ".join(columns) + " | overridden | ms median |")
    print("| --- " * (len(columns) + 4) + "|")
    for low, high in BUCKETS:
        row = f"{low}-{high}"
        total = sum(kinds[row].values())
        if not total:
            continue
        cells = " | ".join(f"{kinds[row][c] / total:.0%}" for c in columns)
        median = statistics.median(times[row]) * 1000
        print(
            f"| {row} | {total} | {cells} | {overrides[row] / total:.0%} | {median:.1f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
