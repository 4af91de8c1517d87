"""Helpers for the variant tests: explicit deals in card notation, moves, and settlements.

Every helper takes card text (``"3S 4S 5S"``) so a test reads like the rule book. A `Table`
wraps the immutable engine state so a test can write a game as a list of moves, and asserts
each move is legal (or refused with a given reason) as it goes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeVar

import pytest

from tienlen_rules import apply, legal_plays, new_game, next_game
from tienlen_rules.beating import Beat, beat
from tienlen_rules.cards import cards_of, format_cards, parse_set
from tienlen_rules.combinations import Combination, classify
from tienlen_rules.errors import IllegalMove, Reason
from tienlen_rules.events import Event
from tienlen_rules.ruleset import RuleSet, build_rules
from tienlen_rules.settlement import Settlement, Transfer, TransferReason, settle
from tienlen_rules.state import GameState, leave, pass_turn, play, timeout

E = TypeVar("E")


def rules(variant: str = "southern", **options: object) -> RuleSet:
    """The rule set of a preset with option overrides given as keywords."""
    return build_rules(variant, options)


def cards(text: str) -> int:
    """A card set from card notation."""
    return parse_set(text)


def combo(text: str, ruleset: RuleSet) -> Combination | None:
    """What these cards form under the rules (None: no combination)."""
    return classify(cards(text), ruleset)


def relation(new: str, table: str, ruleset: RuleSet) -> Beat:
    """Whether the play `new` beats (BEATS), chops (CHOPS) or does not beat (NO) `table`."""
    a, b = combo(new, ruleset), combo(table, ruleset)
    assert a is not None, f"{new} is no combination under {ruleset.variant}"
    assert b is not None, f"{table} is no combination under {ruleset.variant}"
    return beat(a, b, ruleset)[0]


@dataclass
class Table:
    """A game in progress, written move by move. `events` collects every event so far."""

    state: GameState
    events: list[Event] = field(default_factory=list)

    @property
    def rules(self) -> RuleSet:
        return self.state.rules

    def play(self, seat: int, text: str) -> Table:
        """`seat` plays these cards; the move must be legal."""
        try:
            self.state, events = apply(self.state, play(seat, tuple(cards_of(cards(text)))))
        except IllegalMove as exc:  # pragma: no cover - a failing test explains itself
            pytest.fail(f"seat {seat} playing {text} was refused: {exc}")
        self.events += events
        return self

    def passes(self, *seats: int) -> Table:
        """These seats pass, in this order."""
        for seat in seats:
            self.state, events = apply(self.state, pass_turn(seat))
            self.events += events
        return self

    def timeout(self, *seats: int) -> Table:
        """The host's time-out for each of these seats, in this order (RULES §9.3)."""
        for seat in seats:
            self.state, events = apply(self.state, timeout(seat))
            self.events += events
        return self

    def leave(self, seat: int) -> Table:
        """The seat's player leaves during the game (RULES §9.4)."""
        self.state, events = apply(self.state, leave(seat))
        self.events += events
        return self

    def refused(self, seat: int, text: str) -> Reason:
        """The reason the engine refuses `seat` playing these cards (the state is unchanged)."""
        with pytest.raises(IllegalMove) as info:
            apply(self.state, play(seat, tuple(cards_of(cards(text)))))
        return info.value.reason

    def can_play(self, seat: int, text: str) -> bool:
        """Whether `seat` may play these cards now."""
        try:
            apply(self.state, play(seat, tuple(cards_of(cards(text)))))
        except IllegalMove:
            return False
        return True

    def legal(self, seat: int) -> set[str]:
        """Every play the seat may make now, in card notation."""
        return {format_cards(c.cards) for c in legal_plays(self.state, seat)[0]}

    def of(self, kind: type[E]) -> list[E]:
        """The events of one type, in order."""
        return [e for e in self.events if isinstance(e, kind)]

    @property
    def over(self) -> bool:
        return self.state.over

    @property
    def to_act(self) -> int:
        return self.state.to_act

    @property
    def places(self) -> tuple[int, ...]:
        return self.state.places

    def settle(self) -> Settlement:
        assert self.state.over, "the game is not over"
        return settle(self.state)

    def next_game(self, *hands: str) -> Table:
        """The next game of the match with an explicit deal."""
        state, events = next_game(self.state, hands=[cards(h) for h in hands])
        return Table(state, list(events))


def deal(
    variant: str,
    *hands: str,
    options: Mapping[str, object] | None = None,
    first_game: bool = True,
    leader: int | None = None,
    dealer: int = 0,
    seed: int | None = None,
) -> Table:
    """A game of this preset with an explicit deal, one card-notation string per seat."""
    ruleset = build_rules(variant, options)
    state, events = new_game(
        ruleset,
        len(hands),
        hands=[cards(h) for h in hands],
        first_game=first_game,
        leader=leader,
        dealer=dealer,
        seed=seed,
    )
    return Table(state, list(events))


def later(
    variant: str, *hands: str, leader: int = 0, options: Mapping[str, object] | None = None
) -> Table:
    """A game that is not a first game (the previous winner, `leader`, leads with anything)."""
    return deal(variant, *hands, options=options, first_game=False, leader=leader)


def transfers(
    settlement: Settlement, reason: TransferReason | None = None
) -> list[tuple[int, int, int]]:
    """The (payer, payee, chips) of a settlement's transfers, optionally of one reason."""
    return [
        (t.payer, t.payee, t.amount)
        for t in settlement.transfers
        if reason is None or t.reason == reason
    ]


def reasons(settlement: Settlement) -> set[TransferReason]:
    """The reasons that appear in a settlement."""
    return {t.reason for t in settlement.transfers}


__all__ = [
    "Beat",
    "Reason",
    "Table",
    "Transfer",
    "TransferReason",
    "cards",
    "combo",
    "deal",
    "later",
    "reasons",
    "relation",
    "rules",
    "transfers",
]
