"""A deployment may cap the age of its tokens (`--max-token-age`); its tokens then carry their
issue time.

A stateless service can't tell a replayed old token from the latest (docs/SECURITY.md): the
host keeps the latest. What the service can do is bound how long any token lives: a token
older than the maximum age is refused with TOKEN_EXPIRED. Without a maximum age tokens carry no
issue time (they stay a pure function of the state) and are read everywhere; where an age
limit is set, a token without an issue time is refused.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from tienlen.v1 import service_pb2, service_pb2_grpc
from tienlen_rules import build_rules, new_game
from tienlen_service import codec
from tienlen_service.tokens import ISSUED_BYTES, KeyRing, TokenCodec, TokenError, TokenReason

from .rich_status import fails

TIMEOUT = 10.0
MATERIAL = secrets.token_bytes(32)
RING = KeyRing([("k1", MATERIAL)])
NOON = 1_780_000_000.0


def clock_at(when: float) -> Callable[[], float]:
    return lambda: when


def first_format_token(payload: bytes, deployment: str = "tienlen") -> bytes:
    """A version-1 token (no issue time), made by hand from the documented layout."""
    mac_key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=b"tienlen mac").derive(
        MATERIAL
    )
    dep = deployment.encode()
    prefix = bytes((1, 0, 2)) + b"k1" + bytes([len(dep)]) + dep + payload
    return prefix + hmac.new(mac_key, prefix, hashlib.sha256).digest()


def test_a_token_carries_its_issue_time_in_seconds_under_the_tag() -> None:
    token = TokenCodec(RING, seal=False, max_age=60, clock=clock_at(NOON + 0.7)).encode(b"payload")
    at = 3 + 2 + 1 + len("tienlen")
    assert int.from_bytes(token[at : at + ISSUED_BYTES], "big") == int(NOON)
    forged = bytearray(token)
    forged[at + ISSUED_BYTES - 1] ^= 1  # a younger issue time: the tag no longer verifies
    with pytest.raises(TokenError) as refused:
        TokenCodec(RING, seal=False).decode(bytes(forged))
    assert refused.value.reason == TokenReason.TOKEN_BAD_SIGNATURE


def test_admit_refuses_a_token_older_than_the_maximum_age_and_names_its_key() -> None:
    token = TokenCodec(RING, seal=True, max_age=60, clock=clock_at(NOON)).encode(b"payload")
    young = TokenCodec(RING, seal=True, max_age=60, clock=clock_at(NOON + 60))
    assert young.decode(token) == b"payload"
    assert young.admit(token) == "k1"
    old = TokenCodec(RING, seal=True, max_age=60, clock=clock_at(NOON + 61))
    with pytest.raises(TokenError) as refused:
        old.admit(token)
    assert refused.value.reason == TokenReason.TOKEN_EXPIRED
    assert "61 s old" in refused.value.message
    assert TokenCodec(RING, seal=True, clock=clock_at(NOON + 10**6)).admit(token) == "k1"


def test_unstamped_tokens_are_read_and_refused_only_under_an_age_limit() -> None:
    token = first_format_token(b"payload")
    assert TokenCodec(RING, seal=False).encode(b"payload") == token  # no limit: no stamp
    assert TokenCodec(RING, seal=False).decode(token) == b"payload"
    assert TokenCodec(RING, seal=False).admit(token) == "k1"
    limited = TokenCodec(RING, seal=False, max_age=3600)
    assert limited.decode(token) == b"payload"
    with pytest.raises(TokenError) as refused:
        limited.admit(token)
    assert refused.value.reason == TokenReason.TOKEN_EXPIRED


@pytest.fixture
def stub(server_factory: Callable[..., Any]) -> Any:
    running = server_factory(keyring=RING, max_token_age=3600)
    with grpc.insecure_channel(running.address) as channel:
        yield service_pb2_grpc.TienLenEngineStub(channel)


def state_payload() -> bytes:
    state, _ = new_game(build_rules("southern"), 4, seed=5)
    return codec.encode_state(state, codec.new_game_id())


def made_at(when: float) -> bytes:
    return TokenCodec(RING, seal=False, max_age=3600, clock=clock_at(when)).encode(state_payload())


def test_the_service_refuses_an_expired_token_on_every_call_typed(stub: Any) -> None:
    fresh = made_at(time.time())
    stub.GetView(service_pb2.GetViewRequest(state_token=fresh), timeout=TIMEOUT)
    own = stub.NewGame(service_pb2.NewGameRequest(seed=1), timeout=TIMEOUT).game.state_token
    assert own[0] == 2  # stamped: this deployment limits token age
    stub.GetView(service_pb2.GetViewRequest(state_token=own), timeout=TIMEOUT)
    for token in (made_at(time.time() - 7200), first_format_token(state_payload())):
        for call, request in (
            (stub.GetView, service_pb2.GetViewRequest(state_token=token)),
            (stub.ApplyMove, service_pb2.ApplyMoveRequest(state_token=token)),
            (stub.NextGame, service_pb2.NextGameRequest(state_token=token)),
            (stub.SuggestMove, service_pb2.SuggestMoveRequest(state_token=token)),
        ):
            error = fails(call, request)
            assert (error.code, error.reason, error.fields) == (
                grpc.StatusCode.INVALID_ARGUMENT,
                "TOKEN_EXPIRED",
                ["state_token"],
            )
