"""Tiến lên Đấu (3 players), RULES §2, §3, §5, §7, §8, §10: the 17/17/18 deal with the dealer's
18, three players only, consecutive triples, ordinary 3 consecutive pairs and four of a kind,
its chop table and out-of-turn bombs, its penalty values and its instant-win lists.
The bombs are source 000's own examples where it gives one.
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

from tienlen_rules import new_game, next_game
from tienlen_rules.cards import FULL_DECK
from tienlen_rules.combinations import Kind
from tienlen_rules.errors import SetupError
from tienlen_rules.events import ChopSettled, GameStarted, InstantWin, Played

DAU = rules("dau")
SOUTH = rules("southern")

# Source 000's examples of Đấu bombs.
FOUR_PAIRS = "5D 5H 6C 6H 7S 7D 8S 8C"
FIVE_PAIRS = "5D 5H 6C 6H 7S 7D 8S 8C 9S 9H"
THREE_TRIPLES = "5S 5C 5D 6S 6C 6H 7S 7D 7H"
SIX_PAIRS = "5D 5H 6C 6H 7S 7D 8S 8C 9S 9H 10C 10D"


# --------------------------------------------------------------------------- the deal


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_all_52_cards_are_dealt_17_17_18_and_the_dealer_gets_18(dealer: int) -> None:
    # Source 000: "2 người được chia 17 lá bài và một người cầm cái được chia 18 lá bài".
    state, _ = new_game(DAU, 3, seed=2024, dealer=dealer)
    sizes = [h.bit_count() for h in state.hands]
    assert sizes[dealer] == 18
    assert sorted(sizes) == [17, 17, 18]
    union = 0
    for hand in state.hands:
        assert not union & hand
        union |= hand
    assert union == FULL_DECK


def test_the_seeded_deal_is_reproducible() -> None:
    assert new_game(DAU, 3, seed=7)[0].hands == new_game(DAU, 3, seed=7)[0].hands
    assert new_game(DAU, 3, seed=7)[0].hands != new_game(DAU, 3, seed=8)[0].hands


@pytest.mark.parametrize("players", [2, 4])
def test_dau_is_played_by_three_players_only(players: int) -> None:
    with pytest.raises(SetupError) as info:
        new_game(DAU, players, seed=1)
    assert info.value.code == "INVALID_PLAYER_COUNT"
    assert info.value.field == "players"


def test_an_explicit_deal_may_give_up_to_18_cards() -> None:
    eighteen = "3S 3C 3D 4S 4C 4D 5S 5C 5D 6S 6C 6D 7S 7C 7D 8S 8C 8D"
    t = later("dau", eighteen, "9S", "9C")
    assert t.state.hands[0].bit_count() == 18
    with pytest.raises(SetupError) as info:
        later("dau", f"{eighteen} 9H", "9S", "9C")
    assert info.value.code == "INVALID_DEAL"
    assert info.value.field == "hands[0]"


def test_the_previous_winner_deals_the_next_game_and_gets_18_cards() -> None:
    # RULES §10: the dealer is seat 0 in a match's first game and the previous winner afterwards.
    first = later("dau", "9S", "AS", "KS", leader=1)
    first.play(1, "AS")
    assert first.state.winner == 1
    state, events = next_game(first.state, seed=99)
    assert [e.dealer for e in events if isinstance(e, GameStarted)] == [1]
    assert state.hands[1].bit_count() == 18
    assert state.to_act == 1  # and leads it, as the previous winner


# --------------------------------------------------------------------------- combinations


def test_consecutive_triples_are_a_combination() -> None:
    found = combo("4S 4C 4D 5S 5C 5D 6S 6C 6D", DAU)
    assert found is not None
    assert found.kind == Kind.CONSECUTIVE_TRIPLES
    assert found.length == 3
    assert combo("4S 4C 4D 5S 5C 5D 6S 6C 6D", SOUTH) is None


@pytest.mark.parametrize("bomb", ["4S 4C 5D 5H 6C 6D", "KS KC KD KH"])
def test_three_consecutive_pairs_and_four_of_a_kind_do_not_chop_a_two(bomb: str) -> None:
    t = later("dau", "2H 9S", f"{bomb} 10S", "JS")
    t.play(0, "2H")
    assert t.refused(1, bomb) == Reason.WRONG_TYPE_OR_LENGTH


def test_a_higher_four_of_a_kind_on_a_four_is_not_paid() -> None:
    t = later("dau", "3S 3C 3D 3H 9S", "KS KC KD KH 10S", "JS")
    t.play(0, "3S 3C 3D 3H").play(1, "KS KC KD KH")
    assert not t.of(Played)[-1].chop
    t.passes(2, 0)
    assert not t.of(ChopSettled)


# --------------------------------------------------------------------------- the chop table


LOWER_FOUR_PAIRS = "3S 3C 4S 4C 5S 5C 6S 6D"
LOWER_FIVE_PAIRS = "3D 3H 4D 4H 5S 5C 6S 6D 7C 7H"
LOWER_THREE_TRIPLES = "3S 3C 3D 4S 4C 4D 5C 5D 5H"
LOWER_SIX_PAIRS = "3S 3C 4S 4C 5S 5C 6S 6D 7C 7H 8D 8H"
HIGHER_SIX_PAIRS = "9C 9D 10S 10H JS JC QS QC KS KC AS AC"
HIGHER_THREE_TRIPLES = "6S 6C 6D 7S 7C 7D 8S 8C 8D"


@pytest.mark.parametrize(
    ("bomb", "out_of_turn"),
    [(THREE_TRIPLES, True), (SIX_PAIRS, True), (FOUR_PAIRS, False), (FIVE_PAIRS, False)],
)
def test_only_three_consecutive_triples_and_six_consecutive_pairs_chop_out_of_turn(
    bomb: str, out_of_turn: bool
) -> None:
    # Source 000: 3 sám cô thông and 6 đôi thông chop "không cần vòng"; RULES §10.
    t = later("dau", "2H 3H", "JS 3D", f"{bomb} 3C")
    t.play(0, "2H")
    assert t.to_act == 1
    assert t.can_play(2, bomb) is out_of_turn
    if not out_of_turn:
        assert t.refused(2, bomb) == Reason.NOT_YOUR_TURN
    t.passes(1)
    assert t.can_play(2, bomb)  # in turn, every Đấu bomb chops a single 2


def test_three_consecutive_triples_chop_out_of_turn_even_after_passing() -> None:
    t = later("dau", "8D 2H 3H", "JD 3D", f"{THREE_TRIPLES} 3C")
    t.play(0, "8D").play(1, "JD").passes(2).play(0, "2H")
    assert t.to_act == 1  # seat 2 passed: it is out of this round...
    t.play(2, THREE_TRIPLES)  # ...yet chops out of turn (không cần vòng)
    assert t.of(Played)[-1].chop
    assert t.of(Played)[-1].out_of_turn
    assert t.to_act == 0  # play continues from the chopper


# --------------------------------------------------------------------------- penalty values


def test_a_two_chopped_by_four_pairs_then_five_pairs_is_paid_at_dau_values() -> None:
    # Red 2 1 stake + 4 consecutive pairs 1½ stakes, paid by the last chopped to the last chopper.
    t = later("dau", "2H 3H", f"{LOWER_FOUR_PAIRS} 3D", f"{FIVE_PAIRS} 4H")
    t.play(0, "2H").play(1, LOWER_FOUR_PAIRS).play(2, FIVE_PAIRS).passes(0, 1)
    settled = t.of(ChopSettled)[-1]
    assert (settled.payer, settled.payee, settled.amount) == (1, 2, 250)


@pytest.mark.parametrize(
    ("led", "chop", "amount"),
    [
        (LOWER_FOUR_PAIRS, FOUR_PAIRS, 150),
        (LOWER_FIVE_PAIRS, FIVE_PAIRS, 200),
        (LOWER_THREE_TRIPLES, HIGHER_THREE_TRIPLES, 250),
        (LOWER_SIX_PAIRS, HIGHER_SIX_PAIRS, 300),
    ],
)
def test_a_chopped_bomb_is_paid_at_its_dau_value(led: str, chop: str, amount: int) -> None:
    # 4 consecutive pairs 1½, 5 consecutive pairs 2, 3 consecutive triples 2½, 6 pairs 3 stakes.
    t = later("dau", f"{led} JD", f"{chop} QD", "KD")
    t.play(0, led).play(1, chop)
    assert t.of(Played)[-1].chop
    t.passes(2, 0)
    settled = t.of(ChopSettled)[-1]
    assert (settled.payer, settled.payee, settled.amount) == (0, 1, amount)


def _left_holding(last_hand: str) -> Table:
    """Seat 0 goes out first, seat 1 second; seat 2 is left holding `last_hand`."""
    t = later("dau", "4C AC 9S", "5C 7C 8S", f"6C {last_hand}")
    t.play(0, "4C").play(1, "5C").play(2, "6C").play(0, "AC").passes(1, 2)
    t.play(0, "9S").passes(1, 2).play(1, "7C").passes(2).play(1, "8S")
    assert t.over
    assert t.places == (1, 2, 3)
    return t


@pytest.mark.parametrize(
    ("last_hand", "rotten"),
    [
        ("3S 3D 4S 4D 5S 5D 6S 6D", [150]),  # 4 consecutive pairs
        ("3S 3D 4S 4D 5S 5D JS JC JD JH", []),  # 3 consecutive pairs and a four: not bombs
        ("2S 2H", [50, 100]),  # black 2 ½, red 2 1
    ],
)
def test_rotten_values_in_dau(last_hand: str, rotten: list[int]) -> None:
    s = _left_holding(last_hand).settle()
    assert sorted(a for _, _, a in transfers(s, TransferReason.ROTTEN)) == rotten


# --------------------------------------------------------------------------- instant wins


@pytest.mark.parametrize(
    ("hand", "pattern"),
    [
        # Source 000's examples (Tiến lên Đấu, Tới trắng, "tại các ván khác").
        ("4C 4S 5H 5D 6H 6S 7D 7C 8D 8S 9H 9C 10C 10S", "seven_consecutive_pairs"),
        ("4D 4S 5H 5S 7D 7C 8H 8D 9C 9S JH JC QD QS AC AS", "eight_pairs"),
        ("6H 6D 6C 6S 8H 8D 8C 8S 9H 9D 9C 9S KH KD JC JS", "eight_pairs"),
        ("4D 4C 4S 5D 5C 5S 6H 6D 6S 7H 7D 7C", "four_consecutive_triples"),
        ("7H 7D 7S 8H 8D 8C 9D 9C 9S 10D 10C 10S JH JD JC", "four_consecutive_triples"),
        ("5D 5H 5C 7D 7C 7S 8D 8C 8S 10H 10D 10S QD QC QS", "five_triples"),
        ("4D 4H 4C 4S 5H 5D 5C 5S 6H 6D 6C 6S", "three_consecutive_fours"),
        (
            "4H 4D 4S 4C 6H 6D 6C 6S JH JD JS JC QH QD QC QS",
            "four_fours",
        ),  # also 8 pairs: the more specific pattern is named
        ("3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS", "same_suit_dragon"),
        ("3S 4S 5S 6S 7S 8S 9C 10C JC QC KC AC 2S 2C 9S", "fifteen_of_one_colour"),
    ],
)
def test_any_game_instant_wins_of_dau(hand: str, pattern: str) -> None:
    t = later("dau", "2D", hand, "2H", leader=0)
    assert t.of(InstantWin) == [InstantWin(1, pattern)]
    assert t.over
    s = t.settle()
    assert sorted(transfers(s, TransferReason.INSTANT_WIN)) == [(0, 1, 200), (2, 1, 200)]


def test_four_fours_of_any_ranks_is_an_instant_win() -> None:
    # Distinct from eight pairs only by name; checked with the pattern itself.
    from tienlen_rules.instant_wins import INSTANT_WIN_LISTS

    test = {p.name: p.test for p in INSTANT_WIN_LISTS["dau"]}["four_fours"]
    assert test(cards("4H 4D 4S 4C 6H 6D 6C 6S JH JD JS JC QH QD QC QS"), DAU)
    assert not test(cards("4H 4D 4S 4C 6H 6D 6C 6S JH JD JS JC QH QD QC"), DAU)


@pytest.mark.parametrize(
    ("hand", "pattern"),
    [
        ("3S 3C 4S 4C 5S 5C 6S 6C 9D", "four_consecutive_pairs_with_start"),
        ("3S 3C 3D 4S 4C 4D 5S 5C 5D 9D", "three_consecutive_triples_with_start"),
    ],
)
def test_first_game_instant_wins_are_the_dealers_only(hand: str, pattern: str) -> None:
    # Source 000: "Tại các ván khởi đầu đối với người cầm cái: 4 đôi thông có ♠3 ... 3 sám cô thông
    # có ♠3".
    dealer = deal("dau", hand, "KD", "KH", dealer=0)
    assert dealer.of(InstantWin) == [InstantWin(0, pattern)]
    not_dealer = deal("dau", hand, "KD", "KH", dealer=1)
    assert not not_dealer.of(InstantWin)
    not_first = later("dau", hand, "KD", "KH")
    assert not not_first.of(InstantWin)


@pytest.mark.parametrize(
    "hand",
    [
        "2S 2C 2D 2H 9D",  # four 2s
        "3H 4C 5D 6H 7H 8S 9D 10S JC QD KC AH",  # the dragon, any suits
        "3S 3C 4S 4C 5S 5C 9D",  # 3 consecutive pairs with ♠3
        "3S 3C 3D 3H 9D",  # four 3s
    ],
)
def test_hands_that_are_not_instant_wins_in_dau(hand: str) -> None:
    # Source 000: "Có những bộ quân đặc biệt không được tới trắng như tứ quý heo, sảnh rồng, 3 đôi
    # thông có ♠3 và tứ quý 3".
    dau = deal("dau", hand, "KS", "KH", dealer=0)
    assert not dau.of(InstantWin)
    assert not dau.over
    south = deal("southern", hand, "KS", "KH")
    assert south.of(InstantWin)


def test_four_twos_are_an_ordinary_four_of_a_kind_in_dau() -> None:
    # Source 000: "tứ quý heo có thể chặn được tất cả tứ quý khác nhỏ hơn nó".
    t = later("dau", "AS AC AD AH 9D", "2S 2C 2D 2H 3D", "KS")
    t.play(0, "AS AC AD AH").play(1, "2S 2C 2D 2H")
    assert not t.of(Played)[-1].chop
