"""A replay can't pass as a deal: a replayed match says so everywhere, and for good.

ReplayGame needs no key: anyone may replay any record, four 2s in their own hand included. So
the match it starts is marked replayed in its state token, and every answer made from it says
so: the view, the update (even without its view), the settlement, and every game NextGame
deals on from it (a replay stays a replay). Its match totals are what the games before it
could have paid: a record of game 1 starts from zero (docs/SECURITY.md, *Who deals*).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest

from tienlen.v1 import game_pb2, service_pb2, service_pb2_grpc
from tienlen_rules import build_rules
from tienlen_service import records

from .rich_status import fails
from .test_replay import TIMEOUT, hand, move, short_game

Stub = service_pb2_grpc.TienLenEngineStub


@pytest.fixture
def stub(server_factory: Callable[..., Any]) -> Iterator[Stub]:
    running = server_factory()
    with grpc.insecure_channel(running.address) as channel:
        yield Stub(channel)


def view_of(stub: Stub, token: bytes) -> game_pb2.TableView:
    request = service_pb2.GetViewRequest(state_token=token)
    return stub.GetView(request, timeout=TIMEOUT).view


def test_a_replayed_match_says_so_in_every_answer_and_every_next_game(stub: Stub) -> None:
    replayed = stub.ReplayGame(
        service_pb2.ReplayGameRequest(record=short_game()), timeout=TIMEOUT
    ).game
    assert replayed.finished
    assert (replayed.replayed, replayed.view.replayed, replayed.settlement.replayed) == (
        True,
        True,
        True,
    )
    assert view_of(stub, replayed.state_token).replayed  # the token carries it
    following = stub.NextGame(
        service_pb2.NextGameRequest(state_token=replayed.state_token), timeout=TIMEOUT
    ).game
    assert following.game_number == 2
    assert following.replayed
    assert following.view.replayed
    assert view_of(stub, following.state_token).replayed


def test_a_replayed_game_played_on_stays_replayed_without_its_view(stub: Stub) -> None:
    unfinished = short_game(moves=[move(0, "3S")])
    basic = service_pb2.ReplayGameRequest(record=unfinished, view=game_pb2.UPDATE_VIEW_BASIC)
    game = stub.ReplayGame(basic, timeout=TIMEOUT).game
    assert not game.HasField("view")
    assert game.replayed
    request = service_pb2.ApplyMoveRequest(
        state_token=game.state_token, seat=1, view=game_pb2.UPDATE_VIEW_BASIC
    )
    request.move.play.cards.extend(hand("4S").cards)
    assert stub.ApplyMove(request, timeout=TIMEOUT).game.replayed


def test_a_dealt_match_is_not_replayed(stub: Stub) -> None:
    game = stub.NewGame(service_pb2.NewGameRequest(), timeout=TIMEOUT).game
    assert not game.replayed
    assert not game.view.replayed
    assert not view_of(stub, game.state_token).replayed


def test_a_record_of_a_first_game_starts_its_match_from_zero(stub: Stub) -> None:
    # The record: four 2s in the poster's hand and totals of +-9.2e15 at game 1.
    record = short_game(
        hands=[hand("2S 2C 2D 2H 3S"), hand("4S 10S")],
        match_totals=[records.MAX_MATCH_TOTAL, -records.MAX_MATCH_TOTAL],
    )
    refusal = fails(stub.ReplayGame, service_pb2.ReplayGameRequest(record=record))
    assert (refusal.code, refusal.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_ARGUMENT")
    assert refusal.fields == ["record.match_totals[0]"]
    assert records.total_bound(1, build_rules("southern")) == 0


def test_a_records_totals_are_at_most_what_the_games_before_could_pay(stub: Stub) -> None:
    bound = records.total_bound(3, build_rules("southern"))
    assert 0 < bound < records.MAX_MATCH_TOTAL
    fine = short_game(game_number=3, match_totals=[bound, -bound])
    assert stub.ReplayGame(service_pb2.ReplayGameRequest(record=fine), timeout=TIMEOUT).game
    past = short_game(game_number=3, match_totals=[bound + 1, -bound - 1])
    refusal = fails(stub.ReplayGame, service_pb2.ReplayGameRequest(record=past))
    assert refusal.fields == ["record.match_totals[0]"]
