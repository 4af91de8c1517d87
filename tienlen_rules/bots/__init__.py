"""Bots (*máy*): strategies that play a seat from what that seat may see.

`make_bot("greedy")` or `make_bot("montecarlo:samples=32:max_candidates=4")` builds one by
name; `suggest_move` asks a bot for a seat's move in a state (the `SuggestMove` RPC).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from tienlen_rules.bots.base import Bot, Observation, checkpoint, observe, watched
from tienlen_rules.bots.expert import ExpertBot
from tienlen_rules.bots.greedy import GreedyBot
from tienlen_rules.bots.levels import LEVELS, LEVELS_BY_NAME, Level, resolve
from tienlen_rules.bots.montecarlo import MonteCarloBot
from tienlen_rules.bots.novice import NoviceBot
from tienlen_rules.bots.policy import CountingBot
from tienlen_rules.bots.random_bot import RandomBot
from tienlen_rules.state import GameState, Move

__all__ = [
    "BOTS",
    "LEVELS",
    "LEVELS_BY_NAME",
    "Bot",
    "ExpertBot",
    "GreedyBot",
    "Level",
    "MonteCarloBot",
    "Observation",
    "RandomBot",
    "Suggestion",
    "make_bot",
    "observe",
    "suggest",
    "suggest_move",
]

BOTS: dict[str, Callable[..., Bot]] = {
    "random": RandomBot,
    "novice": NoviceBot,
    "greedy": GreedyBot,
    "montecarlo": MonteCarloBot,
    "counting": CountingBot,
    "expert": ExpertBot,
}
"""The registry: bot name -> factory taking the bot's keyword parameters."""


def make_bot(spec: str) -> Bot:
    """A bot from ``name`` or ``name:param=value:param=value`` (integer or float values; not
    commas, which separate the seats' bots on the simulator's command line), or a difficulty
    level's name (`levels.LEVELS`: "easy", "medium", "hard", "expert")."""
    spec = resolve(spec.strip())
    name, _, params = spec.partition(":")
    factory = BOTS.get(name.strip())
    if factory is None:
        raise ValueError(f"unknown bot {name!r}; known: {', '.join(BOTS)}")
    kwargs: dict[str, int | float] = {}
    for item in filter(None, (p.strip() for p in params.split(":"))):
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"bot parameter {item!r} is not key=value")
        kwargs[key.strip()] = float(value) if "." in value else int(value)
    try:
        return factory(**kwargs)
    except TypeError as exc:
        raise ValueError(f"bot {name!r}: {exc}") from None


def suggest_move(
    state: GameState,
    seat: int,
    bot: str = "greedy",
    *,
    seed: int | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Move | None:
    """The move `bot` would make for `seat` now, or None when the seat has nothing to do.

    `should_stop`: a cheap check asked between the suggestion's steps and, by a search,
    between samples; once it answers True the bot gives up with `Abandoned` (the caller no
    longer wants the answer). Every bot gets it (`base.watched`): the searches stop within a
    playout, the others within one legal-move generation."""
    obs = observe(state, seat)
    if not obs.plays and not (obs.in_turn and obs.can_pass):
        return None
    chosen = watched(make_bot(bot), should_stop)
    checkpoint(should_stop)
    move = chosen.choose(obs, random.Random(seed))  # noqa: S311 - a game move, not a secret
    return None if move.is_pass and not obs.in_turn else move


from tienlen_rules.bots.hints import Suggestion, suggest  # noqa: E402 - builds on make_bot
