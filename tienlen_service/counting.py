"""What the domain counters count: the games, moves, chops and instant wins an answer's events
tell, and the refused moves and tokens behind a domain error. The servicer calls these once per
answer; `metrics` holds the counters themselves."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import tienlen_rules as engine
from tienlen_rules import IllegalMove
from tienlen_service.codec import StateDecodeError
from tienlen_service.statuses import SEAT_TOKEN_INVALID, TOKEN_MALFORMED, SeatTokenError
from tienlen_service.tokens import TokenError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tienlen_rules import Event, RuleSet
    from tienlen_service.metrics import Metrics

# The methods whose refused moves count as `moves_rejected` (ApplyMove as a message, as the
# ports send it, and each PlayStream message).
_MOVE_METHODS: Final = frozenset({"ApplyMove", "apply_move_wire"})
# The events the domain counters count (the engine's event classes are final).
_COUNTED_EVENTS: Final = frozenset(
    {engine.GameStarted, engine.Played, engine.InstantWin, engine.GameOver}
)


def count_events(
    metrics: Metrics, rules: RuleSet, events: Sequence[Event], *, applied: bool
) -> None:
    """Count an answer's events under its variant (and the move itself when one was applied)."""
    counters = metrics.variant(rules.variant)
    if applied:
        counters.moves_applied.inc()
    for event in events:
        kind = type(event)
        if kind not in _COUNTED_EVENTS:  # passes and turns, most of a move's events
            continue
        if kind is engine.GameStarted:
            counters.games_started.inc()
        elif kind is engine.Played:
            if event.chop:  # type: ignore[union-attr] # a Played, checked just above
                counters.chops.inc()
        elif kind is engine.InstantWin:
            counters.instant_wins.inc()
        else:
            counters.games_finished.inc()


def count_error(metrics: Metrics, exc: Exception, rpc: str) -> None:
    """Count a refused move (on the move methods) or a refused state or seat token."""
    if isinstance(exc, IllegalMove) and rpc in _MOVE_METHODS:
        metrics.moves_rejected.labels(reason=str(exc.reason)).inc()
    elif isinstance(exc, TokenError):
        metrics.tokens_rejected.labels(reason=str(exc.reason)).inc()
    elif isinstance(exc, StateDecodeError):
        metrics.tokens_rejected.labels(reason=TOKEN_MALFORMED).inc()
    elif isinstance(exc, SeatTokenError):
        metrics.tokens_rejected.labels(reason=SEAT_TOKEN_INVALID).inc()
