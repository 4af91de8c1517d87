"""Games for the codec's tests: every state, step and event of random matches of every preset,
the edge values random play rarely reaches, and the check every hand-written encoding passes
(the mapping's bytes, and the mapping's message once parsed)."""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

import tienlen_rules as game
from tienlen_rules import events as ev
from tienlen_rules.presets import PRESETS
from tienlen_rules.ruleset import build_rules
from tienlen_rules.state import ChopPayment, GameState, Match

if TYPE_CHECKING:
    from google.protobuf.message import Message

VARIANTS = tuple(PRESETS)


def players(variant: str) -> int:
    """The table size the tests deal for a preset."""
    return 3 if variant == "dau" else 4


def assert_wire_is_the_message(wire: bytes, message: Message) -> None:
    """A hand-written encoding is the mapping's message: byte for byte its deterministic
    serialisation (what the pinned tokens and the answers' caches rely on), and, parsed, the
    same message (what a reader sees, whatever a protobuf release's byte order)."""
    assert type(message).FromString(wire) == message
    assert wire == message.SerializeToString(deterministic=True)


def random_game(variant: str, seed: int, rng: random.Random) -> list[GameState]:
    """Every state of one game played with random legal moves."""
    rules = build_rules(variant)
    state, _ = game.new_game(rules, players(variant), seed=seed)
    states = [state]
    while not state.over and len(states) < 400:
        candidates = [
            (seat, m) for seat in range(state.players) for m in game.legal_moves(state, seat)
        ]
        _, move = rng.choice(candidates)
        state, _ = game.apply(state, move)
        states.append(state)
    return states


def match_states(variant: str, seed: int) -> list[GameState]:
    """Every state of a random game, then of the match's next game (match totals that are not
    zero, some negative; a dealer and a game number)."""
    rng = random.Random(seed)
    first = random_game(variant, seed, rng)
    if not first[-1].over:
        return first
    state, _ = game.next_game(first[-1], seed=seed + 1)
    states = [state]
    while not state.over and len(states) < 400:
        seat = state.to_act
        state, _ = game.apply(state, rng.choice(game.legal_moves(state, seat)))
        states.append(state)
    return first + states


def edge_states() -> list[GameState]:
    """Fields random matches rarely reach: states of random games up to the first chop chain,
    freeze and instant win, then every field pushed to its edge values (payloads encode fields,
    whatever game they come from). A new field of the payload gets its edge values here."""
    wanted = {"chain", "chop", "frozen", "instant win"}
    seen: list[GameState] = []
    for seed in range(400):
        for state in random_game("southern", seed, random.Random(seed)):
            found = {
                "chain": bool(state.chain),
                "chop": bool(state.chop_payments),
                "frozen": bool(state.frozen),
                "instant win": state.instant_winner >= 0,
            }
            if any(found[k] for k in wanted):
                wanted -= {k for k, v in found.items() if v}
                seen.append(state)
        if not wanted:
            break
    assert not wanted, f"no random game reached {wanted}"
    base = seen[0]
    edges = [
        base._replace(chain_victim_out=True, steal_open=True, first_game=False),
        base._replace(to_act=-1, table_seat=-1, must_include=51, instant_winner=3),
        base._replace(instant_pattern="tứ quý heo", compensation_seat=2, move_count=10**6),
        base._replace(chain=((0, 0), (3, (1 << 52) - 1)), passed=0b1111, frozen=0b1010),
        base._replace(
            chop_payments=(ChopPayment(-1, 0, 0, 0), ChopPayment(3, 2, 2**62, (1 << 52) - 1))
        ),
        base._replace(match=Match(2**31 - 1, (-(2**62), 0, 5, -1), 2**64 - 1, 3)),
        base._replace(match=Match(0, (0, 0, 0, 0), 0, 0), places=(0, -1, 4, 0)),
        base._replace(  # a live table's people (RULES §9)
            match=base.match._replace(
                player_ids=("", "Lan Anh ✓", "x" * 64, "p"),
                occupants=(0, 2**64 - 1, 1, 0),
                bankrolls=(0, 10**15, 7, 0),
            ),
            places=(0, -1, 0, 1),
            timeouts=(0, 2**32 - 1, 1, 0),
            auto=0b1111,
            departed=0b1001,
            forfeited=0b1000,
        ),
        base._replace(timeouts=(0, 0, 0, 3), auto=0, departed=0b0100, forfeited=0),
    ]
    return [*seen, *edges]


def match_steps(variant: str, seed: int) -> list[tuple[GameState, tuple[ev.Event, ...]]]:
    """Every step (the state after it, its events) of a random game and of the match's next
    game: deals, plays, passes, out-of-turn chops, game ends with their settlements."""
    rng = random.Random(seed)
    state, events = game.new_game(build_rules(variant), players(variant), seed=seed)
    steps = [(state, events)]
    for _ in range(2):
        while not state.over:
            seat = rng.randrange(state.players)
            moves = game.legal_moves(state, seat) or game.legal_moves(state, state.to_act)
            state, events = game.apply(state, rng.choice(moves))
            steps.append((state, events))
        state, events = game.next_game(state, seed=seed + 1)
        steps.append((state, events))
    return steps


def table_steps(variant: str, seed: int) -> list[tuple[GameState, tuple[ev.Event, ...]]]:
    """Every step of a random match at a live table (RULES §9): player ids and bankrolls from
    the deal (small ones, so the loss cap cuts), time-outs, a player leaving during the game
    (played out, or forfeited on odd seeds), then a seat change (a player leaves, a newcomer
    sits down) and the next game played the same way."""
    rng = random.Random(seed)
    # No table minimum: bankrolls small enough that the loss cap cuts, under đếm lá too.
    options = {"min_bankroll_stakes": 0, **({"leave_mid_game": "forfeit"} if seed % 2 else {})}
    rules = build_rules(variant, options)
    n = players(variant)
    minimum = rules.min_bankroll_stakes * rules.stake

    def chips() -> int:
        return minimum + rng.randrange(4) * rules.stake

    state, events = game.new_game(
        rules,
        n,
        seed=seed,
        player_ids=[f"p{seed}-{s}" for s in range(n)],
        bankrolls=[chips() for _ in range(n)],
    )
    steps = [(state, events)]
    for number in range(2):
        left = False
        while not state.over:
            roll = rng.random()
            if roll < 0.2:
                move = game.timeout(state.to_act)
            elif roll < 0.23 and not left:
                move, left = (
                    game.leave(rng.choice([s for s in range(n) if not state.places[s]])),
                    True,
                )
            else:
                seat = rng.randrange(state.players)
                moves = game.legal_moves(state, seat) or game.legal_moves(state, state.to_act)
                move = rng.choice(moves) if moves else game.timeout(state.to_act)
            state, events = game.apply(state, move)
            steps.append((state, events))
        if number:
            break
        staying = [s for s in range(state.players) if state.places[s] >= 0]
        staying = [s for s in staying if not state.departed >> s & 1]
        if len(staying) > 1:
            staying.remove(rng.choice(staying))
        empty = [s for s in range(n) if s not in staying]
        if n == 4 and len(staying) >= 2:  # one seat stays empty: turns skip it
            empty = empty[1:]
        newcomers = tuple(game.Newcomer(s, f"n{seed}-{s}") for s in empty)
        state, events = game.next_game(
            state,
            seed=seed + 1,
            changes=game.SeatChanges(tuple(staying), newcomers),
            bankrolls=[chips() if s in staying or s in empty else 0 for s in range(n)],
        )
        steps.append((state, events))
    return steps


def random_events(variant: str, seed: int) -> list[ev.Event]:
    """Every event of a random game and of the match's next game."""
    return [event for _, events in match_steps(variant, seed) for event in events]
