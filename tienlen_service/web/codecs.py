"""The message encodings of the web port: protobuf binary and JSON, on Google's runtime.

Binary is connectrpc's `compat` codec (the service's own google.protobuf messages, bytes as on
the gRPC port); JSON is `jsonform`'s (proto3 JSON that keeps zeros, numbers and card text). A
request whose bytes don't parse is refused as the gRPC port refuses it: INVALID_ARGUMENT with
the ErrorInfo reason MALFORMED_REQUEST.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

import grpc
from connectrpc.compat import google_protobuf_binary_codec
from connectrpc.errors import ConnectError
from google.protobuf import any_pb2
from google.rpc import error_details_pb2

from tienlen_service.observability import ERROR_DOMAIN, MALFORMED_REQUEST
from tienlen_service.statuses import MAX_MESSAGE_BYTES, bounded
from tienlen_service.web import jsonform
from tienlen_service.web.context import connect_error

if TYPE_CHECKING:
    from collections.abc import Callable

    from connectrpc.codec import Codec

T = TypeVar("T")


class _Guarded:
    """A codec whose decode failures are MALFORMED_REQUEST errors (each failure, typed ones
    included, is reported to `on_malformed`: the request is refused before it reaches an RPC)."""

    def __init__(self, codec: Codec, what: str, on_malformed: Callable[[], None]) -> None:
        self._codec = codec
        self._what = what
        self._on_malformed = on_malformed

    def name(self) -> str:
        """The codec's name (the content type's suffix)."""
        return str(self._codec.name())

    def encode(self, message: Any) -> bytes:
        """The message's bytes."""
        return bytes(self._codec.encode(message))

    def decode(self, data: bytes | bytearray, message_class: type[T]) -> T:
        """The message of `data`, or a MALFORMED_REQUEST error saying why not."""
        try:
            return self._codec.decode(data, message_class)  # type: ignore[no-any-return]
        except ConnectError:  # already typed (a card text that is not a card: INVALID_CARD)
            self._on_malformed()
            raise
        except Exception as exc:  # noqa: BLE001 - any parse failure is the caller's input
            self._on_malformed()
            raise malformed(f"the request body is not {self._what}: {exc}") from None


def malformed(message: str) -> Exception:
    """INVALID_ARGUMENT with ErrorInfo MALFORMED_REQUEST, as a Connect error; the message cut
    to the bound of every refusal (a parser's error quotes what it choked on: a 60 KB field
    name would come back whole)."""
    info = any_pb2.Any()
    info.Pack(error_details_pb2.ErrorInfo(reason=MALFORMED_REQUEST, domain=ERROR_DOMAIN))
    return connect_error(
        grpc.StatusCode.INVALID_ARGUMENT, bounded(message, MAX_MESSAGE_BYTES), [info]
    )


class JsonCodec:
    """`jsonform`'s JSON as a connectrpc codec (name ``json``)."""

    def name(self) -> str:
        """The content type's suffix: ``application/json``, ``application/grpc-web+json``."""
        return "json"

    def encode(self, message: Any) -> bytes:
        """The answer's JSON."""
        return jsonform.to_json(message)

    def decode(self, data: bytes | bytearray, message_class: type[T]) -> T:
        """The request of `data`."""
        return jsonform.from_json(data, message_class)  # type: ignore[arg-type,return-value]


def web_codecs(on_malformed: Callable[[], None]) -> list[Codec]:
    """Binary protobuf (``proto``) and JSON (``json``); `on_malformed` is called for every
    request body that doesn't parse (the web port counts it as ``MALFORMED_BODY``)."""
    return [
        _Guarded(google_protobuf_binary_codec(), "a protobuf message of this RPC", on_malformed),
        _Guarded(JsonCodec(), "this RPC's JSON", on_malformed),
    ]
