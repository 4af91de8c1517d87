"""The Python runner of the golden conversations (tests/contract/conversations/*.json).

A conversation is a list of calls to `tienlen.v1.TienLenEngine` and what each answer must
contain, written in the protobuf JSON mapping so that a client in any language can replay it
(the Node runner in clients/node/src/conversation.ts is the second implementation; the format
is specified in docs/FRONTEND.md). This module:

* loads a file and expands the card shorthand (``{"$cards": "3S 4S"}``, ``{"$card": "2H"}``);
* resolves the references to earlier answers (``{"$stateFrom": 3}``, ``{"$seatToken": [1, 0]}``,
  ``{"$from": [4, "nextPageToken"]}``) and the token tampering (``"$tamper"``);
* sends each request over a real channel with the generated stubs, turns the answer (or the
  rich error status) into JSON, and compares it with the expectation as a subset;
* raises `Mismatch`, naming the file, the step and the field, at the first difference.

It also starts the real server as a subprocess (`served`), with the settings of
tests/contract/server.json, and waits for the standard health check before replaying.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import grpc
from google.protobuf import json_format
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from tienlen.v1 import service_pb2, service_pb2_grpc

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from google.protobuf.message import Message

REPO: Final = Path(__file__).resolve().parents[2]
CONTRACT_DIR: Final = Path(__file__).resolve().parent
CONVERSATIONS_DIR: Final = CONTRACT_DIR / "conversations"
SERVER_SETTINGS: Final = CONTRACT_DIR / "server.json"
SERVICE_NAME: Final = "tienlen.v1.TienLenEngine"
DOMAIN: Final = "tienlen.v1"
CALL_TIMEOUT_S: Final = 10.0
START_TIMEOUT_S: Final = 30.0

RPCS: Final[dict[str, type[Message]]] = {
    "NewGame": service_pb2.NewGameRequest,
    "ApplyMove": service_pb2.ApplyMoveRequest,
    "ValidateMove": service_pb2.ValidateMoveRequest,
    "ListLegalMoves": service_pb2.ListLegalMovesRequest,
    "GetView": service_pb2.GetViewRequest,
    "NextGame": service_pb2.NextGameRequest,
    "DescribeRules": service_pb2.DescribeRulesRequest,
    "SuggestMove": service_pb2.SuggestMoveRequest,
    "ReplayGame": service_pb2.ReplayGameRequest,
}

RESPONSES: Final[dict[str, type[Message]]] = {
    "NewGame": service_pb2.NewGameResponse,
    "ApplyMove": service_pb2.ApplyMoveResponse,
    "ValidateMove": service_pb2.ValidateMoveResponse,
    "ListLegalMoves": service_pb2.ListLegalMovesResponse,
    "GetView": service_pb2.GetViewResponse,
    "NextGame": service_pb2.NextGameResponse,
    "DescribeRules": service_pb2.DescribeRulesResponse,
    "SuggestMove": service_pb2.SuggestMoveResponse,
    "ReplayGame": service_pb2.ReplayGameResponse,
}

_RANKS: Final = {
    "3": "RANK_THREE", "4": "RANK_FOUR", "5": "RANK_FIVE", "6": "RANK_SIX", "7": "RANK_SEVEN",
    "8": "RANK_EIGHT", "9": "RANK_NINE", "10": "RANK_TEN", "J": "RANK_JACK", "Q": "RANK_QUEEN",
    "K": "RANK_KING", "A": "RANK_ACE", "2": "RANK_TWO",
}  # fmt: skip
_SUITS: Final = {"S": "SUIT_SPADES", "C": "SUIT_CLUBS", "D": "SUIT_DIAMONDS", "H": "SUIT_HEARTS"}
_CARD_RE: Final = re.compile(r"(10|[2-9JQKA])([SCDH])")
_MISSING: Final = object()


class ConversationError(ValueError):
    """The conversation file itself is wrong (bad shorthand, a reference to a step that has no
    answer): a defect of the golden file, not of the server."""


class Mismatch(AssertionError):  # noqa: N818 - the runners' word, in both languages
    """An answer differs from the conversation: names the file, the step and the field."""

    def __init__(self, file: str, step: int, rpc: str, where: str, detail: str) -> None:
        self.file = file
        self.step = step
        self.rpc = rpc
        self.where = where
        self.detail = detail
        super().__init__(f"{file} step {step} ({rpc}): {where}: {detail}")


# --------------------------------------------------------------------------------------------
# Loading: the card shorthand


def card_json(text: str) -> dict[str, str]:
    """The JSON mapping of one card written as card text (``3S``, ``10D``, ``2H``)."""
    m = _CARD_RE.fullmatch(text)
    if m is None:
        raise ConversationError(f"{text!r} is not card text (3S, 10D, QH, 2H ...)")
    return {"rank": _RANKS[m.group(1)], "suit": _SUITS[m.group(2)]}


def expand(node: Any) -> Any:
    """Replace every ``{"$cards": "3S 4S"}`` by a list of cards and ``{"$card": "3S"}`` by a card."""
    if isinstance(node, dict):
        if set(node) == {"$cards"}:
            return [card_json(t) for t in str(node["$cards"]).split()]
        if set(node) == {"$card"}:
            return card_json(str(node["$card"]))
        return {k: expand(v) for k, v in node.items()}
    if isinstance(node, list):
        return [expand(v) for v in node]
    return node


@dataclass(frozen=True)
class Step:
    """One call: its number (from 1), the RPC, the request, and what the answer must contain."""

    number: int
    rpc: str
    request: dict[str, Any]
    expect: dict[str, Any]
    note: str = ""


@dataclass(frozen=True)
class Conversation:
    """A golden conversation file."""

    name: str
    title: str
    steps: tuple[Step, ...]
    rules: tuple[str, ...] = field(default=())


def load(path: Path) -> Conversation:
    """Read and check a conversation file (numbers 1..n in order, known RPCs)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    name = path.name
    steps = []
    for index, raw in enumerate(data["steps"], start=1):
        if raw.get("step") != index:
            raise ConversationError(f"{name}: step {index} is numbered {raw.get('step')!r}")
        if raw["rpc"] not in RPCS:
            raise ConversationError(f"{name} step {index}: unknown rpc {raw['rpc']!r}")
        steps.append(
            Step(
                number=index,
                rpc=raw["rpc"],
                request=expand(raw.get("request", {})),
                expect=expand(raw.get("expect", {})),
                note=raw.get("note", ""),
            )
        )
    return Conversation(name, data.get("title", name), tuple(steps), tuple(data.get("rules", ())))


def conversation_files() -> list[Path]:
    """Every golden conversation, sorted by name."""
    return sorted(CONVERSATIONS_DIR.glob("*.json"))


# --------------------------------------------------------------------------------------------
# Resolving references to earlier answers


def _path_get(node: Any, path: str) -> Any:
    for part in path.split("."):
        if isinstance(node, list):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return _MISSING
    return node


def tamper(token_b64: str, how: str) -> str:
    """Alter a state token's bytes the way a golden step asks (see docs/FRONTEND.md)."""
    raw = bytearray(base64.b64decode(token_b64))
    if how == "flip-last-byte":
        raw[-1] ^= 0x01
    elif how == "flip-first-byte":
        raw[0] ^= 0x01
    elif how == "drop-last-byte":
        del raw[-1]
    else:
        raise ConversationError(f"unknown $tamper {how!r}")
    return base64.b64encode(bytes(raw)).decode("ascii")


def resolve(node: Any, answers: dict[int, dict[str, Any]], where: str) -> Any:
    """The request with every reference replaced by the value from an earlier answer."""
    if isinstance(node, dict):
        if "$stateFrom" in node or "$seatToken" in node or "$from" in node:
            if "$stateFrom" in node:
                step, path = int(node["$stateFrom"]), "game.stateToken"
            elif "$seatToken" in node:
                step, seat = node["$seatToken"]
                step, path = int(step), f"seatTokens.{int(seat)}"
            else:
                step, path = int(node["$from"][0]), str(node["$from"][1])
            if step not in answers:
                raise ConversationError(
                    f"{where}: step {step} has no successful answer to refer to"
                )
            value = _path_get(answers[step], path)
            if value is _MISSING:
                raise ConversationError(f"{where}: step {step}'s answer has no {path}")
            if "$tamper" in node:
                value = tamper(str(value), str(node["$tamper"]))
            return value
        if set(node) == {"$zeroBytes"}:
            return base64.b64encode(bytes(int(node["$zeroBytes"]))).decode("ascii")
        return {k: resolve(v, answers, where) for k, v in node.items()}
    if isinstance(node, list):
        return [resolve(v, answers, where) for v in node]
    return node


# --------------------------------------------------------------------------------------------
# Comparing: expected is a subset of actual


def _same_scalar(expected: Any, actual: Any) -> bool:
    # JSON: true is not 1, and 1 is not "1" (int64 values are strings in the JSON mapping).
    return (type(expected) is type(actual) and expected == actual) or (
        isinstance(expected, int | float)
        and not isinstance(expected, bool)
        and isinstance(actual, int | float)
        and not isinstance(actual, bool)
        and expected == actual
    )


def _show(value: Any) -> str:
    if value is _MISSING:
        return "(absent)"
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 300 else text[:297] + "..."


def compare(expected: Any, actual: Any, where: str) -> tuple[str, str] | None:
    """The first difference as (field path, description), or None when `expected` is a subset.

    Objects: every expected key must match (a missing key matches only ``null``). Lists: the
    same length, element by element. ``{"$len": n}``: a list of n elements. ``{"$contains":
    [...]}``: each listed element matches some element. ``{"$present": true}``: any value.
    """
    if expected is None:
        if actual is _MISSING or actual is None:
            return None
        return where, f"expected absent, got {_show(actual)}"
    if isinstance(expected, dict) and len(expected) == 1 and next(iter(expected)).startswith("$"):
        return _compare_operator(expected, actual, where)
    if actual is _MISSING or actual is None:
        return where, f"expected {_show(expected)}, got (absent)"
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return where, f"expected an object, got {_show(actual)}"
        for key, value in expected.items():
            found = compare(value, actual.get(key, _MISSING), f"{where}.{key}" if where else key)
            if found:
                return found
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return where, f"expected a list, got {_show(actual)}"
        if len(expected) != len(actual):
            return where, f"expected {len(expected)} elements, got {len(actual)}: {_show(actual)}"
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            found = compare(e, a, f"{where}[{i}]")
            if found:
                return found
        return None
    if not _same_scalar(expected, actual):
        return where, f"expected {_show(expected)}, got {_show(actual)}"
    return None


def _compare_operator(expected: dict[str, Any], actual: Any, where: str) -> tuple[str, str] | None:
    op, arg = next(iter(expected.items()))
    if op == "$present":
        if actual is _MISSING or actual is None:
            return where, "expected a value, got (absent)"
        return None
    if op == "$len":
        if not isinstance(actual, list) or len(actual) != arg:
            got = len(actual) if isinstance(actual, list) else _show(actual)
            return where, f"expected {arg} elements, got {got}"
        return None
    if op == "$contains":
        if not isinstance(actual, list):
            return where, f"expected a list, got {_show(actual)}"
        for i, item in enumerate(arg):
            if all(compare(item, a, "") is not None for a in actual):
                return f"{where}{{$contains[{i}]}}", f"no element matches {_show(item)}"
        return None
    raise ConversationError(f"{where}: unknown operator {op}")


# --------------------------------------------------------------------------------------------
# Calling


def error_json(error: grpc.RpcError) -> dict[str, Any]:
    """A refusal as the runners compare it: code, ErrorInfo reasons (and metadata) and
    BadRequest fields."""
    code = error.code()
    out: dict[str, Any] = {
        "code": code.name,
        "reasons": [],
        "domains": [],
        "metadata": {},
        "fieldViolations": [],
    }
    try:
        status = rpc_status.from_call(error)  # type: ignore[arg-type]
    except ValueError as exc:  # the rich status disagrees with the call's code
        out["reasons"].append(f"(inconsistent status: {exc})")
        return out
    if status is None:
        return out
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            out["reasons"].append(info.reason)
            out["domains"].append(info.domain)
            out["metadata"].update(info.metadata)
        elif detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            out["fieldViolations"] += [v.field for v in bad.field_violations]
    return out


def check_refusal(expect: dict[str, Any], got: dict[str, Any]) -> tuple[str, str] | None:
    """Compare a refusal with ``expect``: code, then exactly one ErrorInfo with the reason,
    the ErrorInfo metadata entries ``expect`` lists (others are not checked), the fields."""
    if got["code"] != expect.get("code", "OK"):
        detail = f"expected {expect.get('code', 'OK')}, got {got['code']}"
        if got["reasons"]:
            detail += f" ({', '.join(got['reasons'])})"
        return "code", detail
    if "reason" in expect:
        reason = expect["reason"]
        if reason is None:
            if got["reasons"]:
                return "reason", f"expected no ErrorInfo, got {got['reasons']}"
        elif got["reasons"] != [reason]:
            return (
                "reason",
                f"expected exactly one ErrorInfo with reason {reason}, got {got['reasons']}",
            )
        elif got["domains"] != [DOMAIN]:
            return "reason", f"expected ErrorInfo.domain {DOMAIN}, got {got['domains']}"
    for key, value in expect.get("metadata", {}).items():
        actual = got["metadata"].get(key)
        if actual != value:
            shown = "(absent)" if actual is None else json.dumps(actual)
            return f"metadata.{key}", f"expected {json.dumps(value)}, got {shown}"
    if "fieldViolations" in expect and sorted(got["fieldViolations"]) != sorted(
        expect["fieldViolations"]
    ):
        return (
            "fieldViolations",
            f"expected {expect['fieldViolations']}, got {got['fieldViolations']}",
        )
    return None


def call(
    stub: service_pb2_grpc.TienLenEngineStub, rpc: str, request: dict[str, Any]
) -> dict[str, Any]:
    """Send one request (JSON mapping) and return the answer as JSON (implicit fields included)."""
    message = json_format.ParseDict(request, RPCS[rpc]())
    response = getattr(stub, rpc)(message, timeout=CALL_TIMEOUT_S)
    return json_format.MessageToDict(response, always_print_fields_with_no_presence=True)


def replay(conversation: Conversation, stub: service_pb2_grpc.TienLenEngineStub) -> int:
    """Replay every step; raise `Mismatch` at the first difference. Returns the steps run."""
    answers: dict[int, dict[str, Any]] = {}
    for step in conversation.steps:
        where = f"{conversation.name} step {step.number}"
        request = resolve(step.request, answers, where)
        expect = step.expect
        try:
            answer = call(stub, step.rpc, request)
        except grpc.RpcError as error:
            found = check_refusal(expect, error_json(error))
            if found:
                raise Mismatch(conversation.name, step.number, step.rpc, *found) from None
            continue
        if expect.get("code", "OK") != "OK":
            raise Mismatch(
                conversation.name,
                step.number,
                step.rpc,
                "code",
                f"expected {expect['code']}, got OK",
            )
        answers[step.number] = answer
        found = compare(expect.get("response", {}), answer, "")
        if found:
            raise Mismatch(
                conversation.name, step.number, step.rpc, found[0] or "(response)", found[1]
            )
    return len(conversation.steps)


# --------------------------------------------------------------------------------------------
# The real server as a subprocess


def server_args() -> list[str]:
    """The flags of the contract server (tests/contract/server.json)."""
    settings = json.loads(SERVER_SETTINGS.read_text(encoding="utf-8"))
    return [str(a) for a in settings["args"]]


@contextlib.contextmanager
def served(
    command: Sequence[str] | None = None, *, timeout: float = START_TIMEOUT_S
) -> Iterator[str]:
    """Start the server (default: ``python -m tienlen_service`` with the contract settings) on
    a free loopback port, wait until its health check says SERVING, yield ``host:port``, and
    stop it with SIGTERM afterwards.

    The port is read from the server's "serving" log line (JSON on stdout).
    """
    if command is None:
        command = [sys.executable, "-m", "tienlen_service", *server_args()]
    argv = [
        *command,
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--metrics-port",
        "0",
        "--log-format",
        "json",
    ]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    proc = subprocess.Popen(
        argv, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    lines: list[str] = []
    port: list[int] = []
    ready = threading.Event()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.append(line)
            if not port:
                with contextlib.suppress(ValueError):
                    record = json.loads(line)
                    if isinstance(record, dict) and record.get("event") == "serving":
                        port.append(int(record["port"]))
                        ready.set()
        ready.set()

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    try:
        if not ready.wait(timeout) or not port:
            raise RuntimeError(f"the server did not start within {timeout}s:\n{''.join(lines)}")
        address = f"127.0.0.1:{port[0]}"
        _wait_serving(address, time.monotonic() + timeout)
        yield address
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        reader.join(timeout=5)


def _wait_serving(address: str, deadline: float) -> None:
    with grpc.insecure_channel(address) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        request = health_pb2.HealthCheckRequest(service=SERVICE_NAME)
        answer = health.Check(
            request, timeout=max(0.1, deadline - time.monotonic()), wait_for_ready=True
        )
        if answer.status != health_pb2.HealthCheckResponse.SERVING:
            raise RuntimeError(f"{address}: health says {answer.status}")
