"""Cards, their order and notation (RULES §1), and dealing (RULES §2), Southern game."""

from __future__ import annotations

from collections import Counter

import pytest
from helpers.moves import SOUTHERN, deal, rules

from tienlen_rules import new_game
from tienlen_rules.cards import (
    BLACK,
    FULL_DECK,
    RANKS,
    RED,
    SUITS,
    card_name,
    cards_of,
    format_cards,
    parse_card,
    parse_cards,
    parse_set,
    rank_of,
    suit_of,
)
from tienlen_rules.errors import CardParseError, SetupError

# --------------------------------------------------------------------------- §1 order


def test_rank_order_runs_from_three_up_to_two() -> None:
    spades = [
        parse_card(f"{rank}S")
        for rank in ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]
    ]
    assert spades == sorted(spades)
    assert len(set(spades)) == 13
    assert [rank_of(c) for c in spades] == list(range(13))


def test_suit_order_is_spades_clubs_diamonds_hearts() -> None:
    sevens = parse_cards("7S 7C 7D 7H")
    assert sevens == sorted(sevens)
    assert [suit_of(c) for c in sevens] == [0, 1, 2, 3]


def test_card_index_is_rank_times_four_plus_suit() -> None:
    assert parse_card("3S") == 0
    assert parse_card("3H") == 3
    assert parse_card("10D") == 7 * 4 + 2
    assert parse_card("2H") == 51
    for rank_index, rank in enumerate(RANKS):
        for suit_index, suit in enumerate(SUITS):
            assert parse_card(rank + suit) == rank_index * 4 + suit_index


def test_three_of_spades_is_the_weakest_card_and_two_of_hearts_the_strongest() -> None:
    everything = list(cards_of(FULL_DECK))
    assert min(everything) == parse_card("3S")
    assert max(everything) == parse_card("2H")


def test_strength_is_rank_first_then_suit() -> None:
    assert parse_card("4S") > parse_card("3H")  # a higher rank beats any suit
    assert parse_card("2S") > parse_card("AH")  # the 2 (heo) is the highest rank
    assert parse_card("9H") > parse_card("9D") > parse_card("9C") > parse_card("9S")


def test_spades_and_clubs_are_black_diamonds_and_hearts_red() -> None:
    assert parse_set("3S 3C 2S 2C") & BLACK == parse_set("3S 3C 2S 2C")
    assert parse_set("3D 3H 2D 2H") & RED == parse_set("3D 3H 2D 2H")
    assert BLACK & RED == 0
    assert BLACK | RED == FULL_DECK
    assert BLACK.bit_count() == RED.bit_count() == 26


# --------------------------------------------------------------------------- §1 notation


def test_ten_is_written_10() -> None:
    assert rank_of(parse_card("10D")) == RANKS.index("10")
    assert parse_card("10d") == parse_card("10D") == parse_card("10♦")


def test_ten_may_also_be_written_t() -> None:
    assert parse_card("TD") == parse_card("10D")
    assert parse_card("th") == parse_card("10H")


def test_notation_is_case_insensitive_on_input() -> None:
    assert parse_cards("qh 2s Ac") == parse_cards("QH 2S AC")


def test_unicode_suits_are_accepted_on_input() -> None:
    assert parse_cards("3♠ 3♣ 3♦ 3♥ 10♦") == parse_cards("3S 3C 3D 3H 10D")


def test_canonical_output_is_rank_then_suit_letter_weakest_first() -> None:
    assert format_cards(parse_set("2h 10d 3♠ qC")) == "3S 10D QC 2H"
    assert card_name(parse_card("10♥")) == "10H"


def test_every_card_round_trips_through_its_canonical_name() -> None:
    for card in range(52):
        assert parse_card(card_name(card)) == card
    assert len({card_name(c) for c in range(52)}) == 52


def test_cards_may_be_separated_by_spaces_or_commas() -> None:
    assert parse_cards("3S,4S, 5S") == parse_cards("3S 4S 5S")


@pytest.mark.parametrize("token", ["1S", "11S", "3X", "ZZ", "S", "3", "", "2SS", "0H"])
def test_text_that_is_not_a_card_is_a_parse_error(token: str) -> None:
    with pytest.raises(CardParseError):
        parse_card(token)


def test_a_parse_error_names_the_bad_token() -> None:
    with pytest.raises(CardParseError) as caught:
        parse_cards("3S 4X 5S")
    assert caught.value.token == "4X"


def test_a_card_given_twice_in_a_set_is_an_error_naming_it() -> None:
    with pytest.raises(CardParseError) as caught:
        parse_set("3S 4S 3♠")
    assert caught.value.token == "3S"


# --------------------------------------------------------------------------- §2 players and dealing


@pytest.mark.parametrize("players", [1, 5])
def test_two_to_four_players_play(players: int) -> None:
    with pytest.raises(SetupError) as caught:
        new_game(SOUTHERN, players, seed=1)
    assert caught.value.code == "INVALID_PLAYER_COUNT"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_player_gets_thirteen_cards_and_the_rest_stay_out_of_play(players: int) -> None:
    state, _ = new_game(SOUTHERN, players, seed=2024)
    assert [h.bit_count() for h in state.hands] == [13] * players
    union = 0
    for hand in state.hands:
        assert union & hand == 0
        union |= hand
    assert union.bit_count() == 13 * players  # the 52 - 13n others are out of play
    assert state.dealt == state.hands


def test_a_seeded_deal_is_reproducible() -> None:
    first, _ = new_game(SOUTHERN, 4, seed=77)
    again, _ = new_game(SOUTHERN, 4, seed=77)
    other, _ = new_game(SOUTHERN, 4, seed=78)
    assert first.hands == again.hands
    assert first.hands != other.hands


def test_an_unseeded_deal_is_random() -> None:
    deals = {new_game(SOUTHERN, 4)[0].hands for _ in range(5)}
    assert len(deals) == 5


def test_the_shuffle_puts_each_card_in_each_seat_about_equally_often() -> None:
    """Seeded, so deterministic: a broken shuffle (e.g. a card that never moves) fails it."""
    by_seat: Counter[tuple[int, int]] = Counter()
    games = 800
    for seed in range(games):
        state, _ = new_game(SOUTHERN, 4, seed=seed)
        for seat, hand in enumerate(state.hands):
            for card in (0, 25, 51):  # ♠3, a middle card, ♥2
                if hand >> card & 1:
                    by_seat[card, seat] += 1
    for card in (0, 25, 51):
        counts = [by_seat[card, seat] for seat in range(4)]
        assert sum(counts) == games
        assert all(140 <= c <= 260 for c in counts), counts  # expected 200 each


def test_an_explicit_deal_gives_exactly_these_hands() -> None:
    hands = deal("3S 4S 5S", "6D 7D", "2H")
    state, _ = new_game(SOUTHERN, 3, hands=hands)
    assert list(state.hands) == hands


@pytest.mark.parametrize(
    "hands",
    [
        ("3S 4S", "4S 5S"),  # the same card in two hands
        ("3S 4S", ""),  # an empty hand
        ("3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S 3C", "4C"),  # 14 cards
    ],
)
def test_an_explicit_deal_must_give_disjoint_hands_of_one_to_thirteen_cards(
    hands: tuple[str, ...],
) -> None:
    with pytest.raises(SetupError) as caught:
        new_game(SOUTHERN, len(hands), hands=deal(*hands))
    assert caught.value.code == "INVALID_DEAL"


def test_an_explicit_deal_gives_one_hand_per_seat() -> None:
    with pytest.raises(SetupError) as caught:
        new_game(SOUTHERN, 3, hands=deal("3S", "4S"))
    assert caught.value.code == "INVALID_DEAL"


def test_redeal_option_refuses_a_hand_of_all_four_twos() -> None:
    with pytest.raises(SetupError) as caught:
        new_game(rules(four_twos="redeal"), 2, hands=deal("2S 2C 2D 2H 3S", "4S"))
    assert caught.value.code == "REDEAL_REQUIRED"


def test_redeal_option_seeded_deals_never_hold_four_twos() -> None:
    redeal = rules(four_twos="redeal", instant_wins="none")
    twos = parse_set("2S 2C 2D 2H")
    for seed in range(300):
        state, _ = new_game(redeal, 2, seed=seed)
        assert all(hand & twos != twos for hand in state.hands)
