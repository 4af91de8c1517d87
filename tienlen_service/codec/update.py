"""A step's answer: engine state and events -> `tienlen.v1.GameUpdate` (and the answers that
hold one).

Every RPC that moves a game (NewGame, ApplyMove, PlayStream, NextGame, ReplayGame) answers
with a GameUpdate: the new state token, the step's events, the spectator view (unless the
caller asked for UPDATE_VIEW_BASIC), the seat to act, and once the game is over the
settlement; with the game id and the (game, move) numbers a host keeps to refuse stale
tokens.

`update_to_pb` is the mapping, built with messages. `update_to_wire` writes the same bytes
straight from the pieces the codec already writes as wire bytes (the events and the view):
building the message from those bytes parsed them back into messages only for protobuf to
serialise them again, 44k of a move's ~330k instructions in process (bench/README.md,
issue 28). tests/test_codec.py proves the two byte for byte for every step of random matches
of every preset. `apply_answer_wire` and `stream_applied_wire` wrap an update into
ApplyMove's answer and PlayStream's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from tienlen.v1 import game_pb2, service_pb2
from tienlen_rules import MAX_PLAYERS, SPECTATOR, settle, view
from tienlen_service.codec._wire import bool_record, records, tag, varint
from tienlen_service.codec.events import events_to_pb, events_to_wire
from tienlen_service.codec.settlement import settlement_to_pb
from tienlen_service.codec.view import spectator_view_to_wire, view_to_pb

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tienlen_rules import Event, GameState

# --------------------------------------------------------------------------------------------
# The mapping


def update_to_pb(
    token: bytes,
    game_id: bytes,
    state: GameState,
    events: Sequence[Event],
    *,
    with_view: bool = True,
) -> game_pb2.GameUpdate:
    """The GameUpdate of a step that led to `state`, signed as `token`."""
    update = game_pb2.GameUpdate(
        state_token=token,
        events=events_to_pb(events),
        game_id=game_id,
        game_number=state.match.game_number,
        move_number=state.move_count,
    )
    if with_view:
        update.view.CopyFrom(view_to_pb(view(state, SPECTATOR), state))
    if state.to_act >= 0:
        update.to_act = state.to_act
    if state.over:
        update.finished = True
        update.settlement.CopyFrom(settlement_to_pb(settle(state), replayed=state.match.replayed))
    update.replayed = state.match.replayed
    return update


# --------------------------------------------------------------------------------------------
# The wire bytes (the answer of every move)

_GU: Final = game_pb2.GameUpdate
_GU_TOKEN: Final = tag(_GU, "state_token")
_GU_VIEW: Final = tag(_GU, "view")
_GU_TO_ACT: Final = records(_GU, "to_act", MAX_PLAYERS)  # optional: a seat 0 is written
_GU_FINISHED: Final = bool_record(_GU, "finished")
_GU_SETTLEMENT: Final = tag(_GU, "settlement")
_GU_GAME_ID: Final = tag(_GU, "game_id")
_GU_GAME_NUMBER: Final = tag(_GU, "game_number")
_GU_MOVE_NUMBER: Final = tag(_GU, "move_number")
_GU_REPLAYED: Final = bool_record(_GU, "replayed")
_AM_GAME: Final = tag(service_pb2.ApplyMoveResponse, "game")
_PS_TAG: Final = tag(service_pb2.PlayStreamResponse, "tag")
_PS_APPLIED: Final = tag(service_pb2.PlayStreamResponse, "applied")
_PS_BATCH: Final = tag(service_pb2.PlayStreamResponse, "batch")


def update_to_wire(
    token: bytes,
    game_id: bytes,
    state: GameState,
    events: Sequence[Event],
    *,
    with_view: bool = True,
) -> bytes:
    """The bytes of `update_to_pb(...)` (deterministic)."""
    table = spectator_view_to_wire(state) if with_view else None
    return assemble_update(token, game_id, state, events_to_wire(events), table)


def assemble_update(
    token: bytes, game_id: bytes, state: GameState, events: bytes, table: bytes | None
) -> bytes:
    """`update_to_wire` around the wire bytes of its events (`events_to_wire`) and of its view
    (`spectator_view_to_wire`, None: no view), in field-number order."""
    out = [_GU_TOKEN, varint(len(token)), token, events]
    if table is not None:
        out += (_GU_VIEW, varint(len(table)), table)
    to_act = state.to_act
    if to_act >= 0:
        out.append(_GU_TO_ACT[to_act])
    else:
        settlement = settlement_to_pb(
            settle(state), replayed=state.match.replayed
        ).SerializeToString(deterministic=True)
        out += (_GU_FINISHED, _GU_SETTLEMENT, varint(len(settlement)), settlement)
    out += (_GU_GAME_ID, varint(len(game_id)), game_id)
    game_number = state.match.game_number
    if game_number:
        out += (_GU_GAME_NUMBER, varint(game_number))
    if state.move_count:
        out += (_GU_MOVE_NUMBER, varint(state.move_count))
    if state.match.replayed:
        out.append(_GU_REPLAYED)
    return b"".join(out)


def apply_answer_wire(update: bytes) -> bytes:
    """The bytes of `ApplyMoveResponse(game=GameUpdate.FromString(update))`."""
    return _AM_GAME + varint(len(update)) + update


def stream_applied_wire(tag_text: str, answer: bytes) -> bytes:
    """The bytes of `PlayStreamResponse(tag=tag_text, applied=ApplyMoveResponse.FromString(
    answer))`: a PlayStream message's answer when its move was applied."""
    out = [_PS_TAG, varint(len(encoded)), encoded] if (encoded := tag_text.encode()) else []
    out += (_PS_APPLIED, varint(len(answer)), answer)
    return b"".join(out)


def stream_batch_wire(tag_text: str, answers: Sequence[bytes]) -> bytes:
    """The bytes of `PlayStreamResponse(tag=tag_text, batch=[PlayStreamResponse.FromString(a)
    for a in answers])`: a batch's answer around its elements' answers."""
    out = [_PS_TAG, varint(len(encoded)), encoded] if (encoded := tag_text.encode()) else []
    for answer in answers:
        out += (_PS_BATCH, varint(len(answer)), answer)
    return b"".join(out)


def wire_answer(answer: bytes) -> bytes:
    """The `response_serializer` of a method handler that answers with its response's wire
    bytes (ApplyMove and PlayStream on the service's ports): they are sent as they are. A
    caller that needs the message (the web port's JSON) parses them with the method's output
    class."""
    return answer
