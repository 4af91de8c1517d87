"""The engine's invariants (tienlen_rules.invariants) catch what they claim to: a card in two
hands, a card that vanished, a turn no seat can take, a game over with wrong places, nets that
are not the transfers' sums or not zero-sum. (The property tests and the simulator check them
at every step of their games; here each check is shown to fail when it must.)"""

from __future__ import annotations

import pytest

import tienlen_rules as game
from tienlen_rules.cards import parse_cards, parse_set
from tienlen_rules.invariants import InvariantError, check_cards, check_settlement, check_turn
from tienlen_rules.ruleset import build_rules
from tienlen_rules.settlement import Settlement, Transfer, TransferReason
from tienlen_rules.state import GameState, play, replaced

SOUTHERN = build_rules("southern")


def two_hands() -> GameState:
    state, _ = game.new_game(
        SOUTHERN,
        2,
        hands=[parse_set("3S 4S 9H"), parse_set("5D 6D 9C")],
        first_game=False,
        leader=0,
    )
    return state


def test_the_card_check_catches_a_card_in_two_hands() -> None:
    state = two_hands()
    bad = state._replace(
        hands=(state.hands[0] | parse_set("5D"), state.hands[1]),
        dealt=(state.dealt[0] | parse_set("5D"), state.dealt[1]),
    )
    with pytest.raises(InvariantError, match="two hands"):
        check_cards(bad, None, ())


def test_the_card_check_catches_a_card_that_vanished() -> None:
    state = two_hands()
    after = state._replace(hands=(state.hands[0] & ~parse_set("9H"), state.hands[1]))
    with pytest.raises(InvariantError, match="9H moved without being played"):
        check_cards(after, state, ())


def test_the_turn_check_needs_exactly_one_seat_to_act() -> None:
    state = two_hands()
    check_turn(state)
    with pytest.raises(InvariantError, match="to act but cannot"):
        check_turn(state._replace(to_act=5))
    with pytest.raises(InvariantError, match="game over"):
        check_turn(state._replace(to_act=-1))
    check_turn(state._replace(to_act=-1, places=(2, 1)))
    check_turn(state._replace(to_act=-1, places=(2, 1), instant_winner=1))  # tới trắng
    check_turn(state._replace(to_act=-1, places=(1, 2), instant_winner=0))


def test_the_settlement_check_needs_zero_sum_and_nets_from_transfers() -> None:
    state = two_hands()
    fine = Settlement(
        (Transfer(1, 0, 200, TransferReason.PLACE, 0),), (200, -200), (1, 2), (), True, -1
    )
    check_settlement(state, fine)
    wrong_net = fine._replace(net=(200, -100))
    with pytest.raises(InvariantError, match="transfers' sums"):
        check_settlement(state, wrong_net)
    unpaid = Settlement(
        (Transfer(-1, 0, 50, TransferReason.CHOP, 0),), (50, 0), (1, 2), (), False, -1
    )
    with pytest.raises(InvariantError, match="zero-sum rules"):
        check_settlement(state, unpaid)
    check_settlement(state._replace(rules=build_rules("hue")), unpaid)  # Huế: chopper_only


def test_the_settlement_check_needs_a_seat_charged_frozen_to_be_frozen() -> None:
    state = two_hands()
    frozen = Settlement(
        (Transfer(1, 0, 400, TransferReason.FROZEN, 0),), (400, -400), (1, 2), (), True, -1
    )
    with pytest.raises(InvariantError, match="charged FROZEN but not frozen"):
        check_settlement(state, frozen)
    check_settlement(state._replace(frozen=1 << 1), frozen)
    old = state._replace(rules=build_rules("dem_la", revision=1))  # the settlement alone, then
    check_settlement(old, frozen)


def test_the_card_check_catches_a_card_played_from_another_hand() -> None:
    state = two_hands()
    after, events = game.apply(state, play(0, parse_cards("3S")))
    check_cards(after, state, events)
    stolen = state._replace(hands=(state.hands[0] & ~parse_set("3S"), state.hands[1]))
    with pytest.raises(InvariantError, match="did not hold"):
        check_cards(after, stolen, events)


def test_a_replaced_state_is_the_namedtuples_replace_and_refuses_an_unknown_field() -> None:
    state, _ = game.new_game(build_rules("southern"), 4, seed=5)
    changed = replaced(state, to_act=2, passed=0b1010, move_count=7)
    assert changed == state._replace(to_act=2, passed=0b1010, move_count=7)
    assert type(changed) is GameState
    assert replaced(state) == state
    with pytest.raises(ValueError, match="no field 'turn'"):
        replaced(state, turn=1)


def test_the_played_cards_are_those_dealt_and_no_longer_held() -> None:
    state = two_hands()
    assert state.played == 0
    state, _ = game.apply(state, play(0, parse_cards("4S")))
    assert state.played == parse_set("4S")
    state, _ = game.apply(state, play(1, parse_cards("9C")))
    assert state.played == parse_set("4S 9C")
