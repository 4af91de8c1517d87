"""Terminal output: colours only on a terminal (and never with ``NO_COLOR`` set), cards as text.

Plain output (a pipe, a file, a test) is the notation of the rule book, ``3S 10D``, so that
what the tool prints can be typed back into it; on a colour terminal the suits are drawn
(``3♠ 10♦``), hearts and diamonds in red. ANSI escapes are a handful of constants: not worth
a dependency for a client package.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal, TextIO

ColorChoice = Literal["auto", "always", "never"]

_CODES: Final = {
    "bold": "1",
    "dim": "2",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "magenta": "35",
    "cyan": "36",
}
_SUIT_SYMBOLS: Final = {"S": "♠", "C": "♣", "D": "♦", "H": "♥"}


def wants_color(choice: ColorChoice, stream: TextIO) -> bool:
    """Colour for `choice` on `stream`: ``auto`` means a terminal without ``NO_COLOR``."""
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return stream.isatty()


@dataclass(frozen=True, slots=True)
class Style:
    """How to draw text: with ANSI colours and suit symbols (`color`) or plain."""

    color: bool = False

    def paint(self, text: str, *styles: str) -> str:
        """`text` in the given styles (``"bold"``, ``"red"``, ...), when colouring."""
        if not self.color or not styles:
            return text
        codes = ";".join(_CODES[s] for s in styles)
        return f"\033[{codes}m{text}\033[0m"

    def card(self, card: str) -> str:
        """One card: ``3S`` plain, ``3♠`` (red for ♦ ♥) in colour."""
        if not self.color:
            return card
        rank, suit = card[:-1], card[-1]
        drawn = rank + _SUIT_SYMBOLS.get(suit, suit)
        return self.paint(drawn, *(("bold", "red") if suit in "DH" else ("bold",)))

    def cards(self, cards: Iterable[str]) -> str:
        """Cards separated by spaces."""
        return " ".join(self.card(c) for c in cards)


def ordinal(place: int) -> str:
    """1st, 2nd, 3rd, 4th."""
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(place if place < 20 else place % 10, "th")
    return f"{place}{suffix}"
