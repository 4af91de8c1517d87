"""The engine's invariants: what must hold after every step of every game, whatever the rules.

The self-play simulator (`tools/simulate.py`) checks them at every move of thousands of games,
and the property tests (tests/engine/properties/test_properties.py) at every move of hypothesis' games:

* **cards** (`check_cards`): every card is in exactly one place. Hands are disjoint and inside
  the deal, the deal never changes, a play came from its player's hand, and the cards that
  left the hands are exactly the cards played.
* **turn** (`check_turn`): exactly one seat is to act, holding cards and at least one legal
  move, unless the game is over; then the places are 1..n (after an instant win, *tới trắng*,
  the winner is 1st and every other seat last: RULES §7).
* **settlement** (`check_settlement`): each net is the sum of its seat's transfers, and the
  game is zero-sum unless an option says otherwise (Huế's chop of a last card, paid by no one:
  `chop_on_last_card = chopper_only`); a seat charged FROZEN is frozen in the state (its view
  and the PlayersFrozen events say so, under every scheme: `finishing.frozen_at_finish`).

A broken invariant raises `InvariantError`: an engine bug, never a player's mistake.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tienlen_rules.cards import format_cards
from tienlen_rules.choices import ChopOnLastCard
from tienlen_rules.events import Played
from tienlen_rules.game import check_step, legal_plays
from tienlen_rules.revisions import CONG_DECIDED_ONCE, keeps_old_reading
from tienlen_rules.settlement import TransferReason
from tienlen_rules.table_moves import timeout_move

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tienlen_rules.combinations import Combination
    from tienlen_rules.events import Event
    from tienlen_rules.settlement import Settlement
    from tienlen_rules.state import GameState


class InvariantError(AssertionError):
    """The engine broke one of its invariants."""


def check_cards(state: GameState, before: GameState | None, events: Sequence[Event]) -> None:
    """Every card in exactly one place; every play came from its player's hand.

    `before` is the state the move was applied to and `events` what it produced; for a game
    just dealt, `before` is None (its hands must then be its deal) and `events` is ignored.
    """
    union = 0
    total = 0
    for seat, (hand, dealt) in enumerate(zip(state.hands, state.dealt, strict=True)):
        if hand & ~dealt:
            raise InvariantError(
                f"seat {seat} holds {format_cards(hand & ~dealt)} it was not dealt"
            )
        union |= hand
        total += hand.bit_count()
    if total != union.bit_count():
        raise InvariantError("a card is in two hands")
    if before is None:
        if state.hands != state.dealt:
            raise InvariantError("a new game's hands are not its deal")
        return
    if before.dealt != state.dealt:
        raise InvariantError("the deal changed during the game")
    played = 0
    for event in events:
        if isinstance(event, Played):
            if before.hands[event.seat] & event.cards != event.cards:
                raise InvariantError(
                    f"seat {event.seat} played {format_cards(event.cards)} it did not hold"
                )
            played |= event.cards
    removed = 0
    for old, new in zip(before.hands, state.hands, strict=True):
        if new & ~old:
            raise InvariantError(f"{format_cards(new & ~old)} came back into a hand")
        removed |= old & ~new
    if removed != played:
        raise InvariantError(f"{format_cards(removed ^ played)} moved without being played")


def check_turn(state: GameState) -> tuple[list[Combination], bool]:
    """Exactly one seat to act, holding cards and a legal move, unless the game is over;
    returns the seat's legal plays and whether it may pass (none, False: the game is over)."""
    n = state.seated_count  # an empty seat (RULES §9.1) holds no place
    if state.over:
        # Places are 1..n, except after an instant win: every other seat is last (RULES §7).
        expected = [1, *[n] * (n - 1)] if state.instant_winner >= 0 else list(range(1, n + 1))
        if sorted(p for p in state.places if p >= 0) != expected:
            raise InvariantError(f"game over with places {state.places}")
        return [], False
    seat = state.to_act
    if (
        not 0 <= seat < state.players
        or state.places[seat]
        or not state.hands[seat]
        or state.forfeited >> seat & 1
    ):
        raise InvariantError(f"seat {seat} is to act but cannot (places {state.places})")
    if state.departed >> seat & 1:  # its player left: the host's time-out plays it (RULES §9.4)
        check_step(state, timeout_move(state, seat))
        return [], False
    plays, can_pass = legal_plays(state, seat)
    if not plays and not can_pass:
        raise InvariantError(f"seat {seat} is to act and has no legal move")
    return plays, can_pass


def check_settlement(state: GameState, settlement: Settlement) -> None:
    """Nets are the transfers' sums; zero-sum unless an option says otherwise; FROZEN is
    charged only to a seat frozen in the state (a game dealt before rules revision 2 under the
    card count charged it by the hand alone)."""
    charged = {t.payer for t in settlement.transfers if t.reason == TransferReason.FROZEN}
    unshown = {s for s in charged if not state.frozen >> s & 1}
    if unshown and not keeps_old_reading(state.rules.revision, CONG_DECIDED_ONCE):
        raise InvariantError(f"seats {sorted(unshown)} are charged FROZEN but not frozen")
    net = [0] * state.players
    for t in settlement.transfers:
        if t.payer >= 0:
            net[t.payer] -= t.amount
        net[t.payee] += t.amount
    if tuple(net) != settlement.net:
        raise InvariantError(f"nets {settlement.net} are not the transfers' sums {tuple(net)}")
    balanced = sum(net) == 0
    if settlement.zero_sum != balanced:
        raise InvariantError(
            f"settlement says zero_sum={settlement.zero_sum} but nets sum to {sum(net)}"
        )
    if not balanced and state.rules.chop_on_last_card != ChopOnLastCard.CHOPPER_ONLY:
        raise InvariantError(f"nets sum to {sum(net)} under zero-sum rules")
