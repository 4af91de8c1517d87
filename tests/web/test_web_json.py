"""The web port's JSON: zeros kept, chips as numbers where JavaScript holds them exactly, cards
readable and writable as text — and still proto3 JSON that standard parsers read."""

from __future__ import annotations

import json
from typing import Any

import pytest
from google.protobuf import json_format

from tienlen.v1 import cards_pb2, events_pb2, service_pb2, settlement_pb2
from tienlen_service.web import jsonform

from .webclient import WebClient, error_info


@pytest.fixture
def web(server_factory) -> WebClient:
    return WebClient(server_factory(web_port=0).handle.web_port)


def game(web: WebClient, **request: Any) -> dict[str, Any]:
    deal = {} if "explicit" in request else {"seed": "7"}
    answer = web.connect_json("NewGame", {"players": 4, **deal, **request})
    assert answer.status == 200, answer.body
    return answer.json()


def apply(web: WebClient, token: str, seat: int, move: dict[str, Any]) -> Any:
    return web.connect_json("ApplyMove", {"stateToken": token, "seat": seat, "move": move})


def test_seat_zero_and_false_flags_are_written(web) -> None:
    dealt = game(web)
    update = dealt["game"]
    assert update["finished"] is False
    seats = update["view"]["seats"]
    assert seats[0]["seat"] == 0
    assert seats[0]["passed"] is False
    assert seats[0]["matchTotal"] == 0


def test_a_game_played_to_its_end_reads_plainly(web) -> None:
    dealt = game(web)
    token, seat, tokens = dealt["game"]["stateToken"], dealt["game"]["toAct"], dealt["seatTokens"]
    assert len(tokens) == 4
    events: list[dict[str, Any]] = []
    for _ in range(400):
        suggestion = web.connect_json("SuggestMove", {"stateToken": token, "seat": seat}).json()[
            "move"
        ]
        if "play" in suggestion:  # written back as text only
            suggestion = {
                "play": {"cards": [{"text": c["text"]} for c in suggestion["play"]["cards"]]}
            }
        answer = apply(web, token, seat, suggestion)
        assert answer.status == 200, answer.body
        update = answer.json()["game"]
        events += update["events"]
        token = update["stateToken"]
        if update["finished"]:
            break
        assert update["finished"] is False
        seat = update["toAct"]
    settlement = update["settlement"]
    assert all(isinstance(n, int) for n in settlement["net"])
    assert sum(settlement["net"]) == 0
    assert all("payer" in t and isinstance(t["amount"], int) for t in settlement["transfers"])
    played = [e["played"] for e in events if "played" in e]
    assert all("seat" in p for p in played)
    assert all(
        c["text"] and c["rank"].startswith("RANK_")
        for p in played
        for c in p["combination"]["cards"]
    )
    passes = [e["turnPassed"] for e in events if "turnPassed" in e]
    assert all("seat" in p for p in passes)


def test_a_card_may_be_written_as_text_or_as_rank_and_suit(web) -> None:
    dealt = game(web)
    token, seat = dealt["game"]["stateToken"], dealt["game"]["toAct"]
    as_text = apply(web, token, seat, {"play": {"cards": [{"text": "3S"}]}})
    as_enums = apply(
        web, token, seat, {"play": {"cards": [{"rank": "RANK_THREE", "suit": "SUIT_SPADES"}]}}
    )
    bare = apply(web, token, seat, {"play": {"cards": ["3S"]}})
    both = apply(
        web,
        token,
        seat,
        {"play": {"cards": [{"rank": "RANK_THREE", "suit": "SUIT_SPADES", "text": "3s"}]}},
    )
    assert as_text.status == as_enums.status == bare.status == both.status == 200
    assert as_text.json()["game"]["events"] == as_enums.json()["game"]["events"]


@pytest.mark.parametrize(
    ("card", "why"),
    [
        ({"text": "3X"}, "is not a card"),
        ("3X", "is not a card"),
        ({"text": "11S"}, "is not a card"),
        ({"text": "4S", "rank": "RANK_THREE", "suit": "SUIT_SPADES"}, "different cards"),
    ],
)
def test_a_card_text_that_is_not_that_card_is_invalid_card(web, card, why) -> None:
    dealt = game(web)
    answer = apply(
        web, dealt["game"]["stateToken"], dealt["game"]["toAct"], {"play": {"cards": [card]}}
    )
    assert answer.status == 400
    assert answer.json()["code"] == "invalid_argument"
    assert why in answer.json()["message"]
    info = error_info(answer.json()["details"])
    assert info.reason == "INVALID_CARD"
    assert info.metadata["field"] == "move.play.cards[0].text"


def test_chips_and_seeds_are_read_as_numbers_or_strings(web) -> None:
    as_number = web.connect_json("NewGame", {"players": 4, "seed": 7})
    as_string = web.connect_json("NewGame", {"players": 4, "seed": "7"})
    assert as_number.json()["game"]["events"] == as_string.json()["game"]["events"]


def test_an_integer_javascript_cannot_hold_stays_a_string() -> None:
    settlement = settlement_pb2.Settlement(net=[2**60, -5, 2**53 - 1, -(2**53)])
    written = json.loads(jsonform.to_json(settlement))
    assert written["net"] == [str(2**60), -5, 2**53 - 1, str(-(2**53))]


@pytest.mark.parametrize(
    "message",
    [
        service_pb2.NewGameResponse(seat_tokens=["a", "b"]),
        events_pb2.Event(turn_passed=events_pb2.TurnPassed(seat=0)),
        settlement_pb2.Settlement(net=[-200, 100, 100, 0], zero_sum=True),
        cards_pb2.Hand(
            cards=[cards_pb2.Card(rank=cards_pb2.RANK_TEN, suit=cards_pb2.SUIT_DIAMONDS)]
        ),
    ],
)
def test_the_json_is_still_proto3_json_a_standard_parser_reads_back(message) -> None:
    written = jsonform.to_json(message)
    read = json_format.Parse(written, type(message)())
    for card in _cards(read):
        assert card.text
        card.text = ""  # filled for readers only
    assert read == message


def _cards(message: Any) -> list[Any]:
    found = []
    if message.DESCRIPTOR.full_name == "tienlen.v1.Card":
        return [message]
    for field, value in message.ListFields():
        if field.message_type is None or field.message_type.GetOptions().map_entry:
            continue
        for item in value if field.is_repeated else [value]:
            found += _cards(item)
    return found


def test_a_card_reads_as_ten_of_diamonds_text() -> None:
    card = cards_pb2.Card(rank=cards_pb2.RANK_TEN, suit=cards_pb2.SUIT_DIAMONDS)
    assert json.loads(jsonform.to_json(card)) == {
        "rank": "RANK_TEN",
        "suit": "SUIT_DIAMONDS",
        "text": "10D",
    }
    read = jsonform.from_json(b'{"text": "td"}', cards_pb2.Card)
    assert (read.rank, read.suit, read.text) == (cards_pb2.RANK_TEN, cards_pb2.SUIT_DIAMONDS, "")


def test_binary_answers_leave_card_text_empty(server_factory) -> None:
    running = server_factory(web_port=0)
    web = WebClient(running.handle.web_port)
    answer = web.connect_proto("NewGame", service_pb2.NewGameRequest(players=4, seed=7))
    update = service_pb2.NewGameResponse.FromString(answer.body).game
    assert update.events[0].game_started.must_include.text == ""


def test_seat_zero_s_pass_says_seat_zero() -> None:
    written = json.loads(jsonform.to_json(events_pb2.Event(turn_passed=events_pb2.TurnPassed())))
    assert written == {"turnPassed": {"seat": 0}}


def test_a_time_out_and_a_leave_are_moves_in_json_too(web) -> None:
    # RULES §9.3, §9.4: the host's reports travel the web port as they do gRPC (`{"timeout": {}}`,
    # `{"leave": {}}`): the seat to act times out and is shown with its count, then leaves and
    # is shown left, on auto, while the game goes on for the others.
    dealt = game(web)
    token, seat = dealt["game"]["stateToken"], dealt["game"]["toAct"]
    answer = apply(web, token, seat, {"timeout": {}})
    assert answer.status == 200, answer.body
    update = answer.json()["game"]
    # proto3 JSON leaves seat 0 out of the event: an absent seat reads as 0.
    assert any("timedOut" in e and e["timedOut"].get("seat", 0) == seat for e in update["events"])
    assert update["view"]["seats"][seat]["timeouts"] == 1
    answer = apply(web, update["stateToken"], seat, {"leave": {}})
    assert answer.status == 200, answer.body
    left = answer.json()["game"]
    assert any("playerLeft" in e for e in left["events"])
    status = left["view"]["seats"][seat]
    assert status["left"] is True
    assert status["auto"] is True
    assert left["finished"] is False
