"""The Python client at a table of people (RULES §9, docs/HOSTS.md), against a real server:
seat changes between games and the newcomers' seat tokens, time-outs and auto, leaves, bankrolls
and the loss cap, the host's chop seats, and every bad input raised as the client's typed error
with nothing changed."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from helpers.dealing import DEAL_KEY
from tienlen_client import (
    AutoPlay,
    Game,
    InvalidRequest,
    MoveRejected,
    Newcomer,
    PermissionDenied,
    PlayerLeft,
    SeatTaken,
    SeatVacated,
    TienLenClient,
    TimedOut,
)

HANDS = ["3S 9S KD", "4S 10S KH", "5S JS AS", "6S QS AD"]
"""Four short hands: seat 0 leads the 3 of spades; every seat can follow with a single."""

IDS = ["an", "binh", "chi", "dung"]


@pytest.fixture
def running(server_factory: Callable[..., Any]) -> Any:
    """A service that checks seat tokens (and has the tests' deal key)."""
    return server_factory(require_seat_tokens=True)


@pytest.fixture
def host(running: Any) -> Iterator[TienLenClient]:
    """The host: its client has the deal key."""
    with TienLenClient(running.address, deal_key=DEAL_KEY) as client:
        yield client


def finished(client: TienLenClient, game: Game) -> Game:
    """The game played out by time-outs (each seat passes or leads its lowest single)."""
    for _ in range(200):
        if game.finished:
            return game
        assert game.to_act is not None
        game = client.timeout(game, game.to_act)
    raise AssertionError("the game did not end")


def first_game_over(client: TienLenClient, **fields: Any) -> Game:
    """A first game of HANDS played through: seat 0 goes out first, on its king of diamonds."""
    game = client.new_game(hands=HANDS, player_ids=IDS, **fields)
    for seat, cards in ((0, "3S"), (1, "4S"), (2, "5S"), (3, "6S"), (0, "9S"), (1, "10S")):
        game = client.play(game, seat, cards)
    game = client.play(game, 2, "JS")
    game = client.play(game, 3, "QS")
    for seat in (0, 1):
        game = client.play(game, seat, "KD" if seat == 0 else "KH")
    return finished(client, game)


# --- seat changes between games ---------------------------------------------------------------


def test_a_leaver_and_a_newcomer_between_games(host: TienLenClient) -> None:
    """Seat 1's player leaves and "em" sits down there: em's total is 0 and its token is its
    own; the others' tokens and totals carry; the winner (seat 2) leads, as a person."""
    game = first_game_over(host)
    before = game
    winner = game.settlement.places.index(1) if game.settlement else -1
    game = host.next_game(game, seed=7, leaving=[1], joining=[Newcomer(seat=1, player_id="em")])
    assert [type(e) for e in game.events[:2]] == [SeatVacated, SeatTaken]
    vacated, taken = game.events[0], game.events[1]
    assert isinstance(vacated, SeatVacated)
    assert isinstance(taken, SeatTaken)
    assert (vacated.seat, vacated.player_id) == (1, "binh")
    assert vacated.total == before.settlement.net[1] if before.settlement else False
    assert (taken.seat, taken.player_id) == (1, "em")
    assert [s.player_id for s in game.view.seats] == ["an", "em", "chi", "dung"]
    assert game.view.seats[1].match_total == 0
    assert game.seat_tokens[1] not in ("", before.seat_tokens[1])
    assert [game.seat_tokens[s] for s in (0, 2, 3)] == [before.seat_tokens[s] for s in (0, 2, 3)]
    assert game.to_act == winner
    assert not game.view.first_game
    assert host.view(game, 1).seat == 1  # em's token opens em's seat
    with_binhs = dataclasses.replace(
        game, seat_tokens=(game.seat_tokens[0], before.seat_tokens[1], *game.seat_tokens[2:])
    )
    with pytest.raises(PermissionDenied) as refused:
        host.view(with_binhs, 1)
    assert refused.value.reason == "SEAT_TOKEN_INVALID"


def test_when_the_winner_leaves_the_next_game_is_a_first_game(host: TienLenClient) -> None:
    game = first_game_over(host)
    assert game.settlement is not None
    assert game.settlement.places[0] == 1
    game = host.next_game(game, seed=7, leaving=[0])
    assert game.view.first_game
    assert game.view.must_include == "3S"
    assert game.view.seats[0].empty
    assert game.seat_tokens[0] == ""
    assert game.players == 4
    assert sum(not s.empty for s in game.view.seats) == 3


def test_a_newcomer_may_take_a_seat_beyond_a_smaller_table(host: TienLenClient) -> None:
    game = host.new_game(hands=["3S 4S", "5S 6S"], player_ids=["an", "binh"])
    game = finished(host, game)
    game = host.next_game(game, seed=3, joining=[Newcomer(3, "dung")])
    assert game.players == 4
    assert [s.empty for s in game.view.seats] == [False, False, True, False]
    assert game.seat_tokens[2] == ""
    assert game.seat_tokens[3]


@pytest.mark.parametrize(
    ("changes", "error", "reason"),
    [
        ({"joining": [Newcomer(0, "em")]}, InvalidRequest, "SEAT_TAKEN"),
        ({"joining": [Newcomer(1, "an")], "leaving": [1]}, InvalidRequest, "DUPLICATE_PLAYER_ID"),
        ({"leaving": [0, 1, 2, 3]}, InvalidRequest, "NOBODY_STAYS"),
        ({"leaving": [0, 1, 2]}, InvalidRequest, "INVALID_PLAYER_COUNT"),
    ],
)
def test_bad_seat_changes_are_refused_and_change_nothing(
    host: TienLenClient,
    changes: dict[str, Any],
    error: type[Exception],
    reason: str,
) -> None:
    game = first_game_over(host)
    with pytest.raises(error) as refused:
        host.next_game(game, seed=7, **changes)
    assert getattr(refused.value, "reason", None) == reason
    assert host.next_game(game, seed=7).game_number == 2  # the finished game is as it was


def test_a_seat_change_during_a_game_is_refused(host: TienLenClient) -> None:
    game = host.new_game(hands=HANDS, player_ids=IDS)
    with pytest.raises(MoveRejected) as refused:
        host.next_game(game, leaving=[1])
    assert refused.value.reason == "GAME_NOT_OVER"


def test_leaving_a_seat_nobody_sits_in_is_refused_before_any_call(host: TienLenClient) -> None:
    game = host.next_game(first_game_over(host), seed=7, leaving=[3])
    game = finished(host, game)
    with pytest.raises(InvalidRequest) as refused:
        host.next_game(game, leaving=[3])
    assert (refused.value.reason, refused.value.metadata) == ("INVALID_SEAT", {"seat": "3"})


def test_a_table_of_dau_is_exactly_three(host: TienLenClient) -> None:
    game = finished(host, host.new_game("dau", hands=["3S 4S", "5S 6S", "7S 8S"]))
    with pytest.raises(InvalidRequest) as refused:
        host.next_game(game, leaving=[2])
    assert refused.value.reason == "INVALID_PLAYER_COUNT"


# --- bankrolls ---------------------------------------------------------------------------------


def test_a_bankroll_below_the_minimum_is_refused_naming_the_seat(host: TienLenClient) -> None:
    with pytest.raises(MoveRejected) as refused:
        host.new_game(
            "dem_la", players=4, player_ids=IDS, bankrolls=[5000, 5000, 5000, 1500], seed=1
        )
    assert refused.value.reason == "BANKROLL_TOO_LOW"
    assert (refused.value.metadata["seat"], refused.value.metadata["shortfall"]) == ("3", "500")


def test_a_negative_bankroll_is_refused(host: TienLenClient) -> None:
    with pytest.raises(InvalidRequest) as refused:
        host.new_game(hands=HANDS, bankrolls=[100, 100, -1, 100])
    assert refused.value.reason == "INVALID_BANKROLL"


def test_bankrolls_carry_and_a_newcomer_brings_its_own(host: TienLenClient) -> None:
    game = first_game_over(host, bankrolls=[5000, 5000, 5000, 5000])
    net = game.settlement.net if game.settlement else ()
    game = host.next_game(game, seed=7, leaving=[1], joining=[Newcomer(1, "em", 3000)])
    assert [s.bankroll for s in game.view.seats] == [
        5000 + net[0],
        3000,
        5000 + net[2],
        5000 + net[3],
    ]
    game = finished(host, game)
    game = host.next_game(game, seed=8, bankrolls=[6000, 6000, 6000, 6000])  # chips bought
    assert [s.bankroll for s in game.view.seats] == [6000] * 4


def test_a_cut_payment_says_what_was_owed(host: TienLenClient) -> None:
    """Seat 3 holds 100 chips and owes more: the loss cap cuts its payments (Transfer.owed)."""
    game = first_game_over(host, bankrolls=[5000, 5000, 5000, 100])
    assert game.settlement is not None
    cut = [t for t in game.settlement.transfers if t.owed]
    assert cut
    assert all(t.payer == 3 and t.amount < t.owed for t in cut)
    assert -game.settlement.net[3] <= 100


# --- time-outs, auto and leaves ----------------------------------------------------------------


def test_time_outs_in_a_row_put_a_seat_on_auto_and_its_own_move_takes_it_off(
    host: TienLenClient,
) -> None:
    game = host.new_game(hands=HANDS, player_ids=IDS)
    game = host.timeout(game, 0)  # seat 0 leads its lowest single: the 3 of spades
    assert [type(e) for e in game.events[:1]] == [TimedOut]
    assert game.view.played == ("3S",)
    assert game.view.seats[0].timeouts == 1
    for seat, cards in ((1, "4S"), (2, "5S"), (3, "6S")):
        game = host.play(game, seat, cards)
    game = host.timeout(game, 0)  # 2 in a row: on auto
    assert AutoPlay(0, on=True) in game.events
    assert game.view.seats[0].auto
    assert game.view.seats[0].timeouts == 2
    for seat in (1, 2):
        game = host.pass_turn(game, seat)
    game = host.play(game, 3, "QS")  # seat 3 won the round with its 6 of spades
    game = host.play(game, 0, "KD")  # seat 0's own move
    assert AutoPlay(0, on=False) in game.events
    assert not game.view.seats[0].auto
    assert game.view.seats[0].timeouts == 0


def test_a_time_out_for_a_seat_not_to_act_is_refused(host: TienLenClient) -> None:
    game = host.new_game(hands=HANDS)
    with pytest.raises(MoveRejected) as refused:
        host.timeout(game, 1)
    assert refused.value.reason == "NOT_YOUR_TURN"


def test_a_leave_plays_the_seat_out_on_auto_and_the_next_game_drops_it(
    host: TienLenClient,
) -> None:
    game = host.new_game(hands=HANDS, player_ids=IDS)
    game = host.leave(game, 3)
    assert PlayerLeft(3, forfeit=False, place=0) in game.events
    assert game.view.seats[3].left
    assert game.view.seats[3].auto
    game = host.play(game, 0, "3S")
    game = host.play(game, 1, "4S")
    game = host.play(game, 2, "5S")
    with pytest.raises(MoveRejected) as refused:
        host.play(game, 3, "6S")
    assert refused.value.reason == "SEAT_LEFT"
    game = finished(host, host.timeout(game, 3))
    game = host.next_game(game, seed=5)
    assert game.view.seats[3].empty
    assert game.seat_tokens[3] == ""
    assert isinstance(game.events[0], SeatVacated)


def test_a_leave_under_refuse_is_refused(host: TienLenClient) -> None:
    game = host.new_game(hands=HANDS, options={"leave_mid_game": "refuse"})
    with pytest.raises(MoveRejected) as refused:
        host.leave(game, 1)
    assert refused.value.reason == "LEAVE_REFUSED"


def test_a_forfeit_takes_the_lowest_place_at_once(host: TienLenClient) -> None:
    game = host.new_game(hands=HANDS, options={"leave_mid_game": "forfeit"})
    game = host.leave(game, 1)
    assert PlayerLeft(1, forfeit=True, place=4) in game.events
    assert game.view.seats[1].forfeited
    assert game.view.seats[1].place == 4


def test_time_outs_and_leaves_go_over_a_move_stream(host: TienLenClient) -> None:
    game = host.new_game(hands=HANDS, player_ids=IDS)
    with host.play_stream(update_view="basic") as stream:
        streamed = stream.timeout(game, 0)
        streamed = stream.leave(streamed, 2)
    unary = host.leave(host.timeout(game, 0), 2)
    assert streamed.view == unary.view
    assert streamed.events == unary.events


# --- the host's chop seats ----------------------------------------------------------------------

CHOP_HANDS = [
    "3S 2H KD",
    "4S 4C 5S 5C 6S 6C 7S 7C KH",
    "5D AS",
    "8S 8C 9S 9C 10S 10C JS JC QD",
]


def test_the_chop_seats_are_told_to_the_host_in_claim_order(running: Any) -> None:
    """After a 2, the seats holding 4 consecutive pairs could chop it out of turn: the host is
    told them (nearest after the 2's player first); a client without the deal key is not, on a
    service that checks seat tokens — but every client sees that the table is open to a chop."""
    with TienLenClient(running.address, deal_key=DEAL_KEY) as host:
        game = host.new_game(hands=CHOP_HANDS)
        for seat, cards in ((0, "3S"), (1, None), (2, "5D"), (3, "QD"), (0, "2H")):
            game = host.play(game, seat, cards) if cards else host.pass_turn(game, seat)
        assert (game.chop_seats, game.chop_open) == ((1, 3), True)
        assert host.view(game).chop_seats == (1, 3)
        with TienLenClient(running.address, deal_key="") as other:
            view = other.view(game)
            assert (view.chop_seats, view.chop_open) == ((), True)
            assert other.play(game, 1, "4S 4C 5S 5C 6S 6C 7S 7C").chop_seats == ()


def test_the_compare_and_set_keys_of_a_game(host: TienLenClient) -> None:
    game = host.new_game(hands=HANDS)
    after = host.play(game, 0, "3S")
    assert after.game_id == game.game_id
    assert len(game.game_id) > 0
    assert (game.game_number, game.move_number, after.move_number) == (1, 0, 1)
    following = host.next_game(finished(host, after), seed=1)
    assert (following.game_id, following.game_number, following.move_number) == (
        game.game_id,
        2,
        0,
    )
