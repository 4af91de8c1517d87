"""Our engine on the fixed peer corpus: CPU µs per operation and agreement with its answers.

The corpus (`peer-corpus.json`, described in the README beside it) is the one workload on which
three open-source Tiến Lên / Big Two engines and ours were timed side by side. It lives outside
the repository, in the team's shared folder (`../shared/bench/` from the repository root): pass
`--corpus PATH` to read it from elsewhere.

Operations, each timed over one pass of its section with cards already converted to the
engine's own form (a 52-bit mask, or a `Move` and a `GameState`) outside the timed region:

  classify  the combination of `play`                                  `classify`
  beats     classify `play`, then compare it with the pre-classified `table`
  compare   compare two pre-classified plays (items whose play is valid) `beat`
  validate  the full move check: `play` from `hand` on `table`          `can_apply`
  legal     every distinct legal play on a lead, per hand               `legal_plays`
  floor     the `compare` loop calling a function that does nothing: the machine's floor

Rounds are interleaved (each round times every operation once) and the median CPU time per
item is printed, with the fastest peer's figure from the corpus README for comparison. Every
answer is checked against the corpus's reference: the agreement must stay 100 %.

    .venv/bin/python bench/bench_peer_corpus.py --rounds 7
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tienlen_rules as engine
from tienlen_rules import Beat, GameState, Kind, Move, RuleSet, build_rules, parse_set

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CORPUS = REPO.parent / "shared" / "bench" / "peer-corpus.json"

#: The fastest peer per operation on the corpus (tlmn, TypeScript on Node; 2026-12-01, 2 vCPU).
#: `legal` has no complete peer figure: the target there is ours ≤ 40 µs.
PEER_BEST = {"classify": 2.56, "beats": 3.11, "compare": 0.20, "validate": 6.20, "legal": 40.0}
PEER_BEST["floor"] = PEER_BEST["compare"]

KIND_NAMES = {
    Kind.SINGLE: "single",
    Kind.PAIR: "pair",
    Kind.TRIPLE: "triple",
    Kind.STRAIGHT: "straight",
    Kind.CONSECUTIVE_PAIRS: "consecutive_pairs",
    Kind.FOUR_OF_A_KIND: "four_of_a_kind",
    Kind.CONSECUTIVE_TRIPLES: "consecutive_triples",
}


def _seat_state(base: GameState, hand: int, table: engine.Combination | None, three: int) -> Any:
    """A two-seat state in which seat 0 holds `hand` and is to act on `table` (None: a lead,
    which must include card `three` unless it is -1)."""
    return base._replace(
        hands=(hand, base.hands[1]),
        dealt=(hand, base.hands[1]),
        to_act=0,
        table=table,
        table_seat=-1 if table is None else 1,
        must_include=three,
        passed=0,
    )


class Corpus:
    """The corpus's items in the engine's own form, and its reference answers."""

    def __init__(self, raw: dict[str, Any], rules: RuleSet) -> None:
        self.rules = rules
        base, _ = engine.new_game(rules, 2, seed=1)
        classify, beats, hands = raw["classify"], raw["beats"], raw["hands"]
        self.plays = [parse_set(item["play"]) for item in classify]
        self.plays_ref = [item["ref"] for item in classify]
        self.beat_plays = [parse_set(item["play"]) for item in beats]
        tables = [engine.classify(parse_set(item["table"]), rules) for item in beats]
        if any(t is None for t in tables):
            raise SystemExit("a corpus table is not a combination under the Southern rules")
        self.tables: list[engine.Combination] = [t for t in tables if t is not None]
        self.beats_ref: list[bool] = [item["ref"] for item in beats]
        self.pairs = [
            (new, table, ref)
            for play, table, ref in zip(self.beat_plays, self.tables, self.beats_ref, strict=True)
            if (new := engine.classify(play, rules)) is not None
        ]
        self.moves = [
            (
                _seat_state(base, parse_set(item["hand"]), table, -1),
                Move(0, tuple(engine.parse_cards(item["play"])), is_pass=False),
            )
            for item, table in zip(beats, self.tables, strict=True)
        ]
        hand_sets = [parse_set(item["hand"]) for item in hands]
        self.leads = [_seat_state(base, hand, None, -1) for hand in hand_sets]
        self.leads_3s = [_seat_state(base, hand, None, 0) for hand in hand_sets if hand & 1]
        self.plays_total = sum(item["ref_plays"] for item in hands)
        self.plays_total_3s = sum(item["ref_plays_with_3S"] for item in hands)
        self.items = {
            "classify": len(self.plays),
            "beats": len(self.beat_plays),
            "compare": len(self.pairs),
            "validate": len(self.moves),
            "legal": len(self.leads),
            "floor": len(self.pairs),
        }


# --------------------------------------------------------------------------- the operations
# Each returns its answers so that agreement is checked on exactly what was timed.


def op_classify(c: Corpus) -> list[str]:
    classify, rules, names = engine.classify, c.rules, KIND_NAMES
    out = []
    for play in c.plays:
        combo = classify(play, rules)
        out.append("invalid" if combo is None else names[combo.kind])
    return out


def op_beats(c: Corpus) -> list[bool]:
    classify, beat, rules, no = engine.classify, engine.beat, c.rules, Beat.NO
    out = []
    for play, table in zip(c.beat_plays, c.tables, strict=True):
        new = classify(play, rules)
        out.append(new is not None and beat(new, table, rules)[0] != no)
    return out


def op_compare(c: Corpus) -> list[bool]:
    beat, rules = engine.beat, c.rules
    return [beat(new, table, rules)[0] for new, table, _ in c.pairs]


def op_validate(c: Corpus) -> list[bool]:
    can_apply = engine.can_apply
    return [can_apply(state, move) for state, move in c.moves]


def op_legal(c: Corpus) -> list[int]:
    legal_plays = engine.legal_plays
    return [len(legal_plays(state, 0)[0]) for state in c.leads]


def _nothing(_a: object, _b: object, _c: object) -> bool:
    return True


def op_floor(c: Corpus) -> list[bool]:
    """The same loop as `compare` calling a function that does nothing: CPython's own cost of
    one call per item on this machine, now (the floor under every operation above)."""
    nothing, rules = _nothing, c.rules
    return [nothing(new, table, rules) for new, table, _ in c.pairs]


OPERATIONS: dict[str, Callable[[Corpus], list[Any]]] = {
    "classify": op_classify,
    "beats": op_beats,
    "compare": op_compare,
    "validate": op_validate,
    "legal": op_legal,
    "floor": op_floor,
}


def agreement(c: Corpus, name: str, answers: list[Any]) -> tuple[int, int]:
    """(agreeing answers, answers) of one operation against the corpus's reference."""
    if name == "classify":
        return sum(a == r for a, r in zip(answers, c.plays_ref, strict=True)), len(answers)
    if name in {"beats", "validate"}:
        return sum(a == r for a, r in zip(answers, c.beats_ref, strict=True)), len(answers)
    if name == "floor":
        return len(answers), len(answers)
    if name == "compare":
        refs = [ref for _, _, ref in c.pairs]
        return sum(bool(a) == r for a, r in zip(answers, refs, strict=True)), len(answers)
    # legal: the total over all hands, and over the hands holding 3S with 3S required
    total = sum(answers)
    total_3s = sum(len(engine.legal_plays(s, 0)[0]) for s in c.leads_3s)
    agree = int(total == c.plays_total) + int(total_3s == c.plays_total_3s)
    return agree, 2


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rounds", type=int, default=5, help="interleaved rounds (median)")
    parser.add_argument("--only", choices=sorted(OPERATIONS), action="append")
    args = parser.parse_args(argv)
    if not args.corpus.is_file():
        print(f"no corpus at {args.corpus}: pass --corpus PATH", file=sys.stderr)
        return 2
    raw = json.loads(args.corpus.read_text(encoding="utf-8"))
    corpus = Corpus(raw, build_rules("southern"))
    names = args.only or list(OPERATIONS)
    samples: dict[str, list[float]] = {name: [] for name in names}
    agreed: dict[str, tuple[int, int]] = {}
    for _ in range(max(1, args.rounds)):
        for name in names:
            start = time.process_time_ns()
            answers = OPERATIONS[name](corpus)
            elapsed = time.process_time_ns() - start
            samples[name].append(elapsed / 1000 / corpus.items[name])
            agreed[name] = agreement(corpus, name, answers)
    print(f"corpus {args.corpus.name} v{raw['version']}, {args.rounds} interleaved rounds")
    print(f"{'operation':<10} {'items':>6} {'ours µs':>8} {'best peer':>9} {'ratio':>6}  agreement")
    exit_code = 0
    for name in names:
        ours = statistics.median(samples[name])
        peer = PEER_BEST[name]
        ok, n = agreed[name]
        pct = 100 * ok / n
        exit_code |= int(ok != n)
        print(
            f"{name:<10} {corpus.items[name]:>6} {ours:>8.2f} {peer:>9.2f} {ours / peer:>6.2f}"
            f"  {pct:.1f} % ({ok}/{n})"
        )
    return exit_code


if __name__ == "__main__":
    sys.exit(main())
