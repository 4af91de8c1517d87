"""RULES §9.3 "Time-outs": what a seat whose time ran out plays, and a seat on auto."""

from __future__ import annotations

import pytest
from helpers.seating import changed
from helpers.tables import deal, later

from tienlen_rules import AutoPlay, IllegalMove, Reason, TimedOut, apply, timeout, validate
from tienlen_rules.cards import parse_set
from tienlen_rules.events import Passed, Played


def test_a_seat_that_may_pass_passes_on_a_timeout_and_it_is_a_real_pass() -> None:
    table = later("southern", "3S 4S", "5D 2H", "7H 8H")
    table.play(0, "3S").timeout(1)
    passed = table.of(Passed)
    assert [p.seat for p in passed] == [1]
    assert passed[0].held_beat  # seat 1 held a beat (5D, 2H): evidence for đền bài
    assert table.of(TimedOut) == [TimedOut(1, 1)]
    assert table.state.passed == 0b010
    assert table.to_act == 2


def test_a_seat_that_leads_plays_its_lowest_single_on_a_timeout() -> None:
    table = later("southern", "9S 4H 2S", "5D 6D", "7H 8H")
    table.timeout(0)
    assert table.state.table is not None
    assert table.state.table.cards == parse_set("4H")


@pytest.mark.parametrize(("variant", "start"), [("southern", "3S"), ("hue", "3C")])
def test_a_first_game_timeout_leads_the_starting_card_alone(variant: str, start: str) -> None:
    hands = ("3S 9S QD", "3C 5D 6D", "7H 8H 2H")
    table = deal(variant, *hands)
    leader = table.to_act
    assert parse_set(start) & table.state.hands[leader]
    table.timeout(leader)
    assert table.state.table is not None
    assert table.state.table.cards == parse_set(start)


def test_a_card_played_on_a_timeout_is_a_real_play_so_the_seat_is_not_frozen() -> None:
    table = later("southern", "3S 4S", "5D 6D", "9H")
    table.play(0, "3S").timeout(1)  # seat 1 passes: still unplayed
    table.play(2, "9H")  # seat 2 goes out: seats 0 played, 1 did not
    assert table.state.frozen == 0b010
    table = later("southern", "3S 4S", "5D 6D", "9H", leader=1)
    table.timeout(1)  # seat 1 leads 5D on its time-out: it has played
    table.passes(2, 0).play(1, "6D")
    assert table.over
    assert table.state.frozen == 0b101  # seats 0 and 2 never played; seat 1 did


def test_two_timeouts_in_a_row_put_a_seat_on_auto_and_its_own_move_takes_it_off() -> None:
    table = later("southern", "3S 4S 5S", "6D 7D 8D", "JH QH KH 9C")
    table.timeout(0)  # seat 0 leads 3S
    table.play(1, "6D").play(2, "JH").timeout(0)  # seat 0 passes: 2 in a row
    assert table.of(AutoPlay) == [AutoPlay(0, on=True)]
    assert table.state.auto == 0b001
    table.passes(1).play(2, "9C")  # seat 2 leads again; seat 0 moves itself (a pass):
    table.passes(0)
    assert table.of(AutoPlay)[-1] == AutoPlay(0, on=False)
    assert table.state.auto == 0
    assert not table.state.timeouts  # every count back to 0


def test_the_count_of_timeouts_in_a_row_runs_over_games() -> None:
    table = later("southern", "3S 4S", "5C 9C", "7H 8H", options={"auto_after_timeouts": 3})
    table.timeout(0).play(1, "5C").play(2, "7H").timeout(0)  # seat 0: 3S, a pass: 2 in a row
    table.play(1, "9C")  # seat 1 goes out first
    table.timeout(2)  # seat 2 passes; seat 0 passed this round: seat 2 leads the next
    table.play(2, "8H")  # seat 2's own move: its count starts again; seat 0 is last
    assert table.over
    assert table.state.timeouts == (2, 0, 0)
    nxt, _ = changed(table.state, (0, 1, 2), seed=3)
    assert nxt.timeouts == (2, 0, 0)
    assert nxt.to_act == 1  # the winner leads
    for seat in (1, 2):
        nxt, _ = apply(nxt, timeout(seat))
    nxt, events = apply(nxt, timeout(0))  # seat 0's third time-out in a row
    assert TimedOut(0, 3) in events
    assert AutoPlay(0, on=True) in events
    assert nxt.auto == 0b001


def test_a_seat_on_auto_stays_on_auto_into_the_next_game() -> None:
    table = later("southern", "3S 4S", "9C", "7H 8H", options={"auto_after_timeouts": 1})
    table.timeout(0)
    assert table.state.auto == 0b001
    table.play(1, "9C")
    assert table.over
    nxt, _ = changed(table.state, (0, 1, 2), seed=3)
    assert nxt.auto == 0b001


def test_auto_after_0_timeouts_is_never() -> None:
    table = later("southern", "3S 4S 5S 6S", "6D 7D 8D 9D", options={"auto_after_timeouts": 0})
    for _ in range(4):
        table.timeout(table.to_act)
    assert table.state.auto == 0
    assert not table.of(AutoPlay)


def test_the_bot_timeout_action_plays_the_greedy_bots_move() -> None:
    table = later("southern", "3S 4S QS", "5D 6D", "7H 8H", options={"timeout_action": "bot"})
    table.play(0, "3S").timeout(1)  # greedy beats cheaply: 5D, where `lowest` would pass
    assert [e.seat for e in table.of(Played)] == [0, 1]
    assert table.state.table is not None
    assert table.state.table.cards == parse_set("5D")


def test_a_timeout_for_a_seat_not_to_act_is_refused_and_changes_nothing() -> None:
    table = later("southern", "3S 4S", "5D 6D", "7H 8H")
    before = table.state
    with pytest.raises(IllegalMove) as info:
        apply(table.state, timeout(1))
    assert info.value.reason == Reason.NOT_YOUR_TURN
    with pytest.raises(IllegalMove):
        validate(table.state, timeout(2))
    assert table.state == before


def test_a_timeout_never_chops_out_of_turn() -> None:
    table = later("southern", "2S 3D", "3S 3C 4S 4C 5S 5C 6S 6C", "7H 8H")
    table.play(0, "2S")
    # Seat 1 could chop out of turn, but it is seat 1's turn: its time-out passes.
    table.timeout(1)
    assert table.of(Passed)[-1].seat == 1
    assert table.to_act == 2
