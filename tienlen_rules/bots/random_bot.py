"""The random bot (*đánh bừa*): a uniformly random legal move — the baseline every other bot
must beat, and the fastest way to explore the engine's state space in simulation."""

from __future__ import annotations

import random
from dataclasses import dataclass

from tienlen_rules.bots.base import Observation, decline, to_move
from tienlen_rules.state import Move


@dataclass(frozen=True, slots=True)
class RandomBot:
    """Uniform over the legal moves: each play, and the pass when it is allowed (out of turn,
    letting a chop or steal go counts as one more choice)."""

    name: str = "random"

    def choose(self, obs: Observation, rng: random.Random) -> Move:
        """A uniformly drawn legal move."""
        choices = len(obs.plays) + obs.can_pass
        pick = rng.randrange(choices)
        if pick == len(obs.plays):
            return decline(obs)
        return to_move(obs.seat, obs.plays[pick])
