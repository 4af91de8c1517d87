"""The expert's policy (*tính bài*): greedy's plan with card counting on top.

`counted_play` is the greedy strategy (`greedy.greedy_play`) plus one thing a careful player
does near the end: count what the others may still hold. A play is a *boss* when nothing in the
cards the seat has not seen beats or chops it (`movegen.has_beat` on the unseen cards: it
assumes the worst, as if one opponent held them all). With few cards left, the seat looks for a
way to run out: lead (or beat with) bosses one after the other, and finish with whatever is left
in one play. When such a line exists it takes it; otherwise it plays greedy's move.

`base_play` answers for an observing seat, `policy_in` for a seat in a full (determinised) state
inside a playout, with the union of the other hands as its unseen cards (what a perfect counter
would know); `ranked_plays` orders a seat's plays for the search.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from tienlen_rules.bots.base import Observation, decline, to_move, unseen_cards
from tienlen_rules.bots.greedy import (
    DANGER,
    Situation,
    cheapest,
    greedy_play,
    lead_order,
    situation,
    situation_in,
)
from tienlen_rules.bots.plan import is_precious
from tienlen_rules.cards import CardSet
from tienlen_rules.combinations import Combination
from tienlen_rules.finishing import ranks_last
from tienlen_rules.game import legal_plays
from tienlen_rules.movegen import combination_list, has_beat
from tienlen_rules.ruleset import RuleSet
from tienlen_rules.state import GameState, Move

RUN_OUT_CARDS = 7
"""With this many cards or fewer, the policy looks for a line of bosses that runs out."""


@dataclass(frozen=True, slots=True)
class CountingBot:
    """The policy alone, no search: greedy plus card counting near the end (cheap)."""

    name: str = "counting"

    def choose(self, obs: Observation, rng: random.Random) -> Move:  # noqa: ARG002 - deterministic
        """The policy's move."""
        combo = base_play(obs)
        return decline(obs) if combo is None else to_move(obs.seat, combo)


def base_play(obs: Observation) -> Combination | None:
    """The policy's play for an observing seat (None: pass)."""
    return counted_play(situation(obs), unseen_cards(obs))


def policy_in(state: GameState, seat: int, plays: Sequence[Combination]) -> Combination | None:
    """The policy's play for the seat to act in a full (determinised) state."""
    unseen = 0
    for other, hand in enumerate(state.hands):
        if other != seat:
            unseen |= hand
    return counted_play(situation_in(state, seat, plays), unseen)


_Key = tuple[CardSet, CardSet, bool, int, CardSet]
_PLAYOUT_MEMO: dict[_Key, Combination | None] = {}
_PLAYOUT_MEMO_LIMIT = 1 << 16
_memo_rules: RuleSet | None = None


def playout_play(state: GameState) -> Combination | None:
    """`policy_in` for the seat to act, memoised: the policy's play is a function of the
    seat's hand, the table, whether an opponent is close to going out (on one card when
    leading, `DANGER` cards or fewer when following: all `greedy` reads of the danger), the
    card the first lead must hold, and, with `RUN_OUT_CARDS` or fewer, the union of the other
    hands. A hit skips the move generation too, which is most of a playout move's cost."""
    global _memo_rules  # noqa: PLW0603 - the memo's rule set, replaced with the memo
    seat = state.to_act
    hands = state.hands
    hand = hands[seat]
    places = state.places
    near = 99
    unseen = 0
    for other, cards in enumerate(hands):
        if other != seat:
            unseen |= cards
            if cards and not places[other]:
                count = cards.bit_count()
                near = min(near, count)
    table = state.table
    if table is None:
        key = (hand, 0, near == 1, state.must_include, 0)
    else:
        key = (hand, table.cards, near <= DANGER, -1, 0)
    if hand.bit_count() <= RUN_OUT_CARDS:
        key = (*key[:4], unseen)
    rules = state.rules
    if rules is not _memo_rules:
        _PLAYOUT_MEMO.clear()
        _memo_rules = rules
    try:
        return _PLAYOUT_MEMO[key]
    except KeyError:
        pass
    plays, _ = legal_plays(state, seat)
    found = counted_play(situation_in(state, seat, plays), unseen)
    if len(_PLAYOUT_MEMO) >= _PLAYOUT_MEMO_LIMIT:
        _PLAYOUT_MEMO.clear()
    _PLAYOUT_MEMO[key] = found
    return found


def counted_play(sit: Situation, unseen: CardSet) -> Combination | None:
    """Greedy's move, unless a line of bosses runs the hand out (see the module docstring)."""
    greedy = greedy_play(sit)
    if not sit.in_turn or not sit.plays or sit.hand.bit_count() > RUN_OUT_CARDS:
        return greedy
    if greedy is not None and greedy.cards == sit.hand:
        return greedy
    line = running_play(sit, unseen)
    return greedy if line is None else line


def running_play(sit: Situation, unseen: CardSet) -> Combination | None:
    """A boss among the seat's plays after which the rest of the hand runs out, if any."""
    rules, hand = sit.rules, sit.hand
    for combo in sorted(sit.plays, key=lambda c: (c.cards.bit_count(), c.kind, c.top)):
        if combo.cards == hand:
            continue
        if not has_beat(unseen, combo, rules) and _runs_out(
            hand & ~combo.cards, unseen, rules, sit.state
        ):
            return combo
    return None


_RUNS_OUT: dict[tuple[CardSet, CardSet, RuleSet], bool] = {}
_RUNS_OUT_LIMIT = 1 << 15


def _runs_out(hand: CardSet, unseen: CardSet, rules: RuleSet, state: GameState) -> bool:
    """Whether bosses, led one after another, and a last play empty the hand. Memoised on
    (hand, unseen, rules): `state` only answers `ranks_last`, which reads its rules."""
    key = (hand, unseen, rules)
    known = _RUNS_OUT.get(key)
    if known is not None:
        return known
    combos = combination_list(hand, rules)
    found = None
    for combo in combos:
        if combo.cards == hand:
            found = not ranks_last(state, combo)
            break
    if found is None:
        found = any(
            not has_beat(unseen, combo, rules)
            and _runs_out(hand & ~combo.cards, unseen, rules, state)
            for combo in combos
        )
    if len(_RUNS_OUT) >= _RUNS_OUT_LIMIT:
        _RUNS_OUT.clear()
    _RUNS_OUT[key] = found
    return found


def ranked_plays(obs: Observation) -> list[Combination]:
    """The seat's plays, the most promising first."""
    if obs.table is None and obs.in_turn:
        return lead_order(situation(obs))
    return sorted(obs.plays, key=lambda c: (is_precious(c, obs.rules), c.cards.bit_count(), c.top))


__all__ = ["CountingBot", "base_play", "cheapest", "policy_in", "ranked_plays"]
