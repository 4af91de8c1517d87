"""`update_view="basic"`: the client asks for answers without the spectator view and follows
the view from the events, and the Games it returns are the ones the full answers give.

Every move is made three times on the same state, against a real server: `play`/`pass_turn`
asking for the full view (the reference), the same asking for UPDATE_VIEW_BASIC, and over a
PlayStream asking for UPDATE_VIEW_BASIC. The tokens are equal byte for byte (the state is the
same), so after every move the three Games must be equal — the view's every TableView field
included — while the basic answers carry no view on the wire and the server is never asked
for one (its GetView counter stays at 0), nor for DescribeRules: the option values the fold
needs come with the views (`TableView.follow_rules`).
"""

from __future__ import annotations

import dataclasses
import logging
import random
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

import pytest
from tienlen_client import Game, MoveStream, TienLenClient, View
from tienlen_client import follow as follow_module
from tienlen_client.cards import CardsLike
from tienlen_client.follow import (
    FOLLOWED_FIELDS,
    FOLLOWED_SEAT_FIELDS,
    CannotFollow,
    advance,
    follow_game,
)

from tienlen.v1 import events_pb2, game_pb2, moves_pb2

MATCHES_PER_CASE: Final = 3
"""Random seeded matches (two games each) per preset or option case: a count, not a time
budget, so every machine plays the same games."""

BOMB_TYPES: Final = frozenset({"CONSECUTIVE_PAIRS", "FOUR_OF_A_KIND", "CONSECUTIVE_TRIPLES"})


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


def handled(running: Any, method: str) -> int:
    """How many calls of `method` the server has answered (its Prometheus counter)."""
    with urllib.request.urlopen(running.metrics_url, timeout=10) as response:
        text = response.read().decode()
    return sum(
        int(float(line.rpartition(" ")[2]))
        for line in text.splitlines()
        if line.startswith("grpc_server_handled_total") and f'grpc_method="{method}"' in line
    )


class Lockstep:
    """One table played three ways at once: full unary (the reference), basic unary, basic
    stream. `seen` counts the event kinds (and chops, steals) the basic answers were followed
    through."""

    def __init__(
        self,
        full: TienLenClient,
        basic: TienLenClient,
        stream: MoveStream,
        game: Game,
    ) -> None:
        self.full = full
        self.basic = basic
        self.stream = stream
        self.ref = self.unary = self.streamed = game
        self.seen: Counter[str] = Counter()
        self.log: list[str] = []

    def move(self, seat: int, cards: CardsLike | None) -> None:
        """`seat` plays `cards`, or passes when None; the three Games must agree after it."""
        self.log.append(f"seat {seat}: {describe(cards)}")
        if cards is None:
            self.ref = self.full.pass_turn(self.ref, seat)
            self.unary = self.basic.pass_turn(self.unary, seat)
            self.streamed = self.stream.pass_turn(self.streamed, seat)
        else:
            self.ref = self.full.play(self.ref, seat, cards)
            self.unary = self.basic.play(self.unary, seat, cards)
            self.streamed = self.stream.play(self.streamed, seat, cards)
        assert self.ref.raw.HasField("view")
        assert not self.unary.raw.HasField("view"), "the basic call got the full view"
        assert not self.streamed.raw.HasField("view"), "the basic stream got the full view"
        self.seen.update(kinds(self.unary.raw.events))
        self.check()

    def next_game(self, seed: int | None = None, hands: Sequence[str] | None = None) -> None:
        """The next game of the match. NextGame always answers with the full view, and that
        view must also be what the deal's events (GameStarted) give from the last one."""
        before = self.ref
        self.ref = self.full.next_game(self.ref, seed=seed, hands=hands)
        bare = game_pb2.GameUpdate()
        bare.CopyFrom(self.ref.raw)
        bare.ClearField("view")
        dealt = follow_game(before, bare)
        assert dealt.view.raw == self.ref.view.raw, diff(dealt, self.ref)
        self.unary = self.basic.next_game(self.unary, seed=seed, hands=hands)
        self.streamed = self.basic.next_game(self.streamed, seed=seed, hands=hands)
        self.log.append("next game")
        self.check()

    def check(self) -> None:
        for name, game in (("unary", self.unary), ("stream", self.streamed)):
            where = f"{name} after: {' | '.join(self.log[-8:])}"
            assert game.view.raw == self.ref.view.raw, f"{where}\n{diff(game, self.ref)}"
            assert game == self.ref, where  # token, to_act, events, settlement, view records

    def play_out(self, rng: random.Random) -> None:
        """Random legal moves until the game ends."""
        for _ in range(1000):
            if self.ref.finished:
                return
            self.move(*random_move(self.full, self.ref, rng))
        raise AssertionError("the game did not end")


def describe(cards: CardsLike | None) -> str:
    if cards is None:
        return "pass"
    return cards if isinstance(cards, str) else " ".join(cards)


def kinds(events: Sequence[events_pb2.Event]) -> Iterator[str]:
    for event in events:
        kind = event.WhichOneof("kind")
        assert kind is not None
        yield kind
        if kind == "played" and event.played.chop:
            yield "chop"
        if kind == "played" and event.played.steal:
            yield "steal"


def diff(mine: Game, theirs: Game) -> str:
    """The TableView fields that differ, for the failure message."""
    a, b = mine.view.raw, theirs.view.raw
    lines = [
        f"{f.name}: {getattr(a, f.name)} != {getattr(b, f.name)}"
        for f in game_pb2.TableView.DESCRIPTOR.fields
        if f.name != "seats" and getattr(a, f.name) != getattr(b, f.name)
    ]
    lines += [
        f"seats[{i}]: {x} != {y}".replace("\n", " ")
        for i, (x, y) in enumerate(zip(a.seats, b.seats, strict=False))
        if x != y
    ]
    return "\n".join(lines)


def random_move(
    client: TienLenClient, game: Game, rng: random.Random
) -> tuple[int, tuple[str, ...] | None]:
    """A random legal move, eager to chop: when the table holds a 2 or a bomb, or the lead may
    be stolen, now and then another seat's out-of-turn play; else the seat to act's play
    (chops first, 2s often) or, now and then, a pass."""
    seat = game.to_act
    assert seat is not None
    table = game.view.table
    if (
        game.view.raw.steal_open
        or (table is not None and (table.type in BOMB_TYPES or any("2" in c for c in table.cards)))
    ) and rng.random() < 0.7:
        others = [
            (other, m.cards)
            for other in range(game.players)
            if other != seat
            for m in client.legal_moves(game, other)
            if not m.is_pass
        ]
        if others:
            return rng.choice(others)
    moves = client.legal_moves(game, seat)
    plays = [m for m in moves if not m.is_pass]
    chops = [m for m in plays if m.chop]
    twos = [m for m in plays if any(c.startswith("2") for c in m.cards)]
    can_pass = len(plays) < len(moves)
    if chops and rng.random() < 0.8:
        return seat, rng.choice(chops).cards
    if can_pass and (not plays or rng.random() < 0.3):
        return seat, None
    if twos and rng.random() < 0.4:
        return seat, rng.choice(twos).cards
    return seat, rng.choice(plays).cards


@pytest.fixture
def presets(full: TienLenClient) -> dict[str, dict[str, str]]:
    """Every preset's option values, as DescribeRules lists them."""
    described = full.describe_rules()
    return {v.name: dict(v.values) for v in described.variants}


@pytest.fixture
def lockstep(full: TienLenClient, basic: TienLenClient) -> Iterator[Callable[[Game], Lockstep]]:
    """Lockstep(game) with one basic PlayStream for all of a test's tables."""
    with basic.play_stream() as stream:
        yield lambda game: Lockstep(full, basic, stream, game)


# --- random matches of every preset --------------------------------------------------------


def test_basic_answers_give_the_same_games_as_full_ones_in_random_matches_of_every_preset(
    full: TienLenClient,
    lockstep: Callable[[Game], Lockstep],
    presets: dict[str, dict[str, str]],
    running: Any,
) -> None:
    """For every preset DescribeRules lists (and Southern without pass lockout): random
    seeded matches of two games, compared after every move."""
    assert len(presets) >= 6
    cases: list[tuple[str, dict[str, object]]] = [(name, {}) for name in presets]
    cases.append(("southern", {"pass_lockout": False}))
    seen: Counter[str] = Counter()
    for variant, options in cases:
        for seed in range(MATCHES_PER_CASE):
            rng = random.Random(f"{variant}-{options}-{seed}")
            players = 3 if variant == "dau" else rng.choice((2, 3, 4, 4))
            first = full.new_game(variant, players, seed=seed, options=options)
            table = lockstep(first)
            table.play_out(rng)
            table.next_game()  # the match's next seeded deal: not a first game
            table.play_out(rng)
            seen += table.seen
    # What random play must have reached for the comparison to mean something.
    assert {"played", "passed", "round_won", "player_finished", "game_over", "chop"} <= set(seen), (
        seen
    )
    assert handled(running, "GetView") == 0  # every view was followed from the events
    assert handled(running, "DescribeRules") == 1  # the `presets` fixture's: never the client


# --- the cases random play rarely reaches, played out move by move ---------------------------


def test_an_out_of_turn_chop_by_a_seat_that_had_passed(
    full: TienLenClient, lockstep: Callable[[Game], Lockstep]
) -> None:
    hands = ["3S 2S KH", "4C 5S 5C 6S 6C 7S 7C 8S 8C", "4D 4H KS", "9S 9C 10S 10C JS JC QS QC AS"]
    table = lockstep(full.new_game(hands=hands))
    table.move(0, ["3S"])
    for seat in (1, 2, 3):
        table.move(seat, None)
    table.move(0, ["2S"])
    table.move(1, None)  # seat 1 passes ...
    table.move(1, "5S 5C 6S 6C 7S 7C 8S 8C")  # ... and chops out of turn
    table.move(3, "9S 9C 10S 10C JS JC QS QC")  # and is chopped out of turn
    for seat in (0, 1, 2):
        table.move(seat, None)
    assert table.seen["chop_settled"] == 1
    table.play_out(random.Random(1))


def test_frozen_seats_then_the_next_game(
    full: TienLenClient, lockstep: Callable[[Game], Lockstep]
) -> None:
    hands = [
        "3S 4S 5S KH",
        "6S 7S 8S 9D 10D 10H QD QH JD JH AD AH 2D",
        "4C 4D 4H 6C 6D 6H 8C 8D 8H 10C 10S QC QS",
        "3C 3D 3H 5C 5D 5H 7C 7D 7H 9C 9S 9H JS",
    ]
    table = lockstep(full.new_game(hands=hands))
    table.move(0, ["3S", "4S", "5S"])
    for seat in (1, 2, 3):
        table.move(seat, None)
    table.move(0, ["KH"])  # out before anyone else played: cóng
    assert table.seen["players_frozen"] == 1
    assert [s.frozen for s in table.unary.view.seats] == [False, True, True, True]
    table.next_game(seed=7)
    table.play_out(random.Random(2))


def test_the_lead_stolen_and_stolen_back(
    full: TienLenClient, lockstep: Callable[[Game], Lockstep]
) -> None:
    hands = ["3S 3C KH", "AS AC 10S", "4S 4C 5S 5C 6S 6C 10C", "7S 7C 8S 8C 9S 9C 10D"]
    game = full.new_game("hue", hands=hands, first_game=False, leader=0)
    table = lockstep(game)
    assert table.unary.view.raw.steal_open
    table.move(2, "4S 4C 5S 5C 6S 6C")
    table.move(3, "7S 7C 8S 8C 9S 9C")
    assert table.seen["steal"] == 2
    assert table.unary.view.raw.steal_open
    for seat in (0, 1, 2):
        table.move(seat, None)
    assert not table.unary.view.raw.steal_open
    table.play_out(random.Random(4))


def test_the_winners_own_lead_of_three_pairs_closes_the_steal_with_the_option_off(
    full: TienLenClient, lockstep: Callable[[Game], Lockstep]
) -> None:
    hands = ["3S 3C 4S 4C 5S 5C KH", "AS AC 10S", "7S 7C 8S 8C 9S 9C 10C", "JD QD 10D"]
    options = {"steal_winner_pairs_lead": False}
    game = full.new_game("hue", hands=hands, first_game=False, leader=0, options=options)
    table = lockstep(game)
    table.move(0, "3S 3C 4S 4C 5S 5C")
    assert not table.unary.view.raw.steal_open
    table.move(1, None)
    table.move(2, "7S 7C 8S 8C 9S 9C")  # in turn: an ordinary beat, not a steal
    assert table.seen["steal"] == 0
    table.play_out(random.Random(9))


def test_a_play_reopens_every_seat_without_pass_lockout(
    full: TienLenClient, lockstep: Callable[[Game], Lockstep]
) -> None:
    hands = ["3S 5S 9S KS", "4S 6S 10S AS", "4C 7S JS 2S", "4D 8S QS 2C"]
    table = lockstep(full.new_game(hands=hands, options={"pass_lockout": False}))
    table.move(0, ["3S"])
    table.move(1, None)
    assert table.unary.view.seats[1].passed
    table.move(2, ["4C"])
    assert not table.unary.view.seats[1].passed
    table.move(3, ["4D"])
    table.move(0, ["5S"])
    table.move(1, ["6S"])  # seat 1 passed earlier in this round and plays again
    table.play_out(random.Random(5))


def test_other_dealers_and_starting_cards(
    full: TienLenClient, lockstep: Callable[[Game], Lockstep]
) -> None:
    table = lockstep(full.new_game("dau", hands=["4S 9C", "5D 2H", "6H KD"], dealer=2))
    table.play_out(random.Random(6))
    table.next_game(seed=11)
    table.play_out(random.Random(7))


def test_the_twos_laid_down_at_a_deal_are_followed(
    full: TienLenClient, lockstep: Callable[[Game], Lockstep]
) -> None:
    options = {"four_threes_lay_down_twos": True}
    table = lockstep(full.new_game("northern", hands=["3S", "4S"], options=options))
    table.move(0, ["3S"])
    table.next_game(hands=["3S 3C 3D 3H 5S", "2S 6S 7S"])
    table.play_out(random.Random(8))


# --- when the events can't be followed ------------------------------------------------------


def test_an_answer_that_cannot_be_followed_gets_its_view_from_get_view(
    full: TienLenClient,
    lockstep: Callable[[Game], Lockstep],
    running: Any,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """As if the service sent an event this client doesn't know: the client says so in its
    log and asks GetView; the Game is still the full answer's."""

    reason = "an event of a kind this client does not know"

    def cannot(*_args: object, **_kwargs: object) -> game_pb2.TableView:
        raise CannotFollow(reason)

    table = lockstep(full.new_game(hands=["3S 9S", "4S 10S", "5S JS", "6S QS"]))
    monkeypatch.setattr(follow_module, "advance", cannot)
    with caplog.at_level(logging.WARNING, logger="tienlen_client"):
        table.move(0, ["3S"])
    assert handled(running, "GetView") == 2  # the unary call's and the stream's
    warning = f"asking GetView: cannot follow the table from the events: {reason}"
    assert [r.getMessage() for r in caplog.records] == [warning] * 2


class _GetViewRefused:
    """A stub whose GetView can't even be started (as on a channel closed under the stream)."""

    def __init__(self, stub: Any) -> None:
        self._stub = stub

    def __getattr__(self, name: str) -> Any:
        if name == "GetView":
            return self
        return getattr(self._stub, name)

    def future(self, *_args: object, **_kwargs: object) -> Any:
        raise ValueError("Cannot invoke RPC on closed channel!")


def test_a_get_view_that_cannot_start_fails_only_its_move_and_the_stream_goes_on(
    full: TienLenClient, basic: TienLenClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fallback's error reaches the move's caller; the stream's reader thread survives
    it, answers the next move, and closing does not wait for a view that will never come."""
    game = full.new_game(hands=["3S 9S", "4S 10S", "5S JS", "6S QS"])

    def cannot(*_args: object, **_kwargs: object) -> game_pb2.TableView:
        raise CannotFollow("an event of a kind this client does not know")

    with basic.play_stream() as stream:
        stream._stub = _GetViewRefused(stream._stub)
        with monkeypatch.context() as patched:
            patched.setattr(follow_module, "advance", cannot)
            with pytest.raises(ValueError, match="closed channel"):
                stream.play(game, 0, ["3S"], timeout=10)
        after = stream.play(game, 0, ["3S"], timeout=10)
        assert after == full.play(game, 0, ["3S"])
        assert not after.raw.HasField("view")


def test_a_game_holding_a_seats_view_is_answered_with_the_full_view(
    full: TienLenClient, basic: TienLenClient
) -> None:
    """A previous view that isn't a spectator's can't be followed: the client asks for the
    full view up front instead of guessing."""
    game = full.new_game(hands=["3S 9S", "4S 10S", "5S JS", "6S QS"])
    seated = dataclasses.replace(game, view=full.view(game, 0))
    after = basic.play(seated, 0, ["3S"])
    assert after.raw.HasField("view")
    assert after == full.play(game, 0, ["3S"])


def test_update_view_is_chosen_per_client_stream_or_call(
    full: TienLenClient, basic: TienLenClient
) -> None:
    game = full.new_game(hands=["3S 9S", "4S 10S", "5S JS", "6S QS"])
    assert full.play(game, 0, ["3S"]).raw.HasField("view")  # the default: today's answers
    assert not full.play(game, 0, ["3S"], update_view="basic").raw.HasField("view")
    assert basic.play(game, 0, ["3S"], update_view="full").raw.HasField("view")
    with full.play_stream(update_view="basic") as stream:
        assert not stream.play(game, 0, ["3S"]).raw.HasField("view")
        assert stream.play(game, 0, ["3S"], update_view="full").raw.HasField("view")
    with basic.play_stream() as stream:
        assert not stream.submit(game, 0, ["3S"]).result(10).raw.HasField("view")
    with pytest.raises(ValueError, match="update_view"):
        full.play(game, 0, ["3S"], update_view="none")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="update_view"):
        TienLenClient("127.0.0.1:1", update_view="partial")  # type: ignore[arg-type]


# --- the fold itself ------------------------------------------------------------------------


def test_every_field_of_the_view_is_followed() -> None:
    """A field added to TableView or SeatStatus must be followed (follow.py) before basic
    answers can be trusted to keep it right."""
    assert {f.name for f in game_pb2.TableView.DESCRIPTOR.fields} == FOLLOWED_FIELDS
    assert {f.name for f in game_pb2.SeatStatus.DESCRIPTOR.fields} == FOLLOWED_SEAT_FIELDS


def spectator_view(players: int = 2, **follow_rules: bool) -> game_pb2.TableView:
    return game_pb2.TableView(
        players=players,
        seats=[game_pb2.SeatStatus(seat=i, cards_left=13) for i in range(players)],
        to_act=0,
        follow_rules=game_pb2.FollowRules(**({"pass_lockout": True} | follow_rules)),
    )


def test_an_event_of_a_kind_this_client_does_not_know_cannot_be_followed() -> None:
    unknown = events_pb2.Event.FromString(bytes([0xCA, 0x0C, 0x00]))  # field 201, empty
    assert unknown.WhichOneof("kind") is None
    update = game_pb2.GameUpdate(events=[unknown], to_act=0)
    with pytest.raises(CannotFollow, match="does not know"):
        advance(spectator_view(), update)


def test_events_that_disagree_with_the_answer_cannot_be_followed() -> None:
    passed = events_pb2.Event(turn_passed=events_pb2.TurnPassed(seat=1))
    with pytest.raises(CannotFollow, match="to_act"):
        advance(spectator_view(), game_pb2.GameUpdate(events=[passed], to_act=0))


def test_a_seats_view_cannot_be_followed() -> None:
    seated = spectator_view()
    seated.seat = 0
    with pytest.raises(CannotFollow, match="spectator"):
        advance(seated, game_pb2.GameUpdate(to_act=0))


def test_a_view_without_follow_rules_cannot_be_followed() -> None:
    """A view from a service older than TableView.follow_rules: the option values are unknown,
    and the client does not guess them."""
    old = spectator_view()
    old.ClearField("follow_rules")
    with pytest.raises(CannotFollow, match="follow_rules"):
        advance(old, game_pb2.GameUpdate(to_act=0))


def single(seat: int, cards_left: int) -> events_pb2.Event:
    play = moves_pb2.Combination(type=moves_pb2.COMBINATION_TYPE_SINGLE, length=1)
    return events_pb2.Event(
        played=events_pb2.Played(seat=seat, combination=play, cards_left=cards_left)
    )


@pytest.mark.parametrize("pass_lockout", [True, False])
def test_whether_a_play_clears_every_pass_is_the_views_pass_lockout(pass_lockout: bool) -> None:
    """The value in the view decides, whatever the preset's name: a deployment that changed
    the preset answers with the changed value."""
    before = spectator_view(3, pass_lockout=pass_lockout)
    before.rules.variant = "southern"  # pass lockout in the preset as this client knew it
    before.seats[1].passed = True
    turn = events_pb2.Event(turn_passed=events_pb2.TurnPassed(seat=2))
    after = advance(before, game_pb2.GameUpdate(events=[single(0, 12), turn], to_act=2))
    assert after.seats[1].passed == pass_lockout
    assert after.follow_rules == before.follow_rules  # carried to the next answer


@pytest.mark.parametrize("lead_stealing", [True, False])
def test_whether_a_deal_opens_the_lead_to_stealing_is_the_views_lead_stealing(
    lead_stealing: bool,
) -> None:
    before = spectator_view(2, lead_stealing=lead_stealing)
    before.finished = True
    before.ClearField("to_act")
    dealt = events_pb2.GameStarted(game_number=2, leader=1, hand_sizes=[13, 13])
    update = game_pb2.GameUpdate(events=[events_pb2.Event(game_started=dealt)], to_act=1)
    after = advance(before, update, previous_net=[100, -100])
    assert after.steal_open == lead_stealing
    assert [s.match_total for s in after.seats] == [100, -100]


def test_advance_leaves_its_inputs_unchanged() -> None:
    before = spectator_view()
    kept = game_pb2.TableView()
    kept.CopyFrom(before)
    turn = events_pb2.Event(turn_passed=events_pb2.TurnPassed(seat=1))
    update = game_pb2.GameUpdate(events=[single(0, 12), turn], to_act=1)
    after = advance(before, update)
    assert before == kept
    assert (after.to_act, after.seats[0].cards_left, after.move_count) == (1, 12, 1)


def test_a_game_from_a_service_older_than_follow_rules_is_answered_with_the_full_view(
    full: TienLenClient, basic: TienLenClient, running: Any
) -> None:
    """Without follow_rules in the view the client can't follow the table: it asks for the
    full view up front (no GetView, no DescribeRules), on unary calls and on the stream."""
    game = full.new_game(hands=["3S 9S", "4S 10S", "5S JS", "6S QS"])
    raw = game_pb2.TableView()
    raw.CopyFrom(game.view.raw)
    raw.ClearField("follow_rules")
    old = dataclasses.replace(game, view=View.from_pb(raw))
    wanted = full.play(game, 0, ["3S"])
    after = basic.play(old, 0, ["3S"])
    assert after.raw.HasField("view")
    assert after == wanted
    with basic.play_stream() as stream:
        streamed = stream.play(old, 0, ["3S"])
    assert streamed.raw.HasField("view")
    assert streamed == wanted
    assert (handled(running, "GetView"), handled(running, "DescribeRules")) == (0, 0)
