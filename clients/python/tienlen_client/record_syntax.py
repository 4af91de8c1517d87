"""The syntax of record text (docs/RECORDS.md) shared by its parts: a tag line, whole numbers
and cards, each read with the line and column of what is wrong (`RecordParseError`).

`record_text` reads and writes whole games with these; `record_people` the tags of the table's
people (RULES §9).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tienlen_client.cards import RANKS, SUITS, CardTextError, card
from tienlen_client.record import RecordParseError


def tag(name: str, value: str) -> str:
    """A tag line; a backslash or a double quote in the value is escaped with a backslash."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{escaped}"]'


def tokens(text: str) -> Iterator[tuple[str, int]]:
    """The whitespace-separated tokens of `text`, each with its offset."""
    for match in re.finditer(r"\S+", text):
        yield match.group(0), match.start()


def whole(value: str, line: int, column: int, what: str, low: int, high: int) -> int:
    """`value` as a whole number from `low` to `high`."""
    try:
        number = int(value.strip())
    except ValueError:
        raise RecordParseError(line, column, f"{what} must be a whole number") from None
    if not low <= number <= high:
        raise RecordParseError(line, column, f"{what} must be {low} to {high}, not {number}")
    return number


def wholes(value: str, line: int, column: int, what: str, count: int) -> tuple[int, ...]:
    """`count` whole numbers (64-bit), one per seat."""
    numbers = []
    for token, at in tokens(value):
        numbers.append(whole(token, line, column + at, what, -(2**63), 2**63 - 1))
    if len(numbers) != count:
        raise RecordParseError(line, column, f"{what}: {count} numbers, one per seat")
    return tuple(numbers)


def read_cards(text: str, line: int, column: int) -> tuple[str, ...]:
    """Canonical card texts of `text`, each checked; RecordParseError at the bad card."""
    out: list[str] = []
    for token, at in tokens(text):
        try:
            wire = card(token)
        except CardTextError as exc:
            raise RecordParseError(line, column + at, str(exc)) from None
        out.append(RANKS[wire.rank - 1] + SUITS[wire.suit - 1])
    return tuple(out)


def strength(text: str) -> int:
    """A card text's place in the deck, weakest first (3S = 0 ... 2H = 51)."""
    wire = card(text)
    return (wire.rank - 1) * 4 + wire.suit - 1
