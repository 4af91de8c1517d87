"""The greedy bot (*đánh theo kinh nghiệm*): how a careful casual player plays.

* Leading (*đánh trước*): shed the weakest unit — the play holding the lowest card that leaves
  the hand needing the fewest further plays (`plan.plan_cost`); keep 2s (*heo*) and bombs
  (*hàng*) for later. When an opponent is down to one card, lead anything but a single, or the
  highest single.
* Following (*đè*): beat with the lowest play that breaks no combination; chop a 2 or a bomb
  whenever possible (chops are paid, RULES §8); spend a 2 only late (few cards left, or an
  opponent close to going out) or on an ace; otherwise pass rather than waste it early.
* Out of turn: chop whenever the rules allow it, steal the lead (*cướp cái*) when possible.
* Going out: always, unless going out this way ranks you last (a 2 in the North or Huế).

The strategy reads a `Situation`, built from a seat's `Observation` or, inside Monte-Carlo
playouts, straight from a (determinised) state.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from tienlen_rules.bots.base import Observation, decline, to_move
from tienlen_rules.bots.plan import is_precious, plan_cost
from tienlen_rules.cards import RANK_ACE, CardSet
from tienlen_rules.combinations import Combination, Kind
from tienlen_rules.finishing import ranks_last
from tienlen_rules.listing import chops
from tienlen_rules.ruleset import RuleSet
from tienlen_rules.state import GameState, Move

LATE_HAND = 5
"""With this many cards or fewer, a player stops saving 2s."""
DANGER = 3
"""An opponent with this many cards or fewer may go out soon: stop saving 2s."""


class Situation(NamedTuple):
    """What the heuristics look at: the seat's hand and plays, the table, and how close the
    nearest opponent is to going out (`danger`: its card count)."""

    seat: int
    hand: CardSet
    plays: Sequence[Combination]
    in_turn: bool
    table: Combination | None
    danger: int
    state: GameState

    @property
    def rules(self) -> RuleSet:
        """The rules of the game."""
        return self.state.rules


def situation(obs: Observation) -> Situation:
    """The situation of an observing seat."""
    counts = obs.hand_counts
    places = obs.public.places
    near = min(
        (n for s, n in enumerate(counts) if s != obs.seat and not places[s] and n), default=99
    )
    return Situation(obs.seat, obs.hand, obs.plays, obs.in_turn, obs.table, near, obs.public)


def situation_in(state: GameState, seat: int, plays: Sequence[Combination]) -> Situation:
    """The situation of the seat to act in a full state (Monte-Carlo playouts)."""
    hands = state.hands
    near = min(
        (h.bit_count() for s, h in enumerate(hands) if s != seat and h and not state.places[s]),
        default=99,
    )
    return Situation(seat, hands[seat], plays, seat == state.to_act, state.table, near, state)


@dataclass(frozen=True, slots=True)
class GreedyBot:
    """Human-like heuristics; deterministic given the observation (`rng` is unused)."""

    name: str = "greedy"

    def choose(self, obs: Observation, rng: random.Random) -> Move:  # noqa: ARG002 - deterministic
        """The heuristic move."""
        combo = greedy_play(situation(obs))
        return decline(obs) if combo is None else to_move(obs.seat, combo)


def greedy_play(sit: Situation) -> Combination | None:
    """The play the greedy strategy makes, or None to pass (or let an out-of-turn chance go)."""
    if not sit.plays:
        return None
    if not sit.in_turn:
        return cheapest(sit.plays)
    for combo in sit.plays:
        if combo.cards == sit.hand and not ranks_last(sit.state, combo):
            return combo
    if sit.table is None:
        return lead(sit)
    return follow(sit)


def lead_order(sit: Situation) -> list[Combination]:
    """Leads from best to worst: no 2s or bombs, fewest plays left after it, the lowest card
    shed, the most cards shed, the lowest top."""
    rules, hand = sit.rules, sit.hand
    return sorted(sit.plays, key=lambda c: _lead_key(c, hand, rules))


def _lead_key(combo: Combination, hand: CardSet, rules: RuleSet) -> tuple[bool, int, int, int, int]:
    low = (combo.cards & -combo.cards).bit_length()
    return (
        is_precious(combo, rules),
        plan_cost(hand & ~combo.cards, rules),
        low,
        -combo.cards.bit_count(),
        combo.top,
    )


def lead(sit: Situation) -> Combination:
    """Lead the weakest unit; with an opponent on one card, avoid singles (or lead the highest)."""
    if sit.danger == 1:
        multi = [c for c in sit.plays if c.kind != Kind.SINGLE]
        if multi:
            return lead_order(sit._replace(plays=multi))[0]
        return max(sit.plays, key=lambda c: (not is_precious(c, sit.rules), c.top))
    rules, hand = sit.rules, sit.hand
    return min(sit.plays, key=lambda c: _lead_key(c, hand, rules))


def follow(sit: Situation) -> Combination | None:
    """Beat with the cheapest play that keeps the hand whole; chop 2s and bombs; save 2s."""
    table = sit.table
    assert table is not None
    rules, hand = sit.rules, sit.hand
    chopping = [c for c in sit.plays if chops(sit.state, c)]
    if chopping:
        return cheapest(chopping)
    plain = [c for c in sit.plays if not is_precious(c, rules)]
    late = hand.bit_count() <= LATE_HAND or sit.danger <= DANGER
    if plain:
        before = plan_cost(hand, rules)
        best = min(plain, key=lambda c: (plan_cost(hand & ~c.cards, rules) - before, c.top))
        if plan_cost(hand & ~best.cards, rules) <= before or late or table.top_rank >= RANK_ACE - 2:
            return best
    if late or table.top_rank >= RANK_ACE:
        return cheapest(sit.plays)
    return None


def cheapest(plays: Sequence[Combination]) -> Combination:
    """The smallest play: fewest cards, then the lowest type and top."""
    return min(plays, key=lambda c: (c.cards.bit_count(), c.kind, c.top))
