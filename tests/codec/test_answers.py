"""What an answer says: events one for one and never a hand, a play's combination, every
transfer of a settlement, and a view that shows a seat its own hand only."""

from __future__ import annotations

import random

import pytest
from helpers.codec_games import VARIANTS, random_game

import tienlen_rules as game
from tienlen.v1 import events_pb2, game_pb2, moves_pb2
from tienlen_rules import events as ev
from tienlen_rules.cards import cards_of, parse_set
from tienlen_rules.ruleset import build_rules
from tienlen_rules.seat_view import SeatView, view
from tienlen_rules.settlement import settle
from tienlen_rules.state import GameState, Move
from tienlen_service import codec


def sent_events(events: tuple[ev.Event, ...]) -> list[events_pb2.Event]:
    """The wire events the service sends, as messages."""
    return list(game_pb2.GameUpdate.FromString(codec.events_to_wire(events)).events)


def sent_view(seat_view: SeatView, state: GameState) -> game_pb2.TableView:
    """The wire view the service sends, as a message."""
    return game_pb2.TableView.FromString(codec.view_to_wire(seat_view, state))


def test_events_map_one_to_one_and_never_carry_hands() -> None:
    rng = random.Random(5)
    rules = build_rules("southern")
    state, events = game.new_game(rules, 4, seed=11)
    seen: set[str] = set()
    while True:
        wire = sent_events(events)
        assert len(wire) == len(events)
        for event in wire:
            kind = event.WhichOneof("kind")
            assert kind is not None
            seen.add(kind)
        if state.over:
            break
        candidates = [(seat, m) for seat in range(4) for m in game.legal_moves(state, seat)]
        state, events = game.apply(state, rng.choice(candidates)[1])
    assert {"game_started", "played", "turn_passed", "game_over", "player_finished"} <= seen
    assert "held_beat" not in events_pb2.Passed.DESCRIPTOR.fields_by_name


def test_a_played_event_carries_its_combination() -> None:
    hands = [parse_set("3S 3C 4D"), parse_set("5S 6S"), parse_set("7H"), parse_set("8H")]
    state, _ = game.new_game(build_rules("southern"), 4, hands=hands)
    state, events = game.apply(state, Move(0, (0, 1), is_pass=False))
    played = sent_events(events)[0].played
    assert played.seat == 0
    assert played.combination.type == moves_pb2.COMBINATION_TYPE_PAIR
    assert [codec.card_to_text(c) for c in played.combination.cards] == ["3S", "3C"]
    assert codec.card_to_text(played.combination.top) == "3C"
    assert played.cards_left == 1


def test_settlement_maps_every_transfer() -> None:
    hands = [parse_set("3S"), parse_set("4S 2H")]
    state, _ = game.new_game(build_rules("southern"), 2, hands=hands)
    state, _ = game.apply(state, Move(0, (0,), is_pass=False))
    assert state.over
    engine = settle(state)
    wire = codec.settlement_to_pb(engine)
    assert list(wire.net) == list(engine.net)
    assert list(wire.places) == list(engine.places)
    assert [(t.payer, t.payee, t.amount) for t in wire.transfers] == [
        (t.payer, t.payee, t.amount) for t in engine.transfers
    ]
    assert wire.zero_sum
    assert {t.reason for t in wire.transfers} <= set(range(1, 10))
    assert [r.label for r in wire.rotten] == [r.label for r in engine.rotten]


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_view_lists_the_played_cards_and_the_viewers_hand_weakest_first(variant: str) -> None:
    for state in random_game(variant, 11, random.Random(variant))[::7]:
        for seat in (-1, *range(state.players)):
            wire = sent_view(view(state, seat), state)
            assert list(wire.played) == codec.cards_to_pb(state.played)
            hand = state.hands[seat] if seat >= 0 else 0
            assert list(wire.hand) == codec.cards_to_pb(hand)
            assert wire.rules == codec.rules_to_pb(state.rules)


def test_a_spectator_view_has_no_hand_and_a_seat_view_only_its_own() -> None:
    state, _ = game.new_game(build_rules("southern"), 4, seed=9)
    spectator = sent_view(view(state, -1), state)
    assert not spectator.HasField("seat")
    assert len(spectator.hand) == 0
    assert [s.cards_left for s in spectator.seats] == [13] * 4
    for seat in range(4):
        mine = sent_view(view(state, seat), state)
        assert mine.seat == seat
        held = {codec.card_from_pb(c, "hand") for c in mine.hand}
        assert held == set(cards_of(state.hands[seat]))
        others = 0
        for other in range(4):
            if other != seat:
                others |= state.hands[other]
        assert not any(others >> c & 1 for c in held)
