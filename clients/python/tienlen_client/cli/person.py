"""A person's seat at the terminal (`tienlen play`): moves read line by line from stdin.

At each of the seat's turns it shows the table and the hand, and reads a line:

- cards to play, as text: ``3S 4S 5S`` (``10D`` or ``TD``; ``3♠`` too);
- ``pass`` (or ``p``);
- ``hint``: what the ``greedy`` bot would play; ``auto``: play that;
- ``moves``: every legal move; ``help``; ``quit`` (or end of input).

A move the rules refuse, or text that is not a card, is answered with the reason in words and
the seat is asked again: the game goes on. Reading plain lines (no curses) keeps it usable in
any terminal and lets a test drive it through a pipe.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TextIO

from tienlen_client.cli.style import Style
from tienlen_client.client import TienLenClient
from tienlen_client.errors import InvalidRequest, MoveRejected
from tienlen_client.models import Game, LegalMove

HINT_BOT = "greedy"
HELP = (
    "type the cards to play (3S 4S 5S), pass, hint (a bot's idea), auto (play it), "
    "moves (every legal move), quit"
)


class LeftTheTable(Exception):  # noqa: N818 - an event, not a failure
    """The person typed quit, or the input ended."""


@dataclass
class Person:
    """The person at one seat: reads `stdin`, writes `out`."""

    client: TienLenClient
    stdin: TextIO
    out: TextIO
    style: Style

    def __call__(self, game: Game, seat: int) -> Game:
        """The game after the move the person chose for `seat` (asked until it is legal)."""
        self._show(game, seat)
        while True:
            print(self.style.paint("your move> ", "bold"), end="", file=self.out, flush=True)
            line = self.stdin.readline()
            if not line:
                print(file=self.out)
                raise LeftTheTable("the input ended")
            if not self.stdin.isatty():  # echo a piped move: the transcript reads as a session
                print(line.rstrip("\n"), file=self.out)
            answer = self._answer(game, seat, line.strip())
            if answer is not None:
                return answer

    def _answer(self, game: Game, seat: int, text: str) -> Game | None:
        """The game after `text`'s move, or None when the seat is to be asked again."""
        word = text.lower()
        try:
            if word in {"quit", "q", "exit"}:
                raise LeftTheTable("you left the table")
            if word in {"", "help", "?", "h"}:
                self._say(HELP)
                return None
            if word in {"moves", "m"}:
                self._say(*self._moves(game, seat))
                return None
            if word in {"hint", "auto", "a"}:
                move = self.client.suggest(game, seat, HINT_BOT)
                if word == "hint":
                    self._say(f"{HINT_BOT} would {self._describe(move)}")
                    return None
                text = "pass" if move is None or move.is_pass else " ".join(move.cards)
                word = text.lower()
            if word in {"pass", "p"}:
                return self.client.pass_turn(game, seat)
            return self.client.play(game, seat, text)
        except (MoveRejected, InvalidRequest) as refused:
            self._say(self.style.paint(f"not allowed: {refused.message}", "red"))
            return None

    def _show(self, game: Game, seat: int) -> None:
        s = self.style
        view = self.client.view(game, seat)
        table = view.table
        on_table = (
            f"seat {view.table_seat} played {s.cards(table.cards)} ({table.label})"
            if table is not None
            else "nothing: you lead"
        )
        must = f"; your play must include {s.card(view.must_include)}" if view.must_include else ""
        self._say(
            "",
            s.paint(f"Your turn, seat {seat}.", "bold") + f" On the table: {on_table}{must}",
            f"Your hand ({len(view.hand)}): {s.cards(view.hand)}",
        )

    def _moves(self, game: Game, seat: int) -> list[str]:
        moves = self.client.legal_moves(game, seat)
        return [f"  {self._describe(m)}" for m in moves]

    def _describe(self, move: LegalMove | None) -> str:
        if move is None or move.is_pass:
            return "pass"
        label = f" ({move.combination.label})" if move.combination is not None else ""
        chop = " — a chop" if move.chop else ""
        return f"play {self.style.cards(move.cards)}{label}{chop}"

    def _say(self, *lines: str) -> None:
        for line in lines:
            print(line, file=self.out)
        self.out.flush()
