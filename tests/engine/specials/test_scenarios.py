"""Scenario tests for RULES §7 (special wins and losses) with §8's amounts and §10's details.

Instant wins (*tới trắng*) — every list, who wins when several qualify, *đếm heo*, the game after
an instant win; frozen (*cóng*) — places, turns, amounts, Đà Nẵng's exception; compensation (*đền
bài*); blind three (*ba mù*); rotten ♠3; stealing the lead (*cướp cái*). Each test drives the public
engine API from an explicit deal in card notation and checks events, places and the transfers
(stake 100 chips, L = 2 stakes = 200 chips unless an option says otherwise).
"""

from __future__ import annotations

import pytest
from helpers.tables import Table, TransferReason, deal, later, reasons, transfers

from tienlen_rules import legal_plays
from tienlen_rules.errors import Reason
from tienlen_rules.events import (
    ChopSettled,
    GameStarted,
    InstantWin,
    Played,
    PlayersFrozen,
)

L = 200  # the last-place amount: 2 stakes of 100 chips
FROZEN = 2 * L

SIX_PAIRS = "5S 5C 7C 7D 9S 9C JC JD KS KC AS AC"
FOUR_TWOS = "2S 2C 2D 2H 9H"
DRAGON = "3D 4C 5D 6H 7S 8C 9D 10H JS QC KD AH"
SPADE_DRAGON = "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS"
THREE_PAIRS = "3S 3C 4S 4C 5S 5C"
HIGHER_THREE_PAIRS = "6S 6C 7S 7C 8S 8C"


def instant(t: Table) -> tuple[int, str] | None:
    """(seat, pattern) of the deal's instant win, or None when the game is played."""
    wins = t.of(InstantWin)
    if not wins:
        assert not t.over
        return None
    assert len(wins) == 1
    assert t.over
    return wins[0].seat, wins[0].pattern


def paid_by(t: Table, seat: int) -> int:
    """Everything `seat` pays in the settlement, in chips."""
    return sum(amount for payer, _, amount in transfers(t.settle()) if payer == seat)


# =========================================================================== instant-win lists


def test_six_pairs_two_fours_of_a_kind_count_as_four_pairs_source_000_example() -> None:
    # Source 000: "6 đôi bất kì: ... hoặc ♥3♦3♣3♠3♥5♦5♣5♠5♥8♣8♦10♠10".
    t = later("southern", "4D", "3H 3D 3C 3S 5H 5D 5C 5S 8H 8C 10D 10S")
    assert instant(t) == (1, "six_pairs")
    assert transfers(t.settle()) == [(0, 1, L)]


def test_six_pairs_count_a_pair_of_twos() -> None:
    t = later("southern", "3D", "2S 2C 4S 4C 6D 6H 8S 8C 10D 10H QS QC 9H")
    assert instant(t) == (1, "six_pairs")


def test_pairs_from_jacks_to_twos_are_not_five_consecutive_pairs() -> None:
    # RULES §3: consecutive pairs hold no 2, so JJ-QQ-KK-AA-22 are four consecutive pairs plus a
    # pair of 2s: five pairs, no instant win.
    t = later("southern", "3D", "JS JC QS QC KS KC AS AC 2S 2C 5D 7H 9H")
    assert instant(t) is None


def test_five_consecutive_pairs_may_take_a_pair_from_a_triple() -> None:
    t = later("southern", "3D", "5S 5C 5D 6S 6C 7S 7C 8S 8C 9S 9C")
    assert instant(t) == (1, "five_consecutive_pairs")


def test_a_lone_spade_three_beside_three_consecutive_pairs_is_no_first_game_instant_win() -> None:
    # "3 consecutive pairs containing ♠3": 44-55-66 with a single ♠3 don't contain it.
    t = deal("southern", "3S 4S 4C 5S 5C 6S 6C 9H", "10D JD")
    assert instant(t) is None
    assert t.to_act == 0


def test_spade_three_inside_a_triple_of_threes_makes_three_consecutive_pairs() -> None:
    t = deal("southern", "3S 3C 3D 4S 4C 5S 5C 9H", "10D JD")
    assert instant(t) == (0, "three_consecutive_pairs_with_start")


def test_twelve_cards_of_one_colour_in_an_explicit_twelve_card_deal() -> None:
    # RULES §7: the checks apply to explicit deals of fewer than 13 cards.
    t = later("southern", "3S", "3H 4H 5H 6H 7H 8H 9H 10H JH QH KH 2D")
    assert instant(t) == (1, "twelve_of_one_colour")


def test_extended_list_five_pairs_and_a_triple_count_a_four_of_a_kind_as_two_pairs() -> None:
    hand = "6S 6C 6D 6H 8S 8C 9S 9C JS JC AS AC AD"  # four 6s + 3 pairs = 5 pairs, + AAA
    assert instant(deal("southern", "3S", hand)) is None  # standard list: only 5 pairs
    extended = deal("southern", "3S", hand, options={"instant_wins": "extended"})
    assert instant(extended) == (1, "five_pairs_and_triple")
    later_game = later("southern", "3S", hand, options={"instant_wins": "extended"})
    assert instant(later_game) is None  # a first-game pattern only


def test_four_consecutive_triples_are_no_instant_win_on_the_standard_list() -> None:
    # Triples don't count as pairs [ours]: 444-555-666-777 are no six pairs; the extended
    # first-game list names them on their own ("4 consecutive triples", RULES §7), not as the
    # 3 consecutive triples they also hold.
    hand = "4S 4C 4D 5S 5C 5D 6S 6C 6D 7S 7C 7D 9H"
    assert instant(later("southern", "3S", hand)) is None
    extended = deal("southern", "3S", hand, options={"instant_wins": "extended"})
    assert instant(extended) == (1, "four_consecutive_triples")


def test_dem_la_same_suit_dragon_is_a_dragon_instant_win() -> None:
    t = later("dem_la", "3D", SPADE_DRAGON)
    assert instant(t) == (1, "dragon")
    assert transfers(t.settle()) == [(0, 1, 1300)]  # 13 stakes, ♦3 converts to nothing


# --------------------------------------------------------------------------- Đấu's own list


@pytest.mark.parametrize(
    "hand",
    [
        # 14 black cards (Southern 12+ would win; Đấu needs 15+)
        "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS 3C 4C 5C AD AH 2D",
        "5S 5C 6S 6C 7S 7C 8S 8C 9S 9C JD",  # 5 consecutive pairs
        SIX_PAIRS,  # 6 pairs of any ranks (Đấu needs 8)
        "4S 4C 5S 5C 6S 6C 7S 7C 8S 8C 9S 9C JD",  # 6 consecutive pairs without ♠3
    ],
    ids=["14 of one colour", "5 consecutive pairs", "6 pairs", "6 consecutive pairs"],
)
def test_dau_southern_any_game_wins_below_dau_thresholds_are_no_instant_wins(hand: str) -> None:
    t = later("dau", "QD", hand, "QH", leader=0)
    assert instant(t) is None


def test_dau_three_consecutive_triples_need_the_spade_three_even_for_the_dealer() -> None:
    # Đấu first games, dealer: "3 sám cô thông có ♠3"; 444-555-666 or 333-444-555 without ♠3
    # are ordinary combinations.
    for hand in ("4S 4C 4D 5S 5C 5D 6S 6C 6D 9D", "3C 3D 3H 4S 4C 4D 5S 5C 5D 9D"):
        t = deal("dau", hand, "3S KD", "KH", dealer=0)
        assert instant(t) is None, hand


@pytest.mark.parametrize(
    "hand",
    [
        "3S 3C 4S 4C 5S 5C 6S 6C 7S 7C 9D",  # 5 consecutive pairs with ♠3
        "3S 3C 4S 4C 5S 5C 6S 6C 7S 7C 8S 8C 9D",  # 6 consecutive pairs with ♠3
    ],
)
def test_dau_dealer_five_or_six_consecutive_pairs_with_spade_three_win_a_first_game(
    hand: str,
) -> None:
    t = deal("dau", hand, "KD", "KH", dealer=0)
    found = instant(t)
    assert found is not None
    assert found[0] == 0
    assert instant(deal("dau", hand, "KD", "KH", dealer=2)) is None  # not the dealer's hand


# =========================================================================== who wins


def test_several_qualify_without_spade_three_order_runs_from_the_lowest_card_holder() -> None:
    # Nobody holds ♠3: seat 1 holds the lowest card (♣3) and would lead, so seats 1, 2, 0 are
    # examined in that order: seat 2's dragon wins before seat 0's six pairs.
    t = deal("southern", SIX_PAIRS, "3C 4D", DRAGON)
    assert t.state.to_act == -1
    assert instant(t) == (2, "dragon")
    s = t.settle()
    assert sorted(transfers(s)) == [(0, 2, L), (1, 2, L)]


def test_hue_several_qualify_order_runs_from_the_club_three_holder() -> None:
    hands = ("3S 4D", SIX_PAIRS, "3C 4H", FOUR_TWOS)
    assert instant(deal("hue", *hands)) == (3, "four_twos")  # ♣3 at seat 2: seats 2, 3, 0, 1
    assert instant(deal("southern", *hands)) == (1, "six_pairs")  # ♠3 at seat 0: 0, 1, 2, 3


def test_dem_la_several_qualify_order_runs_from_the_drawn_leader() -> None:
    hands = ("3S", SIX_PAIRS, "4D", FOUR_TWOS)
    assert instant(deal("dem_la", *hands, leader=2)) == (3, "four_twos")
    assert instant(deal("dem_la", *hands, leader=0)) == (1, "six_pairs")


# =========================================================================== đếm heo


def test_count_pigs_each_of_three_losers_pays_its_own_twos_and_bombs_to_the_winner() -> None:
    # seat 1: 33-44-55-66 (2½) + ♥2 (1); seat 2: ♠2 + ♣2 (½ + ½); seat 3: nothing.
    t = later(
        "southern",
        SIX_PAIRS,
        "3S 3C 4S 4C 5D 5H 6S 6C 2H",
        "2S 2C 8S",
        "10D",
        options={"count_pigs": True},
    )
    assert instant(t) == (0, "six_pairs")
    s = t.settle()
    assert sorted(transfers(s, TransferReason.INSTANT_WIN)) == [(1, 0, L), (2, 0, L), (3, 0, L)]
    assert paid_by(t, 1) == L + 350
    assert paid_by(t, 2) == L + 100
    assert paid_by(t, 3) == L
    assert s.net == (3 * L + 450, -(L + 350), -(L + 100), -L)


def test_count_pigs_a_loser_who_also_qualified_pays_for_its_four_twos_as_twos() -> None:
    # Both qualify; seat 0 leads and wins. Seat 1's four 2s rot as 2s (½+½+1+1 = 3 stakes,
    # more than a four of a kind's 2).
    t = later("southern", SIX_PAIRS, FOUR_TWOS, options={"count_pigs": True})
    assert instant(t) == (0, "six_pairs")
    assert paid_by(t, 1) == L + 300


def test_count_pigs_in_hue_three_consecutive_pairs_are_not_counted() -> None:
    # RULES §10: in Huế 3 consecutive pairs are no bombs and don't rot; only the ♠2 is counted.
    t = later("hue", SIX_PAIRS, "3D 3H 4D 4H 6D 6H 2S", options={"count_pigs": True})
    assert instant(t) == (0, "six_pairs")
    assert paid_by(t, 1) == L + 50


def test_instant_win_amount_is_l_when_the_last_place_amount_changes() -> None:
    t = later("southern", SIX_PAIRS, "4D", options={"place_last_to_first": 3})
    assert instant(t) == (0, "six_pairs")
    assert transfers(t.settle()) == [(1, 0, 300)]


# =========================================================================== the game after


def test_the_game_after_an_instant_win_carries_totals_and_checks_first_game_wins_again() -> None:
    t = later("southern", "4D", FOUR_TWOS, "5D")
    assert instant(t) == (1, "four_twos")
    nxt = t.next_game("3S 3C 3D 3H 9D", "4S", "5S")
    assert nxt.of(GameStarted)[0].first_game
    assert nxt.state.match.game_number == 2
    assert nxt.state.match.totals == (-L, 2 * L, -L)
    assert instant(nxt) == (0, "four_threes")  # first-game list applies again
    assert sorted(transfers(nxt.settle())) == [(1, 0, L), (2, 0, L)]


def test_dau_after_an_instant_win_the_winner_deals_and_its_first_game_pattern_counts() -> None:
    # RULES §7, §10: a game after an instant win is a first game again; the dealer is the previous
    # winner, so the dealer-only first-game list applies to that seat.
    t = later("dau", "KD", SPADE_DRAGON, "KH", leader=0)
    assert instant(t) == (1, "same_suit_dragon")
    hands = ("4D", "3S 3C 4S 4C 5S 5C 6S 6C 9D", "KH")
    nxt = t.next_game(*hands)
    started = nxt.of(GameStarted)[0]
    assert started.first_game
    assert started.dealer == 1
    assert instant(nxt) == (1, "four_consecutive_pairs_with_start")


def test_dem_la_after_an_instant_win_the_first_leader_is_drawn_again() -> None:
    t = later("dem_la", "3D", SIX_PAIRS)
    assert instant(t) == (1, "six_pairs")
    nxt = t.next_game("4S 5S", "6D 7D")
    started = nxt.of(GameStarted)[0]
    assert started.first_game
    assert started.must_include == -1  # a random leader leads any card, not ♠3


# =========================================================================== cóng


def test_a_frozen_player_cannot_chop_out_of_turn_and_its_bomb_rots_to_the_winner() -> None:
    four_pairs = "6D 6H 7D 7H 8D 8H 9D 9H"
    t = later("southern", "3S 7S QS", "4S 8S 9S 2D", "5S 10S JS", f"{four_pairs} KD")
    t.play(0, "3S").play(1, "4S").play(2, "5S").passes(3)
    t.play(0, "7S").play(1, "8S").play(2, "10S").play(0, "QS")
    assert t.of(PlayersFrozen) == [PlayersFrozen((3,), (4,))]
    t.play(1, "2D")
    assert t.refused(3, four_pairs) == Reason.SEAT_FINISHED
    assert legal_plays(t.state, 3) == ([], False)
    t.passes(2).play(1, "9S")
    assert t.over
    assert t.places == (1, 2, 3, 4)
    s = t.settle()
    assert transfers(s, TransferReason.FROZEN) == [(3, 0, FROZEN)]
    assert transfers(s, TransferReason.ROTTEN) == [(3, 0, 250)]  # 4 consecutive pairs: 2½
    assert transfers(s, TransferReason.PLACE) == [(2, 1, 100)]
    assert not t.of(ChopSettled)


def test_the_frozen_amount_is_twice_l_when_the_last_place_amount_changes() -> None:
    t = later(
        "southern",
        "3S 7S QS",
        "4S 8S 9S",
        "5S 10S JS",
        "6D 6H KD",
        options={"place_last_to_first": 3},
    )
    t.play(0, "3S").play(1, "4S").play(2, "5S").passes(3)
    t.play(0, "7S").play(1, "8S").play(2, "10S").play(0, "QS")
    t.passes(1, 2).play(1, "9S")
    assert t.over
    s = t.settle()
    assert transfers(s, TransferReason.FROZEN) == [(3, 0, 600)]  # 2 × L, L = 3 stakes
    assert transfers(s, TransferReason.PLACE) == [(2, 1, 100)]


def test_two_frozen_take_the_last_places_in_seat_order_after_the_winner_wrapping_round() -> None:
    # Seat 2 wins; seats 3 and 1 never played: seat 3 (next after the winner) takes 3rd, seat 1
    # 4th. Seat 0 is left alone: 2nd, no place transfer, and its ♣2 does not rot.
    t = later("southern", "5S 9S 2C", "6D 7D", "3S 4S KS", "8D 10D", leader=2)
    t.play(2, "3S").passes(3).play(0, "5S").passes(1).play(2, "KS").passes(0)
    t.play(2, "4S")
    assert t.of(PlayersFrozen) == [PlayersFrozen((3, 1), (3, 4))]
    assert t.over
    assert t.places == (2, 4, 1, 3)
    s = t.settle()
    assert sorted(transfers(s)) == [(1, 2, FROZEN), (3, 2, FROZEN)]
    assert s.net == (0, -FROZEN, 2 * FROZEN, -FROZEN)


def test_da_nang_three_players_both_unplayed_play_on() -> None:
    # RULES §10: when exactly two players have not played at the first finish, nobody is frozen.
    t = later("da_nang", "3S 9S", "4D 10D", "5D JD")
    t.play(0, "3S").passes(1, 2).play(0, "9S")
    assert t.places[0] == 1
    assert not t.of(PlayersFrozen)
    assert not t.over
    south = later("southern", "3S 9S", "4D 10D", "5D JD")
    south.play(0, "3S").passes(1, 2).play(0, "9S")
    assert south.of(PlayersFrozen) == [PlayersFrozen((1, 2), (2, 3))]


# =========================================================================== đền bài


def test_compensation_the_liable_player_also_pays_the_other_frozen_players_twos_and_bombs() -> None:
    # Seat 1 alone could beat the straight and passed; seats 2 and 3 could not. Seat 1 pays the
    # winner everything: 3 × 2L plus ♦2 (seat 1), four Js (seat 2), ♠2 + ♣2 (seat 3).
    t = later("southern", "5S 6S 7S 3D", "8C 9C 10C 2D", "JS JC JD JH 3H", "2S 2C 9D")
    t.play(0, "5S 6S 7S").passes(1, 2, 3).play(0, "3D")
    assert t.of(PlayersFrozen) == [PlayersFrozen((1, 2, 3), (2, 3, 4))]
    s = t.settle()
    assert reasons(s) == {TransferReason.COMPENSATION}
    assert transfers(s) == [(1, 0, FROZEN + 100), (1, 0, FROZEN + 200), (1, 0, FROZEN + 100)]
    assert s.net == (1600, -1600, 0, 0)
    assert s.next_leader == 1


# =========================================================================== ba mù


def test_ba_mu_with_three_players_each_other_pays_l() -> None:
    t = later("da_nang", "4S 2H 3S", "5S 9S", "6S 10S")
    t.play(0, "4S").play(1, "5S").play(2, "6S").play(0, "2H").passes(1, 2)
    t.play(0, "3S").passes(1, 2).play(1, "9S")
    assert t.over
    assert t.places == (1, 2, 3)
    s = t.settle()
    assert sorted(transfers(s)) == [(1, 0, L), (2, 0, L)]  # not 2nd → 1st 1 stake, last → 1st L
    assert reasons(s) == {TransferReason.BLIND_THREE}


def test_ba_mu_needs_the_spade_three_alone_not_inside_a_straight() -> None:
    # Source 000 (Đà Nẵng): "về nhất với duy nhất con ♠3" — with the ♠3 alone.
    t = later("hue", "4D 2H 3S 4S 5S", "5D 9S", "6D 10S", "7D 8S")
    t.play(0, "4D").play(1, "5D").play(2, "6D").play(3, "7D").play(0, "2H").passes(1, 2, 3)
    t.play(0, "3S 4S 5S").passes(1, 2, 3).play(1, "9S").play(2, "10S")
    assert t.over
    assert t.places == (1, 2, 3, 4)
    s = t.settle()
    assert reasons(s) == {TransferReason.PLACE}
    assert sorted(transfers(s)) == [(2, 1, 100), (3, 0, L)]


def test_ba_mu_with_one_frozen_the_frozen_pays_cong_and_the_others_pay_l() -> None:
    t = later("hue", "4D 2H 3S", "5D 9S", "6D 10S", "7D 8D")
    t.play(0, "4D").play(1, "5D").play(2, "6D").passes(3).play(0, "2H").passes(1, 2)
    t.play(0, "3S")
    assert t.of(PlayersFrozen) == [PlayersFrozen((3,), (4,))]
    t.passes(1, 2).play(1, "9S")
    assert t.over
    assert t.places == (1, 2, 3, 4)
    s = t.settle()
    assert transfers(s, TransferReason.FROZEN) == [(3, 0, FROZEN)]
    assert sorted(transfers(s, TransferReason.BLIND_THREE)) == [(1, 0, L), (2, 0, L)]
    assert TransferReason.PLACE not in reasons(s)


def test_ba_mu_pays_l_when_the_last_place_amount_changes() -> None:
    t = later("da_nang", "4S 2H 3S", "5S 9S", "6S 10S", options={"place_last_to_first": 3})
    t.play(0, "4S").play(1, "5S").play(2, "6S").play(0, "2H").passes(1, 2)
    t.play(0, "3S").passes(1, 2).play(1, "9S")
    assert sorted(transfers(t.settle())) == [(1, 0, 300), (2, 0, 300)]


# =========================================================================== rotten ♠3


def test_rotten_spade_three_four_players_is_paid_to_the_winner_beside_the_place_transfers() -> None:
    t = later("hue", "4D 9S", "5D 10S", "6D JS", "7D 3S")
    t.play(0, "4D").play(1, "5D").play(2, "6D").play(3, "7D")
    t.play(0, "9S").play(1, "10S").play(2, "JS")
    assert t.over
    assert t.places == (1, 2, 3, 4)
    s = t.settle()
    assert transfers(s, TransferReason.ROTTEN_THREE) == [(3, 0, 300)]  # to the winner, not 3rd
    assert sorted(transfers(s, TransferReason.PLACE)) == [(2, 1, 100), (3, 0, L)]


def test_rotten_spade_three_not_charged_to_a_third_place_player_beside_a_frozen_last() -> None:
    # One frozen (last); seat 2, left with only ♠3, is 3rd, not last.
    t = later("hue", "4D 9S", "5D 10S", "6D 3S", "7D 8D")
    t.play(0, "4D").play(1, "5D").play(2, "6D").passes(3).play(0, "9S")
    assert t.of(PlayersFrozen) == [PlayersFrozen((3,), (4,))]
    t.play(1, "10S")
    assert t.over
    assert t.places == (1, 2, 3, 4)
    s = t.settle()
    assert TransferReason.ROTTEN_THREE not in reasons(s)
    assert sorted(transfers(s)) == [(2, 1, 100), (3, 0, FROZEN)]


# =========================================================================== cướp cái


def test_the_previous_winner_can_steal_the_lead_back_and_steals_are_unpaid() -> None:
    t = later("hue", f"{HIGHER_THREE_PAIRS} 9D", f"{THREE_PAIRS} JS", "QS KS", "10D AS", leader=0)
    t.play(1, THREE_PAIRS)
    assert t.to_act == 2
    t.play(0, HIGHER_THREE_PAIRS)  # out of turn, higher: the previous winner takes it back
    back = t.of(Played)[-1]
    assert back.steal
    assert back.out_of_turn
    assert not back.chop
    assert t.to_act == 1
    t.passes(1, 2, 3).play(0, "9D")
    # Seats 2 and 3 never played: both frozen, seat 1 (the first stealer) is left alone: 2nd.
    assert t.of(PlayersFrozen) == [PlayersFrozen((2, 3), (3, 4))]
    assert t.over
    assert t.places == (1, 2, 3, 4)
    s = t.settle()
    assert not t.of(ChopSettled)
    assert sorted(transfers(s)) == [(2, 0, FROZEN), (3, 0, FROZEN)]


def test_four_consecutive_pairs_cannot_steal_the_lead() -> None:
    four_pairs = "3S 3C 4S 4C 5S 5C 6S 6C"
    t = later("hue", "9S 10S", f"{four_pairs} 9D", "QS KS", leader=0)
    assert t.refused(1, four_pairs) == Reason.NOT_YOUR_TURN
    t.play(1, THREE_PAIRS)
    assert t.of(Played)[-1].steal


@pytest.mark.parametrize(
    ("variant", "frozen"),
    [("hue", [PlayersFrozen((2, 0), (2, 3))]), ("da_nang", [])],
)
def test_a_steal_with_the_last_cards_wins_and_the_previous_winner_who_never_played_is_frozen(
    variant: str, frozen: list[PlayersFrozen]
) -> None:
    # The steal counts as the stealer's play; the previous winner, who never got to lead, has not
    # played. Đà Nẵng: exactly two players have not played, so nobody is frozen.
    t = later(variant, "9S 10S", THREE_PAIRS, "QS KS", leader=0)
    t.play(1, THREE_PAIRS)
    assert t.places[1] == 1
    assert t.of(PlayersFrozen) == frozen
    if frozen:
        assert t.over
        assert t.places == (3, 1, 2)
        assert sorted(transfers(t.settle())) == [(0, 1, FROZEN), (2, 1, FROZEN)]
    else:
        assert not t.over
        assert t.to_act == 2


def test_southern_lead_stealing_a_steal_back_is_paid_as_a_chop_in_turn_or_out_of_turn() -> None:
    options = {"lead_stealing": True}
    in_turn = later(
        "southern",
        "9S 10S",
        f"{THREE_PAIRS} JS",
        f"{HIGHER_THREE_PAIRS} QS",
        "KS AS",
        options=options,
    )
    in_turn.play(1, THREE_PAIRS).play(2, HIGHER_THREE_PAIRS).passes(3, 0, 1)
    out_of_turn = later(
        "southern",
        "9S 10S",
        f"{THREE_PAIRS} JS",
        "QS KS",
        f"{HIGHER_THREE_PAIRS} AS",
        options=options,
    )
    out_of_turn.play(1, THREE_PAIRS).play(3, HIGHER_THREE_PAIRS).passes(0, 1, 2)
    for t, chopper in ((in_turn, 2), (out_of_turn, 3)):
        settled = [(c.payer, c.payee, c.amount) for c in t.of(ChopSettled)]
        assert settled == [(1, chopper, 150)], chopper


def test_dau_a_frozen_player_pays_twice_l_plus_dau_bomb_values() -> None:
    # Đấu values: 4 consecutive pairs 1½ stakes; a four of a kind is an ordinary combination (0).
    t = later("dau", "3S 9S", "4S 10S", "5D 5H 6D 6H 7D 7H 8D 8H JS JC JD JH KD", leader=0)
    t.play(0, "3S").play(1, "4S").passes(2).play(0, "9S")
    assert t.of(PlayersFrozen) == [PlayersFrozen((2,), (3,))]
    assert t.over
    assert t.places == (1, 2, 3)
    s = t.settle()
    assert transfers(s, TransferReason.FROZEN) == [(2, 0, FROZEN)]
    assert transfers(s, TransferReason.ROTTEN) == [(2, 0, 150)]
    assert TransferReason.PLACE not in reasons(s)  # seat 1, left alone, takes 2nd unpaid


def test_compensation_applies_in_a_first_game_led_with_the_spade_three() -> None:
    # Seat 0 leads ♠3 (first game) and goes out; seat 1 alone could beat the ♠3-4-5 and passed.
    t = deal("southern", "3S 4S 5S 9D", "6C 7C 8C", "QD QH", "KD AH")
    t.play(0, "3S 4S 5S").passes(1, 2, 3).play(0, "9D")
    assert t.of(PlayersFrozen) == [PlayersFrozen((1, 2, 3), (2, 3, 4))]
    s = t.settle()
    assert transfers(s) == [(1, 0, FROZEN), (1, 0, FROZEN), (1, 0, FROZEN)]
    assert s.next_leader == 1
    nxt = t.next_game("3S 4S", "5S 6S", "7S 8S", "9S 10S")
    assert not nxt.state.first_game
    assert nxt.to_act == 1
