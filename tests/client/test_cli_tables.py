"""The `tienlen` tool at a table of people (RULES §9): the narrator tells the host's reports
and the seat changes, and `tienlen replay` of a match with a seat change, time-outs, a seat on
auto and a leave draws who sits where in each game and says what happened."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tienlen_client import (
    AutoPlay,
    Newcomer,
    PlayerLeft,
    SeatTaken,
    SeatVacated,
    TienLenClient,
    TimedOut,
)
from tienlen_client.cli import main
from tienlen_client.cli.narrate import Narrator


@pytest.fixture
def address(process_factory: Callable[..., Any]) -> str:
    # A server of its own process: an in-process one would log into the stdout the tests read.
    return str(process_factory().start_and_wait())


def test_the_narrator_tells_time_outs_auto_leaves_and_seat_changes() -> None:
    narrator = Narrator(["an", "binh", "chi", "dung"])
    lines = narrator.lines(
        [
            TimedOut(1, 2),
            AutoPlay(1, on=True),
            AutoPlay(1, on=False),
            PlayerLeft(3, forfeit=False, place=0),
            PlayerLeft(2, forfeit=True, place=4),
            SeatVacated(3, "dung", -300),
            SeatTaken(3, "em"),
        ]
    )
    assert lines == [
        "      seat 1's time ran out (2 in a row):",
        "      seat 1 is on auto (tự động đánh)",
        "      seat 1 is back: off auto",
        "      seat 3's player left: played out on auto until the game ends",
        "      seat 2's player left: a forfeit, 4th place, its cards stay in its hand",
        "seat 3 (dung) leaves the table, with a final total of -300",
        "a newcomer (em) sits down in seat 3, with a total of 0",
    ]


def test_replay_draws_a_seat_change_and_a_seat_on_auto(
    address: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    hands = ["3S 9S KD", "4S 10S KH", "5S JS AS", "6S QS AD"]
    with TienLenClient(address) as client:
        game = client.new_game(hands=hands, player_ids=["an", "binh", "chi", "dung"])
        game = client.timeout(game, 0)
        for seat, cards in ((1, "4S"), (2, "5S"), (3, "6S")):
            game = client.play(game, seat, cards)
        game = client.leave(game, 2)
        while not game.finished:  # time-outs (the leaver's, on auto, among them)
            assert game.to_act is not None
            game = client.timeout(game, game.to_act)
        game = client.next_game(
            game, hands=["3C 8D", "4C 9D", "5C 10D", "6C JD"], joining=[Newcomer(2, "em")]
        )
        while not game.finished:
            assert game.to_act is not None
            game = client.timeout(game, game.to_act)
        path = tmp_path / "match.tlr"
        path.write_text(game.match_record().to_text(), encoding="utf-8")
    capsys.readouterr()  # what came before is not the tool's
    code = main(["replay", "--address", address, str(path)])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert "  seat 0: an, seat 1: binh, seat 2: chi, seat 3: dung" in out
    assert "seat 0's time ran out:" in out
    assert "seat 2's player left: played out on auto" in out
    assert "seat 2 is on auto (tự động đánh)" in out
    # Game 2: chi's seat is em's; seats still on auto at the deal say so.
    assert "seat 2: em" in out
    assert "(on auto)" in out
    assert out.count("Settlement") == 2
