"""An unexpected error inside an RPC logs a short traceback: never a frame's locals, a hand, a
state token, a seat token or a key, whatever the renderer (JSON or console).

structlog's `dict_tracebacks` and the console's rich tracebacks render every frame's locals by
default: one unexpected error in ApplyMove once wrote a ~300 KB line holding the state token,
the request's seat token and every seat's hand. Here an engine call fails (monkeypatched to
raise, from a frame that holds the state) during a live game, on the gRPC port and on the web
port, and the whole log the failure wrote is searched for what must never be there.
"""

from __future__ import annotations

import base64
import io
import json
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from helpers.dealing import DEAL_KEY
from helpers.logs import json_lines

import tienlen_rules
from tienlen.v1 import moves_pb2, service_pb2, service_pb2_grpc
from tienlen_rules import format_cards
from tienlen_service.logs import MAX_VALUE_CHARS, configure_logging, get_logger, reset_logging
from tienlen_service.tokens import KeyRing

KEY = bytes(range(7, 39))
"""The server's signing key material (32 bytes): must never reach the log."""
SMALL = 8 * 1024
"""Bytes the failure's log may take in all: a traceback of our frames, no data."""
WAIT = 20.0


class PlantedEngineError(RuntimeError):
    """The bug this test plants in the engine."""


class FailingApply:
    """An engine `apply` that fails with the game's state in its frame (as a real bug would),
    remembering the hands it saw (in card notation and as the bit masks a repr shows)."""

    def __init__(self) -> None:
        self.hands: list[str] = []

    def __call__(self, state: Any, move: Any) -> Any:
        hands = [format_cards(hand) for hand in state.hands]  # locals no traceback may show
        self.hands = [*hands, *(str(int(hand)) for hand in state.hands)]
        table = {"state": state, "move": move, "hands": hands}
        raise PlantedEngineError(f"planted fault ({len(table)} values in this frame)")


@pytest.fixture
def failing_apply(monkeypatch: pytest.MonkeyPatch) -> FailingApply:
    fault = FailingApply()
    monkeypatch.setattr(tienlen_rules, "apply", fault)
    return fault


@pytest.fixture(params=["json", "console"])
def log_format(request: pytest.FixtureRequest) -> Iterator[tuple[str, io.StringIO]]:
    stream = io.StringIO()
    configure_logging("info", request.param, stream)
    yield request.param, stream
    reset_logging()


def forbidden(game: Any, seat_tokens: list[str], request: bytes) -> list[str]:
    """What the log must not hold: the state token (as bytes' repr, base64 and hex, and long
    pieces of each), the seat tokens, the key, every seat's hand in card notation."""
    token = game.state_token
    b64 = base64.b64encode(token).decode()
    return [
        b64,
        b64[len(b64) // 2 : len(b64) // 2 + 40],
        token.hex()[:40],
        repr(token)[2:42],
        repr(request)[2:42],
        *seat_tokens,
        KEY.hex(),
        base64.urlsafe_b64encode(KEY).decode().rstrip("="),
        repr(KEY)[2:30],
    ]


def check(stream: io.StringIO, must_not: list[str], fault: FailingApply, fmt: str) -> None:
    text = stream.getvalue()
    assert fault.hands  # the engine was called, and failed
    must_not = [*must_not, *fault.hands]
    assert "PlantedEngineError" in text, text[:2000]  # the failure was logged, with its type
    assert "planted fault" in text
    size = len(text.encode())
    assert size < SMALL, f"{size} bytes of log"
    for piece in must_not:
        assert piece not in text, piece
    # No frame's locals, in any form a renderer gives them.
    assert "locals" not in text
    assert "GameState(" not in text
    assert "hands=" not in text
    if fmt == "json":
        for line in text.splitlines():
            if line.startswith("{"):
                json.loads(line)  # still one JSON object a line


def start(server_factory: Callable[..., Any], **settings: Any) -> Any:
    keyring = KeyRing([("k1", KEY)])
    return server_factory(keyring=keyring, seal=True, require_seat_tokens=True, **settings)


def test_an_unexpected_error_in_an_rpc_logs_no_locals_token_hand_or_key(
    server_factory: Callable[..., Any],
    failing_apply: FailingApply,
    log_format: tuple[str, io.StringIO],
) -> None:
    fmt, stream = log_format
    running = start(server_factory)
    with grpc.insecure_channel(running.address) as channel:
        stub = service_pb2_grpc.TienLenEngineStub(channel)
        dealt = stub.NewGame(service_pb2.NewGameRequest(seed=0, deal_key=DEAL_KEY), timeout=WAIT)
        game, seat_tokens = dealt.game, list(dealt.seat_tokens)
        request = service_pb2.ApplyMoveRequest(
            state_token=game.state_token,
            seat=game.to_act,
            seat_token=seat_tokens[game.to_act],
            move=moves_pb2.Move(pass_turn=moves_pb2.Pass()),
        )
        stream.seek(0)
        stream.truncate()  # from here: what the failure logs
        with pytest.raises(grpc.RpcError) as info:
            stub.ApplyMove(request, timeout=WAIT)
        assert info.value.code() == grpc.StatusCode.UNKNOWN
    check(stream, forbidden(game, seat_tokens, request.SerializeToString()), failing_apply, fmt)
    if fmt == "json":  # the traceback is there, as data: types, files, lines, no locals
        (line,) = [r for r in json_lines(stream) if r.get("exception")]
        (exception,) = line["exception"]
        assert exception["exc_type"] == "PlantedEngineError"
        assert {frame["name"] for frame in exception["frames"]} >= {"_apply", "__call__"}
        assert all("locals" not in frame for frame in exception["frames"])


def test_an_unexpected_error_in_a_web_call_logs_no_locals_token_hand_or_key(
    server_factory: Callable[..., Any],
    failing_apply: FailingApply,
    log_format: tuple[str, io.StringIO],
) -> None:
    fmt, stream = log_format
    running = start(server_factory, web_port=0)
    with grpc.insecure_channel(running.address) as channel:
        stub = service_pb2_grpc.TienLenEngineStub(channel)
        dealt = stub.NewGame(service_pb2.NewGameRequest(seed=0, deal_key=DEAL_KEY), timeout=WAIT)
    game, seat_tokens = dealt.game, list(dealt.seat_tokens)
    seat = game.to_act
    body = json.dumps(
        {
            "stateToken": base64.b64encode(game.state_token).decode(),
            "seat": seat,
            "seatToken": seat_tokens[seat],
            "move": {"passTurn": {}},
        }
    ).encode()
    stream.seek(0)
    stream.truncate()  # from here: what the failure logs
    web = urllib.request.Request(
        f"http://127.0.0.1:{running.handle.web_port}/tienlen.v1.TienLenEngine/ApplyMove",
        data=body,
        headers={"content-type": "application/json"},
    )
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(web, timeout=WAIT)
    assert json.loads(info.value.read())["code"] == "unknown"
    check(stream, forbidden(game, seat_tokens, body), failing_apply, fmt)


@pytest.mark.parametrize("fmt", ["json", "console"])
def test_every_long_value_in_a_line_is_cut_saying_by_how_much(fmt: str) -> None:
    stream = io.StringIO()
    configure_logging("info", fmt, stream)
    try:
        get_logger("tienlen.test").warning(
            "long_values",
            detail="x" * 100_000,
            nested={"deep": ["y" * 100_000]},
            thing=Bulky(),
        )
    finally:
        reset_logging()
    text = stream.getvalue()
    assert len(text.encode()) < 4 * MAX_VALUE_CHARS + 1000
    assert "x" * (MAX_VALUE_CHARS + 1) not in text
    assert "y" * (MAX_VALUE_CHARS + 1) not in text
    assert "z" * (MAX_VALUE_CHARS + 1) not in text
    assert f"...[{100_000 - MAX_VALUE_CHARS} more characters cut]" in text


class Bulky:
    """An object whose repr is long (the renderer writes an object as its repr)."""

    def __repr__(self) -> str:
        return "z" * 100_000
