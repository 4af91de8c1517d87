"""Service tests: tokens, the runtime (server, limits, signals), the RPCs over a real channel."""
