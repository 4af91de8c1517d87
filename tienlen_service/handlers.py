"""What a method handler goes through before a port serves it: one room, for every transport.

A service registers its method handlers on a `grpc.Server` (generated code calls
`add_registered_method_handlers`, and `add_generic_rpc_handlers` with the same handlers). The
service's registrars are given a `HandlerRecorder` instead, which

- remembers each service's handlers as they were given (`handlers`): the web port (Connect,
  gRPC-Web) serves those, calling the same behaviour through its own call observation with its
  transport's labels (`web.calls`);
- registers them on the gRPC port (`server`, when there is one) wrapped once by `wrap`, built
  by `wrapped_by`: the call observer (`observability.CallObserver`: metrics and the access log)
  outermost, then the stream closer (`draining.StreamCloser`: the calls a drain ends). Wrapping
  at registration, not by grpc interceptors, saves the interceptor pipeline's ~7k instructions
  on every call (bench/README.md, issue 28).

`registration` uses a recorder with no port to take the engine servicer's generated handlers.
Methods that answer with their response's wire bytes (`codec.wire_answer`) are named, not
recognised: `registration.WIRE_METHODS` is handed to the web port, which parses their answers
for connectrpc.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, TypeAlias

import grpc

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    Handler: TypeAlias = grpc.RpcMethodHandler[Any, Any]
    Wrap: TypeAlias = Callable[[str, Handler], Handler]
    """A handler, wrapped for its full method path (``/tienlen.v1.TienLenEngine/ApplyMove``)."""


def wrapped_by(*wraps: Wrap) -> Wrap:
    """One `Wrap` applying `wraps`, the first outermost."""

    def wrap(method: str, handler: Handler) -> Handler:
        for inner in reversed(wraps):
            handler = inner(method, handler)
        return handler

    return wrap


def _as_is(method: str, handler: Handler) -> Handler:
    del method
    return handler


class HandlerRecorder(grpc.Server):
    """A `grpc.Server` for registrars: it remembers each service's method handlers as given
    (`handlers`, by service then method name) and registers them on `server`, each wrapped by
    `wrap`; with no `server`, it only remembers them. The rest is forwarded to `server`."""

    def __init__(self, server: grpc.Server | None = None, wrap: Wrap = _as_is) -> None:
        self._server = server
        self._wrap = wrap
        self.handlers: dict[str, dict[str, Handler]] = {}

    def add_registered_method_handlers(
        self, service_name: str, method_handlers: Mapping[str, Handler]
    ) -> None:
        """Remember the handlers, then register them on the server (wrapped)."""
        self.handlers.setdefault(service_name, {}).update(method_handlers)
        if self._server is not None:
            wrapped = {
                name: self._wrap(f"/{service_name}/{name}", handler)
                for name, handler in method_handlers.items()
            }
            self._server.add_registered_method_handlers(service_name, wrapped)  # type: ignore[attr-defined]

    def add_generic_rpc_handlers(
        self, generic_rpc_handlers: Iterable[grpc.GenericRpcHandler[Any, Any]]
    ) -> None:
        """Forwarded, each handler they find wrapped (generated code also registers its
        handlers by name, remembered above; those are found first)."""
        if self._server is not None:
            self._server.add_generic_rpc_handlers(
                tuple(_WrappedGeneric(generic, self._wrap) for generic in generic_rpc_handlers)
            )

    def add_insecure_port(self, address: str) -> int:
        """Forwarded."""
        return self._port().add_insecure_port(address)

    def add_secure_port(self, address: str, server_credentials: grpc.ServerCredentials) -> int:
        """Forwarded."""
        return self._port().add_secure_port(address, server_credentials)

    def start(self) -> None:
        """Forwarded."""
        self._port().start()

    def stop(self, grace: float | None = None) -> threading.Event:
        """Forwarded."""
        return self._port().stop(grace)

    def wait_for_termination(self, timeout: float | None = None) -> bool:
        """Forwarded."""
        return self._port().wait_for_termination(timeout)

    def _port(self) -> grpc.Server:
        if self._server is None:
            raise RuntimeError("this recorder only records handlers: it has no port")
        return self._server


class _WrappedGeneric(grpc.GenericRpcHandler):  # type: ignore[type-arg]
    """A generic handler whose handlers are wrapped (each once: the wraps cache per method)."""

    def __init__(self, generic: grpc.GenericRpcHandler[Any, Any], wrap: Wrap) -> None:
        self._generic = generic
        self._wrap = wrap

    def service(self, handler_call_details: grpc.HandlerCallDetails) -> Handler | None:
        handler = self._generic.service(handler_call_details)
        if handler is None:
            return None
        return self._wrap(handler_call_details.method, handler)
