"""The protobuf wire format, written by hand for the answer of every move (its hot path).

Building a protobuf message field by field and serialising it costs a loaded replica far more
than the bytes are worth (bench/README.md §5: every µs of servicer work in process is 3–4 µs
of a loaded server's CPU, and a message per seat and per card was most of a view). The view
(`codec.view`) and the events (`codec.events`) are therefore written as wire bytes with these
primitives, the GameUpdate around them (`codec.update`), so that an answer is never parsed
back into messages only to be serialised again, and the per-move fields of the state token's
payload (`codec.state`). Each module keeps its readable, message-built mapping beside the
fast path, and tests/test_codec.py proves, for every state and event of random matches of
every preset and edge values of every field, that the bytes are exactly the mapping's
`SerializeToString(deterministic=True)` (and the payloads the pinned ones). Nothing else
writes wire bytes by hand.

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
    from collections.abc import Iterable

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


def records(message: type[Message], field: str, count: int) -> tuple[bytes, ...]:
    """The whole record of an integer field for each value 0..count-1, to look up instead of
    encoding (seats, places, card counts): b"" for a 0 that proto3 does not write (a field
    without presence)."""
    key = tag(message, field)
    present = message.DESCRIPTOR.fields_by_name[field].has_presence
    return tuple(key + varint(v) if v or present else b"" for v in range(count))


def bool_record(message: type[Message], field: str) -> bytes:
    """The record of a `bool` field set to true (false is not written)."""
    return tag(message, field) + varint(1)
