"""Differential test of the round flow: an independent reference model of RULES §4-§5 (turns,
passing and *qua tay*, the end of a round, *hưởng sái*, out-of-turn chops, finishing and the
places of a finish ranked last), written from the rule book, compared with the engine move by
move over seeded random games under every preset that plays rounds the same way.

The model decides only *who may act and what happens next*; whether one combination beats
another is `beat`'s (proved against its own reference model in test_differential_beating.py).
Instant wins, freezing and lead stealing (§7) are switched off so that the games are pure §4-§5.
Hands are seeded with runs of pairs and 2s so that chops, and out-of-turn chops, happen.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest

from tienlen_rules import apply, legal_moves, movegen, new_game
from tienlen_rules.beating import Beat, beat
from tienlen_rules.cards import TWOS, CardSet, cards_of
from tienlen_rules.combinations import Combination, Kind, chop_class, classify
from tienlen_rules.ruleset import RuleSet, build_rules
from tienlen_rules.state import GameState, Move, play

# §5: the bombs that chop out of turn (không cần vòng), by preset. Runs of pairs longer than a
# table lists follow the run one pair shorter (option long_pairs_chop, default "ladder").
LONG_PAIRS = {f"{n}pairs" for n in range(5, 10)}
OUT_OF_TURN = {
    "southern": {"4pairs"} | LONG_PAIRS,
    "hue": {"4pairs"} | LONG_PAIRS,
    "da_nang": {"4pairs"} | LONG_PAIRS,
    "northern": set(),
    "dau": {"3triples", "6pairs"} | {f"{n}pairs" for n in range(7, 10)},
}
# §4/§6/§10: going out on a play holding a 2 (North, Huế) or on a four of a kind (North) ranks
# you last.
RANKS_LAST_ON_TWO = {"northern", "hue"}
RANKS_LAST_ON_FOUR = {"northern"}


@dataclass
class Model:
    """The rule book's view of a game in progress."""

    variant: str
    rules: RuleSet
    hands: list[CardSet]
    to_act: int = 0
    table: Combination | None = None
    table_seat: int = -1
    passed: set[int] = field(default_factory=set)
    places: list[int] = field(default_factory=list)
    over: bool = False

    @property
    def players(self) -> int:
        return len(self.hands)

    def active(self) -> set[int]:
        return {s for s in range(self.players) if not self.places[s]}

    def next_of(self, after: int, seats: set[int]) -> int:
        """The first of `seats` after `after` in seat order (§2: turn order is the next seat)."""
        return next(
            (after + k) % self.players
            for k in range(1, self.players + 1)
            if (after + k) % self.players in seats
        )

    def legal(self, move: Move) -> bool:
        seat = move.seat
        if self.over or self.places[seat]:
            return False
        if move.is_pass:  # §4: in turn, and never by the leader of a round
            return seat == self.to_act and self.table is not None
        mask = sum(1 << c for c in move.cards)
        combo = classify(mask, self.rules)
        if combo is None or mask & ~self.hands[seat]:
            return False
        if seat == self.to_act:  # §4: the leader plays anything; the others beat or chop
            return self.table is None or beat(combo, self.table, self.rules)[0] != Beat.NO
        # §5: out of turn only a bomb of the table's out-of-turn list, chopping the table, and
        # never on one's own play — even after passing.
        return (
            self.table is not None
            and seat != self.table_seat
            and chop_class(combo) in OUT_OF_TURN[self.variant]
            and beat(combo, self.table, self.rules)[0] == Beat.CHOPS
        )

    def apply(self, move: Move) -> None:
        seat = move.seat
        if move.is_pass:  # §4: out of the round (qua tay) until a new round starts
            self.passed.add(seat)
            self._next_turn(seat)
            return
        mask = sum(1 << c for c in move.cards)
        combo = classify(mask, self.rules)
        assert combo is not None
        self.hands[seat] &= ~mask
        self.table, self.table_seat = combo, seat
        self.passed.discard(seat)  # §5: an out-of-turn chopper is back in the round
        if not self.hands[seat]:
            self._finish(seat, combo, mask)
            if self.over:
                return
        self._next_turn(seat)  # §5: play continues from the (out-of-turn) chopper

    def _finish(self, seat: int, combo: Combination, mask: CardSet) -> None:
        """§4: the next place, or the last place free for a finish that ranks last; the game
        ends when only one player still holds cards."""
        last = (self.variant in RANKS_LAST_ON_TWO and mask & TWOS) or (
            self.variant in RANKS_LAST_ON_FOUR and combo.kind == Kind.FOUR_OF_A_KIND
        )
        free = [p for p in range(1, self.players + 1) if p not in self.places]
        self.places[seat] = free[-1] if last else free[0]
        left = sorted(self.active())
        if len(left) <= 1:
            free = [p for p in range(1, self.players + 1) if p not in self.places]
            for s in left:
                self.places[s] = free[0]
            self.over = True

    def _next_turn(self, after: int) -> None:
        """§4: the next player still in the round; when every other player still in it has
        passed, the last player leads a new round — or, gone out, the next seat with cards."""
        still_in = self.active() - self.passed - {self.table_seat, after}
        if still_in:
            self.to_act = self.next_of(after, still_in)
            return
        last = self.table_seat
        self.to_act = last if last in self.active() else self.next_of(last, self.active())
        self.table, self.table_seat, self.passed = None, -1, set()


def _hands(rnd: random.Random, players: int, size: int) -> list[CardSet]:
    """Random disjoint hands, some seeded with a run of pairs (or triples) and some 2s."""
    pool = set(range(52))
    hands = []
    for _ in range(players):
        hand: set[int] = set()
        if rnd.random() < 0.6:
            low, per_rank = rnd.randrange(8), rnd.choice([2, 2, 2, 3])
            for rank in range(low, low + rnd.choice([3, 4, 4])):
                suits = [c for c in range(rank * 4, rank * 4 + 4) if c in pool]
                rnd.shuffle(suits)
                hand |= set(suits[:per_rank])
        if rnd.random() < 0.5:
            hand |= set([c for c in range(48, 52) if c in pool][: rnd.randint(0, 2)])
        hand = set(sorted(hand)[:13])
        pool -= hand
        rest = sorted(pool)
        rnd.shuffle(rest)
        extra = set(rest[: max(0 if hand else 1, size - len(hand))])
        pool -= extra
        hands.append(sum(1 << c for c in hand | extra))
    return hands


def _engine_moves(state: GameState, seat: int) -> set[tuple[bool, tuple[int, ...]]]:
    return {(m.is_pass, tuple(sorted(m.cards))) for m in legal_moves(state, seat)}


def _play_one(variant: str, seed: int) -> int:
    """Play one seeded random game in the engine and the model; return its out-of-turn plays."""
    rnd = random.Random(seed)
    players = 3 if variant == "dau" else rnd.choice([2, 3, 4])
    rules = build_rules(
        variant,
        {"instant_wins": "none", "freezing": False, "compensation": False, "lead_stealing": False},
    )
    hands = _hands(rnd, players, rnd.choice([6, 8, 11]))
    state, _ = new_game(rules, players, hands=hands, first_game=False, leader=0)
    model = Model(variant, rules, list(hands), places=[0] * players)
    out_of_turn = 0
    while not state.over:
        moves: list[Move] = []
        for seat in range(players):
            engine = _engine_moves(state, seat)
            for move in legal_moves(state, seat):
                assert model.legal(move), (seed, "the engine allows", move)
            if not model.places[seat]:  # every play the model allows, the engine lists
                for combo in movegen.combination_list(model.hands[seat], rules):
                    move = play(seat, tuple(cards_of(combo.cards)))
                    if model.legal(move):
                        assert (False, tuple(sorted(move.cards))) in engine, (seed, move)
            moves += legal_moves(state, seat)
        others = [m for m in moves if m.seat != state.to_act]
        twos = [m for m in moves if any(c >= 48 for c in m.cards)]  # put 2s up to be chopped
        if others and rnd.random() < 0.7:
            move = rnd.choice(others)
        elif twos and rnd.random() < 0.5:
            move = rnd.choice(twos)
        else:
            move = rnd.choice(moves)
        out_of_turn += move.seat != state.to_act
        state, _ = apply(state, move)
        model.apply(move)
        assert state.over == model.over, (seed, move)
        assert list(state.places) == model.places, (seed, move)
        if not state.over:
            assert state.to_act == model.to_act, (seed, move)
            assert state.table == model.table, (seed, move)
            assert state.passed == sum(1 << s for s in model.passed), (seed, move)  # qua tay
    return out_of_turn


@pytest.mark.parametrize("variant", sorted(OUT_OF_TURN))
def test_round_flow_agrees_with_the_rule_book_model(variant: str) -> None:
    out_of_turn = sum(_play_one(variant, seed) for seed in range(200))
    if OUT_OF_TURN[variant]:
        assert out_of_turn > 0  # the deals do exercise out-of-turn chops
