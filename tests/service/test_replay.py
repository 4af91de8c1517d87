"""ReplayGame: a game record (record.proto) is dealt again and every move applied as ApplyMove
applies it; the final state, every event and the settlement come back, or the first illegal
move's number and reason, or the field at fault — over a real channel to a real server."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest

import tienlen_rules as engine
from tienlen.v1 import cards_pb2, game_pb2, record_pb2, rules_pb2, service_pb2, service_pb2_grpc
from tienlen_rules import PRESETS, format_cards, parse_set, settle
from tienlen_service import codec, records

from .rich_status import fails

Stub = service_pb2_grpc.TienLenEngineStub
TIMEOUT = 10.0
GAMES_PER_PRESET = 6


@pytest.fixture
def stub(server_factory: Callable[..., Any]) -> Iterator[Stub]:
    running = server_factory()
    with grpc.insecure_channel(running.address) as channel:
        yield Stub(channel)


def hand(text: str) -> cards_pb2.Hand:
    return cards_pb2.Hand(cards=[codec.card_from_text(t) for t in text.split()])


def move(seat: int, text: str | None) -> record_pb2.RecordedMove:
    if text is None:
        return record_pb2.RecordedMove(seat=seat, pass_turn=True)
    return record_pb2.RecordedMove(seat=seat, cards=hand(text).cards)


def short_game(**fields: Any) -> record_pb2.GameRecord:
    """Two seats, two cards each: seat 0 leads 3S, seat 1 beats with 4S, passes and wins."""
    record = record_pb2.GameRecord(
        rules=rules_pb2.RuleSetSpec(variant="southern"),
        players=2,
        leader=0,
        first_game=True,
        game_number=1,
        hands=[hand("3S 9S"), hand("4S 10S")],
        moves=[move(0, "3S"), move(1, "4S"), move(0, None), move(1, "10S")],
    )
    for name, value in fields.items():
        if isinstance(value, list):
            field = getattr(record, name)
            del field[:]
            field.extend(value)
        elif hasattr(value, "DESCRIPTOR"):
            getattr(record, name).CopyFrom(value)
        else:
            setattr(record, name, value)
    return record


def replay(stub: Stub, record: record_pb2.GameRecord, **kwargs: Any) -> game_pb2.GameUpdate:
    request = service_pb2.ReplayGameRequest(record=record, **kwargs)
    response: service_pb2.ReplayGameResponse = stub.ReplayGame(request, timeout=TIMEOUT)
    assert len(response.seat_tokens) == record.players
    return response.game


def test_replay_of_a_finished_game_returns_its_end_its_events_and_its_settlement(
    stub: Stub,
) -> None:
    game = replay(stub, short_game())
    assert game.finished
    assert list(game.settlement.places) == [2, 1]
    assert list(game.settlement.net) == [-200, 200]
    kinds = [e.WhichOneof("kind") for e in game.events]
    assert kinds[0] == "game_started"
    assert kinds.count("played") + kinds.count("passed") == 4  # one per recorded move
    assert kinds[-1] == "game_over"
    assert game.view.move_count == 4


def test_replay_with_the_stated_result_is_accepted_and_a_wrong_one_refused(stub: Stub) -> None:
    settled = replay(stub, short_game()).settlement
    stated = record_pb2.RecordResult(
        places=settled.places, transfers=settled.transfers, net=settled.net
    )
    assert replay(stub, short_game(result=stated)).finished
    wrong = record_pb2.RecordResult()
    wrong.CopyFrom(stated)
    wrong.net[:] = [200, -200]
    refusal = fails(stub.ReplayGame, service_pb2.ReplayGameRequest(record=short_game(result=wrong)))
    assert refusal.code == grpc.StatusCode.INVALID_ARGUMENT
    assert refusal.reason == records.RECORD_RESULT_MISMATCH
    assert refusal.fields == ["record.result.net"]


def test_a_record_that_states_a_result_but_stops_early_is_refused(stub: Stub) -> None:
    """Never a partial replay passed off as complete: the last move is missing."""
    settled = replay(stub, short_game()).settlement
    stated = record_pb2.RecordResult(places=settled.places, net=settled.net)
    cut = short_game(result=stated, moves=[move(0, "3S"), move(1, "4S"), move(0, None)])
    refusal = fails(stub.ReplayGame, service_pb2.ReplayGameRequest(record=cut))
    assert (refusal.code, refusal.reason) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        records.RECORD_RESULT_MISMATCH,
    )
    assert "not over" in refusal.message


def test_a_record_without_a_result_replays_to_where_it_stops(stub: Stub) -> None:
    game = replay(stub, short_game(moves=[move(0, "3S")]))
    assert not game.finished
    assert game.to_act == 1


def test_an_illegal_move_is_refused_with_its_number_reason_and_field(stub: Stub) -> None:
    good = short_game(moves=[move(0, "3S"), move(1, "4S"), move(0, "9S")])
    assert replay(stub, good).finished  # 9S beats 4S: seat 0's last card wins
    bad = short_game(moves=[move(0, "3S"), move(1, "4S"), move(1, "10S")])
    refusal = fails(stub.ReplayGame, service_pb2.ReplayGameRequest(record=bad))
    assert refusal.code == grpc.StatusCode.INVALID_ARGUMENT
    assert refusal.reason == records.RECORD_ILLEGAL_MOVE
    assert refusal.metadata == {
        "move_number": "3",
        "move_reason": "NOT_YOUR_TURN",
        "seat": "1",
        "field": "record.moves[2].cards",
    }
    assert refusal.fields == ["record.moves[2].cards"]
    assert "move 3" in refusal.message


def test_the_first_lead_without_the_three_of_spades_is_refused_at_move_one(stub: Stub) -> None:
    bad = short_game(moves=[move(0, "9S")])
    refusal = fails(stub.ReplayGame, service_pb2.ReplayGameRequest(record=bad))
    assert refusal.metadata["move_number"] == "1"
    assert refusal.metadata["move_reason"] == "MUST_INCLUDE_STARTING_CARD"


@pytest.mark.parametrize(
    ("record", "reason", "field"),
    [
        pytest.param(
            short_game(moves=[move(2, "3S")]),
            records.RECORD_ILLEGAL_MOVE,
            "record.moves[0].seat",
            id="a move by a seat not at the table",
        ),
        pytest.param(
            short_game(hands=[hand("3S 9S"), hand("4S 9S")]),
            "INVALID_DEAL",
            "record.hands[1]",
            id="a card dealt twice",
        ),
        pytest.param(
            short_game(hands=[hand("3S 9S"), cards_pb2.Hand(cards=[cards_pb2.Card(rank=14)])]),
            codec.INVALID_CARD,
            "record.hands[1].cards[0].rank",
            id="a card that does not exist",
        ),
        pytest.param(
            short_game(
                moves=[record_pb2.RecordedMove(seat=0, cards=[cards_pb2.Card(rank=1, suit=9)])]
            ),
            codec.INVALID_CARD,
            "record.moves[0].cards[0].suit",
            id="a played card that does not exist",
        ),
        pytest.param(
            short_game(moves=[record_pb2.RecordedMove(seat=0)]),
            codec.INVALID_ARGUMENT,
            "record.moves[0].cards",
            id="a move that is neither a play nor a pass",
        ),
        pytest.param(
            short_game(moves=[record_pb2.RecordedMove(seat=0, pass_turn=True, cards=[])]),
            records.RECORD_ILLEGAL_MOVE,
            "record.moves[0].pass_turn",
            id="the leader passes",
        ),
        pytest.param(
            short_game(rules=rules_pb2.RuleSetSpec(variant="atlantis")),
            "UNKNOWN_VARIANT",
            "record.rules.variant",
            id="an unknown variant",
        ),
        pytest.param(
            short_game(leader=1),
            "INVALID_LEADER",
            "record.leader",
            id="a first game led by the wrong seat",
        ),
        pytest.param(
            short_game(players=2**31 - 1),
            "INVALID_PLAYER_COUNT",
            "record.players",
            id="a table of two billion seats",
        ),
        pytest.param(
            short_game(match_totals=[1, 2, 3]),
            codec.INVALID_ARGUMENT,
            "record.match_totals",
            id="totals for another table",
        ),
        pytest.param(
            short_game(player_names=["Lan"]),
            codec.INVALID_ARGUMENT,
            "record.player_names",
            id="names for another table",
        ),
        pytest.param(
            short_game(moves=[move(0, None)] * (records.MAX_MOVES + 1)),
            records.RECORD_TOO_LARGE,
            "record.moves",
            id="too many moves",
        ),
        pytest.param(
            short_game(player_names=["Lan", "x" * 65]),
            codec.INVALID_ARGUMENT,
            "record.player_names[1]",
            id="a name too long",
        ),
    ],
)
def test_a_malformed_record_is_refused_naming_the_field(
    stub: Stub, record: record_pb2.GameRecord, reason: str, field: str
) -> None:
    refusal = fails(stub.ReplayGame, service_pb2.ReplayGameRequest(record=record))
    assert refusal.code == grpc.StatusCode.INVALID_ARGUMENT
    assert refusal.reason == reason
    assert refusal.fields == [field]


def test_a_record_over_its_byte_bound_is_refused_even_where_requests_may_be_larger(
    server_factory: Callable[..., Any],
) -> None:
    running = server_factory(max_request_bytes=4 * records.MAX_BYTES)
    big = short_game(player_names=["x" * 9000, "y" * 9000])
    with grpc.insecure_channel(running.address) as channel:
        refusal = fails(Stub(channel).ReplayGame, service_pb2.ReplayGameRequest(record=big))
    assert (refusal.reason, refusal.fields) == (records.RECORD_TOO_LARGE, ["record"])


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        pytest.param({"game_number": 2**31 - 1}, "record.game_number", id="the int32 game number"),
        pytest.param(
            {"game_number": records.MAX_GAME_NUMBER + 1},
            "record.game_number",
            id="a game number past the bound",
        ),
        pytest.param(
            {"match_totals": [2**63 - 100, 0]},
            "record.match_totals[0]",
            id="a total at the int64 edge",
        ),
        pytest.param(
            {"match_totals": [0, -records.MAX_MATCH_TOTAL - 1]},
            "record.match_totals[1]",
            id="a total past the bound, negative",
        ),
    ],
)
def test_a_record_whose_match_could_not_go_on_is_refused_naming_the_field(
    stub: Stub, fields: dict[str, Any], field: str
) -> None:
    """A replay's state token plays on: NextGame numbers the next game and adds the net to the
    totals. A record that leaves no room for that (the next number past int32, a total past
    int64) is refused, instead of a replay whose NextGame could only fail without a reason."""
    refusal = fails(stub.ReplayGame, service_pb2.ReplayGameRequest(record=short_game(**fields)))
    assert (refusal.code, refusal.reason) == (
        grpc.StatusCode.INVALID_ARGUMENT,
        codec.INVALID_ARGUMENT,
    )
    assert refusal.fields == [field]


def test_a_replay_at_the_bounds_of_its_match_plays_on_to_the_next_game(stub: Stub) -> None:
    bound = records.total_bound(records.MAX_GAME_NUMBER, engine.build_rules("southern"))
    record = short_game(game_number=records.MAX_GAME_NUMBER, match_totals=[bound, -bound])
    replayed = stub.ReplayGame(service_pb2.ReplayGameRequest(record=record), timeout=TIMEOUT)
    assert replayed.game.finished
    assert list(replayed.game.settlement.net) == [-200, 200]
    following = stub.NextGame(
        service_pb2.NextGameRequest(
            state_token=replayed.game.state_token,
            explicit=service_pb2.ExplicitDeal(hands=[hand("5S 6S"), hand("7S 8S")]),
        ),
        timeout=TIMEOUT,
    ).game
    assert following.view.game_number == records.MAX_GAME_NUMBER + 1
    assert [s.match_total for s in following.view.seats] == [bound - 200, -bound + 200]


def test_an_instant_win_is_a_record_without_moves(stub: Stub) -> None:
    """Four 2s win on the deal (tới trắng): the game is over before any move."""
    dealt = [hand("2S 2C 2D 2H 3C"), hand("3S 4D"), hand("5S 6D")]
    game = replay(stub, short_game(hands=dealt, players=3, leader=1, moves=[]))
    assert game.finished
    assert list(game.settlement.places) == [1, 3, 3]


# --- simulated games: every preset --------------------------------------------------------------


def simulated(variant: str, seed: int) -> tuple[record_pb2.GameRecord, engine.GameState]:
    """A random game played by the engine, as a record with its result, and its end."""
    rng = random.Random(f"{variant}-{seed}")
    rules = engine.build_rules(variant)
    players = 3 if rules.deal_all_cards else rng.choice((2, 3, 4))
    first = rng.random() < 0.7
    leader = rng.randrange(players)
    try:
        state, events = engine.new_game(
            rules, players, seed=seed, first_game=first, leader=None if first else leader
        )
    except engine.SetupError:  # a first-game leader rule that needs no leader: deal again
        state, events = engine.new_game(rules, players, seed=seed)
    started = events[0]
    assert isinstance(started, engine.GameStarted)
    record = record_pb2.GameRecord(
        rules=codec.rules_to_pb(rules),
        players=players,
        dealer=0,
        leader=started.leader,
        first_game=state.first_game,
        game_number=1,
        hands=[hand(format_cards(h)) for h in state.dealt],
    )
    while not state.over:
        moves = engine.legal_moves(state, state.to_act)
        chosen = rng.choice(moves)
        record.moves.append(
            move(
                chosen.seat,
                None if chosen.is_pass else format_cards(sum(1 << c for c in chosen.cards)),
            )
        )
        state, _ = engine.apply(state, chosen)
    settled = codec.settlement_to_pb(settle(state))
    record.result.CopyFrom(
        record_pb2.RecordResult(places=settled.places, transfers=settled.transfers, net=settled.net)
    )
    return record, state


@pytest.mark.parametrize("variant", sorted(PRESETS))
def test_the_replay_of_a_simulated_game_gives_its_settlement(stub: Stub, variant: str) -> None:
    for seed in range(GAMES_PER_PRESET):
        record, end = simulated(variant, seed)
        game = replay(stub, record)
        assert game.finished
        assert game.settlement == codec.settlement_to_pb(settle(end), replayed=True)


@pytest.mark.parametrize("variant", sorted(PRESETS))
def test_a_simulated_game_altered_at_move_k_is_refused_at_move_k(stub: Stub, variant: str) -> None:
    """Move k is given a card its seat does not hold then (one held by another seat, or
    already played): whatever the rule that refuses it, the refusal names move k."""
    for seed in range(GAMES_PER_PRESET):
        record, _ = simulated(variant, seed)
        if not record.moves:
            continue  # an instant win: nothing to alter
        rng = random.Random(seed)
        k = rng.randrange(len(record.moves))
        seat = record.moves[k].seat
        held = parse_set(" ".join(codec.card_to_text(c) for c in record.hands[seat].cards))
        stranger = next(c for c in range(52) if not held >> c & 1)
        altered = record_pb2.GameRecord()
        altered.CopyFrom(record)
        altered.moves[k].pass_turn = False
        del altered.moves[k].cards[:]
        altered.moves[k].cards.append(codec.card_to_pb(stranger))
        refusal = fails(stub.ReplayGame, service_pb2.ReplayGameRequest(record=altered))
        assert refusal.reason == records.RECORD_ILLEGAL_MOVE
        assert refusal.metadata["move_number"] == str(k + 1), refusal.message
