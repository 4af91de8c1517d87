"""Who sits at the table (RULES §9.1): seats, players' ids, and the seat changes between games.

A table has 4 seats (Đấu: 3); a match dealt for `n` players seats them in seats 0..n-1, and seat
numbers never change during the match: a seat may be empty. Players change only between games:
NextGame is told which players stay and who sits down where (`SeatChanges`). A person is their
seat (token) and the host's player id: a player who leaves is gone for the match, and sitting
down again is a newcomer, with a total of 0 and a seat token of its own.

This module checks what the host says and works out the next table; `matches.next_game` deals
it.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Final, NamedTuple

from tienlen_rules.cards import CardSet
from tienlen_rules.errors import SetupError

#: Seats of a table (Đấu's deal_all_cards table: 3).
TABLE_SEATS: Final = 4
DAU_TABLE_SEATS: Final = 3
#: The longest player id, in UTF-8 bytes: ids travel in every state token.
MAX_PLAYER_ID_BYTES: Final = 64


class Newcomer(NamedTuple):
    """A player who sits down in an empty `seat` between games: the host's `player_id` ("":
    none) and, where the table plays with bankrolls, the chips it brings (None: not given)."""

    seat: int
    player_id: str = ""
    bankroll: int | None = None


class SeatChanges(NamedTuple):
    """The table's people for the next game: the seats whose players `staying` (every other
    occupied seat's player leaves) and the `newcomers`."""

    staying: tuple[int, ...]
    newcomers: tuple[Newcomer, ...] = ()


class NextTable(NamedTuple):
    """The next game's table as seat changes make it (every tuple indexed by seat)."""

    seats: int
    seated: int
    staying: int
    leavers: tuple[int, ...]
    player_ids: tuple[str, ...]
    occupants: tuple[int, ...]
    newcomers: tuple[Newcomer, ...]


def table_seats(deal_all_cards: bool) -> int:
    """How many seats a table of these rules has."""
    return DAU_TABLE_SEATS if deal_all_cards else TABLE_SEATS


def checked_player_ids(player_ids: Sequence[str] | None, seats: int) -> tuple[str, ...]:
    """The host's player ids of a new match: none (()), or one per seat ("" for a seat without
    one); SetupError for a malformed list or a duplicate id."""
    if not player_ids:
        return ()
    if len(player_ids) != seats:
        raise SetupError(
            "INVALID_PLAYER_IDS",
            f"{len(player_ids)} player ids given for {seats} seats: give one per seat, or none",
            "player_ids",
        )
    for seat, player_id in enumerate(player_ids):
        _check_player_id(player_id, f"player_ids[{seat}]")
    _check_unique(tuple(player_ids), "player_ids")
    return tuple(player_ids) if any(player_ids) else ()


def _check_player_id(player_id: str, field: str) -> None:
    if len(player_id.encode()) > MAX_PLAYER_ID_BYTES:
        raise SetupError(
            "INVALID_PLAYER_IDS", f"a player id is at most {MAX_PLAYER_ID_BYTES} bytes", field
        )
    if any(not ch.isprintable() for ch in player_id):
        raise SetupError("INVALID_PLAYER_IDS", "a player id holds printable characters only", field)


def _check_unique(player_ids: tuple[str, ...], field: str) -> None:
    seen: dict[str, int] = {}
    for seat, player_id in enumerate(player_ids):
        if not player_id:
            continue
        if player_id in seen:
            raise SetupError(
                "DUPLICATE_PLAYER_ID",
                f"seats {seen[player_id]} and {seat} have the same player id: one person sits in"
                " one seat",
                field,
            )
        seen[player_id] = seat


def occupied_hands(hands: Sequence[CardSet] | None, seated: int, seats: int) -> tuple[CardSet, ...]:
    """An explicit deal's hands of the occupied seats, in seat order. The deal lists one hand
    per seat of the table (index = seat): an empty seat's hand must be empty."""
    hands = tuple(hands or ())
    if seated == (1 << seats) - 1:
        return hands
    if len(hands) != seats:
        raise SetupError(
            "INVALID_DEAL",
            f"{len(hands)} hands given for a table of {seats} seats: one per seat, an empty"
            " seat's hand empty",
            "hands",
        )
    for seat, hand in enumerate(hands):
        if hand and not seated >> seat & 1:
            raise SetupError(
                "INVALID_DEAL", f"seat {seat} is empty: its hand must be empty", f"hands[{seat}]"
            )
    return tuple(hand for seat, hand in enumerate(hands) if seated >> seat & 1)


def next_table(
    *,
    seats: int,
    seated: int,
    departed: int,
    player_ids: tuple[str, ...],
    occupants: tuple[int, ...],
    changes: SeatChanges | None,
    max_seats: int,
) -> NextTable:
    """The table after the host's seat changes (RULES §9.1), its ids and occupants () where
    none is set. Without changes every player
    stays but those who left during the game (`departed`: play_out, forfeit), whom the next game
    drops by itself. SetupError for a change the rules refuse: a seat that is empty or whose
    player left listed as staying, a newcomer in an occupied seat or outside the table, the same
    seat twice, nobody staying (that is a new match), a duplicate player id."""
    staying = seated & ~departed
    newcomers: tuple[Newcomer, ...] = ()
    if changes is not None:
        staying = _staying_mask(changes.staying, seats, seated, departed)
        newcomers = changes.newcomers
    if not staying:
        raise SetupError(
            "NOBODY_STAYS",
            "nobody stays at the table: deal a new match (NewGame), not a next game",
            "seating.staying",
        )
    taken = staying
    for index, newcomer in enumerate(newcomers):
        field = f"seating.newcomers[{index}]"
        if not 0 <= newcomer.seat < max_seats:
            raise SetupError(
                "INVALID_SEAT",
                f"seat {newcomer.seat} is not at a table of {max_seats} seats",
                f"{field}.seat",
            )
        if taken >> newcomer.seat & 1:
            raise SetupError(
                "SEAT_TAKEN",
                f"seat {newcomer.seat} is taken for the next game: a newcomer sits in an empty seat",
                f"{field}.seat",
            )
        _check_player_id(newcomer.player_id, f"{field}.player_id")
        taken |= 1 << newcomer.seat
    size = max(seats, *(n.seat + 1 for n in newcomers)) if newcomers else seats
    ids = [player_ids[s] if player_ids and staying >> s & 1 else "" for s in range(seats)]
    ids += [""] * (size - seats)
    owners = [occupants[s] if occupants and staying >> s & 1 else 0 for s in range(seats)]
    owners += [0] * (size - seats)
    for newcomer in newcomers:
        ids[newcomer.seat] = newcomer.player_id
        owners[newcomer.seat] = secrets.randbits(63) | 1
    _check_unique(tuple(ids), "seating")
    return NextTable(
        seats=size,
        seated=taken,
        staying=staying,
        leavers=tuple(s for s in range(seats) if seated >> s & 1 and not staying >> s & 1),
        player_ids=tuple(ids) if any(ids) else (),
        occupants=tuple(owners) if any(owners) else (),
        newcomers=newcomers,
    )


def _staying_mask(staying: tuple[int, ...], seats: int, seated: int, departed: int) -> int:
    mask = 0
    for index, seat in enumerate(staying):
        field = f"seating.staying[{index}]"
        if not 0 <= seat < seats or not seated >> seat & 1:
            raise SetupError("INVALID_SEAT", f"seat {seat} is empty: nobody there can stay", field)
        if departed >> seat & 1:
            raise SetupError(
                "SEAT_LEFT",
                f"seat {seat}'s player left during the game: the next game drops the seat",
                field,
            )
        if mask >> seat & 1:
            raise SetupError("INVALID_SEAT", f"seat {seat} is listed twice", field)
        mask |= 1 << seat
    return mask
