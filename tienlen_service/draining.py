"""What a drain closes: the long-lived streams that would otherwise hold a stopping replica.

`server.stop(grace)` refuses new calls and waits up to `grace` seconds for the calls in flight.
A unary call ends in milliseconds, but a health `Watch` (which every health-checking client
keeps open) or a `PlayStream` (which a game host keeps open) lasts as long as its client wants:
one of them made a replica wait its whole grace period. When the port closes, both are ended:

- Watch streams end with OK, after the NOT_SERVING the drain already sent them; the client's
  health checking moves to another replica.
- PlayStream calls are cancelled between moves. Every move is a pure function of its request,
  so the clients send the moves still unanswered again on a new stream, to another replica.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import grpc
from grpc_health.v1 import health

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Iterator

    _Handler = grpc.RpcMethodHandler[Any, Any]


class DrainingHealthServicer(health.HealthServicer):
    """The standard health servicer whose Watch streams `close_watches()` ends (with OK)."""

    def __init__(self, **kwargs: Any) -> None:
        self._watches: set[Callable[[Any], None]] = set()
        self._watch_lock = threading.Lock()
        self._watches_closed = False
        super().__init__(**kwargs)

    def Watch(  # noqa: N802 - the RPC's name
        self,
        request: Any,
        context: grpc.ServicerContext,
        send_response_callback: Callable[[Any], None] | None = None,
    ) -> Any:
        """Health.Watch, remembered until it ends (callback-style streams only)."""
        result = super().Watch(request, context, send_response_callback)
        callback = send_response_callback
        if callback is None:  # a blocking server (not ours): nothing to remember
            return result
        with self._watch_lock:
            closed = self._watches_closed
            if not closed:
                self._watches.add(callback)
        if closed:  # opened while the port was closing: end it at once
            callback(None)
        else:
            context.add_callback(lambda: self._forget(callback))
        return result

    def _forget(self, callback: Callable[[Any], None]) -> None:
        with self._watch_lock:
            self._watches.discard(callback)

    def close_watches(self) -> int:
        """End every open Watch stream (and any opened later); returns how many were open."""
        with self._watch_lock:
            self._watches_closed = True
            callbacks = list(self._watches)
            self._watches.clear()
        for callback in callbacks:
            callback(None)  # grpcio's callback-style streams end with OK on None
        return len(callbacks)


class StreamCloser:
    """Remembers the open calls of the long-lived bidirectional `methods` (full paths, e.g.
    ``/tienlen.v1.TienLenEngine/PlayStream``); `close_streams()` cancels them, and any opened
    later."""

    def __init__(self, methods: Collection[str]) -> None:
        self._methods = frozenset(methods)
        self._open: set[grpc.ServicerContext] = set()
        self._lock = threading.Lock()
        self._closed = False

    def wrap(self, method: str, handler: _Handler) -> _Handler:
        """`handler` (of the full method path `method`), its calls remembered when it is one
        of `methods`: what the server registers (`handlers.HandlerRecorder`)."""
        if handler.stream_stream is None or method not in self._methods:
            return handler
        return grpc.stream_stream_rpc_method_handler(
            self._remembered(handler.stream_stream),
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )

    def _remembered(self, behavior: Callable[..., Iterator[Any]]) -> Callable[..., Iterator[Any]]:
        def wrapper(requests: Iterator[Any], context: grpc.ServicerContext) -> Iterator[Any]:
            with self._lock:
                closed = self._closed
                if not closed:
                    self._open.add(context)
            if closed:
                context.cancel()  # type: ignore[no-untyped-call]
                return
            try:
                yield from behavior(requests, context)
            finally:
                with self._lock:
                    self._open.discard(context)

        return wrapper

    def close_streams(self) -> int:
        """Cancel every open call of `methods` (and any opened later); returns how many."""
        with self._lock:
            self._closed = True
            contexts = list(self._open)
        for context in contexts:
            context.cancel()  # type: ignore[no-untyped-call]
        return len(contexts)
