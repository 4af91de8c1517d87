"""Settlement (*tính tiền*), RULES §5 and §8, Southern default scheme (stake 100 chips).

Places (in stakes): 4 players last→1st 2, 3rd→2nd 1; 3 players last→1st 2, 2nd→1st 1;
2 players last→1st 2. Penalty values (chops and *thối*): black 2 ½, red 2 1, a pair of 2s the
sum of its cards, 3 consecutive pairs 1½, four of a kind 2, 4 consecutive pairs 2½. A chop chain
(*chặt chồng*) is paid by its last chopped player to its last chopper, and not at all when that
play was its player's last card(s).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from helpers.moves import SOUTHERN, of_type, rules, run, run_events, settled, start, transfers

from tienlen_rules.cards import parse_set
from tienlen_rules.errors import SetupError
from tienlen_rules.events import ChopSettled
from tienlen_rules.ruleset import build_rules
from tienlen_rules.settlement import TransferReason, settle

# --------------------------------------------------------------------------- places


def four_finish_in_seat_order(last_hand: str = "QH", ruleset=SOUTHERN):
    """Everyone plays; seats 0, 1, 2 go out in that order; seat 3 is left with `last_hand`."""
    state = start("7S JS", "8S QS", "9S KS", f"10S {last_hand}", ruleset=ruleset)
    return run(state, "0: 7S", "1: 8S", "2: 9S", "3: 10S", "0: JS", "1: QS", "2: KS")


def test_four_players_last_pays_first_two_stakes_and_third_pays_second_one() -> None:
    state = four_finish_in_seat_order()
    assert state.places == (1, 2, 3, 4)
    result = settled(state)
    assert transfers(result) == [(3, 0, 200), (2, 1, 100)]
    assert {t.reason for t in result.transfers} == {TransferReason.PLACE}
    assert result.net == (200, 100, -100, -200)
    assert result.places == (1, 2, 3, 4)
    assert result.zero_sum


def test_three_players_last_pays_first_two_stakes_and_second_pays_first_one() -> None:
    state = run(start("7S JS", "8S QS", "9S KD"), "0: 7S", "1: 8S", "2: 9S", "0: JS", "1: QS")
    assert state.places == (1, 2, 3)
    result = settled(state)
    assert transfers(result) == [(2, 0, 200), (1, 0, 100)]
    assert result.net == (300, -100, -200)


def test_two_players_last_pays_first_two_stakes() -> None:
    state = run(start("7S JS", "8S QD"), "0: 7S", "1: 8S", "0: JS")
    result = settled(state)
    assert transfers(result) == [(1, 0, 200)]
    assert result.net == (200, -200)


def test_place_amounts_are_options() -> None:
    ruleset = rules(place_last_to_first=3, place_third_to_second="1/2")
    result = settled(four_finish_in_seat_order(ruleset=ruleset))
    assert transfers(result) == [(3, 0, 300), (2, 1, 50)]


def test_places_follow_the_order_of_going_out_not_the_seats() -> None:
    state = start("7S QS 4D", "8S 3D", "9S KS", "10S AH JD")
    state = run(state, "0: 7S", "1: 8S", "2: 9S", "3: 10S", "0: QS", "1: -", "2: KS")  # seat 2 1st
    state = run(state, "3: AH", "0: -", "3: JD")  # seat 3 2nd
    state = run(state, "0: -", "1: -", "0: 4D")  # seat 0 3rd, seat 1 last
    assert state.over
    assert state.places == (3, 4, 1, 2)
    assert transfers(settled(state)) == [(1, 2, 200), (0, 3, 100)]


def win_on_three_of_spades(ruleset=SOUTHERN):
    """Seat 0 wins a round, then leads ♠3, its very last card."""
    return run(
        start("3S 9S AD", "4S 10D QD", ruleset=ruleset), "0: 9S", "1: 10D", "0: AD", "1: -", "0: 3S"
    )


def test_southern_winning_on_three_of_spades_is_no_blind_three() -> None:
    """Ba mù is a Huế / Đà Nẵng option: in the South a last ♠3 wins like any card."""
    state = win_on_three_of_spades()
    assert state.over
    assert state.winner == 0
    assert transfers(settled(state)) == [(1, 0, 200)]
    blind = settled(win_on_three_of_spades(rules(blind_three_stakes=3)))
    assert transfers(blind, TransferReason.BLIND_THREE) == [(1, 0, 300)]


def left_with_three_of_spades(ruleset=SOUTHERN):
    """Seat 1 ends last holding only ♠3."""
    return run(start("9S AD", "3S 10D", ruleset=ruleset), "0: 9S", "1: 10D", "0: AD")


def test_southern_last_with_only_three_of_spades_is_no_rotten_three() -> None:
    state = left_with_three_of_spades()
    assert state.over
    assert state.hands[1] == parse_set("3S")
    assert transfers(settled(state)) == [(1, 0, 200)]
    rotten_three = settled(left_with_three_of_spades(rules(rotten_three_stakes=3)))
    assert transfers(rotten_three, TransferReason.ROTTEN_THREE) == [(1, 0, 300)]


def test_stakes_options_are_exact_fractions_written_as_fractions_or_decimals() -> None:
    assert rules(penalty_three_pairs="1.5").penalty_three_pairs == Fraction(3, 2)
    assert rules(penalty_three_pairs="3/2") == rules(penalty_three_pairs=Fraction(3, 2))
    assert SOUTHERN.penalty_two_spades == Fraction(1, 2)


def test_a_running_game_cannot_be_settled() -> None:
    with pytest.raises(SetupError) as caught:
        settle(start("3S", "4S"))
    assert caught.value.code == "GAME_NOT_OVER"


# --------------------------------------------------------------------------- thối


def test_thoi_last_players_twos_and_bombs_are_paid_to_the_third() -> None:
    result = settled(four_finish_in_seat_order("AS AC AD AH 2H 2C"))
    rotten = transfers(result, TransferReason.ROTTEN)
    assert sorted(rotten) == [(3, 2, 50), (3, 2, 100), (3, 2, 200)]  # ♣2 ½, ♥2 1, four A 2
    assert transfers(result, TransferReason.PLACE) == [(3, 0, 200), (2, 1, 100)]
    assert result.net == (200, 100, -100 + 350, -200 - 350)
    assert sorted((e.label, e.amount) for e in result.rotten) == [
        ("2", 50),
        ("2", 100),
        ("four", 200),
    ]


def test_thoi_with_three_players_the_last_pays_the_second() -> None:
    state = run(start("7S JS", "8S QS", "9S 2D"), "0: 7S", "1: 8S", "2: 9S", "0: JS", "1: QS")
    assert transfers(settled(state), TransferReason.ROTTEN) == [(2, 1, 100)]


def test_thoi_with_two_players_the_last_pays_the_winner() -> None:
    state = run(start("7S JS", "8S 2S"), "0: 7S", "1: 8S", "0: JS")
    assert transfers(settled(state), TransferReason.ROTTEN) == [(1, 0, 50)]


def test_rotten_split_takes_largest_value() -> None:
    """33 4444 55 66: 4 consecutive pairs (2½) beat the four of a kind (2) they overlap."""
    result = settled(four_finish_in_seat_order("3D 3H 4S 4C 4D 4H 5D 5H 6D 6H"))
    assert transfers(result, TransferReason.ROTTEN) == [(3, 2, 250)]
    (entry,) = result.rotten
    assert (entry.seat, entry.label, entry.amount) == (3, "4pairs", 250)
    assert entry.cards & parse_set("3D 3H 5D 5H 6D 6H") == parse_set("3D 3H 5D 5H 6D 6H")
    assert (entry.cards & parse_set("4S 4C 4D 4H")).bit_count() == 2


def test_rotten_split_four_twos_rot_as_four_twos_not_as_a_four_of_a_kind() -> None:
    """Four 2s are an instant win when dealt, so the instant wins are off for this one."""
    ruleset = rules(instant_wins="none")
    result = settled(four_finish_in_seat_order("2S 2C 2D 2H", ruleset=ruleset))
    assert sum(a for _, _, a in transfers(result, TransferReason.ROTTEN)) == 300  # ½+½+1+1 > 2


def test_nothing_rots_without_twos_or_bombs() -> None:
    result = settled(four_finish_in_seat_order("3D 3H 4D 4H AH AD"))
    assert transfers(result, TransferReason.ROTTEN) == []
    assert result.rotten == ()


# --------------------------------------------------------------------------- penalty values


@pytest.mark.parametrize(
    ("last_hand", "chips"),
    [
        ("2S", 50),
        ("2C", 50),
        ("2D", 100),
        ("2H", 100),
        ("2S 2H", 150),  # a pair of 2s is the sum of its cards
        ("3D 3H 4D 4H 5D 5H", 150),
        ("AS AC AD AH", 200),
        ("3D 3H 4D 4H 5D 5H 6D 6H", 250),
    ],
)
def test_penalty_values_when_rotten(last_hand: str, chips: int) -> None:
    result = settled(four_finish_in_seat_order(last_hand))
    assert sum(a for _, _, a in transfers(result, TransferReason.ROTTEN)) == chips


@pytest.mark.parametrize(
    ("target", "bomb", "chips"),
    [
        ("2S", "3D 3H 4D 4H 5D 5H", 50),
        ("2C", "3D 3H 4D 4H 5D 5H", 50),
        ("2D", "3S 3C 3D 3H", 100),
        ("2H", "3S 3C 3D 3H", 100),
        ("2S 2H", "3S 3C 3D 3H", 150),
        ("2C 2D", "3D 3H 4D 4H 5D 5H 6D 6H", 150),
        ("3S 3C 4S 4C 5S 5C", "KS KC KD KH", 150),
        ("AS AC AD AH", "3D 3H 4D 4H 5D 5H 6D 6H", 200),
        ("3S 3C 4S 4C 5S 5C 6S 6C", "3D 3H 4D 4H 5D 5H 6D 6H", 250),
    ],
)
def test_penalty_values_when_chopped(target: str, bomb: str, chips: int) -> None:
    """Seat 1 chops with its last cards: the game (of two) ends and closes the chain."""
    state = run(start(f"{target} JH", bomb), f"0: {target}", f"1: {bomb}")
    assert state.over
    assert state.places == (2, 1)
    result = settled(state)
    assert transfers(result, TransferReason.CHOP) == [(0, 1, chips)]
    chop = next(t for t in result.transfers if t.reason == TransferReason.CHOP)
    assert chop.cards == parse_set(target)


def test_penalty_values_are_options() -> None:
    ruleset = rules(penalty_two_hearts=2, penalty_four_of_a_kind=3)
    result = settled(four_finish_in_seat_order("2H AS AC AD AH", ruleset=ruleset))
    assert sum(a for _, _, a in transfers(result, TransferReason.ROTTEN)) == 500


# --------------------------------------------------------------------------- chop chains


def test_stacked_chop_source_004_example_b_pays_c_two_stakes() -> None:
    """A plays a black 2, B chops with 3 consecutive pairs, C chops B with four of a kind:
    B pays C ½ + 1½ = 2 stakes = 200 chips; A pays nothing."""
    a, b, c = 0, 1, 2
    state = start("2S JD", "3S 3C 4S 4C 5S 5C QD", "6S 6C 6D 6H KD")
    state, events = run_events(
        state, "0: 2S", "1: 3S 3C 4S 4C 5S 5C", "2: 6S 6C 6D 6H", "0: -", "1: -"
    )
    assert [(e.payer, e.payee, e.amount, e.links) for e in of_type(events, ChopSettled)] == [
        (b, c, 200, 2)
    ]
    state = run(state, "2: KD", "0: -", "1: -", "0: JD")
    result = settled(state)
    assert transfers(result, TransferReason.CHOP) == [(b, c, 200)]
    assert all(t.payer != a for t in result.transfers if t.reason == TransferReason.CHOP)


def test_stacked_chop_last_chopped_pays_whole_chain() -> None:
    """♥2 (1) chopped by 3 consecutive pairs (1½), chopped by a four (2), chopped by 4
    consecutive pairs: the owner of the four pays 4½ stakes; nobody else pays for the chain."""
    state = start("2H JD", "3S 3C 4S 4C 5S 5C QD", "6S 6C 6D 6H KD", "7S 7C 8S 8C 9S 9C 10S 10C AH")
    state, events = run_events(
        state,
        "0: 2H",
        "1: 3S 3C 4S 4C 5S 5C",
        "2: 6S 6C 6D 6H",
        "3: 7S 7C 8S 8C 9S 9C 10S 10C",
        "0: -",
        "1: -",
        "2: -",
    )
    settled_chains = of_type(events, ChopSettled)
    assert [(e.payer, e.payee, e.amount, e.links) for e in settled_chains] == [(2, 3, 450, 3)]
    assert settled_chains[0].cards == parse_set("2H 3S 3C 4S 4C 5S 5C 6S 6C 6D 6H")


def test_only_the_chopped_two_is_charged_not_a_two_it_beat() -> None:
    state = start("2S JD", "2H QD", "3S 3C 4S 4C 5S 5C KD")
    state, events = run_events(state, "0: 2S", "1: 2H", "2: 3S 3C 4S 4C 5S 5C", "0: -", "1: -")
    assert [(e.payer, e.payee, e.amount) for e in of_type(events, ChopSettled)] == [(1, 2, 100)]
    assert [e.victim_out for e in of_type(events, ChopSettled)] == [False]  # seat 1 holds QD


def test_a_chop_of_a_last_card_is_void() -> None:
    state = start("3S 2H", "4S 5D 5H 6D 6H 7D 7H 9C", "8S 10C JC")
    state = run(state, "0: 3S", "1: 4S", "2: 8S", "0: 2H")  # seat 0 goes out on ♥2
    assert state.places[0] == 1
    state, events = run_events(state, "1: 5D 5H 6D 6H 7D 7H", "2: -")
    # Nobody pays: the event names no payer (-1) and no amount, and says why: the chopped
    # player went out with the chopped 2 (victim_out).
    assert [(e.payer, e.payee, e.amount) for e in of_type(events, ChopSettled)] == [(-1, 1, 0)]
    assert [e.victim_out for e in of_type(events, ChopSettled)] == [True]
    state = run(state, "1: 9C")
    result = settled(state)
    assert transfers(result, TransferReason.CHOP) == []
    assert transfers(result) == [(2, 0, 200), (1, 0, 100)]


def test_a_chop_of_a_last_card_is_paid_when_the_option_says_so() -> None:
    paid = rules(chop_on_last_card="paid")
    state = start("3S 2H", "4S 5D 5H 6D 6H 7D 7H 9C", "8S 10C JC", ruleset=paid)
    state = run(state, "0: 3S", "1: 4S", "2: 8S", "0: 2H", "1: 5D 5H 6D 6H 7D 7H", "2: -", "1: 9C")
    assert transfers(settled(state), TransferReason.CHOP) == [(0, 1, 100)]


def test_chop_chain_only_the_last_link_decides_whether_a_last_card_voids_it() -> None:
    """Seat 0 went out on ♥2 and was chopped, but the chain went on: the last chopped player
    (seat 1) pays the whole chain, the ♥2 included."""
    state = start("3S 2H", "4S 5D 5H 6D 6H 7D 7H 9C", "8S 10C 10D 10H 10S JC")
    state = run(state, "0: 3S", "1: 4S", "2: 8S", "0: 2H", "1: 5D 5H 6D 6H 7D 7H")
    state, events = run_events(state, "2: 10C 10D 10H 10S", "1: -")
    assert [(e.payer, e.payee, e.amount) for e in of_type(events, ChopSettled)] == [(1, 2, 250)]


def test_each_chop_chain_is_paid_as_its_own_transfer() -> None:
    state = start("2S 2D JD 3H", "3S 3C 4S 4C 5S 5C 9S 9C 9D 9H QH", "KD AD")
    state = run(state, "0: 2S", "1: 3S 3C 4S 4C 5S 5C", "2: -", "0: -")  # chain 1: ♠2, ½
    state = run(state, "1: QH", "2: KD", "0: 2D", "1: 9S 9C 9D 9H")  # seat 1 out on the chop
    state = run(state, "2: -", "0: -")  # chain 2: ♦2, 1
    state = run(state, "2: AD")
    assert state.over
    assert state.places == (3, 1, 2)
    result = settled(state)
    assert transfers(result, TransferReason.CHOP) == [(0, 1, 50), (0, 1, 100)]
    assert [t.cards for t in result.transfers if t.reason == TransferReason.CHOP] == [
        parse_set("2S"),
        parse_set("2D"),
    ]


# --------------------------------------------------------------------------- stake


def test_amounts_are_stake_times_multiplier_in_whole_chips() -> None:
    ruleset = rules(stake=50)
    result = settled(four_finish_in_seat_order("2S 2H", ruleset=ruleset))
    assert transfers(result, TransferReason.PLACE) == [(3, 0, 100), (2, 1, 50)]
    assert sorted(transfers(result, TransferReason.ROTTEN)) == [(3, 2, 25), (3, 2, 50)]
    assert all(type(t.amount) is int for t in result.transfers)


def test_the_default_stake_is_100_chips() -> None:
    assert SOUTHERN.stake == 100
    assert SOUTHERN.amount(Fraction(1, 2)) == 50


@pytest.mark.parametrize("stake", [1, 3, 25, 99])
def test_stake_that_makes_a_fraction_of_a_chip_is_rejected(stake: int) -> None:
    with pytest.raises(SetupError) as caught:
        build_rules("southern", {"stake": stake})
    assert caught.value.code == "FRACTIONAL_AMOUNT"
    assert caught.value.field == "options.stake"


@pytest.mark.parametrize("stake", [2, 4, 50, 100, 1000])
def test_a_stake_that_pays_whole_chips_is_accepted(stake: int) -> None:
    assert build_rules("southern", {"stake": stake}).stake == stake


def test_an_option_value_that_makes_a_fraction_of_a_chip_is_rejected() -> None:
    with pytest.raises(SetupError) as caught:
        build_rules("southern", {"penalty_two_spades": "1/3"})
    assert caught.value.code == "FRACTIONAL_AMOUNT"


def test_a_frozen_multiple_that_makes_a_fraction_of_a_chip_is_rejected() -> None:
    """Each option alone is whole chips at stake 2, but 2L × ½ = ½ stake = 1 chip… and
    L = ½ stake, frozen ½ × ½ = ¼ stake = ½ chip: refused up front, not at settlement."""
    with pytest.raises(SetupError) as caught:
        build_rules(
            "southern", {"stake": 2, "place_last_to_first": "1/2", "freeze_multiplier": "1/2"}
        )
    assert caught.value.code == "FRACTIONAL_AMOUNT"


@pytest.mark.parametrize("stake", [0, -100, "abc", "1.5"])
def test_a_stake_that_is_not_a_positive_whole_number_is_rejected(stake: object) -> None:
    with pytest.raises(SetupError) as caught:
        build_rules("southern", {"stake": stake})
    assert caught.value.code == "INVALID_OPTION_VALUE"
