"""Helpers for the Southern rules tests: explicit deals and moves written in card notation.

Every helper takes card text (``"3S 4S 5S"``) so that a test reads like the rule book:

    state = start("3S 4S", "5D 6D", "7H 8H")          # three hands, seat 0 holds ♠3
    state = run(state, "0: 3S", "1: 5D", "2: -")     # seat 0 leads ♠3, seat 1 beats, seat 2 passes

Games start from explicit hands (1-13 cards each) through the public `game.new_game`; moves go
through `game.apply`, so every step is checked by the engine exactly as the service would.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable

import pytest

# One definition of the settlement helper for both suites: the variants package's conftest is
# importable by its package name (tests/ is on sys.path), this file only as an ambiguous `conftest`.
from helpers.tables import transfers
from tienlen_rules import apply, new_game
from tienlen_rules.cards import CardSet, parse_cards, parse_set
from tienlen_rules.combinations import Combination, classify
from tienlen_rules.errors import IllegalMove, Reason
from tienlen_rules.events import Event
from tienlen_rules.ruleset import RuleSet, build_rules
from tienlen_rules.settlement import Settlement, settle
from tienlen_rules.state import GameState, Move, leave, pass_turn, timeout
from tienlen_rules.state import play as play_move

SOUTHERN = build_rules("southern")


def combo(text: str) -> Combination | None:
    """What these cards form in the Southern game (None: no combination)."""
    return classify(parse_set(text), SOUTHERN)


def must(text: str) -> Combination:
    """The Southern combination these cards form (the test's premise: they form one)."""
    found = combo(text)
    assert found is not None, f"{text} should be a combination"
    return found


def rules(**options: object) -> RuleSet:
    """The Southern rule set, with option overrides given as keywords."""
    return build_rules("southern", options)


def deal(*hands: str) -> list[CardSet]:
    """Explicit hands, one card-notation string per seat: ``deal("3S 4S", "5D 6D")``."""
    return [parse_set(hand) for hand in hands]


def start_events(
    *hands: str,
    first_game: bool = False,
    leader: int | None = 0,
    ruleset: RuleSet = SOUTHERN,
) -> tuple[GameState, tuple[Event, ...]]:
    """A new game from explicit hands, and the deal's events.

    Not a first game by default (seat `leader` leads with anything), so that a scenario needs
    neither ♠3 nor the instant-win checks of first games unless it asks for them.
    """
    return new_game(
        ruleset,
        len(hands),
        hands=deal(*hands),
        first_game=first_game,
        leader=None if first_game else leader,
    )


def start(
    *hands: str,
    first_game: bool = False,
    leader: int | None = 0,
    ruleset: RuleSet = SOUTHERN,
) -> GameState:
    """A new game from explicit hands that is really played (no instant win on the deal)."""
    state, _ = start_events(*hands, first_game=first_game, leader=leader, ruleset=ruleset)
    assert not state.over, f"the deal ended the game at once: {state.instant_pattern}"
    return state


def play_events(state: GameState, seat: int, cards: str) -> tuple[GameState, tuple[Event, ...]]:
    """Seat `seat` plays these cards; the next state and the step's events."""
    return apply(state, play_move(seat, parse_cards(cards)))


def play(state: GameState, seat: int, cards: str) -> GameState:
    """Seat `seat` plays these cards (``play(state, 0, "3S 4S 5S")``); the next state."""
    return play_events(state, seat, cards)[0]


def pass_(state: GameState, seat: int) -> GameState:
    """Seat `seat` passes (*bỏ lượt*); the next state."""
    return apply(state, pass_turn(seat))[0]


def parse_step(step: str) -> Move:
    """``"2: 3S 3C"`` plays, ``"2: -"`` (or ``"2: pass"``) passes; ``"2: timeout"`` is the
    host's time-out for seat 2 and ``"2: leave"`` its player's leaving (RULES §9.3, §9.4)."""
    seat_text, _, cards = step.partition(":")
    seat = int(seat_text)
    cards = cards.strip()
    if cards in {"-", "pass"}:
        return pass_turn(seat)
    if cards == "timeout":
        return timeout(seat)
    if cards == "leave":
        return leave(seat)
    return play_move(seat, parse_cards(cards))


def run_events(state: GameState, *steps: str) -> tuple[GameState, list[Event]]:
    """Apply a script of moves (``"0: 3S"``, ``"1: -"``), each of which must be legal."""
    events: list[Event] = []
    for step in steps:
        try:
            state, new = apply(state, parse_step(step))
        except IllegalMove as exc:  # pragma: no cover - a broken scenario, said clearly
            pytest.fail(f"step {step!r} was refused: {exc}")
        events += new
    return state, events


def run(state: GameState, *steps: str) -> GameState:
    """Apply a script of moves and return the final state."""
    return run_events(state, *steps)[0]


def refusal(state: GameState, move: Move | str) -> Reason:
    """The reason `apply` refuses the move; also checks `validate` agrees and nothing changed."""
    from tienlen_rules import validate

    if isinstance(move, str):
        move = parse_step(move)
    before = copy.deepcopy(state)
    with pytest.raises(IllegalMove) as applied:
        apply(state, move)
    with pytest.raises(IllegalMove) as validated:
        validate(state, move)
    assert state == before
    assert applied.value.reason == validated.value.reason
    return applied.value.reason


def of_type(events: Iterable[Event], kind: type) -> list:
    """The events of one type, in order."""
    return [e for e in events if isinstance(e, kind)]


def settled(state: GameState) -> Settlement:
    """The settlement of a finished game, checked to be zero-sum and to add up."""
    assert state.over, "the game is still being played"
    result = settle(state)
    net = [0] * state.players
    for t in result.transfers:
        net[t.payee] += t.amount
        if t.payer >= 0:
            net[t.payer] -= t.amount
    assert list(result.net) == net
    if result.zero_sum:
        assert sum(result.net) == 0
    return result


__all__ = [
    "SOUTHERN",
    "deal",
    "of_type",
    "parse_step",
    "pass_",
    "play",
    "play_events",
    "refusal",
    "rules",
    "run",
    "run_events",
    "settled",
    "start",
    "start_events",
    "transfers",  # defined once, in the variants suite's helpers
]
