"""A table of people (RULES §9, docs/HOSTS.md): who sits where between games, and the host's
reports during one.

Players change only between games. `next_game(game, leaving=[...], joining=[Newcomer(...)])`
sends NextGame the table's people (`TableSeating`): the seats whose players stay — every
occupied seat but those `leaving` (and those whose player left during the game, which the next
game drops by itself) — and the newcomers, each in a seat that is empty for the next game. The
newcomers' seat tokens come back in NextGame's answer (index = seat) and take their place in
`game.seat_tokens`; a leaver's token is dropped (the service refuses it from then on).

During a game the host reports what the engine can't see: a seat whose time ran out (a
time-out move) and a player who left (a leave move).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import grpc

from tienlen.v1 import moves_pb2, service_pb2
from tienlen_client.errors import InvalidRequest
from tienlen_client.models import Game

TIMEOUT_MOVE = moves_pb2.Move(timeout=moves_pb2.Timeout())
"""The host's report that the seat to act ran out of time (RULES §9.3)."""

LEAVE_MOVE = moves_pb2.Move(leave=moves_pb2.Leave())
"""The host's report that the seat's player left during the game (RULES §9.4)."""


@dataclass(frozen=True, slots=True)
class Newcomer:
    """A player who sits down between games: in `seat` (empty in the next game, a leaver's
    included), with the host's own opaque `player_id` ("" for none) and, where the table plays
    with bankrolls and `next_game` is given none, the chips it brings (`bankroll`)."""

    seat: int
    player_id: str = ""
    bankroll: int | None = None

    def to_pb(self) -> service_pb2.Newcomer:
        """The contract's `tienlen.v1.Newcomer`."""
        return service_pb2.Newcomer(
            seat=self.seat, player_id=self.player_id, bankroll=self.bankroll
        )


def staying_seats(game: Game, leaving: Iterable[int]) -> tuple[int, ...]:
    """The seats whose players stay for the next game: every occupied seat of `game` but those
    `leaving` and those whose player left during it. InvalidRequest (INVALID_SEAT, no call made)
    for a leaving seat nobody sits in."""
    seats = game.view.seats
    gone = set(leaving)
    for seat in sorted(gone):
        if not 0 <= seat < len(seats) or seats[seat].empty:
            raise InvalidRequest(
                grpc.StatusCode.INVALID_ARGUMENT,
                "INVALID_SEAT",
                f"nobody sits in seat {seat}: only a seated player can leave",
                {"seat": str(seat)},
                (("leaving", f"seat {seat} is empty or not at this table"),),
            )
    return tuple(s.seat for s in seats if not (s.empty or s.left or s.seat in gone))


def seating(
    game: Game, leaving: Iterable[int], joining: Sequence[Newcomer]
) -> service_pb2.TableSeating:
    """NextGame's `seating` for these changes (see `staying_seats`)."""
    return service_pb2.TableSeating(
        staying=staying_seats(game, leaving), newcomers=[n.to_pb() for n in joining]
    )


def seat_tokens_after(
    game: Game, next_players: int, newcomers: Sequence[str], staying: Iterable[int] | None
) -> tuple[str, ...]:
    """The match's seat tokens for the next game: a newcomer's from NextGame's answer
    (`newcomers`, index = seat, "" for the others), a staying player's unchanged, "" for an
    empty seat (a leaver's token opens nothing any more). `staying`: the seats listed as
    staying, or None when every player stayed but those who left during the game."""
    kept = (
        {s.seat for s in game.view.seats if not (s.empty or s.left)}
        if staying is None
        else set(staying)
    )
    return tuple(
        newcomers[seat]
        if seat < len(newcomers) and newcomers[seat]
        else game.seat_token(seat)
        if seat in kept
        else ""
        for seat in range(next_players)
    )
