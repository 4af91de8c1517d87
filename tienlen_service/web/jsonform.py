"""The web port's JSON: proto3 JSON, written the way a JavaScript reader expects.

Three choices on top of the standard mapping (every answer still parses with any proto3 JSON
parser, protobuf-es included, and every standard request is still accepted):

- **No field vanishes.** A field without presence is written even when it holds its zero:
  seat 0 is ``"seat": 0``, a game in play is ``"finished": false``, seat 0's transfer has its
  ``"payer": 0``, an empty list is ``[]``. (The standard's "emit default values" option.) A
  field *with* presence (``optional``, a message) is still left out when unset, because there
  its absence means something: ``toAct`` is absent when nobody is to act.
- **Chips are numbers.** 64-bit integers are JSON numbers when a JavaScript number holds them
  exactly (|n| < 2^53), as every chip amount does; larger ones (a random 64-bit seed) stay
  strings, as the standard writes them. Standard parsers read both.
- **Cards are text too.** Every ``Card`` answered carries ``"text": "3S"`` next to its rank and
  suit (the contract's ``Card.text``, filled only here: binary answers stay as they were). A
  request may give a card as ``{"text": "10D"}`` (standard proto3 JSON of ``Card.text``) or,
  shorter, as the bare string ``"10D"`` (read as that); either is read into rank and suit
  before the servicer sees the request, so the engine's checks run on it as on any card.
"""

from __future__ import annotations

import functools
import json
from typing import TYPE_CHECKING, Any, Final

import grpc
from google.protobuf import any_pb2, json_format
from google.protobuf.descriptor import FieldDescriptor
from google.rpc import error_details_pb2

from tienlen_rules import CardParseError
from tienlen_service import codec
from tienlen_service.observability import ERROR_DOMAIN
from tienlen_service.web.context import connect_error

if TYPE_CHECKING:
    from google.protobuf.message import Message

CARD: Final = "tienlen.v1.Card"
SAFE_INTEGER: Final = 2**53 - 1
"""The largest integer a JavaScript number holds exactly (Number.MAX_SAFE_INTEGER)."""
_INT64: Final = frozenset(
    {
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_SFIXED64,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_FIXED64,
    }
)
_OURS: Final = "tienlen."


# --------------------------------------------------------------------------------------------
# Answers


def to_json(message: Message) -> bytes:
    """The JSON of an answer (see the module's docstring)."""
    data = json_format.MessageToDict(message, always_print_fields_with_no_presence=True)
    if message.DESCRIPTOR.full_name == CARD:
        data["text"] = _TEXTS.get((str(data.get("rank")), str(data.get("suit"))), "")
    _friendly(message.DESCRIPTOR, data)
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode()


#: What `_friendly` does to a field: 64-bit integers, a card, a message to walk into.
_INT, _CARD, _MESSAGE = 0, 1, 2


@functools.cache
def _plan(desc: Any) -> tuple[tuple[str, ...], tuple[tuple[str, int, bool, Any], ...]]:
    """A message type's field names in the contract's order, and its fields `_friendly` must
    visit: (JSON name, what, repeated, message type). Built once per message type."""
    order = tuple(f.json_name for f in desc.fields)
    visits = []
    for field in desc.fields:
        target = field.message_type
        if field.type in _INT64:
            visits.append((field.json_name, _INT, field.is_repeated, None))
        elif target is None or not target.full_name.startswith(_OURS):
            continue
        elif target.GetOptions().map_entry:
            continue  # our maps are string -> string
        elif target.full_name == CARD:
            visits.append((field.json_name, _CARD, field.is_repeated, None))
        else:
            visits.append((field.json_name, _MESSAGE, field.is_repeated, target))
    return order, tuple(visits)


def _card_texts() -> dict[tuple[str, str], str]:
    """(rank name, suit name) as proto3 JSON writes them -> card text, for every card."""
    from tienlen.v1 import cards_pb2

    out = {}
    for rank in range(1, 14):
        for suit in range(1, 5):
            card = cards_pb2.Card(rank=rank, suit=suit)  # type: ignore[arg-type]
            key = (cards_pb2.Rank.Name(rank), cards_pb2.Suit.Name(suit))  # type: ignore[arg-type]
            out[key] = codec.card_to_text(card)
    return out


_TEXTS: Final = _card_texts()


def _friendly(desc: Any, data: dict[str, Any]) -> None:
    """Numbers for safe 64-bit integers and text for cards, in place, down the whole tree; the
    fields in the contract's order (the standard printer puts the zeros it adds last)."""
    order, visits = _plan(desc)
    if list(data) != [k for k in order if k in data]:
        ordered = {k: data.pop(k) for k in order if k in data}
        data.update(ordered)
    for key, what, repeated, target in visits:
        value = data.get(key)
        if value is None:
            continue
        if what == _INT:
            data[key] = _numbers(value)
        elif what == _CARD:
            for card in value if repeated else (value,):
                card["text"] = _TEXTS.get((card.get("rank"), card.get("suit")), "")
        elif repeated:
            for item in value:
                _friendly(target, item)
        else:
            _friendly(target, value)


def _numbers(value: Any) -> Any:
    """A 64-bit integer (a string in proto3 JSON) as a number when JavaScript holds it exactly;
    a list of them likewise."""
    if isinstance(value, list):
        return [_numbers(v) for v in value]
    if isinstance(value, str):
        number = int(value)
        return number if -SAFE_INTEGER <= number <= SAFE_INTEGER else value
    return value


# --------------------------------------------------------------------------------------------
# Requests


def from_json(data: bytes | bytearray, message_class: type[Message]) -> Message:
    """A request from its JSON (proto3 JSON; cards may be ``{"text": "3S"}`` or ``"3S"``). Unknown fields
    are refused, so that a misspelt field is an error rather than a silent default.
    Raises ParseError for JSON that is not this message, a Connect error (INVALID_ARGUMENT,
    INVALID_CARD) for a card text that is not a card."""
    message = message_class()
    tree = json.loads(bytes(data))
    _card_strings(message.DESCRIPTOR, tree)
    json_format.ParseDict(tree, message, ignore_unknown_fields=False)
    _read_card_texts(message, "")
    return message


def _card_strings(desc: Any, tree: Any) -> None:
    """A card written as a bare string (``"cards": ["3S", "4S"]``) becomes ``{"text": "3S"}``,
    in place, so that the standard parser reads it into `Card.text`."""
    if not isinstance(tree, dict):
        return
    for field in desc.fields:
        key = field.json_name if field.json_name in tree else field.name
        value = tree.get(key)
        target = field.message_type
        if value is None or target is None or not target.full_name.startswith(_OURS):
            continue
        if target.full_name == CARD:
            if isinstance(value, str):
                tree[key] = {"text": value}
            elif isinstance(value, list):
                tree[key] = [{"text": v} if isinstance(v, str) else v for v in value]
        elif isinstance(value, list):
            for item in value:
                _card_strings(target, item)
        else:
            _card_strings(target, value)


def _read_card_texts(message: Message, path: str) -> None:
    if message.DESCRIPTOR.full_name == CARD:
        _read_card_text(message, path)
        return
    for field, value in message.ListFields():
        if field.message_type is None or not field.message_type.full_name.startswith(_OURS):
            continue
        name = f"{path}.{field.name}" if path else field.name
        if field.message_type.GetOptions().map_entry:
            continue  # no map of ours holds cards
        if field.is_repeated:
            for i, item in enumerate(value):
                _read_card_texts(item, f"{name}[{i}]")
        else:
            _read_card_texts(value, name)


def _read_card_text(card: Message, path: str) -> None:
    text: str = card.text  # type: ignore[attr-defined]
    if not text:
        return
    try:
        parsed = codec.card_from_text(text)
    except CardParseError as exc:
        raise _invalid_card(f"{path}.text", f"{text!r} is not a card: {exc}") from None
    rank, suit = card.rank, card.suit  # type: ignore[attr-defined]
    if (rank or suit) and (rank, suit) != (parsed.rank, parsed.suit):
        raise _invalid_card(
            f"{path}.text", f"the text {text!r} and the rank and suit name different cards"
        )
    card.rank, card.suit = parsed.rank, parsed.suit  # type: ignore[attr-defined]
    card.text = ""  # type: ignore[attr-defined] # the servicer reads rank and suit


def _invalid_card(field: str, description: str) -> Exception:
    """INVALID_ARGUMENT, ErrorInfo INVALID_CARD naming the field, BadRequest: the shape the
    servicer gives an invalid card."""
    info = any_pb2.Any()
    info.Pack(
        error_details_pb2.ErrorInfo(
            reason=codec.INVALID_CARD, domain=ERROR_DOMAIN, metadata={"field": field}
        )
    )
    bad = any_pb2.Any()
    bad.Pack(
        error_details_pb2.BadRequest(
            field_violations=[
                error_details_pb2.BadRequest.FieldViolation(field=field, description=description)
            ]
        )
    )
    return connect_error(grpc.StatusCode.INVALID_ARGUMENT, description, [info, bad])
