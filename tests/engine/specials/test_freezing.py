"""Frozen (*cóng*, *cháy bài*) and compensation (*đền bài*), RULES §7-§8, Southern game.

When the first player goes out, every player who has not played a card yet is frozen: they take
the last places (in seat order after the winner), have no more turns, and each pays the winner
2L (4 stakes, 400 chips) plus their 2s and bombs at the penalty values. One frozen: the others
play on; two frozen (of four): the one left takes 2nd; all frozen: *đền bài* is examined — a
player who passed while they alone could beat pays the winner what every frozen player owes.
"""

from __future__ import annotations

from helpers.moves import deal, of_type, refusal, rules, run, run_events, settled, start, transfers

from tienlen_rules import next_game
from tienlen_rules.errors import Reason
from tienlen_rules.events import Passed, PlayersFrozen
from tienlen_rules.settlement import TransferReason

FROZEN = 400  # 2 × L = 2 × 2 stakes of 100 chips
FOUR_PAIRS = "7S 7C 8S 8C 9S 9C 10S 10C"


# --------------------------------------------------------------------------- who is frozen


def one_frozen(frozen_hand: str = "6D 6H KD"):
    """Seats 0-2 have played; seat 3 never has when seat 0 goes out on ♥2."""
    state = start("3S 7S 2H", "4S 8S 9S", "5S 10S JS", frozen_hand)
    return run_events(state, "0: 3S", "1: 4S", "2: 5S", "3: -", "0: 7S", "1: 8S", "2: 10S", "0: 2H")


def test_a_player_who_has_not_played_when_the_first_player_goes_out_is_frozen() -> None:
    state, events = one_frozen()
    assert of_type(events, PlayersFrozen) == [PlayersFrozen((3,), (4,))]
    assert state.frozen == 1 << 3
    assert state.places == (1, 0, 0, 4)
    assert not state.over


def test_a_frozen_player_takes_no_more_turns() -> None:
    state, _ = one_frozen()
    assert state.to_act == 1
    assert refusal(state, "3: -") == Reason.SEAT_FINISHED
    assert refusal(state, "3: 6D") == Reason.SEAT_FINISHED


def test_one_frozen_others_play_on_for_second_and_third() -> None:
    state, _ = one_frozen()
    state = run(state, "1: -", "2: -")  # nobody beats ♥2: the lead passes on (hưởng sái)
    assert state.to_act == 1
    state = run(state, "1: 9S")
    assert state.over
    assert state.places == (1, 2, 3, 4)
    result = settled(state)
    assert transfers(result, TransferReason.FROZEN) == [(3, 0, FROZEN)]
    assert transfers(result, TransferReason.PLACE) == [(2, 1, 100)]  # 3rd pays 2nd as usual
    assert result.net == (400, 100, -100, -400)


def test_frozen_player_pays_double_last_plus_twos_and_bombs() -> None:
    # ♦2 (1 stake) and 66-77-88 (1½ stakes) are counted as for thối, all to the winner
    state, _ = one_frozen("2D 6S 6C 7D 7H 8D 8H")
    state = run(state, "1: -", "2: -", "1: 9S")
    result = settled(state)
    assert transfers(result, TransferReason.FROZEN) == [(3, 0, FROZEN)]
    assert sorted(transfers(result, TransferReason.ROTTEN)) == [(3, 0, 100), (3, 0, 150)]
    assert result.net[3] == -(FROZEN + 250)
    assert result.net[0] == FROZEN + 250


def test_the_lead_skips_a_frozen_player() -> None:
    """Seat 0 goes out and seat 1, frozen, is next in seat order: the lead goes to seat 2."""
    state = start("3S 7S 2H", "6D 6H KD", "4S 8S 9S", "5S 10S JS")
    state = run(state, "0: 3S", "1: -", "2: 4S", "3: 5S", "0: 7S", "2: 8S", "3: 10S", "0: 2H")
    assert state.frozen == 1 << 1
    assert state.to_act == 2
    state, _events = run_events(state, "2: -", "3: -")
    assert state.to_act == 2
    assert state.table is None


def test_with_one_frozen_thoi_is_not_charged_again_on_the_third_player() -> None:
    """The frozen player is last and was already charged its 2s and bombs; 3rd holds ♣2 here."""
    state = start("3S 7S 2D", "4S 8S 9S 2C", "5S 10S JS 2H", "6D 6H KD")
    state = run(state, "0: 3S", "1: 4S", "2: 5S", "3: -", "0: 7S", "1: 8S", "2: 10S", "0: 2D")
    state = run(state, "1: -", "2: 2H", "2: JS")
    assert state.over
    assert state.places == (1, 3, 2, 4)
    result = settled(state)
    assert transfers(result, TransferReason.ROTTEN) == []
    assert transfers(result, TransferReason.PLACE) == [(1, 2, 100)]


def two_frozen():
    """Seats 0 and 1 have played; seats 2 and 3 never have when seat 0 goes out."""
    state = start("3S 5S 7S", "4S 6S 2H", "8D 9D", "10D 2C")
    return run_events(state, "0: 3S", "1: 4S", "2: -", "3: -", "0: 5S", "1: 6S", "0: 7S")


def test_two_frozen_the_one_left_takes_second_and_the_game_ends() -> None:
    state, events = two_frozen()
    assert of_type(events, PlayersFrozen) == [PlayersFrozen((2, 3), (3, 4))]
    assert state.over
    assert state.places == (1, 2, 3, 4)


def test_two_frozen_the_one_left_neither_pays_nor_receives_and_its_twos_do_not_rot() -> None:
    state, _ = two_frozen()
    result = settled(state)
    assert transfers(result) == [(2, 0, FROZEN), (3, 0, FROZEN), (3, 0, 50)]  # ♣2: ½ stake
    assert result.net == (850, 0, -400, -450)  # seat 1 keeps its ♥2 unpunished


def test_chops_made_during_a_frozen_game_are_settled_as_usual() -> None:
    state = start("3S 5S 2H JD", "4S 5C 5D 6C 6D 7C 7D 8H", "8D 9D", "10D QD")
    state = run(state, "0: 3S", "1: 4S", "2: -", "3: -", "0: 2H", "1: 5C 5D 6C 6D 7C 7D", "0: -")
    state, events = run_events(state, "1: 8H")  # seat 1 goes out first; seats 2 and 3 are frozen
    assert of_type(events, PlayersFrozen) == [PlayersFrozen((2, 3), (3, 4))]
    assert state.over
    assert state.places == (2, 1, 3, 4)
    result = settled(state)
    assert transfers(result, TransferReason.CHOP) == [(0, 1, 100)]  # ♥2 chopped: 1 stake
    assert transfers(result, TransferReason.FROZEN) == [(2, 1, FROZEN), (3, 1, FROZEN)]
    assert result.net == (-100, 900, -400, -400)


def test_three_frozen_each_pays_when_nobody_could_have_stopped_the_winner() -> None:
    state, events = run_events(start("3S 4S 5S", "6D 7D", "8D 9D", "10D 2C"), "0: 3S 4S 5S")
    assert of_type(events, PlayersFrozen) == [PlayersFrozen((1, 2, 3), (2, 3, 4))]
    assert state.over
    result = settled(state)
    assert transfers(result) == [(1, 0, FROZEN), (2, 0, FROZEN), (3, 0, FROZEN), (3, 0, 50)]


def test_frozen_players_take_the_last_places_in_seat_order_after_the_winner() -> None:
    state, events = run_events(
        start("6D 7D", "8D 9D", "3S 4S 5S", "10D JD", leader=2), "2: 3S 4S 5S"
    )
    assert of_type(events, PlayersFrozen) == [PlayersFrozen((3, 0, 1), (2, 3, 4))]
    assert state.places == (3, 4, 1, 2)


def test_a_player_whose_only_play_was_an_out_of_turn_chop_is_not_frozen() -> None:
    higher = "7D 7H 8D 8H 9D 9H 10D 10H"
    state = start(f"2S {higher} 3D", "QD KD", f"{FOUR_PAIRS} 3H")
    state = run(state, "0: 2S", f"2: {FOUR_PAIRS}", f"0: {higher}", "1: -", "2: -")
    state, events = run_events(state, "0: 3D")  # seat 0 goes out; seat 2 only ever chopped
    assert of_type(events, PlayersFrozen) == [PlayersFrozen((1,), (3,))]
    assert state.places == (1, 3, 2)


def test_three_players_one_frozen_the_one_left_takes_second_without_a_place_transfer() -> None:
    state = start("3S 5S", "4S 2H", "9D 10D")
    state, events = run_events(state, "0: 3S", "1: 4S", "2: -", "0: 5S")
    assert of_type(events, PlayersFrozen) == [PlayersFrozen((2,), (3,))]
    assert state.over
    assert state.places == (1, 2, 3)
    assert transfers(settled(state)) == [(2, 0, FROZEN)]


def test_two_players_the_frozen_loser_pays_double_last() -> None:
    state = run(start("3S 4S 5S", "9D 2D"), "0: 3S 4S 5S")
    assert state.over
    assert state.frozen == 1 << 1
    assert transfers(settled(state)) == [(1, 0, FROZEN), (1, 0, 100)]


def test_frozen_multiple_is_an_option() -> None:
    state = run(start("3S 4S 5S", "9D 10D", ruleset=rules(freeze_multiplier=3)), "0: 3S 4S 5S")
    assert transfers(settled(state)) == [(1, 0, 600)]


def test_freezing_can_be_switched_off() -> None:
    state, events = run_events(
        start("3S 4S 5S", "9D 10D", ruleset=rules(freezing=False)), "0: 3S 4S 5S"
    )
    assert not of_type(events, PlayersFrozen)
    assert state.over
    assert state.frozen == 0
    assert transfers(settled(state)) == [(1, 0, 200)]


# --------------------------------------------------------------------------- đền bài


def compensation_game(
    first_lead: str, second_lead: str, *, s1: str = "9S 9C 9D 2D", s2: str = "9H 10D JD"
):
    """Seat 0 leads twice and goes out; nobody else ever plays. Seat 1 alone holds a triple
    (beats 555), seat 2 alone a straight (beats 6-7-8); seat 3 holds nothing that beats."""
    state = start("5S 5C 5D 6S 7S 8S 4S", s1, s2, "3C 3D")
    state, events = run_events(
        state,
        f"0: {first_lead}",
        "1: -",
        "2: -",
        "3: -",
        f"0: {second_lead}",
        "1: -",
        "2: -",
        "3: -",
        "0: 4S",
    )
    assert of_type(events, PlayersFrozen) == [PlayersFrozen((1, 2, 3), (2, 3, 4))]
    return state, events


def test_compensation_passer_who_alone_could_beat_pays_for_all() -> None:
    state, _ = compensation_game("5S 5C 5D", "6S 7S 8S")
    result = settled(state)
    # seat 1 pays what all three frozen owe: 3 × 2L plus seat 1's own ♦2 (1 stake)
    assert transfers(result) == [(1, 0, FROZEN + 100), (1, 0, FROZEN), (1, 0, FROZEN)]
    assert {t.reason for t in result.transfers} == {TransferReason.COMPENSATION}
    assert result.net == (1300, -1300, 0, 0)


def test_compensation_the_first_to_pass_that_way_pays() -> None:
    state, _ = compensation_game("6S 7S 8S", "5S 5C 5D")  # now seat 2 passes first with a beat
    result = settled(state)
    assert {t.payer for t in result.transfers} == {2}
    assert result.net == (1300, 0, -1300, 0)


def test_every_pass_while_only_the_winner_played_records_whether_the_passer_held_a_beat() -> None:
    _, events = compensation_game("5S 5C 5D", "6S 7S 8S")
    held = [(p.seat, p.held_beat) for p in of_type(events, Passed)]
    assert held == [(1, 1), (2, 0), (3, 0), (1, 0), (2, 1), (3, 0)]


def test_every_pass_records_whether_the_passer_held_a_beat() -> None:
    state = start("3S 3C", "4S 9C", "5S 9D")  # seat 2 could beat ♠4, seat 0 could not
    _, events = run_events(state, "0: 3S", "1: 4S", "2: -", "0: -")
    assert [(p.seat, p.held_beat) for p in of_type(events, Passed)] == [(2, 1), (0, 0)]


def test_compensation_counts_a_chop_as_a_beat() -> None:
    """Seat 1 could have chopped the ♠2 with 3 consecutive pairs, and alone could: it pays."""
    state = start("2S 4S", "6S 6C 7S 7C 8S 8C", "3C 3D", "3H")
    state = run(state, "0: 2S", "1: -", "2: -", "3: -", "0: 4S")
    assert state.over
    assert {t.payer for t in settled(state).transfers} == {1}


def test_no_compensation_when_another_opponent_could_also_beat() -> None:
    """Seats 1 and 2 both hold a triple and a straight: neither passed while alone able to beat."""
    state, _ = compensation_game(
        "5S 5C 5D", "6S 7S 8S", s1="9S 9C 9D 10S JS 2D", s2="9H 10D JD QH QD QC"
    )
    result = settled(state)
    assert {t.reason for t in result.transfers} == {TransferReason.FROZEN, TransferReason.ROTTEN}
    assert transfers(result, TransferReason.FROZEN) == [
        (1, 0, FROZEN),
        (2, 0, FROZEN),
        (3, 0, FROZEN),
    ]


def test_compensation_only_applies_when_every_opponent_is_frozen() -> None:
    """Seat 1 passed with the only beat, but seat 2 played and went out first: seats 3 and 1
    are frozen, seat 0 is not, so each frozen player pays for itself."""
    state = start("5S 5C 5D 6S 4S", "9S 9C 9D 2D", "7D 8D", "3C 3D")
    state = run(
        state, "0: 5S 5C 5D", "1: -", "2: -", "3: -", "0: 6S", "1: -", "2: 7D", "3: -", "0: -"
    )
    state = run(state, "2: 8D")
    assert state.over
    assert state.places == (2, 4, 1, 3)
    result = settled(state)
    assert TransferReason.COMPENSATION not in {t.reason for t in result.transfers}
    assert transfers(result, TransferReason.FROZEN) == [(3, 2, FROZEN), (1, 2, FROZEN)]


def test_the_compensating_player_leads_the_next_game() -> None:
    state, _ = compensation_game("5S 5C 5D", "6S 7S 8S")
    assert settled(state).next_leader == 1
    following, _ = next_game(state, hands=deal("3S 4S", "5D 6D", "7C 8C", "9H 10H"))
    assert following.to_act == 1
    assert not following.first_game


def test_compensation_can_be_switched_off() -> None:
    off = rules(compensation=False)
    state = start("5S 5C 5D 4S", "9S 9C 9D 2D", "3H 10D", "3C 3D", ruleset=off)
    state = run(state, "0: 5S 5C 5D", "1: -", "2: -", "3: -", "0: 4S")
    result = settled(state)
    assert TransferReason.COMPENSATION not in {t.reason for t in result.transfers}
    assert transfers(result, TransferReason.FROZEN) == [
        (1, 0, FROZEN),
        (2, 0, FROZEN),
        (3, 0, FROZEN),
    ]
    assert result.next_leader is None
