"""How a `MoveStream` packs its moves into PlayStream messages.

Without batching, each move is a message of its own. With batching
(`TienLenClient.play_stream(batch=True)`), the moves queued by the time one is taken go with
it as one message (`PlayStreamRequest.batch`, a `MoveBatch`): at most `MAX_BATCH` moves, and
only as many as keep the whole message within the service's request limit.

That limit is the service's `--max-request-bytes` (16 KiB by default; a move with a sealed
token is about 260 bytes): grpc refuses a larger message by ending the stream with
RESOURCE_EXHAUSTED before reading any of it. The stream is told the limit by its caller
(`play_stream(max_request_bytes=...)`), or hears it from the service, which sends it at the
start of every stream (initial metadata `tienlen-max-request-bytes`); the lower of the two
counts (`RequestLimit`). Until one is known, moves go one per message: a move alone fits.

A message the service refused for its size (`refused_for_size`: RESOURCE_EXHAUSTED with the
reason REQUEST_TOO_LARGE, or, from grpc itself, with no reason) is never sent again: the limit
becomes the one the refusal names (its `max_request_bytes`, or grpc's "larger than max (N vs.
LIMIT)"), or half the refused size if it names none, so a batch's moves go again in smaller
messages, and a move refused alone fails with the refusal.
"""

from __future__ import annotations

import queue
import re
import threading
from typing import TYPE_CHECKING, Final

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from tienlen.v1 import service_pb2

if TYPE_CHECKING:
    from collections.abc import Collection, Iterator, Sequence

#: The most moves one PlayStream message carries (the service's limit, `MoveBatch.moves`).
MAX_BATCH: Final = 64
#: The initial metadata in which the service tells a stream its request limit, in bytes.
MAX_REQUEST_BYTES_HEADER: Final = "tienlen-max-request-bytes"
#: The service's refusal of a message over its limit (`ErrorInfo.reason`; metadata
#: ``max_request_bytes``: the limit).
REQUEST_TOO_LARGE: Final = "REQUEST_TOO_LARGE"
# A batch's own record in its message: the key (1 byte) and the length (at most 5 bytes).
_BATCH_RECORD: Final = 6
# grpc's refusal of a message over its limit: "Received message larger than max (N vs. LIMIT)".
_REFUSAL: Final = re.compile(r"larger than max \((\d+) vs\. (\d+)\)")


class RequestLimit:
    """The largest message a stream may send: the lower of what its caller told it and what
    the service said (None while neither is known), lowered below any message the service
    refused for its size. Shared by the stream's reader and the thread grpc sends from."""

    def __init__(self, told: int | None = None) -> None:
        if told is not None and told < 1:
            raise ValueError("max_request_bytes must be positive")
        self._lock = threading.Lock()
        self._value = told

    @property
    def value(self) -> int | None:
        """The limit in bytes, None while unknown."""
        return self._value

    def hear(self, metadata: Sequence[tuple[str, str | bytes]] | None) -> None:
        """Take the limit the service sent in a stream's initial metadata (if it sent one)."""
        for key, text in metadata or ():
            if key == MAX_REQUEST_BYTES_HEADER:
                value = int(text)
                if value > 0:
                    self._lower(value)

    def refused(self, size: int, details: str | None, named: int | None = None) -> None:
        """The service refused a message of `size` bytes, naming the limit `named` or saying
        `details`: the limit becomes the one named (in the refusal's metadata, else in grpc's
        words), or half the size (never a message as large again)."""
        said = _REFUSAL.search(details or "")
        if named is None and said:
            named = int(said.group(2))
        self._lower(min(size // 2 if named is None else named, size - 1))

    def _lower(self, value: int) -> None:
        with self._lock:
            self._value = value if self._value is None else min(self._value, value)


class Sent:
    """What one stream took from its queue: every tag, and every message in order (its moves'
    tags and its size in bytes)."""

    def __init__(self) -> None:
        self.tags: set[str] = set()
        self.messages: list[tuple[tuple[str, ...], int]] = []

    def add(self, tags: tuple[str, ...], size: int) -> None:
        """A message about to be sent."""
        self.tags.update(tags)
        self.messages.append((tags, size))


def refused_for_size(
    error: grpc.RpcError | None, sent: Sent, waiting: Collection[str]
) -> tuple[tuple[str, ...], int, int | None] | None:
    """The message (its tags and size) the service refused for its size when that is what
    ended the stream, and the limit the refusal names; None otherwise. The service refuses a
    message over its limit unread, RESOURCE_EXHAUSTED with the reason REQUEST_TOO_LARGE (and
    the limit); grpc itself, past twice the limit (or a service before that refusal), with
    RESOURCE_EXHAUSTED and no reason (the service's other RESOURCE_EXHAUSTED refusals, such as
    TOO_MANY_STREAMS, carry theirs). Every message before it was answered, so it is the first
    message sent whose moves still wait for their answers."""
    if not isinstance(error, grpc.Call) or error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
        return None
    named: int | None = None
    status = rpc_status.from_call(error)
    if status is not None:
        info = error_details_pb2.ErrorInfo()
        if not (status.details and status.details[0].Unpack(info)):
            return None
        if info.reason != REQUEST_TOO_LARGE:  # another refusal, with its own reason
            return None
        limit = info.metadata.get("max_request_bytes", "")
        named = int(limit) if limit.isdigit() and int(limit) > 0 else None
    message = next(
        (message for message in sent.messages if any(t in waiting for t in message[0])), None
    )
    return None if message is None else (*message, named)


def drain(
    requests: queue.SimpleQueue[service_pb2.PlayStreamRequest | None],
    sent: Sent,
    *,
    limit: RequestLimit | None = None,
) -> Iterator[service_pb2.PlayStreamRequest]:
    """The messages of one stream, until its end marker (None); `sent` gets each. With a
    `limit` (batching on), the moves queued by the time one is taken go with it as one batch
    while the message stays within the limit and MAX_BATCH moves; a move alone, or any move
    while the limit is unknown, goes as a message of its own."""
    held: service_pb2.PlayStreamRequest | None = None  # taken, and for the next message
    end = False
    while not end:
        request = held if held is not None else requests.get()
        held = None
        if request is None:
            return
        moves = [request]
        budget = None if limit is None or limit.value is None else limit.value - _BATCH_RECORD
        used = _record_size(request)
        while budget is not None and len(moves) < MAX_BATCH:
            try:
                more = requests.get_nowait()
            except queue.Empty:
                break
            if more is None:
                end = True
                break
            size = _record_size(more)
            if used + size > budget:
                held = more
                break
            moves.append(more)
            used += size
        message = request if len(moves) == 1 else _batch(moves)
        sent.add(tuple(m.tag for m in moves), message.ByteSize())
        yield message


def _batch(moves: list[service_pb2.PlayStreamRequest]) -> service_pb2.PlayStreamRequest:
    return service_pb2.PlayStreamRequest(
        batch=service_pb2.MoveBatch(
            moves=[service_pb2.StreamMove(tag=m.tag, move=m.move) for m in moves]
        )
    )


def _record_size(request: service_pb2.PlayStreamRequest) -> int:
    """The bytes a move takes in a batch: its record (key, length, the move's StreamMove,
    which has the bytes of its PlayStreamRequest)."""
    size = request.ByteSize()
    return 1 + max(1, (size.bit_length() + 6) // 7) + size
