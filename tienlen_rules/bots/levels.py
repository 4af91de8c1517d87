"""Difficulty levels (*độ khó*): the names a frontend offers, each mapped to a bot and its settings.

The strength of each level is measured, not claimed: `bench/bots.py` plays it 2 vs 2 against
`greedy` on the same seeded Southern deals, both seatings (docs/BOTS.md has the table and the
command); `strength` is that run's mean net per seat per game in stakes and `deals` how many
deals it played (`medium` is `greedy` itself: 0 by definition, not measured).
"""

from __future__ import annotations

from typing import NamedTuple


class Level(NamedTuple):
    """A difficulty level: its name, the bot spec behind it, a line for players, and its
    measured strength against `greedy` (stakes per seat per game, Southern, `deals` deals)."""

    name: str
    bot: str
    description: str
    strength: float
    deals: int


LEVELS: tuple[Level, ...] = (
    Level(
        "easy",
        "novice",
        "A beginner: plays the obvious move, but a random one about a third of the time, and"
        " never chops out of turn.",
        -0.30,
        300,
    ),
    Level(
        "medium",
        "greedy",
        "A careful casual player: sheds low cards, keeps 2s and bombs for chops, always chops.",
        0.0,
        0,
    ),
    Level(
        "hard",
        "expert:budget=600:max_candidates=3:round_samples=4",
        "Counts the cards and looks a little ahead on sampled deals before it plays.",
        0.20,
        150,
    ),
    Level(
        "expert",
        "expert",
        "Counts the cards and plays each choice out on many sampled deals; overrides its plan"
        " only when the deals clearly say so.",
        0.33,
        300,
    ),
)
"""The levels, easiest first."""

LEVELS_BY_NAME = {level.name: level for level in LEVELS}


def resolve(name: str) -> str:
    """The bot spec behind a level name; any other name is returned as it is (a bot spec)."""
    level = LEVELS_BY_NAME.get(name)
    return name if level is None else level.bot
