"""ReplayGame over the web port: a browser checks a game record as JSON (cards as text), and a
refused move comes back with its number, as over gRPC (docs/RECORDS.md)."""

from __future__ import annotations

from typing import Any

import pytest

from .webclient import WebClient, error_info


@pytest.fixture
def web(server_factory: Any) -> WebClient:
    return WebClient(server_factory(web_port=0).handle.web_port)


def record(*moves: dict[str, Any]) -> dict[str, Any]:
    """Seat 0 holds 3S 9S, seat 1 4S 10S: a first game that seat 0 leads."""
    return {
        "record": {
            "rules": {"variant": "southern"},
            "players": 2,
            "leader": 0,
            "firstGame": True,
            "gameNumber": 1,
            "hands": [{"cards": ["3S", "9S"]}, {"cards": ["4S", "10S"]}],
            "moves": list(moves),
        }
    }


def test_a_record_replays_over_connect_json(web: WebClient) -> None:
    answer = web.connect_json(
        "ReplayGame",
        record(
            {"seat": 0, "cards": ["3S"]},
            {"seat": 1, "cards": ["4S"]},
            {"seat": 0, "passTurn": True},
            {"seat": 1, "cards": ["10S"]},
        ),
    )
    assert answer.status == 200, answer.body
    game = answer.json()["game"]
    assert game["finished"] is True
    assert game["settlement"]["net"] == [-200, 200]
    assert len(answer.json()["seatTokens"]) == 2


def test_an_illegal_move_of_a_record_is_refused_with_its_number_over_the_web(
    web: WebClient,
) -> None:
    answer = web.connect_json("ReplayGame", record({"seat": 0, "cards": ["9S"]}))
    assert answer.status == 400, answer.body
    error = answer.json()
    assert error["code"] == "invalid_argument"
    info = error_info(error["details"])
    assert info.reason == "RECORD_ILLEGAL_MOVE"
    assert info.metadata["move_number"] == "1"
    assert info.metadata["move_reason"] == "MUST_INCLUDE_STARTING_CARD"
