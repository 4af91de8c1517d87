"""Instant wins (*tới trắng*), RULES §7, Southern lists, and their settlement (RULES §8).

Checked right after the deal, before any play; the holder wins at once and every other player
pays L (2 stakes). Standard list (the default): first games — four 3s, 3 consecutive pairs
containing ♠3; any game — four 2s, 5 consecutive pairs, 6 pairs (a four of a kind counts as two
pairs, a triple as none), the dragon 3..A, 12+ cards of one colour, the same-suit dragon.
"""

from __future__ import annotations

import pytest
from helpers.moves import deal, of_type, refusal, rules, settled, start_events, transfers

from tienlen_rules import next_game
from tienlen_rules.errors import Reason
from tienlen_rules.events import GameOver, InstantWin, PlayersFrozen
from tienlen_rules.settlement import TransferReason

DRAGON = "3C 4C 5D 6H 7S 8C 9D 10H JS QC KD AH"
SIX_PAIRS = "5S 5C 7C 7D 9S 9C JC JD KS KC AS AC"


def instant(*hands: str, first_game: bool = False, ruleset=None) -> tuple[int, str] | None:
    """(seat, pattern) of the instant winner of this deal, or None when the game is played."""
    kwargs = {"ruleset": ruleset} if ruleset is not None else {}
    state, events = start_events(*hands, first_game=first_game, **kwargs)
    wins = of_type(events, InstantWin)
    if not wins:
        assert not state.over
        assert state.instant_winner == -1
        return None
    assert state.over
    assert state.instant_winner == wins[0].seat
    assert state.instant_pattern == wins[0].pattern
    return wins[0].seat, wins[0].pattern


# --------------------------------------------------------------------------- any game


@pytest.mark.parametrize("first_game", [True, False])
def test_four_twos_win_instantly_in_any_game(first_game: bool) -> None:
    assert instant("3S 4S", "2S 2C 2D 2H 9H", first_game=first_game) == (1, "four_twos")


@pytest.mark.parametrize("first_game", [True, False])
def test_five_consecutive_pairs_win_instantly_in_any_game(first_game: bool) -> None:
    hand = "5S 5C 6S 6C 7S 7C 8D 8H 9S 9C"
    assert instant("3S", hand, first_game=first_game) == (1, "five_consecutive_pairs")


def test_four_consecutive_pairs_are_no_instant_win() -> None:
    assert instant("3S", "5S 5C 6S 6C 7S 7C 8D 8H 10S 10C QH") is None


@pytest.mark.parametrize("first_game", [True, False])
def test_six_pairs_of_any_ranks_win_instantly_in_any_game(first_game: bool) -> None:
    assert instant("3S 4H", SIX_PAIRS, first_game=first_game) == (1, "six_pairs")


def test_five_pairs_are_no_instant_win() -> None:
    assert instant("3S", "5S 5C 7C 7D 9S 9C JC JD KS KC AS") is None


def test_six_pairs_instant_win_counts_four_of_a_kind_as_two_pairs() -> None:
    hand = "4S 4C 4D 4H 6S 6C 8D 8H 10S 10C QD QH"  # four 4s + 4 pairs
    assert instant("3S", hand) == (1, "six_pairs")


def test_six_pairs_do_not_count_a_triple_as_a_pair() -> None:
    """Five pairs and a triple: the triple holds a pair, but **[ours]** it doesn't count."""
    assert instant("3S", "4S 4C 4D 6D 6H 8S 8C 10D 10H QS QC KD KH") is None


@pytest.mark.parametrize("first_game", [True, False])
def test_the_dragon_straight_in_any_suits_wins_instantly(first_game: bool) -> None:
    assert instant("3S", DRAGON, first_game=first_game) == (1, "dragon")


def test_the_same_suit_dragon_wins_instantly() -> None:
    assert instant("3S", "3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH") == (1, "same_suit_dragon")


def test_eleven_straight_cards_are_no_dragon() -> None:
    assert instant("3S", "3C 4C 5D 6H 7S 8C 9D 10H JS QC KD") is None


def test_twelve_cards_of_one_colour_win_instantly() -> None:
    assert instant("3H", "3S 5S 7S 9S JS KS 2S 4C 6C 8C 10C QC") == (1, "twelve_of_one_colour")
    assert instant("3S", "3H 5H 7H 9H JH KH 2H 4D 6D 8D 10D QD 2C") == (1, "twelve_of_one_colour")


def test_eleven_cards_of_one_colour_are_no_instant_win() -> None:
    assert instant("3H", "3S 5S 7S 9S JS KS 2S 4C 6C 8C 10C QD") is None


def test_instant_win_checks_apply_to_explicit_deals_of_fewer_than_thirteen_cards() -> None:
    assert instant("3S", "2S 2C 2D 2H") == (1, "four_twos")


# --------------------------------------------------------------------------- first games only


def test_four_threes_win_instantly_in_a_first_game() -> None:
    assert instant("3S 3C 3D 3H 9H", "4S", first_game=True) == (0, "four_threes")


def test_three_consecutive_pairs_containing_three_of_spades_win_instantly_in_a_first_game() -> None:
    hand = "3S 3D 4C 4H 5S 5D 9H"
    assert instant(hand, "6S", first_game=True) == (0, "three_consecutive_pairs_with_start")


def test_three_consecutive_pairs_without_three_of_spades_are_no_instant_win() -> None:
    assert instant("3S 9H", "3C 3D 4C 4H 5S 5D", first_game=True) is None


@pytest.mark.parametrize("hand", ["3S 3C 3D 3H 9H", "3S 3D 4C 4H 5S 5D 9H"])
def test_first_game_instant_wins_do_not_apply_in_later_games(hand: str) -> None:
    assert instant(hand, "6S", first_game=False) is None


@pytest.mark.parametrize(
    ("hand", "pattern"),
    [
        ("4S 4C 4D 5S 5C 5D 6S 6C 6D", "three_consecutive_triples"),
        ("3C 3D 5S 5C 7S 7C 9S 9C JS JC KS KC KD", "five_pairs_and_triple"),
    ],
)
def test_extended_list_option_adds_first_game_patterns(hand: str, pattern: str) -> None:
    extended = rules(instant_wins="extended")
    assert instant("3S", hand, first_game=True) is None  # not on the standard list
    assert instant("3S", hand, first_game=True, ruleset=extended) == (1, pattern)
    assert instant("3S", hand, first_game=False, ruleset=extended) is None


def test_extended_list_four_consecutive_pairs_containing_three_of_spades() -> None:
    extended = rules(instant_wins="extended")
    hand = "3S 3C 4S 4C 5S 5C 6S 6C"
    found = instant(hand, "9H", first_game=True, ruleset=extended)
    assert found is not None
    assert found[0] == 0


def test_instant_wins_can_be_switched_off() -> None:
    assert instant("3S", "2S 2C 2D 2H", ruleset=rules(instant_wins="none")) is None


# --------------------------------------------------------------------------- who wins, what is paid


def test_several_qualify_the_first_in_seat_order_from_the_leader_wins() -> None:
    """Seat 2 holds ♠3 and would lead: seats 3, 0, 1 are examined in that order."""
    hands = (DRAGON, "2S", "3S 4S", "5S 5C 7C 7D 9S 9C JC JD KS KC 2C 2D")
    assert instant(*hands, first_game=True) == (3, "six_pairs")
    assert instant(*hands, first_game=False) == (0, "dragon")  # seat 0 leads a later game


def test_the_instant_win_ends_the_game_before_any_play() -> None:
    state, events = start_events("3S 4S", "2S 2C 2D 2H 9H", "5D 6D", first_game=True)
    assert state.over
    assert state.winner == 1
    assert state.places[1] == 1
    assert of_type(events, GameOver)
    assert state.hands == state.dealt
    assert refusal(state, "0: 3S") == Reason.GAME_OVER


def test_every_other_player_pays_the_instant_winner_the_last_place_amount() -> None:
    state, _ = start_events("3S 4S", DRAGON, "5S 6S 2H", "2S 2C", first_game=True)
    assert state.instant_winner == 1
    result = settled(state)
    assert transfers(result) == [(2, 1, 200), (3, 1, 200), (0, 1, 200)]
    assert {t.reason for t in result.transfers} == {TransferReason.INSTANT_WIN}
    assert result.net == (-200, 600, -200, -200)


def test_instant_win_does_not_freeze_the_losers() -> None:
    state, events = start_events("3S 4S", "2S 2C 2D 2H 9H", first_game=True)
    assert not of_type(events, PlayersFrozen)
    assert state.frozen == 0
    assert transfers(settled(state)) == [(0, 1, 200)]


def test_count_pigs_losers_also_pay_for_their_twos_and_bombs() -> None:
    count_pigs = rules(count_pigs=True)
    hands = (SIX_PAIRS, "2H 2S 8S 8C 8D 8H", "3S 3D 3H 4S 4D 4H 5D 5H")
    state, _ = start_events(*hands, ruleset=count_pigs)
    assert state.instant_winner == 0
    result = settled(state)
    assert transfers(result, TransferReason.INSTANT_WIN) == [(1, 0, 200), (2, 0, 200)]
    # seat 1: ♥2 1 + ♠2 ½ + four 8s 2 = 3½ stakes; seat 2: 33-44-55 = 1½ stakes
    assert sum(t.amount for t in result.transfers if t.payer == 1) == 200 + 350
    assert sum(t.amount for t in result.transfers if t.payer == 2) == 200 + 150
    assert result.net == (900, -550, -350)


def test_count_pigs_is_off_by_default_the_instant_winner_collects_only_the_instant_win_amount() -> (
    None
):
    hands = (SIX_PAIRS, "2H 2S 8S 8C 8D 8H", "3S 3D 3H 4S 4D 4H 5D 5H")
    state, _ = start_events(*hands)
    assert transfers(settled(state)) == [(1, 0, 200), (2, 0, 200)]


def test_instant_win_amount_is_an_option() -> None:
    state, _ = start_events(SIX_PAIRS, "2H", ruleset=rules(instant_win_stakes=3))
    assert transfers(settled(state)) == [(1, 0, 300)]


def test_the_game_after_an_instant_win_is_a_first_game_again() -> None:
    state, _ = start_events("4S", "2S 2C 2D 2H 9H", first_game=False)
    assert state.instant_winner == 1
    following, _ = next_game(state, hands=deal("3D 4D", "5D 6D"))
    assert following.first_game
    # without ♠3 dealt, the lowest dealt card (♦3) leads and must be in the lead
    assert following.to_act == 0
    following, _ = next_game(state, hands=deal("5D 6D", "3S 4D"))
    assert following.first_game
    assert following.to_act == 1
    assert refusal(following, "1: 4D") == Reason.MUST_INCLUDE_STARTING_CARD
