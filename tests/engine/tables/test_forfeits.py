"""RULES §9.4 "Leaving during a game", `leave_mid_game` = forfeit [ours]: the seat stops at once,
takes the lowest place still open, keeps its cards, and pays as a player ending in that place
holding them; the game goes on for the others."""

from __future__ import annotations

from helpers.tables import Table, deal, later

from tienlen_rules import PlayerLeft, PlayersFrozen, TransferReason, settle

FORFEIT = {"leave_mid_game": "forfeit"}


def payments(table: Table) -> list[tuple[int, int, int, str]]:
    return [(t.payer, t.payee, t.amount, t.reason.value) for t in settle(table.state).transfers]


def test_a_forfeiter_takes_the_lowest_place_still_open_and_the_turn_moves_on() -> None:
    table = later("southern", "3S 4S", "5D 6D", "7H 8H", "9C 10C", options=FORFEIT)
    table.play(0, "3S").play(1, "5D").play(2, "7H").leave(3)  # seat 3 was to act
    assert table.of(PlayerLeft) == [PlayerLeft(3, forfeit=True, place=4)]
    assert table.places == (0, 0, 0, 4)
    assert table.state.hands[3]  # its cards stay in its hand
    assert table.to_act == 0  # the game goes on for the others
    table.leave(2)  # several forfeits: the first to leave is the very last
    assert table.places == (0, 0, 3, 4)


def test_when_one_seat_is_left_holding_cards_it_wins_and_unplayed_forfeiters_are_frozen() -> None:
    table = later("southern", "3S 4S", "5D 6D", "7H 8H", options=FORFEIT)
    table.leave(0)
    assert not table.over
    table.leave(1)
    assert table.over
    assert table.places == (3, 2, 1)
    # Nobody finished: cóng is judged as the game ends by forfeit (seats 0 and 1 never played).
    assert table.of(PlayersFrozen) == [PlayersFrozen((0, 1), (3, 2))]
    assert payments(table) == [(0, 2, 400, "FROZEN"), (1, 2, 400, "FROZEN")]


def test_a_forfeiter_that_played_pays_its_place_and_its_twos_rot_to_the_seat_above_it() -> None:
    table = later("southern", "3S 4S", "5D 6D", "7H 8H", "9C 2C 2D", options=FORFEIT)
    table.play(0, "3S").play(1, "5D").play(2, "7H").play(3, "9C").leave(3)
    while not table.over:
        table.timeout(table.to_act)
    assert table.places == (1, 2, 3, 4)
    # Last pays the winner L; 3rd pays 2nd; the forfeiter's 2C (1/2) and 2D (1) rot to 3rd.
    assert payments(table) == [
        (3, 0, 200, "PLACE"),
        (2, 1, 100, "PLACE"),
        (3, 2, 50, "ROTTEN"),
        (3, 2, 100, "ROTTEN"),
    ]


def test_a_forfeiters_rotten_cards_never_go_to_a_frozen_player() -> None:
    table = later("southern", "3S AS", "5D 6D", "7H 8H", "9C 2C", options=FORFEIT)
    table.play(0, "3S").passes(1).play(2, "7H").play(3, "9C").leave(3)
    table.play(0, "AS")  # seat 0 wins; seat 1 never played: frozen, 3rd (above the forfeiter)
    assert table.over
    assert table.places == (1, 3, 2, 4)
    assert table.state.frozen == 0b0010
    # Seat 1 pays as frozen; the forfeiter, who played, pays last's L whoever else is frozen,
    # and its 2C rots past the frozen seat 1 to seat 2.
    assert payments(table) == [(1, 0, 400, "FROZEN"), (3, 0, 200, "PLACE"), (3, 2, 50, "ROTTEN")]


def test_a_forfeiter_holding_the_starting_card_hands_the_lead_to_missing_starting_card() -> None:
    hands = ("4S 9H", "3S 5D", "6C 7C")
    table = deal("southern", *hands, options=FORFEIT)
    assert table.to_act == 1  # ♠3's holder
    table.leave(1)
    assert table.to_act == 0  # the lowest card still in play, 4S, leads and must be in it
    assert table.state.must_include == 4
    free = deal(
        "southern", *hands, options={**FORFEIT, "missing_starting_card": "lowest_card_free"}
    )
    free.leave(1)
    assert (free.to_act, free.state.must_include) == (0, -1)


def test_under_the_card_count_a_forfeiter_pays_as_a_loser_holding_its_cards() -> None:
    table = later("dem_la", "3S", "5D 6D 7D", "7H 8H", options=FORFEIT)
    table.leave(1)  # never played: frozen when seat 0 goes out, 3rd below the other frozen seat
    table.play(0, "3S")
    assert table.over
    assert table.places == (1, 3, 2)
    assert payments(table) == [(1, 0, 600, "FROZEN"), (2, 0, 400, "FROZEN")]


def test_a_frozen_seat_that_forfeits_keeps_its_place_and_its_payment() -> None:
    hands = ("3S 4S 9S", "5D 6D", "7H 8H 9H", "9C 10C")
    stays = later("southern", *hands, options=FORFEIT)
    script = (("play", 0, "3S"), ("play", 1, "5D"), ("play", 2, "7H"), ("pass", 3, ""))
    script += (("play", 0, "9S"), ("pass", 1, ""), ("pass", 2, ""), ("play", 0, "4S"))
    for kind, seat, cards in script:
        stays.play(seat, cards) if kind == "play" else stays.passes(seat)
    assert stays.state.frozen == 0b1000  # seat 0 went out first; seat 3 never played
    assert not stays.over
    leaves = later("southern", *hands, options=FORFEIT)
    for kind, seat, cards in script:
        leaves.play(seat, cards) if kind == "play" else leaves.passes(seat)
    leaves.leave(3)
    assert leaves.of(PlayerLeft) == [PlayerLeft(3, forfeit=True, place=4)]
    assert leaves.places == stays.places
    for table in (stays, leaves):
        while not table.over:
            table.timeout(table.to_act)
    assert settle(leaves.state) == settle(stays.state)


def test_stealing_stays_open_until_the_first_lead_when_the_leader_forfeits_before_it() -> None:
    table = later(
        "hue", "9S 10S", "JD QD", "3S 3C 4S 4C 5S 5C KH", "6H 7H", leader=0, options=FORFEIT
    )
    assert table.state.steal_open
    table.leave(0)  # the previous winner forfeits before its first lead
    assert table.to_act == 1
    assert table.state.steal_open
    table.play(2, "3S 3C 4S 4C 5S 5C")  # a steal, out of turn, before the first lead
    assert table.state.table is not None
    assert table.to_act == 3


def test_a_forfeiter_is_never_the_compensating_player() -> None:
    # Seat 0 leads a straight only seat 1 could beat; seat 1 passes (liable: đền bài) and then
    # forfeits; seat 0 wins with every opponent frozen, and nobody compensates.
    table = later("southern", "3S 4S 5S KH", "6S 7S 8S", "4C 4D 9D", "5C 5D 10D", options=FORFEIT)
    table.play(0, "3S 4S 5S").passes(1)
    assert table.state.compensation_seat == 1
    table.leave(1).passes(2, 3).play(0, "KH")
    assert table.over
    assert TransferReason.COMPENSATION not in {t.reason for t in settle(table.state).transfers}
    assert settle(table.state).next_leader is None
