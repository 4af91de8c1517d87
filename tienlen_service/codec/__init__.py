"""Engine values <-> the protobuf messages of the contract (`tienlen.v1`), one module per concept.

The engine (`tienlen_rules`) never sees protobuf; this package is the one place that translates:

    cards       cards (ints 0..51 <-> Card enums), moves, combinations
    rules       RuleSetSpec <-> RuleSet; DescribeRules' options and presets
    state       GameState -> the payload of a state token (protobuf's deterministic bytes)
    state_decode  the payload of a state token -> GameState, never trusting the bytes
    events      the engine's events -> Event (the events of a move's answer)
    listing     a seat's legal-move listing -> ListLegalMoves' LegalMove and MoveGroupCount
    settlement  a finished game's Settlement
    view        what one seat sees -> TableView (the view of every answer)
    update      a step's GameUpdate (token, events, view, settlement) and the answers holding it
    errors      FieldError (a request field that can't be read) and StateDecodeError
    _wire       hand-written wire bytes, private to the fast paths of `view`, `events`, `update`,
                `state` (and the card records of `cards`)
    _layouts    the layout of every message written by hand, declared once

Each module states its mapping with messages (`event_to_pb`, `view_to_pb`, …): that is the
specification. The view and the events, sent with every move, are also written straight as
wire bytes (`view_to_wire`, `events_to_wire`), tested byte for byte against the mapping; the
reason and the measurements are in bench/README.md. Callers use the names re-exported here
(`from tienlen_service import codec`, then `codec.view_to_wire(...)`). A step's whole answer is
written the same way around them (`update_to_wire`, tested against `update_to_pb`), so the
service's ports send those bytes as they are (`wire_answer`), and so is the state token's
payload (`encode_state`).

A new field of a message goes into its concept's module: into the mapping, and for a message
written by hand into its layout (`_layouts`) and its fast path too, in field-number order;
tests/codec/ fails until the layout lists every field of the proto and the two paths agree
byte for byte. docs/ARCHITECTURE.md has the recipes (an answer's field, a token's field).
A new message gets a module of its own when it is a concept of its own (a game record, say).
"""

from __future__ import annotations

from tienlen_service.codec.cards import (
    card_from_pb,
    card_from_text,
    card_to_pb,
    card_to_text,
    cards_from_pb,
    cards_to_pb,
    combination_to_pb,
    hand_from_pb,
    kind_from_pb,
    move_from_pb,
    move_to_pb,
)
from tienlen_service.codec.errors import (
    INVALID_ARGUMENT,
    INVALID_CARD,
    FieldError,
    StateDecodeError,
)
from tienlen_service.codec.events import event_to_pb, events_to_pb, events_to_wire
from tienlen_service.codec.listing import group_counts_to_pb, legal_move_to_pb
from tienlen_service.codec.rules import (
    MAX_OPTION_CHIPS,
    check_amounts,
    constraints_to_pb,
    describe_rules_to_pb,
    option_to_pb,
    rules_from_pb,
    rules_to_pb,
    variants_to_pb,
)
from tienlen_service.codec.seating import seating_from_pb
from tienlen_service.codec.settlement import settlement_to_pb
from tienlen_service.codec.state import (
    GAME_ID_BYTES,
    encode_state,
    new_game_id,
    state_to_pb,
)
from tienlen_service.codec.state_decode import decode_state
from tienlen_service.codec.update import (
    apply_answer_wire,
    assemble_update,
    stream_applied_wire,
    stream_batch_wire,
    update_to_pb,
    update_to_wire,
    wire_answer,
)
from tienlen_service.codec.view import (
    follow_rules_to_pb,
    spectator_view_to_wire,
    view_to_pb,
    view_to_wire,
)

__all__ = [
    "GAME_ID_BYTES",
    "INVALID_ARGUMENT",
    "INVALID_CARD",
    "MAX_OPTION_CHIPS",
    "FieldError",
    "StateDecodeError",
    "apply_answer_wire",
    "assemble_update",
    "card_from_pb",
    "card_from_text",
    "card_to_pb",
    "card_to_text",
    "cards_from_pb",
    "cards_to_pb",
    "check_amounts",
    "combination_to_pb",
    "constraints_to_pb",
    "decode_state",
    "describe_rules_to_pb",
    "encode_state",
    "event_to_pb",
    "events_to_pb",
    "events_to_wire",
    "follow_rules_to_pb",
    "group_counts_to_pb",
    "hand_from_pb",
    "kind_from_pb",
    "legal_move_to_pb",
    "move_from_pb",
    "move_to_pb",
    "new_game_id",
    "option_to_pb",
    "rules_from_pb",
    "rules_to_pb",
    "seating_from_pb",
    "settlement_to_pb",
    "spectator_view_to_wire",
    "state_to_pb",
    "stream_applied_wire",
    "stream_batch_wire",
    "update_to_pb",
    "update_to_wire",
    "variants_to_pb",
    "view_to_pb",
    "view_to_wire",
    "wire_answer",
]
