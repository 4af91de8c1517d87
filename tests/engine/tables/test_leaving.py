"""RULES §9.4 "Leaving during a game": `leave_mid_game` = play_out (the default) and refuse. The
game goes on for the others in every case. (Forfeits: test_forfeits.py.)"""

from __future__ import annotations

import pytest
from helpers.seating import changed
from helpers.tables import later

from tienlen_rules import (
    AutoPlay,
    IllegalMove,
    PlayerLeft,
    Reason,
    SeatVacated,
    SetupError,
    apply,
    leave,
    next_game,
    pass_turn,
    settle,
    validate,
)


def test_under_play_out_the_leaver_is_on_auto_and_the_game_goes_on() -> None:
    table = later("southern", "3S 4S", "5D 6D", "7H 8H")
    table.leave(1)
    assert table.of(PlayerLeft) == [PlayerLeft(1, forfeit=False, place=0)]
    assert table.of(AutoPlay) == [AutoPlay(1, on=True)]
    assert table.state.departed == 0b010
    assert not table.over
    assert table.to_act == 0


def test_a_leavers_own_moves_are_refused_and_only_timeouts_play_it() -> None:
    table = later("southern", "3S 4S", "5D 6D", "7H 8H").leave(1)
    table.play(0, "3S")
    with pytest.raises(IllegalMove) as info:
        apply(table.state, pass_turn(1))
    assert info.value.reason == Reason.SEAT_LEFT
    table.timeout(1)  # the host plays its time-out
    assert table.to_act == 2
    assert table.state.auto == 0b010  # a leaver stays on auto


def test_a_leaver_is_settled_like_everyone_and_the_next_game_drops_its_seat() -> None:
    table = later("southern", "3S 4S", "5D AD", "7H 8H")
    table.play(0, "3S").play(1, "5D").play(2, "7H").leave(2)
    table.passes(0).play(1, "AD")  # seat 1 goes out first
    table.timeout(2)  # seat 2 passes; seat 0 passed this round: seat 2 leads
    table.timeout(2)  # and leads its lowest single, 8H, its last card: 2nd
    assert table.over
    assert table.places == (3, 1, 2)
    assert settle(table.state).net == (-200, 300, -100)
    nxt, events = next_game(table.state, seed=1)
    assert SeatVacated(2, "", -100) in events
    assert nxt.places[2] < 0  # empty
    with pytest.raises(SetupError) as info:
        changed(table.state, (0, 1, 2), seed=1)  # a host that lists the leaver as staying
    assert info.value.code == "SEAT_LEFT"


def test_a_leaver_whose_auto_play_wins_has_left_so_the_next_game_is_a_first_game() -> None:
    table = later("southern", "3S 4S", "5D 6D", "7H 8H")
    table.play(0, "3S").play(1, "5D").play(2, "7H").leave(2).passes(0, 1)
    table.timeout(2)  # seat 2, on auto, leads its last card: it wins
    assert table.state.winner == 2
    while not table.over:
        table.timeout(table.to_act)
    nxt, _ = next_game(table.state, seed=1)
    assert nxt.first_game


def test_a_seat_that_already_has_its_place_keeps_it_when_its_player_leaves() -> None:
    table = later("southern", "2S", "5D 6D", "7H 8H", leader=1)
    table.play(1, "5D").play(2, "7H").play(0, "2S").leave(0)  # seat 0 went out first
    assert table.of(PlayerLeft) == [PlayerLeft(0, forfeit=False, place=1)]
    assert table.state.places[0] == 1
    assert not table.of(AutoPlay)


def test_under_refuse_a_leave_is_refused_and_changes_nothing() -> None:
    table = later("southern", "3S 4S", "5D 6D", "7H 8H", options={"leave_mid_game": "refuse"})
    before = table.state
    for check in (apply, validate):
        with pytest.raises(IllegalMove) as info:
            check(table.state, leave(1))
        assert info.value.reason == Reason.LEAVE_REFUSED
    assert table.state == before


def test_a_leave_after_the_game_or_twice_is_refused() -> None:
    table = later("southern", "3S 4S", "5D 6D", "7H 8H").leave(1)
    with pytest.raises(IllegalMove) as info:
        apply(table.state, leave(1))
    assert info.value.reason == Reason.SEAT_LEFT
    over = later("southern", "3S", "5D").play(0, "3S")
    assert over.over
    with pytest.raises(IllegalMove) as info:
        apply(over.state, leave(1))
    assert info.value.reason == Reason.GAME_OVER
