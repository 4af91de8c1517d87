"""A learned evaluation (*đánh giá thế cờ*): what a position is worth to a seat, in stakes,
without playing it out, and the expert that cuts its playouts with it (`LearnedLeafExpert`,
`bench/bots.py --a learned:horizon=24`). Measured for issue #40 and not kept in the engine: the
cut playouts chose worse moves than full ones at the same budget (docs/BOTS.md).

A linear model over a few features of each seat's hand and standing, read from the seat's
side of the table (itself, then the next seats in turn order): cards left and their square,
how many plays the hand still needs (`plan.plan_cost`), 2s, four of a kinds, pairs, its place
if it has gone out, whether it holds the lead, passed this round or has not played yet (*cóng*
risk), and the chop money it has won or paid so far. One weight vector per preset
(`value_weights.WEIGHTS`, written by `bench/train_value.py` from seeded `counting` self-play:
each position's features against the seat's settled net), computed in pure Python: a dot
product of `FEATURES` numbers.

A rule set without its own weights (a preset's variant that was not trained) has no
evaluation (`has_model` is False), and the search then plays every playout to its end.
"""

from __future__ import annotations

from dataclasses import dataclass

from value_weights import WEIGHTS

from tienlen_rules.bots.expert import ExpertBot
from tienlen_rules.bots.plan import plan_cost
from tienlen_rules.bots.policy import playout_play
from tienlen_rules.bots.solver import final_value
from tienlen_rules.cards import RANK_UNIT, TWOS, rank_counts
from tienlen_rules.game import apply_in_turn
from tienlen_rules.ruleset import RuleSet
from tienlen_rules.state import GameState

SEATS = 4
"""Seats read, from the evaluated seat on (a 3-seat table leaves the last one empty)."""
PER_SEAT = 12
"""Features per seat."""
FEATURES = 2 + SEATS * PER_SEAT
"""The model's length: a bias, each seat's features, the seat's chop money so far."""


def has_model(rules: RuleSet) -> bool:
    """Whether the rule set's variant has trained weights."""
    return rules.variant in WEIGHTS


def evaluate(state: GameState, seat: int) -> float:
    """The seat's expected settled net in stakes from this position (the model's estimate;
    a finished game is still worth what the model says, not its settlement)."""
    weights = WEIGHTS[state.rules.variant]
    return sum(w * x for w, x in zip(weights, features(state, seat), strict=True))


def features(state: GameState, seat: int) -> list[float]:
    """The model's inputs for `seat` (see the module's docstring), `FEATURES` numbers."""
    rules = state.rules
    players = len(state.hands)
    table = state.table
    leader = state.to_act if table is None else state.table_seat
    found = [1.0]
    for k in range(SEATS):
        if k >= players:
            found += [0.0] * PER_SEAT
            continue
        s = (seat + k) % players
        hand = state.hands[s]
        place = state.places[s]
        cards = hand.bit_count()
        counts = rank_counts(hand)
        found += [
            cards / 13,
            (cards / 13) ** 2,
            plan_cost(hand, rules) / 13 if not place else 0.0,
            (hand & TWOS).bit_count(),
            (counts >> 2 & RANK_UNIT).bit_count(),
            ((counts >> 1 | counts >> 2) & RANK_UNIT).bit_count() / 13,
            float(place == 1),
            float(place == 2),
            float(place >= 3),
            float(leader == s and not place),
            float(state.passed >> s & 1),
            float(state.unplayed >> s & 1),
        ]
    chops = 0
    for payment in state.chop_payments:
        if payment.payee == seat:
            chops += payment.amount
        if payment.payer == seat:
            chops -= payment.amount
    found.append(chops / rules.stake)
    return found


@dataclass(frozen=True, slots=True)
class LearnedLeafExpert(ExpertBot):
    """The expert whose playouts stop after `horizon` policy moves, scored by `evaluate`
    (endgame solves as the expert's)."""

    name: str = "learned"
    horizon: int = 24

    def play_out(self, state: GameState, seat: int) -> tuple[float, int]:
        """The expert's playout, cut after `horizon` moves when the preset has weights."""
        if not has_model(state.rules):
            return ExpertBot.play_out(self, state, seat)
        for moves in range(self.horizon + 1):
            if state.to_act < 0:
                return final_value(state)[seat], moves
            state = apply_in_turn(state, playout_play(state))
        return evaluate(state, seat), self.horizon + 1
