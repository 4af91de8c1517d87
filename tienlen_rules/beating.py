"""Beating the table (*đè*) and chopping (*chặt*), RULES §3, §5, §6.

To beat a play you play the same type and length with a higher top card; in the North you must
also follow suit and colour. A bomb whose chop table lists the table's class chops it outside the
"same type" rule (a bomb on its own class only when higher). A chop is always paid (§8).
"""

from __future__ import annotations

from enum import IntEnum

from tienlen_rules.cards import LOWEST_TWO, RANK_TWO, RED
from tienlen_rules.combinations import (
    PAIR,
    SINGLE,
    STRAIGHT,
    TRIPLE,
    Combination,
    chop_class,
    target_class,
)
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
    kind, length, top, _ = new
    table_kind, table_length, table_top, _ = table
    # Only a 2 (single, pair, triple) or a kind above the triple can have a chop class: every
    # other play skips the chop table.
    if (kind > TRIPLE or top >= LOWEST_TWO) and rules.chop_targets:
        bomb = chop_class(new)
        if bomb:
            targets = rules.chop_targets.get(bomb)
            if targets is not None:
                target = target_class(table)
                if target in targets and (target != bomb or top > table_top):
                    return _CHOPS
    if kind != table_kind or length != table_length:
        return _NO_SHAPE
    if rules.follow_suit:
        return _follows(new, table, rules)
    return _BEATS if top > table_top else _NO_HIGHER


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
