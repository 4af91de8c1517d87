"""One table played to its end: the seats' players (bots or a person), the deal, the moves.

`Table` deals a game with the options of the command line and moves for whichever seat is to
act: a bot asks the service for its move (SuggestMove: ``greedy``, ``montecarlo``, ``random``)
and makes it; a person is asked (`tienlen play`). Every step's events are told by the
`Narrator` as they come.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TextIO

import grpc

from tienlen_client.cli.narrate import Narrator, settlement_lines
from tienlen_client.cli.style import Style
from tienlen_client.client import TienLenClient
from tienlen_client.errors import InvalidRequest
from tienlen_client.models import Game
from tienlen_client.rules import Rules

MAX_MOVES = 2000
"""A game of four takes well under 200 moves; the bound only stops a runaway loop."""

SEED_LIMIT = 2**31
"""Seeds the tool picks itself (printed, so that the deal can be replayed) are below this."""

Person = Callable[[Game, int], Game]
"""A person's turn: the game after the move they chose for the seat."""


def parse_options(pairs: Sequence[str]) -> dict[str, str]:
    """``NAME=VALUE`` pairs of ``--option`` -> the options of `new_game`."""
    options: dict[str, str] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep or not name.strip():
            raise InvalidRequest(
                grpc.StatusCode.INVALID_ARGUMENT,
                "INVALID_OPTION_VALUE",
                f"--option {pair!r}: write NAME=VALUE, e.g. --option stake=50",
            )
        options[name.strip()] = value.strip()
    return options


def seat_bots(spec: str, players: int, rules: Rules) -> list[str]:
    """The bot of each seat from ``--bots``: comma-separated names, repeated around the table
    when fewer than the seats (``greedy`` alone: every seat)."""
    names = [name.strip() for name in spec.split(",") if name.strip()]
    if not names:
        raise InvalidRequest(grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_BOT", "--bots names no bot")
    for name in names:
        if name not in rules.bots:
            raise InvalidRequest(
                grpc.StatusCode.INVALID_ARGUMENT,
                "UNKNOWN_BOT",
                f"unknown bot {name!r}; the bots are {', '.join(rules.bots)}",
            )
    return [names[seat % len(names)] for seat in range(players)]


@dataclass
class Table:
    """A game between bots (and perhaps one person) through `client`, told on `out`."""

    client: TienLenClient
    out: TextIO
    style: Style
    variant: str
    players: int | None
    seed: int | None
    options: dict[str, str]
    delay: float = 0.0
    names: list[str] = field(default_factory=list)
    game: Game | None = None
    """The last game `play_out` reached (its record is saved even when a person leaves)."""

    def deal(self) -> Game:
        """Deal (a seed the tool picks when none was given, so that the deal can be replayed)."""
        if self.seed is None:
            self.seed = secrets.randbelow(SEED_LIMIT)
        return self.client.new_game(
            variant=self.variant, players=self.players, seed=self.seed, options=self.options
        )

    def say(self, *lines: str) -> None:
        """Print lines, at once (a person may be watching a pipe)."""
        for line in lines:
            print(line, file=self.out)
        self.out.flush()

    def play_out(self, game: Game, bots: Sequence[str | None], person: Person | None) -> Game:
        """Move until the game is over: the bot of each seat, or `person` for a seat whose bot
        is None. Tells every step, then the settlement."""
        narrator = Narrator(self.names, self.style)
        self.say(*narrator.lines(game.events))
        for _ in range(MAX_MOVES):
            self.game = game
            if game.finished or game.to_act is None:
                self.say("", *settlement_lines(game, self.names, self.style))
                return game
            seat = game.to_act
            bot = bots[seat]
            if bot is None:
                if person is None:
                    raise ValueError(f"seat {seat} has neither a bot nor a person")
                game = person(game, seat)
            else:
                game = self.bot_move(game, seat, bot)
                if self.delay > 0:
                    time.sleep(self.delay)  # a pace a person can follow on a terminal
            self.say(*narrator.lines(game.events))
        raise RuntimeError(f"the game did not end in {MAX_MOVES} moves")

    def bot_move(self, game: Game, seat: int, bot: str) -> Game:
        """The move `bot` suggests for `seat`, made."""
        move = self.client.suggest(game, seat, bot)
        if move is None or move.is_pass:
            return self.client.pass_turn(game, seat)
        return self.client.play(game, seat, move.cards)

    def heading(self, game: Game) -> str:
        """``southern, 4 players, seed 7``."""
        options = "".join(f", {k}={v}" for k, v in self.options.items())
        return f"{self.variant}, {game.players} players, seed {self.seed}{options}"
