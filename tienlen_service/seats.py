"""Seats and their tokens (RULES §9.1, docs/SECURITY.md): who may act or look for a seat.

NewGame gives one seat token per seat; NextGame gives a newcomer a token of its own (bound to
the occupant number the match state keeps for its seat, so it is not the token of the player who
left that seat), and a leaver's token opens nothing from then on. `Seats.check` is the one place
a call made for a seat is let in: the seat must be at the table and occupied, and, where the
service requires seat tokens, the call must carry the token of the seat's present player. The
host's credential (`Dealer.is_host`) decides whether an answer may name the seats that could
chop out of turn (RULES §9.5).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import tienlen_rules as engine
from tienlen_rules import EMPTY_SEAT, IllegalMove, Reason
from tienlen_service.statuses import SeatTokenError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tienlen_rules import Event, GameState
    from tienlen_service.dealing import Dealer
    from tienlen_service.tokens import TokenCodec


def occupant(state: GameState, seat: int) -> int:
    """The occupant number of the seat's present player (0: a player the match was dealt for)."""
    occupants = state.match.occupants
    return occupants[seat] if occupants else 0


class Seats:
    """The seat tokens of a service: minted for new matches and newcomers, checked per call."""

    __slots__ = ("_dealer", "_require", "_tokens")

    def __init__(self, tokens: TokenCodec, dealer: Dealer, *, require_seat_tokens: bool) -> None:
        self._tokens = tokens
        self._dealer = dealer
        self._require = require_seat_tokens

    def check(self, state: GameState, game_id: bytes, seat: int, seat_token: str) -> str | None:
        """Let in a call made for `seat`: the seat must be at the table (INVALID_SEAT) and
        occupied (SEAT_EMPTY; where tokens are required, no token opens an empty seat) and,
        when seat tokens are required, `seat_token` must be its present player's token; what
        vouched for it (`TokenCodec.check_seat_token`), None where tokens are not required."""
        if not 0 <= seat < state.players:
            raise IllegalMove(
                Reason.INVALID_SEAT, f"seat {seat} is not at this table of {state.players}"
            )
        empty = state.places[seat] == EMPTY_SEAT
        if self._require:
            if not seat_token:
                raise SeatTokenError(f"a seat token for seat {seat} is required")
            if empty:
                raise SeatTokenError(
                    f"seat {seat} is empty in this game: its former player's token opens nothing"
                )
            vouched = self._tokens.check_seat_token(
                game_id, seat, seat_token, occupant(state, seat)
            )
            if vouched is None:
                raise SeatTokenError(f"the seat token is not seat {seat}'s token in this game")
            return vouched
        if empty:
            raise IllegalMove(Reason.SEAT_EMPTY, f"nobody sits in seat {seat} in this game")
        return None

    def new_match(self, state: GameState, game_id: bytes) -> list[str]:
        """One token per seat of a new match (an empty seat of a replayed game: "")."""
        return [
            "" if place == EMPTY_SEAT else self._tokens.seat_token(game_id, s, occupant(state, s))
            for s, place in enumerate(state.places)
        ]

    def newcomers(self, state: GameState, game_id: bytes, events: Sequence[Event]) -> list[str]:
        """The tokens of the players who sat down in NextGame, index = seat ("" for the others;
        none at all when nobody sat down)."""
        seated = {e.seat for e in events if isinstance(e, engine.SeatTaken)}
        if not seated:
            return []
        return [
            self._tokens.seat_token(game_id, s, occupant(state, s)) if s in seated else ""
            for s in range(state.players)
        ]

    def chops(self, deal_key: str) -> bool:
        """Whether an answer may name the seats that could chop out of turn (RULES §9.5: the
        host is told, never the other seats): always where the service checks no seat tokens
        (only the host calls it), else for a request carrying the host's deal key."""
        return not self._require or self._dealer.is_host(deal_key)
