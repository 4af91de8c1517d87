"""Only the host chooses a deal, and nobody re-deals a game until the hands suit them.

The attack (issue 24): with ``--seal --require-seat-tokens``, a player holding only a finished
state token and its seat token called NextGame with `explicit` hands and got game 2 of the same
match (same game id, move 0) dealt as asked, which the host's compare-and-set accepts; and
NextGame with a random deal, asked again and again, let a player keep the deal it liked.

Now a seeded or explicit deal (NewGame and NextGame) needs the host's deal key
(``--deal-key-file``, sent in `deal_key`); where seat tokens are checked and there is no deal
key, only random deals are dealt. A random next deal is fixed by the finished game.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from tienlen.v1 import cards_pb2, moves_pb2, service_pb2, service_pb2_grpc
from tienlen_rules import parse_cards
from tienlen_service import codec
from tienlen_service.tokens import KeyRing

from .rich_status import rich

Stub = service_pb2_grpc.TienLenEngineStub
WAIT = 20.0
DEAL_KEY = "test-deal-key-0123456789abcdefghij"

# Seat 0 holds four 2s: an instant win (tứ quý heo) for whoever dealt it, the caller's dream.
RIGGED = [
    "2S 2C 2D 2H 3S 4S 5S 6S 7S 8S 9S 10S JS",
    "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC QS",
    "3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD KS",
    "3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH AS",
]
# A game seat 0 wins at once by playing its one card (three seats hold the rest).
QUICK = ["3S", "4S 5S", "6S 7S", "8S 9S"]


def cards(text: str) -> list[cards_pb2.Card]:
    """Wire cards of a card text ("3S 4S")."""
    return codec.cards_to_pb(sum(1 << card for card in parse_cards(text)))


def hands(texts: list[str]) -> service_pb2.ExplicitDeal:
    return service_pb2.ExplicitDeal(hands=[cards_pb2.Hand(cards=cards(text)) for text in texts])


@pytest.fixture
def deal_key_file(tmp_path: Path) -> Path:
    path = tmp_path / "deal-key"
    path.write_text(DEAL_KEY + "\n", encoding="utf-8")
    return path


@pytest.fixture
def channel_to(server_factory: Callable[..., Any]) -> Iterator[Callable[..., Stub]]:
    channels: list[grpc.Channel] = []

    def start(**settings: Any) -> Stub:
        running = server_factory(seal=True, require_seat_tokens=True, **settings)
        channel = grpc.insecure_channel(running.address)
        channels.append(channel)
        return Stub(channel)

    yield start
    for channel in channels:
        channel.close()


def finished_game(stub: Stub, deal_key: str) -> tuple[service_pb2.GameUpdate, list[str]]:
    """The host deals QUICK; seat 0 plays out: a finished game and its seat tokens."""
    dealt = stub.NewGame(
        service_pb2.NewGameRequest(players=4, explicit=hands(QUICK), deal_key=deal_key),
        timeout=WAIT,
    )
    game, tokens = dealt.game, list(dealt.seat_tokens)
    assert game.to_act == 0
    played = stub.ApplyMove(
        service_pb2.ApplyMoveRequest(
            state_token=game.state_token,
            seat=0,
            seat_token=tokens[0],
            move=moves_pb2.Move(play=moves_pb2.Play(cards=cards("3S"))),
        ),
        timeout=WAIT,
    ).game
    assert played.finished
    return played, tokens


def dealt_hands(stub: Stub, game: service_pb2.GameUpdate, tokens: list[str]) -> tuple[bytes, ...]:
    """Every seat's hand of `game` (each seat's own view, with its seat token)."""
    views = [
        stub.GetView(
            service_pb2.GetViewRequest(
                state_token=game.state_token, seat=seat, seat_token=tokens[seat]
            ),
            timeout=WAIT,
        ).view
        for seat in range(len(tokens))
    ]
    return tuple(cards_pb2.Hand(cards=view.hand).SerializeToString() for view in views)


def refused(call: Callable[[], Any]) -> Any:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return rich(info.value)


def test_a_player_with_a_finished_token_cannot_deal_the_next_game_explicit_or_seeded(
    channel_to: Callable[..., Stub], deal_key_file: Path
) -> None:
    stub = channel_to(deal_key_file=str(deal_key_file))
    game, _ = finished_game(stub, DEAL_KEY)
    token = game.state_token
    for request in (
        service_pb2.NextGameRequest(state_token=token, explicit=hands(RIGGED)),
        service_pb2.NextGameRequest(state_token=token, seed=7),
        service_pb2.NextGameRequest(
            state_token=token, explicit=hands(RIGGED), deal_key="not-the-deal-key-0123456789"
        ),
    ):
        error = refused(lambda r=request: stub.NextGame(r, timeout=WAIT))
        assert (error.code, error.reason) == (
            grpc.StatusCode.PERMISSION_DENIED,
            "DEAL_NOT_ALLOWED",
        )
        assert error.fields == ["deal_key"]


def test_without_a_deal_key_a_service_that_checks_seat_tokens_deals_only_at_random(
    channel_to: Callable[..., Stub], deal_key_file: Path
) -> None:
    ring = KeyRing([("k1", secrets.token_bytes(32))])
    # --seal --require-seat-tokens and no --deal-key-file: nobody can prove it is the host.
    stub = channel_to(keyring=ring, deal_key_file=None)
    for new_game in (
        service_pb2.NewGameRequest(players=4, explicit=hands(RIGGED)),
        service_pb2.NewGameRequest(players=4, seed=7),
        service_pb2.NewGameRequest(players=4, seed=7, deal_key=DEAL_KEY),
    ):
        error = refused(lambda r=new_game: stub.NewGame(r, timeout=WAIT))
        assert (error.code, error.reason) == (
            grpc.StatusCode.PERMISSION_DENIED,
            "DEAL_NOT_ALLOWED",
        )
    assert stub.NewGame(service_pb2.NewGameRequest(players=4), timeout=WAIT).game.game_number == 1
    # A finished game of the same deployment (dealt by a replica that has the host's key).
    host = channel_to(keyring=ring, deal_key_file=str(deal_key_file))
    game, _ = finished_game(host, DEAL_KEY)
    for request in (
        service_pb2.NextGameRequest(state_token=game.state_token, explicit=hands(RIGGED)),
        service_pb2.NextGameRequest(state_token=game.state_token, seed=7),
        service_pb2.NextGameRequest(state_token=game.state_token, seed=7, deal_key=DEAL_KEY),
    ):
        error = refused(lambda r=request: stub.NextGame(r, timeout=WAIT))
        assert (error.code, error.reason) == (
            grpc.StatusCode.PERMISSION_DENIED,
            "DEAL_NOT_ALLOWED",
        )
    following = stub.NextGame(
        service_pb2.NextGameRequest(state_token=game.state_token), timeout=WAIT
    ).game
    assert following.game_number == 2


def test_new_game_seeded_or_explicit_needs_the_deal_key_where_the_service_has_one(
    channel_to: Callable[..., Stub], deal_key_file: Path
) -> None:
    stub = channel_to(deal_key_file=str(deal_key_file))
    error = refused(
        lambda: stub.NewGame(
            service_pb2.NewGameRequest(players=4, explicit=hands(RIGGED)), timeout=WAIT
        )
    )
    assert error.reason == "DEAL_NOT_ALLOWED"
    error = refused(
        lambda: stub.NewGame(
            service_pb2.NewGameRequest(players=4, seed=7, deal_key=DEAL_KEY[:-1] + "X"),
            timeout=WAIT,
        )
    )
    assert error.reason == "DEAL_NOT_ALLOWED"


def test_the_host_with_the_deal_key_still_deals_explicit_hands_and_seeds(
    channel_to: Callable[..., Stub], deal_key_file: Path
) -> None:
    stub = channel_to(deal_key_file=str(deal_key_file))
    game, tokens = finished_game(stub, DEAL_KEY)
    # White space around the key (a file's newline, a copy-paste) does not matter.
    explicit = stub.NextGame(
        service_pb2.NextGameRequest(
            state_token=game.state_token, explicit=hands(RIGGED), deal_key=f" {DEAL_KEY}\n"
        ),
        timeout=WAIT,
    ).game
    assert explicit.game_number == 2
    assert dealt_hands(stub, explicit, tokens) == tuple(
        cards_pb2.Hand(cards=cards(text)).SerializeToString() for text in RIGGED
    )
    seeded = [
        stub.NextGame(
            service_pb2.NextGameRequest(state_token=game.state_token, seed=7, deal_key=DEAL_KEY),
            timeout=WAIT,
        ).game
        for _ in range(2)
    ]
    assert seeded[0].game_number == 2
    assert dealt_hands(stub, seeded[0], tokens) == dealt_hands(stub, seeded[1], tokens)


def test_next_game_asked_twice_deals_the_same_random_hands(
    channel_to: Callable[..., Stub], deal_key_file: Path
) -> None:
    stub = channel_to(deal_key_file=str(deal_key_file))
    game, tokens = finished_game(stub, DEAL_KEY)
    for deal in ({}, {"random": service_pb2.RandomDeal()}):
        answers = [
            stub.NextGame(
                service_pb2.NextGameRequest(state_token=game.state_token, **deal), timeout=WAIT
            ).game
            for _ in range(3)
        ]
        seen = {dealt_hands(stub, a, tokens) for a in answers}
        assert len(seen) == 1, "NextGame re-dealt the same finished game"
        assert {a.game_number for a in answers} == {2}
        assert {a.to_act for a in answers} == {answers[0].to_act}


def test_the_next_random_deals_of_a_match_differ_from_game_to_game(
    channel_to: Callable[..., Stub], deal_key_file: Path
) -> None:
    # Fixed by the game and its match, not one deal for every match: game 2 of two matches
    # is dealt apart.
    stub = channel_to(deal_key_file=str(deal_key_file))
    first, tokens = finished_game(stub, DEAL_KEY)
    second, other_tokens = finished_game(stub, DEAL_KEY)
    game2 = stub.NextGame(
        service_pb2.NextGameRequest(state_token=first.state_token), timeout=WAIT
    ).game
    other2 = stub.NextGame(
        service_pb2.NextGameRequest(state_token=second.state_token), timeout=WAIT
    ).game
    assert dealt_hands(stub, game2, tokens) != dealt_hands(stub, other2, other_tokens)


def test_a_deal_key_is_long_read_from_its_file_and_never_shown(tmp_path: Path) -> None:
    from tienlen_service.keys import DealKey, KeyConfigError

    with pytest.raises(KeyConfigError, match="at least 22"):
        DealKey("short")
    with pytest.raises(KeyConfigError, match="cannot read"):
        DealKey.from_file(tmp_path / "missing")
    path = tmp_path / "deal-key"
    path.write_text(f"\n{DEAL_KEY}\n", encoding="utf-8")
    key = DealKey.from_file(path)
    assert key.check(DEAL_KEY)
    assert not key.check(DEAL_KEY + "x")
    assert not key.check("")
    assert DEAL_KEY not in repr(key)
