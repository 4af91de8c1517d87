"""RULES §7 sentence by sentence: instant wins (*tới trắng*), freezing (*cóng*) and compensation
(*đền bài*) under every preset.

Each test quotes the rule-book sentence it proves. `tests/engine/specials/test_instant_wins.py` and
`test_freezing.py` prove the Southern game; the variant files prove each preset's own list;
here the same hands are dealt under every preset side by side.
"""

from __future__ import annotations

import pytest
from helpers.tables import Reason, TransferReason, deal, later, transfers

from tienlen_rules.cards import FULL_DECK, format_cards, parse_set
from tienlen_rules.events import PlayersFrozen

PRESETS = ("southern", "northern", "hue", "da_nang", "dau", "dem_la")

# §7 "any game" hands of 13 cards, each holding one pattern (and no earlier one of the lists).
ANY_GAME = {
    "four_twos": "2S 2C 2D 2H 3S 4C 5D 6H 7S 8C 9D 10H JS",
    "five_consecutive_pairs": "3S 3C 4S 4C 5S 5C 6S 6C 7S 7C 9D JH KS",
    "six_pairs": "3S 3C 5S 5C 7S 7C 9S 9C JS JC KS KC AD",
    "dragon": "3S 4C 5D 6H 7S 8C 9D 10H JS QC KD AH 2S",
    "twelve_of_one_colour": "3S 4S 5S 6S 8S 9S 10S JS 3C 4C 5C 6C 2D",
    "same_suit_dragon": "3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH 2S",
}
# Which preset's list holds which of them (§7; §10 for Huế and đếm lá; Northern: none).
ANY_GAME_BY_PRESET = {
    "southern": {p: p for p in ANY_GAME},
    "hue": {p: p for p in ANY_GAME},
    "da_nang": {p: p for p in ANY_GAME},
    "northern": {},
    # "In Đấu four 2s, the dragon ... are not instant wins"; only its own list (15+ of a colour).
    "dau": {"same_suit_dragon": "same_suit_dragon"},
    # §10 "source 004's list: dragon, four 2s, 5 consecutive pairs, 6 pairs" (a same-suit
    # dragon is a dragon).
    "dem_la": {
        "four_twos": "four_twos",
        "five_consecutive_pairs": "five_consecutive_pairs",
        "six_pairs": "six_pairs",
        "dragon": "dragon",
        "same_suit_dragon": "dragon",
    },
}


def _others(hand: str, n: int) -> list[str]:
    """`n` one-card hands of the lowest cards not in `hand`."""
    rest = FULL_DECK & ~parse_set(hand)
    out = []
    for _ in range(n):
        card = rest & -rest
        rest &= ~card
        out.append(format_cards(card))
    return out


@pytest.mark.parametrize("variant", PRESETS)
@pytest.mark.parametrize("pattern", list(ANY_GAME))
def test_s7_the_any_game_instant_wins_of_each_preset(variant: str, pattern: str) -> None:
    """§7: "any game (first games included [ours]): four 2s; 5 consecutive pairs; 6 pairs of any
    ranks ...; the dragon straight 3..A (any suits); 12 or more cards of one colour; the
    same-suit dragon 3..A." "Northern: no instant wins." "Đấu has its own list ... In Đấu four
    2s, the dragon ... are not instant wins". §10 đếm lá: "source 004's list: dragon, four 2s, 5
    consecutive pairs, 6 pairs"."""
    hand = ANY_GAME[pattern]
    t = later(variant, hand, *_others(hand, 2), leader=1)
    expected = ANY_GAME_BY_PRESET[variant].get(pattern, "")
    assert t.state.instant_pattern == expected
    assert t.over == bool(expected)
    if expected:
        assert t.state.instant_winner == 0
        assert t.places == (1, 3, 3)


FIRST_GAME = {
    "four_threes": "3S 3C 3D 3H 5S 7C 9D JH KS",
    "three_consecutive_pairs_with_start": "3S 3D 4S 4C 5S 5C 7D 9H JS",
}
FIRST_GAME_BY_PRESET = {
    "southern": set(FIRST_GAME),
    "da_nang": set(FIRST_GAME),  # §10: "Where a preset's sources are silent, it inherits"
    "hue": set(),  # §10: "there are no first-game instant wins"
    "northern": set(),
    "dau": set(),  # "Đấu has its own list"
    "dem_la": set(),  # source 004's list has no first-game part
}


@pytest.mark.parametrize("variant", PRESETS)
@pytest.mark.parametrize("pattern", list(FIRST_GAME))
def test_s7_the_first_game_instant_wins_of_each_preset(variant: str, pattern: str) -> None:
    """§7: "first game: four 3s; 3 consecutive pairs containing ♠3 (Wikipedia list — the
    default)", and only in a first game (a later deal of the same hand is played)."""
    hand = FIRST_GAME[pattern]
    others = _others(hand, 2)
    first = deal(variant, hand, *others)
    won = pattern in FIRST_GAME_BY_PRESET[variant]
    assert first.state.instant_pattern == (pattern if won else "")
    assert not later(variant, hand, *others, leader=0).over


@pytest.mark.parametrize("variant", ["southern", "hue", "da_nang", "dau"])
def test_s7_a_player_who_has_not_played_when_the_first_player_finishes_is_frozen(
    variant: str,
) -> None:
    """§7: "When the first player finishes (not by an instant win), every player who has not
    played a single card yet is frozen ... [ours] A frozen player is out at once: they take the
    last places ... One frozen player: the others play on for the remaining places" — in every
    preset with cóng (Đà Nẵng too: only two players unplayed spare everyone)."""
    if variant == "dau":
        t = later(variant, "4S 9S", "5S 3C", "3H 4H", leader=0)
        t.play(0, "4S").play(1, "5S").passes(2).play(0, "9S")
        assert t.of(PlayersFrozen) == [PlayersFrozen((2,), (3,))]
        assert t.over  # the one non-frozen player left takes 2nd
        assert t.places == (1, 2, 3)
        return
    t = later(variant, "4S 9S", "5S 3C 8C", "6S 3D 8D", "3H 4H", leader=0)
    t.play(0, "4S").play(1, "5S").play(2, "6S").passes(3).play(0, "9S")
    assert t.of(PlayersFrozen) == [PlayersFrozen((3,), (4,))]
    assert not t.over
    assert t.to_act == 1
    assert t.refused(3, "4H") == Reason.SEAT_FINISHED  # out at once: no more turns


def test_s7_northern_no_cong() -> None:
    """§7: "Northern: no cóng."; §6 "No cóng." """
    t = later("northern", "4S 9S", "5S 3C 8C", "6S 3D 8D", "3H 4H", leader=0)
    t.play(0, "4S").play(1, "5S").play(2, "6S").passes(3).play(0, "9S")
    assert t.of(PlayersFrozen) == []
    assert t.places == (1, 0, 0, 0)


@pytest.mark.parametrize("variant", ["southern", "hue", "da_nang", "dau"])
def test_s7_compensation_the_one_who_alone_could_beat_and_passed_pays_for_every_frozen(
    variant: str,
) -> None:
    """§7: "Compensation (đền bài). When every opponent of the winner is frozen: a player who, on
    their turn, could have beaten the table while the other opponents could not, and passed,
    pays the winner everything the frozen players owe; the other frozen players pay nothing, and
    the compensating player leads the next game. ... On by default (Southern)" — inherited by
    Huế, Đà Nẵng (three unplayed: frozen) and Đấu; with 3 players as with 4."""
    players = 3 if variant == "dau" else 4
    hands = ["5S 9S", "6S 3C", "4D 3D", "4H 3H"][:players]
    t = later(variant, *hands, leader=0)
    t.play(0, "5S").passes(*range(1, players)).play(0, "9S")
    assert t.over
    settlement = t.settle()
    owed = (players - 1) * 2 * 200  # each frozen player owes 2L, L = 2 stakes
    assert {(payer, payee) for payer, payee, _ in transfers(settlement)} == {(1, 0)}
    assert sum(amount for _, _, amount in transfers(settlement)) == owed
    assert {tr.reason for tr in settlement.transfers} == {TransferReason.COMPENSATION}
    assert settlement.next_leader == 1
    nxt = t.next_game(*_others("", players))
    assert nxt.to_act == 1
