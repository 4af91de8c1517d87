"""What a call counts in the service's domain metrics (`metrics.domain`): a step's events —
games dealt and finished, moves applied, chops (*chặt*), instant wins (*tới trắng*) — under the
game's variant, and a refusal under its reason: a move the rules refuse (when the call was a
move), a state or seat token refused."""

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
MOVE_METHODS: Final = frozenset({"ApplyMove", "apply_move_wire"})
# The events the domain counters count (the engine's event classes are final).
_COUNTED_EVENTS: Final = frozenset(
    {engine.GameStarted, engine.Played, engine.InstantWin, engine.GameOver}
)


class DomainCounts:
    """The domain counters a servicer feeds (`metrics`)."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics

    def step(self, rules: RuleSet, events: Sequence[Event], *, applied: bool) -> None:
        """A step that led to a state of `rules`' variant with `events` (`applied`: a move)."""
        counters = self._metrics.variant(rules.variant)
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

    def refusal(self, exc: Exception, rpc: str) -> None:
        """A call of `rpc` (the servicer method's name) refused with the domain error `exc`."""
        if isinstance(exc, IllegalMove) and rpc in MOVE_METHODS:
            self._metrics.moves_rejected.labels(reason=str(exc.reason)).inc()
        elif isinstance(exc, TokenError):
            self._metrics.tokens_rejected.labels(reason=str(exc.reason)).inc()
        elif isinstance(exc, StateDecodeError):
            self._metrics.tokens_rejected.labels(reason=TOKEN_MALFORMED).inc()
        elif isinstance(exc, SeatTokenError):
            self._metrics.tokens_rejected.labels(reason=SEAT_TOKEN_INVALID).inc()
