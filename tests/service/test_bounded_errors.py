"""Every refusal is bounded, whatever the caller sent.

An error often echoes the caller's input (an unknown variant, option or bot name). The status
travels in the trailers, which clients cap (grpc's soft limit is 8 KiB: past it a call fails
at random with RESOURCE_EXHAUSTED and no ErrorInfo, which a client then retries as if it
were transient). Names of 8, 12 and 16 KB — inside the server's request limit — must still be
refused with INVALID_ARGUMENT, their one ErrorInfo and their BadRequest, in a few KiB.
"""

from __future__ import annotations

import secrets
import urllib.parse
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from grpc_status import rpc_status
from helpers.dealing import DEAL_KEY

from tienlen.v1 import moves_pb2, rules_pb2, service_pb2, service_pb2_grpc
from tienlen_service.statuses import MAX_MESSAGE_BYTES, bounded
from tienlen_service.tokens import KeyRing

from .rich_status import Rich, rich

Stub = service_pb2_grpc.TienLenEngineStub
TIMEOUT = 10.0
TRAILER_BUDGET = 4096
"""Bytes the error may take in the trailers: half of grpc's 8 KiB soft limit."""

SIZES = (8_000, 12_000, 16_000)
# Multi-byte characters make the worst case: grpc-message percent-encodes every byte of them.
LETTERS = ("x", "Ư")


@pytest.fixture
def stub(server_factory: Callable[..., Any]) -> Iterator[Stub]:
    # A request limit above the largest name, so that the name reaches the servicer.
    running = server_factory(keyring=KeyRing([("k1", secrets.token_bytes(32))]),
                             max_request_bytes=256 * 1024)  # fmt: skip
    with grpc.insecure_channel(running.address) as channel:
        yield Stub(channel)


def long_name(size: int, letter: str) -> str:
    return letter * (size // len(letter.encode()))


def refused(call: Callable[..., Any], request: Any) -> tuple[Rich, int]:
    """The rich status of a refused call and the bytes its error takes in the trailers."""
    with pytest.raises(grpc.RpcError) as info:
        call(request, timeout=TIMEOUT)
    error = info.value
    status = rpc_status.from_call(error)
    assert status is not None
    encoded_message = urllib.parse.quote(status.message.encode(), safe=" ")
    details = len(status.SerializeToString()) * 4 // 3 + 4  # base64 in grpc-status-details-bin
    return rich(error), len(encoded_message) + details


def assert_bounded(result: tuple[Rich, int], reason: str, field: str) -> None:
    error, trailer_bytes = result
    assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, reason)
    (named,) = error.fields
    assert named.startswith(field)
    assert len(error.message.encode()) <= MAX_MESSAGE_BYTES
    assert trailer_bytes < TRAILER_BUDGET


@pytest.mark.parametrize("letter", LETTERS)
@pytest.mark.parametrize("size", SIZES)
def test_a_huge_variant_name_is_refused_typed_and_bounded(
    stub: Stub, size: int, letter: str
) -> None:
    request = service_pb2.NewGameRequest(
        rules=rules_pb2.RuleSetSpec(variant=long_name(size, letter))
    )
    assert_bounded(refused(stub.NewGame, request), "UNKNOWN_VARIANT", "rules.variant")


@pytest.mark.parametrize("letter", LETTERS)
@pytest.mark.parametrize("size", SIZES)
def test_a_huge_option_name_is_refused_typed_and_bounded(
    stub: Stub, size: int, letter: str
) -> None:
    request = service_pb2.NewGameRequest(
        rules=rules_pb2.RuleSetSpec(options={long_name(size, letter): "1"})
    )
    assert_bounded(refused(stub.NewGame, request), "UNKNOWN_OPTION", "rules.options")


@pytest.mark.parametrize("size", SIZES)
def test_a_huge_option_value_is_refused_typed_and_bounded(stub: Stub, size: int) -> None:
    request = service_pb2.NewGameRequest(
        rules=rules_pb2.RuleSetSpec(options={"stake": long_name(size, "Ư")})
    )
    error, trailer_bytes = refused(stub.NewGame, request)
    assert (error.code, error.fields) == (grpc.StatusCode.INVALID_ARGUMENT, ["rules.options.stake"])
    assert trailer_bytes < TRAILER_BUDGET


@pytest.mark.parametrize("letter", LETTERS)
@pytest.mark.parametrize("size", SIZES)
def test_a_huge_bot_name_is_refused_typed_and_bounded(stub: Stub, size: int, letter: str) -> None:
    token = stub.NewGame(service_pb2.NewGameRequest(seed=1), timeout=TIMEOUT).game.state_token
    request = service_pb2.SuggestMoveRequest(state_token=token, bot=long_name(size, letter))
    assert_bounded(refused(stub.SuggestMove, request), "UNKNOWN_BOT", "bot")


@pytest.mark.parametrize("size", SIZES)
def test_a_huge_seat_token_is_refused_typed_and_bounded(
    server_factory: Callable[..., Any], size: int
) -> None:
    running = server_factory(require_seat_tokens=True, max_request_bytes=256 * 1024)
    with grpc.insecure_channel(running.address) as channel:
        stub = Stub(channel)
        token = stub.NewGame(
            service_pb2.NewGameRequest(seed=1, deal_key=DEAL_KEY), timeout=TIMEOUT
        ).game.state_token
        request = service_pb2.ApplyMoveRequest(
            state_token=token,
            seat=0,
            seat_token=long_name(size, "Ư"),
            move=moves_pb2.Move(pass_turn=moves_pb2.Pass()),
        )
        error, trailer_bytes = refused(stub.ApplyMove, request)
    assert (error.code, error.reason) == (grpc.StatusCode.PERMISSION_DENIED, "SEAT_TOKEN_INVALID")
    assert trailer_bytes < TRAILER_BUDGET


def test_bounded_cuts_on_a_character_boundary_and_marks_the_cut() -> None:
    assert bounded("short") == "short"
    cut = bounded("Ư" * 1000, 101)
    assert len(cut.encode()) <= 101
    assert cut.endswith("…")
    assert set(cut[:-1]) == {"Ư"}
