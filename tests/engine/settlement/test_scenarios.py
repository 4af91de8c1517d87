"""Scenario tests for RULES §6 (Northern), §8 (settlement), §9 (matches) and §10's Northern,
đếm lá and "all presets" details: edge cases the preset and option tests leave open.

Every scenario deals explicit hands in card notation, plays them through the public engine API
(`apply` via the `Table` helper) and checks the settlement in chips (stake 100 unless stated):
transfers, nets and places.
"""

from __future__ import annotations

import pytest
from helpers.tables import (
    Reason,
    Table,
    TransferReason,
    cards,
    deal,
    later,
    reasons,
    rules,
    transfers,
)

from tienlen_rules import new_game, next_game
from tienlen_rules.cards import format_cards
from tienlen_rules.errors import SetupError
from tienlen_rules.events import (
    ChopSettled,
    GameStarted,
    Played,
    PlayerFinished,
    PlayersFrozen,
)
from tienlen_rules.ruleset import build_rules
from tienlen_rules.settlement import Settlement

# --------------------------------------------------------------------------- helpers


def four_in_seat_order(
    variant: str, last_hand: str, options: dict[str, object] | None = None
) -> Table:
    """4 players; seats 0, 1, 2 go out in that order (all spades, so Northern suit-following
    holds too); seat 3 has played ♠10 and is left holding `last_hand`."""
    t = later(variant, "7S JS", "8S QS", "9S KS", f"10S {last_hand}", options=options)
    t.play(0, "7S").play(1, "8S").play(2, "9S").play(3, "10S")
    t.play(0, "JS").play(1, "QS").play(2, "KS")
    assert t.over
    assert t.places == (1, 2, 3, 4)
    return t


def three_in_seat_order(
    variant: str, last_hand: str, options: dict[str, object] | None = None
) -> Table:
    """3 players; seat 0 goes out first, seat 1 second, seat 2 is left holding `last_hand`."""
    t = later(variant, "4C AC 9S", "5C 7C 8S", f"6C {last_hand}", options=options)
    t.play(0, "4C").play(1, "5C").play(2, "6C").play(0, "AC").passes(1, 2)
    t.play(0, "9S").passes(1, 2).play(1, "7C").passes(2).play(1, "8S")
    assert t.over
    assert t.places == (1, 2, 3)
    return t


def rotten_chips(s: Settlement) -> int:
    return sum(a for _, _, a in transfers(s, TransferReason.ROTTEN))


def paid_by(s: Settlement, seat: int) -> int:
    return sum(a for payer, _, a in transfers(s, None) if payer == seat)


def rotten_labels(s: Settlement) -> list[tuple[str, str, int]]:
    return sorted((e.label, format_cards(e.cards), e.amount) for e in s.rotten)


# --------------------------------------------------------------------------- §8 the largest split


def test_rotten_split_four_of_a_kind_plus_three_pairs_beats_the_greedy_four_pairs() -> None:
    # RULES §8 [ours]: "split into disjoint 2s and bombs in the way that gives the largest total".
    # 33 44 55 6666: the biggest single bomb is 4 consecutive pairs 33-66 (2½), which leaves
    # nothing; four 6s (2) + 3 consecutive pairs 33-55 (1½) = 3½ is the largest split.
    s = four_in_seat_order("southern", "3S 3C 4S 4C 5S 5C 6S 6C 6D 6H").settle()
    assert sorted(transfers(s, TransferReason.ROTTEN)) == [(3, 2, 150), (3, 2, 200)]
    assert rotten_labels(s) == [
        ("3pairs", "3S 3C 4S 4C 5S 5C", 150),
        ("four", "6S 6C 6D 6H", 200),
    ]
    assert s.net == (200, 100, -100 + 350, -200 - 350)


def test_rotten_split_six_consecutive_pairs_rot_as_two_three_pairs_not_four_pairs() -> None:
    # 33..88 (6 consecutive pairs): 4 consecutive pairs (2½) + 2 loose pairs < 2 × 3 pairs (3).
    # (Five consecutive pairs would be an instant win on the deal: the list is off here.)
    hand = "3S 3C 4S 4C 5S 5C 6D 6H 7D 7H 8D 8H"
    s = four_in_seat_order("southern", hand, {"instant_wins": "none"}).settle()
    assert rotten_chips(s) == 300
    assert [label for label, _, _ in rotten_labels(s)] == ["3pairs", "3pairs"]


def test_rotten_twos_never_join_a_sequence_k_a_2_is_no_three_pairs() -> None:
    # RULES §3: consecutive pairs hold no 2. KK AA 22 rots only as two black 2s (½ + ½).
    s = four_in_seat_order("southern", "KH KD AH AD 2S 2C").settle()
    assert sorted(transfers(s, TransferReason.ROTTEN)) == [(3, 2, 50), (3, 2, 50)]
    assert {label for label, _, _ in rotten_labels(s)} == {"2"}


def test_rotten_four_twos_beside_a_four_of_a_kind_both_rot() -> None:
    # 2222 AAAA: the 2s by suit (½+½+1+1 = 3) and the four aces (2) are disjoint: 5 stakes.
    hand = "2S 2C 2D 2H AS AC AD AH"
    s = four_in_seat_order("southern", hand, {"instant_wins": "none"}).settle()
    assert rotten_chips(s) == 500


def test_rotten_four_twos_rot_as_a_four_of_a_kind_when_that_is_worth_more() -> None:
    # Four of a kind valued 4 (option): four 2s as one four of a kind (4) > as 2s (3).
    options: dict[str, object] = {"instant_wins": "none", "penalty_four_of_a_kind": 4}
    s = four_in_seat_order("southern", "2S 2C 2D 2H", options).settle()
    assert transfers(s, TransferReason.ROTTEN) == [(3, 2, 400)]
    assert rotten_labels(s) == [("four", "2S 2C 2D 2H", 400)]


# --------------------------------------------------------------------------- §8 points scheme


def test_points_scheme_rotten_twos_by_suit_and_a_bomb_at_four() -> None:
    # RULES §8 points: ♠2 = 1, ♣2 = 2, ♦2 = 3, ♥2 = 4, any bomb = 4; each point a stake.
    s = three_in_seat_order("southern", "2C 2D KS KC KD KH", {"scoring": "points"}).settle()
    assert sorted(transfers(s, TransferReason.ROTTEN)) == [(2, 1, 200), (2, 1, 300), (2, 1, 400)]
    assert sorted(transfers(s, TransferReason.PLACE)) == [(1, 0, 100), (2, 0, 200)]


def test_points_scheme_largest_split_four_and_three_pairs_is_eight_points() -> None:
    s = four_in_seat_order(
        "southern", "3S 3C 4S 4C 5S 5C 6S 6C 6D 6H", {"scoring": "points"}
    ).settle()
    assert rotten_chips(s) == 800


def test_points_scheme_a_chopped_pair_of_twos_is_the_sum_of_its_points() -> None:
    t = later("southern", "2S 2H 3D", "JS JC JD JH 4C", options={"scoring": "points"})
    t.play(0, "2S 2H").play(1, "JS JC JD JH").passes(0).play(1, "4C")
    assert transfers(t.settle(), TransferReason.CHOP) == [(0, 1, 500)]  # ♠2 1 + ♥2 4


def test_points_scheme_accepts_a_stake_of_one_chip() -> None:
    # Every points amount is a whole number of stakes, so 1 chip per stake pays whole chips.
    s = three_in_seat_order("southern", "2C", {"scoring": "points", "stake": 1}).settle()
    assert sorted(transfers(s)) == [(1, 0, 1), (2, 0, 2), (2, 1, 2)]


@pytest.mark.parametrize(
    ("variant", "last_hand"),
    [
        ("northern", "3D 3H 4D 4H 5D 5H"),  # consecutive pairs are not played in the North
        ("hue", "3D 3H 4D 4H 5D 5H"),  # Huế: 3 consecutive pairs are not bombs, don't rot
        ("da_nang", "3D 3H 4D 4H 5D 5H"),
        ("dau", "JS JC JD JH"),  # Đấu: a four of a kind is an ordinary combination
    ],
)
def test_points_scheme_does_not_make_a_preset_non_bomb_rot(variant: str, last_hand: str) -> None:
    # RULES §10: "Huế and Đà Nẵng: 3 consecutive pairs are not bombs ... and they don't rot";
    # §6 Northern: "consecutive pairs are not played"; §5 Đấu: "3 consecutive pairs and four of
    # a kind don't chop — they are ordinary combinations". Points: "any bomb = 4".
    s = three_in_seat_order(variant, last_hand, {"scoring": "points"}).settle()
    assert transfers(s, TransferReason.ROTTEN) == []


# --------------------------------------------------------------------------- §8 stake refusals


@pytest.mark.parametrize(
    ("variant", "options", "stake"),
    [
        ("northern", {}, 1),  # chops of a black 2 are paid at ½ stake in the North too
        ("northern", {}, 3),
        ("hue", {}, 1),
        ("da_nang", {}, 3),
        ("dau", {}, 3),  # 4 consecutive pairs 1½, 3 consecutive triples 2½
    ],
)
def test_a_stake_whose_halves_are_fractions_is_refused(
    variant: str, options: dict[str, object], stake: int
) -> None:
    # RULES §8: "a stake that would make any amount fractional is rejected with a clear error".
    with pytest.raises(SetupError) as info:
        build_rules(variant, {**options, "stake": stake})
    assert (info.value.code, info.value.field) == ("FRACTIONAL_AMOUNT", "options.stake")
    assert str(stake) in info.value.message


@pytest.mark.parametrize(
    ("variant", "options", "stake"),
    [
        ("southern", {"scoring": "points"}, 1),
        ("southern", {"scoring": "points"}, 3),
        ("dem_la", {}, 3),
        ("northern", {}, 2),
        ("hue", {}, 2),
    ],
)
def test_a_stake_that_makes_every_amount_whole_is_accepted(
    variant: str, options: dict[str, object], stake: int
) -> None:
    assert build_rules(variant, {**options, "stake": stake}).stake == stake


def test_a_stake_is_not_refused_for_an_amount_the_places_scheme_never_pays() -> None:
    # Places scheme, stake 2, cóng ×3/2: frozen pays 3/2 × 2 stakes = 6 chips; a black 2 rots or
    # is chopped at ½ stake = 1 chip (never multiplied); 3 consecutive pairs 1½ = 3 chips.
    ruleset = build_rules("southern", {"stake": 2, "freeze_multiplier": "3/2"})
    assert ruleset.amount(ruleset.freeze_multiplier * ruleset.place_last_to_first) == 6


def test_amounts_at_stake_two_in_the_north_thoi_hai_is_26_chips() -> None:
    t = later("northern", "9S", "4D 2H", options={"stake": 2})
    t.play(0, "9S")
    assert t.over
    assert sorted(transfers(t.settle())) == [(1, 0, 4), (1, 0, 26)]


# --------------------------------------------------------------------------- §6/§10 Northern


def test_northern_player_who_never_played_is_not_frozen_pays_last_plus_thoi_hai() -> None:
    # RULES §6: "No cóng"; §10: thối hai 13 stakes. 2 players: seat 1 never played a card.
    north = later("northern", "9S", "4D 2H")
    north.play(0, "9S")
    assert north.over
    assert not north.of(PlayersFrozen)
    s = north.settle()
    assert transfers(s, TransferReason.PLACE) == [(1, 0, 200)]
    assert transfers(s, TransferReason.ROTTEN) == [(1, 0, 1300)]
    assert TransferReason.FROZEN not in reasons(s)
    assert s.net == (1500, -1500)
    south = later("southern", "9S", "4D 2H")
    south.play(0, "9S")
    assert sorted(transfers(south.settle())) == [(1, 0, 100), (1, 0, 400)]  # cóng 2L + ♥2


def test_northern_four_twos_left_rot_once_at_thoi_hai_not_as_a_four_of_a_kind() -> None:
    # 13 stakes once (thối hai) > a four of a kind's 2: one transfer of 1300.
    s = four_in_seat_order("northern", "2S 2C 2D 2H").settle()
    assert transfers(s, TransferReason.ROTTEN) == [(3, 2, 1300)]
    assert rotten_labels(s) == [("2", "2S 2C 2D 2H", 1300)]
    assert transfers(s, TransferReason.PLACE) == [(3, 0, 200), (2, 1, 100)]


def test_northern_thoi_hai_with_three_twos_and_a_four_is_13_plus_2() -> None:
    s = four_in_seat_order("northern", "2S 2C 2H 4S 4C 4D 4H").settle()
    assert sorted(transfers(s, TransferReason.ROTTEN)) == [(3, 2, 200), (3, 2, 1300)]
    assert s.net == (200, 100, -100 + 1500, -200 - 1500)


def test_northern_two_player_finishing_on_a_two_ranks_last_and_the_winner_keeps_his_twos() -> None:
    # RULES §6: finishing with a 2 ranks you last; the one left holding cards takes 1st and,
    # as the winner, pays no thối for the 2 it still holds.
    t = later("northern", "5D 2H", "6D 2S 9C")
    t.play(0, "5D").play(1, "6D").play(0, "2H")
    assert t.of(PlayerFinished)[-1] == PlayerFinished(0, 2, ranked_last=True)
    assert t.over
    assert t.places == (2, 1)
    s = t.settle()
    assert transfers(s) == [(0, 1, 200)]
    assert s.net == (-200, 200)


def test_northern_four_player_first_out_on_a_four_pays_as_last_and_holder_pays_thoi_hai() -> None:
    # §10: "a player ranked last for finishing on a 2 or a four of a kind pays as last";
    # §6: "A player left holding a 2 when the other three have finished pays the thối hai
    # penalty" — to the player who finished just before them (2nd).
    t = later("northern", "JS JC JD JH", "5C 9C", "6C 10C", "7C 3D 2D")
    t.play(0, "JS JC JD JH")
    assert t.of(PlayerFinished)[-1] == PlayerFinished(0, 4, ranked_last=True)
    t.passes(1, 2, 3)
    t.play(1, "5C").play(2, "6C").play(3, "7C").play(1, "9C").play(2, "10C")
    assert t.over
    assert t.places == (4, 1, 2, 3)
    s = t.settle()
    assert transfers(s, TransferReason.PLACE) == [(0, 1, 200), (3, 2, 100)]
    assert transfers(s, TransferReason.ROTTEN) == [(3, 2, 1300)]
    assert s.net == (-200, 200, 100 + 1300, -100 - 1300)


def test_northern_going_out_on_a_four_of_a_kind_chop_ranks_last_but_the_chop_is_paid() -> None:
    # The four that chops a ♥2 is seat 1's last play: it ranks last (§6) and, since the chopped
    # player still holds cards, the chop is paid at the Southern value (♥2 = 1 stake, §10).
    t = later("northern", "2H 9S 10S", "7S 7C 7D 7H", "8S JS")
    t.play(0, "2H").play(1, "7S 7C 7D 7H")
    assert t.of(Played)[-1].chop
    assert t.of(PlayerFinished)[-1] == PlayerFinished(1, 3, ranked_last=True)
    t.passes(2, 0)
    assert t.of(ChopSettled)[-1].amount == 100
    t.play(2, "8S").play(0, "9S").play(2, "JS")
    assert t.over
    assert t.places == (2, 3, 1)
    s = t.settle()
    assert transfers(s, TransferReason.CHOP) == [(0, 1, 100)]
    assert sorted(transfers(s, TransferReason.PLACE)) == [(0, 2, 100), (1, 2, 200)]
    assert s.net == (-200, -100, 300)


def test_northern_a_chop_of_a_last_two_is_void_and_its_owner_still_pays_as_last() -> None:
    t = later("northern", "5D 2H", "6D 9S 9C 9D 9H KH", "7D 8D QS")
    t.play(0, "5D").play(1, "6D").play(2, "7D").play(0, "2H")
    assert t.of(PlayerFinished)[-1] == PlayerFinished(0, 3, ranked_last=True)
    t.play(1, "9S 9C 9D 9H").passes(2).play(1, "KH")
    assert t.over
    assert t.places == (3, 1, 2)
    s = t.settle()
    assert transfers(s, TransferReason.CHOP) == []
    assert sorted(transfers(s)) == [(0, 1, 200), (2, 1, 100)]


@pytest.mark.parametrize(("pair", "chips"), [("2S 2C", 100), ("2D 2H", 200)])
def test_northern_a_chopped_pair_of_twos_is_paid_at_southern_values_not_thoi_hai(
    pair: str, chips: int
) -> None:
    # §10: "chops are paid at the Southern penalty values": a pair of 2s is the sum of its cards.
    t = later("northern", f"{pair} 3C", "8S 8C 8D 8H 5S")
    t.play(0, pair).play(1, "8S 8C 8D 8H").passes(0).play(1, "5S")
    assert t.over
    s = t.settle()
    assert transfers(s, TransferReason.CHOP) == [(0, 1, chips)]
    assert transfers(s, TransferReason.PLACE) == [(0, 1, 200)]
    assert transfers(s, TransferReason.ROTTEN) == []


def test_northern_follow_suit_on_a_single_and_on_a_two_with_reason_codes() -> None:
    # §6: a single by a higher single of its suit; a 2 on any single below 2s; a 2 only by a
    # higher 2 or a chop; a four of a kind does not take a plain single.
    t = later("northern", "9D 3S", "10D 5D KH 2C 7S 7C 7D 7H", "2S 2H AH")
    t.play(0, "9D")
    assert t.legal(1) == {"10D", "2C"}
    assert t.refused(1, "5D") == Reason.DOES_NOT_BEAT
    assert t.refused(1, "KH") == Reason.DOES_NOT_BEAT
    assert t.refused(1, "7S 7C 7D 7H") == Reason.WRONG_TYPE_OR_LENGTH
    t.play(1, "2C")
    assert t.refused(2, "AH") == Reason.DOES_NOT_BEAT
    assert t.refused(2, "2S") == Reason.DOES_NOT_BEAT  # ♠2 is below ♣2
    assert t.legal(2) == {"2H"}
    t.play(2, "2H").passes(0)
    assert "7S 7C 7D 7H" in t.legal(1)
    t.play(1, "7S 7C 7D 7H")
    assert t.of(Played)[-1].chop


def test_northern_pair_follows_colour_and_a_pair_of_twos_goes_on_any_pair() -> None:
    # §6/§10: a pair by a higher pair of the colour on the table; a pair of 2s on any pair that
    # is not 2s; only a chop beats a pair of 2s.
    t = later("northern", "4S 4C KD", "8D 8H 9S 9C 2S 2C 5C", "QD QH 3D")
    t.play(0, "4S 4C")
    assert t.legal(1) == {"9S 9C", "2S 2C"}
    assert t.refused(1, "8D 8H") == Reason.DOES_NOT_BEAT  # a red pair on a black pair
    t.play(1, "2S 2C")
    assert t.refused(2, "QD QH") == Reason.DOES_NOT_BEAT
    assert t.legal(2) == set()


def test_northern_triple_follows_suit_make_up_in_play() -> None:
    # §6: ♠6♦6♥6 ("odd club missing") is beaten by ♠10♦10♥10 only, not by ♣Q♦Q♥Q.
    t = later("northern", "6S 6D 6H KD", "QC QD QH 10S 10D 10H 3D")
    t.play(0, "6S 6D 6H")
    assert t.legal(1) == {"10S 10D 10H"}
    assert t.refused(1, "QC QD QH") == Reason.DOES_NOT_BEAT


def test_northern_first_game_with_nine_cards_each_led_by_spade_three_or_lowest_card() -> None:
    # §6: fewer cards per hand (minimum 9); §4/§10: the ♠3 holder leads the first game, or,
    # when ♠3 is not dealt, the holder of the lowest dealt card, and the lead must include it.
    nine = rules("northern", cards_per_hand=9)
    seen = {True: False, False: False}
    for seed in range(60):
        state, events = new_game(nine, 4, seed=seed)
        assert [h.bit_count() for h in state.hands] == [9] * 4
        everything = 0
        for hand in state.hands:
            everything |= hand
        lowest = (everything & -everything).bit_length() - 1
        (started,) = [e for e in events if isinstance(e, GameStarted)]
        assert started.must_include == lowest
        assert state.hands[started.leader] >> lowest & 1
        seen[lowest == 0] = True
    assert seen == {True: True, False: True}


def test_northern_fewer_cards_per_hand_has_a_minimum_of_nine() -> None:
    with pytest.raises(SetupError) as info:
        build_rules("northern", {"cards_per_hand": 8})
    assert info.value.field == "options.cards_per_hand"


def test_northern_four_threes_lay_down_twos_so_they_cannot_rot() -> None:
    # §6 option: four 3s dealt force everyone to lay down their 2s; a 2 laid down is out of
    # play, so the last player no longer holds it and pays no thối hai.
    t = deal(
        "northern",
        "3S 3C 3D 3H 5S",
        "4S 2H",
        "6S 2D 7S",
        options={"four_threes_lay_down_twos": True},
    )
    assert t.state.hands == (cards("3S 3C 3D 3H 5S"), cards("4S"), cards("6S 7S"))
    t.play(0, "3S 3C 3D 3H").passes(1, 2).play(0, "5S").passes(1).play(2, "6S").play(2, "7S")
    assert t.over
    assert t.places == (1, 3, 2)
    s = t.settle()
    assert sorted(transfers(s)) == [(1, 0, 200), (2, 0, 100)]
    assert TransferReason.ROTTEN not in reasons(s)


# --------------------------------------------------------------------------- §8 other presets


def test_dau_three_player_places_last_pays_two_second_pays_one() -> None:
    # §10: "The §8 place transfers apply to every preset except đếm lá".
    t = later("dau", "4C AC 9S", "5C 7C 8S", "6C 3D")
    t.play(0, "4C").play(1, "5C").play(2, "6C").play(0, "AC").passes(1, 2)
    t.play(0, "9S").passes(1, 2).play(1, "7C").passes(2).play(1, "8S")
    assert t.places == (1, 2, 3)
    s = t.settle()
    assert sorted(transfers(s)) == [(1, 0, 100), (2, 0, 200)]
    assert s.net == (300, -100, -200)


def test_hue_three_players_finishing_on_a_two_ranks_last_and_pays_as_last() -> None:
    # §10 Huế: finishing on a 2 ranks you last; "All presets": a player ranked last for
    # finishing on a 2 pays as last.
    t = later("hue", "5D 2H", "6D 9S KC", "7D 8S")
    t.play(0, "5D").play(1, "6D").play(2, "7D").play(0, "2H")
    assert t.of(PlayerFinished)[-1] == PlayerFinished(0, 3, ranked_last=True)
    t.passes(1, 2).play(1, "9S").passes(2).play(1, "KC")
    assert t.over
    assert t.places == (3, 1, 2)
    s = t.settle()
    assert sorted(transfers(s)) == [(0, 1, 200), (2, 1, 100)]
    assert s.net == (-200, 300, -100)


def test_points_scheme_frozen_pays_twice_l_plus_its_twos_in_points() -> None:
    t = later("southern", "9S", "4D 2H", options={"scoring": "points"})
    t.play(0, "9S")
    s = t.settle()
    assert transfers(s, TransferReason.FROZEN) == [(1, 0, 400)]
    assert transfers(s, TransferReason.ROTTEN) == [(1, 0, 400)]  # ♥2 = 4 points


def test_one_frozen_of_four_the_others_play_on_and_the_third_does_not_rot() -> None:
    # §7/§8: the frozen player pays 2L plus its 2s to the winner; the place transfer between the
    # non-frozen players is paid as usual; thối is not charged again (the 3rd is not last).
    t = later("southern", "4S 9S", "5S 7D 8D", "6S 2H 3D", "KH 2C")
    t.play(0, "4S").play(1, "5S").play(2, "6S").passes(3).play(0, "9S")
    assert t.of(PlayersFrozen) == [PlayersFrozen((3,), (4,))]
    assert not t.over
    t.passes(1, 2).play(1, "7D").passes(2).play(1, "8D")
    assert t.over
    assert t.places == (1, 2, 3, 4)
    s = t.settle()
    assert transfers(s, TransferReason.FROZEN) == [(3, 0, 400)]
    assert transfers(s, TransferReason.ROTTEN) == [(3, 0, 50)]
    assert transfers(s, TransferReason.PLACE) == [(2, 1, 100)]
    assert s.net == (450, 100, -100, -450)


def test_two_frozen_of_four_the_one_left_takes_second_pays_nothing_and_does_not_rot() -> None:
    # §8: "A non-frozen player left alone with frozen players takes 2nd and neither pays nor
    # receives a place transfer, and their 2s and bombs don't rot".
    t = later("southern", "4S 9S", "5S 2H", "KH", "KD")
    t.play(0, "4S").play(1, "5S").passes(2, 3).play(0, "9S")
    assert t.over
    assert t.places == (1, 2, 3, 4)
    s = t.settle()
    assert sorted(transfers(s)) == [(2, 0, 400), (3, 0, 400)]
    assert reasons(s) == {TransferReason.FROZEN}
    assert s.net == (800, 0, -400, -400)


def test_northern_stake_fifty_chop_of_a_black_two_is_25_chips_thoi_hai_650() -> None:
    t = later("northern", "2S 4D 3C", "9S 9C 9D 9H 5S", options={"stake": 50})
    t.play(0, "2S").play(1, "9S 9C 9D 9H").passes(0).play(1, "5S")
    assert t.over
    s = t.settle()
    assert transfers(s, TransferReason.CHOP) == [(0, 1, 25)]
    assert transfers(s, TransferReason.PLACE) == [(0, 1, 100)]
    assert transfers(s, TransferReason.ROTTEN) == []
    t2 = later("northern", "4D 6D", "5D 2H", options={"stake": 50})
    t2.play(0, "4D").play(1, "5D").play(0, "6D")
    assert t2.over
    assert sorted(transfers(t2.settle())) == [(1, 0, 100), (1, 0, 650)]  # L, thối hai


# --------------------------------------------------------------------------- đếm lá


def test_dem_la_largest_split_is_added_to_the_cards() -> None:
    # 33 44 55 6666 left: 10 cards + four 6s (4) + 3 consecutive pairs 33-55 (2) = 16 stakes,
    # not 10 + 4 consecutive pairs (2) = 12 nor 10 + four (4) = 14.
    t = later("dem_la", "4H 9H", "5H 3S 3C 4S 4C 5S 5C 6S 6C 6D 6H")
    t.play(0, "4H").play(1, "5H").play(0, "9H")
    assert t.over
    s = t.settle()
    assert paid_by(s, 1) == 1600
    assert transfers(s, TransferReason.CARD_COUNT) == [(1, 0, 1000)]


def test_dem_la_four_losers_each_pay_cards_plus_conversions_frozen_doubled() -> None:
    t = later("dem_la", "4H 9H", "5H 2S KC", "3D 3C", "6H 7D JS JC JD JH")
    t.play(0, "4H").play(1, "5H").passes(2).play(3, "6H").play(0, "9H")
    assert t.over
    s = t.settle()
    assert paid_by(s, 1) == (2 + 2) * 100  # 2 cards + black 2 = 2
    assert paid_by(s, 2) == 2 * 2 * 100  # never played, every dealt card left: doubled
    assert paid_by(s, 3) == (5 + 4) * 100  # 5 cards + four of a kind = 4
    assert transfers(s, TransferReason.FROZEN) == [(2, 0, 400)]
    assert s.net == (1700, -400, -400, -900)
    assert s.zero_sum


def test_dem_la_a_winner_whose_two_was_chopped_pays_the_chop() -> None:
    # §10: chops are paid at the rotten conversions (a red 2 = 4 stakes), whoever wins.
    t = later("dem_la", "2H 9S 10S", "JS JC JD JH 3D 4D")
    t.play(0, "2H").play(1, "JS JC JD JH").passes(0)
    t.play(1, "3D").play(0, "9S").passes(1).play(0, "10S")
    assert t.over
    assert t.state.winner == 0
    s = t.settle()
    assert transfers(s, TransferReason.CHOP) == [(0, 1, 400)]
    assert transfers(s, TransferReason.CARD_COUNT) == [(1, 0, 100)]
    assert s.net == (-300, 300)


def test_dem_la_stake_three_pays_whole_chips() -> None:
    t = later("dem_la", "4H 9H", "5H 2D 8C", options={"stake": 3})
    t.play(0, "4H").play(1, "5H").play(0, "9H")
    assert paid_by(t.settle(), 1) == (2 + 4) * 3


def test_dem_la_frozen_loser_with_a_four_of_a_kind_pays_cards_and_four_doubled() -> None:
    t = later("dem_la", "9S", "JS JC JD JH 3D")
    t.play(0, "9S")
    assert t.over
    s = t.settle()
    assert paid_by(s, 1) == (5 + 4) * 2 * 100
    assert rotten_labels(s) == [("four", "JS JC JD JH", 800)]


# --------------------------------------------------------------------------- §9 matches


def test_match_totals_carry_place_and_thoi_hai_across_games() -> None:
    game1 = later("northern", "9S", "4D 2H")
    game1.play(0, "9S")
    game2 = game1.next_game("4S 5S", "6S")
    assert game2.state.match.totals == (1500, -1500)
    assert game2.to_act == 0  # the previous winner leads
    game2.play(0, "4S").play(1, "6S")
    assert game2.over
    assert game2.state.winner == 1
    state3, _ = next_game(game2.state, hands=[cards("3C"), cards("8S")])
    assert state3.match.totals == (1300, -1300)
    assert state3.to_act == 1


@pytest.mark.parametrize(("bankroll", "over"), [(1500, False), (1499, True)])
def test_northern_below_zero_ends_the_match_but_exactly_zero_does_not(
    bankroll: int, over: bool
) -> None:
    # §9: "a player whose total drops below 0 loses the match (option)". Seat 1 loses
    # 200 (last) + 1300 (thối hai) = 1500.
    t = later("northern", "9S", "4D 2H", options={"match_bankroll": bankroll})
    t.play(0, "9S")
    if over:
        with pytest.raises(SetupError) as info:
            next_game(t.state, hands=[cards("3C"), cards("8S")])
        assert info.value.code == "MATCH_OVER"
    else:
        state, _ = next_game(t.state, hands=[cards("3C"), cards("8S")])
        assert state.match.totals == (1500, -1500)


def test_a_fractional_thoi_hai_option_is_checked_against_the_stake() -> None:
    # §8: every option is stake × an exact fraction; thối hai at 13/2 stakes is refused at stake 1
    # (6½ chips) and pays 13 chips at stake 2.
    with pytest.raises(SetupError) as info:
        build_rules("northern", {"rotten_two_flat": "13/2", "stake": 1})
    assert info.value.code == "FRACTIONAL_AMOUNT"
    t = later("northern", "4D 6D", "5D 2H", options={"rotten_two_flat": "13/2", "stake": 2})
    t.play(0, "4D").play(1, "5D").play(0, "6D")
    assert sorted(transfers(t.settle())) == [(1, 0, 4), (1, 0, 13)]
