"""The Tiến Lên rules engine: pure Python, no grpc or protobuf.

Cards and sets of cards (`cards`), combinations (`combinations`), beating and chopping
(`beating`, `chop_tables`), rule options and presets (`options`, `ruleset`), the game
(`state`, `game`, `rounds`, `finishing`, `deal`, `instant_wins`), legal moves (`movegen`),
settlement (`settlement`, `rotten`) and views (`view`).
"""
