"""The engine's events -> `tienlen.v1.Event`: what happened, in order, public facts only.

Every engine event maps to one `Event` of the same name (events.proto), field for field, with
two rules: cards go out as `Card`s weakest first (a Played event's cards as the `Combination`
they form, its top the strongest card), and nothing that would tell the table about a hand
leaves the engine (`Passed.held_beat`, which the engine keeps for *đền bài*, is not sent). A -1
"no card" (`GameStarted.must_include`) is an unset field.

`event_to_pb` is that mapping, written with messages: it is the specification. The service
sends the events of every move, so it writes them with `events_to_wire`, as the bytes of the
`events` records of a `GameUpdate` (merged into the answer, they append to its events), each
kind's fields as its layout declares them (`_layouts`); tests prove those bytes equal the
mapping's deterministic serialisation, and parse to its messages, for every kind of event of
random matches of every preset and edge values of every field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import tienlen_rules as engine
from tienlen.v1 import events_pb2
from tienlen_service.codec._layouts import (
    AUTO_PLAY,
    CHOP_SETTLED,
    EVENT,
    GAME_OVER,
    GAME_STARTED,
    GAME_UPDATE,
    INSTANT_WIN,
    PASSED,
    PLAYED,
    PLAYER_FINISHED,
    PLAYER_LEFT,
    PLAYERS_FROZEN,
    ROUND_WON,
    SEAT_TAKEN,
    SEAT_VACATED,
    TIMED_OUT,
    TURN_PASSED,
)
from tienlen_service.codec._wire import VARINT_TABLE, VARINTS, int_field, packed_varints, varint
from tienlen_service.codec.cards import (
    CARD_COUNT,
    RepeatedCards,
    card_records,
    card_to_pb,
    cards_to_pb,
    combination_to_pb,
    combination_wire,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

# --------------------------------------------------------------------------------------------
# The mapping


def event_to_pb(event: engine.Event) -> events_pb2.Event:
    """The wire event of an engine event (public information only)."""
    match event:
        case engine.GameStarted():
            return events_pb2.Event(
                game_started=events_pb2.GameStarted(
                    game_number=event.game_number,
                    leader=event.leader,
                    must_include=card_to_pb(event.must_include)
                    if event.must_include >= 0
                    else None,
                    first_game=event.first_game,
                    dealer=event.dealer,
                    hand_sizes=event.hand_sizes,
                )
            )
        case engine.Played():
            top = event.cards.bit_length() - 1  # the strongest card
            combination = engine.Combination(event.kind, event.length, top, event.cards)
            return events_pb2.Event(
                played=events_pb2.Played(
                    seat=event.seat,
                    combination=combination_to_pb(combination),
                    chop=event.chop,
                    out_of_turn=event.out_of_turn,
                    steal=event.steal,
                    cards_left=event.cards_left,
                )
            )
        case engine.Passed():
            # `held_beat` stays inside the engine: it would tell the table about a hand.
            return events_pb2.Event(passed=events_pb2.Passed(seat=event.seat))
        case engine.ChopSettled():
            return events_pb2.Event(
                chop_settled=events_pb2.ChopSettled(
                    payer=event.payer,
                    payee=event.payee,
                    amount=event.amount,
                    cards=cards_to_pb(event.cards),
                    links=event.links,
                    victim_out=event.victim_out,
                )
            )
        case engine.RoundWon():
            return events_pb2.Event(
                round_won=events_pb2.RoundWon(seat=event.seat, leader=event.leader)
            )
        case engine.PlayerFinished():
            return events_pb2.Event(
                player_finished=events_pb2.PlayerFinished(
                    seat=event.seat, place=event.place, ranked_last=event.ranked_last
                )
            )
        case engine.PlayersFrozen():
            return events_pb2.Event(
                players_frozen=events_pb2.PlayersFrozen(seats=event.seats, places=event.places)
            )
        case engine.InstantWin():
            return events_pb2.Event(
                instant_win=events_pb2.InstantWin(seat=event.seat, pattern=event.pattern)
            )
        case engine.TurnPassed():
            return events_pb2.Event(turn_passed=events_pb2.TurnPassed(seat=event.seat))
        case engine.GameOver():
            return events_pb2.Event(game_over=events_pb2.GameOver(places=_places(event.places)))
        case engine.TimedOut():
            return events_pb2.Event(
                timed_out=events_pb2.TimedOut(seat=event.seat, timeouts=event.timeouts)
            )
        case engine.AutoPlay():
            return events_pb2.Event(auto_play=events_pb2.AutoPlay(seat=event.seat, on=event.on))
        case engine.PlayerLeft():
            return events_pb2.Event(
                player_left=events_pb2.PlayerLeft(
                    seat=event.seat, forfeit=event.forfeit, place=event.place
                )
            )
        case engine.SeatVacated():
            return events_pb2.Event(
                seat_vacated=events_pb2.SeatVacated(
                    seat=event.seat, player_id=event.player_id, total=event.total
                )
            )
        case engine.SeatTaken():
            return events_pb2.Event(
                seat_taken=events_pb2.SeatTaken(seat=event.seat, player_id=event.player_id)
            )
    raise TypeError(f"unknown engine event {event!r}")  # pragma: no cover - exhaustive above


def _places(places: tuple[int, ...]) -> tuple[int, ...]:
    """Places on the wire: an empty seat's (-1 in the engine, RULES §9.1) is 0, "no place"."""
    return tuple(max(p, 0) for p in places) if -1 in places else places


def events_to_pb(events: Iterable[engine.Event]) -> list[events_pb2.Event]:
    """The wire events of engine events, in order."""
    return [event_to_pb(event) for event in events]


# --------------------------------------------------------------------------------------------
# The fast path: the same events as wire bytes

_GU_EVENTS: Final = GAME_UPDATE.tag("events")
_GST_GAME_NUMBER: Final = GAME_STARTED.tag("game_number")
_GST_LEADER: Final = GAME_STARTED.tag("leader")
_GST_MUST_INCLUDE: Final = card_records(GAME_STARTED, "must_include")
_GST_FIRST_GAME: Final = GAME_STARTED.bool_record("first_game")
_GST_DEALER: Final = GAME_STARTED.tag("dealer")
_GST_HAND_SIZES: Final = GAME_STARTED.tag("hand_sizes")
_PL_SEATS: Final = PLAYED.records("seat", engine.MAX_PLAYERS)
_PL_COMBINATION: Final = PLAYED.tag("combination")
_PL_CHOP: Final = PLAYED.bool_record("chop")
_PL_OUT_OF_TURN: Final = PLAYED.bool_record("out_of_turn")
_PL_STEAL: Final = PLAYED.bool_record("steal")
_PL_CARDS_LEFT: Final = PLAYED.records("cards_left", CARD_COUNT + 1)
_PA_SEAT: Final = PASSED.tag("seat")
_CS_PAYER: Final = CHOP_SETTLED.tag("payer")
_CS_PAYEE: Final = CHOP_SETTLED.tag("payee")
_CS_AMOUNT: Final = CHOP_SETTLED.tag("amount")
_CS_CARDS: Final = RepeatedCards(CHOP_SETTLED, "cards")
_CS_LINKS: Final = CHOP_SETTLED.tag("links")
_CS_VICTIM_OUT: Final = CHOP_SETTLED.bool_record("victim_out")
_RW_SEAT: Final = ROUND_WON.tag("seat")
_RW_LEADER: Final = ROUND_WON.tag("leader")
_PF_SEAT: Final = PLAYER_FINISHED.tag("seat")
_PF_PLACE: Final = PLAYER_FINISHED.tag("place")
_PF_RANKED_LAST: Final = PLAYER_FINISHED.bool_record("ranked_last")
_FR_SEATS: Final = PLAYERS_FROZEN.tag("seats")
_FR_PLACES: Final = PLAYERS_FROZEN.tag("places")
_IW_SEAT: Final = INSTANT_WIN.tag("seat")
_IW_PATTERN: Final = INSTANT_WIN.tag("pattern")
_TP_SEAT: Final = TURN_PASSED.tag("seat")
_GO_PLACES: Final = GAME_OVER.tag("places")
_TO_SEAT: Final = TIMED_OUT.tag("seat")
_TO_TIMEOUTS: Final = TIMED_OUT.tag("timeouts")
_AP_SEAT: Final = AUTO_PLAY.tag("seat")
_AP_ON: Final = AUTO_PLAY.bool_record("on")
_PLE_SEAT: Final = PLAYER_LEFT.tag("seat")
_PLE_FORFEIT: Final = PLAYER_LEFT.bool_record("forfeit")
_PLE_PLACE: Final = PLAYER_LEFT.tag("place")
_SV_SEAT: Final = SEAT_VACATED.tag("seat")
_SV_PLAYER_ID: Final = SEAT_VACATED.tag("player_id")
_SV_TOTAL: Final = SEAT_VACATED.tag("total")
_ST_SEAT: Final = SEAT_TAKEN.tag("seat")
_ST_PLAYER_ID: Final = SEAT_TAKEN.tag("player_id")


def events_to_wire(events: Iterable[engine.Event]) -> bytes:
    """Wire events of engine events, in order, as the `events` records of a `GameUpdate`:
    the bytes of `GameUpdate(events=events_to_pb(events))`. The events of nearly every move
    (a play, a pass, the next seat to act) take a short path: a pass's and a turn's records
    are looked up whole, a play's written without the general dispatch (`_event_body`)."""
    out: list[bytes] = []
    for event in events:
        kind = type(event)
        if kind is _PLAYED:
            out.append(_played_record(event))  # type: ignore[arg-type] # checked just above
        elif kind is _TURN_PASSED:
            out.append(_TURN_PASSED_RECORDS[event.seat])  # type: ignore[union-attr]
        elif kind is _PASSED:
            out.append(_PASSED_RECORDS[event.seat])  # type: ignore[union-attr]
        else:
            out.append(_event_record(*_event_body(event)))
    return b"".join(out)


def _event_record(key: bytes, body: bytes) -> bytes:
    """The `events` record of a GameUpdate holding one event: the Event's oneof `key` and its
    message's `body`, wrapped (tag, length, Event)."""
    size = len(body)
    record = key + (VARINTS[size] if size < VARINT_TABLE else varint(size)) + body
    size = len(record)
    return _GU_EVENTS + (VARINTS[size] if size < VARINT_TABLE else varint(size)) + record


def _played_record(event: engine.Played) -> bytes:
    """The `events` record of a Played event, its seat and count records looked up."""
    cards = event.cards
    combination = combination_wire(event.kind, event.length, cards.bit_length() - 1, cards)
    body = b"".join(
        (
            _PL_SEATS[event.seat],
            _PL_COMBINATION,
            VARINTS[len(combination)],  # at most 13 cards
            combination,
            _PL_CHOP if event.chop else b"",
            _PL_OUT_OF_TURN if event.out_of_turn else b"",
            _PL_STEAL if event.steal else b"",
            _PL_CARDS_LEFT[event.cards_left],
        )
    )
    record = _EV_PLAYED + VARINTS[len(body)] + body  # `_event_record`, inline: most moves
    return _GU_EVENTS + VARINTS[len(record)] + record


def _event_body(event: engine.Event) -> tuple[bytes, bytes]:
    """The `Event` oneof key of an engine event other than Played (`_played_record`) and the
    bytes of its message, its fields in its layout's order."""
    match event:
        case engine.GameStarted():
            return _EV_GAME_STARTED, b"".join(
                (
                    int_field(_GST_GAME_NUMBER, event.game_number),
                    int_field(_GST_LEADER, event.leader),
                    _GST_MUST_INCLUDE[event.must_include] if event.must_include >= 0 else b"",
                    _GST_FIRST_GAME if event.first_game else b"",
                    int_field(_GST_DEALER, event.dealer),
                    packed_varints(_GST_HAND_SIZES, event.hand_sizes),
                )
            )
        case engine.Passed():
            return _EV_PASSED, int_field(_PA_SEAT, event.seat)  # never `held_beat`
        case engine.ChopSettled():
            return _EV_CHOP_SETTLED, b"".join(
                (
                    int_field(_CS_PAYER, event.payer),
                    int_field(_CS_PAYEE, event.payee),
                    int_field(_CS_AMOUNT, event.amount),
                    _CS_CARDS.encode(event.cards),
                    int_field(_CS_LINKS, event.links),
                    _CS_VICTIM_OUT if event.victim_out else b"",
                )
            )
        case engine.RoundWon():
            return _EV_ROUND_WON, int_field(_RW_SEAT, event.seat) + int_field(
                _RW_LEADER, event.leader
            )
        case engine.PlayerFinished():
            return _EV_PLAYER_FINISHED, b"".join(
                (
                    int_field(_PF_SEAT, event.seat),
                    int_field(_PF_PLACE, event.place),
                    _PF_RANKED_LAST if event.ranked_last else b"",
                )
            )
        case engine.PlayersFrozen():
            return _EV_PLAYERS_FROZEN, packed_varints(_FR_SEATS, event.seats) + packed_varints(
                _FR_PLACES, event.places
            )
        case engine.InstantWin():
            pattern = event.pattern.encode()
            return _EV_INSTANT_WIN, int_field(_IW_SEAT, event.seat) + (
                _IW_PATTERN + varint(len(pattern)) + pattern if pattern else b""
            )
        case engine.TurnPassed():
            return _EV_TURN_PASSED, int_field(_TP_SEAT, event.seat)
        case engine.GameOver():
            return _EV_GAME_OVER, packed_varints(_GO_PLACES, _places(event.places))
        case engine.TimedOut():
            return _EV_TIMED_OUT, int_field(_TO_SEAT, event.seat) + int_field(
                _TO_TIMEOUTS, event.timeouts
            )
        case engine.AutoPlay():
            return _EV_AUTO_PLAY, int_field(_AP_SEAT, event.seat) + (_AP_ON if event.on else b"")
        case engine.PlayerLeft():
            return _EV_PLAYER_LEFT, b"".join(
                (
                    int_field(_PLE_SEAT, event.seat),
                    _PLE_FORFEIT if event.forfeit else b"",
                    int_field(_PLE_PLACE, event.place),
                )
            )
        case engine.SeatVacated():
            return _EV_SEAT_VACATED, b"".join(
                (
                    int_field(_SV_SEAT, event.seat),
                    _text(_SV_PLAYER_ID, event.player_id),
                    int_field(_SV_TOTAL, event.total),
                )
            )
        case engine.SeatTaken():
            return _EV_SEAT_TAKEN, int_field(_ST_SEAT, event.seat) + _text(
                _ST_PLAYER_ID, event.player_id
            )
    raise TypeError(f"no wire body for {event!r}")  # pragma: no cover - Played has its own


def _text(key: bytes, text: str) -> bytes:
    """The record of a string field (none for "")."""
    encoded = text.encode()
    return key + varint(len(encoded)) + encoded if encoded else b""


_EV_GAME_STARTED: Final = EVENT.tag("game_started")
_EV_PLAYED: Final = EVENT.tag("played")
_EV_PASSED: Final = EVENT.tag("passed")
_EV_CHOP_SETTLED: Final = EVENT.tag("chop_settled")
_EV_ROUND_WON: Final = EVENT.tag("round_won")
_EV_PLAYER_FINISHED: Final = EVENT.tag("player_finished")
_EV_PLAYERS_FROZEN: Final = EVENT.tag("players_frozen")
_EV_INSTANT_WIN: Final = EVENT.tag("instant_win")
_EV_TURN_PASSED: Final = EVENT.tag("turn_passed")
_EV_GAME_OVER: Final = EVENT.tag("game_over")
_EV_TIMED_OUT: Final = EVENT.tag("timed_out")
_EV_AUTO_PLAY: Final = EVENT.tag("auto_play")
_EV_PLAYER_LEFT: Final = EVENT.tag("player_left")
_EV_SEAT_VACATED: Final = EVENT.tag("seat_vacated")
_EV_SEAT_TAKEN: Final = EVENT.tag("seat_taken")
_PLAYED: Final = engine.Played
_PASSED: Final = engine.Passed
_TURN_PASSED: Final = engine.TurnPassed
# Whole records, by seat: `held_beat` is never sent, so a pass is its seat alone.
_PASSED_RECORDS: Final = tuple(
    _event_record(*_event_body(engine.Passed(seat, None))) for seat in range(engine.MAX_PLAYERS)
)
_TURN_PASSED_RECORDS: Final = tuple(
    _event_record(*_event_body(engine.TurnPassed(seat))) for seat in range(engine.MAX_PLAYERS)
)
