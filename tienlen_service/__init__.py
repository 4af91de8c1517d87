"""Tiến Lên engine service: a pure rules engine (`tienlen_service.rules`) behind a thin gRPC layer."""
