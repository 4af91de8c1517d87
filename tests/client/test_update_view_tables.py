"""`update_view="basic"` at a table of people (RULES §9): the client follows time-outs, seats
going on auto and off it, leaves and forfeits, seat changes between games, bankrolls and the
host's chop seats from the events, and the Games it returns are the ones the full answers give.

As tests/client/test_update_view.py (whose `Lockstep` this extends): every move is made three
times on the same state — full unary (the reference), basic unary, basic stream — and the three
Games must be equal after it, views and all. A NextGame is made once (a newcomer's seat token is
drawn afresh at each call) and its view must be what the client folds from its events.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any, Final

import pytest
from tienlen_client import Game, MoveStream, Newcomer, TienLenClient
from tienlen_client.follow import follow_game

from client.test_update_view import BOMB_TYPES, Lockstep, diff, handled
from tienlen.v1 import game_pb2

MATCHES: Final = 3
"""Random matches (four games each) per case: a count, not a time budget."""

CASES: Final = [
    ("southern", {}),
    ("southern", {"leave_mid_game": "forfeit"}),
    ("dem_la", {"timeout_action": "bot"}),
    ("dau", {}),
    ("hue", {"auto_after_timeouts": 1}),
]


@pytest.fixture
def running(server_factory: Callable[..., Any]) -> Any:
    return server_factory()


@pytest.fixture
def full(running: Any) -> Iterator[TienLenClient]:
    with TienLenClient(running.address) as client:
        yield client


@pytest.fixture
def basic(running: Any) -> Iterator[TienLenClient]:
    with TienLenClient(running.address, update_view="basic") as client:
        yield client


@pytest.fixture
def stream(basic: TienLenClient) -> Iterator[MoveStream]:
    with basic.play_stream() as stream:
        yield stream


class LiveTable(Lockstep):
    """A Lockstep that also sends the host's reports and changes the table's people."""

    def report(self, seat: int, what: str) -> None:
        """The host's time-out of `seat`, or its player's leave (`what`)."""
        self.log.append(f"seat {seat}: {what}")
        self.ref = getattr(self.full, what)(self.ref, seat)
        self.unary = getattr(self.basic, what)(self.unary, seat)
        self.streamed = getattr(self.stream, what)(self.streamed, seat)
        assert not self.unary.raw.HasField("view")
        assert not self.streamed.raw.HasField("view")
        self.seen.update(e.WhichOneof("kind") or "" for e in self.unary.raw.events)
        self.check()

    def seat_change(self, seed: int, leaving: list[int], joining: list[Newcomer]) -> None:
        """The next game with these seat changes, dealt once for the three."""
        before = self.ref
        self.ref = self.full.next_game(before, seed=seed, leaving=leaving, joining=joining)
        bare = game_pb2.GameUpdate()
        bare.CopyFrom(self.ref.raw)
        bare.ClearField("view")
        dealt = follow_game(before, bare)
        # The events don't carry a newcomer's bankroll: the host knows the one it gave.
        for newcomer in joining:
            if newcomer.bankroll is not None:
                dealt.view.raw.seats[newcomer.seat].bankroll = newcomer.bankroll
        assert dealt.view.raw == self.ref.view.raw, diff(dealt, self.ref)
        self.unary = self.streamed = self.ref
        self.seen.update(e.WhichOneof("kind") or "" for e in self.ref.raw.events)
        self.log.append(f"next game: {leaving} leave, {[n.seat for n in joining]} sit down")

    def play_out_live(self, rng: random.Random) -> None:
        """Random legal moves until the game ends, with the host's time-outs now and then (at
        once for a seat on auto) and, once in a while, a player leaving."""
        for _ in range(1000):
            game = self.ref
            if game.finished:
                return
            seat = game.to_act
            assert seat is not None
            if game.view.seats[seat].auto or rng.random() < 0.2:
                self.report(seat, "timeout")
            elif rng.random() < 0.03 and not any(s.left for s in game.view.seats):
                playing = [s.seat for s in game.view.seats if not s.empty and not s.place]
                options = game.view.raw.rules.options
                if options.get("leave_mid_game") != "refuse":
                    self.report(rng.choice(playing), "leave")
            else:
                self.move(*live_move(self.full, game, rng))
        raise AssertionError("the game did not end")


def live_move(
    client: TienLenClient, game: Game, rng: random.Random
) -> tuple[int, tuple[str, ...] | None]:
    """A random legal move: when the table holds a 2 or a bomb, now and then another seat's
    out-of-turn play (a seat that sits there, plays and has not left); else the seat to act's
    (chops first) or, now and then, a pass."""
    seat = game.to_act
    assert seat is not None
    table = game.view.table
    if table is not None and (table.type in BOMB_TYPES or any("2" in c for c in table.cards)):
        others = [
            (s.seat, m.cards)
            for s in game.view.seats
            if s.seat != seat and not (s.empty or s.left or s.place)
            for m in client.legal_moves(game, s.seat)
            if not m.is_pass
        ]
        if others and rng.random() < 0.7:
            return rng.choice(others)
    moves = client.legal_moves(game, seat)
    plays = [m for m in moves if not m.is_pass]
    chops = [m for m in plays if m.chop]
    if chops and rng.random() < 0.8:
        return seat, rng.choice(chops).cards
    if len(plays) < len(moves) and (not plays or rng.random() < 0.3):
        return seat, None
    return seat, rng.choice(plays).cards


def seat_changes(game: Game, rng: random.Random, variant: str) -> tuple[list[int], list[Newcomer]]:
    """Now and then a player leaves and newcomers sit down (a Đấu table stays at three)."""
    seated = [s.seat for s in game.view.seats if not s.empty and not s.left]
    leaving = [rng.choice(seated)] if len(seated) > 2 and rng.random() < 0.6 else []
    staying = [s for s in seated if s not in leaving]
    free = [s for s in range(3 if variant == "dau" else 4) if s not in staying]
    wanted = (
        3 - len(staying) if variant == "dau" else rng.randint(max(0, 2 - len(staying)), len(free))
    )
    chips = any(s.bankroll is not None for s in game.view.seats)
    joining = [
        Newcomer(
            seat, f"new-{game.game_number}-{seat}", rng.randrange(30, 60) * 100 if chips else None
        )
        for seat in rng.sample(free, wanted)
    ]
    return leaving, joining


def below_the_minimum(game: Game, variant: str) -> bool:
    """Whether a seat's chips after `game` are below the preset's minimum (đếm lá: 20 stakes)."""
    minimum = 20 * 100 if variant == "dem_la" else 0
    net = game.settlement.net if game.settlement is not None else ()
    return any(
        s.bankroll is not None and s.bankroll + chips < minimum
        for s, chips in zip(game.view.seats, net, strict=True)
    )


@pytest.mark.parametrize(("variant", "options"), CASES)
def test_basic_answers_follow_a_table_of_people(
    full: TienLenClient,
    basic: TienLenClient,
    stream: MoveStream,
    running: Any,
    variant: str,
    options: dict[str, object],
) -> None:
    seen: Counter[str] = Counter()
    for seed in range(MATCHES):
        rng = random.Random(f"{variant}-{options}-{seed}")
        players = 3 if variant == "dau" else rng.choice((2, 3, 4, 4))
        chips = (
            [rng.randrange(30, 60) * 100 for _ in range(players)] if rng.random() < 0.7 else None
        )
        first = full.new_game(
            variant,
            players,
            seed=seed,
            options=options,
            player_ids=[f"p{seat}" for seat in range(players)],
            bankrolls=chips,
        )
        table = LiveTable(full, basic, stream, first)
        table.play_out_live(rng)
        for _ in range(3):
            if below_the_minimum(table.ref, variant):
                break  # a seat's chips fell below the table's minimum: this match ends here
            leaving, joining = seat_changes(table.ref, rng, variant)
            table.seat_change(rng.randrange(2**32), leaving, joining)
            table.play_out_live(rng)
        seen += table.seen
    reached = {"timed_out", "auto_play", "player_left", "seat_vacated", "seat_taken", "game_over"}
    assert reached <= set(seen), f"random play never reached {reached - set(seen)}"
    assert handled(running, "GetView") == 0  # every view was followed from the events


def test_a_seat_that_had_passed_and_forfeits_is_out_of_the_round(
    full: TienLenClient, basic: TienLenClient, stream: MoveStream
) -> None:
    """A forfeit forgets the seat's pass (it no longer plays in the round): followed so."""
    hands = ["3S 9S KD", "4S 10S KH", "5S JS AS", "6S QS AD"]
    game = full.new_game(hands=hands, options={"leave_mid_game": "forfeit"})
    table = LiveTable(full, basic, stream, game)
    table.move(0, ["3S"])
    table.move(1, None)
    assert table.ref.view.seats[1].passed
    table.report(1, "leave")
    assert table.ref.view.seats[1].forfeited
    assert not table.ref.view.seats[1].passed
