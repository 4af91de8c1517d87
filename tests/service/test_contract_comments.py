"""More promises of the contract's comments (`protos/tienlen/v1/*.proto`), over a real channel.

Each test is named after one sentence of a proto comment that the other service tests and the
golden conversations do not pin down (audit of every comment against the behaviour).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest

from tienlen.v1 import service_pb2

from .rich_status import fails
from .test_contract_promises import Stub, deal, new_game, spec

GOP_3 = {"starting_card_every_game": "true"}


@pytest.fixture
def stub(server_factory: Callable[..., Any]) -> Iterator[Stub]:
    with grpc.insecure_channel(server_factory().address) as channel:
        yield Stub(channel)


# --- NewGameRequest.leader ---------------------------------------------------------------------


def test_with_gop_3_the_starting_card_holder_leads_every_game_and_no_other_leader_is_taken(
    stub: Stub,
) -> None:
    """NewGameRequest.leader: where the starting card's holder leads (a first game, or every
    game with starting_card_every_game, góp 3) the leader may be left unset or given as that
    seat; another seat is refused with INVALID_LEADER, never silently replaced."""
    hands = deal("4S 9S", "3S 10S")
    for leader in ({}, {"leader": 1}):
        game = new_game(stub, rules=spec(**GOP_3), explicit=hands, first_game=False, **leader).game
        started = game.events[0].game_started
        assert (started.leader, game.to_act, started.first_game) == (1, 1, False)
        assert not started.HasField("must_include")  # góp 3: the holder leads with any play
    error = fails(
        stub.NewGame,
        service_pb2.NewGameRequest(rules=spec(**GOP_3), explicit=hands, first_game=False, leader=0),
    )
    assert (error.code, error.reason, error.fields) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_LEADER",
        ["leader"],
    )
    # Without góp 3 a game that is not a first game is led by the given leader.
    assert new_game(stub, explicit=hands, first_game=False, leader=0).game.to_act == 0
