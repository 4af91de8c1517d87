"""The table's people in a record's text (RULES §9, docs/RECORDS.md): the header tags ``Empty``
(the seats nobody sat in), ``PlayerId0`` … ``PlayerId3`` (the host's own ids), ``Bankrolls``
(each seat's chips at the deal), ``Timeouts`` (each seat's time-outs in a row at the deal) and
``Auto`` (the seats on auto at the deal).

`people_tags` writes them, in that order, each only when it says something (an id for a seat
that has one, time-outs when one is not 0); `read_people` reads them from a game's tags.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from tienlen_client.record import GameRecord, RecordParseError
from tienlen_client.record_syntax import tag, tokens, whole, wholes

#: The tags of the table's people other than the per-seat ``PlayerId0`` … ``PlayerId3``.
PEOPLE_TAGS: Final = ("Empty", "Bankrolls", "Timeouts", "Auto")
PLAYER_ID: Final = "PlayerId"
#: The longest player id, in UTF-8 bytes (as NewGame's).
MAX_PLAYER_ID_BYTES: Final = 64
#: The most time-outs in a row a record may give a seat (the service's bound).
MAX_TIMEOUTS: Final = 1_000_000

Located = tuple[str, int, int]
"""A tag's value with the line and column it was read at."""


@dataclass(frozen=True, slots=True)
class People:
    """The table's people as a game's tags give them (the `GameRecord` fields of that name)."""

    empty_seats: tuple[int, ...] = ()
    player_ids: tuple[str, ...] = ()
    bankrolls: tuple[int, ...] = ()
    timeouts: tuple[int, ...] = ()
    auto_seats: tuple[int, ...] = ()


def people_tags(record: GameRecord) -> list[str]:
    """The tag lines of `record`'s people, in their written order."""
    lines = []
    if record.empty_seats:
        lines.append(tag("Empty", " ".join(map(str, record.empty_seats))))
    lines += [
        tag(f"{PLAYER_ID}{seat}", player_id)
        for seat, player_id in enumerate(record.player_ids)
        if player_id
    ]
    if record.bankrolls:
        lines.append(tag("Bankrolls", " ".join(map(str, record.bankrolls))))
    if any(record.timeouts):
        lines.append(tag("Timeouts", " ".join(map(str, record.timeouts))))
    if record.auto_seats:
        lines.append(tag("Auto", " ".join(map(str, record.auto_seats))))
    return lines


def is_people_tag(name: str) -> bool:
    """Whether `name` is one of the tags above (``PlayerId`` of seats 0 to 3 only)."""
    seat = name.removeprefix(PLAYER_ID)
    return name in PEOPLE_TAGS or (seat != name and seat in {"0", "1", "2", "3"})


def read_people(tags: dict[str, Located], players: int) -> People:
    """The people of a game whose header `tags` were read, at a table of `players` seats."""
    player_ids: tuple[str, ...] = ()
    if any(f"{PLAYER_ID}{seat}" in tags for seat in range(players)):
        player_ids = tuple(_player_id(tags.get(f"{PLAYER_ID}{s}")) for s in range(players))
    bankrolls: tuple[int, ...] = ()
    if "Bankrolls" in tags:
        bankrolls = wholes(*tags["Bankrolls"], "Bankrolls", players)
        _at_least_zero(bankrolls, tags["Bankrolls"], "a bankroll")
    timeouts: tuple[int, ...] = ()
    if "Timeouts" in tags:
        timeouts = wholes(*tags["Timeouts"], "Timeouts", players)
        _at_least_zero(timeouts, tags["Timeouts"], "a count of time-outs", MAX_TIMEOUTS)
    return People(
        empty_seats=_seats(tags.get("Empty"), "Empty", players),
        player_ids=player_ids,
        bankrolls=bankrolls,
        timeouts=timeouts,
        auto_seats=_seats(tags.get("Auto"), "Auto", players),
    )


def _player_id(located: Located | None) -> str:
    if located is None:
        return ""
    value, line, column = located
    if len(value.encode("utf-8", "surrogatepass")) > MAX_PLAYER_ID_BYTES:
        raise RecordParseError(
            line, column, f"a player id is at most {MAX_PLAYER_ID_BYTES} bytes of UTF-8"
        )
    return value


def _seats(located: Located | None, what: str, players: int) -> tuple[int, ...]:
    """Seats of the table, each once, in increasing order."""
    if located is None:
        return ()
    value, line, column = located
    seats: list[int] = []
    for token, at in tokens(value):
        seat = whole(token, line, column + at, f"a seat in {what}", 0, players - 1)
        if seats and seat <= seats[-1]:
            raise RecordParseError(line, column + at, f"{what}: seats in increasing order, once")
        seats.append(seat)
    return tuple(seats)


def _at_least_zero(
    numbers: tuple[int, ...], located: Located, what: str, high: int = 2**63 - 1
) -> None:
    value, line, column = located
    for (_token, at), number in zip(tokens(value), numbers, strict=True):
        if not 0 <= number <= high:
            raise RecordParseError(line, column + at, f"{what} is 0 to {high}, not {number}")
