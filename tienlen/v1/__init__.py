"""Generated protobuf and gRPC code for the Tiến Lên contract (package tienlen.v1)."""
