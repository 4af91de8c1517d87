"""Legal-move generation timings: median and p99 microseconds per call.

Run: .venv/bin/python bench/bench_movegen.py [--quick]

Cases: random 13-card Southern deals (typical), hand-picked worst cases (many straights or
consecutive pairs), 18-card Đấu hands; leading (every combination), beating a single and a pair,
has_beat, and arithmetic counting. A baseline in the same run (one `classify` call and one
empty function call) gives the machine's speed, since absolute times on shared machines drift.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import tienlen_rules as engine
from tienlen_rules import Combination, RuleSet, build_rules, classify, format_cards, parse_set

WORST_13 = {
    "pairs 3..8 + 9": "3S 3C 4S 4C 5S 5C 6S 6C 7S 7C 8S 8C 9S",
    "3..A + 3": "3S 3C 4S 5S 6S 7S 8S 9S 10S JS QS KS AS",
    "3..9 doubled-ish": "3S 3C 4S 4C 5S 5C 6S 6C 7S 7C 8D 8H 9D",
    "triples 3..6 + 7": "3S 3C 3D 4S 4C 4D 5S 5C 5D 6S 6C 6D 7S",
}
WORST_18 = {
    "dau 6 triples": "3S 3C 3D 4S 4C 4D 5S 5C 5D 6S 6C 6D 7S 7C 7D 8S 8C 8D",
    "dau 3..A mixed": "3S 3C 4S 4C 5S 5C 6S 6C 7S 7C 8S 8C 9S 10S JS QS KS AS",
}


def timeit_us(fn: Callable[[], object], reps: int) -> tuple[float, float]:
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - t0) / 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.99)]


def spread(hands: list[int], fn: Callable[[int], object], reps: int) -> tuple[float, float]:
    """Median/p99 over many hands, each called once per rep round."""
    samples: list[float] = []
    for _ in range(max(1, reps // len(hands))):
        for h in hands:
            t0 = time.perf_counter_ns()
            fn(h)
            samples.append((time.perf_counter_ns() - t0) / 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.99)]


def deal(rng: random.Random, n: int) -> int:
    return sum(1 << c for c in rng.sample(range(52), n))


def row(name: str, med: float, p99: float, extra: str = "") -> None:
    print(f"{name:<44} {med:>9.1f} {p99:>9.1f}  {extra}")


def table_for(rng: random.Random, hand: int, rules: RuleSet, kind: str) -> Combination:
    rest = [c for c in range(52) if not hand >> c & 1]
    while True:
        if kind == "single":
            cards = 1 << rng.choice(rest)
        else:
            r = rng.randrange(13)
            ranked = [c for c in rest if c >> 2 == r]
            if len(ranked) < 2:
                continue
            cards = sum(1 << c for c in rng.sample(ranked, 2))
        combo = classify(cards, rules)
        if combo is not None:
            return combo


def lead_all(rules: RuleSet) -> Callable[[int], object]:
    def run(hand: int) -> object:
        return engine.combination_list(hand, rules)

    return run


def beating(cases: list[tuple[int, Combination]], rules: RuleSet) -> Callable[[int], object]:
    def run(i: int) -> object:
        return list(engine.plays_beating(cases[i][0], cases[i][1], rules))

    return run


def has_beat(cases: list[tuple[int, Combination]], rules: RuleSet) -> Callable[[int], object]:
    def run(i: int) -> object:
        return engine.has_beat(cases[i][0], cases[i][1], rules)

    return run


def counting(rules: RuleSet) -> Callable[[int], object]:
    def run(hand: int) -> object:
        return engine.count_combinations(hand, rules)

    return run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    reps = 2000 if args.quick else 20000
    rng = random.Random(1)
    southern, dau, northern = build_rules("southern"), build_rules("dau"), build_rules("northern")
    hands = [deal(rng, 13) for _ in range(500)]
    print(f"{'case':<44} {'median us':>9} {'p99 us':>9}  notes")
    row("baseline: empty call", *timeit_us(lambda: None, reps))
    pair = parse_set("3S 3C")
    row("baseline: classify(pair)", *timeit_us(lambda: classify(pair, southern), reps))
    counts = [engine.count_combinations(h, southern) for h in hands]
    row(
        "13 random, southern: all combinations (lead)",
        *spread(hands, lead_all(southern), reps),
        f"mean {statistics.mean(counts):.0f} plays",
    )
    row("13 random, northern: all combinations (lead)", *spread(hands, lead_all(northern), reps))
    indices = list(range(len(hands)))
    for name in ("single", "pair"):
        cases = [(h, table_for(rng, h, southern, name)) for h in hands]
        row(
            f"13 random, southern: beating a {name}",
            *spread(indices, beating(cases, southern), reps),
        )
        row(
            f"13 random, southern: has_beat on a {name}",
            *spread(indices, has_beat(cases, southern), reps),
        )
    two = classify(parse_set("2H"), southern)
    assert two is not None
    twos = [(h, two) for h in hands]
    row(
        "13 random, southern: has_beat on 2H (bombs)",
        *spread(indices, has_beat(twos, southern), reps),
    )
    row("13 random, southern: count_combinations", *spread(hands, counting(southern), reps))
    for name, text in WORST_13.items():
        h = parse_set(text)
        n = engine.count_combinations(h, southern)
        row(f"13 worst '{name}': lead", *spread([h], lead_all(southern), reps // 4), f"{n} plays")
    dau_hands = [deal(rng, 18) for _ in range(300)]
    dcounts = [engine.count_combinations(h, dau) for h in dau_hands]
    row(
        "18 random, dau: all combinations (lead)",
        *spread(dau_hands, lead_all(dau), reps),
        f"mean {statistics.mean(dcounts):.0f}, max {max(dcounts)} plays",
    )
    for name, text in WORST_18.items():
        h = parse_set(text)
        n = engine.count_combinations(h, dau)
        row(
            f"18 worst '{name}': lead",
            *spread([h], lead_all(dau), max(50, reps // 40)),
            f"{n} plays",
        )
        row(f"18 worst '{name}': count", *spread([h], counting(dau), reps // 4))
    worst = max(hands, key=lambda h: engine.count_combinations(h, southern))
    print(
        f"\nmost combinations among the random 13-card hands: {format_cards(worst)} "
        f"({engine.count_combinations(worst, southern)})"
    )


if __name__ == "__main__":
    main()
