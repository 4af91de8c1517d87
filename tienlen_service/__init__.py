"""Tiến Lên engine service: a pure rules engine (`tienlen_rules`) behind a thin gRPC layer."""
