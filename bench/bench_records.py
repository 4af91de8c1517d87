"""Game records: how big a played game's record is, and what checking one costs.

Run: `.venv/bin/python bench/bench_records.py [--games 200]`.
For seeded random games of every preset: the record's size (protobuf bytes, text bytes), the
in-process time of `records.replay` (what ReplayGame does, without gRPC) against the same moves
applied by `engine.apply` alone (the baseline: the replay's cost beyond the moves is decoding
and checking the record), and the Python client's `to_text` / `from_text`: per game the best of
3 runs, then the median over the games. Prints, asserts nothing (these machines are shared and
noisy).
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import time
from collections.abc import Callable

from tienlen_client.record import GameRecord

import tienlen_rules as engine
from tienlen.v1 import cards_pb2, record_pb2
from tienlen_rules import PRESETS, settle
from tienlen_service import codec, records


def hand(mask: int) -> cards_pb2.Hand:
    return cards_pb2.Hand(cards=codec.cards_to_pb(mask))


def played_game(variant: str, seed: int) -> tuple[record_pb2.GameRecord, list[engine.Move]]:
    """A seeded random game of `variant` as a record (with its result) and its moves."""
    rng = random.Random(f"{variant}-{seed}")
    rules = engine.build_rules(variant)
    players = 3 if rules.deal_all_cards else rng.choice((2, 3, 4))
    state, events = engine.new_game(rules, players, seed=seed)
    started = events[0]
    assert isinstance(started, engine.GameStarted)
    record = record_pb2.GameRecord(
        rules=codec.rules_to_pb(rules),
        players=players,
        leader=started.leader,
        first_game=True,
        game_number=1,
        hands=[hand(h) for h in state.dealt],
    )
    moves = []
    while not state.over:
        move = rng.choice(engine.legal_moves(state, state.to_act))
        moves.append(move)
        cards = sum(1 << c for c in move.cards)
        record.moves.append(
            record_pb2.RecordedMove(seat=move.seat, pass_turn=True)
            if move.is_pass
            else record_pb2.RecordedMove(seat=move.seat, cards=codec.cards_to_pb(cards))
        )
        state, _ = engine.apply(state, move)
    settled = codec.settlement_to_pb(settle(state))
    record.result.CopyFrom(
        record_pb2.RecordResult(places=settled.places, transfers=settled.transfers, net=settled.net)
    )
    return record, moves


def best_us(fn: Callable[[], object], repeat: int = 3) -> float:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter_ns()
        fn()
        samples.append(time.perf_counter_ns() - start)
    return min(samples) / 1000


def apply_only(record: record_pb2.GameRecord, moves: list[engine.Move]) -> None:
    """The baseline: deal the same hands and apply the same moves, nothing decoded or checked."""
    rules = engine.build_rules(record.rules.variant, dict(record.rules.options))
    hands = [codec.hand_from_pb(h.cards, "hands") for h in record.hands]
    state, _ = engine.new_game(rules, record.players, hands=hands, leader=record.leader)
    for move in moves:
        state, _ = engine.apply(state, move)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200, help="games per preset")
    args = parser.parse_args()
    header = (
        f"{'preset':<10}{'moves':>7}{'proto B':>9}{'text B':>8}{'replay µs':>11}"
        f"{'apply µs':>10}{'ratio':>7}{'to_text µs':>12}{'from_text µs':>14}"
    )
    print(header)
    for variant in sorted(PRESETS):
        rows = []
        for seed in range(args.games):
            record, moves = played_game(variant, seed)
            text_record = GameRecord.from_pb(record)
            text = text_record.to_text()
            rows.append(
                (
                    len(record.moves),
                    record.ByteSize(),
                    len(text.encode()),
                    best_us(functools.partial(records.replay, record)),
                    best_us(functools.partial(apply_only, record, moves)),
                    best_us(text_record.to_text),
                    best_us(functools.partial(GameRecord.from_text, text)),
                )
            )
        med = [statistics.median(column) for column in zip(*rows, strict=True)]
        print(
            f"{variant:<10}{med[0]:>7.0f}{med[1]:>9.0f}{med[2]:>8.0f}{med[3]:>11.0f}"
            f"{med[4]:>10.0f}{med[3] / med[4]:>7.2f}{med[5]:>12.0f}{med[6]:>14.0f}"
        )
    largest = max(
        played_game(v, s)[0].ByteSize() for v in sorted(PRESETS) for s in range(args.games)
    )
    print(
        f"largest record: {largest} protobuf bytes (bounds: {records.MAX_BYTES} bytes,"
        f" {records.MAX_MOVES} moves)"
    )


if __name__ == "__main__":
    main()
