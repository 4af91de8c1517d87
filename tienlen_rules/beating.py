"""Beating the table (*đè*) and chopping (*chặt*), RULES §3, §5, §6.

To beat a play you play the same type and length with a higher top card; in the North you must
also follow suit and colour. A bomb whose chop table lists the table's class chops it outside the
"same type" rule (a bomb on its own class only when higher). A chop is always paid (§8).
"""

from __future__ import annotations

from enum import IntEnum

from tienlen_rules.cards import RANK_TWO, RED, SUIT_MASKS
from tienlen_rules.chop_tables import SUITED_BOMB, SUITED_TARGET
from tienlen_rules.combinations import PAIR, SINGLE, STRAIGHT, TRIPLE, Combination, chop_class
from tienlen_rules.errors import Reason
from tienlen_rules.ruleset import RuleSet


class Beat(IntEnum):
    """How a play relates to the play on the table."""

    NO = 0
    BEATS = 1
    CHOPS = 2


# Answers built once: reading an enum member costs far more than a module constant on the hot
# path (every legal-move list and every ApplyMove asks `beat` many times).
_CHOPS: tuple[Beat, Reason | None] = (Beat.CHOPS, None)
_BEATS: tuple[Beat, Reason | None] = (Beat.BEATS, None)
_NO_SHAPE: tuple[Beat, Reason | None] = (Beat.NO, Reason.WRONG_TYPE_OR_LENGTH)
_NO_HIGHER: tuple[Beat, Reason | None] = (Beat.NO, Reason.DOES_NOT_BEAT)


def beat(new: Combination, table: Combination, rules: RuleSet) -> tuple[Beat, Reason | None]:
    """Whether `new` beats `table`, and the reason code when it does not."""
    # The hot path of every ApplyMove and legal-move list, so written for CPython 3.11: fields
    # are read by index, as needed (unpacking a NamedTuple, a tuple subclass, costs an
    # iterator), and the chop table is read by shape (`chop_tables.by_shape`): plain tuples
    # indexed by type and length, instead of naming both plays' chop classes.
    kind = new[0]
    by_length = rules.chops_by_shape[kind]
    # Only the types some bomb of these rules has are there (Southern: a four of a kind and
    # runs of pairs): every other play goes straight to the "same type" rule.
    if by_length is not None:
        targets = by_length[new[1]]
        if targets is not None:
            chop = targets[table[0]][table[1]]
            if chop is not None:
                needed, suits = chop
                if new[2] >= needed[table[2]] and (not suits or _suited(suits, new, table)):
                    return _CHOPS
    if kind != table[0] or new[1] != table[1]:
        return _NO_SHAPE
    if rules.follow_suit:
        return _follows(new, table, rules)
    return _BEATS if new[2] > table[2] else _NO_HIGHER


def _suited(suits: int, new: Combination, table: Combination) -> bool:
    """Whether the plays the flags `suits` name (`chop_tables.SUITED_BOMB`, `SUITED_TARGET`)
    are same-suit straights, as a straight must be to chop or be chopped (Northern option)."""
    return (not suits & SUITED_BOMB or _one_suit(new)) and (
        not suits & SUITED_TARGET or _one_suit(table)
    )


def _one_suit(combo: Combination) -> bool:
    return combo.cards & SUIT_MASKS[combo.top & 3] == combo.cards


def is_out_of_turn_chop(new: Combination, table: Combination, rules: RuleSet) -> bool:
    """Whether `new` is a bomb that may chop `table` out of turn (*không cần vòng*)."""
    if not rules.out_of_turn:
        return False
    bomb = chop_class(new)
    return bomb in rules.out_of_turn and beat(new, table, rules) is _CHOPS


def _follows(new: Combination, table: Combination, rules: RuleSet) -> tuple[Beat, Reason | None]:
    """Northern following (RULES §6, §10): suit for singles, colour for pairs, suit make-up
    for triples, suit for straights; a 2 (pair of 2s) may go on any single (pair) below 2s.
    A pair of 2s is beaten only by a chop (§10), or by a higher pair of 2s with the option
    `pair_of_twos_beats_pair_of_twos` (§6 "a pair of 2s likewise", source 000)."""
    higher = new.top > table.top
    new_two = new.top >> 2 == RANK_TWO
    table_two = table.top >> 2 == RANK_TWO
    kind = new.kind
    if kind == SINGLE:
        ok = higher and (new_two or new.top & 3 == table.top & 3)
    elif kind == PAIR:
        if table_two:
            ok = rules.pair_of_twos_beats_pair_of_twos and new_two and higher
        else:
            ok = new_two or (higher and _pair_colour(new) == _pair_colour(table))
    elif kind == TRIPLE:
        ok = higher and _suits(new) == _suits(table)
    elif kind == STRAIGHT:
        ok = higher and new.top & 3 == table.top & 3
    else:
        ok = higher
    return _BEATS if ok else _NO_HIGHER


def _pair_colour(combo: Combination) -> bool:
    """True for a red pair (♦♥), False for a black one (♠♣): Northern pairs are one colour."""
    return combo.cards & RED == combo.cards


def _suits(combo: Combination) -> int:
    return (combo.cards >> (4 * (combo.top >> 2))) & 0xF
