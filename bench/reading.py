"""Reading the hands from the passes (*đoán bài*): deals weighted by how likely each opponent's
passes were under a model of how players play. Measured for issue #40 and not kept in the
engine (`bench/bots.py` plays it as `reading`): over 100 Southern deals against the expert it
scored +0.00 [-0.10, +0.11] with every pass of the game (which the state does not keep), so no
field was added to the state for it (docs/BOTS.md).

A player who passes in turn on a play it could have beaten cheaply is rare: a careful player
(the `greedy` plan) chops a 2 whenever it can, and beats with any play that spends no 2 or
bomb and leaves its plan no longer (`would_beat`). Cards only ever leave a hand, so a hand
that holds such a beat now held it at the pass too: a sampled deal giving a seat such a hand
is unlikely, by a factor `SURPRISE` per pass it contradicts.

The evidence is, per seat, the plays it passed on in turn (`Passes`): only the lowest of each
kind and length is kept (a hand that could not beat it could not beat a higher one either),
and, apart, the 2s it let through (chop evidence, which a lower single would hide).

`weighted_deal` draws deals from the uniform law and accepts each with probability
`SURPRISE ** (passes it contradicts)` (rejection sampling: the accepted deals are draws from
the weighted law), up to `tries` draws; every draw costs `TRY_NODES` nodes of the search's
budget.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from tienlen_rules.beating import Beat, beat
from tienlen_rules.bots.base import Observation
from tienlen_rules.bots.montecarlo import determinise
from tienlen_rules.bots.plan import is_precious, plan_cost
from tienlen_rules.cards import TWOS, CardSet
from tienlen_rules.combinations import Combination, chop_class, classify
from tienlen_rules.movegen import has_beat, plays_beating
from tienlen_rules.ruleset import RuleSet
from tienlen_rules.state import GameState

SURPRISE = 0.1
"""How much less likely a deal is for each pass it makes a careful player's mistake."""
TRY_NODES = 2
"""Nodes of the search's budget one weighted draw costs (a uniform deal and a few
`would_beat`)."""


class Passes(NamedTuple):
    """The plays each seat passed on in turn this game (the informative ones: see the module)."""

    tables: tuple[tuple[CardSet, ...], ...]

    @classmethod
    def none(cls, players: int) -> Passes:
        """No pass seen yet."""
        return cls(((),) * players)

    def add(self, seat: int, table: Combination, rules: RuleSet) -> Passes:
        """The evidence after `seat` passed in turn on `table`."""
        kept: list[CardSet] = []
        placed = False
        two = bool(table.cards & TWOS) and chop_class(table) is not None
        for cards in self.tables[seat]:
            old = classify(cards, rules)
            if old is None:  # pragma: no cover - only plays are recorded
                continue
            same = (old.kind, old.length) == (table.kind, table.length) and (
                bool(old.cards & TWOS) == two
            )
            if same:
                placed = True
                kept.append(cards if old.top <= table.top else table.cards)
            else:
                kept.append(cards)
        if not placed:
            kept.append(table.cards)
        tables = list(self.tables)
        tables[seat] = tuple(sorted(kept))
        return Passes(tuple(tables))


def round_passes(obs: Observation) -> Passes:
    """The evidence the state itself keeps: the seats that passed in this round, each on a
    play no higher than the table (the one it passed on may have been lower: a hand that beats
    the table would have beaten that one too, but for its plan)."""
    table = obs.table
    passes = Passes.none(len(obs.hand_counts))
    if table is None:
        return passes
    for seat in range(len(obs.hand_counts)):
        if obs.public.passed >> seat & 1 and seat != obs.seat:
            passes = passes.add(seat, table, obs.rules)
    return passes


def merged(a: Passes, b: Passes, rules: RuleSet) -> Passes:
    """Both pieces of evidence together."""
    for seat, tables in enumerate(b.tables):
        for cards in tables:
            table = classify(cards, rules)
            if table is not None:
                a = a.add(seat, table, rules)
    return a


def would_beat(hand: CardSet, table: Combination, rules: RuleSet) -> bool:
    """Whether a careful player holding `hand` would not pass on `table`: it can chop it, or
    beat it with a play that spends no 2 or bomb and leaves its plan no longer."""
    if not has_beat(hand, table, rules):
        return False
    before = plan_cost(hand, rules)
    for combo in plays_beating(hand, table, rules):
        if beat(combo, table, rules)[0] is Beat.CHOPS:
            return True  # a chop: always played
        if not is_precious(combo, rules) and plan_cost(hand & ~combo.cards, rules) <= before:
            return True
    return False


def surprises(state: GameState, passes: Passes, seat: int) -> int:
    """How many of `seat`'s recorded passes its hand in `state` contradicts."""
    rules = state.rules
    hand = state.hands[seat]
    found = 0
    for cards in passes.tables[seat]:
        table = classify(cards, rules)
        if table is not None and would_beat(hand, table, rules):
            found += 1
    return found


def weighted_deal(
    obs: Observation,
    passes: Passes,
    rng: random.Random,
    tries: int,
    surprise: float = SURPRISE,
) -> tuple[GameState, int]:
    """A deal drawn from the law weighted by the passes (see the module), and the draws it
    took; after `tries` draws, the least surprising one."""
    seats = [s for s in range(len(obs.hand_counts)) if s != obs.seat and passes.tables[s]]
    best: GameState | None = None
    fewest = 1 << 30
    for attempt in range(1, tries + 1):
        deal = determinise(obs, rng)
        count = sum(surprises(deal, passes, s) for s in seats)
        if count == 0 or rng.random() < surprise**count:
            return deal, attempt
        if count < fewest:
            best, fewest = deal, count
    assert best is not None  # tries >= 1
    return best, tries
