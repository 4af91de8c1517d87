"""Huế (*kiểu Huế*), RULES §4, §5, §7, §10: the ♣3 lead, its chop table, 3 consecutive pairs
that steal the lead (*cướp cái*) instead of chopping, the chop of a last card, *ba mù*, rotten
♠3, no finishing on a 2, and its instant wins — each against the Southern game on the same cards.
"""

from __future__ import annotations

import pytest
from helpers.tables import (
    Reason,
    Table,
    TransferReason,
    deal,
    later,
    reasons,
    transfers,
)

from tienlen_rules.cards import THREE_OF_CLUBS, THREE_OF_SPADES
from tienlen_rules.events import ChopSettled, InstantWin, Played, PlayerFinished

THREE_PAIRS = "3S 3C 4S 4C 5S 5C"
HIGHER_THREE_PAIRS = "6S 6C 7S 7C 8S 8C"
FOUR_PAIRS = "9S 9C 10S 10C JS JC QS QC"


# --------------------------------------------------------------------------- who leads


def test_the_club_three_holder_leads_the_first_game_and_must_play_it() -> None:
    # Source 000: "Tại các tỉnh Bình Trị Thiên, ♣3 được đánh đầu tiên chứ không phải ♠3".
    t = deal("hue", "3S 5S", "3C 4D 5H", "6S 7S")
    assert t.to_act == 1
    assert t.state.must_include == THREE_OF_CLUBS
    assert t.refused(1, "4D") == Reason.MUST_INCLUDE_STARTING_CARD
    south = deal("southern", "3S 5S", "3C 4D 5H", "6S 7S")
    assert south.to_act == 0
    assert south.state.must_include == THREE_OF_SPADES


def test_the_club_three_may_lead_inside_a_combination() -> None:
    # Source 000: "♣3 đánh trước có thể kèm theo với những con phụ (như sảnh, đôi…)".
    t = deal("hue", "3S 5S", "3C 4D 5H", "6S 7S")
    t.play(1, "3C 4D 5H")
    assert t.of(Played)[-1].length == 3


@pytest.mark.parametrize(
    ("hands", "leader", "card"),
    [
        (("4S 9D", "3D 8S", "5C 7H"), 1, "3D"),  # no ♣3 and no ♠3: the ♦3 is the lowest card
        (("4S 9D", "3D 8S", "3S 7H"), 2, "3S"),  # no ♣3: the lowest dealt card, here ♠3, leads
    ],
)
def test_the_lowest_card_leads_when_nobody_holds_the_club_three(
    hands: tuple[str, ...], leader: int, card: str
) -> None:
    t = deal("hue", *hands)
    assert t.to_act == leader
    assert (
        t.refused(leader, hands[leader].replace(card, "").strip())
        == Reason.MUST_INCLUDE_STARTING_CARD
    )
    t.play(leader, card)


# --------------------------------------------------------------------------- instant wins


@pytest.mark.parametrize(
    ("hand", "southern_pattern"),
    [
        ("3S 3C 3D 3H 9S", "four_threes"),
        ("3S 3C 4S 4C 5S 5C 9D", "three_consecutive_pairs_with_start"),
        ("3S 3C 4S 4C 5S 5C 6S 6C 9D", "three_consecutive_pairs_with_start"),  # 4 pairs
    ],
)
def test_no_first_game_instant_wins(hand: str, southern_pattern: str) -> None:
    # RULES §10: four 3s must still lead with ♣3 (source 000: "Nếu ván đầu tiên một người có tứ
    # quý 3 hay 4 đôi thông thì vẫn phải đánh sao cho ♣3 đầu tiên").
    t = deal("hue", hand, "6H 7H")
    assert not t.of(InstantWin)
    assert not t.over
    assert t.to_act == 0
    assert t.refused(0, "3S") == Reason.MUST_INCLUDE_STARTING_CARD
    south = deal("southern", hand, "6H 7H")
    assert south.of(InstantWin) == [InstantWin(0, southern_pattern)]


def test_four_threes_must_lead_with_the_club_three() -> None:
    t = deal("hue", "3S 3C 3D 3H 9S", "6H 7H")
    t.play(0, "3S 3C 3D 3H")


@pytest.mark.parametrize(
    ("hand", "pattern"),
    [
        ("2S 2C 2D 2H 9S", "four_twos"),
        ("4S 4C 6S 6C 8D 8H 10S 10C QD QH AS AC", "six_pairs"),
    ],
)
def test_any_game_instant_wins_apply_in_the_first_game(hand: str, pattern: str) -> None:
    t = deal("hue", "3C 5H", hand)
    assert t.of(InstantWin) == [InstantWin(1, pattern)]
    assert t.over


# --------------------------------------------------------------------------- the chop table


def test_four_consecutive_pairs_chop_a_pair_of_twos_out_of_turn_even_after_passing() -> None:
    t = later("hue", "8D 8H 2S 2C 4H", f"{FOUR_PAIRS} 3H", "JD JH 3D")
    t.play(0, "8D 8H").passes(1).play(2, "JD JH").play(0, "2S 2C")
    assert t.to_act == 2  # seat 1 passed: it is out of this round (qua tay)...
    t.play(1, FOUR_PAIRS)  # ...yet it chops out of turn (không cần vòng)
    played = t.of(Played)[-1]
    assert played.chop
    assert played.out_of_turn
    assert t.to_act == 2  # play continues from the chopper
    t.passes(2, 0)
    settled = t.of(ChopSettled)[-1]
    assert (settled.payer, settled.payee, settled.amount) == (0, 1, 100)  # ♠2 ½ + ♣2 ½


# --------------------------------------------------------------------------- 3 consecutive pairs


def test_three_consecutive_pairs_do_not_chop_a_two() -> None:
    # Source 000: "ở Huế 3 đôi thông không thể chặt được heo".
    t = later("hue", "2H 9S", f"{THREE_PAIRS} 10S")
    t.play(0, "2H")
    assert t.refused(1, THREE_PAIRS) == Reason.WRONG_TYPE_OR_LENGTH


def test_a_higher_three_consecutive_pairs_beats_a_lower_one_unpaid() -> None:
    t = later("hue", f"{THREE_PAIRS} 9S", f"{HIGHER_THREE_PAIRS} 10S")
    t.play(0, THREE_PAIRS).play(1, HIGHER_THREE_PAIRS)
    assert not t.of(Played)[-1].chop
    t.passes(0).play(1, "10S")
    assert t.over
    s = t.settle()
    assert TransferReason.CHOP not in reasons(s)
    assert transfers(s) == [(0, 1, 200)]


def test_a_higher_three_consecutive_pairs_chops_a_lower_one_in_the_south() -> None:
    t = later("southern", f"{THREE_PAIRS} 9S", f"{HIGHER_THREE_PAIRS} 10S")
    t.play(0, THREE_PAIRS).play(1, HIGHER_THREE_PAIRS)
    assert t.of(Played)[-1].chop
    t.passes(0).play(1, "10S")
    assert transfers(t.settle(), TransferReason.CHOP) == [(0, 1, 150)]


@pytest.mark.parametrize(("variant", "rotten"), [("hue", []), ("southern", [(1, 0, 150)])])
def test_three_consecutive_pairs_do_not_rot(
    variant: str, rotten: list[tuple[int, int, int]]
) -> None:
    t = later(variant, "4D 9S", f"{THREE_PAIRS} 5D 8S")
    t.play(0, "4D").play(1, "5D").play(0, "9S")
    assert t.over
    assert t.state.frozen == 0
    assert transfers(t.settle(), TransferReason.ROTTEN) == rotten


# --------------------------------------------------------------------------- cướp cái


def test_cuop_cai_three_consecutive_pairs_steal_the_lead_at_the_start_of_a_non_first_game() -> None:
    # Source 000: "Ba đôi thông có quyền cướp cái: ... đánh 3 đôi thông ra rồi sẽ có quyền đi
    # trước (nếu có người bắt lại 3 đôi thông hơn thì phải nhường người đó đi lại)".
    t = later("hue", "9S 10S", f"{THREE_PAIRS} JS", "QS KS", f"{HIGHER_THREE_PAIRS} AS", leader=0)
    assert t.to_act == 0  # the previous winner would lead...
    t.play(1, THREE_PAIRS)  # ...but seat 1 steals the lead out of turn
    steal = t.of(Played)[-1]
    assert steal.steal
    assert steal.out_of_turn
    assert t.to_act == 2
    assert t.refused(0, "9S") == Reason.NOT_YOUR_TURN
    t.play(3, HIGHER_THREE_PAIRS)  # a higher 3 consecutive pairs steals it back
    back = t.of(Played)[-1]
    assert back.steal
    assert not back.chop
    assert t.to_act == 0


def test_only_a_player_who_did_not_win_steals_when_the_winners_own_lead_is_not_open() -> None:
    # Source 000: "người không về nhất nhưng có 3 đôi thông thì đánh 3 đôi thông ra rồi sẽ có
    # quyền đi trước (nếu có người bắt lại 3 đôi thông hơn thì phải nhường người đó đi lại)":
    # with steal_winner_pairs_lead off a steal and a steal-back still work as by default.
    options = {"steal_winner_pairs_lead": False}
    t = later(
        "hue",
        "9S 10S",
        f"{THREE_PAIRS} JS",
        "QS KS",
        f"{HIGHER_THREE_PAIRS} AS",
        leader=0,
        options=options,
    )
    t.play(1, THREE_PAIRS).play(3, HIGHER_THREE_PAIRS)
    assert [p.steal for p in t.of(Played)] == [True, True]
    assert t.to_act == 0
    # The winner leading 3 consecutive pairs themselves: no steal, the lead goes round in turn.
    t = later("hue", f"{THREE_PAIRS} 9S", "QS KS", f"{HIGHER_THREE_PAIRS} AS", options=options)
    t.play(0, THREE_PAIRS)
    assert t.refused(2, HIGHER_THREE_PAIRS) == Reason.CANNOT_STEAL_LEAD


def test_a_lower_three_consecutive_pairs_cannot_steal_back() -> None:
    t = later("hue", "9S 10S", f"{HIGHER_THREE_PAIRS} JS", "QS KS", f"{THREE_PAIRS} AS", leader=0)
    t.play(1, HIGHER_THREE_PAIRS)
    assert t.refused(3, THREE_PAIRS) == Reason.CANNOT_STEAL_LEAD


def test_no_lead_stealing_in_a_first_game() -> None:
    # Source 000: "Những ván đầu không được về lăng hoặc cướp cái".
    t = deal("hue", "3C 10S", f"{THREE_PAIRS.replace('3C', '3D')} JS", "QS KS")
    assert t.to_act == 0
    assert t.refused(1, THREE_PAIRS.replace("3C", "3D")) == Reason.CANNOT_STEAL_LEAD


def test_no_lead_stealing_once_the_leader_has_led_something_else() -> None:
    t = later("hue", "9S 10S", "JS QS", f"{THREE_PAIRS} KS", leader=0)
    t.play(0, "9S")
    assert t.refused(2, THREE_PAIRS) == Reason.CANNOT_STEAL_LEAD
    t.play(1, "JS")
    assert t.refused(2, THREE_PAIRS) == Reason.WRONG_TYPE_OR_LENGTH


def test_no_lead_stealing_in_the_south() -> None:
    t = later("southern", "9S 10S", f"{THREE_PAIRS} JS", "QS KS", leader=0)
    assert t.refused(1, THREE_PAIRS) == Reason.NOT_YOUR_TURN


# --------------------------------------------------------------------------- chop of a last card


def test_a_chop_of_a_last_card_pays_the_chopper_but_the_chopped_pays_nothing() -> None:
    # Source 000: "Trong trường hợp chặt heo mà đó là con cuối cùng của đối phương (tức đi heo về
    # bài) thì vẫn được tính điểm còn người bị chặt đó thì không bị mất điểm."
    t = later("hue", "4D AD 5S 5C 5D 5H", "6D 9S 9C 9D 9H 3S", "7D 4S 6S")
    t.play(0, "4D").play(1, "6D").play(2, "7D").play(0, "AD").passes(1, 2)
    t.play(0, "5S 5C 5D 5H")  # going out with a four of a kind is allowed in Huế
    assert t.of(PlayerFinished)[-1] == PlayerFinished(0, 1, ranked_last=False)
    t.play(1, "9S 9C 9D 9H").passes(2)
    assert t.of(ChopSettled)[-1].payer == -1
    assert t.of(ChopSettled)[-1].amount == 200
    t.play(1, "3S")
    s = t.settle()
    assert transfers(s, TransferReason.CHOP) == [(-1, 1, 200)]
    assert not s.zero_sum
    assert sum(s.net) == 200
    assert s.net[0] == 200 + 100  # the winner: places only, nothing paid for the chop


def test_a_chopped_last_two_is_paid_to_the_chopper_by_nobody() -> None:
    t = later("hue", "5D 2H", "6D 9S 9C 9D 9H 3S", "4S 7D")
    t.play(0, "5D").play(1, "6D").play(2, "7D").play(0, "2H")  # out on a 2: ranked last
    t.play(1, "9S 9C 9D 9H").passes(2)
    assert t.of(ChopSettled)[-1] == ChopSettled(-1, 1, 100, t.of(ChopSettled)[-1].cards, 1, True)


def test_a_chop_of_a_last_card_is_void_in_the_south() -> None:
    t = later("southern", "4D AD 5S 5C 5D 5H", "6D 9S 9C 9D 9H 3S", "7D 4S 6S")
    t.play(0, "4D").play(1, "6D").play(2, "7D").play(0, "AD").passes(1, 2)
    t.play(0, "5S 5C 5D 5H").play(1, "9S 9C 9D 9H").passes(2).play(1, "3S")
    s = t.settle()
    assert TransferReason.CHOP not in reasons(s)
    assert s.zero_sum


# --------------------------------------------------------------------------- finishing


def test_finishing_on_a_two_ranks_last() -> None:
    # Source 000/002: "heo không được về sau"; RULES §10.
    t = later("hue", "5S 2H", "6S 7S", "8S 9S")
    t.play(0, "5S").play(1, "6S").play(2, "8S").play(0, "2H")
    assert t.of(PlayerFinished)[-1] == PlayerFinished(0, 3, ranked_last=True)
    t.passes(1, 2).play(1, "7S")
    assert t.over
    assert t.places == (3, 1, 2)
    assert sorted(transfers(t.settle(), TransferReason.PLACE)) == [(0, 1, 200), (2, 1, 100)]


def test_finishing_on_a_four_of_a_kind_is_allowed() -> None:
    t = later("hue", "JS 9S 9C 9D 9H", "6S 7S", "8S 10S")
    t.play(0, "JS").passes(1, 2).play(0, "9S 9C 9D 9H")
    assert t.of(PlayerFinished)[-1] == PlayerFinished(0, 1, ranked_last=False)


# --------------------------------------------------------------------------- ba mù, rotten ♠3


def _ba_mu_game(variant: str, **options: object) -> Table:
    """Seat 0 goes out with ♠3 as its very last card, after everyone has played."""
    t = deal(variant, "3C 3S 2H", "4S 9S", "5S 6S", "7S 8S", options=options)
    t.play(0, "3C").play(1, "4S").play(2, "5S").play(3, "7S").play(0, "2H").passes(1, 2, 3)
    t.play(0, "3S").passes(1, 2, 3).play(1, "9S").passes(2, 3).play(2, "6S")
    assert t.over
    assert t.places == (1, 2, 3, 4)
    return t


def test_ba_mu_winning_with_the_spade_three_makes_every_other_pay_as_last() -> None:
    # Source 000: "Nếu 1 người về nhất với con ♠3 (ba mù) ở cuối cùng thì tính 3 người kia thua
    # chót"; RULES §10: every other player pays the winner L instead of their place transfer.
    s = _ba_mu_game("hue").settle()
    assert sorted(transfers(s)) == [(1, 0, 200), (2, 0, 200), (3, 0, 200)]
    assert reasons(s) == {TransferReason.BLIND_THREE}


def test_without_ba_mu_the_same_game_pays_places() -> None:
    s = _ba_mu_game("hue", blind_three_stakes=0).settle()
    assert sorted(transfers(s)) == [(2, 1, 100), (3, 0, 200)]
    assert reasons(s) == {TransferReason.PLACE}


def test_rotten_spade_three_the_last_player_holding_only_it_pays_the_winner_3_stakes() -> None:
    # Source 000: "Thúi 3 bích: Nếu 1 người về chót còn cầm ♠3 trên tay (chỉ cầm duy nhất con ♠3)
    # thì sẽ bị phạt"; RULES §10: the last player pays the winner 3 stakes.
    t = deal("hue", "3C 9S", "3S 5S")
    t.play(0, "3C").play(1, "5S").play(0, "9S")
    assert t.over
    s = t.settle()
    assert transfers(s, TransferReason.ROTTEN_THREE) == [(1, 0, 300)]
    assert transfers(s, TransferReason.PLACE) == [(1, 0, 200)]
    off = deal("hue", "3C 9S", "3S 5S", options={"rotten_three_stakes": 0})
    off.play(0, "3C").play(1, "5S").play(0, "9S")
    assert TransferReason.ROTTEN_THREE not in reasons(off.settle())


def test_a_last_hand_of_more_than_the_spade_three_is_not_rotten_three() -> None:
    t = deal("hue", "3C 9S", "3S 4S 5S")
    t.play(0, "3C").play(1, "5S").play(0, "9S")
    assert TransferReason.ROTTEN_THREE not in reasons(t.settle())


# --------------------------------------------------------------------------- more chop rules


def test_four_consecutive_pairs_chop_a_single_two_out_of_turn() -> None:
    t = later("hue", "8D 2H 4H", f"{FOUR_PAIRS} 3H", "JD 3D")
    t.play(0, "8D").passes(1).play(2, "JD").play(0, "2H")
    assert t.to_act == 2
    t.play(1, FOUR_PAIRS)
    assert t.of(Played)[-1].out_of_turn
    t.passes(2, 0)
    settled = t.of(ChopSettled)[-1]
    assert (settled.payer, settled.payee, settled.amount) == (0, 1, 100)


def test_four_consecutive_pairs_on_a_smaller_four_consecutive_pairs_is_a_paid_chop() -> None:
    # RULES §10: in Huế 4 consecutive pairs on a smaller 4 consecutive pairs remain paid chops.
    lower = "3D 3H 4D 4H 5D 5H 6D 6H"
    t = later("hue", f"{lower} KD", f"{FOUR_PAIRS} AD")
    t.play(0, lower).play(1, FOUR_PAIRS).passes(0).play(1, "AD")
    assert transfers(t.settle(), TransferReason.CHOP) == [(0, 1, 250)]


def test_when_the_chain_goes_on_past_a_last_card_the_last_chopped_pays_it_all() -> None:
    # RULES §5 [ours]: only the last link matters; seat 0 went out on ♥2 (ranked last), seat 1
    # chopped it, seat 2 chopped seat 1: seat 1 pays ♥2 1 + four 2 stakes to seat 2.
    t = later("hue", "5D 2H", "6D 9S 9C 9D 9H 3S", "7D KS KC KD KH 4S")
    t.play(0, "5D").play(1, "6D").play(2, "7D").play(0, "2H")
    t.play(1, "9S 9C 9D 9H").play(2, "KS KC KD KH").passes(1)
    settled = t.of(ChopSettled)[-1]
    assert (settled.payer, settled.payee, settled.amount, settled.links) == (1, 2, 300, 2)


def test_a_first_game_after_an_instant_win_allows_no_lead_stealing() -> None:
    # RULES §7: a game after an instant win is a first game again, and cướp cái is not played in
    # first games.
    won = deal("hue", "3C 5H", "2S 2C 2D 2H 9S", "6H")
    assert won.of(InstantWin) == [InstantWin(1, "four_twos")]
    nxt = won.next_game("3C 10S", f"{THREE_PAIRS.replace('3C', '3D')} JS", "QS KS")
    assert nxt.state.first_game
    assert nxt.to_act == 0
    assert nxt.refused(1, THREE_PAIRS.replace("3C", "3D")) == Reason.CANNOT_STEAL_LEAD


@pytest.mark.parametrize(
    "hands",
    [("2H", "9S", "4D 5D"), ("2H", "9S", "4D 5D", "6D 7D")],
    ids=["3 players", "4 players"],
)
def test_a_player_ranked_last_for_going_out_on_a_two_pays_as_last_beside_frozen_players(
    hands: tuple[str, ...],
) -> None:
    # Seat 0 goes out on ♥2 (ranked last); seat 1 then goes out first while the others have not
    # played, so they are frozen and pay 2L each. Seat 0 is still last: it pays L to the winner.
    t = later("hue", *hands)
    t.play(0, "2H").passes(*range(1, len(hands))).play(1, "9S")
    assert t.over
    assert t.places[0] == len(hands)
    s = t.settle()
    assert len(transfers(s, TransferReason.FROZEN)) == len(hands) - 2
    assert (0, 1, 200) in transfers(s, TransferReason.PLACE)
