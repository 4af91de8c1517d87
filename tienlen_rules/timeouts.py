"""Time-outs and auto play (RULES §9.3): the count of a seat's time-outs in a row, and *auto*.

The engine keeps no clock: the host decides that a seat's time ran out and sends a time-out
move (`table_moves`). After `auto_after_timeouts` time-outs in a row — counted over the seat's
turns across rounds and games of the match — the seat is on auto (*tự động đánh*): its view and
the events say so, the mark carries into the next game, and the host plays its time-out move at
once on each of its turns. Any move the seat makes itself takes it off auto (`in_hand`).
"""

from __future__ import annotations

from tienlen_rules.events import AutoPlay, Event, TimedOut
from tienlen_rules.state import GameState, replaced


def in_hand(state: GameState, seat: int, events: list[Event]) -> GameState:
    """The seat moved itself: its count of time-outs in a row starts again, and it is off
    auto — unless its player left (a departed seat stays on auto)."""
    if state.departed >> seat & 1:
        return state
    bit = 1 << seat
    timeouts = state.timeouts
    if timeouts and timeouts[seat]:
        timeouts = (*timeouts[:seat], 0, *timeouts[seat + 1 :])
        if not any(timeouts):
            timeouts = ()
    if state.auto & bit:
        events.append(AutoPlay(seat, on=False))
    return replaced(state, timeouts=timeouts, auto=state.auto & ~bit)


def timed_out(state: GameState, seat: int, events: list[Event]) -> GameState:
    """Count the seat's time-out; at `auto_after_timeouts` in a row it goes on auto."""
    counts = state.timeouts or (0,) * state.players
    count = counts[seat] + 1
    events.append(TimedOut(seat, count))
    timeouts = (*counts[:seat], count, *counts[seat + 1 :])
    return go_auto(
        replaced(state, timeouts=timeouts),
        seat,
        events,
        when=0 < state.rules.auto_after_timeouts <= count,
    )


def go_auto(state: GameState, seat: int, events: list[Event], *, when: bool = True) -> GameState:
    """Put the seat on auto (if `when` and it isn't already), with its event."""
    bit = 1 << seat
    if not when or state.auto & bit:
        return state
    events.append(AutoPlay(seat, on=True))
    return replaced(state, auto=state.auto | bit)
