"""Records of tables of people (RULES §9, docs/RECORDS.md) through the Python client: the
``Empty``, ``PlayerId``, ``Bankrolls``, ``Timeouts`` and ``Auto`` tags, the host's ``timeout``
and ``leave`` moves and ``owed=`` on a cut payment — text -> read -> write gives the same text —,
and a match with seat changes, time-outs and a leave that records, replays and verifies
(ReplayGame) to the same settlements."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tienlen_client import (
    GameRecord,
    MatchRecord,
    Newcomer,
    RecordedMove,
    RecordParseError,
    RecordResult,
    TienLenClient,
    Transfer,
)

from client.test_records import CARDS, records


@pytest.fixture
def client(server_factory: Callable[..., Any]) -> Iterator[TienLenClient]:
    with TienLenClient(server_factory().address) as client:
        yield client


@st.composite
def table_records(draw: st.DrawFn) -> GameRecord:
    """Random well-formed records of a table of people: empty seats (no hand), player ids,
    bankrolls, time-outs, seats on auto, the host's moves and cut payments."""
    record = draw(records())
    players = record.players
    seats = list(range(players))
    empty = tuple(sorted(draw(st.sets(st.sampled_from(seats), max_size=players - 2))))
    hands = tuple(() if seat in empty else hand for seat, hand in enumerate(record.hands))
    text = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=12)
    ids = st.lists(text, min_size=players, max_size=players).filter(any).map(tuple)
    chips = st.lists(st.integers(0, 10**12), min_size=players, max_size=players).map(tuple)
    counts = st.lists(st.integers(0, 9), min_size=players, max_size=players).filter(any)
    seat = st.sampled_from(seats)
    host_move = st.builds(
        RecordedMove, seat, st.just(()), st.just(True), st.just(False)
    ) | st.builds(RecordedMove, seat, st.just(()), st.just(False), st.just(True))
    moves = list(record.moves)
    for move in draw(st.lists(host_move, max_size=4)):
        moves.insert(draw(st.integers(0, len(moves))), move)
    result = record.result
    if result is not None:
        cut = st.builds(
            lambda payer, payee, owed, share, cards: Transfer(
                payer, payee, owed * share // 4, "PLACE", cards, owed
            ),
            seat,
            seat,
            st.integers(1, 10**9),
            st.integers(0, 3),
            st.lists(st.sampled_from(CARDS), max_size=2, unique=True).map(tuple),
        )
        transfers = (*result.transfers, *draw(st.lists(cut, max_size=3)))
        result = RecordResult(result.places, transfers, result.net)
    return dataclasses.replace(
        record,
        hands=hands,
        moves=tuple(moves),
        result=result,
        empty_seats=empty,
        player_ids=draw(st.just(()) | ids),
        bankrolls=draw(st.just(()) | chips),
        timeouts=draw(st.just(()) | counts.map(tuple)),
        auto_seats=tuple(sorted(draw(st.sets(st.sampled_from(seats))))),
    )


@settings(max_examples=150, deadline=None)
@given(table_records())
def test_text_parse_text_is_the_identity_at_a_table_of_people(record: GameRecord) -> None:
    text = record.to_text()
    assert GameRecord.from_text(text) == record
    assert GameRecord.from_text(text).to_text() == text
    assert GameRecord.from_json(record.to_json()) == record


LIVE = (Path(__file__).parent / "live_table.tlr").read_text(encoding="utf-8")
"""A record of a table of people in the writers' canonical text (the Node client's tests read
this file too): an empty seat, player ids, bankrolls, time-outs in a row, a seat on auto, the
host's time-outs and a leave, and a payment the loss cap cut. Text only: the parser judges no
rule, so its moves need not be a legal game."""


def test_the_people_of_a_table_read_and_write_back_exactly() -> None:
    record = GameRecord.from_text(LIVE)
    assert record.to_text() == LIVE
    assert record.empty_seats == (1,)
    assert record.hands[1] == ()
    assert record.player_ids == ("an", "", "chi", "em")
    assert (record.bankrolls, record.timeouts, record.auto_seats) == (
        (4900, 0, 5300, 100),
        (1, 0, 0, 0),
        (0,),
    )
    assert record.moves[2] == RecordedMove(0, timeout=True)
    assert record.moves[4] == RecordedMove(3, leave=True)
    assert not record.moves[2].is_pass
    assert record.result is not None
    assert record.result.transfers[1] == Transfer(3, 0, 100, "PLACE", (), 200)


@pytest.mark.parametrize(
    ("old", "new", "where"),
    [
        pytest.param('[Empty "1"]', '[Empty "1 1"]', (8, 11), id="a seat twice in Empty"),
        pytest.param('[Empty "1"]', '[Empty "4"]', (8, 9), id="an empty seat not at the table"),
        pytest.param("[Auto", '[Hand1 "2S"]\n[Auto', (14, 2), id="a hand for an empty seat"),
        pytest.param('[Bankrolls "4900 0 5300 100"]', '[Bankrolls "4900 0 -1 100"]', (12, 20)),
        pytest.param('[PlayerId3 "em"]', '[PlayerId7 "em"]', (11, 2), id="a seat tag of no table"),
        pytest.param("owed=200", "owed=90", (30, 16), id="a cut payment above what was owed"),
        pytest.param("3. 0: timeout", "3. 0: time out", (21, 7), id="a move that is no move"),
    ],
)
def test_the_people_tags_refuse_what_is_not_a_record_saying_where(
    old: str, new: str, where: tuple[int, int]
) -> None:
    assert old in LIVE
    with pytest.raises(RecordParseError) as refused:
        GameRecord.from_text(LIVE.replace(old, new, 1))
    assert (refused.value.line, refused.value.column) == where, refused.value.message


def test_a_match_with_seat_changes_time_outs_and_a_leave_replays_to_its_settlements(
    client: TienLenClient,
) -> None:
    """Recorded as the client followed it, every game of the match replays (ReplayGame) to the
    settlement it had, and its text round-trips."""
    hands = ["3S 9S KD", "4S 10S KH", "5S JS AS", "6S QS AD"]
    game = client.new_game(
        hands=hands, player_ids=["an", "binh", "chi", "dung"], bankrolls=[5000, 5000, 5000, 5000]
    )
    game = client.timeout(game, 0)  # 3S
    for seat, cards in ((1, "4S"), (2, "5S"), (3, "6S")):
        game = client.play(game, seat, cards)
    game = client.leave(game, 3)
    while not game.finished:
        assert game.to_act is not None
        game = client.timeout(game, game.to_act)
    settled = [game.settlement]
    game = client.next_game(
        game,
        hands=["3C 8D", "4C 9D", "5C 10D", ""],
        leaving=[1],
        joining=[Newcomer(1, "em", 150)],
    )
    assert game.view.seats[3].empty
    while not game.finished:
        assert game.to_act is not None
        game = client.timeout(game, game.to_act)
    settled.append(game.settlement)
    match = game.match_record()
    text = match.to_text()
    assert MatchRecord.from_text(text).to_text() == text
    assert '[Empty "3"]' in text
    assert "timeout" in text
    assert "leave" in text
    assert "owed=" in text  # em sat down with 150 chips and owed more: his payments were cut
    for record, settlement in zip(MatchRecord.from_text(text).games, settled, strict=True):
        assert client.replay(record).settlement == settlement
