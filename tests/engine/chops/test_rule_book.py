"""RULES §5 sentence by sentence: every row of every chop table (*chặt*), in turn and out of
turn (*không cần vòng*), and what each chop costs (§8), played in real games.

The tables below are transcribed from the rule book's text, not from the engine's
`chop_tables`, so a wrong row in the engine fails here. Each test quotes its sentence.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from helpers.tables import Beat, Reason, Table, later, relation, rules

from tienlen_rules.events import ChopSettled, Played

# Plays by class. The "low" ones use ranks 3-8 and 2s, the "high" bombs ranks 9-A, so a bomb is
# always disjoint from its target; the pairs are black so that they are pairs in the North too.
LOW = {
    "2": "2S",
    "22": "2S 2C",
    "222": "2S 2C 2D",
    "2222": "2S 2C 2D 2H",
    "3pairs": "3S 3C 4S 4C 5S 5C",
    "4pairs": "3S 3C 4S 4C 5S 5C 6S 6C",
    "5pairs": "3S 3C 4S 4C 5S 5C 6S 6C 7S 7C",
    "6pairs": "3S 3C 4S 4C 5S 5C 6S 6C 7S 7C 8S 8C",
    "four": "3S 3C 3D 3H",
    "3triples": "3S 3C 3D 4S 4C 4D 5S 5C 5D",
}
HIGH = {
    "3pairs": "9S 9C 10S 10C JS JC",
    "4pairs": "9S 9C 10S 10C JS JC QS QC",
    "5pairs": "9S 9C 10S 10C JS JC QS QC KS KC",
    "6pairs": "9S 9C 10S 10C JS JC QS QC KS KC AS AC",
    "four": "AS AC AD AH",
    "3triples": "9S 9C 9D 10S 10C 10D JS JC JD",
    "straight5": "9S 10S JS QS KS",
    "straight6": "9S 10S JS QS KS AS",
}

# §5 "Southern (default)": bomb -> (targets it chops, out of turn). "smaller X" is the X target.
SOUTHERN = {
    "3pairs": ({"2", "3pairs"}, False),
    "four": ({"2", "22", "3pairs", "four"}, False),
    "4pairs": ({"2", "22", "3pairs", "four", "4pairs"}, True),
}
BOOK = {
    "southern": SOUTHERN,
    # §5 Huế: "four of a kind chops only a single 2; 4 consecutive pairs chop a 2 and a pair of
    # 2s; 3 consecutive pairs can't chop"; §10: a four on a smaller four and 4 pairs on smaller
    # 4 pairs remain chops, and "4 consecutive pairs may chop out of turn as in the South".
    "hue": {
        "3pairs": (set(), False),
        "four": ({"2", "four"}, False),
        "4pairs": ({"2", "22", "4pairs"}, True),
    },
    # §5 Đà Nẵng: "3 consecutive pairs can't chop ...; four of a kind chops only a single 2, not
    # a pair of 2s; 4 consecutive pairs chop a pair of 2s or a four of a kind at any time, out of
    # turn, but can't chop a single 2"; §10 the smaller-bomb chops as for Huế.
    "da_nang": {
        "3pairs": (set(), False),
        "four": ({"2", "four"}, False),
        "4pairs": ({"22", "four", "4pairs"}, True),
    },
    # §5 Northern: "Four of a kind chops a single 2, a pair of 2s, and a smaller four of a kind."
    "northern": {"four": ({"2", "22", "four"}, False)},
    # §5 Đấu: "3 consecutive pairs and four of a kind don't chop ... 4 consecutive pairs chop a 2
    # and smaller 4 consecutive pairs; 5 consecutive pairs chop a 2, a pair of 2s, 4 consecutive
    # pairs, smaller 5 consecutive pairs; 3 consecutive triples chop a 2, a pair of 2s, 4 and 5
    # consecutive pairs, smaller 3 consecutive triples, out of turn; 6 consecutive pairs chop a
    # 2, a pair of 2s, a triple of 2s, 4/5 consecutive pairs, 3 consecutive triples, smaller 6
    # consecutive pairs, out of turn."
    "dau": {
        "3pairs": (set(), False),
        "four": (set(), False),
        "4pairs": ({"2", "4pairs"}, False),
        "5pairs": ({"2", "22", "4pairs", "5pairs"}, False),
        "3triples": ({"2", "22", "4pairs", "5pairs", "3triples"}, True),
        "6pairs": ({"2", "22", "222", "4pairs", "5pairs", "3triples", "6pairs"}, True),
    },
    # §10 đếm lá: "the chop table is the Southern one".
    "dem_la": SOUTHERN,
}
TARGETS = {
    "southern": ("2", "22", "222", "2222", "3pairs", "four", "4pairs"),
    "hue": ("2", "22", "222", "2222", "3pairs", "four", "4pairs"),
    "da_nang": ("2", "22", "222", "2222", "3pairs", "four", "4pairs"),
    "northern": ("2", "22", "222", "2222", "four"),
    "dau": ("2", "22", "222", "2222", "3pairs", "four", "4pairs", "5pairs", "3triples", "6pairs"),
    "dem_la": ("2", "22", "222", "2222", "3pairs", "four", "4pairs"),
}
# §8 penalty values in stakes (Southern and Đấu lists); §10 đếm lá's rotten conversions.
HALF = Fraction(1, 2)
VALUES = {
    "southern": {"2": HALF, "22": 1, "3pairs": Fraction(3, 2), "four": 2, "4pairs": Fraction(5, 2)},
    "dau": {
        "2": HALF,
        "22": 1,
        "222": 2,
        "4pairs": Fraction(3, 2),
        "5pairs": 2,
        "3triples": Fraction(5, 2),
        "6pairs": 3,
    },
    "dem_la": {"2": 2, "22": 4, "3pairs": 2, "four": 4, "4pairs": 2},
}
VALUES["hue"] = VALUES["da_nang"] = VALUES["northern"] = VALUES["southern"]

NO_INSTANT_WINS = {"instant_wins": "none"}

ROWS = [
    (variant, bomb, target, target in chops, out_of_turn)
    for variant, table in BOOK.items()
    for bomb, (chops, out_of_turn) in table.items()
    for target in TARGETS[variant]
]


def _table(variant: str, bomb: str, target: str) -> Table:
    """Seat 0 leads the target; seat 1 holds the bomb and is to act. Four seats (Đấu: three),
    each with a spare card, so nobody goes out."""
    hands = [f"{LOW[target]} 7D", f"{HIGH[bomb]} 8D", "6D", "6H"]
    # Instant wins off: a hand of four 2s would win on the deal.
    return later(
        variant, *hands[: 3 if variant == "dau" else 4], leader=0, options=NO_INSTANT_WINS
    ).play(0, LOW[target])


@pytest.mark.parametrize(("variant", "bomb", "target", "chops", "out_of_turn"), ROWS)
def test_s5_each_bomb_chops_exactly_what_its_chop_table_says(
    variant: str, bomb: str, target: str, chops: bool, out_of_turn: bool
) -> None:
    """§5: "A chop is a bomb played on a 2, a pair of 2s, or a smaller bomb, outside the 'same
    type' rule" — each row of each variant table, including "A triple of 2s can't be chopped;
    nor can four 2s" (Đấu: 6 consecutive pairs do chop a triple of 2s). A combination that is
    no bomb in the variant (3 consecutive pairs in Huế, Đà Nẵng and Đấu, four of a kind in Đấu)
    beats a lower one of its own kind as an ordinary play, and chops nothing."""
    ruleset = rules(variant)
    expected = Beat.CHOPS if chops else Beat.BEATS if bomb == target else Beat.NO
    assert relation(HIGH[bomb], LOW[target], ruleset) == expected
    t = _table(variant, bomb, target)
    assert t.can_play(1, HIGH[bomb]) == (expected != Beat.NO)


@pytest.mark.parametrize(
    ("variant", "bomb", "target", "chops", "out_of_turn"), [r for r in ROWS if r[3]]
)
def test_s5_out_of_turn_only_where_the_table_says_even_after_passing(
    variant: str, bomb: str, target: str, chops: bool, out_of_turn: bool
) -> None:
    """§5: 4 consecutive pairs (South) — "out of turn (không cần vòng): any player may play it on
    those targets even when it is not their turn and even after passing in this round"; Huế and
    Đà Nẵng the same (§5, §10); Đấu: only 3 consecutive triples and 6 consecutive pairs (§10);
    every other bomb chops in turn only. "After an out-of-turn chop, play continues from the
    chopper as if they had played in turn." """
    assert chops
    t = _table(variant, bomb, target).passes(1)
    assert t.to_act == 2
    if not out_of_turn:
        assert t.refused(1, HIGH[bomb]) == Reason.LOCKED_OUT_OF_ROUND
        return
    t.play(1, HIGH[bomb])
    played = t.of(Played)[-1]
    assert (played.chop, played.out_of_turn) == (True, True)
    assert t.to_act == 2  # the next seat after the chopper


@pytest.mark.parametrize(
    ("variant", "bomb", "target", "chops", "out_of_turn"), [r for r in ROWS if r[3]]
)
def test_s5_the_chopped_player_pays_the_chopper_the_value_of_what_was_chopped(
    variant: str, bomb: str, target: str, chops: bool, out_of_turn: bool
) -> None:
    """§5: "The chopped player pays a penalty to the chopper (§8)"; "A bomb played on a bomb is
    always a chop, whether it is a bigger bomb of another type or a higher bomb of the same type,
    and whether the bomb below was itself a chop or simply led: it is paid"; §8 "A pair of 2s is
    worth the sum of its two cards" — at each variant's values."""
    assert chops
    t = _table(variant, bomb, target).play(1, HIGH[bomb])
    while t.of(ChopSettled) == []:
        t.passes(t.to_act)
    settled = t.of(ChopSettled)[-1]
    stakes = Fraction(VALUES[variant][target])
    assert (settled.payer, settled.payee, settled.amount) == (0, 1, int(stakes * 100))
    assert settled.links == 1


@pytest.mark.parametrize(
    ("variant", "first", "second", "amount"),
    [
        ("southern", "3pairs", "four", 50 + 150),  # source 004's example
        ("southern", "four", "4pairs", 50 + 200),
        ("hue", "four", "four", 50 + 200),
        ("da_nang", "four", "four", 50 + 200),
        ("northern", "four", "four", 50 + 200),
        ("dau", "4pairs", "3triples", 50 + 150),
        ("dau", "5pairs", "6pairs", 50 + 200),
        ("dem_la", "3pairs", "4pairs", 200 + 200),
    ],
)
def test_s5_stacked_chops_the_last_chopped_pays_the_whole_chain_to_the_last_chopper(
    variant: str, first: str, second: str, amount: int
) -> None:
    """§5: "Stacked chops (chặt chồng). A chop can itself be chopped. When a chain of chops ends,
    the last player to be chopped pays the whole chain's value to the last chopper; earlier
    players in the chain pay nothing. Example (source 004): A plays a black 2, B chops with 3
    consecutive pairs, C chops B with four of a kind: B pays C the value of the black 2 plus the
    value of the 3 consecutive pairs." — in every variant, with its own bombs and values."""
    low_first = {"3pairs": LOW["3pairs"], "four": "7S 7C 7D 7H", "4pairs": LOW["4pairs"]}
    low_first |= {"5pairs": LOW["5pairs"]}
    first_cards = low_first[first]
    hands = ["2S 8D", f"{first_cards} 8H", f"{HIGH[second]} 6D", "6H"]
    t = later(variant, *hands[: 3 if variant == "dau" else 4], leader=0)
    t.play(0, "2S").play(1, first_cards).play(2, HIGH[second])
    while t.of(ChopSettled) == []:
        t.passes(t.to_act)
    settled = t.of(ChopSettled)[-1]
    assert (settled.payer, settled.payee, settled.amount, settled.links) == (1, 2, amount, 2)
    assert [c for c in t.of(ChopSettled) if c.payer == 0] == []  # A pays nothing
