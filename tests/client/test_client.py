"""The Python client `tienlen_client` against a real server over a real channel."""

from __future__ import annotations

import json
import threading
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import grpc
import pytest
from tienlen_client import (
    CardTextError,
    Combination,
    Game,
    GameOver,
    GameStarted,
    InstantWin,
    InvalidRequest,
    InvalidToken,
    MoveRejected,
    PermissionDenied,
    Played,
    PlayerFinished,
    PlayersFrozen,
    TienLenClient,
    TienLenError,
    TurnPassed,
    Unavailable,
    channel_target,
    service_config,
)

from tienlen.v1 import service_pb2
from tienlen_service.tokens import KeyRing

SERVICE = "tienlen.v1.TienLenEngine"
HANDS = ["3S 9S", "4S 10S", "5S JS", "6S QS"]


@pytest.fixture
def running(server_factory: Callable[..., Any]) -> Any:
    return server_factory()


@pytest.fixture
def client(running: Any) -> Iterator[TienLenClient]:
    with TienLenClient(running.address) as client:
        yield client


def play_out(client: TienLenClient, game: Game) -> Game:
    """Finish a game: each seat plays its lowest legal play, or passes when it has none."""
    for _ in range(500):
        if game.finished:
            return game
        seat = game.to_act
        assert seat is not None
        moves = client.legal_moves(game, seat)
        plays = [m for m in moves if not m.is_pass]
        game = client.play(game, seat, plays[0].cards) if plays else client.pass_turn(game, seat)
    raise AssertionError("the game did not end")


# --- the API of the issue ----------------------------------------------------------------------


def test_a_full_seeded_game_through_the_client_reaches_a_settlement(client: TienLenClient) -> None:
    game = client.new_game(variant="southern", players=4, seed=7)
    assert (game.to_act, game.finished, game.settlement) == (game.view.to_act, False, None)
    assert len(game.seat_tokens) == 4
    assert isinstance(game.state, bytes)
    game = play_out(client, game)
    assert game.finished
    assert game.to_act is None
    settlement = game.settlement
    assert settlement is not None
    assert sum(settlement.net) == 0
    assert settlement.zero_sum
    assert sorted(settlement.places) == [1, 2, 3, 4]
    assert settlement.transfers
    assert {t.reason for t in settlement.transfers} <= {
        "PLACE",
        "CHOP",
        "ROTTEN",
        "FROZEN",
        "COMPENSATION",
    }
    for transfer in settlement.transfers:
        assert transfer.amount > 0
        assert (
            settlement.places[transfer.payee] < settlement.places[transfer.payer]
            or transfer.reason == "CHOP"
        )


def test_the_same_seed_deals_the_same_game(client: TienLenClient) -> None:
    first = client.new_game(variant="southern", players=4, seed=11)
    second = client.new_game(variant="southern", players=4, seed=11)
    assert [client.view(first, s).hand for s in range(4)] == [
        client.view(second, s).hand for s in range(4)
    ]


def test_explicit_hands_and_a_leader(client: TienLenClient) -> None:
    game = client.new_game(variant="southern", hands=HANDS, first_game=False, leader=2)
    assert game.to_act == 2
    assert client.view(game, 2).hand == ("5S", "JS")
    game = client.new_game(variant="southern", hands=[h.split() for h in HANDS])
    assert game.to_act == 0
    assert game.view.must_include == "3S"


def test_options_by_name(client: TienLenClient) -> None:
    game = client.new_game(
        variant="hue", players=4, seed=1, options={"stake": 10, "freezing": False}
    )
    assert game.view.raw.rules.variant == "hue"
    assert dict(game.view.raw.rules.options) == {"stake": "10", "freezing": "false"}


def test_play_and_pass(client: TienLenClient) -> None:
    game = client.new_game(hands=HANDS)
    game = client.play(game, 0, ["3S"])
    assert game.to_act == 1
    assert game.view.table is not None
    assert game.view.table.cards == ("3S",)
    assert game.view.table.type == "SINGLE"
    assert game.events == (
        Played(0, Combination("SINGLE", 1, ("3S",)), False, False, False, 1),
        TurnPassed(1),
    )
    game = client.pass_turn(game, 1)
    assert game.view.seats[1].passed
    game = client.play(game, 2, "5S")
    assert game.view.table_seat == 2


def test_an_illegal_move_raises_move_rejected_with_its_reason(client: TienLenClient) -> None:
    game = client.new_game(hands=HANDS)
    with pytest.raises(MoveRejected) as info:
        client.play(game, 0, ["9S"])
    assert info.value.reason == "MUST_INCLUDE_STARTING_CARD"
    assert info.value.message
    assert info.value.code == grpc.StatusCode.FAILED_PRECONDITION
    with pytest.raises(MoveRejected) as info:
        client.pass_turn(game, 3)
    assert info.value.reason == "NOT_YOUR_TURN"
    assert info.value.metadata["seat"] == "3"


def test_validate_is_a_dry_run(client: TienLenClient) -> None:
    game = client.new_game(hands=HANDS)
    ok = client.validate(game, 0, ["3S"])
    assert ok.legal
    assert ok.combination is not None
    assert ok.combination.type == "SINGLE"
    bad = client.validate(game, 0, "9S")
    assert (bad.legal, bad.reason) == (False, "MUST_INCLUDE_STARTING_CARD")
    assert not client.validate(game, 0, None).legal  # the leader can't pass


def test_legal_moves_collects_every_page(client: TienLenClient) -> None:
    game = client.new_game(players=4, seed=5, first_game=False, leader=0)
    everything = client.legal_moves(game, 0)
    assert client.legal_moves(game, 0, page_size=3) == everything
    pairs = client.legal_moves(game, 0, combination_type="pair")
    assert pairs
    assert all(m.combination is not None and m.combination.type == "PAIR" for m in pairs)
    assert set(pairs) <= set(everything)


def test_views_show_only_the_seats_own_hand(client: TienLenClient) -> None:
    game = client.new_game(players=4, seed=3)
    spectator = client.view(game)
    assert spectator.seat is None
    assert spectator.hand == ()
    hands = [client.view(game, seat).hand for seat in range(4)]
    assert all(len(h) == 13 for h in hands)
    assert len({c for h in hands for c in h}) == 52
    assert game.view.hand == ()


def test_next_game(client: TienLenClient) -> None:
    game = play_out(client, client.new_game(players=2, seed=4))
    assert game.settlement is not None
    nxt = client.next_game(game)
    assert nxt.view.game_number == 2
    assert not nxt.finished
    assert nxt.seat_tokens == game.seat_tokens
    assert [s.match_total for s in nxt.view.seats] == list(game.settlement.net)
    explicit = client.next_game(game, hands=["3S 4S", "5S"])
    assert client.view(explicit, 1).hand == ("5S",)


def test_suggest_and_describe_rules(client: TienLenClient) -> None:
    rules = client.describe_rules()
    assert len(rules.variants) == 6
    assert [v.name for v in rules.variants][:2] == ["southern", "northern"]
    assert rules.variant("hue").overrides["starting_card"] == "3C"
    assert rules.variant("southern").values["starting_card"] == "3S"
    assert "starting_card" not in rules.variant("southern").overrides
    stake = rules.option("stake")
    assert (stake.default, stake.description != "") == ("100", True)
    assert rules.option("starting_card").choices == ("3S", "3C")
    assert rules.option("cards_per_hand").type == "INT"
    assert rules.option("cards_per_hand").maximum == 13
    assert set(rules.bots) == {"counting", "expert", "greedy", "montecarlo", "novice", "random"}
    with pytest.raises(InvalidRequest, match="unknown preset 'martian'; the presets are southern"):
        rules.variant("martian")
    with pytest.raises(InvalidRequest) as info:
        rules.option("colour")
    assert info.value.reason == "UNKNOWN_OPTION"
    game = client.new_game(hands=HANDS)
    suggestion = client.suggest(game, 0, "greedy")
    assert suggestion is not None
    assert suggestion.cards == ("3S",)
    assert client.suggest(game, 1, "greedy") is None  # not seat 1's turn, no out-of-turn play


# --- seat tokens, tokens and errors ------------------------------------------------------------


def test_seat_tokens_travel_with_the_game(
    server_factory: Callable[..., Any], tmp_path: Path
) -> None:
    deal_key = tmp_path / "deal-key"
    deal_key.write_text("client-test-deal-key-0123456789abcdef\n")
    running = server_factory(require_seat_tokens=True, deal_key_file=str(deal_key))
    # The host's client: its explicit deals carry the deal key.
    with TienLenClient(running.address, deal_key=deal_key.read_text().strip()) as client:
        game = client.new_game(hands=HANDS)
        game = client.play(game, 0, ["3S"])
        assert client.view(game, 1).hand == ("4S", "10S")
        assert client.legal_moves(game, 1)
        assert client.validate(game, 1, ["4S"]).legal
        stranger = Game(
            state=game.state,
            seat_tokens=(),
            to_act=game.to_act,
            finished=game.finished,
            settlement=None,
            events=(),
            view=game.view,
            raw=game.raw,
        )
        with pytest.raises(PermissionDenied) as info:
            client.play(stranger, 1, ["4S"])
        assert info.value.reason == "SEAT_TOKEN_INVALID"
        swapped = Game(
            state=game.state,
            seat_tokens=tuple(reversed(game.seat_tokens)),
            to_act=game.to_act,
            finished=game.finished,
            settlement=None,
            events=(),
            view=game.view,
            raw=game.raw,
        )
        with pytest.raises(PermissionDenied):
            client.view(swapped, 1)
        assert client.view(swapped).seat is None  # spectators need no token


def test_a_tampered_state_raises_invalid_token(client: TienLenClient) -> None:
    game = client.new_game(hands=HANDS)
    broken = bytearray(game.state)
    broken[-5] ^= 0xFF
    tampered = Game(bytes(broken), game.seat_tokens, 0, False, None, (), game.view, game.raw)
    with pytest.raises(InvalidToken) as info:
        client.play(tampered, 0, ["3S"])
    assert info.value.reason == "TOKEN_BAD_SIGNATURE"
    assert info.value.field_violations[0][0] == "state_token"


def test_bad_requests_raise_invalid_request(client: TienLenClient) -> None:
    with pytest.raises(InvalidRequest) as info:
        client.new_game(variant="martian")
    assert info.value.reason == "UNKNOWN_VARIANT"
    assert info.value.field_violations == (("rules.variant", info.value.field_violations[0][1]),)
    with pytest.raises(InvalidRequest) as info:
        client.new_game(options={"stake": "1"})
    assert info.value.reason == "FRACTIONAL_AMOUNT"


def test_card_text_is_checked_before_calling(client: TienLenClient) -> None:
    game = client.new_game(hands=HANDS)
    with pytest.raises(CardTextError) as info:
        client.play(game, 0, ["3X"])
    # The client's own error type, with the reason the service gives a card it can't read.
    assert isinstance(info.value, InvalidRequest)
    assert isinstance(info.value, TienLenError)
    assert (info.value.reason, info.value.text) == ("INVALID_CARD", "3X")
    assert info.value.message == "bad card '3X': unknown suit 'X'"
    with pytest.raises(CardTextError, match="unknown rank '1'"):
        client.validate(game, 0, "1S")
    with pytest.raises(ValueError, match="seed or explicit hands"):
        client.new_game(seed=1, hands=HANDS)


def test_a_seat_not_at_the_table_is_refused_before_the_call(client: TienLenClient) -> None:
    game = client.new_game(hands=HANDS)
    for call in (
        lambda: client.play(game, 4, ["3S"]),
        lambda: client.pass_turn(game, -1),
        lambda: client.legal_moves(game, 7),
        lambda: client.suggest(game, 4),
        lambda: client.view(game, 4),
    ):
        with pytest.raises(MoveRejected) as info:
            call()
        assert info.value.reason == "INVALID_SEAT"
        assert "its seats are 0 to 3" in info.value.message


def test_a_move_on_a_finished_game_is_refused_as_game_over(client: TienLenClient) -> None:
    game = client.new_game(hands=["3S", "4S 5S", "6S 7S", "8S 9S"])
    game = client.play(game, 0, "3S")  # out at once: the others are frozen, the game is over
    assert game.finished
    with pytest.raises(MoveRejected) as info:
        client.pass_turn(game, 1)
    assert info.value.reason == "GAME_OVER"
    assert "next_game" in info.value.message
    with client.play_stream() as stream, pytest.raises(MoveRejected, match="GAME_OVER"):
        stream.play(game, 1, ["4S"])


def test_game_events_are_records_of_what_happened(client: TienLenClient) -> None:
    game = client.new_game(hands=["3S", "4S 5S 2H", "6S 7S", "8S 9S"])
    assert game.events == (GameStarted(1, 0, "3S", True, 0, (1, 3, 2, 2)),)
    game = client.play(game, 0, "3S")
    assert game.events == (
        Played(0, Combination("SINGLE", 1, ("3S",)), False, False, False, 0),
        PlayerFinished(0, 1, False),
        PlayersFrozen((1, 2, 3), (2, 3, 4)),
        GameOver((1, 2, 3, 4)),
    )
    assert game.settlement is not None
    assert [(r.seat, r.cards) for r in game.settlement.rotten] == [(1, ("2H",))]
    dealt = client.new_game(hands=["3S 4S", "2S 2C 2D 2H", "6S 7S", "8S 9S"])
    assert InstantWin(1, "four_twos") in dealt.events


def test_a_game_repr_is_short_and_shows_no_token(client: TienLenClient) -> None:
    game = client.new_game(hands=HANDS)
    assert repr(game) == "Game(game 1, 4 players, to_act=0, cards_left=(2, 2, 2, 2))"
    game = client.play(game, 0, ["3S"])
    assert (
        repr(game)
        == "Game(game 1, 4 players, to_act=1, table='3S (single)', cards_left=(1, 2, 2, 2))"
    )
    assert game.seat_tokens[0] not in repr(game)


# --- channel: targets, load balancing, retries, deadlines --------------------------------------


def test_channel_targets() -> None:
    assert channel_target("localhost:50051") == "localhost:50051"
    assert channel_target(["127.0.0.1:1"]) == "127.0.0.1:1"
    assert channel_target(["127.0.0.1:1", "10.0.0.2:2"]) == "ipv4:///127.0.0.1:1,10.0.0.2:2"
    assert channel_target(["[::1]:1", "[::2]:2"]) == "ipv6:///[::1]:1,[::2]:2"
    with pytest.raises(ValueError, match="dns"):
        channel_target(["a.example:1", "b.example:2"])
    with pytest.raises(ValueError, match="no address"):
        channel_target([])


def test_the_service_config_retries_only_transient_codes_and_balances() -> None:
    config = json.loads(service_config())
    assert config["loadBalancingConfig"] == [{"round_robin": {}}]
    (method,) = config["methodConfig"]
    assert method["name"] == [{"service": SERVICE}]
    # CANCELLED too: a replica given SIGTERM cancels the calls grpcio had queued but not started.
    assert set(method["retryPolicy"]["retryableStatusCodes"]) == {
        "UNAVAILABLE",
        "RESOURCE_EXHAUSTED",
        "CANCELLED",
    }
    assert "healthCheckConfig" not in config


def test_the_service_config_watches_replica_health_when_asked() -> None:
    config = json.loads(service_config(health_check=True))
    assert config["healthCheckConfig"] == {"serviceName": SERVICE}


def handled(metrics_url: str) -> float:
    with urllib.request.urlopen(metrics_url, timeout=10) as response:
        text = response.read().decode()
    total = 0.0
    for line in text.splitlines():
        if line.startswith("grpc_server_handled_total") and 'grpc_method="DescribeRules"' in line:
            total += float(line.rpartition(" ")[2])
    return total


def test_several_addresses_are_balanced_round_robin(server_factory: Callable[..., Any]) -> None:
    keyring = KeyRing.generate()
    servers = [server_factory(keyring=keyring) for _ in range(2)]
    with TienLenClient([s.address for s in servers]) as client:
        for _ in range(20):
            client.describe_rules()
        game = client.new_game(hands=HANDS)  # a token from one replica works on the other
        for _ in range(4):
            game = client.play(
                game, game.to_act or 0, client.legal_moves(game, game.to_act or 0)[-1].cards
            )
    counts = [handled(s.metrics_url) for s in servers]
    assert all(c >= 5 for c in counts), counts
    assert sum(counts) == 20


class FlakyEngine:
    """DescribeRules fails with `code` and `message` `failures` times, then answers; NewGame
    blocks."""

    def __init__(self, code: grpc.StatusCode, failures: int, message: str = "try again") -> None:
        self.code = code
        self.message = message
        self.failures = failures
        self.calls = 0
        self.release = threading.Event()

    def describe(
        self, _request: service_pb2.DescribeRulesRequest, context: grpc.ServicerContext
    ) -> service_pb2.DescribeRulesResponse:
        self.calls += 1
        if self.calls <= self.failures:
            context.abort(self.code, self.message)
        return service_pb2.DescribeRulesResponse(bots=["ok"])

    def hold(
        self, _request: service_pb2.NewGameRequest, _context: grpc.ServicerContext
    ) -> service_pb2.NewGameResponse:
        self.release.wait(10)
        return service_pb2.NewGameResponse()

    def register(self, server: grpc.Server, *_args: object) -> Sequence[str]:
        handlers = {
            "DescribeRules": grpc.unary_unary_rpc_method_handler(
                self.describe,
                request_deserializer=service_pb2.DescribeRulesRequest.FromString,
                response_serializer=service_pb2.DescribeRulesResponse.SerializeToString,
            ),
            "NewGame": grpc.unary_unary_rpc_method_handler(
                self.hold,
                request_deserializer=service_pb2.NewGameRequest.FromString,
                response_serializer=service_pb2.NewGameResponse.SerializeToString,
            ),
        }
        server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE, handlers),))
        return (SERVICE,)


def test_unavailable_is_retried(server_factory: Callable[..., Any]) -> None:
    flaky = FlakyEngine(grpc.StatusCode.UNAVAILABLE, failures=2)
    running = server_factory(register=flaky.register)
    with TienLenClient(running.address) as client:
        assert client.describe_rules().bots == ("ok",)
    assert flaky.calls == 3


def test_other_codes_are_not_retried(server_factory: Callable[..., Any]) -> None:
    flaky = FlakyEngine(grpc.StatusCode.INVALID_ARGUMENT, failures=1)
    running = server_factory(register=flaky.register)
    with TienLenClient(running.address) as client, pytest.raises(InvalidRequest):
        client.describe_rules()
    assert flaky.calls == 1


# What gRPC reports for a call whose stream a proxy reset after the answer began (nginx, when the
# replica behind it dies mid-answer): the channel's retry policy cannot re-send it (committed).
RESET = "Received RST_STREAM with error code 2"


def test_a_call_whose_stream_was_reset_is_sent_again(server_factory: Callable[..., Any]) -> None:
    flaky = FlakyEngine(grpc.StatusCode.INTERNAL, failures=2, message=RESET)
    running = server_factory(register=flaky.register)
    with TienLenClient(running.address) as client:
        assert client.describe_rules().bots == ("ok",)
    assert flaky.calls == 3


def test_a_reset_call_is_sent_at_most_max_attempts_times(
    server_factory: Callable[..., Any],
) -> None:
    flaky = FlakyEngine(grpc.StatusCode.INTERNAL, failures=100, message=RESET)
    running = server_factory(register=flaky.register)
    with TienLenClient(running.address, max_attempts=3) as client:
        with pytest.raises(TienLenError) as info:
            client.describe_rules()
        assert info.value.code == grpc.StatusCode.INTERNAL
    assert flaky.calls == 3


def test_the_services_own_internal_error_is_not_sent_again(
    server_factory: Callable[..., Any],
) -> None:
    flaky = FlakyEngine(grpc.StatusCode.INTERNAL, failures=1, message="internal error")
    running = server_factory(register=flaky.register)
    with TienLenClient(running.address) as client, pytest.raises(TienLenError):
        client.describe_rules()
    assert flaky.calls == 1


def test_one_attempt_means_no_retry_policy_and_calls_work(
    server_factory: Callable[..., Any],
) -> None:
    config = json.loads(service_config(1))
    assert "retryPolicy" not in config["methodConfig"][0]  # gRPC refuses maxAttempts below 2
    flaky = FlakyEngine(grpc.StatusCode.UNAVAILABLE, failures=1)
    running = server_factory(register=flaky.register)
    with TienLenClient(running.address, max_attempts=1) as client:
        with pytest.raises(Unavailable):
            client.describe_rules()
        assert flaky.calls == 1  # not retried
        assert client.describe_rules().bots == ("ok",)
    with pytest.raises(ValueError, match="at least 1"):
        TienLenClient(running.address, max_attempts=0)


def test_retries_give_up_after_max_attempts(server_factory: Callable[..., Any]) -> None:
    flaky = FlakyEngine(grpc.StatusCode.UNAVAILABLE, failures=100)
    running = server_factory(register=flaky.register)
    with TienLenClient(running.address, max_attempts=3) as client, pytest.raises(Unavailable):
        client.describe_rules()
    assert flaky.calls == 3


def test_every_call_has_a_deadline(server_factory: Callable[..., Any]) -> None:
    flaky = FlakyEngine(grpc.StatusCode.OK, failures=0)
    running = server_factory(register=flaky.register)
    try:
        with (
            TienLenClient(running.address, timeout=0.3) as client,
            pytest.raises(Unavailable) as info,
        ):
            client.new_game(players=4)
        assert info.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
    finally:
        flaky.release.set()


def test_every_call_carries_a_new_request_id() -> None:
    from tienlen_client.request_ids import REQUEST_ID_HEADER, request_metadata

    ids = {dict(request_metadata())[REQUEST_ID_HEADER] for _ in range(1000)}
    assert len(ids) == 1000
    assert all(len(i) == 32 and int(i, 16) >= 0 for i in ids)


class _MetadataSpy:
    """The client's stub, recording each unary call's method and metadata."""

    def __init__(self, stub: Any) -> None:
        self._stub = stub
        self.sent: list[tuple[str, dict[str, str]]] = []

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._stub, name)

        def call(request: Any, **kwargs: Any) -> Any:
            self.sent.append((name, dict(kwargs.get("metadata") or ())))
            return method(request, **kwargs)

        return call


def test_every_call_about_a_game_names_it_for_the_balancer(client: TienLenClient) -> None:
    """Calls on a game carry its id (`tienlen-game-id`, hexadecimal), which a balancer hashes
    to send a game's calls to one replica (deploy/README.md, Affinity); a call that starts a
    game names none."""
    from tienlen_client.request_ids import GAME_ID_HEADER

    spy = _MetadataSpy(client._stub)
    client._stub = spy
    game = client.new_game(hands=["3S 9S", "4S 10S", "5S JS", "6S QS"], leader=0)
    client.validate(game, 0, ["3S"])
    client.legal_moves(game, 0)
    client.view(game, 0)
    game = client.play(game, 0, ["3S"])
    client.suggest(game, 1)
    named = {name: sent.get(GAME_ID_HEADER) for name, sent in spy.sent}
    game_id = game.raw.game_id.hex()
    assert len(game_id) == 32
    assert named == {
        "NewGame": None,
        "ValidateMove": game_id,
        "ListLegalMoves": game_id,
        "GetView": game_id,
        "ApplyMove": game_id,
        "SuggestMove": game_id,
    }
