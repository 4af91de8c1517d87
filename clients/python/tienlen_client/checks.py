"""Checks made before a call: what the service would refuse whatever the rest of the request.

Each raises the exception the service's own answer would (same class, code and reason), with
the reason in words, and saves the round trip.
"""

from __future__ import annotations

import grpc

from tienlen.v1 import moves_pb2
from tienlen_client.errors import InvalidRequest, MoveRejected
from tienlen_client.models import Game


def check_seat(game: Game, seat: int) -> None:
    """`MoveRejected` (``INVALID_SEAT``, as the service would say) for a seat not at the table,
    before any call."""
    if not 0 <= seat < game.players:
        raise MoveRejected(
            grpc.StatusCode.FAILED_PRECONDITION,
            "INVALID_SEAT",
            f"there is no seat {seat} at this table: its seats are 0 to {game.players - 1}",
            {"seat": str(seat)},
        )


def check_move(game: Game, seat: int) -> None:
    """`MoveRejected` before the call for a move the service would refuse whatever it is: a
    seat not at the table (``INVALID_SEAT``), a game already over (``GAME_OVER``)."""
    check_seat(game, seat)
    if game.finished:
        raise MoveRejected(
            grpc.StatusCode.FAILED_PRECONDITION,
            "GAME_OVER",
            "the game is over: deal the next one with next_game()",
            {"seat": str(seat)},
        )


def combination_type_value(name: str) -> moves_pb2.CombinationType.ValueType:
    """The wire value of a combination type name (``"pair"``, ``"STRAIGHT"``, ...);
    `InvalidRequest` for a name that is none."""
    try:
        return moves_pb2.CombinationType.Value("COMBINATION_TYPE_" + name.upper())
    except ValueError:
        known = ", ".join(
            n.removeprefix("COMBINATION_TYPE_").lower()
            for n in moves_pb2.CombinationType.keys()[1:]
        )
        raise InvalidRequest(
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_ARGUMENT",
            f"unknown combination type {name!r}; the types are {known}",
            field_violations=(("filter.type", "not a combination type"),),
        ) from None
