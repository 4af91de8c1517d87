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
issue 28). tests/codec/ proves the two byte for byte for every step of random matches
of every preset. `apply_answer_wire` and `stream_applied_wire` wrap an update into
ApplyMove's answer and PlayStream's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from tienlen.v1 import game_pb2
from tienlen_rules import MAX_PLAYERS, SPECTATOR, chop_open, chop_seats, settle, view
from tienlen_service.codec._layouts import (
    APPLY_MOVE_RESPONSE,
    GAME_UPDATE,
    MOVE_BATCH_RESULT,
    PLAY_STREAM_RESPONSE,
)
from tienlen_service.codec._wire import VARINT_TABLE, VARINTS, varint
from tienlen_service.codec.events import events_to_pb, events_to_wire
from tienlen_service.codec.settlement import settlement_to_pb
from tienlen_service.codec.view import chop_records, spectator_view_to_wire, view_to_pb

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
    chops: bool = True,
) -> game_pb2.GameUpdate:
    """The GameUpdate of a step that led to `state`, signed as `token`; with `chops`, the
    seats that could chop out of turn (RULES §9.5: the host's, see `view_to_pb`)."""
    update = game_pb2.GameUpdate(
        state_token=token,
        events=events_to_pb(events),
        game_id=game_id,
        game_number=state.match.game_number,
        move_number=state.move_count,
        chop_seats=chop_seats(state) if chops else (),
        chop_open=chop_open(state),
    )
    if with_view:
        update.view.CopyFrom(view_to_pb(view(state, SPECTATOR), state, chops=chops))
    if state.to_act >= 0:
        update.to_act = state.to_act
    if state.over:
        update.finished = True
        update.settlement.CopyFrom(settlement_to_pb(settle(state), replayed=state.match.replayed))
    update.replayed = state.match.replayed
    return update


# --------------------------------------------------------------------------------------------
# The wire bytes (the answer of every move)

_GU_TOKEN: Final = GAME_UPDATE.tag("state_token")
_GU_VIEW: Final = GAME_UPDATE.tag("view")
_GU_TO_ACT: Final = GAME_UPDATE.records("to_act", MAX_PLAYERS)  # optional: a seat 0 is written
_GU_FINISHED: Final = GAME_UPDATE.bool_record("finished")
_GU_SETTLEMENT: Final = GAME_UPDATE.tag("settlement")
_GU_GAME_ID: Final = GAME_UPDATE.tag("game_id")
_GU_GAME_NUMBER: Final = GAME_UPDATE.tag("game_number")
_GU_MOVE_NUMBER: Final = GAME_UPDATE.tag("move_number")
_GU_CHOP_SEATS: Final = GAME_UPDATE.tag("chop_seats")
_GU_CHOP_OPEN: Final = GAME_UPDATE.bool_record("chop_open")
_GU_REPLAYED: Final = GAME_UPDATE.bool_record("replayed")
_AM_GAME: Final = APPLY_MOVE_RESPONSE.tag("game")
_PS_TAG: Final = PLAY_STREAM_RESPONSE.tag("tag")
_PS_APPLIED: Final = PLAY_STREAM_RESPONSE.tag("applied")
_PS_BATCH: Final = PLAY_STREAM_RESPONSE.tag("batch")
_MBR_RESULTS: Final = MOVE_BATCH_RESULT.tag("results")


def update_to_wire(
    token: bytes,
    game_id: bytes,
    state: GameState,
    events: Sequence[Event],
    *,
    with_view: bool = True,
    chops: bool = True,
) -> bytes:
    """The bytes of `update_to_pb(...)` (deterministic)."""
    table = spectator_view_to_wire(state, chops=chops) if with_view else None
    return assemble_update(token, game_id, state, events_to_wire(events), table, chops=chops)


def assemble_update(
    token: bytes,
    game_id: bytes,
    state: GameState,
    events: bytes,
    table: bytes | None,
    *,
    chops: bool = True,
) -> bytes:
    """`update_to_wire` around the wire bytes of its events (`events_to_wire`) and of its view
    (`spectator_view_to_wire`, None: no view), in `GAME_UPDATE`'s order."""
    size = len(token)
    out = [_GU_TOKEN, (VARINTS[size] if size < VARINT_TABLE else varint(size)), token, events]
    if table is not None:
        size = len(table)
        out += (_GU_VIEW, (VARINTS[size] if size < VARINT_TABLE else varint(size)), table)
    to_act = state.to_act
    if to_act >= 0:
        out.append(_GU_TO_ACT[to_act])
    else:
        settlement = settlement_to_pb(
            settle(state), replayed=state.match.replayed
        ).SerializeToString(deterministic=True)
        out += (_GU_FINISHED, _GU_SETTLEMENT, varint(len(settlement)), settlement)
    size = len(game_id)
    out += (_GU_GAME_ID, (VARINTS[size] if size < VARINT_TABLE else varint(size)), game_id)
    match = state.match
    game_number = match.game_number
    if game_number:
        out += (
            _GU_GAME_NUMBER,
            (VARINTS[game_number] if 0 < game_number < VARINT_TABLE else varint(game_number)),
        )
    moves = state.move_count
    if moves:
        out += (_GU_MOVE_NUMBER, (VARINTS[moves] if 0 < moves < VARINT_TABLE else varint(moves)))
    on_table = state.table
    if on_table is not None and to_act >= 0:
        opened = state.rules.open_tables.get(on_table.cards)  # `chop_open`'s memo, read here first
        if opened or (opened is None and chop_open(state)):
            out += chop_records(state, _GU_CHOP_SEATS, _GU_CHOP_OPEN, host=chops)
    if match.replayed:
        out.append(_GU_REPLAYED)
    return b"".join(out)


def apply_answer_wire(update: bytes) -> bytes:
    """The bytes of `ApplyMoveResponse(game=GameUpdate.FromString(update))`."""
    size = len(update)
    return _AM_GAME + (VARINTS[size] if size < VARINT_TABLE else varint(size)) + update


def stream_applied_wire(tag_text: str, answer: bytes) -> bytes:
    """The bytes of `PlayStreamResponse(tag=tag_text, applied=ApplyMoveResponse.FromString(
    answer))`: a PlayStream message's answer when its move was applied."""
    out = [_PS_TAG, varint(len(encoded)), encoded] if (encoded := tag_text.encode()) else []
    out += (_PS_APPLIED, varint(len(answer)), answer)
    return b"".join(out)


def stream_batch_wire(tag_text: str, answers: Sequence[bytes]) -> bytes:
    """The bytes of `PlayStreamResponse(tag=tag_text, batch=MoveBatchResult(results=[
    StreamMoveResult.FromString(a) for a in answers]))`: a batch's answer around the answers
    of its moves, each a PlayStreamResponse to a move (`stream_applied_wire`, or a refusal),
    whose fields a StreamMoveResult shares number for number."""
    results: list[bytes] = []
    for answer in answers:
        results += (_MBR_RESULTS, varint(len(answer)), answer)
    body = b"".join(results)
    out = [_PS_TAG, varint(len(encoded)), encoded] if (encoded := tag_text.encode()) else []
    out += (_PS_BATCH, varint(len(body)), body)
    return b"".join(out)


def wire_answer(answer: bytes) -> bytes:
    """The `response_serializer` of a method handler that answers with its response's wire
    bytes (ApplyMove and PlayStream on the service's ports): they are sent as they are. A
    caller that needs the message (the web port's JSON) parses them with the method's output
    class."""
    return answer
