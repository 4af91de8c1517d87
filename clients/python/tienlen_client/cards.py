"""Card text <-> wire cards: ``"3S"``, ``"10D"`` (also ``"TD"``), ``"QH"``, ``"2H"``, ``"3♠"``.

The notation of the rule book (RULES §1): a rank ``3-10 T J Q K A 2`` then a suit ``S C D H``
(or ``♠ ♣ ♦ ♥``), case-insensitive on input; the canonical output form is ``3S``, ``10D``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

import grpc

from tienlen.v1 import cards_pb2, moves_pb2
from tienlen_client.errors import InvalidRequest

RANKS: Final = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
SUITS: Final = ("S", "C", "D", "H")
_RANK_OF: Final = {name: i for i, name in enumerate(RANKS)} | {"T": 7}
_SUIT_OF: Final = {name: i for i, name in enumerate(SUITS)} | {"♠": 0, "♣": 1, "♦": 2, "♥": 3}

CardsLike = str | Iterable[str]
"""Cards as text: ``"3S 4S 5S"`` (spaces or commas) or a sequence ``["3S", "4S"]``."""


class CardTextError(InvalidRequest, ValueError):
    """Text that is not a card; `text` is the offending token. Raised before any call, with
    the reason the service gives a card it can't read (``INVALID_CARD``); an `InvalidRequest`
    like the service's refusals (and a ValueError, as a bad argument)."""

    def __init__(self, text: str, detail: str) -> None:
        super().__init__(
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_CARD",
            f"bad card {text!r}: {detail}",
            field_violations=(("cards", detail),),
        )
        self.text = text


def card(text: str) -> cards_pb2.Card:
    """The wire card of one card token."""
    token = text.strip().upper()
    if len(token) < 2:
        raise CardTextError(
            text, "a card is a rank (3-10, T, J, Q, K, A, 2) then a suit (S, C, D, H)"
        )
    rank = _RANK_OF.get(token[:-1])
    suit = _SUIT_OF.get(token[-1])
    if rank is None:
        raise CardTextError(text, f"unknown rank {token[:-1]!r}")
    if suit is None:
        raise CardTextError(text, f"unknown suit {token[-1]!r}")
    return cards_pb2.Card(
        rank=cards_pb2.Rank.ValueType(rank + 1), suit=cards_pb2.Suit.ValueType(suit + 1)
    )


def cards(text: CardsLike) -> list[cards_pb2.Card]:
    """Wire cards of card text (a string of tokens, or a sequence of tokens), in order."""
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [card(t) for t in tokens]


def move(cards_: CardsLike | None) -> moves_pb2.Move:
    """The wire move: play these cards, or pass (None)."""
    if cards_ is None:
        return moves_pb2.Move(pass_turn=moves_pb2.Pass())
    return moves_pb2.Move(play=moves_pb2.Play(cards=cards(cards_)))


def text(value: cards_pb2.Card) -> str:
    """Canonical text of a wire card (``"?"`` for an unspecified rank or suit)."""
    rank = RANKS[value.rank - 1] if 1 <= value.rank <= len(RANKS) else "?"
    suit = SUITS[value.suit - 1] if 1 <= value.suit <= len(SUITS) else "?"
    return rank + suit


def texts(values: Iterable[cards_pb2.Card]) -> tuple[str, ...]:
    """Canonical texts of wire cards, in order."""
    return tuple(text(v) for v in values)
