"""Moves at a live table (RULES §9.3, §9.4): the public `apply`, with the host's reports.

Besides a seat's plays and passes (`game.apply`), the host reports what the engine can't see: a
seat whose time ran out (a time-out move: `timeout_action` decides what it plays) and a player
who left during the game (a leave: `leave_mid_game` decides what it does). They are moves like
any other: validated, applied, recorded and replayed.
"""

from __future__ import annotations

import random

from tienlen_rules import game
from tienlen_rules.bots.base import observe
from tienlen_rules.bots.greedy import GreedyBot
from tienlen_rules.choices import LeaveMidGame, TimeoutAction
from tienlen_rules.combinations import Combination
from tienlen_rules.errors import IllegalMove, Reason
from tienlen_rules.events import Event, PlayerLeft
from tienlen_rules.forfeits import forfeit
from tienlen_rules.state import GameState, Move, TableAction, pass_turn, play, replaced
from tienlen_rules.timeouts import go_auto, timed_out


def apply(state: GameState, move: Move) -> tuple[GameState, tuple[Event, ...]]:
    """The state after a legal move — a play, a pass, a time-out or a leave — and what
    happened; raises IllegalMove (state unchanged)."""
    if move.action is None:
        return game.apply(state, move)
    events: list[Event] = []
    if move.action is TableAction.TIMEOUT:
        state = _timeout(state, move.seat, events)
    else:
        state = _leave(state, move.seat, events)
    return state, tuple(events)


def validate(state: GameState, move: Move) -> Combination | None:
    """The combination a legal play forms (for a time-out, the play it makes), None for a legal
    pass (or a time-out that passes, or a leave); IllegalMove otherwise."""
    if move.action is None:
        return game.validate(state, move)
    if move.action is TableAction.TIMEOUT:
        return game.check_step(state, timeout_move(state, move.seat))
    _check_leave(state, move.seat)
    return None


def can_apply(state: GameState, move: Move) -> bool:
    """Whether the move is legal in this state."""
    try:
        validate(state, move)
    except IllegalMove:
        return False
    return True


def timeout_move(state: GameState, seat: int) -> Move:
    """What a time-out plays for the seat to act (`timeout_action`, RULES §9.3): a seat that may
    pass passes and a seat that leads plays its lowest single that is a legal lead (`lowest`),
    or the greedy bot's move (`bot`). Never a steal of the lead, never an out-of-turn chop."""
    _check_seat(state, seat)
    if seat != state.to_act:
        raise IllegalMove(
            Reason.NOT_YOUR_TURN,
            f"seat {state.to_act} is to act, not seat {seat}: a time-out is for the seat to act",
        )
    if state.rules.timeout_action == TimeoutAction.BOT:
        chosen = GreedyBot().choose(observe(state, seat), random.Random(0))  # noqa: S311
        if chosen.is_pass or not _steals(state, chosen):
            return chosen
    if state.table is not None:
        return pass_turn(seat)
    hand = state.hands[seat]
    card = state.must_include if state.must_include >= 0 else (hand & -hand).bit_length() - 1
    return play(seat, (card,))


def _steals(state: GameState, move: Move) -> bool:
    combo = game.validate(state, move)
    return combo is not None and game.is_steal(state, move.seat, combo)


def _timeout(state: GameState, seat: int, events: list[Event]) -> GameState:
    move = timeout_move(state, seat)
    state = timed_out(state, seat, events)
    return game.step(state, move, events)


def _check_seat(state: GameState, seat: int) -> None:
    if state.to_act < 0:
        raise IllegalMove(Reason.GAME_OVER, "the game is over")
    if not 0 <= seat < state.players:
        raise IllegalMove(
            Reason.INVALID_SEAT, f"seat {seat} is not at this table of {state.players}"
        )
    if state.places[seat] < 0:
        raise IllegalMove(Reason.SEAT_EMPTY, f"nobody sits in seat {seat} in this game")


def _check_leave(state: GameState, seat: int) -> None:
    if state.to_act < 0:
        raise IllegalMove(
            Reason.GAME_OVER, "the game is over: a player leaves between games (NextGame)"
        )
    _check_seat(state, seat)
    if state.departed >> seat & 1:
        raise IllegalMove(Reason.SEAT_LEFT, f"seat {seat}'s player has already left this game")
    if state.rules.leave_mid_game == LeaveMidGame.REFUSE:
        raise IllegalMove(
            Reason.LEAVE_REFUSED,
            "at this table a player stays until the game ends (leave_mid_game = refuse)",
        )


def _leave(state: GameState, seat: int, events: list[Event]) -> GameState:
    """A player left during the game (RULES §9.4); the game goes on for the others. Under
    play_out the seat plays on, on auto (the host's time-outs), and the next game drops it;
    under forfeit it stops at once (`forfeits.forfeit`). A seat that already has its place keeps
    it either way: its leave takes effect before the next game."""
    _check_leave(state, seat)
    forfeits = state.rules.leave_mid_game == LeaveMidGame.FORFEIT
    if forfeits and not state.places[seat]:
        return forfeit(state, seat, events)
    bit = 1 << seat
    events.append(PlayerLeft(seat, forfeit=forfeits, place=state.places[seat]))
    state = replaced(
        state,
        departed=state.departed | bit,
        forfeited=state.forfeited | (bit if forfeits else 0),
        move_count=state.move_count + 1,
    )
    if state.places[seat]:
        return state
    return go_auto(state, seat, events)
