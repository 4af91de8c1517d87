"""Helpers the engine tests share, imported by name (`from helpers.moves import start`).

`moves`: explicit deals and moves written in card notation, for the Southern rules.
`tables`: a `Table` that walks a game of any preset move by move, and settlement helpers.
`datafile`: the reader of the plain-text case files (relations.txt, leads.perft) and their runners.
"""
