"""gRPC server reflection, both versions: `grpc.reflection.v1` and `grpc.reflection.v1alpha`.

grpcio-reflection (1.85) ships only v1alpha; tools ask v1 first (grpcurl, Postman, grpcui)
and fall back to v1alpha, and some newer ones ask v1 only. The two versions are the same
messages under another package name (field for field, number for number), so v1 is served by
the same servicer under the v1 method path: the bytes on the wire are identical.

Reflection tells any caller the whole contract; it is served behind `--reflection` (on with
`--dev`), not by default.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import grpc
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

if TYPE_CHECKING:
    from collections.abc import Sequence

V1ALPHA_SERVICE_NAME: Final[str] = reflection.SERVICE_NAME
V1_SERVICE_NAME: Final = "grpc.reflection.v1.ServerReflection"


def enable_reflection(service_names: Sequence[str], server: grpc.Server) -> tuple[str, ...]:
    """Serve reflection (v1 and v1alpha) of `service_names` on `server`; returns every service
    name the server now lists, the reflection services included."""
    names = (*service_names, V1_SERVICE_NAME, V1ALPHA_SERVICE_NAME)
    servicer = reflection.ReflectionServicer(names)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    v1 = grpc.method_handlers_generic_handler(
        V1_SERVICE_NAME,
        {
            "ServerReflectionInfo": grpc.stream_stream_rpc_method_handler(
                servicer.ServerReflectionInfo,
                request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
                response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
            )
        },
    )
    server.add_generic_rpc_handlers((v1,))
    return names
