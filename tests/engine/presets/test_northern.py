"""Northern Tiến Lên (*miền Bắc*), RULES §5 (Northern chop table), §6, §10: every rule that
differs from the Southern game, with the sources' own examples where they give one.

Each rule is checked where the engine enforces it (a move accepted or refused in a game, the
legal-move list, the settlement) and, where it helps, against the Southern preset on the same
cards, so a test fails if the preset silently plays the Southern rule.
"""

from __future__ import annotations

import pytest
from helpers.tables import (
    Reason,
    Table,
    TransferReason,
    cards,
    combo,
    deal,
    later,
    rules,
    transfers,
)

from tienlen_rules import new_game
from tienlen_rules.errors import SetupError
from tienlen_rules.events import (
    ChopSettled,
    InstantWin,
    Played,
    PlayerFinished,
    PlayersFrozen,
)

NORTH = rules("northern")
SOUTH = rules("southern")


# --------------------------------------------------------------------------- pairs and colour


@pytest.mark.parametrize(
    ("pair", "one_colour"),
    [("5S 5C", True), ("5D 5H", True), ("5S 5D", False), ("5C 5H", False), ("2S 2H", False)],
)
def test_a_pair_must_be_two_cards_of_one_colour(pair: str, one_colour: bool) -> None:
    assert (combo(pair, NORTH) is not None) is one_colour
    assert combo(pair, SOUTH) is not None  # the South pairs any two cards of a rank


def test_a_pair_of_two_colours_is_refused_in_play() -> None:
    t = later("northern", "5S 5D 9C", "6S 7S")
    assert t.refused(0, "5S 5D") == Reason.NOT_A_COMBINATION
    assert "5S 5D" not in t.legal(0)
    assert t.legal(0) >= {"5S", "5D", "9C"}


def test_a_pair_is_followed_by_a_higher_pair_of_its_colour() -> None:
    # Source 000: "A đánh đôi ♥6♦6 (đôi 6 đỏ), B phải chặn những đôi đồng màu (VD: ♥9♦9)".
    t = later("northern", "6D 6H 3S", "9S 9C 9D 9H", "10S")
    t.play(0, "6D 6H")
    assert t.legal(1) == {"9D 9H"}
    assert t.refused(1, "9S 9C") == Reason.DOES_NOT_BEAT
    t.play(1, "9D 9H")


# --------------------------------------------------------------------------- singles and suit


def test_a_single_is_followed_by_a_higher_card_of_its_suit() -> None:
    # Source 000/002: "A đánh cóc ♦4, B phải chặn những cây đồng chất ♦ (VD: ♦6), C chặn ♦7".
    t = later("northern", "4D KS", "6H 6D 8C", "7H 7D")
    t.play(0, "4D")
    assert t.legal(1) == {"6D"}
    assert t.refused(1, "6H") == Reason.DOES_NOT_BEAT
    assert t.refused(1, "8C") == Reason.DOES_NOT_BEAT
    t.play(1, "6D")
    assert t.refused(2, "7H") == Reason.DOES_NOT_BEAT
    t.play(2, "7D")


# --------------------------------------------------------------------------- triples


def test_three_fives_odd_spade_is_beaten_by_three_tens_odd_spade_only() -> None:
    # Source 000/001/002: "A đánh sám cô ♥5♦5♠5 (ba thằng 5 lẻ bích), B phải chặn những sám cô
    # đồng chất (cùng lẻ ♠, VD: ♥10♦10♠10)".
    t = later("northern", "5H 5D 5S 3C", "10S 10C 10D 10H", "JS")
    t.play(0, "5S 5D 5H")
    assert t.legal(1) == {"10S 10D 10H"}  # of the four triples of tens, only the odd-spade one
    assert t.refused(1, "10C 10D 10H") == Reason.DOES_NOT_BEAT
    assert t.refused(1, "10S 10C 10H") == Reason.DOES_NOT_BEAT
    t.play(1, "10S 10D 10H")


# --------------------------------------------------------------------------- straights


@pytest.mark.parametrize("straight", ["4C 5C 6C", "6H 7H 8H 9H 10H", "8S 9S 10S JS", "QD KD AD"])
def test_a_straight_of_one_suit_is_a_combination(straight: str) -> None:
    # Source 000's Northern examples.
    found = combo(straight, NORTH)
    assert found is not None
    assert found.length == len(straight.split())


@pytest.mark.parametrize("straight", ["4C 5C 6D", "6H 7S 8H 9C 10H", "8S 9H 10H JD"])
def test_a_straight_of_mixed_suits_is_not_played_in_the_north(straight: str) -> None:
    # Source 000's Southern examples, which the North refuses.
    assert combo(straight, NORTH) is None
    assert combo(straight, SOUTH) is not None


def test_a_straight_is_followed_by_a_higher_straight_of_its_suit_and_length() -> None:
    # Source 000/002: "A đánh sảnh ♣5♣6♣7, B phải chặn những sảnh đồng chất có số lá bằng nhau
    # (VD: ♣9♣10♣J / ♣8♣9♣10)".
    t = later("northern", "5C 6C 7C 3S", "8C 9C 10C JC 9D 10D JD", "KS")
    t.play(0, "5C 6C 7C")
    assert t.legal(1) == {"8C 9C 10C", "9C 10C JC"}
    assert t.refused(1, "9D 10D JD") == Reason.DOES_NOT_BEAT
    assert t.refused(1, "8C 9C 10C JC") == Reason.WRONG_TYPE_OR_LENGTH
    t.play(1, "9C 10C JC")


# --------------------------------------------------------------------------- the 2s


def test_a_two_is_beaten_only_by_a_higher_two_or_a_chop() -> None:
    t = later("northern", "4D 2C 8S", "2S 5H", "2H 2D 9S", "AS 7C 7S 7D 7H")
    t.play(0, "4D").play(1, "2S")  # a 2 on a ♦4, off suit
    assert t.to_act == 2
    t.play(2, "2D")  # a higher 2 of another suit beats it
    assert t.to_act == 3
    assert t.refused(3, "AS") == Reason.DOES_NOT_BEAT
    t.play(3, "7S 7C 7D 7H")  # four of a kind chops it
    assert t.of(Played)[-1].chop
    assert t.refused(0, "2C") == Reason.WRONG_TYPE_OR_LENGTH


def test_a_pair_of_twos_is_beaten_only_by_a_chop() -> None:
    t = later("northern", "4D 4H 3S", "2S 2C 5S", "2D 2H 9S", "8S 8C 8D 8H")
    t.play(0, "4D 4H").play(1, "2S 2C")
    assert t.refused(2, "2D 2H") == Reason.DOES_NOT_BEAT
    t.passes(2)
    t.play(3, "8S 8C 8D 8H")
    assert t.of(Played)[-1].chop


# --------------------------------------------------------------------------- chops


def test_a_four_of_a_kind_chopping_a_two_is_paid_at_the_southern_value() -> None:
    t = later("northern", "2H 3S", "7S 7C 7D 7H 4C")
    t.play(0, "2H").play(1, "7S 7C 7D 7H").passes(0)
    assert t.of(ChopSettled)[-1] == ChopSettled(0, 1, 100, t.of(ChopSettled)[-1].cards, 1)
    t.play(1, "4C")
    s = t.settle()
    assert transfers(s, TransferReason.CHOP) == [(0, 1, 100)]  # a red 2: 1 stake


def test_a_four_of_a_kind_chopping_a_smaller_four_is_paid_two_stakes() -> None:
    t = later("northern", "5S 5C 5D 5H 3S", "7S 7C 7D 7H 4C")
    t.play(0, "5S 5C 5D 5H").play(1, "7S 7C 7D 7H").passes(0).play(1, "4C")
    assert transfers(t.settle(), TransferReason.CHOP) == [(0, 1, 200)]


def test_no_consecutive_pairs_are_played_in_the_north() -> None:
    # Source 002: "Tiến lên miền Bắc không chơi đôi thông" — even pairs of one colour.
    for run in ("3S 3C 4S 4C 5S 5C", "3D 3H 4D 4H 5D 5H 6D 6H"):
        assert combo(run, NORTH) is None
        assert combo(run, SOUTH) is not None
    t = later("northern", "3S 3C 4S 4C 5S 5C", "2H")
    assert t.refused(0, "3S 3C 4S 4C 5S 5C") == Reason.NOT_A_COMBINATION


def test_consecutive_pairs_do_not_chop_a_two_in_the_north() -> None:
    t = later("northern", "2H 9S", "3S 3C 4S 4C 5S 5C")
    t.play(0, "2H")
    assert t.refused(1, "3S 3C 4S 4C 5S 5C") == Reason.NOT_A_COMBINATION


# --------------------------------------------------------------------------- finishing


@pytest.mark.parametrize("last_play", ["2H", "2S 2C", "JS JC JD JH"])
def test_finishing_with_a_two_or_a_four_of_a_kind_ranks_you_last(last_play: str) -> None:
    # Source 000: "Về hai, tứ quý nước cuối xem như thua chót".
    t = later("northern", f"5D AD {last_play}", "6D 3C 4C", "7D 8S 9H")
    t.play(0, "5D").play(1, "6D").play(2, "7D").play(0, "AD").passes(1, 2).play(0, last_play)
    finished = t.of(PlayerFinished)[-1]
    assert finished == PlayerFinished(0, 3, ranked_last=True)
    assert not t.over  # the others play on for the places above
    t.passes(1, 2).play(1, "3C").passes(2).play(1, "4C")
    assert t.over
    assert t.places == (3, 1, 2)
    s = t.settle()
    # 3 players: last -> 1st 2 stakes, 2nd -> 1st 1 stake; the player ranked last pays as last.
    assert sorted(transfers(s, TransferReason.PLACE)) == [(0, 1, 200), (2, 1, 100)]


def test_finishing_with_another_play_takes_the_next_place() -> None:
    t = later("northern", "5D AD", "6D 3C 4C", "7D 8S 9H")
    t.play(0, "5D").play(1, "6D").play(2, "7D").play(0, "AD")
    assert t.of(PlayerFinished)[-1] == PlayerFinished(0, 1, ranked_last=False)


def test_finishing_with_a_two_is_allowed_in_the_south() -> None:
    t = later("southern", "5D 2H", "6D 3C 4C", "7D 8S 9H")
    t.play(0, "5D").play(1, "6D").play(2, "7D").play(0, "2H")
    assert t.of(PlayerFinished)[-1] == PlayerFinished(0, 1, ranked_last=False)


# --------------------------------------------------------------------------- no instant wins, no cóng


@pytest.mark.parametrize(
    "hand",
    [
        "2S 2C 2D 2H 4S",  # four 2s
        "3D 4D 5D 6C 7C 8C 9C 10C JC QC KC AC 3C",  # the dragon
        "4S 4C 6S 6C 8D 8H 10S 10C QD QH AS AC",  # six pairs
        "3C 3D 3H 3S",  # four 3s
    ],
)
def test_no_instant_wins_in_the_north(hand: str) -> None:
    # Source 000: "Tiến lên miền Bắc không chơi tới trắng".
    north = deal("northern", hand, "5H")
    assert not north.of(InstantWin)
    assert not north.over
    south = deal("southern", hand, "5H")
    assert south.of(InstantWin)  # the same hand wins on the deal in the South


def test_no_cong_in_the_north() -> None:
    # Source 000: "Tiến lên miền Bắc không có cóng": going out before anyone else has played
    # freezes nobody; the others play on.
    north = deal("northern", "3S", "4S 5S", "6S 7S", "8S 9S")
    north.play(0, "3S")
    assert not north.of(PlayersFrozen)
    assert not north.over
    assert north.state.frozen == 0
    south = deal("southern", "3S", "4S 5S", "6S 7S", "8S 9S")
    south.play(0, "3S")
    assert south.of(PlayersFrozen)
    assert south.over


def test_no_compensation_in_the_north() -> None:
    assert NORTH.compensation is False
    assert NORTH.freezing is False


# --------------------------------------------------------------------------- thối hai


def _three_player_game_left_holding(variant: str, last_hand: str) -> Table:
    """Everyone plays; seat 0 goes out first, seat 1 second, seat 2 is left holding
    `last_hand` (it passes whenever it could play)."""
    t = later(variant, "4C AC 9S", "5C 7C 8S", f"6C {last_hand}")
    t.play(0, "4C").play(1, "5C").play(2, "6C").play(0, "AC").passes(1, 2)
    t.play(0, "9S").passes(1, 2).play(1, "7C").passes(2).play(1, "8S")
    assert t.over
    assert t.places == (1, 2, 3)
    return t


def test_thoi_hai_a_last_player_holding_2s_pays_13_stakes_once() -> None:
    # Source 000: "thối hai (đền tiền cược tương đương 13 cây của Tiến lên miền Nam)";
    # RULES §10: 13 stakes once, not per 2, to the player who finished just before them.
    t = _three_player_game_left_holding("northern", "2S 2H 4D")
    s = t.settle()
    assert transfers(s, TransferReason.ROTTEN) == [(2, 1, 1300)]
    assert sorted(transfers(s, TransferReason.PLACE)) == [(1, 0, 100), (2, 0, 200)]


def test_rotten_twos_are_paid_by_suit_in_the_south() -> None:
    t = _three_player_game_left_holding("southern", "2S 2H 4D")
    assert sorted(transfers(t.settle(), TransferReason.ROTTEN)) == [(2, 1, 50), (2, 1, 100)]


def test_a_four_of_a_kind_left_rots_at_two_stakes_beside_thoi_hai() -> None:
    t = _three_player_game_left_holding("northern", "JS JC JD JH 2D")
    assert sorted(transfers(t.settle(), TransferReason.ROTTEN)) == [(2, 1, 200), (2, 1, 1300)]


# --------------------------------------------------------------------------- leading


def test_the_first_game_is_led_by_the_spade_three_holder() -> None:
    t = deal("northern", "4S 5S", "3S 6S", "7S 8S")
    assert t.to_act == 1
    assert t.refused(1, "6S") == Reason.MUST_INCLUDE_STARTING_CARD


# --------------------------------------------------------------------------- options from the sources


def test_suited_straight_chop_is_playable_and_paid() -> None:
    t = later("northern", "2H 3S", "5D 6D 7D 8D 9D 4C", options={"suited_straight_chops": True})
    t.play(0, "2H").play(1, "5D 6D 7D 8D 9D").passes(0).play(1, "4C")
    assert transfers(t.settle(), TransferReason.CHOP) == [(0, 1, 100)]


def test_gop_3_option_the_spade_three_holder_leads_every_game() -> None:
    # Source 000: "nếu có góp 3 thì người chơi nào có ♠3 sẽ được ưu tiên đánh trước".
    for gop_3, leader in ((True, 1), (False, 0)):
        first = later("northern", "3S", "8S", options={"starting_card_every_game": gop_3})
        first.play(0, "3S")
        assert first.state.winner == 0
        second = first.next_game("4D 5D", "3S 6D")
        assert not second.state.first_game
        assert second.to_act == leader, f"góp 3 {gop_3}"


def test_with_gop_3_a_refused_leader_is_not_told_to_deal_a_game_that_is_not_a_first_game() -> None:
    # With góp 3 the starting card's holder leads every game, so a game that is not a first game
    # would refuse the same leader: the error must not suggest it.
    gop_3 = rules("northern", starting_card_every_game=True)
    hands = (cards("4S 9S"), cards("3S 10S"))
    for first_game in (True, False):
        with pytest.raises(SetupError) as refused:
            new_game(gop_3, 2, hands=hands, first_game=first_game, leader=0)
        assert refused.value.code == "INVALID_LEADER"
        assert "not a first game" not in refused.value.message, refused.value.message
    # Without góp 3 a first game's refusal does point there (that game takes the leader).
    with pytest.raises(SetupError) as refused:
        new_game(NORTH, 2, hands=hands, leader=0)
    assert "deal a game that is not a first game" in refused.value.message


def test_four_threes_lay_down_twos_option() -> None:
    # Source 000: "Nếu người chơi nào có tứ quý 3 thì tất cả những người chơi ván đó phải hạ hết
    # hai".
    on = deal(
        "northern", "3S 3C 3D 3H 2S 9D", "2H 2D 8C", options={"four_threes_lay_down_twos": True}
    )
    assert on.state.hands == (cards("3S 3C 3D 3H 9D"), cards("8C"))
    off = deal("northern", "3S 3C 3D 3H 2S 9D", "2H 2D 8C")
    assert off.state.hands == (cards("3S 3C 3D 3H 2S 9D"), cards("2H 2D 8C"))
