"""RULES §9.1 "Who sits at the table": seats that empty and fill between games, the previous
winner followed as a person, a first game again when the winner leaves, the dealer."""

from __future__ import annotations

import pytest
from helpers.seating import FOUR, changed, four_finished
from helpers.tables import Table, cards, deal, later

from tienlen_rules import (
    Newcomer,
    SeatTaken,
    SeatVacated,
    SetupError,
    build_rules,
    new_game,
    next_game,
    settle,
)
from tienlen_rules.deal import deal as deal_cards
from tienlen_rules.deal import seeded_randbelow
from tienlen_rules.state import EMPTY_SEAT


def test_seat_numbers_never_change_and_a_left_seat_stays_empty() -> None:
    state = four_finished()
    nxt, events = changed(state, (0, 2, 3), seed=1)
    assert nxt.players == 4
    assert nxt.places[1] == EMPTY_SEAT
    assert nxt.hands[1] == 0
    assert [h.bit_count() for h in nxt.hands] == [13, 0, 13, 13]
    assert SeatVacated(1, "", -100) in events


def test_a_newcomers_total_starts_at_0_and_the_leavers_total_is_final() -> None:
    state = four_finished()  # nets: seat 3 +200, seat 0 +100, seat 1 -100, seat 2 -200
    assert settle(state).net == (100, -100, -200, 200)
    nxt, events = changed(state, (0, 2, 3), Newcomer(1, "lan"), seed=1)
    assert nxt.match.totals == (100, 0, -200, 200)
    assert events[:2] == (SeatVacated(1, "", -100), SeatTaken(1, "lan"))
    assert nxt.match.player_ids == ("", "lan", "", "")
    assert nxt.match.occupants[1] != 0  # a newcomer is another person: another seat token


def test_a_newcomer_may_take_a_seat_beyond_the_match_first_table() -> None:
    state = later("southern", "3S 4S", "9C 10C").play(0, "3S").passes(1).play(0, "4S").state
    assert state.over
    nxt, _ = changed(state, (0, 1), Newcomer(3, "kim"), seed=4)
    assert nxt.players == 4
    assert nxt.places == (0, 0, EMPTY_SEAT, 0)
    assert nxt.match.totals == (400, -400, 0, 0)  # seat 1 never played: frozen, 2L


def test_empty_seats_are_skipped_in_turn_order_and_in_the_place_count() -> None:
    state = four_finished()
    # Seat 1 leaves: seats 0, 2, 3 play a three-player game (seat 3, the winner, leads).
    nxt, _ = changed(state, (0, 2, 3), hands=[cards("3C 5S"), 0, cards("7D 9D"), cards("4H JH")])
    table = Table(nxt)
    assert table.to_act == 3
    table.play(3, "4H")
    assert table.to_act == 0  # seat 1 is empty: after seat 3 comes seat 0
    table.play(0, "5S")
    assert table.to_act == 2
    table.play(2, "7D").play(3, "JH")  # seat 3 goes out first
    table.passes(0, 2).play(0, "3C")  # seat 0 second; seat 2 is last of three
    assert table.over
    assert table.places == (2, EMPTY_SEAT, 3, 1)
    # Three players: last pays the winner L = 2 stakes, 2nd pays the winner 1 (RULES §8).
    assert settle(table.state).net == (-100, 0, -200, 300)


def test_the_previous_winner_leads_the_next_game_whoever_else_left_or_joined() -> None:
    state = four_finished()
    nxt, _ = changed(state, (1, 3), Newcomer(0, "an"), Newcomer(2, "binh"), seed=2)
    assert not nxt.first_game
    assert nxt.to_act == 3
    assert nxt.must_include == -1


def test_a_newcomer_in_the_winners_old_seat_does_not_inherit_the_lead() -> None:
    state = four_finished()
    nxt, _ = changed(state, (0, 1, 2), Newcomer(3, "chi"), seed=2)
    assert nxt.first_game  # the winner left: a first game again
    holder = next(s for s in range(4) if nxt.hands[s] & cards("3S"))
    assert nxt.to_act == holder
    assert nxt.must_include == cards("3S").bit_length() - 1


def test_first_game_again_when_nobody_but_the_previous_winner_stayed() -> None:
    state = four_finished()
    nxt, _ = changed(state, (3,), Newcomer(0, "a"), Newcomer(1, "b"), seed=3)
    assert nxt.first_game
    assert nxt.must_include == 0  # ♠3 leads


def test_with_the_option_off_the_next_occupied_seat_after_the_departed_winner_leads() -> None:
    state = four_finished(first_game_when_winner_leaves=False)
    nxt, _ = changed(state, (1, 2), Newcomer(0, "new"), seed=3)
    assert not nxt.first_game
    assert nxt.to_act == 0  # after seat 3 (gone, empty): seat 0, a newcomer
    assert nxt.must_include == -1
    nxt, _ = changed(state, (0, 1, 2), Newcomer(3, "new"), seed=3)
    assert nxt.to_act == 0  # the newcomer in the winner's seat does not lead


def test_with_the_option_off_the_lead_of_a_departed_winner_may_be_stolen() -> None:
    state = four_finished("hue", first_game_when_winner_leaves=False)
    nxt, _ = changed(state, (0, 1, 2), seed=3)
    assert not nxt.first_game
    assert nxt.steal_open  # cướp cái is open against the leader as against a winner


def test_hue_plays_a_first_game_again_with_the_three_of_clubs() -> None:
    state = four_finished("hue")
    hands = [cards("3S 4S"), cards("5H 3C"), cards("6D 6S 6C"), 0]
    nxt, _ = changed(state, (0, 1, 2), hands=hands)
    assert nxt.first_game
    assert nxt.must_include == cards("3C").bit_length() - 1
    assert nxt.to_act == 1  # the ♣3 holder, not the ♠3 holder
    assert not nxt.steal_open  # no cướp cái in a first game


def test_dem_la_draws_the_first_game_leader_again_over_the_occupied_seats_only() -> None:
    # Đếm lá ends at the first finish: seat 1 goes out and wins.
    state = later("dem_la", "3S 4S", "9C", "7H 8H", "5D 6D").play(0, "3S").play(1, "9C").state
    assert state.over
    assert state.winner == 1
    leaders = set()
    for seed in range(40):
        nxt, _ = changed(state, (0, 2), seed=seed)  # the winner, seat 1, left
        assert nxt.first_game
        assert nxt.must_include == -1  # a random leader leads with anything
        assert nxt.places[1] == EMPTY_SEAT
        assert nxt.places[3] == EMPTY_SEAT
        leaders.add(nxt.to_act)
    assert leaders == {0, 2}


def test_dau_keeps_its_three_seats() -> None:
    dau = deal("dau", "3S 4S", "5D 6D", "7H 8H", first_game=False, leader=0)  # short explicit hands
    dau.play(0, "3S").play(1, "5D").play(2, "7H").passes(0, 1).play(2, "8H")
    dau.passes(0, 1).play(0, "4S")
    assert dau.over
    nxt, events = changed(dau.state, (0, 2), Newcomer(1, "new"), seed=5)
    assert [h.bit_count() for h in nxt.hands].count(18) == 1
    assert SeatTaken(1, "new") in events
    with pytest.raises(SetupError) as info:
        changed(dau.state, (0, 2), seed=5)
    assert info.value.code == "INVALID_PLAYER_COUNT"
    with pytest.raises(SetupError) as info:
        changed(dau.state, (0, 1), Newcomer(3, "x"), seed=5)
    assert info.value.code == "INVALID_SEAT"  # Đấu's table has 3 seats


def test_a_seeded_deal_gives_the_occupied_seats_their_hands_in_seat_order() -> None:
    state = four_finished()
    nxt, _ = changed(state, (0, 2, 3), seed=77)
    # The match's second game from seed 77 deals three hands, to seats 0, 2 and 3 in order.
    three = deal_cards(build_rules("southern"), 3, seeded_randbelow(77, 2), 0)
    assert (nxt.hands[0], nxt.hands[2], nxt.hands[3]) == three


def test_the_dealer_of_a_first_game_a_seat_change_made_is_the_lowest_occupied_seat() -> None:
    state = four_finished()
    nxt, _ = changed(state, (1, 2), Newcomer(3, "d"), seed=6)
    assert nxt.match.dealer == 1


def test_the_dealer_is_the_winner_when_it_stays_and_rotation_counts_from_the_old_dealer() -> None:
    state = four_finished()
    nxt, _ = changed(state, (0, 3), seed=6)
    assert nxt.match.dealer == 3
    rotating = four_finished(dealer_rotation="next_seat")
    nxt, _ = changed(rotating, (0, 2, 3), seed=6)  # dealer 0 -> seat 1, empty -> seat 2
    assert rotating.match.dealer == 0
    assert nxt.match.dealer == 2


def test_a_busted_seat_ends_a_northern_match_only_if_it_stays() -> None:
    # Northern follows suit: seat 0 goes out first, then 1, then 2; seat 3 is last.
    northern = later("northern", *FOUR, options={"match_bankroll": 150})
    northern.play(0, "3S").passes(1, 2, 3).play(0, "4S").passes(1, 2, 3)
    northern.play(1, "5D").passes(2, 3).play(1, "6D").passes(2, 3)
    northern.play(2, "7H").passes(3).play(2, "8H")
    assert northern.over
    net = settle(northern.state).net
    busted = [s for s, n in enumerate(net) if 150 + n < 0]
    assert busted == [3]  # last pays L = 200 chips: 150 - 200 < 0
    with pytest.raises(SetupError) as info:
        next_game(northern.state, seed=1)
    assert info.value.code == "MATCH_OVER"
    staying = tuple(s for s in range(4) if s not in busted)
    newcomers = tuple(Newcomer(s, f"n{s}") for s in busted)
    nxt, _ = changed(northern.state, staying, *newcomers, seed=1)
    assert all(nxt.match.totals[s] == 0 for s in busted)


@pytest.mark.parametrize(
    ("staying", "newcomers", "code"),
    [
        ((0, 1, 2, 3), (Newcomer(2, "x"),), "SEAT_TAKEN"),  # a newcomer in an occupied seat
        ((0, 1), (Newcomer(2, "a"), Newcomer(3, "a")), "DUPLICATE_PLAYER_ID"),
        ((0,), (), "INVALID_PLAYER_COUNT"),  # a table below 2
        ((0, 1), (Newcomer(4, "e"),), "INVALID_SEAT"),  # no seat 4 at a table of 4
        ((0, 0, 1), (), "INVALID_SEAT"),  # the same seat twice
        ((), (Newcomer(0, "a"), Newcomer(1, "b")), "NOBODY_STAYS"),  # that is a new match
        ((0, 1), (Newcomer(2, "n"), Newcomer(2, "m")), "SEAT_TAKEN"),
    ],
)
def test_a_seat_change_the_rules_refuse_changes_nothing(
    staying: tuple[int, ...], newcomers: tuple[Newcomer, ...], code: str
) -> None:
    state = four_finished()
    before = state
    with pytest.raises(SetupError) as info:
        changed(state, staying, *newcomers, seed=1)
    assert info.value.code == code
    assert state == before


def test_a_seat_change_during_a_game_is_refused() -> None:
    table = later("southern", *FOUR)
    with pytest.raises(SetupError) as info:
        changed(table.state, (0, 1, 2))
    assert info.value.code == "GAME_NOT_OVER"


def test_player_ids_of_a_new_match_are_one_per_seat_and_distinct() -> None:
    ruleset = build_rules("southern")
    state, _ = new_game(ruleset, 3, seed=1, player_ids=["a", "b", ""])
    assert state.match.player_ids == ("a", "b", "")
    for ids, code in ((["a", "a", "c"], "DUPLICATE_PLAYER_ID"), (["a", "b"], "INVALID_PLAYER_IDS")):
        with pytest.raises(SetupError) as info:
            new_game(ruleset, 3, seed=1, player_ids=ids)
        assert info.value.code == code
