"""Invariants of the engine, property-tested over every preset (RULES §2-§5, §7-§8).

Random games: a seeded (or random explicit) deal, then at every step a move drawn uniformly from
`game.legal_moves` of *every* seat — so out-of-turn chops happen too — until the game ends.
Along the way, and at the end, the engine's own invariants (`tienlen_rules.invariants`, which
the self-play simulator checks too) and these:

* the game ends within a bound (each play spends a card; between two plays each other seat can
  pass at most once, so moves <= players × (cards dealt + 1));
* every card is in exactly one place at every step: a seat's hand and the cards it played
  (tracked independently, from the `Played` events) partition what it was dealt;
* `apply` is deterministic: the same state and move give equal next states and events;
* a refused move leaves the state unchanged, and `validate` refuses exactly the moves `apply`
  refuses, with the same reason; a move `validate` accepts is in `legal_moves`;
* the settlement adds up (net = transfers), is zero-sum when it says so, and says so unless
  an option (Huế's chop of a last card) explicitly makes it otherwise.
"""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tienlen_rules import apply, invariants, legal_moves, new_game, next_game, validate
from tienlen_rules.cards import cards_of
from tienlen_rules.errors import IllegalMove, Reason
from tienlen_rules.events import Played
from tienlen_rules.presets import PRESETS
from tienlen_rules.ruleset import RuleSet, build_rules
from tienlen_rules.settlement import settle
from tienlen_rules.state import GameState, Move, pass_turn, play

TABLES = [
    (variant, players)
    for variant in PRESETS
    for players in ((3,) if build_rules(variant).deal_all_cards else (2, 3, 4))
]
TABLE_IDS = [f"{variant}-{players}p" for variant, players in TABLES]

GAMES = settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
)


def test_every_preset_is_covered_with_its_valid_player_counts() -> None:
    assert {v for v, _ in TABLES} == set(PRESETS)
    assert ("dau", 3) in TABLES
    assert ("dau", 4) not in TABLES
    assert ("southern", 2) in TABLES


def move_key(move: Move) -> tuple[int, frozenset[int], bool]:
    return move.seat, frozenset(move.cards), move.is_pass


class CardLedger:
    """Where every card is, tracked from the events alone (not from the state's own fields)."""

    def __init__(self, state: GameState) -> None:
        self.dealt = state.dealt
        self.played = [0] * state.players

    def record(self, events: tuple) -> None:
        for event in events:
            if isinstance(event, Played):
                assert self.played[event.seat] & event.cards == 0, "a card was played twice"
                self.played[event.seat] |= event.cards

    def check(self, state: GameState) -> None:
        assert state.dealt == self.dealt, "the deal changed"
        union_hands = 0
        for seat, hand in enumerate(state.hands):
            assert union_hands & hand == 0, "a card is in two hands"
            union_hands |= hand
            assert hand & self.played[seat] == 0, "a card is both held and played"
            assert hand | self.played[seat] == self.dealt[seat], "a card vanished or appeared"
        played = 0
        for cards in self.played:
            played |= cards
        dealt = 0
        for hand in self.dealt:
            dealt |= hand
        assert union_hands | played == dealt
        assert union_hands & played == 0
        assert state.played == played
        if state.table is not None:
            assert state.table.cards & played == state.table.cards


def random_move(state: GameState, rnd: random.Random) -> Move:
    """Any move at all, mostly plausible: a seat (now and then not at the table), then a pass or
    a random handful of its cards (now and then a card it doesn't hold, or a card twice)."""
    n = state.players
    seat = rnd.choice([*range(n), *range(n), -1, n])
    if rnd.random() < 0.2:
        return pass_turn(seat)
    hand = list(cards_of(state.hands[seat])) if 0 <= seat < n else []
    k = rnd.randint(0, min(len(hand), 6))
    cards = rnd.sample(hand, k)
    roll = rnd.random()
    if roll < 0.1:
        cards.append(rnd.randrange(52))
    elif roll < 0.15 and cards:
        cards.append(cards[0])
    return play(seat, cards)


def refusal_reason(state: GameState, move: Move) -> Reason | None:
    """Why `validate` refuses the move, or None when it accepts it."""
    try:
        validate(state, move)
    except IllegalMove as refused:
        return refused.reason
    return None


def check_step(
    state: GameState, move: Move, rnd: random.Random, legal: set
) -> tuple[GameState, tuple]:
    """Apply a legal move, checking determinism, `validate`, and refusals around it."""
    combo = validate(state, move)
    if move.is_pass:
        assert combo is None
    else:
        assert combo is not None
        assert combo.cards == sum(1 << c for c in move.cards)
    before = copy.deepcopy(state)
    after, events = apply(state, move)
    again, events_again = apply(state, move)
    assert after == again, "apply is not deterministic"
    assert events == events_again, "apply's events are not deterministic"
    assert state == before, "apply changed its input state"
    assert after.move_count == state.move_count + 1
    for _ in range(3):
        probe = random_move(state, rnd)
        reason = refusal_reason(state, probe)
        if reason is None:
            apply(state, probe)  # must not raise
            assert move_key(probe) in legal, f"validate accepts {probe} but legal_moves lacks it"
        else:
            with pytest.raises(IllegalMove) as applied:
                apply(state, probe)
            assert applied.value.reason == reason, probe
            assert state == before, "a refused move changed the state"
    return after, events


def choose(state: GameState, moves: list[Move], rnd: random.Random, style: float) -> Move:
    """A random legal move. `style` (0..1, fixed per game) is how often the seat to act passes
    when it may, so that some games freeze players; out-of-turn chops, rare in a uniform draw,
    are taken half the time they are offered."""
    out_of_turn = [m for m in moves if m.seat != state.to_act]
    if out_of_turn and rnd.random() < 0.5:
        return rnd.choice(out_of_turn)
    mine = [m for m in moves if m.seat == state.to_act]
    if mine[-1].is_pass and rnd.random() < style:
        return mine[-1]
    return rnd.choice(mine)


def play_out(state: GameState, events: tuple, rnd: random.Random) -> GameState:
    """Play random legal moves from every seat until the game ends, checking every step."""
    style = rnd.choice([0.0, 0.3, 0.6, 0.9])
    ledger = CardLedger(state)
    ledger.record(events)
    ledger.check(state)
    invariants.check_cards(state, None, events)
    total = sum(h.bit_count() for h in state.dealt)
    bound = state.players * (total + 1)
    steps = 0
    while not state.over:
        invariants.check_turn(state)
        moves = [m for seat in range(state.players) for m in legal_moves(state, seat)]
        assert any(m.seat == state.to_act for m in moves), "the seat to act has no legal move"
        legal = {move_key(m) for m in moves}
        assert len(legal) == len(moves), "legal_moves lists a move twice"
        move = choose(state, moves, rnd, style)
        before = state
        state, events = check_step(state, move, rnd, legal)
        ledger.record(events)
        ledger.check(state)
        invariants.check_cards(state, before, events)
        steps += 1
        assert steps <= bound, f"the game did not end within {bound} moves"
    invariants.check_turn(state)  # over: the places are 1..n (or an instant win's)
    for seat in range(state.players):
        assert legal_moves(state, seat) == []
    return state


def check_settlement(state: GameState) -> None:
    rules: RuleSet = state.rules
    result = settle(state)
    invariants.check_settlement(state, result)
    net = [0] * state.players
    for t in result.transfers:
        assert isinstance(t.amount, int)
        assert t.amount > 0
        assert t.payer != t.payee
        net[t.payee] += t.amount
        if t.payer >= 0:
            net[t.payer] -= t.amount
    assert list(result.net) == net
    if result.zero_sum:
        assert sum(result.net) == 0
    else:
        assert rules.chop_on_last_card == "chopper_only", "only Huë's option may break zero-sum"
        assert any(t.payer < 0 for t in result.transfers)
    if state.instant_winner < 0:
        assert sorted(result.places) == list(range(1, state.players + 1))
    assert result.places[state.winner] == 1


@pytest.mark.parametrize(("variant", "players"), TABLES, ids=TABLE_IDS)
@GAMES
@given(seed=st.integers(0, 2**32), moves_seed=st.integers(0, 2**32))
def test_random_legal_play_from_a_seeded_deal_keeps_every_invariant(
    variant: str, players: int, seed: int, moves_seed: int
) -> None:
    rnd = random.Random(moves_seed)
    rules = build_rules(variant)
    state, events = new_game(rules, players, seed=seed)
    assert new_game(rules, players, seed=seed) == (state, events), (
        "a seeded deal is not reproducible"
    )
    state = play_out(state, events, rnd)
    check_settlement(state)
    following, events = next_game(state, seed=seed + 1)
    assert following.match.totals == settle(state).net
    assert following.match.game_number == 2
    play_out(following, events, rnd)


@st.composite
def short_deals(draw: st.DrawFn, players: int, most: int) -> list[int]:
    """Disjoint random hands of 1..`most` cards: short games reach finishing, hưởng sái and
    the end game quickly. Half the deals come from a dense deck (six neighbouring ranks and the
    2s), so that pairs, bombs, chops, stacked and out-of-turn chops are common."""
    if draw(st.booleans()):
        low = draw(st.integers(0, 6))
        dense = [c for c in range(52) if low <= c >> 2 < low + 6 or c >> 2 == 12]
        deck = draw(st.permutations(dense))
        most = min(most, len(dense) // players)
    else:
        deck = draw(st.permutations(range(52)))
    sizes = [draw(st.integers(1, most)) for _ in range(players)]
    hands, start = [], 0
    for size in sizes:
        hands.append(sum(1 << c for c in deck[start : start + size]))
        start += size
    return hands


@pytest.mark.parametrize(("variant", "players"), TABLES, ids=TABLE_IDS)
@GAMES
@given(data=st.data(), first_game=st.booleans(), moves_seed=st.integers(0, 2**32))
def test_random_legal_play_from_a_short_explicit_deal_keeps_every_invariant(
    variant: str, players: int, data: st.DataObject, first_game: bool, moves_seed: int
) -> None:
    rnd = random.Random(moves_seed)
    rules = build_rules(variant)
    most = 8 if players == 4 else 10
    hands = data.draw(short_deals(players, most))
    # A first game is led by the holder of the starting card (a leader is given only for the
    # others, and for a variant that draws its first leader).
    leader = data.draw(st.integers(0, players - 1))
    given = leader if not first_game or rules.first_game_leader == "random" else None
    state, events = new_game(
        rules, players, hands=hands, first_game=first_game, leader=given, seed=1
    )
    state = play_out(state, events, rnd)
    check_settlement(state)
