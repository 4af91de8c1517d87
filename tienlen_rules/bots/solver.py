"""The exact endgame solver (*giải tàn cuộc*): what a position is worth when every seat plays
its best, for a full (determinised) state.

Once few cards are left, a game of Tiến Lên is small enough to search to its end. `Solver.value`
answers, for every seat, the net in stakes the game settles to (places, chops, *thối*, *cóng*:
the preset's own money, `settlement.settle`) when each seat, in turn, makes the move that is
best for itself (*max-n*: with more than two seats the game is not zero-sum, so each seat
maximises its own net; a seat indifferent between moves keeps the first in the policy's order,
so the answer is deterministic). Moves are the engine's: `game.legal_plays` and
`game.apply_in_turn`, in turn only (out-of-turn chops and steals are left out, as in playouts).

Positions reached twice (transpositions: the same hands, table, passes and money so far, by
another order of moves) are solved once (`table`, shared by every solve of one decision: a
position's key is the whole state but its move count and match, so positions of different
sampled deals never meet).

**Bounded by construction**: every position expanded costs one *node* (one move generation
and its children's `apply_in_turn`); a solver holds a node budget for all its solves and a
solve that would pass it gives up (`value` answers None) instead of finishing. `should_stop`
is asked every `STOP_EVERY` nodes; once it says True the solve ends with `Abandoned`.
"""

from __future__ import annotations

from collections.abc import Callable

from tienlen_rules.bots.policy import playout_play
from tienlen_rules.combinations import Combination
from tienlen_rules.errors import Abandoned
from tienlen_rules.game import apply_in_turn, legal_plays
from tienlen_rules.settlement import settle
from tienlen_rules.state import GameState

Value = tuple[float, ...]
"""Each seat's net in stakes."""

STOP_EVERY = 64
"""Nodes between two calls of `should_stop`."""


class _OutOfNodes(Exception):  # noqa: N818 - a control-flow signal, not an error
    """The node budget ran out in the middle of a solve."""


def _never() -> bool:
    return False


def live_cards(state: GameState) -> int:
    """Cards still held by the seats in play: the size of the endgame."""
    places = state.places
    return sum(hand.bit_count() for seat, hand in enumerate(state.hands) if not places[seat])


def final_value(state: GameState) -> Value:
    """Each seat's settled net in stakes, for a finished game."""
    stake = state.rules.stake
    return tuple(net / stake for net in settle(state).net)


def _key(state: GameState) -> tuple[object, ...]:
    # Everything that decides the rest of the game and its money: all but the rule set (one per
    # solver), the move count and the match (neither changes the settlement).
    return state[1:20]


class Solver:
    """Exact max-n values of full states, within a node budget shared by all its solves."""

    def __init__(self, budget: int, should_stop: Callable[[], bool] = _never) -> None:
        self.budget = budget
        self.nodes = 0
        self.should_stop = should_stop
        self.table: dict[tuple[object, ...], Value] = {}

    def value(self, state: GameState) -> Value | None:
        """Every seat's net in stakes under best play from `state`; None when the budget ran
        out first (the positions solved so far stay in the table)."""
        try:
            return self._value(state)
        except _OutOfNodes:
            return None

    def best(self, state: GameState) -> tuple[Combination | None, Value] | None:
        """The best move for the seat to act (None: pass) and the value it leads to; None when
        the budget ran out first."""
        try:
            return self._best(state)
        except _OutOfNodes:
            return None

    def _value(self, state: GameState) -> Value:
        if state.to_act < 0:
            return final_value(state)
        key = _key(state)
        known = self.table.get(key)
        if known is None:
            known = self._best(state)[1]
            self.table[key] = known
        return known

    def _best(self, state: GameState) -> tuple[Combination | None, Value]:
        self.nodes += 1
        if self.nodes > self.budget:
            raise _OutOfNodes
        if not self.nodes % STOP_EVERY and self.should_stop():
            raise Abandoned("the search was abandoned by its caller")
        seat = state.to_act
        best_move: Combination | None = None
        best: Value | None = None
        for combo in ordered_moves(state):
            value = self._value(apply_in_turn(state, combo))
            if best is None or value[seat] > best[seat]:
                best_move, best = combo, value
        assert best is not None  # a seat in turn always has a move
        return best_move, best


def ordered_moves(state: GameState) -> list[Combination | None]:
    """The seat to act's moves (None: pass), the policy's play first: it keeps ties."""
    seat = state.to_act
    plays, can_pass = legal_plays(state, seat)
    first = playout_play(state)
    moves: list[Combination | None] = [first]
    moves += [c for c in plays if c != first]
    if can_pass and first is not None:
        moves.append(None)
    return moves
