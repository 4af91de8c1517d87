"""`tienlen.v1.TableSeating` -> the engine's `SeatChanges` (RULES §9.1): who stays, who sits down.

A plain mapping: the engine checks what it says (a seat listed twice or empty, a newcomer in a
taken seat, a duplicate player id, a table of too few players) and names the field at fault.
"""

from __future__ import annotations

from tienlen.v1 import service_pb2
from tienlen_rules import Newcomer, SeatChanges


def seating_from_pb(seating: service_pb2.TableSeating) -> SeatChanges:
    """The engine's seat changes of NextGame's `seating`."""
    return SeatChanges(
        tuple(seating.staying),
        tuple(
            Newcomer(n.seat, n.player_id, n.bankroll if n.HasField("bankroll") else None)
            for n in seating.newcomers
        ),
    )
