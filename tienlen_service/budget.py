"""The worker budget: which threads a call may take, so that cheap calls always find a worker.

A replica serves calls on threads (the sync gRPC server and the web port alike). Some calls
hold theirs long: an open `PlayStream` for its whole life, a bot's search for up to its node
budget or its deadline, a hint for a few legal-move generations. When they shared the
`--workers` threads with every other call, one open stream and one search took both default
workers, and health then waited hundreds of times its usual latency, past the probes' timeout.
So each kind of call has its own pool, and long work never takes a thread of another kind:

| pool | threads | serves |
| --- | --- | --- |
| calls | `--workers` | every other call: ApplyMove, ValidateMove, GetView, NewGame, ... |
| streams | stream slots + 1 | PlayStream (the slots, `servicer.stream_slots`; one more thread refuses the next stream at once, TOO_MANY_STREAMS) |
| hints | search slots + 1 | SuggestMove (the searches take the slots, `searches.search_slots`; one more thread answers a cheap bot or refuses a search, TOO_MANY_SEARCHES) |
| health | 1 | grpc.health.v1.Health: Check, and Watch (callback-style, it holds no thread) |

Every stream slot and every search slot taken still leaves all `--workers` threads to the other
calls, and health its own thread whatever the load: a health check waits behind other health
checks only. grpcio picks a handler's pool by its behaviour's `experimental_thread_pool`
(`assign`); the web port asks `pool_for` the same question.
"""

from __future__ import annotations

from concurrent import futures
from typing import TYPE_CHECKING, Any, Final

from tienlen_service.searches import search_slots
from tienlen_service.servicer import SERVICE_NAME, stream_slots

if TYPE_CHECKING:
    import grpc

HEALTH_SERVICE: Final = "grpc.health.v1.Health"
STREAM_METHODS: Final = frozenset({f"/{SERVICE_NAME}/PlayStream"})
HINT_METHODS: Final = frozenset({f"/{SERVICE_NAME}/SuggestMove"})


class WorkerPools:
    """The replica's thread pools, sized from `--workers` (see the module's docstring)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.stream_slots = stream_slots(workers)
        self.search_slots = search_slots(workers)
        self.calls = futures.ThreadPoolExecutor(workers, thread_name_prefix="tienlen-rpc")
        self.streams = futures.ThreadPoolExecutor(
            self.stream_slots + 1, thread_name_prefix="tienlen-stream"
        )
        self.hints = futures.ThreadPoolExecutor(
            self.search_slots + 1, thread_name_prefix="tienlen-hint"
        )
        self.health = futures.ThreadPoolExecutor(1, thread_name_prefix="tienlen-health")

    def pool_for(self, method: str) -> futures.ThreadPoolExecutor:
        """The pool that serves `method` (a full path, ``/package.Service/Method``)."""
        if method in STREAM_METHODS:
            return self.streams
        if method in HINT_METHODS:
            return self.hints
        if method.startswith(f"/{HEALTH_SERVICE}/"):
            return self.health
        return self.calls

    def assign(self, method: str, handler: grpc.RpcMethodHandler[Any, Any]) -> None:
        """Have grpcio run `handler` (of `method`) on its pool: the pool is set on its
        behaviour, where grpcio looks for it (`experimental_thread_pool`), unless it has one
        already (the health servicer's Watch names the health pool itself)."""
        behavior = (
            handler.unary_unary
            or handler.unary_stream
            or handler.stream_unary
            or handler.stream_stream
        )
        if behavior is None or getattr(behavior, "experimental_thread_pool", None) is not None:
            return
        behavior.experimental_thread_pool = self.pool_for(method)  # type: ignore[union-attr]

    def shutdown(self) -> None:
        """Stop every pool (queued calls are dropped: the server has stopped)."""
        for pool in (self.calls, self.streams, self.hints, self.health):
            pool.shutdown(wait=False, cancel_futures=True)
