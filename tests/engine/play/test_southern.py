"""Play in the Southern game, RULES §4-§5: who leads, turns and rounds (*vòng*), passing and the
lock-out (*qua tay*), the lead after a player went out (*hưởng sái*), finishing (*về*), and
4 consecutive pairs chopping out of turn (*không cần vòng*). Every refusal reason code the
Southern game can produce is checked at the end.
"""

from __future__ import annotations

import pytest
from helpers.moves import (
    SOUTHERN,
    deal,
    of_type,
    pass_,
    play,
    play_events,
    refusal,
    rules,
    run,
    run_events,
    start,
    start_events,
)

from tienlen_rules import SeatChanges, apply, new_game, next_game, validate
from tienlen_rules.cards import parse_card, parse_cards, parse_set
from tienlen_rules.errors import Reason, SetupError
from tienlen_rules.events import (
    ChopSettled,
    GameOver,
    GameStarted,
    Passed,
    Played,
    PlayerFinished,
    RoundWon,
    TurnPassed,
)
from tienlen_rules.state import GameState, pass_turn
from tienlen_rules.state import play as play_move

FOUR_PAIRS = "7S 7C 8S 8C 9S 9C 10S 10C"

# --------------------------------------------------------------------------- who leads


def test_first_game_the_holder_of_three_of_spades_leads() -> None:
    state, events = start_events("4S 5S", "6D 7D", "3S 9H", "8C 9C", first_game=True)
    assert state.to_act == 2
    assert state.must_include == parse_card("3S")
    assert of_type(events, GameStarted)[0].leader == 2


def test_first_lead_must_contain_three_of_spades() -> None:
    state = start("4S 7H", "3S 4C 5D 6H 9H", first_game=True)
    assert refusal(state, "1: 9H") == Reason.MUST_INCLUDE_STARTING_CARD
    assert refusal(state, "1: 4C 5D 6H") == Reason.MUST_INCLUDE_STARTING_CARD


@pytest.mark.parametrize("lead", ["3S", "3S 4C 5D", "3S 3C"])
def test_three_of_spades_may_lead_alone_or_inside_any_combination(lead: str) -> None:
    state = start("4S 6H 7H", "3S 3C 4C 5D 9H", first_game=True)
    after = play(state, 1, lead)
    assert after.table is not None
    assert after.table.cards == parse_set(lead)


def test_only_the_first_lead_of_a_first_game_must_contain_the_starting_card() -> None:
    state = run(start("3S 4S 8H", "5D 6D 7D", first_game=True), "0: 3S", "1: -")
    assert state.to_act == 0
    assert state.must_include == -1
    assert play(state, 0, "8H").table is not None


def test_starting_card_option_three_of_clubs_leads_instead() -> None:
    state = start("3S 4S", "3C 9H", first_game=True, ruleset=rules(starting_card="3C"))
    assert (state.to_act, state.must_include) == (1, parse_card("3C"))
    assert refusal(state, "1: 9H") == Reason.MUST_INCLUDE_STARTING_CARD


@pytest.mark.parametrize(
    ("hands", "leader", "card"),
    [
        (("4S 9H", "3C 5D"), 1, "3C"),
        (("5S 9H", "4C 6D", "4H 8C"), 1, "4C"),
    ],
)
def test_without_three_of_spades_the_lowest_dealt_card_leads_and_must_be_included(
    hands: tuple[str, ...], leader: int, card: str
) -> None:
    state = start(*hands, first_game=True)
    assert (state.to_act, state.must_include) == (leader, parse_card(card))
    other = next(c for c in parse_cards(hands[leader]) if c != parse_card(card))
    assert refusal(state, play_move(leader, [other])) == Reason.MUST_INCLUDE_STARTING_CARD
    assert not play(state, leader, card).over


def test_a_later_game_is_led_by_the_previous_winner_with_any_combination() -> None:
    state = start("3S 4S", "5D 6D", "7C 9H", first_game=False, leader=2)
    assert (state.to_act, state.must_include) == (2, -1)
    assert play(state, 2, "9H").table is not None


def test_a_later_game_needs_to_be_told_its_leader() -> None:
    with pytest.raises(SetupError) as caught:
        new_game(SOUTHERN, 2, hands=deal("3S", "4S"), first_game=False)
    assert caught.value.code == "LEADER_REQUIRED"


def test_next_game_is_led_by_the_previous_winner_with_any_combination() -> None:
    state = start("3S 5S 7S", "4S 2H", "6C 8C 9C", first_game=True)
    state = run(state, "0: 3S", "1: 4S", "2: 6C", "0: 7S", "1: 2H")  # seat 1 goes out first
    state = run(state, "2: -", "0: -", "2: 8C", "0: -", "2: 9C")
    assert state.over
    assert state.places == (3, 1, 2)
    following, _events = next_game(state, hands=deal("3S 4S", "6D 7D", "8C 9C"))
    assert not following.first_game
    assert (following.to_act, following.must_include) == (1, -1)
    assert play(following, 1, "7D").table is not None


def test_next_game_with_a_seeded_deal_is_led_by_the_previous_winner() -> None:
    state = run(start("3S 5S", "4D", first_game=False), "0: 3S", "1: 4D")
    assert state.over
    assert state.winner == 1
    following, _ = next_game(state, seed=11)
    assert following.to_act == 1
    assert [h.bit_count() for h in following.hands] == [13, 13]


# --------------------------------------------------------------------------- turns and rounds


def test_play_passes_to_the_next_seat_in_turn_order() -> None:
    state = start("3S 9S", "4S 9C", "5S 9D", "6S 9H")
    state, events = play_events(state, 0, "3S")
    assert state.to_act == 1
    assert of_type(events, TurnPassed) == [TurnPassed(1)]
    assert run(state, "1: 4S").to_act == 2
    assert run(state, "1: 4S", "2: 5S", "3: 6S").to_act == 0  # and round the table


def test_acting_out_of_turn_is_refused() -> None:
    state = start("3S 9S", "4S 9C", "5S 9D")
    assert refusal(state, "1: 4S") == Reason.NOT_YOUR_TURN
    assert refusal(state, "2: -") == Reason.NOT_YOUR_TURN
    state = run(state, "0: 3S")
    assert refusal(state, "2: 5S") == Reason.NOT_YOUR_TURN


def test_play_can_go_round_the_table_many_times_within_one_round() -> None:
    state = start("3S 6S 9S QS", "4S 7S 10S KS", "5S 8S JS AS")
    state = run(
        state, "0: 3S", "1: 4S", "2: 5S", "0: 6S", "1: 7S", "2: 8S", "0: 9S", "1: 10S", "2: JS"
    )
    assert state.table is not None
    assert state.table.cards == parse_set("JS")
    assert state.to_act == 0
    assert state.passed == 0


def test_passed_player_is_locked_out_until_the_round_ends() -> None:
    state = start("3S 6S 9H 10H KS", "4S 7D QD", "3C 5S 8S JH AS")
    state = run(state, "0: 3S", "1: 4S", "2: 5S", "0: 6S", "1: -", "2: 8S")
    assert state.to_act == 0
    assert refusal(state, "1: 7D") == Reason.LOCKED_OUT_OF_ROUND
    state = run(state, "0: 9H")
    assert state.to_act == 2  # seat 1 is skipped while the round lasts
    assert refusal(state, "1: QD") == Reason.LOCKED_OUT_OF_ROUND
    state, events = run_events(state, "2: JH", "0: -")
    assert of_type(events, RoundWon) == [RoundWon(2, 2)]
    state = run(state, "2: 3C", "0: 10H")
    assert state.to_act == 1  # a new round: seat 1 is back in
    assert play(state, 1, "QD").table_seat == 1


def test_round_ends_when_every_other_player_has_passed_and_the_last_player_leads_anything() -> None:
    state = start("3S 9S 9C", "4S 5H", "5S 6H")
    state, events = run_events(state, "0: 3S", "1: 4S", "2: 5S", "0: -", "1: -")
    assert of_type(events, RoundWon) == [RoundWon(2, 2)]
    assert state.table is None
    assert state.to_act == 2
    assert state.passed == 0
    assert refusal(state, "2: -") == Reason.LEADER_CANNOT_PASS
    state = run(state, "2: 6H")  # a new round: any combination, even lower than before
    assert state.to_act == 0


def test_the_leader_of_a_round_cannot_pass() -> None:
    assert refusal(start("3S 9S", "4S"), "0: -") == Reason.LEADER_CANNOT_PASS


def test_a_pass_by_a_seat_that_holds_a_beat_is_allowed() -> None:
    state = run(start("3S 9S", "2H 4S"), "0: 3S")
    state, events = apply(state, pass_turn(1))
    assert of_type(events, Passed)[0].seat == 1
    assert state.to_act == 0
    assert state.table is None


# --------------------------------------------------------------------------- finishing and hưởng sái


def everyone_has_played() -> GameState:
    """Four seats that have all played (so nobody is frozen); seat 1 then goes out first."""
    state = start("3S 7S JS", "4S 8S", "5S 9S QS", "6S 10S KS")
    return run(state, "0: 3S", "1: 4S", "2: 5S", "3: 6S", "0: 7S")


def test_a_player_who_plays_the_last_card_finishes_at_once_and_takes_the_next_place() -> None:
    state, events = play_events(everyone_has_played(), 1, "8S")
    assert of_type(events, PlayerFinished) == [PlayerFinished(1, 1, False)]
    assert state.places == (0, 1, 0, 0)
    assert state.hands[1] == 0
    assert state.to_act == 2
    state, events = run_events(state, "2: 9S", "3: 10S", "0: JS")
    assert of_type(events, PlayerFinished) == [PlayerFinished(0, 2, False)]
    assert state.places == (2, 1, 0, 0)


def test_others_may_still_beat_the_last_play_of_a_player_who_went_out() -> None:
    state = play(everyone_has_played(), 1, "8S")
    state = run(state, "2: 9S")
    assert state.table_seat == 2


def test_lead_passes_to_next_seat_with_cards_when_last_player_went_out() -> None:
    state = play(everyone_has_played(), 1, "8S")
    state, events = run_events(state, "2: -", "3: -", "0: -")
    assert of_type(events, RoundWon) == [RoundWon(1, 2)]
    assert state.to_act == 2
    assert state.table is None


def test_lead_skips_seats_that_have_already_gone_out() -> None:
    state = play(everyone_has_played(), 1, "8S")  # seat 1 is out
    state = run(state, "2: 9S", "3: 10S", "0: JS")  # seat 0 goes out on ♠J
    state, events = run_events(state, "2: -", "3: -")
    assert of_type(events, RoundWon) == [RoundWon(0, 2)]
    assert state.to_act == 2


def test_a_finished_player_takes_no_more_turns() -> None:
    state = play(everyone_has_played(), 1, "8S")
    assert refusal(state, "1: -") == Reason.SEAT_FINISHED
    assert refusal(state, play_move(1, [parse_card("8S")])) == Reason.SEAT_FINISHED


def test_game_ends_when_only_one_player_still_holds_cards() -> None:
    state = start("3S 6S", "4S 7S", "5S 2H")
    state, events = run_events(state, "0: 3S", "1: 4S", "2: 5S", "0: 6S", "1: 7S")
    assert state.over  # seats 0 and 1 are out: seat 2, still holding ♥2, is last
    assert state.places == (1, 2, 3)
    assert state.to_act == -1
    assert of_type(events, GameOver) == [GameOver((1, 2, 3))]


def test_a_game_of_two_ends_when_the_first_player_goes_out() -> None:
    state, events = run_events(start("3S 5S", "4S 9H"), "0: 3S", "1: 4S", "0: 5S")
    assert state.over
    assert state.places == (1, 2)
    assert of_type(events, GameOver) == [GameOver((1, 2))]


def test_a_game_that_is_over_refuses_every_move() -> None:
    state = run(start("3S 5S", "4S 9H"), "0: 3S", "1: 4S", "0: 5S")
    assert refusal(state, "1: 9H") == Reason.GAME_OVER
    assert refusal(state, "1: -") == Reason.GAME_OVER


@pytest.mark.parametrize("last", ["2H", "2S 2C", "9S 9C 9D 9H", "3S 3C 4S 4C 5S 5C"])
def test_going_out_with_a_two_or_a_bomb_is_allowed_in_the_south(last: str) -> None:
    state = start(f"JD 5D {last}", "QD 3D 4H")
    state = run(state, "0: JD", "1: QD", "0: -", "1: 3D", "0: 5D", "1: -")
    state, events = play_events(state, 0, last)
    assert of_type(events, PlayerFinished) == [PlayerFinished(0, 1, False)]
    assert state.over
    assert state.places == (1, 2)


# --------------------------------------------------------------------------- out-of-turn chops


def two_on_the_table_after_seat_2_passed() -> GameState:
    """Seat 3 has put ♥2 on the table; seat 2 passed earlier in this round; seat 0 is to act."""
    state = start("5S 9D JD", "6S JH", f"{FOUR_PAIRS} QD", "3H 2H KD")
    return run(state, "0: 5S", "1: 6S", "2: -", "3: 2H")


def test_four_consecutive_pairs_chop_out_of_turn_even_after_passing() -> None:
    state = two_on_the_table_after_seat_2_passed()
    assert state.to_act == 0
    assert state.passed >> 2 & 1
    state, events = play_events(state, 2, FOUR_PAIRS)
    played = of_type(events, Played)[0]
    assert (played.seat, played.chop, played.out_of_turn) == (2, True, True)
    assert not state.passed >> 2 & 1  # the chopper is back in the round


def test_play_continues_from_the_out_of_turn_chopper() -> None:
    state = play(two_on_the_table_after_seat_2_passed(), 2, FOUR_PAIRS)
    assert state.to_act == 3  # the seat after the chopper, as if seat 2 had played in turn
    state = run(state, "3: -", "0: -", "1: -")
    assert state.to_act == 2
    assert state.table is None


def test_four_consecutive_pairs_chop_out_of_turn_without_having_passed() -> None:
    state = run(start("2S JD", "QD KD", f"{FOUR_PAIRS} QH"), "0: 2S")
    assert state.to_act == 1
    state, events = play_events(state, 2, FOUR_PAIRS)
    played = of_type(events, Played)[0]
    assert played.chop
    assert played.out_of_turn
    assert state.to_act == 0  # after the chopper comes seat 0, the chopped player


EIGHT_TO_JACK_PAIRS = "8S 8C 9S 9C 10S 10C JS JC"


@pytest.mark.parametrize(
    "target", ["2S", "2S 2D", "3S 3C 4S 4C 5S 5C", "AS AC AD AH", "3D 3H 4D 4H 5D 5H 6D 6H"]
)
def test_four_consecutive_pairs_chop_every_target_out_of_turn(target: str) -> None:
    state = run(start(f"{target} JD", "QD KD", f"{EIGHT_TO_JACK_PAIRS} QH"), f"0: {target}")
    assert state.to_act == 1
    state, events = play_events(state, 2, EIGHT_TO_JACK_PAIRS)
    played = of_type(events, Played)[0]
    assert played.chop
    assert played.out_of_turn


@pytest.mark.parametrize("bomb", ["9S 9C 9D 9H", "9S 9C 10S 10C JS JC"])
def test_only_four_consecutive_pairs_chop_out_of_turn(bomb: str) -> None:
    state = run(start("2S JD", "QD KD", f"{bomb} QH"), "0: 2S")
    assert refusal(state, f"2: {bomb}") == Reason.NOT_YOUR_TURN
    state = run(start("5S 2S JD", "6S KD", f"{bomb} QH"), "0: 5S", "1: 6S", "2: -", "0: 2S")
    assert refusal(state, f"2: {bomb}") == Reason.LOCKED_OUT_OF_ROUND


def test_four_consecutive_pairs_do_not_go_out_of_turn_on_a_play_they_cannot_chop() -> None:
    state = run(start("AS JD", "QD KD", f"{FOUR_PAIRS} QH"), "0: AS")
    assert refusal(state, f"2: {FOUR_PAIRS}") == Reason.NOT_YOUR_TURN


def test_a_player_cannot_chop_their_own_play_out_of_turn() -> None:
    state = run(start(f"2S {FOUR_PAIRS} JD", "QD KD"), "0: 2S")
    assert refusal(state, f"0: {FOUR_PAIRS}") == Reason.NOT_YOUR_TURN


def test_out_of_turn_chops_can_be_switched_off() -> None:
    in_turn_only = rules(out_of_turn_chops=False)
    state = run(start("2S JD", "QD KD", f"{FOUR_PAIRS} QH", ruleset=in_turn_only), "0: 2S")
    assert refusal(state, f"2: {FOUR_PAIRS}") == Reason.NOT_YOUR_TURN


def test_an_out_of_turn_chop_can_itself_be_chopped_out_of_turn() -> None:
    higher = "7D 7H 8D 8H 9D 9H 10D 10H"
    state = start("2S JD", "QD KD", f"{FOUR_PAIRS} QH", f"{higher} AH")
    state = run(state, "0: 2S", f"2: {FOUR_PAIRS}")
    assert state.to_act == 3
    state = run(state, "3: -")
    assert state.to_act == 0
    state, events = play_events(state, 3, higher)  # seat 3 passed, chops back out of turn
    played = of_type(events, Played)[0]
    assert played.chop
    assert played.out_of_turn
    assert state.to_act == 0  # play goes on from seat 3: seat 0 next
    state, events = run_events(state, "0: -", "1: -", "2: -")
    # seat 2, the last chopped, pays seat 3 the whole chain: ♠2 ½ + 4 consecutive pairs 2½
    assert [(e.payer, e.payee, e.amount) for e in of_type(events, ChopSettled)] == [(2, 3, 300)]


# --------------------------------------------------------------------------- refusal codes


def test_a_card_not_in_the_hand_is_refused() -> None:
    assert refusal(start("3S 4S", "5S"), "0: 5S") == Reason.CARD_NOT_IN_HAND
    assert refusal(start("3S 4S", "5S"), play_move(0, [52])) == Reason.CARD_NOT_IN_HAND


def test_the_same_card_twice_in_one_play_is_refused() -> None:
    assert refusal(start("3S 4S", "5S"), play_move(0, [0, 0])) == Reason.DUPLICATE_CARD


def test_a_play_without_cards_is_refused() -> None:
    assert refusal(start("3S 4S", "5S"), play_move(0, [])) == Reason.EMPTY_PLAY


@pytest.mark.parametrize("seat", [-1, 2, 7])
def test_a_seat_not_at_the_table_is_refused(seat: int) -> None:
    assert refusal(start("3S 4S", "5S"), pass_turn(seat)) == Reason.INVALID_SEAT
    assert refusal(start("3S 4S", "5S"), play_move(seat, [0])) == Reason.INVALID_SEAT


def test_validate_returns_the_combination_of_a_legal_play_and_none_for_a_legal_pass() -> None:
    state = run(start("3S 4S 5S 9H", "6D 7D 8D 9D"), "0: 3S 4S 5S")
    combo = validate(state, play_move(1, parse_cards("6D 7D 8D")))
    assert combo is not None
    assert combo.cards == parse_set("6D 7D 8D")
    assert validate(state, pass_turn(1)) is None


def _reasons_scenarios() -> dict[Reason, tuple[GameState, str]]:
    led = run(start("3S 9H", "9D 4C", "5S 6S"), "0: 9H")
    locked = run(start("3S 6S 9H", "4S 7D", "5S 8S"), "0: 3S", "1: -", "2: 5S")
    over = run(start("3S", "4S"), "0: 3S")
    out = play(everyone_has_played(), 1, "8S")
    left = run(start("3S 9H", "9D 4C", "5S 6S"), "1: leave")
    three = run(start("3S", "4S", "5S"), "0: 3S")  # over: seats 1 and 2 are frozen
    emptied, _ = next_game(three, changes=SeatChanges((0, 1)), hands=deal("3S 9H", "9D 4C", ""))
    return {
        Reason.NOT_YOUR_TURN: (led, "2: 5S"),
        Reason.CARD_NOT_IN_HAND: (led, "1: 9S"),
        Reason.DUPLICATE_CARD: (led, "1: 9D 9D"),
        Reason.EMPTY_PLAY: (led, "1: "),
        Reason.NOT_A_COMBINATION: (led, "1: 9D 4C"),
        Reason.MUST_INCLUDE_STARTING_CARD: (start("3S 4S", "5S", first_game=True), "0: 4S"),
        Reason.DOES_NOT_BEAT: (led, "1: 4C"),
        Reason.WRONG_TYPE_OR_LENGTH: (run(start("3S 4S 9H", "9D 9C"), "0: 3S"), "1: 9D 9C"),
        Reason.LOCKED_OUT_OF_ROUND: (locked, "1: 7D"),
        Reason.LEADER_CANNOT_PASS: (start("3S", "4S"), "0: -"),
        Reason.GAME_OVER: (over, "1: 4S"),
        Reason.SEAT_FINISHED: (out, "1: -"),
        Reason.INVALID_SEAT: (led, "5: -"),
        Reason.SEAT_LEFT: (left, "1: 9D"),  # RULES §9.4: the leaver plays only time-outs
        Reason.SEAT_EMPTY: (emptied, "2: -"),  # RULES §9.1: seat 2 left between games
    }


NOT_SOUTHERN = {
    Reason.CANNOT_STEAL_LEAD,  # cướp cái: Huế and Đà Nẵng only
    Reason.LEAVE_REFUSED,  # leave_mid_game = refuse: tests/engine/tables/test_leaving.py
}


def test_every_refusal_reason_of_the_southern_game_is_produced_as_documented() -> None:
    scenarios = _reasons_scenarios()
    assert set(scenarios) | NOT_SOUTHERN == set(Reason)
    for reason, (state, step) in scenarios.items():
        assert refusal(state, step) == reason, step


def test_a_refused_move_leaves_the_state_unchanged_and_usable() -> None:
    state = run(start("3S 9H", "9D 4C"), "0: 9H")
    refusal(state, "1: 4C")
    after = pass_(state, 1)
    assert after.to_act == 0
