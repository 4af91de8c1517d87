"""Developer tools beside the service: run from the repository root (`python -m tools.NAME`).

Not part of the service's package or image: `simulate` (bots play many games, the engine's
invariants checked at every step, optionally mirrored through the service with the client).
"""
