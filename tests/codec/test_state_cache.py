"""The replica's state cache: a token it signed or verified is neither verified nor decoded
again, and what it refuses it does not remember."""

from __future__ import annotations

import threading

import pytest

import tienlen_rules as game
from tienlen_rules.ruleset import build_rules
from tienlen_service import codec
from tienlen_service.codec import StateDecodeError
from tienlen_service.state_cache import StateCache


class _Signer:
    """A stand-in token codec: a token is b"T" + payload; counts the verifications."""

    def __init__(self) -> None:
        self.verified = 0

    def sign(self, payload: bytes) -> bytes:
        return b"T" + payload

    def verify(self, token: bytes) -> bytes:
        self.verified += 1
        if not token.startswith(b"T"):
            raise ValueError("not a token")
        return token[1:]


def test_a_token_this_replica_signed_is_neither_verified_nor_decoded_again() -> None:
    cache, signer = StateCache(), _Signer()
    state, _ = game.new_game(build_rules("southern"), 4, seed=4)
    token = cache.encode(state, b"g", signer.sign)
    assert token == b"T" + codec.encode_state(state, b"g")
    hit = cache.decode(token, signer.verify)
    assert hit[0] is state  # remembered, not rebuilt
    assert hit == codec.decode_state(token[1:])
    assert signer.verified == 0


def test_a_verified_token_is_remembered_for_the_next_decode_of_the_same_token() -> None:
    cache, signer = StateCache(), _Signer()
    state, _ = game.new_game(build_rules("northern"), 4, seed=5)
    token = signer.sign(codec.encode_state(state, b"g"))  # another replica's
    first = cache.decode(token, signer.verify)
    assert first == (state, b"g")
    assert cache.decode(token, signer.verify)[0] is first[0]
    assert signer.verified == 1


def test_the_state_cache_forgets_the_oldest_state_beyond_its_size() -> None:
    cache, signer = StateCache(size=2), _Signer()
    states = [game.new_game(build_rules("southern"), 4, seed=s)[0] for s in range(3)]
    tokens = [cache.encode(s, b"g", signer.sign) for s in states]
    assert len(cache) == 2
    assert cache.decode(tokens[2], signer.verify)[0] is states[2]
    assert signer.verified == 0
    again = cache.decode(tokens[0], signer.verify)  # forgotten: verified and decoded anew
    assert again == (states[0], b"g")
    assert again[0] is not states[0]
    assert signer.verified == 1
    with pytest.raises(ValueError, match="at least one"):
        StateCache(size=0)


def test_a_refused_token_or_a_payload_that_holds_no_game_is_not_remembered() -> None:
    cache, signer = StateCache(), _Signer()
    with pytest.raises(ValueError, match="not a token"):
        cache.decode(
            b"X" + codec.encode_state(game.new_game(build_rules("southern"), 4, seed=1)[0], b"g"),
            signer.verify,
        )
    with pytest.raises(StateDecodeError):
        cache.decode(b"T\xff\xff\xff", signer.verify)
    assert len(cache) == 0


def test_threads_sharing_a_state_cache_get_their_own_states() -> None:
    cache, signer = StateCache(size=8), _Signer()
    states = [game.new_game(build_rules("southern"), 4, seed=s)[0] for s in range(40)]
    tokens = [signer.sign(codec.encode_state(s, b"g")) for s in states]
    errors: list[int] = []

    def work(offset: int) -> None:
        for i in range(400):
            k = (i * 7 + offset) % len(states)
            if cache.decode(tokens[k], signer.verify)[0] != states[k]:
                errors.append(k)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(cache) <= 8


def test_a_miss_and_only_a_miss_is_reported() -> None:
    """The servicer counts the misses (`tienlen_tokens_decoded_total`): a token this replica
    made, or one it checked already, is not one."""
    misses: list[int] = []
    cache, signer = StateCache(missed=lambda: misses.append(1)), _Signer()
    mine = cache.encode(game.new_game(build_rules("southern"), 4, seed=6)[0], b"g", signer.sign)
    other = signer.sign(
        codec.encode_state(game.new_game(build_rules("southern"), 4, seed=7)[0], b"h")
    )
    for token in (mine, other, other, mine):
        cache.decode(token, signer.verify)
    assert len(misses) == 1
