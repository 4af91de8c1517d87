"""Cards and sets of cards (*lá bài*), RULES §1.

A card is an int 0..51, ``rank * 4 + suit``: rank 0 is the 3 and rank 12 the 2 (*heo*), suit
0..3 is ♠ spades (*bích*) < ♣ clubs (*chuồn*) < ♦ diamonds (*rô*) < ♥ hearts (*cơ*). So the int
order is the strength order: ♠3 = 0 is the weakest card, ♥2 = 51 the strongest.

A set of cards is a 52-bit int mask (bit ``c`` set = card ``c`` present): membership, union,
disjointness and counting are single int operations. Each rank owns one 4-bit nibble, which the
combination classifier exploits.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from tienlen_rules.errors import CardParseError

Card = int
CardSet = int

RANKS = ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2")
SUITS = ("S", "C", "D", "H")
SUIT_SYMBOLS = ("♠", "♣", "♦", "♥")
RANK_TWO = 12
RANK_ACE = 11
LOWEST_TWO = RANK_TWO << 2
"""The 2 of spades: every card from here up is a 2 (a card compares as its index)."""
FULL_DECK: CardSet = (1 << 52) - 1
DECK_SIZE = 52
"""The number of cards: every card, so every play's top card, lies below it."""

SPADES, CLUBS, DIAMONDS, HEARTS = range(4)
THREE_OF_SPADES: Card = 0
THREE_OF_CLUBS: Card = 1

# One bit per rank at the rank's lowest position (bit 4r): the "rank present" layout.
RANK_UNIT = sum(1 << (4 * r) for r in range(13))
#: Every card of one suit.
SUIT_MASKS = tuple(RANK_UNIT << s for s in range(4))
#: Every card of one rank.
RANK_MASKS = tuple(0xF << (4 * r) for r in range(13))
TWOS: CardSet = RANK_MASKS[RANK_TWO]
BLACK: CardSet = SUIT_MASKS[SPADES] | SUIT_MASKS[CLUBS]
RED: CardSet = SUIT_MASKS[DIAMONDS] | SUIT_MASKS[HEARTS]

_RANK_ALIASES = {name: i for i, name in enumerate(RANKS)} | {"T": 7}
_SUIT_ALIASES = {name: i for i, name in enumerate(SUITS)} | {
    sym: i for i, sym in enumerate(SUIT_SYMBOLS)
}
_CARD_NAMES = tuple(RANKS[c >> 2] + SUITS[c & 3] for c in range(52))
_PARSE_CACHE: dict[str, Card] = {}


def rank_of(card: Card) -> int:
    """The rank index 0 (3) .. 12 (2)."""
    return card >> 2


def suit_of(card: Card) -> int:
    """The suit index 0 (♠) .. 3 (♥)."""
    return card & 3


def make_card(rank: int, suit: int) -> Card:
    """The card of this rank index and suit index."""
    return rank * 4 + suit


def card_name(card: Card) -> str:
    """Canonical text form: ``3S``, ``10D``, ``2H``."""
    return _CARD_NAMES[card]


def _parse_uncached(token: str) -> Card:
    text = token.strip().upper()
    if len(text) < 2:
        raise CardParseError(
            token, "a card is a rank (3-10, T, J, Q, K, A, 2) then a suit (S C D H)"
        )
    rank = _RANK_ALIASES.get(text[:-1], -1)
    suit = _SUIT_ALIASES.get(text[-1], -1)
    if rank < 0:
        raise CardParseError(token, f"unknown rank {text[:-1]!r}")
    if suit < 0:
        raise CardParseError(token, f"unknown suit {text[-1]!r}")
    return make_card(rank, suit)


def parse_card(token: str) -> Card:
    """Parse one card in the notation of RULES §1 (``3S``, ``10d``, ``TD``, ``3♠``)."""
    card = _PARSE_CACHE.get(token)
    if card is None:
        card = _parse_uncached(token)
        if len(_PARSE_CACHE) < 4096:
            _PARSE_CACHE[token] = card
    return card


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse space/comma separated cards, or an iterable of card tokens, keeping duplicates."""
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse_card(t) for t in tokens]


def parse_set(text: str | Iterable[str]) -> CardSet:
    """Parse cards into a set; a card given twice is an error naming it."""
    mask = 0
    for card in parse_cards(text):
        bit = 1 << card
        if mask & bit:
            raise CardParseError(card_name(card), "the same card is given twice")
        mask |= bit
    return mask


def cards_of(mask: CardSet) -> Iterator[Card]:
    """The cards of a set, weakest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def to_set(cards: Iterable[Card]) -> CardSet:
    """The set of these cards (duplicates collapse; use `parse_set` to reject them)."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def format_cards(mask: CardSet) -> str:
    """Canonical text of a set, weakest first: ``3S 4S 5D``."""
    return " ".join(_CARD_NAMES[c] for c in cards_of(mask))


def count(mask: CardSet) -> int:
    """How many cards are in the set."""
    return mask.bit_count()


def highest(mask: CardSet) -> Card:
    """The strongest card of a non-empty set."""
    return mask.bit_length() - 1


def lowest(mask: CardSet) -> Card:
    """The weakest card of a non-empty set."""
    return (mask & -mask).bit_length() - 1


def rank_counts(mask: CardSet) -> CardSet:
    """Per-rank card counts packed one per nibble (nibble r holds 0..4)."""
    x = (mask & 0x5555555555555) + ((mask >> 1) & 0x5555555555555)
    return (x & 0x3333333333333) + ((x >> 2) & 0x3333333333333)


def ranks_present(mask: CardSet) -> CardSet:
    """Bit 4r is set where the set holds at least one card of rank r."""
    x = mask | (mask >> 1)
    return (x | (x >> 2)) & RANK_UNIT
