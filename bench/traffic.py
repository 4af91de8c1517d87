"""Recorded game traffic: the exact request and response bytes of complete games.

The load benchmark replays these bytes. Against our service, a replayed request is a real call
(the server verifies the token, decodes the state, runs the engine, signs a new token) and,
because encoding and signing are deterministic under the same key, its response is byte for
byte the recorded one — so the load client can check every answer for the price of a bytes
comparison. The echo baseline loads the same recording and answers each request with the
recorded response: the same bytes on the wire in both directions, none of the work.

Games are recorded in-process through the real servicer (`TienLenServicer`), with seeded
deals and seeded random legal moves, under a key ring that the servers of the run are given.

Modes (what a client sends per move):
  apply   NewGame, then one ApplyMove per move (a game host that knows the rules' outcome)
  full    NewGame, then ListLegalMoves, ValidateMove and ApplyMove per move (a frontend that
          shows the legal moves and checks a selection before playing it)
  basic   as `apply`, each ApplyMove asking for UPDATE_VIEW_BASIC (a host that follows the
          table from the events: no spectator view in the answers)
"""

from __future__ import annotations

import pickle
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import tienlen_rules as engine
from tienlen.v1 import game_pb2, rules_pb2, service_pb2
from tienlen_service import codec, streams
from tienlen_service.metrics import Metrics
from tienlen_service.servicer import SERVICE_NAME, TienLenServicer
from tienlen_service.tokens import KeyRing, TokenCodec

MODES: Final = ("apply", "full", "basic")
PREFIX: Final = f"/{SERVICE_NAME}/"


@dataclass(frozen=True, slots=True)
class Call:
    """One recorded unary call: the method's short name and the bytes each way."""

    method: str
    request: bytes
    response: bytes

    @property
    def path(self) -> str:
        """The full gRPC method path."""
        return PREFIX + self.method

    @property
    def deterministic(self) -> bool:
        """Whether the server's answer must equal the recorded one (NewGame draws a game id)."""
        return self.method != "NewGame"


Game = tuple[Call, ...]


class Context:
    """Enough of a ServicerContext for the servicer's happy path (errors would abort)."""

    def abort_with_status(self, status: Any) -> None:
        raise RuntimeError(f"the recording hit an error: {status}")


def new_keys() -> str:
    """A fresh key spec (``bench:<base64url>``) for the servers and the recorder of one run."""
    return KeyRing.new_spec_entry("bench")


def servicer(keys: str, *, seal: bool = False) -> TienLenServicer:
    """The servicer a server given `keys` runs (unsealed tokens: deterministic answers)."""
    return TienLenServicer(tokens=TokenCodec(KeyRing.from_spec(keys), seal=seal), metrics=Metrics())


def record(
    games: int,
    keys: str,
    *,
    mode: str = "apply",
    variant: str = "southern",
    seed: int = 0,
    match_games: int = 1,
) -> list[Game]:
    """`games` complete 4-player games (seeded deals, seeded random legal moves); with
    `match_games` > 1 each is a match of that many games (NextGame between them, so the later
    games carry match totals, as real tables do)."""
    if mode not in MODES:
        raise ValueError(f"mode {mode!r} is not one of {MODES}")
    if match_games < 1:
        raise ValueError("a match has at least one game")
    svc = servicer(keys)
    ctx: Any = Context()
    out: list[Game] = []
    for number in range(games):
        rng = random.Random(seed + number)
        calls: list[Call] = []
        request: Any = service_pb2.NewGameRequest(
            rules=rules_pb2.RuleSetSpec(variant=variant), players=4, seed=seed + number
        )
        response: Any = svc.NewGame(request, ctx)
        calls.append(Call("NewGame", request.SerializeToString(), response.SerializeToString()))
        update = response.game
        for later in range(1, match_games + 1):
            update = _play(svc, ctx, update, rng, mode, calls)
            if later == match_games:
                break
            next_req = service_pb2.NextGameRequest(
                state_token=update.state_token, seed=seed + number + 1000 * later
            )
            next_resp = svc.NextGame(next_req, ctx)
            calls.append(
                Call("NextGame", next_req.SerializeToString(), next_resp.SerializeToString())
            )
            update = next_resp.game
        out.append(tuple(calls))
    return out


def _play(
    svc: TienLenServicer,
    ctx: Any,
    update: Any,
    rng: random.Random,
    mode: str,
    calls: list[Call],
) -> Any:
    """Play one game from `update` to its end with random legal moves, recording the calls;
    the last GameUpdate."""
    while not update.finished:
        token = update.state_token
        state, _ = codec.decode_state(svc._tokens.decode(token))  # noqa: SLF001
        seat = state.to_act
        move = codec.move_to_pb(rng.choice(engine.legal_moves(state, seat)))
        if mode == "full":
            for name, req in (
                (
                    "ListLegalMoves",
                    service_pb2.ListLegalMovesRequest(state_token=token, seat=seat),
                ),
                (
                    "ValidateMove",
                    service_pb2.ValidateMoveRequest(state_token=token, seat=seat, move=move),
                ),
            ):
                resp = getattr(svc, name)(req, ctx)
                calls.append(Call(name, req.SerializeToString(), resp.SerializeToString()))
        apply_req = service_pb2.ApplyMoveRequest(
            state_token=token,
            seat=seat,
            move=move,
            view=game_pb2.UPDATE_VIEW_BASIC
            if mode == "basic"
            else game_pb2.UPDATE_VIEW_UNSPECIFIED,
        )
        apply_resp = svc.ApplyMove(apply_req, ctx)
        calls.append(
            Call("ApplyMove", apply_req.SerializeToString(), apply_resp.SerializeToString())
        )
        update = apply_resp.game
    return update


def save(games: list[Game], path: Path) -> None:
    """Write a recording (pickle: it is only ever read back by this benchmark's processes)."""
    path.write_bytes(pickle.dumps(games, protocol=pickle.HIGHEST_PROTOCOL))


def load(path: Path) -> list[Game]:
    """Read a recording written by `save`."""
    games: list[Game] = pickle.loads(path.read_bytes())
    return games


def stream_frame(message: bytes) -> bytes:
    """`message` as field 2 of a message: a PlayStreamRequest whose `move` is the ApplyMoveRequest
    `message`, or a PlayStreamResponse whose `applied` is the ApplyMoveResponse `message` (no
    tag), as the protobuf wire format lays them out."""
    return _framed(0x12, message)


#: The most moves in one PlayStream message (the service's limit, MoveBatch.moves).
MAX_BATCH: Final = streams.MAX_BATCH
_BATCH_TAG: Final = 0x1A  # PlayStreamRequest.batch (MoveBatch): field 3, length-delimited
_MOVES_TAG: Final = 0x0A  # MoveBatch.moves (StreamMove): field 1, length-delimited
_ANSWERS_TAG: Final = 0x22  # PlayStreamResponse.batch (MoveBatchResult): field 4
_RESULTS_TAG: Final = 0x0A  # MoveBatchResult.results (StreamMoveResult): field 1


def _framed(tag: int, message: bytes) -> bytes:
    size = len(message)
    prefix = bytearray((tag,))
    while size > 0x7F:
        prefix.append(size & 0x7F | 0x80)
        size >>= 7
    prefix.append(size)
    return bytes(prefix) + message


def batch_message(elements: list[bytes]) -> bytes:
    """One PlayStreamRequest whose `batch` holds `elements` (PlayStreamRequests with a tag and
    a move, whose bytes are a StreamMove's)."""
    return _framed(_BATCH_TAG, b"".join(_framed(_MOVES_TAG, element) for element in elements))


def batch_elements(response: bytes) -> list[bytes]:
    """The results of a PlayStreamResponse's `batch` (an answer without a tag of its own), each
    with a PlayStreamResponse's bytes; a response without a batch (a refused batch) is
    returned whole, as the one element."""
    body = _records(response, _ANSWERS_TAG)
    if body is None or len(body) != 1:
        return [response]
    results = _records(body[0], _RESULTS_TAG)
    return results or [response]


def _records(data: bytes, tag: int) -> list[bytes] | None:
    """The bodies of `data`'s records, all length-delimited with key `tag` (None: not so)."""
    out: list[bytes] = []
    i = 0
    while i < len(data) and data[i] == tag:
        i += 1
        size = shift = 0
        while True:
            byte = data[i]
            i += 1
            size |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                break
        out.append(data[i : i + size])
        i += size
    return out if i == len(data) else None


def answers(games: list[Game]) -> dict[str, dict[bytes, bytes]]:
    """Method -> request bytes -> recorded response bytes (what the echo baseline answers).

    Per method: a ValidateMove request has the same fields, so the same bytes, as the
    ApplyMove request of the same move. "PlayStream" holds the ApplyMove answers framed as
    PlayStream messages (`stream_frame`)."""
    out: dict[str, dict[bytes, bytes]] = {}
    for g in games:
        for call in g:
            out.setdefault(call.method, {})[call.request] = call.response
    out["PlayStream"] = {
        stream_frame(req): stream_frame(resp) for req, resp in out.get("ApplyMove", {}).items()
    }
    return out


def sizes(games: list[Game]) -> dict[str, tuple[float, float, int]]:
    """Per method: mean request bytes, mean response bytes, number of calls."""
    acc: dict[str, list[int]] = {}
    for g in games:
        for call in g:
            row = acc.setdefault(call.method, [0, 0, 0])
            row[0] += len(call.request)
            row[1] += len(call.response)
            row[2] += 1
    return {m: (r[0] / r[2], r[1] / r[2], r[2]) for m, r in acc.items()}
