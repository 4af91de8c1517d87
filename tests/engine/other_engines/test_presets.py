"""Other implementations' test cases that concern a variant (RULES §4, §6-§8, §10).

The Southern cases and the table of sources are in tests/engine/other_engines/test_southern.py;
each test here names the repository and file its case comes from. Differences from RULES.md:

| source | their expectation | RULES.md (this engine) |
|---|---|---|
| uongsuadaubung/tien-len prohibit-ending-with-two | going out on a 2 is refused | Huế, Northern: allowed, and ranks you last (§4, §10) |
| uongsuadaubung/tien-len prohibit-ending-with-two | card count: a black 2 left costs 1 stake more, a red 2 2 more | đếm lá: black 2 = 2 cards, red 2 = 4, in addition to the card (§8, §10) |
| uongsuadaubung/tien-len three-spades-rule | ♠3 as the last card doubles the winnings | ba mù: every other player pays L instead of their place transfer (§10) |
| uongsuadaubung/tien-len custom-modes-settlement | a frozen card-count loser pays 26 stakes plus undoubled rotten 2s | đếm lá: the frozen loser's whole payment, rotten conversions included, is doubled (§8) |
"""

from __future__ import annotations

import pytest
from helpers.tables import Reason, TransferReason, combo, later, reasons, rules, transfers

from tienlen_rules.combinations import Kind
from tienlen_rules.errors import IllegalMove
from tienlen_rules.events import PlayerFinished


@pytest.mark.parametrize("variant", ["hue", "northern"])
@pytest.mark.parametrize("last", ["2H", "2D 2H"])
def test_going_out_on_a_two_ranks_last_in_hue_and_the_north(variant: str, last: str) -> None:
    """RULES §4, §10: "heo không được về sau" — going out with a 2 or a pair of 2s is a legal
    move that ranks the player last; the others play on for the places above."""
    # uongsuadaubung/tien-len tests/engine/prohibit-ending-with-two.test.ts (refuses the move there)
    table = later(variant, f"5C AC {last}", "6C 8D", "7C 9D", leader=0)
    table.play(0, "5C").play(1, "6C").play(2, "7C").play(0, "AC").passes(1, 2)
    table.play(0, last)
    assert table.of(PlayerFinished) == [PlayerFinished(0, 3, ranked_last=True)]
    assert not table.over


@pytest.mark.parametrize("variant", ["hue", "northern"])
def test_heo_khong_duoc_ve_sau_a_leader_left_with_only_a_two_plays_it_and_ranks_last(
    variant: str,
) -> None:
    """RULES §4 and §10 are explicit — finishing on a 2 "makes you last instead" — so there is
    no option to refuse the move: the sources give "không được về" its sanction in the same
    breath ("Không được về 2, tứ quý nước cuối. Về 2, tứ quý nước cuối xem như thua chót",
    source 002), and a refusal would leave a leader holding only 2s with no legal move at all
    (a leader may not pass)."""
    # uongsuadaubung/tien-len tests/engine/prohibit-ending-with-two.test.ts (refuses the move there)
    table = later(variant, "5S 2H", "6S 7S", "8S 9S", leader=0)
    table.play(0, "5S").passes(1, 2)
    assert table.to_act == 0  # seat 0 leads a new round holding only ♥2
    assert table.legal(0) == {"2H"}
    with pytest.raises(IllegalMove) as refused:
        table.passes(0)
    assert refused.value.reason == Reason.LEADER_CANNOT_PASS
    table.play(0, "2H")
    assert table.of(PlayerFinished) == [PlayerFinished(0, 3, ranked_last=True)]


def test_a_two_played_before_the_last_card_does_not_rank_last() -> None:
    """RULES §4: only the finishing play matters; a 2 played earlier is no obstacle."""
    # uongsuadaubung/tien-len tests/engine/prohibit-ending-with-two.test.ts ("đánh Heo trước ... dứt điểm bằng lá rác")
    table = later("hue", "5C 2H 4S", "6D 8D", "7D 9D", leader=0)
    table.play(0, "5C").play(1, "6D").play(2, "7D").play(0, "2H").passes(1, 2).play(0, "4S")
    assert table.of(PlayerFinished) == [PlayerFinished(0, 1, ranked_last=False)]


def test_blind_three_going_out_on_a_single_three_of_spades_pays_l_from_everyone() -> None:
    """RULES §7, §10 (ba mù, Huế): winning with ♠3 as the very last card: every other player
    pays the winner L (2 stakes) instead of their place transfer."""
    # uongsuadaubung/tien-len tests/engine/three-spades-rule.test.ts ("Kích hoạt isThreeSpadesWin ...")
    table = later("hue", "5C 2H 3S", "6D 8D", "7D 9D", leader=0)
    table.play(0, "5C").play(1, "6D").play(2, "7D").play(0, "2H").passes(1, 2).play(0, "3S")
    table.play(1, "8D")
    assert table.over
    assert transfers(table.settle()) == [(1, 0, 200), (2, 0, 200)]
    assert reasons(table.settle()) == {TransferReason.BLIND_THREE}


def test_blind_three_needs_the_three_of_spades_alone_not_inside_a_pair() -> None:
    """RULES §7: "♠3 as the very last card"; going out on a pair of 3s is an ordinary win."""
    # uongsuadaubung/tien-len tests/engine/three-spades-rule.test.ts ("... Đôi 3 chứa 3♠ (phải là lá đơn)")
    table = later("hue", "5C 2H 3S 3C", "6D 8D", "7D 9D", leader=0)
    table.play(0, "5C").play(1, "6D").play(2, "7D").play(0, "2H").passes(1, 2)
    table.play(0, "3S 3C").passes(1, 2).play(1, "8D")
    assert table.over
    assert reasons(table.settle()) == {TransferReason.PLACE}


def test_card_count_losers_pay_per_card_left_plus_their_rotten_twos() -> None:
    """RULES §8, §10 (đếm lá): the game ends at the first finish; each loser pays 1 stake per
    card left plus the conversions of their 2s (black 2 = 2, red 2 = 4), in addition."""
    # uongsuadaubung/tien-len tests/engine/prohibit-ending-with-two.test.ts ("Phạt Thối Heo" with CARD_COUNT)
    table = later("dem_la", "3C AH", "4C 2S", "5C 2H", "6C 6D 7D", leader=0)
    table.play(0, "3C").play(1, "4C").play(2, "5C").play(3, "6C").play(0, "AH")
    assert table.over
    paid = dict.fromkeys((1, 2, 3), 0)
    for payer, payee, amount in transfers(table.settle()):
        assert payee == 0
        paid[payer] += amount
    assert paid == {1: 300, 2: 500, 3: 200}


def test_card_count_ends_at_the_first_finish_and_untouched_hands_pay_double() -> None:
    """RULES §4, §8 (đếm lá): the game ends when the first player goes out; a loser still
    holding every dealt card is frozen and pays double (3 cards: 6 stakes)."""
    # uongsuadaubung/tien-len tests/engine/custom-modes-settlement.test.ts ("5. GameEngine COUNT_CARDS")
    table = later("dem_la", "3S", "4S 5S 6S", "7S 8S 9S", "10S JS QS", leader=0)
    table.play(0, "3S")
    assert table.over
    assert table.places == (1, 2, 3, 4)
    assert transfers(table.settle()) == [(1, 0, 600), (2, 0, 600), (3, 0, 600)]


def test_card_count_a_frozen_thirteen_card_hand_pays_twenty_six_stakes() -> None:
    """RULES §8 (đếm lá): 13 cards left, none of them 2s or bombs, doubled: 26 stakes."""
    # uongsuadaubung/tien-len tests/engine/economy.test.ts ("Tính tiền đền Cóng": 26x the bet)
    hand = "4S 4H 5C 6D 6S 7H 8S 9C 10D JH QS KC AD"
    table = later("dem_la", "3C", hand, leader=0)
    table.play(0, "3C")
    assert transfers(table.settle()) == [(1, 0, 2600)]


@pytest.mark.parametrize(
    ("cards", "length"),
    # ishkanan/tienlen api/game/cards_test.go (patternSeqTriples)
    [("3S 3C 3D 4S 4C 4D 5S 5C 5D", 3), ("3S 3C 3D 4S 4C 4D 5S 5C 5D 6S 6C 6D", 4)],
)
def test_consecutive_triples_are_a_combination_in_dau(cards: str, length: int) -> None:
    """RULES §3: consecutive triples (sám cô thông) are playable in Đấu (not in the South)."""
    found = combo(cards, rules("dau"))
    assert found is not None
    assert (found.kind, found.length) == (Kind.CONSECUTIVE_TRIPLES, length)
    assert combo(cards, rules("southern")) is None


def test_consecutive_fours_of_a_kind_are_no_combination_even_in_dau() -> None:
    """RULES §3: no variant plays consecutive fours of a kind (ishkanan/tienlen does)."""
    # ishkanan/tienlen api/game/cards_test.go (patternSeqQuads)
    assert combo("3S 3C 3D 3H 4S 4C 4D 4H 5S 5C 5D 5H", rules("dau")) is None
