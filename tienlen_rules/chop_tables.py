"""Chop tables (*chặt*), RULES §5: which bomb (*hàng*) chops which play, as data.

A play's *chop class* names what it is for chopping: ``"2"`` a single 2, ``"22"`` a pair of 2s,
``"222"`` a triple of 2s, ``"3pairs"``..``"6pairs"`` consecutive pairs, ``"four"`` a four of a
kind, ``"3triples"`` consecutive triples, ``"straight5"``.. a same-suit straight (Northern option).
A table maps a bomb class to the classes it chops; a bomb chops a play of its *own* class only
when higher. A bomb in ``out_of_turn`` may chop when it is not its player's turn. Runs of
consecutive pairs longer than a table lists chop by `with_longer_pairs` (option
`long_pairs_chop`), or not at all.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ChopTable:
    """Which bomb classes chop which play classes, and which may do it out of turn."""

    targets: dict[str, frozenset[str]]
    out_of_turn: frozenset[str]


def _table(rows: dict[str, str], out_of_turn: str = "") -> ChopTable:
    return ChopTable(
        targets={bomb: frozenset(t.split()) for bomb, t in rows.items()},
        out_of_turn=frozenset(out_of_turn.split()),
    )


CHOP_TABLES: dict[str, ChopTable] = {
    "southern": _table(
        {
            "3pairs": "2 3pairs",
            "four": "2 22 3pairs four",
            "4pairs": "2 22 3pairs four 4pairs",
        },
        out_of_turn="4pairs",
    ),
    "hue": _table({"four": "2 four", "4pairs": "2 22 4pairs"}, out_of_turn="4pairs"),
    "da_nang": _table({"four": "2 four", "4pairs": "22 four 4pairs"}, out_of_turn="4pairs"),
    "northern": _table({"four": "2 22 four"}),
    "dau": _table(
        {
            "4pairs": "2 4pairs",
            "5pairs": "2 22 4pairs 5pairs",
            "3triples": "2 22 4pairs 5pairs 3triples",
            "6pairs": "2 22 222 4pairs 5pairs 3triples 6pairs",
        },
        out_of_turn="3triples 6pairs",
    ),
    "none": _table({}),
}

#: The most consecutive pairs one hand can hold: 18 cards (Đấu's dealer) make 9 pairs.
MOST_PAIRS = 9


def with_longer_pairs(table: ChopTable) -> ChopTable:
    """The table with a row for every run of consecutive pairs longer than its longest (option
    `long_pairs_chop` = ladder): N pairs chop what N-1 pairs chop, any N-1 pairs, and a lower
    run of N pairs, out of turn when N-1 pairs may. RULES §3 makes every run of 3+ pairs a bomb
    while the §5 tables stop at 4 pairs (Đấu: 6); the longer runs grow the way Đấu's table
    does. A table without consecutive pairs among its bombs (Northern, none) is unchanged."""
    runs = [n for n in range(3, MOST_PAIRS + 1) if f"{n}pairs" in table.targets]
    if not runs:
        return table
    targets = dict(table.targets)
    out_of_turn = set(table.out_of_turn)
    for n in range(max(runs) + 1, MOST_PAIRS + 1):
        shorter, bomb = f"{n - 1}pairs", f"{n}pairs"
        targets[bomb] = targets[shorter] | {shorter, bomb}
        if shorter in out_of_turn:
            out_of_turn.add(bomb)
    return ChopTable(targets, frozenset(out_of_turn))


#: Northern option: same-suit straights of 5+ cards chop a single 2, of 6+ a pair of 2s.
SUITED_STRAIGHT_CHOPS: dict[str, frozenset[str]] = {
    f"straight{n}": frozenset({"2"} if n == 5 else {"2", "22"}) for n in range(5, 13)
}
