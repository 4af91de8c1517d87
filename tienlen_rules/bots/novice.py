"""The novice bot (*người mới chơi*): greedy's plan with beginner's mistakes, for an easy table.

With probability `mistakes` a decision in turn is a uniformly random legal move (a play, or the
pass when allowed) instead of greedy's; otherwise it is greedy's. A play of its whole hand is
never missed: even a beginner goes out (về) when the cards allow it. Out of turn it lets every
chop and steal go, as a beginner who does not know them would.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from tienlen_rules.bots.base import Observation, decline, to_move
from tienlen_rules.bots.greedy import greedy_play, situation
from tienlen_rules.state import Move


@dataclass(frozen=True, slots=True)
class NoviceBot:
    """Greedy, except a random move a `mistakes` share of the time in turn."""

    name: str = "novice"
    mistakes: float = 0.3

    def choose(self, obs: Observation, rng: random.Random) -> Move:
        """Greedy's move, or a random one."""
        if not obs.in_turn:
            return decline(obs)
        going_out = next((c for c in obs.plays if c.cards == obs.hand), None)
        if going_out is not None:
            return to_move(obs.seat, going_out)
        if rng.random() < self.mistakes:
            pick = rng.randrange(len(obs.plays) + obs.can_pass)
            if pick == len(obs.plays):
                return decline(obs)
            return to_move(obs.seat, obs.plays[pick])
        combo = greedy_play(situation(obs))
        return decline(obs) if combo is None else to_move(obs.seat, combo)
