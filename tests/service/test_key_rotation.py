"""A key rotation keeps the matches in progress (docs/SECURITY.md, *Keys and their rotation*).

The documented rotation, run on three replicas one at a time: (1) the new key added second,
(2) moved first, (3) the old key removed. A match started before it is played across every
step, with sealed tokens and seat tokens required, on whichever replica is next, and no call
is refused: its seat tokens are keyed by the match's secret (carried, sealed, in the state),
not by the key that signed the state. A finished game's next deal is the same from any token
of it, whichever key signed it. The metric says when the old key can go, for state tokens and
seat tokens alike; a match older than match secrets still needs the key its seat tokens were
minted under, and the metric shows it.
"""

from __future__ import annotations

import re
import secrets
import urllib.request
from collections.abc import Callable
from itertools import cycle
from typing import Any

import grpc

import tienlen_rules as engine
from tienlen.v1 import service_pb2, service_pb2_grpc
from tienlen_service import codec
from tienlen_service.game_ids import GameId
from tienlen_service.tokens import MATCH_KEYED, KeyRing, TokenCodec

Stub = service_pb2_grpc.TienLenEngineStub
TIMEOUT = 20.0
OLD = KeyRing.new_spec_entry("old")
NEW = KeyRing.new_spec_entry("new")
#: The rotation's steps, as every replica's keys after it (the first key signs).
STEPS = ((OLD,), (OLD, NEW), (NEW, OLD), (NEW,))
REPLICAS = 3


class Cluster:
    """Three replicas, each restarted in turn with the keys of the next step."""

    def __init__(self, server_factory: Callable[..., Any]) -> None:
        self._start = server_factory
        self.replicas = [self._started(STEPS[0]) for _ in range(REPLICAS)]
        self.channels = [grpc.insecure_channel(r.address) for r in self.replicas]

    def _started(self, keys: tuple[str, ...]) -> Any:
        ring = KeyRing.from_spec(",".join(keys))
        return self._start(keyring=ring, seal=True, require_sealed=True, require_seat_tokens=True)

    def restart(self, index: int, keys: tuple[str, ...]) -> None:
        self.replicas[index].handle.stop(0, 0)
        self.channels[index].close()
        self.replicas[index] = self._started(keys)
        self.channels[index] = grpc.insecure_channel(self.replicas[index].address)

    def stub(self, index: int) -> Stub:
        return Stub(self.channels[index])

    def close(self) -> None:
        for channel in self.channels:
            channel.close()


def counted(replica: Any, name: str) -> dict[str, float]:
    """A replica's counts of `name` by key id."""
    with urllib.request.urlopen(replica.metrics_url, timeout=TIMEOUT) as response:
        text = response.read().decode()
    pattern = rf'^{name}_total\{{kid="([^"]+)"\}} (\S+)$'
    return {kid: float(value) for kid, value in re.findall(pattern, text, re.MULTILINE)}


def move(stub: Stub, token: bytes, seat: int, seat_token: str) -> service_pb2.ApplyMoveRequest:
    """The seat's first listed play (its pass when it has none), as a request."""
    listing = stub.ListLegalMoves(
        service_pb2.ListLegalMovesRequest(
            state_token=token, seat=seat, seat_token=seat_token, page_size=2
        ),
        timeout=TIMEOUT,
    )
    plays = [m.move for m in listing.moves if not m.move.HasField("pass_turn")]
    chosen = plays[0] if plays else listing.moves[0].move
    return service_pb2.ApplyMoveRequest(
        state_token=token, seat=seat, seat_token=seat_token, move=chosen
    )


def test_a_match_is_played_across_every_step_of_a_rotation_on_three_replicas(
    server_factory: Callable[..., Any],
) -> None:
    cluster = Cluster(server_factory)
    turns = cycle(range(REPLICAS))
    started = cluster.stub(0).NewGame(service_pb2.NewGameRequest(players=4), timeout=TIMEOUT)
    seat_tokens = list(started.seat_tokens)
    game = started.game
    moves_made = 0

    def play_on(index: int) -> None:
        nonlocal game, moves_made
        if game.finished:
            request = service_pb2.NextGameRequest(state_token=game.state_token)
            game = cluster.stub(index).NextGame(request, timeout=TIMEOUT).game
            return
        stub, seat = cluster.stub(index), game.to_act
        validate = move(stub, game.state_token, seat, seat_tokens[seat])
        check = service_pb2.ValidateMoveRequest(
            state_token=validate.state_token,
            seat=seat,
            seat_token=validate.seat_token,
            move=validate.move,
        )
        assert stub.ValidateMove(check, timeout=TIMEOUT).legal
        game = stub.ApplyMove(validate, timeout=TIMEOUT).game
        moves_made += 1

    for keys in STEPS[1:]:
        for index in range(REPLICAS):
            cluster.restart(index, keys)
            for _ in range(2 * REPLICAS):  # every replica, in this mix of keys
                play_on(next(turns))
    cluster.close()
    assert moves_made >= 3 * REPLICAS * 2 * REPLICAS - 3  # NextGame took a turn or so at most

    # Every replica now holds the new key alone: none needs the old one for either token.
    for replica in cluster.replicas:
        assert "old" not in counted(replica, "tienlen_tokens_verified")
        seats = counted(replica, "tienlen_seat_tokens_verified")
        assert set(seats) == {"new", MATCH_KEYED}
        assert seats["new"] == 0  # the match's seat tokens need no key


def finished_state() -> tuple[engine.GameState, GameId]:
    """A Southern game played to its end (greedy moves), and a new match's id and secret."""
    state, _ = engine.new_game(engine.build_rules("southern"), 4, seed=7)
    while not state.over:
        move = engine.suggest_move(state, state.to_act) or engine.pass_turn(state.to_act)
        state, _ = engine.apply(state, move)
    return state, codec.new_game_id()


def test_any_token_of_a_finished_game_deals_the_same_next_game_whichever_key_signed_it(
    server_factory: Callable[..., Any],
) -> None:
    both = KeyRing.from_spec(f"{OLD},{NEW}")
    replica = server_factory(keyring=both)
    state, game_id = finished_state()
    payload = codec.encode_state(state, game_id)
    by_old = TokenCodec(KeyRing.from_spec(f"{OLD},{NEW}"), seal=False).encode(payload)
    by_new = TokenCodec(KeyRing.from_spec(f"{NEW},{OLD}"), seal=False).encode(payload)
    assert by_old != by_new
    with grpc.insecure_channel(replica.address) as channel:
        stub = Stub(channel)
        deals = []
        for token in (by_old, by_new):
            request = service_pb2.NextGameRequest(
                state_token=token, random=service_pb2.RandomDeal()
            )
            following = stub.NextGame(request, timeout=TIMEOUT).game
            views = [
                stub.GetView(
                    service_pb2.GetViewRequest(state_token=following.state_token, seat=seat),
                    timeout=TIMEOUT,
                ).view
                for seat in range(4)
            ]
            deals.append([[(c.rank, c.suit) for c in v.hand] for v in views])
    assert deals[0] == deals[1]


def test_a_match_older_than_match_secrets_shows_which_key_its_seat_tokens_need(
    server_factory: Callable[..., Any],
) -> None:
    # Its state carries no secret: its seat tokens were minted under the old key, which the
    # metric must keep showing as needed until the match is over.
    ring = KeyRing.from_spec(f"{NEW},{OLD}")
    replica = server_factory(keyring=ring, require_seat_tokens=True)
    older = TokenCodec(KeyRing.from_spec(OLD), seal=False)
    state, _ = engine.new_game(engine.build_rules("southern"), 4, seed=3)
    plain_id = secrets.token_bytes(16)
    token = older.encode(codec.encode_state(state, plain_id))
    seat = state.to_act
    with grpc.insecure_channel(replica.address) as channel:
        request = service_pb2.GetViewRequest(
            state_token=token, seat=seat, seat_token=older.seat_token(plain_id, seat)
        )
        assert Stub(channel).GetView(request, timeout=TIMEOUT).view.seat == seat
    assert counted(replica, "tienlen_seat_tokens_verified") == {
        "new": 0.0,
        "old": 1.0,
        MATCH_KEYED: 0.0,
    }
