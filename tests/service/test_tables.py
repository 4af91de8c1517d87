"""A table of people over real gRPC (RULES §9, docs/HOSTS.md): seat tokens through seat changes,
the host's time-outs and leaves, bankrolls and their refusals, the seats that could chop out of
turn told to the host only, and records of such games replayed to the same settlements.

Every server here seals and requires seat tokens, with a deal key (the host's): the setting
where a player could hold tokens of its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from tienlen.v1 import cards_pb2, moves_pb2, record_pb2, rules_pb2, service_pb2, service_pb2_grpc
from tienlen_rules import parse_cards
from tienlen_service import codec

from .rich_status import rich

Stub = service_pb2_grpc.TienLenEngineStub
WAIT = 20.0
DEAL_KEY = "test-deal-key-0123456789abcdefghij"
# Seat 0 goes out first with its one card, after every other seat has played one.
QUICK = ["2S", "4S 5S", "6S 7S", "8S 9S"]
TIMEOUT = moves_pb2.Move(timeout=moves_pb2.Timeout())
LEAVE = moves_pb2.Move(leave=moves_pb2.Leave())
PASS = moves_pb2.Move(pass_turn=moves_pb2.Pass())


def cards(text: str) -> list[cards_pb2.Card]:
    return codec.cards_to_pb(sum(1 << card for card in parse_cards(text)))


def hands(texts: list[str]) -> service_pb2.ExplicitDeal:
    return service_pb2.ExplicitDeal(hands=[cards_pb2.Hand(cards=cards(text)) for text in texts])


def play(text: str) -> moves_pb2.Move:
    return moves_pb2.Move(play=moves_pb2.Play(cards=cards(text)))


def refused(call: Callable[[], Any]) -> Any:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return rich(info.value)


@pytest.fixture
def stub(server_factory: Callable[..., Any], tmp_path: Path) -> Iterator[Stub]:
    key = tmp_path / "deal-key"
    key.write_text(DEAL_KEY + "\n", encoding="utf-8")
    running = server_factory(seal=True, require_seat_tokens=True, deal_key_file=str(key))
    channel = grpc.insecure_channel(running.address)
    yield Stub(channel)
    channel.close()


class Table:
    """A host's table: the latest game and every seat's token."""

    def __init__(self, stub: Stub, deal: list[str], **fields: Any) -> None:
        self.stub = stub
        answer = stub.NewGame(
            service_pb2.NewGameRequest(
                players=len(deal), explicit=hands(deal), deal_key=DEAL_KEY, **fields
            ),
            timeout=WAIT,
        )
        self.game = answer.game
        self.tokens = list(answer.seat_tokens)

    def move(
        self, seat: int, move: moves_pb2.Move, token: str | None = None, **fields: Any
    ) -> service_pb2.ApplyMoveResponse:
        answer = self.stub.ApplyMove(
            service_pb2.ApplyMoveRequest(
                state_token=self.game.state_token,
                seat=seat,
                seat_token=self.tokens[seat] if token is None else token,
                move=move,
                **fields,
            ),
            timeout=WAIT,
        )
        self.game = answer.game
        return answer

    def next_game(self, deal: list[str], **fields: Any) -> service_pb2.NextGameResponse:
        answer = self.stub.NextGame(
            service_pb2.NextGameRequest(
                state_token=self.game.state_token, explicit=hands(deal), deal_key=DEAL_KEY, **fields
            ),
            timeout=WAIT,
        )
        self.game = answer.game
        self.tokens += [""] * (len(answer.seat_tokens) - len(self.tokens))
        for seat, token in enumerate(answer.seat_tokens):
            if token:  # a newcomer's
                self.tokens[seat] = token
        return answer

    def view(self, seat: int | None = None, **fields: Any) -> Any:
        request = service_pb2.GetViewRequest(state_token=self.game.state_token, **fields)
        if seat is not None:
            request.seat = seat
            request.seat_token = fields.get("seat_token", self.tokens[seat])
        return self.stub.GetView(request, timeout=WAIT).view


def finished(stub: Stub, **fields: Any) -> Table:
    """QUICK played out: seats 1, 2 and 3 each play a card (none is frozen), seat 0 goes out
    first with its 2, and the host's time-outs play the rest."""
    table = Table(stub, QUICK, first_game=False, leader=1, **fields)
    table.move(1, play("4S"))
    table.move(2, play("6S"))
    table.move(3, play("8S"))
    table.move(0, play("2S"))  # seat 0 out first; seats 1, 2, 3 go on
    while not table.game.finished:
        table.move(table.game.to_act, TIMEOUT)
    return table


def test_a_newcomer_gets_a_token_of_its_own_and_the_leavers_opens_nothing(stub: Stub) -> None:
    table = finished(stub)
    leaver = table.tokens[2]
    answer = table.next_game(
        ["3S", "4S 5S", "6S 7S", "8S 9S"],
        seating=service_pb2.TableSeating(
            staying=[0, 1, 3], newcomers=[service_pb2.Newcomer(seat=2, player_id="em")]
        ),
    )
    assert [bool(t) for t in answer.seat_tokens] == [False, False, True, False]
    newcomer = answer.seat_tokens[2]
    assert newcomer != leaver
    assert answer.game.view.seats[2].player_id == "em"
    assert answer.game.view.seats[2].match_total == 0
    assert [e.WhichOneof("kind") for e in answer.game.events][:2] == ["seat_vacated", "seat_taken"]
    got = refused(lambda: table.view(2, seat_token=leaver))
    assert (got.code, got.reason) == (grpc.StatusCode.PERMISSION_DENIED, "SEAT_TOKEN_INVALID")
    table.tokens[2] = newcomer
    assert list(table.view(2).hand)  # the newcomer's token opens its seat
    assert list(table.view(1).hand)  # a staying seat's token still opens its own


def test_a_leavers_token_opens_nothing_once_its_seat_is_empty(stub: Stub) -> None:
    table = finished(stub)
    leaver = table.tokens[3]
    table.next_game(
        ["3S", "4S 5S", "6S 7S", ""], seating=service_pb2.TableSeating(staying=[0, 1, 2])
    )
    assert table.game.view.seats[3].empty
    got = refused(lambda: table.move(3, PASS, token=leaver))
    assert (got.code, got.reason) == (grpc.StatusCode.PERMISSION_DENIED, "SEAT_TOKEN_INVALID")


@pytest.mark.parametrize(
    ("seating", "reason", "field"),
    [
        (service_pb2.TableSeating(staying=[0, 1, 2, 3], newcomers=[service_pb2.Newcomer(seat=1)]), "SEAT_TAKEN", "seating.newcomers[0].seat"),
        (service_pb2.TableSeating(staying=[0, 1], newcomers=[service_pb2.Newcomer(seat=2, player_id="a"), service_pb2.Newcomer(seat=3, player_id="a")]), "DUPLICATE_PLAYER_ID", "seating"),
        (service_pb2.TableSeating(staying=[0]), "INVALID_PLAYER_COUNT", "seating"),
        (service_pb2.TableSeating(), "NOBODY_STAYS", "seating.staying"),
    ],
)  # fmt: skip
def test_a_seat_change_the_rules_refuse_is_a_clear_error_and_changes_nothing(
    stub: Stub, seating: service_pb2.TableSeating, reason: str, field: str
) -> None:
    table = finished(stub)
    before = table.game.state_token
    got = refused(lambda: table.next_game(["3S", "4S", "5S", "6S"], seating=seating))
    assert (got.code, got.reason) == (grpc.StatusCode.INVALID_ARGUMENT, reason)
    assert field in got.fields
    assert table.game.state_token == before


def test_a_seat_change_during_a_game_is_refused(stub: Stub) -> None:
    table = Table(stub, QUICK, first_game=False, leader=1)
    got = refused(lambda: table.next_game(QUICK, seating=service_pb2.TableSeating(staying=[0, 1])))
    assert (got.code, got.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_NOT_OVER")


def test_a_bankroll_below_the_minimum_is_refused_naming_the_seat_and_its_shortfall(
    stub: Stub,
) -> None:
    rules = rules_pb2.RuleSetSpec(variant="dem_la")
    got = refused(lambda: Table(stub, QUICK, rules=rules, bankrolls=[2000, 2000, 1900, 2000]))
    assert (got.code, got.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "BANKROLL_TOO_LOW")
    assert got.metadata["seat"] == "2"
    assert got.metadata["shortfall"] == "100"
    got = refused(lambda: Table(stub, QUICK, bankrolls=[100, -1, 100, 100]))
    assert (got.code, got.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_BANKROLL")
    assert got.fields == ["bankrolls[1]"]


def test_a_capped_payment_shows_what_was_owed(stub: Stub) -> None:
    table = finished(stub, bankrolls=[1000, 1000, 1000, 50])
    last = list(table.game.settlement.places).index(4)
    cut = [t for t in table.game.settlement.transfers if t.owed]
    assert cut
    assert all(t.payer == last and t.amount < t.owed for t in cut)
    assert sum(t.amount for t in table.game.settlement.transfers if t.payer == last) <= 50


def test_timeouts_put_a_seat_on_auto_and_a_timeout_not_its_turn_is_refused(stub: Stub) -> None:
    table = Table(stub, ["3S 9S", "4S 5S", "6S 7S", "8S JS"], first_game=False, leader=0)
    got = refused(lambda: table.move(2, TIMEOUT))
    assert (got.code, got.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN")
    table.move(0, TIMEOUT)  # leads 3S
    for seat in (1, 2, 3):
        table.move(seat, TIMEOUT)  # each passes
    answer = table.move(0, TIMEOUT)  # seat 0's second in a row: on auto
    kinds = [e.WhichOneof("kind") for e in answer.game.events]
    assert kinds[:2] == ["timed_out", "auto_play"]
    assert answer.game.view.seats[0].auto
    assert answer.game.view.seats[0].timeouts == 2


def test_a_leave_under_refuse_is_refused_and_under_play_out_the_seat_plays_on(stub: Stub) -> None:
    refuse = rules_pb2.RuleSetSpec(variant="southern", options={"leave_mid_game": "refuse"})
    table = Table(stub, QUICK, rules=refuse, first_game=False, leader=1)
    got = refused(lambda: table.move(2, LEAVE))
    assert (got.code, got.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "LEAVE_REFUSED")
    table = Table(stub, QUICK, first_game=False, leader=1)
    table.move(2, LEAVE)
    assert table.game.view.seats[2].left
    assert table.game.view.seats[2].auto
    table.move(1, play("4S"))
    got = refused(lambda: table.move(2, play("6S")))
    assert (got.code, got.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "SEAT_LEFT")
    table.move(2, TIMEOUT)  # the host plays its time-out, with its token


HANDS = ["2S 9D", "8H 9H", "3C 3D 4C 4D 5C 5D 6C 6D", "7C 7D 8C 8D 9C 9S 10C 10D"]


def test_the_seats_that_could_chop_out_of_turn_are_told_to_the_host_only(stub: Stub) -> None:
    table = Table(stub, HANDS, first_game=False, leader=0)
    player = table.move(0, play("2S")).game  # a player's own request: no deal key
    assert player.chop_open
    assert player.view.chop_open
    assert not player.chop_seats
    assert not player.view.chop_seats
    assert not table.view().chop_seats
    assert list(table.view(deal_key=DEAL_KEY).chop_seats) == [2, 3]
    assert not table.view(1).chop_seats  # never in a seat's view
    table = Table(stub, HANDS, first_game=False, leader=0)
    host = table.move(0, play("2S"), deal_key=DEAL_KEY).game
    assert list(host.chop_seats) == [2, 3]
    assert list(host.view.chop_seats) == [2, 3]


def _record(table: Table, deal: list[str], moves: list[tuple[int, moves_pb2.Move]]) -> Any:
    """The GameRecord of a game a host dealt and played (as a client's record log writes it)."""
    view = table.game.view
    record = record_pb2.GameRecord(
        rules=view.rules,
        players=view.players,
        dealer=view.dealer,
        leader=view.to_act,
        first_game=view.first_game,
        game_number=view.game_number,
        match_totals=[s.match_total for s in view.seats],
        hands=[cards_pb2.Hand(cards=cards(h)) for h in deal],
        empty_seats=[s.seat for s in view.seats if s.empty],
        player_ids=[s.player_id for s in view.seats],
        bankrolls=[s.bankroll for s in view.seats] if view.seats[0].HasField("bankroll") else [],
        timeouts=[s.timeouts for s in view.seats],
        auto_seats=[s.seat for s in view.seats if s.auto],
    )
    for seat, move in moves:
        which = move.WhichOneof("action")
        recorded = record.moves.add(seat=seat)
        if which == "play":
            recorded.cards.extend(move.play.cards)
        else:
            setattr(
                recorded,
                {"pass_turn": "pass_turn", "timeout": "timeout", "leave": "leave"}[which],
                True,
            )
        table.move(seat, move)
    assert table.game.finished
    record.result.places.extend(table.game.settlement.places)
    record.result.transfers.extend(table.game.settlement.transfers)
    record.result.net.extend(table.game.settlement.net)
    return record


def test_a_match_with_seat_changes_replays_to_the_same_settlements(stub: Stub) -> None:
    deal1 = ["3S 9S", "4S 5S", "6S 7S", "8S JS"]
    table = Table(
        stub,
        deal1,
        first_game=False,
        leader=0,
        player_ids=["a", "b", "c", "d"],
        bankrolls=[500, 500, 500, 150],
    )
    # Seat 3 leaves (play_out) before it ever played: frozen at seat 0's win, it owes 2L = 400
    # with 150 chips. Seat 1 goes out 2nd on its time-out's lead.
    first = _record(
        table,
        deal1,
        [
            *[(0, TIMEOUT), (1, play("5S")), (2, play("7S")), (3, LEAVE), (3, TIMEOUT)],
            *[(0, play("9S")), (1, TIMEOUT), (2, TIMEOUT), (1, TIMEOUT)],
        ],
    )
    deal2 = ["3D 4D", "", "5D 9C", "6D 7H"]
    table.next_game(
        deal2,
        seating=service_pb2.TableSeating(
            staying=[0, 2], newcomers=[service_pb2.Newcomer(seat=3, player_id="e", bankroll=900)]
        ),
    )
    second = _record(
        table,
        deal2,
        [
            *[(0, play("3D")), (2, play("5D")), (3, play("6D")), (0, TIMEOUT), (2, play("9C"))],
            *[(3, TIMEOUT), (3, TIMEOUT)],
        ],
    )
    for record in (first, second):
        replayed = stub.ReplayGame(service_pb2.ReplayGameRequest(record=record), timeout=WAIT).game
        assert replayed.finished
        assert replayed.settlement.net == record.result.net
        assert list(replayed.settlement.transfers) == list(record.result.transfers)
    assert second.empty_seats == [1]
    assert any(t.owed for t in first.result.transfers)
