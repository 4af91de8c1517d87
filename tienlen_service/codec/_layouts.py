"""The layout of every message the codec writes by hand, declared once, in one place.

A layout (`_wire.Layout`) names the fields its encoder writes, in the order it writes them
(field-number order), the ones it never writes and why, and those whose bytes protobuf
serialises from the mapping's message (`serialised`: a field added inside those needs nothing
here). The encoders (`cards`, `events`, `view`, `update`, `state`) take their keys from these
layouts; tests/codec/test_layouts.py checks each against its message's descriptor and that
every message a hand-written one holds is declared too, so a field added to the proto and not
here fails. To add a field to one of these messages, follow docs/ARCHITECTURE.md ("A new
field of an answer", "A new field of the state token"): the proto, the mapping, this file,
the encoder.
"""

from __future__ import annotations

from typing import Final

from tienlen.v1 import events_pb2, game_pb2, moves_pb2, service_pb2, state_pb2
from tienlen_service.codec._wire import Layout

# --- moves.proto ------------------------------------------------------------------------------

COMBINATION: Final = Layout(
    moves_pb2.Combination, ("type", "length", "top", "cards"), serialised=("top", "cards")
)

# --- events.proto -----------------------------------------------------------------------------

EVENT: Final = Layout(
    events_pb2.Event,
    (  # a oneof: one of them per event
        "game_started",
        "played",
        "passed",
        "chop_settled",
        "round_won",
        "player_finished",
        "players_frozen",
        "instant_win",
        "turn_passed",
        "game_over",
        "timed_out",
        "auto_play",
        "player_left",
        "seat_vacated",
        "seat_taken",
    ),
)
GAME_STARTED: Final = Layout(
    events_pb2.GameStarted,
    ("game_number", "leader", "must_include", "first_game", "dealer", "hand_sizes"),
    serialised=("must_include",),
)
PLAYED: Final = Layout(
    events_pb2.Played, ("seat", "combination", "chop", "out_of_turn", "steal", "cards_left")
)
PASSED: Final = Layout(events_pb2.Passed, ("seat",))
CHOP_SETTLED: Final = Layout(
    events_pb2.ChopSettled,
    ("payer", "payee", "amount", "cards", "links", "victim_out"),
    serialised=("cards",),
)
ROUND_WON: Final = Layout(events_pb2.RoundWon, ("seat", "leader"))
PLAYER_FINISHED: Final = Layout(events_pb2.PlayerFinished, ("seat", "place", "ranked_last"))
PLAYERS_FROZEN: Final = Layout(events_pb2.PlayersFrozen, ("seats", "places"))
INSTANT_WIN: Final = Layout(events_pb2.InstantWin, ("seat", "pattern"))
TURN_PASSED: Final = Layout(events_pb2.TurnPassed, ("seat",))
GAME_OVER: Final = Layout(events_pb2.GameOver, ("places",))
TIMED_OUT: Final = Layout(events_pb2.TimedOut, ("seat", "timeouts"))
AUTO_PLAY: Final = Layout(events_pb2.AutoPlay, ("seat", "on"))
PLAYER_LEFT: Final = Layout(events_pb2.PlayerLeft, ("seat", "forfeit", "place"))
SEAT_VACATED: Final = Layout(events_pb2.SeatVacated, ("seat", "player_id", "total"))
SEAT_TAKEN: Final = Layout(events_pb2.SeatTaken, ("seat", "player_id"))

# --- game.proto -------------------------------------------------------------------------------

SEAT_STATUS: Final = Layout(
    game_pb2.SeatStatus,
    (
        "seat",
        "cards_left",
        "place",
        "passed",
        "frozen",
        "has_played",
        "match_total",
        "empty",
        "auto",
        "left",
        "forfeited",
        "player_id",
        "timeouts",
        "bankroll",
    ),
)
TABLE_VIEW: Final = Layout(
    game_pb2.TableView,
    (
        "seat",
        "hand",
        "players",
        "rules",
        "seats",
        "table",
        "table_seat",
        "to_act",
        "must_include",
        "finished",
        "first_game",
        "game_number",
        "dealer",
        "played",
        "steal_open",
        "move_count",
        "follow_rules",
        "chop_seats",
        "chop_open",
        "replayed",
    ),
    serialised=("hand", "rules", "must_include", "played", "follow_rules"),
)
GAME_UPDATE: Final = Layout(
    game_pb2.GameUpdate,
    (
        "state_token",
        "events",
        "view",
        "to_act",
        "finished",
        "settlement",
        "game_id",
        "game_number",
        "move_number",
        "chop_seats",
        "chop_open",
        "replayed",
    ),
    serialised=("settlement",),
)

# --- service.proto: the answers that hold a GameUpdate ----------------------------------------

APPLY_MOVE_RESPONSE: Final = Layout(service_pb2.ApplyMoveResponse, ("game",))
PLAY_STREAM_RESPONSE: Final = Layout(
    service_pb2.PlayStreamResponse,
    ("tag", "applied", "batch"),
    never={"error": "a refusal is built as a message (statuses.stream_refusal), not here"},
)
MOVE_BATCH_RESULT: Final = Layout(service_pb2.MoveBatchResult, ("results",))
# A batch's results are PlayStreamResponses to one move each (`stream_applied_wire`, or a
# refusal): a StreamMoveResult has their fields, number for number.
STREAM_MOVE_RESULT: Final = Layout(
    service_pb2.StreamMoveResult,
    ("tag", "applied"),
    never={"error": "a refusal is built as a message (statuses.stream_refusal), not here"},
)

# --- state.proto: the state token's payload ---------------------------------------------------

CHAIN_LINK_STATE: Final = Layout(state_pb2.ChainLinkState, ("seat", "cards"))
CHOP_PAYMENT_STATE: Final = Layout(
    state_pb2.ChopPaymentState, ("payer", "payee", "amount", "cards")
)
# The fields a game keeps from move to move (`serialised`: serialised by protobuf once per game
# and cached, codec.state._GameParts) and those a move changes (written per move by hand),
# in field-number order: the payload is their runs joined in this order (`Layout.pieces`).
GAME_STATE: Final = Layout(
    state_pb2.GameState,
    (
        "game_id",
        "variant",
        "overrides",
        "hands",
        "dealt",
        "to_act",
        "must_include",
        "table",
        "table_seat",
        "passed",
        "chain",
        "chain_victim_out",
        "places",
        "frozen",
        "unplayed",
        "chop_payments",
        "first_game",
        "steal_open",
        "instant_winner",
        "instant_pattern",
        "compensation_seat",
        "winning_play",
        "move_count",
        "match",
        "rules_revision",
        "timeouts",
        "auto",
        "departed",
        "forfeited",
        "match_secret",
    ),
    serialised=("game_id", "variant", "overrides", "match", "rules_revision", "match_secret"),
)
