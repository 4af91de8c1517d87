"""The web transport: the engine's unary RPCs over Connect and gRPC-Web on HTTP/1.1.

See docs/WEB.md (why these libraries, with figures) and docs/FRONTEND.md (how to call it).
"""
