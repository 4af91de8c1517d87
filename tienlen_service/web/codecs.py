"""The message encodings of the web port: protobuf binary and JSON (Google's runtime).

connectrpc's `compat` codecs encode the service's own (google.protobuf) messages; a request
whose bytes don't parse is refused as the gRPC port refuses it: INVALID_ARGUMENT with the
ErrorInfo reason MALFORMED_REQUEST.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

import grpc
from connectrpc.compat import google_protobuf_binary_codec, google_protobuf_json_codec
from google.protobuf import any_pb2
from google.rpc import error_details_pb2

from tienlen_service.observability import ERROR_DOMAIN, MALFORMED_REQUEST
from tienlen_service.web.context import connect_error

if TYPE_CHECKING:
    from connectrpc.codec import Codec

T = TypeVar("T")


class _Guarded:
    """A codec whose decode failures are MALFORMED_REQUEST errors."""

    def __init__(self, codec: Codec, what: str) -> None:
        self._codec = codec
        self._what = what

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
        except Exception as exc:  # noqa: BLE001 - any parse failure is the caller's input
            raise malformed(f"the request body is not {self._what}: {exc}") from None


def malformed(message: str) -> Exception:
    """INVALID_ARGUMENT with ErrorInfo MALFORMED_REQUEST, as a Connect error."""
    info = any_pb2.Any()
    info.Pack(error_details_pb2.ErrorInfo(reason=MALFORMED_REQUEST, domain=ERROR_DOMAIN))
    return connect_error(grpc.StatusCode.INVALID_ARGUMENT, message, [info])


def web_codecs() -> list[Codec]:
    """Binary protobuf (``proto``) and JSON (``json``)."""
    return [
        _Guarded(google_protobuf_binary_codec(), "a protobuf message of this RPC"),
        _Guarded(google_protobuf_json_codec(ignore_unknown_fields=False), "this RPC's JSON"),
    ]
