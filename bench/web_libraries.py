# ruff: noqa: ARG001, ARG005 - handlers that ignore their request answer the recording
"""What each candidate web library costs per call, its own code only (docs/WEB.md).

    python bench/web_libraries.py --record calls.bin          # in the service's venv
    VENV/bin/python bench/web_libraries.py --replay calls.bin  # in a venv with one library

The recording holds recorded NewGame and ApplyMove requests and answers (bench/traffic.py). The
replay calls the installed library's application object directly, in-process, with no HTTP
server and no network: an ASGI or WSGI call with the request's bytes, answered by a handler
that returns the recorded answer message (no engine work). What is left is the library's own
work per call: routing, headers, framing, (de)serialising, errors. It prints the CPU µs per
call (median of rounds) for each protocol the library serves:

  connectrpc 0.13 (the `compat` codecs: Google's protobuf messages), ASGI and WSGI
  connect-python 0.9 (Google's protobuf), ASGI and WSGI
  sonora 0.2 (gRPC-Web for grpcio handlers), WSGI

Only the generated messages (tienlen/v1, protobuf) are needed besides the library: put the
repository on PYTHONPATH. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import io
import pickle
import statistics
import struct
import sys
import time
from importlib import metadata
from pathlib import Path
from typing import Any

SERVICE = "tienlen.v1.TienLenEngine"


def record(path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import traffic

    keys = traffic.new_keys()
    calls = [c for game in traffic.record(3, keys) for c in game]
    new_game = next(c for c in calls if c.method == "NewGame")
    apply = [c for c in calls if c.method == "ApplyMove"][:50]
    out = [(c.method, c.request, c.response) for c in [new_game, *apply]]
    path.write_bytes(pickle.dumps(out))
    print(f"recorded {len(out)} calls into {path}")


def replay(path: Path, rounds: int, calls: int) -> None:
    from tienlen.v1 import service_pb2

    recorded = pickle.loads(path.read_bytes())
    by_method: dict[str, list[tuple[bytes, Any]]] = {}
    for method, request, response in recorded:
        out_cls = getattr(service_pb2, f"{method}Response")
        by_method.setdefault(method, []).append((request, out_cls.FromString(response)))
    version = _library()
    print(f"{version}; CPython {sys.version.split()[0]}; {calls} calls x {rounds} rounds")
    for label, app, kind, content_type in _apps(version, by_method):
        for method, items in by_method.items():
            samples = [
                _measure(app, kind, content_type, method, items, calls) for _ in range(rounds)
            ]
            print(f"  {label:<32} {method:<10} {statistics.median(samples):8.1f} µs/call")


def _library() -> str:
    for name in ("connectrpc", "connect-python", "sonora"):
        try:
            return f"{name} {metadata.version(name)}"
        except metadata.PackageNotFoundError:
            continue
    raise SystemExit("no candidate library installed")


def _measure(
    app: Any, kind: str, content_type: str, method: str, items: list[Any], n: int
) -> float:
    bodies = []
    for request, _ in items:
        if content_type.startswith("application/grpc-web"):
            bodies.append(b"\x00" + struct.pack(">I", len(request)) + request)
        elif content_type == "application/json":
            from google.protobuf import json_format

            from tienlen.v1 import service_pb2

            cls = getattr(service_pb2, f"{method}Request")
            bodies.append(json_format.MessageToJson(cls.FromString(request)).encode())
        else:
            bodies.append(request)
    path = f"/{SERVICE}/{method}"
    call = _asgi_call if kind == "asgi" else _wsgi_call
    for i in range(50):  # warm-up
        status = call(app, path, content_type, bodies[i % len(bodies)])
    assert status == 200, status
    start = time.process_time()
    for i in range(n):
        call(app, path, content_type, bodies[i % len(bodies)])
    return (time.process_time() - start) / n * 1e6


_LOOP = asyncio.new_event_loop()


def _asgi_call(app: Any, path: str, content_type: str, body: bytes) -> int:
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(b"content-type", content_type.encode()), (b"host", b"bench")],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 2),
        "extensions": {},
    }
    sent = False
    status = 0

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    _LOOP.run_until_complete(app(scope, receive, send))
    return status


def _wsgi_call(app: Any, path: str, content_type: str, body: bytes) -> int:
    status = 0

    def start_response(line: str, headers: Any, exc_info: Any = None) -> Any:
        nonlocal status
        status = int(line.split(maxsplit=1)[0])
        return lambda data: None

    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "CONTENT_TYPE": content_type,
        "CONTENT_LENGTH": str(len(body)),
        "SERVER_NAME": "bench",
        "SERVER_PORT": "80",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "HTTP_HOST": "bench",
        "wsgi.input": io.BytesIO(body),
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.version": (1, 0),
        "wsgi.multithread": True,
        "wsgi.multiprocess": False,
        "wsgi.run_once": False,
    }
    for chunk in app(environ, start_response):
        del chunk
    return status


def _apps(version: str, by_method: dict[str, list[Any]]) -> list[tuple[str, Any, str, str]]:
    from tienlen.v1 import service_pb2

    answers = {m: items[0][1] for m, items in by_method.items()}
    if version.startswith("sonora"):
        import grpc
        from sonora.wsgi import grpcWSGI

        handlers = {
            m: grpc.unary_unary_rpc_method_handler(
                lambda request, context, m=m: answers[m],
                request_deserializer=getattr(service_pb2, f"{m}Request").FromString,
                response_serializer=lambda r: r.SerializeToString(),
            )
            for m in by_method
        }
        app = grpcWSGI(None)
        app.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(SERVICE, handlers)])
        return [
            ("sonora WSGI gRPC-Web", app, "wsgi", "application/grpc-web+proto"),
            ("sonora WSGI gRPC-Web text", _Text(app), "wsgi", "application/grpc-web-text"),
        ]
    from connectrpc.method import IdempotencyLevel, MethodInfo
    from connectrpc.server import (
        ConnectASGIApplication,
        ConnectWSGIApplication,
        Endpoint,
        EndpointSync,
    )

    def info(m: str) -> Any:
        fields: dict[str, Any] = {}
        if "stream_type" in MethodInfo.__dataclass_fields__:
            from connectrpc.method import StreamType

            fields["stream_type"] = StreamType.UNARY
        return MethodInfo(
            name=m,
            service_name=SERVICE,
            input=getattr(service_pb2, f"{m}Request"),
            output=getattr(service_pb2, f"{m}Response"),
            idempotency_level=IdempotencyLevel.UNKNOWN,
            **fields,
        )

    def async_handler(m: str) -> Any:
        async def handle(request: Any, ctx: Any) -> Any:
            return answers[m]

        return handle

    async_endpoints = {
        f"/{SERVICE}/{m}": Endpoint.unary(info(m), async_handler(m)) for m in by_method
    }
    sync_endpoints = {
        f"/{SERVICE}/{m}": EndpointSync.unary(method=info(m), function=lambda r, c, m=m: answers[m])
        for m in by_method
    }
    extra: dict[str, Any] = {}
    if version.startswith("connectrpc 0.1"):
        from connectrpc.compat import google_protobuf_codecs

        extra["codecs"] = google_protobuf_codecs()

    class Asgi(ConnectASGIApplication):  # type: ignore[misc]
        path = ""

    class Wsgi(ConnectWSGIApplication):  # type: ignore[misc]
        path = ""

    asgi = Asgi(service=object(), endpoints=lambda _s: async_endpoints, **extra)
    wsgi = Wsgi(endpoints=sync_endpoints, **extra)
    out = []
    for label, app, kind in (("ASGI", asgi, "asgi"), ("WSGI", wsgi, "wsgi")):
        out += [
            (f"{label} Connect proto", app, kind, "application/proto"),
            (f"{label} Connect JSON", app, kind, "application/json"),
            (f"{label} gRPC-Web", app, kind, "application/grpc-web+proto"),
        ]
    return out


class _Text:
    """sonora serves gRPC-Web text itself: pass the body base64-encoded."""

    def __init__(self, app: Any) -> None:
        self._app = app

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        body = environ["wsgi.input"].read()
        encoded = base64.b64encode(body)
        environ["wsgi.input"] = io.BytesIO(encoded)
        environ["CONTENT_LENGTH"] = str(len(encoded))
        return self._app(environ, start_response)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--record", type=Path)
    parser.add_argument("--replay", type=Path)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    if args.record:
        record(args.record)
    if args.replay:
        replay(args.replay, args.rounds, args.calls)


if __name__ == "__main__":
    main()
