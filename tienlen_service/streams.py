"""PlayStream's messages: one move, or a batch of moves, each answered as ApplyMove would.

A message carries one move (`PlayStreamRequest.move`) or a batch (`MoveBatch`: up to
`MAX_BATCH` moves, each a `StreamMove` with its own tag and ApplyMove request). Every move of
a batch is answered exactly as if it had come as a message of its own, at the same index of
the batch's answer (`MoveBatchResult`), in one answer: each stream message costs gRPC a fixed
~130k instructions whatever it holds (bench/README.md), so a host with many tables pays it once
per batch instead of once per move. The schema can't nest a batch, so a batch is malformed
only beside a move of the message's own or past `MAX_BATCH` moves: then the message is
refused in-band as a whole (INVALID_BATCH) and the stream goes on.

A message must also fit the transport's request limit (`--max-request-bytes`): grpc refuses a
larger one by ending the stream with RESOURCE_EXHAUSTED, before any of it is read. The service
tells the limit at the start of every stream, in the initial metadata `MAX_REQUEST_BYTES_HEADER`,
so a client batches by bytes under it (tienlen_client's MoveStream does).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import grpc

from tienlen_service import codec
from tienlen_service.statuses import INVALID_BATCH, rich_status, stream_refusal

if TYPE_CHECKING:
    from collections.abc import Callable

    from tienlen.v1 import service_pb2

#: The most moves one PlayStream message may carry (`MoveBatch.moves`).
MAX_BATCH: Final = 64
#: The initial metadata of a PlayStream call that tells the largest request message, in bytes.
MAX_REQUEST_BYTES_HEADER: Final = "tienlen-max-request-bytes"


def answer_message(
    request: service_pb2.PlayStreamRequest,
    step: Callable[[str, service_pb2.ApplyMoveRequest], bytes],
) -> bytes:
    """The answer of one PlayStream message (its wire bytes): `step`'s answer to its move, or
    a batch's answers in one (`codec.stream_batch_wire`), or the refusal of a malformed batch."""
    if not request.HasField("batch"):
        return step(request.tag, request.move)
    refused = batch_refused(request)
    if refused is not None:
        return refused
    return codec.stream_batch_wire(request.tag, [step(m.tag, m.move) for m in request.batch.moves])


def batch_refused(request: service_pb2.PlayStreamRequest) -> bytes | None:
    """The in-band refusal of a malformed batch (None: well formed): a message carries a move
    or a batch, not both, and a batch at most MAX_BATCH moves."""
    if request.HasField("move"):
        problem = "a message with a batch has no move of its own: put the move in the batch"
    elif len(request.batch.moves) > MAX_BATCH:
        problem = f"a batch has at most {MAX_BATCH} moves, not {len(request.batch.moves)}"
    else:
        return None
    status = rich_status(
        grpc.StatusCode.INVALID_ARGUMENT, INVALID_BATCH, problem, {"field": "batch"}
    )
    return stream_refusal(request.tag, status)
