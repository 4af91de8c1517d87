"""The protobuf wire format, written by hand for the answer of every move (its hot path).

Building a protobuf message field by field and serialising it costs a loaded replica far more
than the bytes are worth (bench/README.md §5: every µs of servicer work in process is 3–4 µs
of a loaded server's CPU, and a message per seat and per card was most of a view). The view
(`codec.view`) and the events (`codec.events`) are therefore written as wire bytes with these
primitives, the GameUpdate around them (`codec.update`), so that an answer is never parsed
back into messages only to be serialised again, and the per-move fields of the state token's
payload (`codec.state`). Each module keeps its readable, message-built mapping beside the
fast path, and tests/codec/ proves, for every state and event of random matches of every
preset and edge values of every field, that the bytes are exactly the mapping's
`SerializeToString(deterministic=True)` and parse to the mapping's message (and the payloads
are the pinned ones). Nothing else writes wire bytes by hand.

Each message written by hand is declared once, as a `Layout`: the fields its encoder writes,
in the order written (field-number order, as a deterministic serialisation writes them), the
ones it never writes (and why), and those whose bytes protobuf serialises from the mapping's
message. The encoder takes its keys from its layout (`layout.tag(name)`), so it cannot write
a field the layout does not list, and tests/codec/test_layouts.py checks every layout against
its message's descriptor: a field added to the proto and not to the layout fails there.

Field numbers and wire types come from the generated descriptors, never from literals here, so
a renumbered field (which buf's breaking check refuses anyway) can't silently drift.
Only the encodings those answers use are here: varints (int32, int64, uint32, uint64, bool,
enum), zigzag varints (sint32, sint64), fixed64, and length-delimited records (strings,
messages, packed repeated scalars).
"""

from __future__ import annotations

import struct
from functools import lru_cache
from typing import TYPE_CHECKING, Final

from google.protobuf.descriptor import FieldDescriptor

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from google.protobuf.message import Message

VARINT: Final = 0
FIXED64: Final = 1
LENGTH_DELIMITED: Final = 2

_UINT64: Final = 1 << 64
# One byte per small varint: most fields of a view or an event are below 128.
_SMALL: Final = tuple(bytes((i,)) for i in range(128))


def varint(value: int) -> bytes:
    """Base-128 varint; a negative value is its 64-bit two's complement (10 bytes), as
    protobuf encodes a negative int32/int64."""
    if 0 <= value < 128:
        return _SMALL[value]
    return _long_varint(value)


@lru_cache(maxsize=4096)
def _long_varint(value: int) -> bytes:
    # Memoised: the long values on the wire are mostly match totals and chip amounts, the same
    # ones on every move of a game (a negative total is a 10-byte loop each time otherwise).
    if value < 0:
        value += _UINT64
    out = bytearray()
    while value >= 128:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


#: The varint of every value below VARINT_TABLE, to index instead of calling `varint` where a
#: call would cost more than the encoding (lengths, seats and counts on every answer):
#: `VARINTS[n] if n < VARINT_TABLE else varint(n)`.
VARINT_TABLE: Final = 1 << 12
VARINTS: Final = tuple(varint(i) for i in range(VARINT_TABLE))


def int_field(key: bytes, value: int) -> bytes:
    """The record of an integer field without presence (proto3 writes no 0)."""
    return key + varint(value) if value else b""


def packed_varints(key: bytes, values: Iterable[int]) -> bytes:
    """The record of a packed repeated varint field (none for an empty list)."""
    body = b"".join(map(varint, values))
    return key + varint(len(body)) + body if body else b""


def length_delimited(tag: bytes, body: bytes) -> bytes:
    """A length-delimited record: tag, length, body."""
    return tag + varint(len(body)) + body


# The scalar types written as plain varints, and those written zigzag-encoded (`sint_field`).
_VARINT_TYPES: Final = frozenset(
    {
        FieldDescriptor.TYPE_INT32,
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_UINT32,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_BOOL,
        FieldDescriptor.TYPE_ENUM,
    }
)
_ZIGZAG_TYPES: Final = frozenset({FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SINT64})


def tag(message: type[Message], field: str) -> bytes:
    """The key of `message.field` on the wire (field number and wire type), from its
    descriptor; raises KeyError for an unknown field. The value's encoding is the caller's:
    `varint` (or `int_field`), `sint_field` for a zigzag type, `fixed64` for a fixed64."""
    desc = message.DESCRIPTOR.fields_by_name[field]
    if desc.type in (
        FieldDescriptor.TYPE_MESSAGE,
        FieldDescriptor.TYPE_BYTES,
        FieldDescriptor.TYPE_STRING,
    ) or (desc.is_repeated and desc.is_packed):  # a packed repeated scalar is one record
        wire = LENGTH_DELIMITED
    elif desc.type in _VARINT_TYPES or desc.type in _ZIGZAG_TYPES:
        wire = VARINT
    elif desc.type == FieldDescriptor.TYPE_FIXED64:
        wire = FIXED64
    else:
        # fixed32, sfixed and floating types: nothing written by hand has one.
        raise ValueError(f"{message.DESCRIPTOR.name}.{field}: no hand encoding for its type")
    return varint(desc.number << 3 | wire)


def sint_field(key: bytes, value: int) -> bytes:
    """The record of a sint32/sint64 field (zigzag: 0, -1, 1, -2 ... as 0, 1, 2, 3 ...);
    nothing for a 0."""
    return key + varint(value << 1 if value >= 0 else (value << 1) ^ -1) if value else b""


_FIXED64: Final = struct.Struct("<Q")


def fixed64(key: bytes, value: int) -> bytes:
    """The record of a fixed64 field (8 bytes, little-endian); nothing for a 0."""
    return key + _FIXED64.pack(value) if value else b""


_PACKED_FIXED64: Final = tuple(struct.Struct(f"<{n}Q") for n in range(17))


def packed_fixed64(key: bytes, values: tuple[int, ...]) -> bytes:
    """The record of a packed repeated fixed64 field (none for an empty list)."""
    count = len(values)
    if not count:
        return b""
    body = (
        _PACKED_FIXED64[count].pack(*values)
        if count < len(_PACKED_FIXED64)
        else b"".join(map(_FIXED64.pack, values))
    )
    return key + varint(len(body)) + body


# --------------------------------------------------------------------------------------------
# Layouts: what each hand-written encoder writes, declared once

_DECLARED: Final[dict[str, Layout]] = {}


class Layout:
    """The declaration of one message's hand-written encoder.

    `fields`: the fields the encoder writes, in the order it writes them, which must be
    field-number order (a deterministic serialisation's). `serialised`: those of them whose
    bytes are protobuf's serialisation of the mapping's own value (a rule set, a settlement,
    a card, the per-game fields of the state payload): a field added *inside* one of those
    needs nothing here. `never`: the fields the encoder never writes, each with the reason.
    Every other message field the encoder writes has a layout of its own.

    A message is declared once (a second `Layout` of it raises), and the encoder takes its
    keys from the layout (`tag`, `records`, `bool_record`), so writing a field the layout
    does not list fails at import. tests/codec/test_layouts.py checks each layout against the
    descriptor: every field of the message is in `fields` or `never`, in field-number order.
    """

    __slots__ = ("fields", "message", "never", "serialised")

    def __init__(
        self,
        message: type[Message],
        fields: tuple[str, ...],
        *,
        serialised: tuple[str, ...] = (),
        never: Mapping[str, str] | None = None,
    ) -> None:
        name = message.DESCRIPTOR.full_name
        if name in _DECLARED:
            raise ValueError(f"{name}: its layout is already declared")
        if not set(serialised) <= set(fields):
            raise ValueError(f"{name}: a serialised field must be one the encoder writes")
        self.message = message
        self.fields = fields
        self.serialised = frozenset(serialised)
        self.never: Mapping[str, str] = dict(never or {})
        _DECLARED[name] = self

    @property
    def name(self) -> str:
        """The message's full name (`tienlen.v1.TableView`)."""
        return self.message.DESCRIPTOR.full_name

    def tag(self, field: str) -> bytes:
        """The key of `field` on the wire (see the module function `tag`); ValueError for a
        field the layout does not write."""
        if field not in self.fields:
            raise ValueError(f"{self.name}.{field} is not in its layout")
        return tag(self.message, field)

    def records(self, field: str, count: int) -> tuple[bytes, ...]:
        """The whole record of an integer field for each value 0..count-1, to look up instead
        of encoding (seats, places, card counts): b"" for a 0 that proto3 does not write (a
        field without presence)."""
        key = self.tag(field)
        present = self.message.DESCRIPTOR.fields_by_name[field].has_presence
        return tuple(key + varint(v) if v or present else b"" for v in range(count))

    def bool_record(self, field: str) -> bytes:
        """The record of a `bool` field set to true (false is not written)."""
        return self.tag(field) + varint(1)

    def pieces(self) -> tuple[tuple[bool, tuple[str, ...]], ...]:
        """The layout's runs of fields in order, each (serialised?, its fields): where an
        encoder joins bytes protobuf serialised with bytes it writes itself."""
        runs: list[tuple[bool, tuple[str, ...]]] = []
        for field in self.fields:
            serialised = field in self.serialised
            if runs and runs[-1][0] == serialised:
                runs[-1] = (serialised, (*runs[-1][1], field))
            else:
                runs.append((serialised, (field,)))
        return tuple(runs)


def declared_layouts() -> tuple[Layout, ...]:
    """Every layout declared so far (each fast-path module declares its own at import)."""
    return tuple(_DECLARED.values())
