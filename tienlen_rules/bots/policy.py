"""The expert's policy: the move it makes without searching, and the order it searches in.

It is the greedy plan (`greedy.greedy_play`) with card counting on top.
"""

from __future__ import annotations

from collections.abc import Sequence

from tienlen_rules.bots.base import Observation
from tienlen_rules.bots.greedy import greedy_play, lead_order, situation, situation_in
from tienlen_rules.bots.plan import is_precious
from tienlen_rules.combinations import Combination
from tienlen_rules.state import GameState


def base_play(obs: Observation) -> Combination | None:
    """The policy's play for an observing seat (None: pass)."""
    return greedy_play(situation(obs))


def policy_in(state: GameState, seat: int, plays: Sequence[Combination]) -> Combination | None:
    """The policy's play for the seat to act in a full (determinised) state."""
    return greedy_play(situation_in(state, seat, plays))


def ranked_plays(obs: Observation) -> list[Combination]:
    """The seat's plays, the most promising first."""
    if obs.table is None and obs.in_turn:
        return lead_order(situation(obs))
    return sorted(obs.plays, key=lambda c: (is_precious(c, obs.rules), c.cards.bit_count(), c.top))
