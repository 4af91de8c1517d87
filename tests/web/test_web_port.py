"""The web port (Connect and gRPC-Web over HTTP/1.1): the same RPCs, errors, limits and
metrics as the gRPC port, CORS, static files, health, and a clear answer to every bad input.

Real servers on 127.0.0.1 port 0 (both ports), waited on by their health service."""

from __future__ import annotations

import base64
import signal
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status
from helpers.dealing import DEAL_KEY

from tienlen.v1 import moves_pb2, service_pb2, service_pb2_grpc

from .webclient import SERVICE, WebClient, error_info

TIMEOUT = 10.0
ALLOWED = "https://table.example"


@pytest.fixture
def web(start_web) -> WebClient:
    return start_web(cors_origins=(ALLOWED,))[1]


@pytest.fixture
def grpc_stub(server_factory) -> Iterator[Callable[[Any], service_pb2_grpc.TienLenEngineStub]]:
    channels: list[grpc.Channel] = []

    def stub(running: Any) -> service_pb2_grpc.TienLenEngineStub:
        channel = grpc.insecure_channel(running.address)
        channels.append(channel)
        return service_pb2_grpc.TienLenEngineStub(channel)

    yield stub
    for channel in channels:
        channel.close()


def still_serves_both_ports(running: Any, web: WebClient) -> None:
    """A game is dealt on the web port, and the gRPC port says SERVING."""
    answer = web.connect_json("NewGame", {"players": 4, "seed": "7", "dealKey": DEAL_KEY})
    assert answer.status == 200
    assert len(answer.json()["seatTokens"]) == 4
    with grpc.insecure_channel(running.address) as channel:
        health = health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(), timeout=TIMEOUT
        )
    assert health.status == health_pb2.HealthCheckResponse.SERVING


# --- the RPCs ------------------------------------------------------------------------------


def test_connect_json_new_game_answers_a_dealt_game(web) -> None:
    answer = web.connect_json("NewGame", {"players": 4, "seed": "7"})
    assert answer.status == 200
    assert answer.header("content-type") == "application/json"
    game = answer.json()
    assert len(game["seatTokens"]) == 4
    (started,) = [e["gameStarted"] for e in game["game"]["events"]]
    assert started["handSizes"] == [13, 13, 13, 13]
    assert game["game"]["finished"] is False


def test_connect_binary_and_grpc_web_answer_what_the_grpc_port_answers(
    start_web, grpc_stub
) -> None:
    running, web = start_web()
    request = service_pb2.NewGameRequest(players=4, seed=7)
    by_grpc = grpc_stub(running).NewGame(request, timeout=TIMEOUT)
    answer = web.connect_proto("NewGame", request)
    assert answer.status == 200
    assert answer.header("content-type") == "application/proto"
    by_connect = service_pb2.NewGameResponse.FromString(answer.body)
    by_web = [web.grpc_web("NewGame", request, text=text) for text in (False, True)]
    for got in (
        by_connect,
        *(service_pb2.NewGameResponse.FromString(a.messages[0]) for a in by_web),
    ):
        # Each deal is a new game id (so tokens differ); the game itself is the same.
        assert got.game.events == by_grpc.game.events
        assert got.game.view == by_grpc.game.view
    assert [a.status for a in by_web] == [0, 0]
    assert by_web[1].http.header("content-type") == "application/grpc-web-text+proto"


def test_a_refused_move_has_the_same_status_on_every_transport(start_web, grpc_stub) -> None:
    running, web = start_web()
    stub = grpc_stub(running)
    game = stub.NewGame(service_pb2.NewGameRequest(players=4, seed=7), timeout=TIMEOUT).game
    wrong_seat = (game.to_act + 1) % 4
    request = service_pb2.ApplyMoveRequest(
        state_token=game.state_token,
        seat=wrong_seat,
        move=moves_pb2.Move(pass_turn=moves_pb2.Pass()),
    )
    with pytest.raises(grpc.RpcError) as refused:
        stub.ApplyMove(request, timeout=TIMEOUT)
    expected = rpc_status.from_call(refused.value)
    assert expected is not None

    by_grpc_web = web.grpc_web("ApplyMove", request)
    assert by_grpc_web.http.status == 200
    assert by_grpc_web.status == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    assert by_grpc_web.message == expected.message
    assert by_grpc_web.rich_status() == expected

    by_connect = web.connect_proto("ApplyMove", request)
    assert by_connect.status == 400
    error = by_connect.json()
    assert error["code"] == "failed_precondition"
    assert error["message"] == expected.message
    info = error_info(error["details"])
    assert info.reason == "NOT_YOUR_TURN"
    assert error["details"][0]["debug"]["reason"] == "NOT_YOUR_TURN"


def test_every_unary_rpc_of_the_service_is_served(web) -> None:
    rules = web.connect_json("DescribeRules", {})
    assert rules.status == 200
    assert "southern" in {v["name"] for v in rules.json()["variants"]}
    described = service_pb2.DESCRIPTOR.services_by_name["TienLenEngine"]
    for method in described.methods:
        if method.client_streaming or method.server_streaming:
            continue
        answer = web.connect_json(method.name, {})
        # An empty request is refused by most RPCs, but by the RPC, never as an unknown path.
        assert answer.status != 404, method.name
        assert answer.json().get("code") != "unimplemented", method.name


def test_play_stream_is_refused_with_what_to_use_instead(web) -> None:
    answer = web.connect_json("PlayStream", {})
    assert answer.status == 404
    assert answer.json()["code"] == "unimplemented"
    assert "ApplyMove" in answer.json()["message"]


# --- seat tokens, deadlines, request ids, metrics --------------------------------------------


@pytest.mark.parametrize(
    ("seat_token", "why"), [("", "required"), ("not-a-token", "not seat"), ("x" * 40, "not seat")]
)
def test_a_missing_or_garbled_seat_token_is_permission_denied(start_web, seat_token, why) -> None:
    running, web = start_web(require_seat_tokens=True)
    game = web.connect_json("NewGame", {"players": 4, "seed": "7", "dealKey": DEAL_KEY}).json()
    seat = game["game"]["toAct"]
    answer = web.connect_json(
        "ListLegalMoves",
        {"stateToken": game["game"]["stateToken"], "seat": seat, "seatToken": seat_token},
    )
    assert answer.status == 403
    assert answer.json()["code"] == "permission_denied"
    assert why in answer.json()["message"]
    assert error_info(answer.json()["details"]).reason == "SEAT_TOKEN_INVALID"
    granted = web.connect_json(
        "ListLegalMoves",
        {
            "stateToken": game["game"]["stateToken"],
            "seat": seat,
            "seatToken": game["seatTokens"][seat],
        },
    )
    assert granted.status == 200
    still_serves_both_ports(running, web)


def test_a_deadline_already_past_is_deadline_exceeded(web) -> None:
    connect = web.connect_json("NewGame", {"players": 4}, headers={"connect-timeout-ms": "0"})
    assert connect.status == 504
    assert connect.json()["code"] == "deadline_exceeded"
    grpc_web = web.grpc_web(
        "NewGame", service_pb2.NewGameRequest(players=4), headers={"grpc-timeout": "0n"}
    )
    assert grpc_web.status == grpc.StatusCode.DEADLINE_EXCEEDED.value[0]


def test_a_garbled_deadline_header_is_invalid_argument(web) -> None:
    answer = web.connect_json("NewGame", {"players": 4}, headers={"connect-timeout-ms": "soon"})
    assert answer.status == 400
    assert answer.json()["code"] == "invalid_argument"


def test_the_request_id_is_echoed_and_exposed(web) -> None:
    answer = web.connect_json(
        "NewGame", {"players": 4}, headers={"x-request-id": "req-42", "origin": ALLOWED}
    )
    assert answer.header("x-request-id") == "req-42"
    assert "x-request-id" in answer.header("access-control-expose-headers").split(", ")
    fresh = web.connect_json("NewGame", {"players": 4}).header("x-request-id")
    assert fresh is not None
    assert len(fresh) == 32


def test_web_calls_are_counted_by_transport(start_web) -> None:
    import urllib.request

    running, web = start_web()
    web.connect_json("NewGame", {"players": 4})
    web.grpc_web("NewGame", service_pb2.NewGameRequest(players=4))
    web.connect_json("ApplyMove", {})
    from prometheus_client.parser import text_string_to_metric_families

    with urllib.request.urlopen(running.metrics_url, timeout=TIMEOUT) as page:
        text = page.read().decode()
    handled = {
        (s.labels["transport"], s.labels["grpc_method"], s.labels["grpc_code"]): s.value
        for family in text_string_to_metric_families(text)
        if family.name == "tienlen_web_handled"
        for s in family.samples
    }
    assert handled[("connect", "NewGame", "OK")] == 1
    assert handled[("grpc_web", "NewGame", "OK")] == 1
    assert handled[("connect", "ApplyMove", "INVALID_ARGUMENT")] == 1
    assert "tienlen_games_started_total" in text


# --- CORS ------------------------------------------------------------------------------------


def test_a_preflight_from_an_allowed_origin_is_answered(web) -> None:
    answer = web.preflight(ALLOWED)
    assert answer.status == 200
    assert answer.header("access-control-allow-origin") == ALLOWED
    allowed = answer.header("access-control-allow-headers").lower()
    assert "connect-protocol-version" in allowed
    assert "x-grpc-web" in allowed
    assert "tienlen-game-id" in allowed  # the web table names a call's game (affinity)
    call = web.connect_json("NewGame", {"players": 4}, headers={"origin": ALLOWED})
    assert call.header("access-control-allow-origin") == ALLOWED
    exposed = call.header("access-control-expose-headers").split(", ")
    assert {"grpc-status", "grpc-message", "grpc-status-details-bin"} <= set(exposed)


def test_a_preflight_or_call_from_another_origin_is_refused(start_web) -> None:
    running, web = start_web(cors_origins=(ALLOWED,))
    answer = web.preflight("https://evil.example")
    assert answer.status == 403
    assert answer.header("access-control-allow-origin") is None
    call = web.connect_json("NewGame", {"players": 4}, headers={"origin": "https://evil.example"})
    assert call.status == 403
    assert call.header("access-control-allow-origin") is None
    assert call.json()["code"] == "permission_denied"
    assert "--cors-origin" in call.json()["message"]
    grpc_web = web.grpc_web(
        "NewGame", service_pb2.NewGameRequest(players=4), headers={"origin": "https://evil.example"}
    )
    assert grpc_web.status == grpc.StatusCode.PERMISSION_DENIED.value[0]
    still_serves_both_ports(running, web)


def test_without_cors_origins_only_the_page_s_own_origin_may_call(start_web) -> None:
    _, web = start_web()
    assert web.preflight(ALLOWED).status == 403
    same = web.connect_json("NewGame", {"players": 4}, headers={"origin": web.origin})
    assert same.status == 200


# --- bad input -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "content_type", "status", "code"),
    [
        (b'{"players": 4,', "application/json", 400, "invalid_argument"),  # malformed JSON
        (b'{"player": 4}', "application/json", 400, "invalid_argument"),  # unknown field
        (b"\xff\xff\xff", "application/proto", 400, "invalid_argument"),  # not protobuf
        (b"players=4", "text/plain", 415, "unimplemented"),  # wrong content type
        (b"players=4", "", 415, "unimplemented"),  # no content type
        (b"\x00\x00\x00\x00\x00", "application/grpc", 415, "unimplemented"),  # native gRPC
    ],
)
def test_a_malformed_body_or_content_type_gets_a_clear_connect_error(
    start_web, body, content_type, status, code
) -> None:
    running, web = start_web()
    headers = {"content-type": content_type} if content_type else {}
    answer = web.request("POST", f"/{SERVICE}/NewGame", body, headers)
    assert answer.status == status
    assert answer.json()["code"] == code
    assert answer.json()["message"]
    if status == 400:
        assert error_info(answer.json()["details"]).reason == "MALFORMED_REQUEST"
    still_serves_both_ports(running, web)


def test_a_malformed_grpc_web_body_gets_a_grpc_status(web) -> None:
    garbled = web.grpc_web("NewGame", b"\xff\xff\xff")
    assert garbled.status == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    not_base64 = web.request(
        "POST",
        f"/{SERVICE}/NewGame",
        b"%%%not base64%%%",
        {"content-type": "application/grpc-web-text"},
    )
    assert not_base64.status == 200
    assert not_base64.header("grpc-status") == str(grpc.StatusCode.INVALID_ARGUMENT.value[0])
    assert "base64" in not_base64.header("grpc-message")


def test_an_oversize_body_is_resource_exhausted(start_web) -> None:
    running, web = start_web(max_request_bytes=1024)
    token = base64.b64encode(b"x" * 2000).decode()
    # Within the body limit but a request message over --max-request-bytes:
    over_message = web.connect_json("GetView", {"stateToken": token})
    assert over_message.status == 429
    assert over_message.json()["code"] == "resource_exhausted"
    # A body far over any limit is cut off as it is read:
    huge = web.connect_json("GetView", {"stateToken": token * 10})
    assert huge.status == 429
    assert huge.json()["code"] == "resource_exhausted"
    grpc_web = web.grpc_web("GetView", service_pb2.GetViewRequest(state_token=b"x" * 2000))
    assert grpc_web.status == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
    still_serves_both_ports(running, web)


def refusals(running: Any) -> dict[str, float]:
    """`tienlen_web_refused_total` by reason, as /metrics shows it."""
    import urllib.request

    from prometheus_client.parser import text_string_to_metric_families

    with urllib.request.urlopen(running.metrics_url, timeout=TIMEOUT) as page:
        text = page.read().decode()
    return {
        s.labels["reason"]: s.value
        for family in text_string_to_metric_families(text)
        if family.name == "tienlen_web_refused"
        for s in family.samples
        if s.name == "tienlen_web_refused_total"
    }


def test_malformed_and_oversize_bodies_are_counted_as_refused_before_an_rpc(start_web) -> None:
    running, web = start_web(max_request_bytes=1024)
    huge = base64.b64encode(b"x" * 20_000).decode()
    assert web.connect_json("GetView", {"stateToken": huge}).status == 429
    oversize = service_pb2.GetViewRequest(state_token=b"x" * 20_000)
    assert web.grpc_web("GetView", oversize).status == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
    garbled = web.request(
        "POST", f"/{SERVICE}/NewGame", b"{not json", {"content-type": "application/json"}
    )
    assert garbled.status == 400
    assert error_info(garbled.json()["details"]).reason == "MALFORMED_REQUEST"
    assert web.connect_json("NewGame", {"players": 4, "misspelt": 1}).status == 400
    assert (
        web.grpc_web("NewGame", b"\xff\xff\xff").status == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    )
    not_a_card = web.connect_json("NewGame", {"explicit": {"hands": [{"cards": ["3X"]}]}})
    assert error_info(not_a_card.json()["details"]).reason == "INVALID_CARD"
    counted = refusals(running)
    assert counted.get("BODY_TOO_LARGE") == 2
    assert counted.get("MALFORMED_BODY") == 4


@pytest.mark.parametrize(
    "path", [f"/{SERVICE}/NoSuchRpc", "/tienlen.v1.NoSuchService/NewGame", "/a.B/C"]
)
def test_an_unknown_method_is_unimplemented(start_web, path) -> None:
    running, web = start_web()
    answer = web.request("POST", path, b"{}", {"content-type": "application/json"})
    assert answer.status == 404
    assert answer.json()["code"] == "unimplemented"
    assert "no such RPC" in answer.json()["message"]
    grpc_web = web.request("POST", path, b"", {"content-type": "application/grpc-web+proto"})
    assert grpc_web.status == 200
    assert grpc_web.header("grpc-status") == str(grpc.StatusCode.UNIMPLEMENTED.value[0])
    still_serves_both_ports(running, web)


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE"])
def test_a_wrong_http_method_on_an_rpc_is_refused(web, method) -> None:
    answer = web.request(method, f"/{SERVICE}/NewGame", b"{}", {"content-type": "application/json"})
    assert answer.status == 405
    assert answer.json()["code"] == "unimplemented"


def test_the_health_service_check_is_served_too(web) -> None:
    answer = web.request(
        "POST", "/grpc.health.v1.Health/Check", b"{}", {"content-type": "application/json"}
    )
    assert answer.status == 200
    assert answer.json() == {"status": "SERVING"}


# --- static files and health -----------------------------------------------------------------


def test_the_web_root_is_served_at_slash(start_web, tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<title>Tiến Lên</title>", encoding="utf-8")
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "app.js").write_text("console.log(1)", encoding="utf-8")
    _, web = start_web(web_root=str(tmp_path))
    index = web.request("GET", "/")
    assert index.status == 200
    assert "Tiến Lên" in index.body.decode()
    script = web.request("GET", "/assets/app.js")
    assert script.status == 200
    assert "javascript" in script.header("content-type")
    assert web.request("GET", "/../pyproject.toml").status == 404
    assert web.request("GET", "/nothing.js").status == 404


def test_without_a_web_root_slash_says_how_to_get_one(start_web, tmp_path, monkeypatch) -> None:
    from tienlen_service.web import transport

    monkeypatch.setattr(transport, "DEFAULT_WEB_ROOT", tmp_path / "not-built")
    _, web = start_web(web_root=None)
    answer = web.request("GET", "/")
    assert answer.status == 404
    assert "--web-root" in answer.body.decode()


def test_healthz_says_serving(start_web) -> None:
    _, web = start_web()
    answer = web.request("GET", "/healthz")
    assert (answer.status, answer.body) == (200, b"SERVING\n")


# --- drain -----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_sigterm_stops_the_web_port_too(process_factory) -> None:
    process = process_factory("--web-port", str(free_port()))
    process.start_and_wait()
    serving = process.wait_for_event("serving")
    web = WebClient(int(serving["web_port"]))
    assert web.connect_json("NewGame", {"players": 4}).status == 200
    process.proc.send_signal(signal.SIGTERM)
    assert process.wait() == 0
    with pytest.raises(OSError):
        web.request("GET", "/healthz")
    events = [r.get("event") for r in process.records()]
    assert events.index("draining") < events.index("stopped")


def test_a_taken_web_port_fails_the_start_clearly(process_factory) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        process = process_factory("--web-port", str(port))
        record = process.wait_for_event("startup_failed")
        assert "web port" in record["error"]
        assert process.wait() == 1


def test_error_details_decode_as_error_info(web) -> None:
    answer = web.connect_json("ApplyMove", {"stateToken": "AAAA", "seat": 0})
    assert answer.status == 400
    detail = answer.json()["details"][0]
    assert detail["type"] == "google.rpc.ErrorInfo"
    info = error_details_pb2.ErrorInfo.FromString(
        base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
    )
    assert info.domain == "tienlen.v1"
    assert detail["debug"]["reason"] == info.reason


# --- limits and faults, with an engine whose DescribeRules can be held or made to fail ---------


class _HeldEngine:
    """Registers the engine servicer with DescribeRules replaced: held until released, or
    raising a bug's exception when `crash` is set."""

    def __init__(self) -> None:
        import threading

        self.entered = threading.Event()
        self.release = threading.Event()
        self.crash = False

    def register(self, server: Any, tokens: Any, metrics: Any, config: Any) -> Any:
        from tienlen_service import registration, servicer

        held = self

        class Engine(servicer.TienLenServicer):
            def DescribeRules(self, request: Any, context: Any) -> Any:
                if held.crash:
                    raise ValueError("a bug")
                held.entered.set()
                held.release.wait(TIMEOUT)
                return super().DescribeRules(request, context)

        registration.add_to_server(Engine(tokens=tokens, metrics=metrics), server)
        return (servicer.SERVICE_NAME,)


def test_calls_beyond_max_concurrent_rpcs_are_resource_exhausted(start_web) -> None:
    import threading

    engine = _HeldEngine()
    _, web = start_web(max_concurrent_rpcs=1, register=engine.register)
    first: list[Any] = []
    holder = threading.Thread(target=lambda: first.append(web.connect_json("DescribeRules", {})))
    holder.start()
    try:
        assert engine.entered.wait(TIMEOUT)
        refused = web.connect_json("DescribeRules", {})
        assert refused.status == 429
        assert refused.json()["code"] == "resource_exhausted"
        assert "at most 1" in refused.json()["message"]
    finally:
        engine.release.set()
        holder.join(TIMEOUT)
    assert first[0].status == 200
    assert web.connect_json("DescribeRules", {}).status == 200  # the slot is free again


def test_a_bug_in_a_handler_answers_unknown_never_a_traceback(start_web) -> None:
    engine = _HeldEngine()
    engine.crash = True
    running, web = start_web(register=engine.register)
    answer = web.connect_json("DescribeRules", {})
    assert answer.status == 500
    assert answer.json() == {"code": "unknown", "message": "unexpected error in the server"}
    grpc_web = web.grpc_web("DescribeRules", service_pb2.DescribeRulesRequest())
    assert grpc_web.status == grpc.StatusCode.UNKNOWN.value[0]
    still_serves_both_ports(running, web)
