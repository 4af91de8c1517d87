"""Chop tables (*chặt*), RULES §5: which bomb (*hàng*) chops which play, as data.

A play's *chop class* (`combinations.ChopClass`) names what it is for chopping: a single 2, a
pair of 2s, a triple of 2s, 3..N consecutive pairs, a four of a kind, consecutive triples, a
same-suit straight (Northern option). A table maps a bomb class to the classes it chops; a bomb
chops a play of its *own* class only when higher. A bomb in ``out_of_turn`` may chop when it is
not its player's turn. Runs of consecutive pairs longer than a table lists chop by
`with_longer_pairs` (option `long_pairs_chop`), or not at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from tienlen_rules.cards import DECK_SIZE
from tienlen_rules.choices import ChopTableName
from tienlen_rules.combinations import (
    CONSECUTIVE_PAIRS_CLASSES,
    CONSECUTIVE_TRIPLES,
    STRAIGHT,
    ChopClass,
    class_tops,
)

# The classes the tables below name, short.
_TWO = ChopClass.TWO
_TWOS_2 = ChopClass.PAIR_OF_TWOS
_TWOS_3 = ChopClass.TRIPLE_OF_TWOS
_FOUR = ChopClass.FOUR_OF_A_KIND
_PAIRS_3 = ChopClass.THREE_PAIRS
_PAIRS_4 = ChopClass.FOUR_PAIRS
_PAIRS_5 = ChopClass.FIVE_PAIRS
_PAIRS_6 = ChopClass.SIX_PAIRS
_TRIPLES_3 = ChopClass.THREE_TRIPLES


@dataclass(frozen=True, slots=True)
class ChopTable:
    """Which bomb classes chop which play classes, and which may do it out of turn."""

    targets: dict[ChopClass, frozenset[ChopClass]]
    out_of_turn: frozenset[ChopClass]


def _table(
    rows: dict[ChopClass, tuple[ChopClass, ...]], out_of_turn: tuple[ChopClass, ...] = ()
) -> ChopTable:
    return ChopTable(
        targets={bomb: frozenset(targets) for bomb, targets in rows.items()},
        out_of_turn=frozenset(out_of_turn),
    )


CHOP_TABLES: dict[ChopTableName, ChopTable] = {
    ChopTableName.SOUTHERN: _table(
        {
            _PAIRS_3: (_TWO, _PAIRS_3),
            _FOUR: (_TWO, _TWOS_2, _PAIRS_3, _FOUR),
            _PAIRS_4: (_TWO, _TWOS_2, _PAIRS_3, _FOUR, _PAIRS_4),
        },
        out_of_turn=(_PAIRS_4,),
    ),
    ChopTableName.HUE: _table(
        {_FOUR: (_TWO, _FOUR), _PAIRS_4: (_TWO, _TWOS_2, _PAIRS_4)}, out_of_turn=(_PAIRS_4,)
    ),
    ChopTableName.DA_NANG: _table(
        {_FOUR: (_TWO, _FOUR), _PAIRS_4: (_TWOS_2, _FOUR, _PAIRS_4)}, out_of_turn=(_PAIRS_4,)
    ),
    ChopTableName.NORTHERN: _table({_FOUR: (_TWO, _TWOS_2, _FOUR)}),
    ChopTableName.DAU: _table(
        {
            _PAIRS_4: (_TWO, _PAIRS_4),
            _PAIRS_5: (_TWO, _TWOS_2, _PAIRS_4, _PAIRS_5),
            _TRIPLES_3: (_TWO, _TWOS_2, _PAIRS_4, _PAIRS_5, _TRIPLES_3),
            _PAIRS_6: (_TWO, _TWOS_2, _TWOS_3, _PAIRS_4, _PAIRS_5, _TRIPLES_3, _PAIRS_6),
        },
        out_of_turn=(_TRIPLES_3, _PAIRS_6),
    ),
    ChopTableName.NONE: _table({}),
}

#: The most consecutive pairs one hand can hold: 18 cards (Đấu's dealer) make 9 pairs.
MOST_PAIRS = 9


def with_longer_pairs(table: ChopTable) -> ChopTable:
    """The table with a row for every run of consecutive pairs longer than its longest (option
    `long_pairs_chop` = ladder): N pairs chop what N-1 pairs chop, any N-1 pairs, and a lower
    run of N pairs, out of turn when N-1 pairs may. RULES §3 makes every run of 3+ pairs a bomb
    while the §5 tables stop at 4 pairs (Đấu: 6); the longer runs grow the way Đấu's table
    does. A table without consecutive pairs among its bombs (Northern, none) is unchanged."""
    runs = [n for n in range(3, MOST_PAIRS + 1) if CONSECUTIVE_PAIRS_CLASSES[n] in table.targets]
    if not runs:
        return table
    targets = dict(table.targets)
    out_of_turn = set(table.out_of_turn)
    for n in range(max(runs) + 1, MOST_PAIRS + 1):
        shorter, bomb = CONSECUTIVE_PAIRS_CLASSES[n - 1], CONSECUTIVE_PAIRS_CLASSES[n]
        targets[bomb] = targets[shorter] | {shorter, bomb}
        if shorter in out_of_turn:
            out_of_turn.add(bomb)
    return ChopTable(targets, frozenset(out_of_turn))


#: Northern option: same-suit straights of 5+ cards chop a single 2, of 6+ a pair of 2s.
SUITED_STRAIGHT_CHOPS: dict[ChopClass, frozenset[ChopClass]] = {
    bomb: frozenset({_TWO} if bomb.length == 5 else {_TWO, _TWOS_2})
    for bomb in ChopClass
    if bomb.kind == STRAIGHT
}


# --------------------------------------------------------------------------- by shape

#: What a bomb needs to chop a play of a given shape (`by_shape`): by the target's top card, the
#: lowest top card the bomb needs (`NEVER` where a play with that top card is not of a class the
#: bomb chops; above the target's own top where bomb and target are one class); and which of the
#: two must be a same-suit straight (`SUITED_BOMB`, `SUITED_TARGET`), which no top card tells.
ChopNeed = tuple[tuple[int, ...], int]
#: What one bomb shape chops: by the target's type, then its length, its `ChopNeed` or None.
TargetsByShape = tuple[tuple[ChopNeed | None, ...], ...]
#: A chop table by shape: by the bomb's type (None where no bomb has it), then its length, what
#: it chops (None where no bomb has that shape).
ChopsByShape = tuple[tuple[TargetsByShape | None, ...] | None, ...]

#: `ChopNeed` flags: the bomb (the target) counts only as a same-suit straight.
SUITED_BOMB = 1
SUITED_TARGET = 2
#: A top card no play has: what a bomb needs against a play it never chops.
NEVER = DECK_SIZE

# Indices of the tables: every type (`Kind`, 1..7) and every length (at most 12) falls below.
_KINDS = CONSECUTIVE_TRIPLES + 1
_LENGTHS = 16


def by_shape(targets: Mapping[ChopClass, frozenset[ChopClass]]) -> ChopsByShape:
    """A chop table (bomb class -> the classes it chops) indexed by the plays' shapes, so that
    `beating.beat` decides a chop with a few tuple reads and one int comparison instead of
    naming both plays' chop classes. A class is one shape (its type and length) plus what
    `class_tops` says of its top card and, for a straight, its suit: a play of that shape is of
    that class exactly when those hold (`tests/engine/chops/test_chops_by_shape.py` proves it
    against `chop_class` and `target_class` for every shape under every rule set).

    Rule sets with the same chop table share one: a handful of tables serve every rule set."""
    return _by_shape(frozenset(targets.items()))


@cache
def _by_shape(targets: frozenset[tuple[ChopClass, frozenset[ChopClass]]]) -> ChopsByShape:
    rows: dict[tuple[int, int], TargetsByShape] = {
        (bomb.kind, bomb.length): _targets_by_shape(bomb, chopped) for bomb, chopped in targets
    }
    kinds = {kind for kind, _ in rows}
    return tuple(
        tuple(rows.get((kind, length)) for length in range(_LENGTHS)) if kind in kinds else None
        for kind in range(_KINDS)
    )


def _targets_by_shape(bomb: ChopClass, chopped: frozenset[ChopClass]) -> TargetsByShape:
    needs: dict[tuple[int, int], ChopNeed] = {
        (target.kind, target.length): _need(bomb, target) for target in chopped
    }
    return tuple(
        tuple(needs.get((kind, length)) for length in range(_LENGTHS)) for kind in range(_KINDS)
    )


def _need(bomb: ChopClass, target: ChopClass) -> ChopNeed:
    """What a play of class `bomb` needs to chop a play of `target`'s shape (`ChopNeed`): a top
    card in `bomb`'s range, the target's top card in `target`'s, a higher top when they are one
    class (RULES §5: a bomb chops its own class only when higher)."""
    bomb_low, _ = class_tops(bomb, as_target=False)
    low, high = class_tops(target, as_target=True)
    needed = tuple(
        max(bomb_low, top + 1 if target == bomb else 0) if low <= top < high else NEVER
        for top in range(DECK_SIZE)
    )
    suits = (SUITED_BOMB if bomb.kind == STRAIGHT else 0) | (
        SUITED_TARGET if target.kind == STRAIGHT else 0
    )
    return needed, suits


#: The table by shape of a rule set that chops nothing.
NO_CHOPS_BY_SHAPE: ChopsByShape = by_shape({})
