"""Cards, moves and combinations: the engine's ints <-> `tienlen.v1` Card, Move, Combination.

The engine's card is an int 0..51, rank*4 + suit, weakest first (3♠ = 0 … 2♥ = 51); a set of
cards is a 52-bit mask. On the wire a card is a `Card` of two enums that start at 1, in the rule
book's order (`RANK_THREE` … `RANK_TWO`, `SUIT_SPADES` … `SUIT_HEARTS`), so
`rank = card // 4 + 1` and `suit = card % 4 + 1`. Sets go out weakest first; a combination's
`CombinationType` values are the engine's `Kind` values.

Cards read from a request are checked here: an unknown rank or suit is a `FieldError`
(INVALID_CARD) naming the field down to the card's index. A card listed twice in a play is
passed on (the engine refuses it with DUPLICATE_CARD); twice in an explicit deal's hand, it is
an INVALID_DEAL.

The view's and the events' fast paths (`codec.view`, `codec.events`) write cards as wire bytes:
the records of one card (`card_records`), of a set of cards (`RepeatedCards`) and of a
combination (`combination_wire`) are here, beside the mapping they must equal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from tienlen.v1 import cards_pb2, moves_pb2
from tienlen_rules import (
    CardParseError,
    Combination,
    Kind,
    Move,
    SetupError,
    TableAction,
    card_name,
    cards_of,
    parse_card,
    play,
)
from tienlen_service.codec._layouts import COMBINATION
from tienlen_service.codec._wire import int_field, length_delimited
from tienlen_service.codec.errors import INVALID_ARGUMENT, INVALID_CARD, FieldError

if TYPE_CHECKING:
    from collections.abc import Iterable

    from tienlen_service.codec._wire import Layout

CARD_COUNT: Final = 52


# --------------------------------------------------------------------------------------------
# Cards


def card_to_pb(card: int) -> cards_pb2.Card:
    """The wire card of engine card `card` (rank*4+suit)."""
    return cards_pb2.Card(
        rank=cards_pb2.Rank.ValueType((card >> 2) + 1),
        suit=cards_pb2.Suit.ValueType((card & 3) + 1),
    )


# One message per card, treated as immutable: assigning one into a field or a repeated field
# copies it, so they are never handed out themselves (card_to_pb builds a new message).
CARDS: Final = tuple(card_to_pb(c) for c in range(CARD_COUNT))


def cards_to_pb(mask: int) -> list[cards_pb2.Card]:
    """The cards of a set, weakest first, as wire cards."""
    return [CARDS[c] for c in cards_of(mask)]


def card_from_pb(card: cards_pb2.Card, field: str) -> int:
    """The engine card of a wire card; FieldError(INVALID_CARD) names `field` when invalid."""
    rank = card.rank
    suit = card.suit
    if 1 <= rank <= 13 and 1 <= suit <= 4:
        return (rank - 1) * 4 + (suit - 1)
    if not 1 <= rank <= 13:
        raise FieldError(
            INVALID_CARD, f"{field}.rank", "the rank must be one of RANK_THREE..RANK_TWO"
        )
    raise FieldError(
        INVALID_CARD, f"{field}.suit", "the suit must be one of SUIT_SPADES..SUIT_HEARTS"
    )


def cards_from_pb(cards: Iterable[cards_pb2.Card], field: str) -> tuple[int, ...]:
    """Engine cards of a repeated Card field, in order, duplicates kept (the engine refuses
    them with DUPLICATE_CARD)."""
    out: list[int] = []
    for card in cards:
        rank = card.rank
        suit = card.suit
        if not (1 <= rank <= 13 and 1 <= suit <= 4):
            card_from_pb(card, f"{field}[{len(out)}]")  # raises, naming the field
        out.append((rank - 1) * 4 + (suit - 1))
    return tuple(out)


def hand_from_pb(cards: Iterable[cards_pb2.Card], field: str) -> int:
    """A hand of an explicit deal as a mask; a card listed twice is an INVALID_DEAL."""
    mask = 0
    for i, card in enumerate(cards_from_pb(cards, field)):
        bit = 1 << card
        if mask & bit:
            raise SetupError("INVALID_DEAL", f"{card_name(card)} is listed twice", f"{field}[{i}]")
        mask |= bit
    return mask


def card_from_text(text: str) -> cards_pb2.Card:
    """A wire card from card text (``3S``, ``10d``, ``TD``, ``3♠``); CardParseError if not one."""
    return card_to_pb(parse_card(text))


def card_to_text(card: cards_pb2.Card) -> str:
    """Canonical card text of a wire card (``3S``, ``10D``); CardParseError if invalid."""
    try:
        return card_name(card_from_pb(card, "card"))
    except FieldError as exc:
        raise CardParseError(f"{int(card.rank)}/{int(card.suit)}", exc.description) from None


# --------------------------------------------------------------------------------------------
# Moves and combinations


def move_from_pb(move: moves_pb2.Move, seat: int, field: str = "move") -> Move:
    """The engine move of a wire move for `seat`; FieldError if no action is set.

    Every ApplyMove reads one, and reading a play's cards field by field is most of it (a
    message and two fields per card): a move read before is found by its bytes instead, so
    a single or a pair costs one serialisation and a lookup, a pass one question. Only moves
    that read well are remembered (one that does not raises its FieldError each time)."""
    if move.HasField("pass_turn"):
        passed: Move = _new_tuple(Move, (seat, (), True, None))
        return passed
    data = move.SerializeToString()
    known = _MOVES.get(data)
    if known is None:
        known = _move_of(move, field)
        if len(_MOVES) >= _MOVES_SIZE:
            _MOVES.clear()
        _MOVES[data] = known
    cards, is_pass, action = known
    result: Move = _new_tuple(Move, (seat, cards, is_pass, action))
    return result


def _move_of(move: moves_pb2.Move, field: str) -> tuple[tuple[int, ...], bool, TableAction | None]:
    """A wire move's cards, whether it passes, and the host's report it is, if any
    (`move_from_pb`, read field by field)."""
    action = move.WhichOneof("action")
    if action == "play":
        return play(0, cards_from_pb(move.play.cards, f"{field}.play.cards")).cards, False, None
    if action == "pass_turn":
        return (), True, None
    if action == "timeout":
        return (), False, TableAction.TIMEOUT
    if action == "leave":
        return (), False, TableAction.LEAVE
    raise FieldError(
        INVALID_ARGUMENT,
        field,
        "set the move: play (with cards), pass_turn, or the host's timeout or leave",
    )


# Moves read lately, by their bytes: (cards, passes?). Cleared when full (a miss reads one).
_MOVES: Final[dict[bytes, tuple[tuple[int, ...], bool, TableAction | None]]] = {}
_MOVES_SIZE: Final = 4096
_new_tuple: Final = tuple.__new__


def move_to_pb(move: Move) -> moves_pb2.Move:
    """The wire move of an engine move."""
    if move.is_pass:
        return moves_pb2.Move(pass_turn=moves_pb2.Pass())
    if move.action is TableAction.TIMEOUT:
        return moves_pb2.Move(timeout=moves_pb2.Timeout())
    if move.action is TableAction.LEAVE:
        return moves_pb2.Move(leave=moves_pb2.Leave())
    return moves_pb2.Move(play=moves_pb2.Play(cards=[CARDS[c] for c in move.cards]))


def combination_to_pb(combo: Combination) -> moves_pb2.Combination:
    """The wire combination of an engine one (CombinationType values equal `Kind` values)."""
    return moves_pb2.Combination(
        type=moves_pb2.CombinationType.ValueType(combo.kind),
        length=combo.length,
        top=CARDS[combo.top],
        cards=cards_to_pb(combo.cards),
    )


def kind_from_pb(value: int, field: str) -> Kind | None:
    """The engine Kind of a CombinationType; None for UNSPECIFIED; FieldError if unknown."""
    if value == 0:
        return None
    try:
        return Kind(value)
    except ValueError:
        raise FieldError(INVALID_ARGUMENT, field, f"{value} is not a CombinationType") from None


# --------------------------------------------------------------------------------------------
# Wire records of the fast paths (tests prove them equal to the mapping above)


def card_records(layout: Layout, field: str) -> tuple[bytes, ...]:
    """The record of one card in a `Card` field (or one element of a `repeated Card` field),
    for every card: the `Card` serialised by protobuf (a `serialised` field of `layout`)."""
    key = layout.tag(field)
    return tuple(length_delimited(key, CARDS[c].SerializeToString()) for c in range(CARD_COUNT))


class RepeatedCards:
    """Wire bytes of a `repeated Card` field holding a set of cards, weakest first: the
    concatenation of one field record per card (merging them into a message is the same as
    appending the cards to the field, as protobuf defines merging). The records are joined
    ahead of time for every byte of the 52-bit mask, so a set costs seven lookups, not a step
    per card."""

    __slots__ = ("_chunks",)

    def __init__(self, layout: Layout, field: str) -> None:
        records = card_records(layout, field)
        self._chunks = tuple(
            tuple(
                b"".join(
                    records[card]
                    for bit in range(8)
                    if byte >> bit & 1 and (card := base + bit) < CARD_COUNT
                )
                for byte in range(256)
            )
            for base in range(0, CARD_COUNT, 8)
        )

    def encode(self, mask: int) -> bytes:
        """The records of the cards of `mask`, weakest first."""
        c0, c1, c2, c3, c4, c5, c6 = self._chunks
        b = mask.to_bytes(7, "little")  # its bytes at once: no shifted int made per byte
        return b"".join((c0[b[0]], c1[b[1]], c2[b[2]], c3[b[3]], c4[b[4]], c5[b[5]], c6[b[6]]))


_CO_TYPE: Final = COMBINATION.tag("type")
_CO_LENGTH: Final = COMBINATION.tag("length")
_CO_TOP: Final = card_records(COMBINATION, "top")
_CO_CARDS: Final = RepeatedCards(COMBINATION, "cards")


def combination_wire(kind: int, length: int, top: int, cards: int) -> bytes:
    """The bytes of a `Combination` message (of a table's play, or of a Played event): those of
    `combination_to_pb(Combination(kind, length, top, cards))`. Remembered: a move's Played
    event and its view's table are the same combination, which stays the table while the
    other seats pass."""
    key = (kind, length, top, cards)
    wire = _COMBINATIONS.get(key)
    if wire is None:
        wire = b"".join(
            (
                int_field(_CO_TYPE, kind),
                int_field(_CO_LENGTH, length),
                _CO_TOP[top],
                _CO_CARDS.encode(cards),
            )
        )
        if len(_COMBINATIONS) >= _COMBINATIONS_SIZE:
            _COMBINATIONS.clear()
        _COMBINATIONS[key] = wire
    return wire


_COMBINATIONS: Final[dict[tuple[int, int, int, int], bytes]] = {}
_COMBINATIONS_SIZE: Final = 4096
