"""Pages of a legal-move listing (`ListLegalMoves`): page tokens bound to their listing.

A page token is the next offset and a fingerprint of what it lists (the state token, the seat
and the filter): a token reused on another listing is refused, never silently misread.
"""

from __future__ import annotations

import base64
import hashlib
import struct
from typing import TYPE_CHECKING, Final

from tienlen_service import codec
from tienlen_service.codec import FieldError

if TYPE_CHECKING:
    from tienlen.v1 import service_pb2

DEFAULT_PAGE_SIZE: Final = 50
MAX_PAGE_SIZE: Final = 1000


def page_fingerprint(request: service_pb2.ListLegalMovesRequest) -> bytes:
    """What a page token is bound to: the state, the seat and the filter."""
    digest = hashlib.blake2b(digest_size=8)
    digest.update(struct.pack(">iii", request.seat, request.filter.type, request.filter.length))
    digest.update(request.state_token)
    return digest.digest()


def page_token(offset: int, fingerprint: bytes) -> str:
    """The token of the page starting at `offset` of the listing with this fingerprint."""
    return (
        base64.urlsafe_b64encode(struct.pack(">I", offset) + fingerprint)
        .rstrip(b"=")
        .decode("ascii")
    )


def page_offset(token: str, fingerprint: bytes, total: int) -> int:
    """The offset a page token points at; FieldError when it is not a token of this listing."""
    if not token:
        return 0
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except ValueError:
        raw = b""
    if len(raw) != 12 or raw[4:] != fingerprint:
        raise FieldError(
            codec.INVALID_ARGUMENT,
            "page_token",
            "not a page token of this listing (same state, seat and filter)",
        )
    offset: int = struct.unpack(">I", raw[:4])[0]
    if offset > total:
        raise FieldError(
            codec.INVALID_ARGUMENT, "page_token", "the page token points past the last move"
        )
    return offset
