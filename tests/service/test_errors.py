"""Every error path of the service: its gRPC code, its single ErrorInfo and its BadRequest.

Errors follow the rich error model: a status code, exactly one google.rpc.ErrorInfo (domain
"tienlen.v1", reason = a stable code) and, for malformed input, a google.rpc.BadRequest naming
the field. Tokens that are tampered with, truncated, foreign or from another deployment are
refused with their own TOKEN_* reason; a seat token used for another seat is PERMISSION_DENIED.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from helpers.dealing import DEAL_KEY

from tienlen.v1 import cards_pb2, moves_pb2, rules_pb2, service_pb2, service_pb2_grpc, state_pb2
from tienlen_rules import new_game
from tienlen_rules.revisions import RULES_REVISION
from tienlen_rules.ruleset import build_rules
from tienlen_service import codec
from tienlen_service.tokens import KeyRing, TokenCodec

from .rich_status import Rich, fails

Stub = service_pb2_grpc.TienLenEngineStub
TIMEOUT = 10.0
PASS = moves_pb2.Move(pass_turn=moves_pb2.Pass())
RANK_99 = cards_pb2.Rank.ValueType(99)  # an enum number the contract does not define
SPADES = cards_pb2.SUIT_SPADES


def card(text: str) -> cards_pb2.Card:
    return codec.card_from_text(text)


def play(*texts: str) -> moves_pb2.Move:
    return moves_pb2.Move(play=moves_pb2.Play(cards=[card(t) for t in texts]))


def deal(*hands: str) -> service_pb2.ExplicitDeal:
    return service_pb2.ExplicitDeal(
        hands=[cards_pb2.Hand(cards=[card(t) for t in h.split()]) for h in hands]
    )


@pytest.fixture
def material() -> bytes:
    return secrets.token_bytes(32)


@pytest.fixture
def keyring(material: bytes) -> KeyRing:
    return KeyRing([("k1", material)])


@pytest.fixture
def start(server_factory: Callable[..., Any], keyring: KeyRing) -> Iterator[Callable[..., Stub]]:
    channels: list[grpc.Channel] = []

    def make(**settings: Any) -> Stub:
        settings.setdefault("keyring", keyring)
        running = server_factory(**settings)
        channel = grpc.insecure_channel(running.address)
        channels.append(channel)
        return Stub(channel)

    yield make
    for channel in channels:
        channel.close()


@pytest.fixture
def stub(start: Callable[..., Stub]) -> Stub:
    return start()


def new(stub: Stub, *hands: str, **fields: Any) -> service_pb2.NewGameResponse:
    request = (
        service_pb2.NewGameRequest(explicit=deal(*hands), deal_key=DEAL_KEY, **fields)
        if hands
        else service_pb2.NewGameRequest(deal_key=DEAL_KEY, **fields)
    )
    response: service_pb2.NewGameResponse = stub.NewGame(request, timeout=TIMEOUT)
    return response


def apply(stub: Stub, token: bytes, seat: int, move: moves_pb2.Move, seat_token: str = "") -> bytes:
    request = service_pb2.ApplyMoveRequest(
        state_token=token, seat=seat, move=move, seat_token=seat_token
    )
    return bytes(stub.ApplyMove(request, timeout=TIMEOUT).game.state_token)


def rejected(stub: Stub, token: bytes, seat: int, move: moves_pb2.Move) -> Rich:
    return fails(
        stub.ApplyMove, service_pb2.ApplyMoveRequest(state_token=token, seat=seat, move=move)
    )


# --- illegal moves: FAILED_PRECONDITION with the engine's reason --------------------------------

FOUR = ("3S 3C 5S 9S", "4S 4C 10S", "6S JS", "7S QS")


@pytest.mark.parametrize(
    ("seat", "move", "reason"),
    [
        (1, play("4S"), "NOT_YOUR_TURN"),
        (0, play("2H"), "CARD_NOT_IN_HAND"),
        (0, play("3S", "3S"), "DUPLICATE_CARD"),
        (0, moves_pb2.Move(play=moves_pb2.Play()), "EMPTY_PLAY"),
        (0, play("3S", "5S"), "NOT_A_COMBINATION"),
        (0, play("9S"), "MUST_INCLUDE_STARTING_CARD"),
        (0, PASS, "LEADER_CANNOT_PASS"),
        (7, PASS, "INVALID_SEAT"),
        (-1, PASS, "INVALID_SEAT"),
    ],
)
def test_an_illegal_move_is_failed_precondition_with_the_rule_reason(
    stub: Stub, seat: int, move: moves_pb2.Move, reason: str
) -> None:
    token = new(stub, *FOUR).game.state_token
    error = rejected(stub, token, seat, move)
    assert error.code == grpc.StatusCode.FAILED_PRECONDITION
    assert error.reason == reason
    assert error.metadata["seat"] == str(seat)
    assert error.fields == []


def test_a_play_of_another_shape_is_wrong_type_or_length(stub: Stub) -> None:
    token = apply(stub, new(stub, *FOUR).game.state_token, 0, play("3S", "3C"))
    assert rejected(stub, token, 1, play("10S")).reason == "WRONG_TYPE_OR_LENGTH"


def test_a_lower_play_does_not_beat_and_a_passed_seat_is_locked_out(stub: Stub) -> None:
    token = new(stub, "3S 4C", "5S 6S", "7S JS", "8S QS").game.state_token
    for seat, move in ((0, play("3S")), (1, play("5S")), (2, PASS), (3, PASS)):
        token = apply(stub, token, seat, move)
    assert rejected(stub, token, 0, play("4C")).reason == "DOES_NOT_BEAT"
    assert rejected(stub, token, 2, play("JS")).reason == "LOCKED_OUT_OF_ROUND"


def test_moves_after_the_game_are_game_over_and_finished_seats_are_refused(stub: Stub) -> None:
    token = new(stub, "3S", "4S 5S").game.state_token
    token = apply(stub, token, 0, play("3S"))
    error = rejected(stub, token, 1, play("4S"))
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER")
    token = new(stub, "3S 8S", "4S 5S", "6S 7S").game.state_token
    for seat, move in ((0, play("3S")), (1, play("4S")), (2, play("6S")), (0, play("8S"))):
        token = apply(stub, token, seat, move)
    assert rejected(stub, token, 0, PASS).reason == "SEAT_FINISHED"


def test_next_game_before_the_end_is_failed_precondition(stub: Stub) -> None:
    token = new(stub, players=4, seed=1).game.state_token
    error = fails(stub.NextGame, service_pb2.NextGameRequest(state_token=token))
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_NOT_OVER")


# --- malformed input: INVALID_ARGUMENT with a BadRequest naming the field ----------------------


@pytest.mark.parametrize(
    ("move", "field"),
    [
        (
            moves_pb2.Move(play=moves_pb2.Play(cards=[cards_pb2.Card(suit=cards_pb2.SUIT_SPADES)])),
            "move.play.cards[0].rank",
        ),
        (
            moves_pb2.Move(
                play=moves_pb2.Play(cards=[card("3S"), cards_pb2.Card(rank=cards_pb2.RANK_TWO)])
            ),
            "move.play.cards[1].suit",
        ),
        (
            moves_pb2.Move(play=moves_pb2.Play(cards=[cards_pb2.Card(rank=RANK_99, suit=SPADES)])),
            "move.play.cards[0].rank",
        ),
    ],
)
def test_an_invalid_card_is_invalid_argument_naming_the_card(
    stub: Stub, move: moves_pb2.Move, field: str
) -> None:
    token = new(stub, *FOUR).game.state_token
    for call, request in (
        (stub.ApplyMove, service_pb2.ApplyMoveRequest(state_token=token, seat=0, move=move)),
        (stub.ValidateMove, service_pb2.ValidateMoveRequest(state_token=token, seat=0, move=move)),
    ):
        error = fails(call, request)
        assert (error.code, error.reason, error.fields) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "INVALID_CARD",
            [field],
        )


def test_a_move_with_neither_play_nor_pass_is_invalid_argument(stub: Stub) -> None:
    token = new(stub, *FOUR).game.state_token
    error = fails(stub.ApplyMove, service_pb2.ApplyMoveRequest(state_token=token, seat=0))
    assert (error.code, error.reason, error.fields) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_ARGUMENT",
        ["move"],
    )


@pytest.mark.parametrize(
    ("request_", "reason", "field"),
    [
        (
            service_pb2.NewGameRequest(rules=rules_pb2.RuleSetSpec(variant="martian")),
            "UNKNOWN_VARIANT",
            "rules.variant",
        ),
        (
            service_pb2.NewGameRequest(rules=rules_pb2.RuleSetSpec(options={"nope": "1"})),
            "UNKNOWN_OPTION",
            "rules.options.nope",
        ),
        (
            service_pb2.NewGameRequest(rules=rules_pb2.RuleSetSpec(options={"freezing": "maybe"})),
            "INVALID_OPTION_VALUE",
            "rules.options.freezing",
        ),
        (
            service_pb2.NewGameRequest(
                rules=rules_pb2.RuleSetSpec(options={"cards_per_hand": "14"})
            ),
            "INVALID_OPTION_VALUE",
            "rules.options.cards_per_hand",
        ),
        (
            service_pb2.NewGameRequest(rules=rules_pb2.RuleSetSpec(options={"stake": "1"})),
            "FRACTIONAL_AMOUNT",
            "rules.options.stake",
        ),
        (
            service_pb2.NewGameRequest(
                rules=rules_pb2.RuleSetSpec(options={"freeze_multiplier": "1000000000000"})
            ),
            "AMOUNT_TOO_LARGE",
            "rules.options.freeze_multiplier",
        ),
        (service_pb2.NewGameRequest(players=5), "INVALID_PLAYER_COUNT", "players"),
        (service_pb2.NewGameRequest(players=1), "INVALID_PLAYER_COUNT", "players"),
        (
            service_pb2.NewGameRequest(rules=rules_pb2.RuleSetSpec(variant="dau"), players=4),
            "INVALID_PLAYER_COUNT",
            "players",
        ),
        (service_pb2.NewGameRequest(players=4, dealer=4), "INVALID_SEAT", "dealer"),
        (service_pb2.NewGameRequest(players=4, leader=-1), "INVALID_SEAT", "leader"),
        (service_pb2.NewGameRequest(players=4, first_game=False), "LEADER_REQUIRED", "leader"),
        (
            service_pb2.NewGameRequest(players=3, explicit=deal("3S", "4S")),
            "INVALID_DEAL",
            "explicit.hands",
        ),
        (
            service_pb2.NewGameRequest(explicit=deal("3S 4S", "4S 5S")),
            "INVALID_DEAL",
            "explicit.hands[1]",
        ),
        (
            service_pb2.NewGameRequest(explicit=deal("3S 3S", "4S")),
            "INVALID_DEAL",
            "explicit.hands[0].cards[1]",
        ),
        (service_pb2.NewGameRequest(explicit=deal("3S", "")), "INVALID_DEAL", "explicit.hands[1]"),
        (
            service_pb2.NewGameRequest(
                explicit=service_pb2.ExplicitDeal(
                    hands=[
                        cards_pb2.Hand(cards=[cards_pb2.Card(rank=cards_pb2.RANK_THREE)]),
                        cards_pb2.Hand(),
                    ]
                )
            ),
            "INVALID_CARD",
            "explicit.hands[0].cards[0].suit",
        ),
        (
            service_pb2.NewGameRequest(
                rules=rules_pb2.RuleSetSpec(options={"four_twos": "redeal"}),
                explicit=deal("2S 2C 2D 2H", "3S"),
            ),
            "REDEAL_REQUIRED",
            "explicit.hands",
        ),
    ],
)
def test_a_game_that_cannot_exist_is_invalid_argument_naming_the_field(
    stub: Stub, request_: service_pb2.NewGameRequest, reason: str, field: str
) -> None:
    error = fails(stub.NewGame, request_)
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert error.reason == reason
    assert error.fields == [field]


def test_next_game_with_a_bad_deal_names_the_field(stub: Stub) -> None:
    token = new(stub, "3S", "4S 5S").game.state_token
    token = apply(stub, token, 0, play("3S"))
    error = fails(
        stub.NextGame, service_pb2.NextGameRequest(state_token=token, explicit=deal("3S", "3S"))
    )
    assert (error.code, error.reason, error.fields) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_DEAL",
        ["explicit.hands[1]"],
    )


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"page_size": -1}, "page_size"),
        ({"page_token": "garbage!"}, "page_token"),
        ({"page_token": "AAAAAAAAAAAAAAAA"}, "page_token"),
        (
            {"filter": service_pb2.MoveGroup(type=moves_pb2.CombinationType.ValueType(42))},
            "filter.type",
        ),
        ({"filter": service_pb2.MoveGroup(length=-2)}, "filter.length"),
    ],
)
def test_bad_listing_arguments_are_invalid_argument(
    stub: Stub, fields: dict[str, Any], field: str
) -> None:
    token = new(stub, *FOUR).game.state_token
    error = fails(
        stub.ListLegalMoves, service_pb2.ListLegalMovesRequest(state_token=token, seat=0, **fields)
    )
    assert (error.code, error.fields) == (grpc.StatusCode.INVALID_ARGUMENT, [field])


def test_a_page_token_only_works_for_its_own_listing(stub: Stub) -> None:
    token = new(stub, players=4, seed=5, first_game=False, leader=0).game.state_token
    first = stub.ListLegalMoves(
        service_pb2.ListLegalMovesRequest(state_token=token, seat=0, page_size=2), timeout=TIMEOUT
    )
    assert first.next_page_token
    other = new(stub, players=4, seed=6, first_game=False, leader=0).game.state_token
    for request in (
        service_pb2.ListLegalMovesRequest(
            state_token=other, seat=0, page_token=first.next_page_token
        ),
        service_pb2.ListLegalMovesRequest(
            state_token=token,
            seat=0,
            page_token=first.next_page_token,
            filter=service_pb2.MoveGroup(length=1),
        ),
    ):
        assert fails(stub.ListLegalMoves, request).fields == ["page_token"]


def test_an_unknown_update_view_is_invalid_argument_naming_the_field(stub: Stub) -> None:
    token = new(stub, *FOUR).game.state_token
    error = fails(
        stub.ApplyMove,
        service_pb2.ApplyMoveRequest(state_token=token, seat=0, move=play("3S"), view=7),  # type: ignore[arg-type]
    )
    assert (error.code, error.reason, error.fields) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        "INVALID_ARGUMENT",
        ["view"],
    )


def test_an_unknown_bot_is_invalid_argument(stub: Stub) -> None:
    token = new(stub, *FOUR).game.state_token
    for bot in ("martian", "montecarlo:playouts=100000000"):
        error = fails(
            stub.SuggestMove, service_pb2.SuggestMoveRequest(state_token=token, seat=0, bot=bot)
        )
        assert (error.code, error.reason, error.fields) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "UNKNOWN_BOT",
            ["bot"],
        )


# --- state tokens: refused with their own reason ------------------------------------------------


def token_calls(stub: Stub, token: bytes) -> list[tuple[Callable[..., Any], Any]]:
    return [
        (stub.ApplyMove, service_pb2.ApplyMoveRequest(state_token=token, seat=0, move=PASS)),
        (stub.ValidateMove, service_pb2.ValidateMoveRequest(state_token=token, seat=0, move=PASS)),
        (stub.ListLegalMoves, service_pb2.ListLegalMovesRequest(state_token=token, seat=0)),
        (stub.GetView, service_pb2.GetViewRequest(state_token=token)),
        (stub.GetView, service_pb2.GetViewRequest(state_token=token, seat=0)),
        (stub.NextGame, service_pb2.NextGameRequest(state_token=token)),
        (stub.SuggestMove, service_pb2.SuggestMoveRequest(state_token=token, seat=0)),
    ]


def assert_token_refused(stub: Stub, token: bytes, reasons: set[str]) -> None:
    for call, request in token_calls(stub, token):
        error = fails(call, request)
        assert error.code == grpc.StatusCode.INVALID_ARGUMENT
        assert error.reason in reasons
        assert error.fields == ["state_token"]


def test_a_missing_or_empty_token_is_malformed(stub: Stub) -> None:
    assert_token_refused(stub, b"", {"TOKEN_MALFORMED"})


def test_a_tampered_token_is_refused(stub: Stub) -> None:
    token = bytearray(new(stub, *FOUR).game.state_token)
    for index in (len(token) // 2, len(token) - 1, 10):
        tampered = bytearray(token)
        tampered[index] ^= 0x01
        assert_token_refused(
            stub, bytes(tampered), {"TOKEN_BAD_SIGNATURE", "TOKEN_MALFORMED", "TOKEN_UNKNOWN_KEY"}
        )
    flipped_body = bytearray(token)
    flipped_body[len(token) // 2] ^= 0x40
    assert rich_reason(stub, bytes(flipped_body)) == "TOKEN_BAD_SIGNATURE"


def rich_reason(stub: Stub, token: bytes) -> str:
    return fails(stub.GetView, service_pb2.GetViewRequest(state_token=token)).reason


def test_a_truncated_token_is_refused(stub: Stub) -> None:
    token = new(stub, *FOUR).game.state_token
    for size in (1, 5, 30, len(token) - 1, len(token) - 33):
        assert_token_refused(
            stub, token[:size], {"TOKEN_MALFORMED", "TOKEN_BAD_SIGNATURE", "TOKEN_UNKNOWN_KEY"}
        )
    assert rich_reason(stub, token[:3]) == "TOKEN_MALFORMED"
    assert rich_reason(stub, token[:-1]) == "TOKEN_BAD_SIGNATURE"


def test_a_token_signed_by_an_unknown_key_is_refused(
    stub: Stub, start: Callable[..., Stub]
) -> None:
    foreign = start(keyring=KeyRing([("k9", secrets.token_bytes(32))]))
    token = new(foreign, *FOUR).game.state_token
    assert_token_refused(stub, token, {"TOKEN_UNKNOWN_KEY"})


def test_a_token_of_a_key_with_the_same_id_but_other_material_is_a_bad_signature(
    stub: Stub, start: Callable[..., Stub]
) -> None:
    impostor = start(keyring=KeyRing([("k1", secrets.token_bytes(32))]))
    token = new(impostor, *FOUR).game.state_token
    assert_token_refused(stub, token, {"TOKEN_BAD_SIGNATURE"})


def test_a_token_of_another_deployment_is_refused(stub: Stub, start: Callable[..., Stub]) -> None:
    other = start(deployment="staging")
    token = new(other, *FOUR).game.state_token
    assert_token_refused(stub, token, {"TOKEN_WRONG_DEPLOYMENT"})


def test_an_unsealed_token_is_refused_where_sealing_is_required(
    stub: Stub, start: Callable[..., Stub]
) -> None:
    sealed_only = start(seal=True, require_sealed=True)
    token = new(stub, *FOUR).game.state_token
    assert_token_refused(sealed_only, token, {"TOKEN_UNSEALED_REQUIRED"})
    sealed = new(sealed_only, *FOUR).game.state_token
    assert b"southern" not in sealed  # sealed: the state can't be read from the token
    assert (
        stub.GetView(service_pb2.GetViewRequest(state_token=sealed), timeout=TIMEOUT).view.players
        == 4
    )


def test_a_rotated_key_keeps_old_tokens_working(
    start: Callable[..., Stub], material: bytes
) -> None:
    token = new(start(), *FOUR).game.state_token
    # After rotation the ring signs with k2 and still verifies k1.
    rotated = start(keyring=KeyRing([("k2", secrets.token_bytes(32)), ("k1", material)]))
    assert (
        rotated.GetView(service_pb2.GetViewRequest(state_token=token), timeout=TIMEOUT).view.players
        == 4
    )


def test_a_signed_payload_that_holds_no_game_is_malformed(stub: Stub, keyring: KeyRing) -> None:
    forged_by_us = TokenCodec(keyring, seal=False).encode(b"\x08\x01 not a game state")
    assert_token_refused(stub, forged_by_us, {"TOKEN_MALFORMED"})


# Found by tests/service/test_fuzz.py, states only this service's key can sign: each made an
# answer fail with UNKNOWN instead of refusing the state.
_BROKEN_STATES = {
    # GetView indexed past the end of its place records.
    "a place beyond the table": state_pb2.GameState(
        variant="southern",
        hands=[1, 2],
        dealt=[1, 2],
        places=[0, 5],
        match=state_pb2.MatchState(totals=[0, 0]),
    ),
    # A chain is the chopped play and at least one chop: a pass that ended the round of a
    # one-link chain crashed ApplyMove.
    "a chop chain of one play": state_pb2.GameState(
        variant="southern",
        hands=[1 << 1, 1 << 5],
        dealt=[1 << 1, 1 << 5 | 1 << 9],
        places=[0, 0],
        to_act=0,
        table=1 << 9,
        table_seat=1,
        chain=[state_pb2.ChainLinkState(seat=1, cards=1 << 9)],
        match=state_pb2.MatchState(totals=[0, 0]),
    ),
}


@pytest.mark.parametrize("broken", list(_BROKEN_STATES))
def test_a_signed_state_that_breaks_an_invariant_is_malformed(
    stub: Stub, keyring: KeyRing, broken: str
) -> None:
    state = _BROKEN_STATES[broken]
    forged_by_us = TokenCodec(keyring, seal=False).encode(state.SerializeToString())
    assert_token_refused(stub, forged_by_us, {"TOKEN_MALFORMED"})


def test_a_game_dealt_before_a_default_changed_keeps_it_and_its_tokens_stay_readable(
    stub: Stub, keyring: KeyRing
) -> None:
    # A token as the release before rules revisions wrote it (revision 0, long_pairs_chop then
    # "nothing"): the game is played with the old default, and the next token is still one
    # that release reads (no revision, no override it doesn't know) during a rolling update.
    tokens = TokenCodec(keyring, seal=False)
    state, _ = new_game(build_rules("southern", revision=0), 4, seed=1)
    token = tokens.encode(codec.encode_state(state, b"g"))
    assert state_pb2.GameState.FromString(tokens.decode(token)).rules_revision == 0
    answer = apply(stub, token, state.to_act, play("3S"))
    payload = state_pb2.GameState.FromString(tokens.decode(answer))
    assert (payload.rules_revision, list(payload.overrides)) == (0, [])
    assert codec.decode_state(payload.SerializeToString())[0].rules.long_pairs_chop == "nothing"
    # Its view lists the value it keeps: read against today's defaults, the rules it plays by.
    view = stub.GetView(service_pb2.GetViewRequest(state_token=answer), timeout=TIMEOUT).view
    assert dict(view.rules.options) == {"long_pairs_chop": "nothing"}
    current, _ = new_game(build_rules("southern"), 4, seed=1)
    token = tokens.encode(codec.encode_state(current, b"g"))
    view = stub.GetView(service_pb2.GetViewRequest(state_token=token), timeout=TIMEOUT).view
    assert dict(view.rules.options) == {}


def test_a_token_from_a_release_with_newer_rules_is_played_and_keeps_its_revision(
    stub: Stub, keyring: KeyRing
) -> None:
    tokens = TokenCodec(keyring, seal=False)
    state, _ = new_game(build_rules("southern", revision=RULES_REVISION + 1), 4, seed=1)
    answer = apply(stub, tokens.encode(codec.encode_state(state, b"g")), state.to_act, play("3S"))
    assert state_pb2.GameState.FromString(tokens.decode(answer)).rules_revision == (
        RULES_REVISION + 1
    )


# --- seat tokens: PERMISSION_DENIED ------------------------------------------------------------


def seat_calls(
    stub: Stub, token: bytes, seat: int, seat_token: str
) -> list[tuple[Callable[..., Any], Any]]:
    return [
        (
            stub.ApplyMove,
            service_pb2.ApplyMoveRequest(
                state_token=token, seat=seat, seat_token=seat_token, move=play("3S")
            ),
        ),
        (
            stub.ValidateMove,
            service_pb2.ValidateMoveRequest(
                state_token=token, seat=seat, seat_token=seat_token, move=play("3S")
            ),
        ),
        (
            stub.ListLegalMoves,
            service_pb2.ListLegalMovesRequest(state_token=token, seat=seat, seat_token=seat_token),
        ),
        (
            stub.GetView,
            service_pb2.GetViewRequest(state_token=token, seat=seat, seat_token=seat_token),
        ),
        (
            stub.SuggestMove,
            service_pb2.SuggestMoveRequest(state_token=token, seat=seat, seat_token=seat_token),
        ),
    ]


def test_seat_tokens_are_required_when_seat_checking_is_on(start: Callable[..., Stub]) -> None:
    stub = start(require_seat_tokens=True)
    response = new(stub, *FOUR)
    token, seat_tokens = response.game.state_token, list(response.seat_tokens)
    other_game_tokens = list(new(stub, *FOUR).seat_tokens)
    for wrong in ("", seat_tokens[1], other_game_tokens[0], "x" * 22, seat_tokens[0][:-1]):
        for call, request in seat_calls(stub, token, 0, wrong):
            error = fails(call, request)
            assert (error.code, error.reason) == (
                grpc.StatusCode.PERMISSION_DENIED,
                "SEAT_TOKEN_INVALID",
            )
            assert error.metadata["seat"] == "0"
    for call, request in seat_calls(stub, token, 0, seat_tokens[0]):
        call(request, timeout=60)  # the seat's own token is accepted everywhere
    # A spectator view needs no seat token.
    assert (
        len(stub.GetView(service_pb2.GetViewRequest(state_token=token), timeout=TIMEOUT).view.hand)
        == 0
    )


def test_seat_tokens_stay_valid_for_the_next_game(start: Callable[..., Stub]) -> None:
    stub = start(require_seat_tokens=True)
    response = new(stub, "3S 6S", "4S 5S")
    tokens = list(response.seat_tokens)
    state = response.game.state_token
    for seat, move in ((0, play("3S")), (1, play("4S")), (0, play("6S"))):
        state = apply(stub, state, seat, move, tokens[seat])
    # A random next deal: only the host's deal key chooses one where seat tokens are checked.
    nxt = stub.NextGame(service_pb2.NextGameRequest(state_token=state), timeout=TIMEOUT).game
    view = stub.GetView(
        service_pb2.GetViewRequest(state_token=nxt.state_token, seat=1, seat_token=tokens[1]),
        timeout=TIMEOUT,
    )
    assert view.view.seat == 1


def test_seat_tokens_are_not_checked_when_seat_checking_is_off(stub: Stub) -> None:
    token = new(stub, *FOUR).game.state_token
    view = stub.GetView(
        service_pb2.GetViewRequest(state_token=token, seat=1, seat_token="whatever"),
        timeout=TIMEOUT,
    )
    assert view.view.seat == 1


def test_an_out_of_range_seat_is_invalid_seat_before_any_seat_token_check(
    start: Callable[..., Stub],
) -> None:
    stub = start(require_seat_tokens=True)
    token = new(stub, *FOUR).game.state_token
    error = fails(stub.GetView, service_pb2.GetViewRequest(state_token=token, seat=9))
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "INVALID_SEAT")


# --- limits ------------------------------------------------------------------------------------


def test_an_oversized_request_is_resource_exhausted(stub: Stub) -> None:
    with pytest.raises(grpc.RpcError) as info:
        stub.GetView(service_pb2.GetViewRequest(state_token=b"x" * 100_000), timeout=TIMEOUT)
    assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_token_refusals_are_counted(server_factory: Callable[..., Any], keyring: KeyRing) -> None:
    import urllib.request

    running = server_factory(keyring=keyring, require_seat_tokens=True)
    with grpc.insecure_channel(running.address) as channel:
        stub = Stub(channel)
        token = new(stub, *FOUR).game.state_token
        for _ in range(2):
            with pytest.raises(grpc.RpcError):
                stub.GetView(service_pb2.GetViewRequest(state_token=token[:-1]), timeout=TIMEOUT)
        with pytest.raises(grpc.RpcError):
            stub.GetView(service_pb2.GetViewRequest(state_token=token, seat=0), timeout=TIMEOUT)
    with urllib.request.urlopen(running.metrics_url, timeout=TIMEOUT) as response:
        text = response.read().decode()
    assert 'tienlen_tokens_rejected_total{reason="TOKEN_BAD_SIGNATURE"} 2.0' in text
    assert 'tienlen_tokens_rejected_total{reason="SEAT_TOKEN_INVALID"} 1.0' in text
