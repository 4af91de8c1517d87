"""Beating the table (*đè*) and chopping (*chặt*), RULES §3, §5, §6.

To beat a play you play the same type and length with a higher top card; in the North you must
also follow suit and colour. A bomb whose chop table lists the table's class chops it outside the
"same type" rule (a bomb on its own class only when higher). A chop is always paid (§8).
"""

from __future__ import annotations

from enum import IntEnum

from tienlen_rules.cards import RANK_TWO, RED
from tienlen_rules.combinations import Combination, Kind, chop_class, target_class
from tienlen_rules.errors import Reason
from tienlen_rules.ruleset import RuleSet


class Beat(IntEnum):
    """How a play relates to the play on the table."""

    NO = 0
    BEATS = 1
    CHOPS = 2


def beat(new: Combination, table: Combination, rules: RuleSet) -> tuple[Beat, Reason | None]:
    """Whether `new` beats `table`, and the reason code when it does not."""
    if rules.chop_targets:
        bomb = chop_class(new)
        if bomb:
            targets = rules.chop_targets.get(bomb)
            if targets is not None:
                target = target_class(table)
                if target in targets and (target != bomb or new.top > table.top):
                    return Beat.CHOPS, None
    if new.kind != table.kind or new.length != table.length:
        return Beat.NO, Reason.WRONG_TYPE_OR_LENGTH
    if rules.follow_suit:
        return _follows(new, table, rules)
    if new.top > table.top:
        return Beat.BEATS, None
    return Beat.NO, Reason.DOES_NOT_BEAT


def is_out_of_turn_chop(new: Combination, table: Combination, rules: RuleSet) -> bool:
    """Whether `new` is a bomb that may chop `table` out of turn (*không cần vòng*)."""
    if not rules.out_of_turn:
        return False
    bomb = chop_class(new)
    return bomb in rules.out_of_turn and beat(new, table, rules)[0] == Beat.CHOPS


def _follows(new: Combination, table: Combination, rules: RuleSet) -> tuple[Beat, Reason | None]:
    """Northern following (RULES §6, §10): suit for singles, colour for pairs, suit make-up
    for triples, suit for straights; a 2 (pair of 2s) may go on any single (pair) below 2s.
    A pair of 2s is beaten only by a chop (§10), or by a higher pair of 2s with the option
    `pair_of_twos_beats_pair_of_twos` (§6 "a pair of 2s likewise", source 000)."""
    higher = new.top > table.top
    new_two = new.top >> 2 == RANK_TWO
    table_two = table.top >> 2 == RANK_TWO
    kind = new.kind
    if kind == Kind.SINGLE:
        ok = higher and (new_two or new.top & 3 == table.top & 3)
    elif kind == Kind.PAIR:
        if table_two:
            ok = rules.pair_of_twos_beats_pair_of_twos and new_two and higher
        else:
            ok = new_two or (higher and _pair_colour(new) == _pair_colour(table))
    elif kind == Kind.TRIPLE:
        ok = higher and _suits(new) == _suits(table)
    elif kind == Kind.STRAIGHT:
        ok = higher and new.top & 3 == table.top & 3
    else:
        ok = higher
    return (Beat.BEATS, None) if ok else (Beat.NO, Reason.DOES_NOT_BEAT)


def _pair_colour(combo: Combination) -> bool:
    """True for a red pair (♦♥), False for a black one (♠♣): Northern pairs are one colour."""
    return combo.cards & RED == combo.cards


def _suits(combo: Combination) -> int:
    return (combo.cards >> (4 * (combo.top >> 2))) & 0xF
