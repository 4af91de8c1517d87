"""``tienlen replay FILE``: a record file (docs/RECORDS.md) played again by the service.

The service checks the whole record at once (ReplayGame: every move from the deal, as ApplyMove
would apply it, and the stated result), and answers every event from the deal on. The tool
draws them move by move, as ``watch`` draws a game (the same `Narrator` and settlement table):
a move is its Played or Passed event and what follows from it, up to the next move (a host's
time-out starts with its TimedOut, a leave is its PlayerLeft). Each game starts with who sits
where (the host's player ids when the record has no names; empty seats, seats on auto). What is
drawn is therefore exactly what the service accepted; nothing is judged by the tool.

A record the service refuses is drawn up to the move before the one at fault (the record cut
there, replayed as unfinished), then one line says which move and why, and the exit status is
1. Text that is not a record is one line with its line and column. A file with several games
(a match, as the simulator writes) is replayed game by game.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from tienlen_client.cli.narrate import Narrator, seats_line, settlement_lines
from tienlen_client.cli.style import Style
from tienlen_client.client import TienLenClient
from tienlen_client.errors import InvalidRequest
from tienlen_client.events import Event, Passed, Played, PlayerLeft, TimedOut
from tienlen_client.models import Game, SeatInfo
from tienlen_client.record import GameRecord, MatchRecord, RecordParseError
from tienlen_client.record_log import RecordMoveRejected

RESULT_MISMATCH = "RECORD_RESULT_MISMATCH"


class RecordRefused(Exception):  # noqa: N818 - an outcome the tool reports, as LeftTheTable
    """The record can't be replayed: the one line that says where and why."""


def read_match(path: str) -> MatchRecord:
    """The games of a record file; RecordRefused with the file's name and the parse error's
    line and column (or why the file can't be read)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordRefused(f"{path}: can't read the record: {exc}") from None
    try:
        return MatchRecord.from_text(text)
    except RecordParseError as exc:
        raise RecordRefused(f"{path}: not a game record: {exc.message}") from None


def steps(events: Sequence[Event]) -> Iterator[list[Event]]:
    """A replay's events cut into steps: first the deal's, then one per move — its Played or
    Passed event (after its TimedOut, for a host's time-out) or its PlayerLeft, and the events
    that follow from it, up to the next move."""
    step: list[Event] = []
    for event in events:
        timed_out = bool(step) and isinstance(step[-1], TimedOut)
        if isinstance(event, TimedOut | PlayerLeft) or (
            isinstance(event, Played | Passed) and not timed_out
        ):
            yield step
            step = []
        step.append(event)
    yield step


@dataclass
class Replayer:
    """Replays records through `client` and draws them on `out`."""

    client: TienLenClient
    out: TextIO
    style: Style
    delay: float = 0.0
    step: bool = False
    stdin: TextIO = sys.stdin

    def replay_match(self, match: MatchRecord, path: str) -> Game:
        """Every game of the match in turn; the last one's final Game. RecordRefused (one
        line: the game, the move and the reason) at the first refusal."""
        game: Game | None = None
        for number, record in enumerate(match.games, 1):
            where = f"{path}: game {number} of {len(match.games)}" if len(match.games) > 1 else path
            if number > 1:
                self.say("")
            game = self.replay_game(record, where)
        if game is None:  # pragma: no cover - from_text refuses a text without a game
            raise RecordRefused(f"{path}: no game in the record")
        return game

    def replay_game(self, record: GameRecord, where: str) -> Game:
        """One game: checked by the service, drawn move by move, then its settlement."""
        names = record.names or record.player_ids or tuple("player" for _ in range(record.players))
        self.say(self.style.paint(_heading(record), "bold"))
        self.say(seats_line(_dealt_seats(record), names, self.style), "")
        try:
            game = self.client.replay(record)
        except RecordMoveRejected as refused:
            move = refused.move_number
            self._draw(self._replay_prefix(record, move - 1), names)
            reason = refused.metadata.get("move_reason", refused.reason)
            said = (
                refused.message
            )  # the service's sentence names the move: "move 3 (seat 0: 4S) ..."
            if not said.startswith(f"move {move} "):
                said = f"move {move} ({_move_text(record, move)}) is refused: {said}"
            raise RecordRefused(f"{where}: {said} ({reason})") from None
        except InvalidRequest as refused:
            if refused.reason != RESULT_MISMATCH:
                raise RecordRefused(
                    f"{where}: the service refuses the record: {refused.message} ({refused.reason})"
                ) from None
            # Every move is legal but the stated result is not where they lead: show the game
            # as played, then say so.
            played = self.client.replay(dataclasses.replace(record, result=None))
            self._draw(played, names)
            raise RecordRefused(
                f"{where}: every move is legal, but the record's result is not the game's: "
                f"{refused.message} ({refused.reason})"
            ) from None
        self._draw(game, names)
        return game

    def _replay_prefix(self, record: GameRecord, moves: int) -> Game:
        """The game after the record's first `moves` moves (all legal: the service said so)."""
        return self.client.replay(
            dataclasses.replace(record, moves=record.moves[:moves], result=None)
        )

    def _draw(self, game: Game, names: Sequence[str]) -> None:
        narrator = Narrator(names, self.style)
        for index, step in enumerate(steps(game.events)):
            if index > 0:
                self._wait()
            self.say(*narrator.lines(step))
        if game.finished:
            self.say("", *settlement_lines(game, names, self.style))
        else:
            self.say("", self.style.paint("(the record ends here: the game is unfinished)", "dim"))

    def _wait(self) -> None:
        """Between moves: Enter with --step on a terminal, else the --delay."""
        if self.step and self.stdin.isatty():
            print(
                self.style.paint("  (Enter: next move)", "dim"), end="", file=self.out, flush=True
            )
            if not self.stdin.readline():
                self.step = False  # input closed: play the rest through
        elif self.delay > 0:
            time.sleep(self.delay)  # a pace a person can follow on a terminal

    def say(self, *lines: str) -> None:
        """Print lines, at once."""
        for line in lines:
            print(line, file=self.out)
        self.out.flush()


def _heading(record: GameRecord) -> str:
    """``southern, 3 players, game 1`` and the record's option overrides."""
    options = "".join(f", {name}={value}" for name, value in record.options)
    return f"{record.variant}, {record.players} players, game {record.game_number}{options}"


def _dealt_seats(record: GameRecord) -> list[SeatInfo]:
    """The record's seats as dealt: empty ones, seats on auto, bankrolls."""
    return [
        SeatInfo(
            seat,
            len(record.hands[seat]) if seat < len(record.hands) else 0,
            0,
            passed=False,
            frozen=False,
            match_total=record.match_totals[seat] if seat < len(record.match_totals) else 0,
            empty=seat in record.empty_seats,
            auto=seat in record.auto_seats,
            bankroll=record.bankrolls[seat] if record.bankrolls else None,
        )
        for seat in range(record.players)
    ]


def _move_text(record: GameRecord, number: int) -> str:
    """``seat 1 plays 2H`` for move `number` (1-based) of the record."""
    if not 1 <= number <= len(record.moves):
        return "beyond the record's moves"
    move = record.moves[number - 1]
    if move.timeout:
        return f"seat {move.seat}'s time-out"
    if move.leave:
        return f"seat {move.seat} leaves"
    return (
        f"seat {move.seat} passes"
        if move.is_pass
        else f"seat {move.seat} plays {' '.join(move.cards)}"
    )
