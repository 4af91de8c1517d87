"""Game records through the Python client: `game.record()`, the text form (`to_text`,
`GameRecord.from_text` with errors that say where), and `client.replay` checked by the service."""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tienlen_client import (
    Game,
    GameRecord,
    InvalidRequest,
    MatchRecord,
    MoveRejected,
    RecordedMove,
    RecordMoveRejected,
    RecordParseError,
    RecordResult,
    RecordUnavailable,
    TienLenClient,
    Transfer,
)
from tienlen_client.cards import RANKS, SUITS
from tienlen_client.record import MAX_TEXT_BYTES

from tienlen_rules import PRESETS
from tools import simulate

GAMES_PER_PRESET = 3
MAX_MOVES_PER_GAME = 500
CARDS = tuple(rank + suit for rank in RANKS for suit in SUITS)  # weakest first


@pytest.fixture
def running(server_factory: Callable[..., Any]) -> Any:
    return server_factory()


@pytest.fixture
def client(running: Any) -> Iterator[TienLenClient]:
    with TienLenClient(running.address, record_hands=True) as client:
        yield client


def play_randomly(client: TienLenClient, game: Game, rng: random.Random) -> Game:
    """Finish a game with random legal moves of the seat to act."""
    for _ in range(MAX_MOVES_PER_GAME):
        if game.finished:
            return game
        seat = game.to_act
        assert seat is not None
        chosen = rng.choice(client.legal_moves(game, seat))
        update = rng.choice(("full", "basic"))
        game = (
            client.pass_turn(game, seat, update_view=update)
            if chosen.is_pass
            else client.play(game, seat, chosen.cards, update_view=update)
        )
    raise AssertionError("the game did not end")


# --- what the issue must show -------------------------------------------------------------------


@pytest.mark.parametrize("variant", sorted(PRESETS))
def test_a_seeded_game_replays_from_its_record_text_to_the_same_settlement(
    client: TienLenClient, variant: str
) -> None:
    for seed in range(GAMES_PER_PRESET):
        rng = random.Random(f"{variant}-{seed}")
        players = 3 if variant == "dau" else rng.choice((2, 3, 4))
        game = play_randomly(client, client.new_game(variant, players, seed=seed), rng)
        text = game.record().to_text()
        parsed = GameRecord.from_text(text)
        assert parsed.to_text() == text  # the text round-trips exactly
        assert parsed == game.record()
        replayed = client.replay(parsed)
        assert replayed.finished
        assert replayed.settlement == game.settlement
        assert not parsed.replayed
        # The same record, marked: the service replayed it (anyone may write a record).
        assert replayed.record() == dataclasses.replace(parsed, replayed=True)


def test_a_first_lead_whose_three_of_spades_becomes_the_two_of_hearts_is_refused_at_that_move(
    client: TienLenClient,
) -> None:
    game = play_randomly(client, client.new_game("southern", 4, seed=11), random.Random(11))
    text = game.record().to_text()
    lines = text.splitlines()
    (first,) = [i for i, line in enumerate(lines) if line.startswith("1. ")]
    assert "3S" in lines[first].split(":")[1].split()
    lines[first] = lines[first].replace("3S", "2H")
    with pytest.raises(MoveRejected) as refused:
        client.replay("\n".join(lines) + "\n")
    assert isinstance(refused.value, RecordMoveRejected)
    assert refused.value.move_number == 1
    assert refused.value.reason in {"MUST_INCLUDE_STARTING_CARD", "CARD_NOT_IN_HAND"}
    assert refused.value.field == "record.moves[0].cards"


def test_the_records_of_a_replayed_game_and_of_the_games_after_it_say_replayed(
    client: TienLenClient,
) -> None:
    rng = random.Random(6)
    game = play_randomly(client, client.new_game("southern", 3, seed=6), rng)
    assert not game.record().replayed
    replayed = client.replay(game.record())
    following = play_randomly(client, client.next_game(replayed), rng)
    assert replayed.view.replayed
    assert following.view.replayed
    record = following.record()
    assert record.replayed
    assert '[Replayed "true"]' in record.to_text()
    assert GameRecord.from_text(record.to_text()) == record
    assert GameRecord.from_pb(record.to_pb()) == record
    assert '[Replayed "true"]' not in game.record().to_text()


# --- records of followed games --------------------------------------------------------------------


def test_a_match_record_lists_every_game_followed_and_round_trips(client: TienLenClient) -> None:
    rng = random.Random(5)
    game = play_randomly(client, client.new_game("southern", 3, seed=5), rng)
    game = play_randomly(client, client.next_game(game), rng)
    match = game.match_record()
    assert [g.game_number for g in match.games] == [1, 2]
    assert not match.games[1].first_game
    text = match.to_text()
    assert MatchRecord.from_text(text) == match
    assert MatchRecord.from_text(text).to_text() == text
    second = client.replay(match.games[1])  # a later game replays with its totals and leader
    assert second.settlement == game.settlement
    assert second.view.game_number == 2


def test_moves_made_over_a_move_stream_are_recorded_too(client: TienLenClient) -> None:
    game = client.new_game("southern", 2, hands=["3S 9S", "4S 10S"])
    with client.play_stream(update_view="basic") as stream:
        game = stream.play(game, 0, ["3S"])
        game = stream.play(game, 1, ["4S"])
        game = stream.pass_turn(game, 0)
        game = stream.play(game, 1, ["10S"])
    record = game.record()
    assert record.moves == (
        RecordedMove(0, ("3S",)),
        RecordedMove(1, ("4S",)),
        RecordedMove(0),
        RecordedMove(1, ("10S",)),
    )
    assert record.result == RecordResult((2, 1), (Transfer(0, 1, 200, "PLACE", ()),), (-200, 200))


def test_without_record_hands_a_seeded_game_asks_the_service_for_its_deal(running: Any) -> None:
    with TienLenClient(running.address) as plain:
        game = plain.new_game("southern", 4, seed=3)
        seat = game.to_act
        assert seat is not None
        game = plain.play(game, seat, plain.legal_moves(game, seat)[-1].cards)
        with pytest.raises(RecordUnavailable):
            game.record()
        record = plain.record(game)  # hands now + cards played = the deal
        assert sum(len(h) for h in record.hands) == 52
        assert plain.replay(record).view.raw.move_count == 1


def test_a_stated_result_the_replay_does_not_reach_is_refused(client: TienLenClient) -> None:
    game = client.new_game("southern", 2, hands=["3S 9S", "4S 10S"])
    for seat, cards in ((0, "3S"), (1, "4S"), (0, None), (1, "10S")):
        game = client.play(game, seat, cards) if cards else client.pass_turn(game, seat)
    record = game.record()
    assert record.result is not None
    lying = GameRecord.from_text(record.to_text().replace('[Net "-200 200"]', '[Net "200 -200"]'))
    with pytest.raises(InvalidRequest) as refused:
        client.replay(lying)
    assert refused.value.reason == "RECORD_RESULT_MISMATCH"
    assert refused.value.field_violations[0][0] == "record.result.net"


# --- simulated games ------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", sorted(PRESETS))
def test_every_simulated_game_replays_to_its_settlement_and_is_refused_where_altered(
    client: TienLenClient, variant: str, tmp_path: Path
) -> None:
    """The simulator writes its games as records (--records); each replays to the result it
    states, and the same record with move k given a card its seat was not dealt is refused at
    move k."""
    config = simulate.Config(
        games=4,
        bots=("greedy", "random", "random") if variant == "dau" else ("greedy", "random") * 2,
        variant=variant,
        options={},
        seed=7,
        match_length=2,
        dump_dir=tmp_path,
        progress=False,
        records_dir=tmp_path / "records",
    )
    simulate.run(config, simulate.LocalTable(), out=lambda _text: None)
    files = sorted((tmp_path / "records").glob("*.tlr"))
    games = [g for path in files for g in MatchRecord.from_text(path.read_text()).games]
    assert len(games) == config.games
    rng = random.Random(variant)
    for record in games:
        replayed = client.replay(record)
        assert record.result is not None
        assert replayed.settlement is not None
        assert replayed.settlement.net == record.result.net
        if not record.moves:
            continue  # an instant win
        k = rng.randrange(len(record.moves))
        seat = record.moves[k].seat
        stranger = next(c for c in CARDS if c not in record.hands[seat])
        moves = list(record.moves)
        moves[k] = RecordedMove(seat, (stranger,))
        altered = GameRecord.from_text(_with_moves(record, moves).to_text())
        with pytest.raises(MoveRejected) as refused:
            client.replay(altered)
        assert isinstance(refused.value, RecordMoveRejected)
        assert refused.value.move_number == k + 1


def _with_moves(record: GameRecord, moves: list[RecordedMove]) -> GameRecord:
    return GameRecord(
        variant=record.variant,
        players=record.players,
        dealer=record.dealer,
        leader=record.leader,
        first_game=record.first_game,
        game_number=record.game_number,
        match_totals=record.match_totals,
        hands=record.hands,
        moves=tuple(moves),
        result=record.result,
        options=record.options,
        names=record.names,
    )


# --- the text form: round trip ----------------------------------------------------------------


@st.composite
def records(draw: st.DrawFn) -> GameRecord:
    """Random well-formed records (not necessarily legal games: the parser judges no rule)."""
    players = draw(st.integers(2, 4))
    deck = draw(st.permutations(CARDS))
    sizes = [draw(st.integers(1, 13)) for _ in range(players)]
    hands, start = [], 0
    for size in sizes:
        hands.append(tuple(sorted(deck[start : start + size], key=CARDS.index)))
        start += size
    seat = st.integers(0, players - 1)
    cards = st.lists(st.sampled_from(CARDS), min_size=1, max_size=5, unique=True).map(tuple)
    moves = draw(
        st.lists(st.builds(RecordedMove, seat, st.one_of(st.just(()), cards)), max_size=30)
    )
    text = st.text(st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=12)
    names = draw(st.one_of(st.just(()), st.lists(text, min_size=players, max_size=players)))
    word = st.from_regex(r"[a-z][a-z_0-9]{0,10}", fullmatch=True)
    options = draw(st.dictionaries(word, st.from_regex(r"[A-Za-z0-9./]{1,5}", fullmatch=True)))
    amount = st.integers(-(10**12), 10**12)
    per_seat = st.lists(amount, min_size=players, max_size=players).map(tuple)
    reasons = ("PLACE", "CHOP", "ROTTEN", "FROZEN", "INSTANT_WIN", "CARD_COUNT")
    transfer = st.builds(
        Transfer,
        st.integers(-1, players - 1),
        seat,
        st.integers(1, 10**9),
        st.sampled_from(reasons),
        st.lists(st.sampled_from(CARDS), max_size=4, unique=True).map(tuple),
    )
    result = st.builds(
        RecordResult,
        st.lists(st.integers(1, players), min_size=players, max_size=players).map(tuple),
        st.lists(transfer, max_size=5).map(tuple),
        per_seat,
    )
    return GameRecord(
        variant=draw(st.sampled_from(sorted(PRESETS))),
        players=players,
        dealer=draw(seat),
        leader=draw(seat),
        first_game=draw(st.booleans()),
        game_number=draw(st.integers(1, 1000)),
        match_totals=draw(per_seat),
        hands=tuple(hands),
        moves=tuple(moves),
        result=draw(st.one_of(st.none(), result)),
        options=tuple(sorted(options.items())),
        names=tuple(names),
    )


@settings(max_examples=150, deadline=None)
@given(records())
def test_text_parse_text_is_the_identity(record: GameRecord) -> None:
    text = record.to_text()
    assert GameRecord.from_text(text) == record
    assert GameRecord.from_text(text).to_text() == text
    assert GameRecord.from_json(record.to_json()) == record


@settings(max_examples=30, deadline=None)
@given(st.lists(records(), min_size=1, max_size=3))
def test_a_match_text_is_its_games_one_after_the_other(games: list[GameRecord]) -> None:
    match = MatchRecord(tuple(games))
    assert MatchRecord.from_text(match.to_text()) == match
    assert MatchRecord.from_pb(match.to_pb()) == match


# --- the text form: errors that say where ----------------------------------------------------------

GOOD = """\
[Variant "southern"]
[Players "2"]
[Dealer "0"]
[Leader "0"]
[FirstGame "true"]
[Game "1"]
[Totals "0 0"]
[Hand0 "3S 9S"]
[Hand1 "4S 10S"]

1. 0: 3S
2. 1: 4S
3. 0: pass
4. 1: 10S

[Result "over"]
[Places "2 1"]
[Transfer "0 1 200 PLACE"]
[Net "-200 200"]
"""


def test_the_example_record_reads_and_writes_back_exactly() -> None:
    record = GameRecord.from_text(GOOD)
    assert record.to_text() == GOOD
    assert record.hands == (("3S", "9S"), ("4S", "10S"))
    assert record.moves[2].is_pass


def test_a_records_own_tags_are_kept_and_written_back_standard_ones_first() -> None:
    """Tags PGN users add (`Event`, `Site`, `Date`, `Round`, `Annotator`, or any other) are
    not the game's: they are kept as they are and written first, the standard ones in their
    order, then the others in the order they were read."""
    loose = '[Table "4"]\n[Date "2026.02.??"]\n' + GOOD.replace(
        "[Dealer", '[Event "Tết \\"at home\\""]\n[Dealer'
    )
    record = GameRecord.from_text(loose)
    assert record.tags == (("Event", 'Tết "at home"'), ("Date", "2026.02.??"), ("Table", "4"))
    text = record.to_text()
    assert text == '[Event "Tết \\"at home\\""]\n[Date "2026.02.??"]\n[Table "4"]\n' + GOOD
    assert GameRecord.from_text(text) == record
    assert GameRecord.from_pb(record.to_pb()) == record
    assert GameRecord.from_json(record.to_json()) == record


def test_input_is_read_leniently_and_written_canonically() -> None:
    """Lower case, T for 10, Unicode suits, comments and blank lines are read; the output is
    the canonical form."""
    loose = GOOD.replace("3S 9S", "9s 3♠").replace("4. 1: 10S", "; the last card\n4.   1:  TS")
    assert GameRecord.from_text(loose).to_text() == GOOD


@pytest.mark.parametrize(
    ("text", "line", "column", "words"),
    [
        pytest.param(
            GOOD.replace("[Dealer", "[Hand7"), 3, 2, "the seat tags are", id="a seat of no table"
        ),
        pytest.param(
            '[Date "17 Feb 2026"]\n' + GOOD, 1, 8, "YYYY.MM.DD", id="a date not as PGN writes it"
        ),
        pytest.param(
            '[Event "a"]\n[Event "b"]\n' + GOOD, 2, 2, "[Event] given twice", id="a tag twice"
        ),
        pytest.param(
            GOOD.replace("4S 10S", "4S 11S"),
            9,
            12,
            "unknown rank '11'",
            id="a card that does not exist",
        ),
        pytest.param(
            GOOD.replace("4S 10S", "4S 9S"), 9, 12, "9S is dealt twice", id="a card dealt twice"
        ),
        pytest.param(
            GOOD.replace("2. 1: 4S", "2. 5: 4S"),
            12,
            4,
            "seat 5 is not at this table",
            id="a move by a seat not at the table",
        ),
        pytest.param(
            GOOD.replace('[Hand1 "4S 10S"]', '[Hand1 "4S 10S"]\n[Hand2 "5S"]'),
            10,
            2,
            "seat 2 is not at this table",
            id="a hand for a seat not at the table",
        ),
        pytest.param(GOOD[: GOOD.index("[Result")], 14, 1, "cut short", id="cut after a move"),
        pytest.param(
            GOOD[: GOOD.index("[Net")], 16, 10, "no [Net] tag", id="cut inside the result"
        ),
        pytest.param(GOOD[: GOOD.index("10S") + 1], 9, 1, "a closing quote", id="cut in a tag"),
        pytest.param(
            GOOD.replace("3. 0: pass", "4. 0: pass"), 13, 1, "move number 3", id="a move skipped"
        ),
        pytest.param(
            GOOD.replace("200 PLACE", "200 BRIBE"), 18, 20, "unknown reason", id="a bad reason"
        ),
        pytest.param(
            GOOD.replace('"-200 200"', '"-200"'), 19, 7, "one per seat", id="a net missing"
        ),
        pytest.param("", 1, 1, "no game", id="nothing"),
        pytest.param(GOOD + "5. 0: 9S\n", 20, 1, "a move before the game", id="a move too many"),
        pytest.param(GOOD + GOOD, 20, 1, "2 games in the text", id="a match read as one game"),
    ],
)
def test_a_malformed_record_is_refused_with_its_line_and_column(
    text: str, line: int, column: int, words: str
) -> None:
    with pytest.raises(RecordParseError) as refused:
        GameRecord.from_text(text)
    assert (refused.value.line, refused.value.column) == (line, column), refused.value.message
    assert words in refused.value.detail
    assert refused.value.message.startswith(f"line {line}, column {column}: ")


def test_an_oversize_record_text_is_refused_before_it_is_read() -> None:
    huge = GOOD + ";" + "x" * MAX_TEXT_BYTES + "\n"
    with pytest.raises(RecordParseError, match="longer than"):
        GameRecord.from_text(huge)


def test_a_record_of_an_unfinished_game_says_so() -> None:
    unfinished = re.sub(r"\[Result.*", '[Result "unfinished"]\n', GOOD, flags=re.DOTALL)
    record = GameRecord.from_text(unfinished)
    assert record.result is None
    assert record.to_text() == unfinished


def test_the_example_of_docs_records_reads_back_exactly_and_replays(client: TienLenClient) -> None:
    docs = Path(__file__).resolve().parents[2] / "docs" / "RECORDS.md"
    example = docs.read_text(encoding="utf-8").split("```\n", 2)[1]
    record = GameRecord.from_text(example)
    assert record.to_text() == example
    replayed = client.replay(record)
    assert record.result is not None
    assert replayed.settlement is not None
    assert replayed.settlement.net == record.result.net


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_any_damage_to_a_record_text_is_read_or_refused_with_where(data: st.DataObject) -> None:
    """Characters changed, inserted or removed anywhere: the text is still a record, or the
    refusal is a RecordParseError with a line and column inside the text — never a crash."""
    text = GOOD
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(text)))
        action = data.draw(st.sampled_from(["replace", "insert", "delete"]))
        char = data.draw(st.sampled_from([*'[]"\\: .;\n', "x", "9", "S", "♠", "é"]))
        if action == "insert":
            text = text[:at] + char + text[at:]
        elif action == "delete":
            text = text[:at] + text[at + 1 :]
        else:
            text = text[:at] + char + text[at + 1 :]
    read = _read(text)
    if isinstance(read, RecordParseError):
        assert 1 <= read.line <= text.count("\n") + 1
        assert read.column >= 1
    else:
        assert GameRecord.from_text(read.to_text()) == read


def _read(text: str) -> GameRecord | RecordParseError:
    """The record of `text`, or the parser's refusal (only that: anything else fails)."""
    try:
        return GameRecord.from_text(text)
    except RecordParseError as refused:
        return refused


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_text_is_read_or_refused_with_where(text: str) -> None:
    read = _read(text)
    if isinstance(read, RecordParseError):
        assert read.line >= 1
        assert read.column >= 1
