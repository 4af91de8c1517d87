"""Every answer that carries a state says which one: game id, game number, move number.

The service is stateless: it accepts any genuine token, an old one too, so whoever holds an
older token can play from it again (a replay, or a fork of the game). Only the host can refuse
that, by keeping the latest state of each game; these fields make that a compare-and-set:
(game_number, move_number) grows by one with every accepted move, per game id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest

from tienlen.v1 import cards_pb2, game_pb2, moves_pb2, service_pb2, service_pb2_grpc
from tienlen_service import codec

Stub = service_pb2_grpc.TienLenEngineStub
TIMEOUT = 10.0
HANDS = ("3S 9S", "4S 10S", "5S JS", "6S QS")
PASS = moves_pb2.Move(pass_turn=moves_pb2.Pass())


def play(*cards: str) -> moves_pb2.Move:
    return moves_pb2.Move(play=moves_pb2.Play(cards=[codec.card_from_text(c) for c in cards]))


@pytest.fixture
def stub(server_factory: Callable[..., Any]) -> Iterator[Stub]:
    running = server_factory()
    with grpc.insecure_channel(running.address) as channel:
        yield Stub(channel)


def new_game(stub: Stub, hands: tuple[str, ...] = HANDS) -> game_pb2.GameUpdate:
    deal = service_pb2.ExplicitDeal(
        hands=[cards_pb2.Hand(cards=[codec.card_from_text(c) for c in h.split()]) for h in hands]
    )
    request = service_pb2.NewGameRequest(explicit=deal, leader=0)
    return stub.NewGame(request, timeout=TIMEOUT).game


def apply(stub: Stub, game: game_pb2.GameUpdate, seat: int, move: moves_pb2.Move) -> Any:
    request = service_pb2.ApplyMoveRequest(
        state_token=game.state_token, seat=seat, move=move, view=game_pb2.UPDATE_VIEW_BASIC
    )
    return stub.ApplyMove(request, timeout=TIMEOUT).game


def version(game: game_pb2.GameUpdate) -> tuple[bytes, int, int]:
    return game.game_id, game.game_number, game.move_number


def test_each_accepted_move_adds_one_to_the_move_number_of_the_same_game(stub: Stub) -> None:
    game = new_game(stub)
    assert len(game.game_id) == 16
    assert (game.game_number, game.move_number) == (1, 0)
    moves = [(0, play("3S")), (1, play("4S")), (2, play("5S")), (3, play("6S")), (0, play("9S"))]
    for number, (seat, move) in enumerate(moves, start=1):
        game = apply(stub, game, seat, move)
        assert version(game)[1:] == (1, number)


def test_next_game_keeps_the_id_and_counts_the_game(stub: Stub) -> None:
    game = new_game(stub, ("3S", "4S"))
    first_id = game.game_id
    game = apply(stub, game, 0, play("3S"))
    assert game.finished
    after = stub.NextGame(
        service_pb2.NextGameRequest(state_token=game.state_token, seed=2), timeout=TIMEOUT
    ).game
    assert version(after) == (first_id, 2, 0)


def test_a_replayed_token_is_accepted_but_its_answer_says_it_is_stale(stub: Stub) -> None:
    # The probe: the same move from the same token, twice. The service accepts both;
    # the second answer names the same (game, move number) as the first, so a host that
    # compare-and-sets its latest state refuses it.
    game = new_game(stub)
    first = apply(stub, game, 0, play("3S"))
    again = apply(stub, game, 0, play("3S"))
    assert version(first) == version(again) == (game.game_id, 1, 1)
    # A fork: two different moves from one token, both accepted, both move number 2.
    played = apply(stub, first, 1, play("4S"))
    passed = apply(stub, first, 1, PASS)
    assert played.state_token != passed.state_token
    assert version(played) == version(passed) == (game.game_id, 1, 2)


def test_a_refused_move_changes_no_number(stub: Stub) -> None:
    game = new_game(stub)
    with pytest.raises(grpc.RpcError):
        apply(stub, game, 1, PASS)
    assert apply(stub, game, 0, play("3S")).move_number == 1
