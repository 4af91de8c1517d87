"""What one seat sees (the engine's `SeatView`) -> `tienlen.v1.TableView`.

The view holds the viewer's own hand and nothing of another's: the cards of `hand` come from
`seat_view.hand` only (the engine's view holds the viewer's hand, none for a spectator, seat
-1, whose view has no `seat` at all). Everything else is public: per seat its card count,
place, pass, freeze, whether it has played, its match total; the play to beat and who made it;
who is to act (unset once the game is over); the starting card a first lead must hold; the
cards played so far, weakest first; the rules as a spec (`codec.rules.rules_to_pb`) and the
resolved values a client needs to follow a game from its events (`follow_rules`, always
present). `state` supplies only public facts the engine view does not carry (the rules, the
dealer, who has played, an open steal, the move count).

`view_to_pb` is that mapping, written with messages: it is the specification. The service
sends a view with every answer, so it writes it with `view_to_wire`, as the bytes of the
`TableView` (merged straight into the answer, it costs no message per seat and card); tests
prove those bytes equal the mapping's deterministic serialisation for every seat of every
state of random matches of every preset.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from tienlen.v1 import game_pb2
from tienlen_rules import MAX_PLAYERS, SPECTATOR, Combination, GameState, RuleSet, SeatView
from tienlen_service.codec._wire import (
    bool_record,
    int_field,
    length_delimited,
    records,
    tag,
    varint,
)
from tienlen_service.codec.cards import (
    CARD_COUNT,
    RepeatedCards,
    card_records,
    card_to_pb,
    cards_to_pb,
    combination_to_pb,
    combination_wire,
)
from tienlen_service.codec.rules import rules_to_pb

# --------------------------------------------------------------------------------------------
# The mapping


def follow_rules_to_pb(rules: RuleSet) -> game_pb2.FollowRules:
    """The resolved rule values a client needs to follow a game from its events."""
    return game_pb2.FollowRules(
        pass_lockout=rules.pass_lockout,
        lead_stealing=rules.lead_stealing,
        steal_winner_pairs_lead=rules.steal_winner_pairs_lead,
    )


def view_to_pb(seat_view: SeatView, state: GameState) -> game_pb2.TableView:
    """The wire view of an engine view (what `view_to_wire`'s bytes are)."""
    table = seat_view.table
    seated = seat_view.seat >= 0
    return game_pb2.TableView(
        seat=seat_view.seat if seated else None,
        hand=cards_to_pb(seat_view.hand if seated else 0),
        players=len(seat_view.hand_counts),
        rules=rules_to_pb(state.rules),
        seats=[
            game_pb2.SeatStatus(
                seat=s,
                cards_left=cards_left,
                place=seat_view.places[s],
                passed=bool(seat_view.passed >> s & 1),
                frozen=bool(seat_view.frozen >> s & 1),
                has_played=not state.unplayed >> s & 1,
                match_total=seat_view.totals[s],
            )
            for s, cards_left in enumerate(seat_view.hand_counts)
        ],
        table=None if table is None else combination_to_pb(table),
        table_seat=seat_view.table_seat
        if table is not None and seat_view.table_seat >= 0
        else None,
        to_act=None if seat_view.over else seat_view.to_act,
        must_include=card_to_pb(seat_view.must_include) if seat_view.must_include >= 0 else None,
        finished=seat_view.over,
        first_game=seat_view.first_game,
        game_number=seat_view.game_number,
        dealer=state.match.dealer,
        played=cards_to_pb(seat_view.played),
        steal_open=state.steal_open,
        move_count=state.move_count,
        follow_rules=follow_rules_to_pb(state.rules),
        replayed=state.match.replayed,
    )


# --------------------------------------------------------------------------------------------
# The fast path: the same view as wire bytes

_TV: Final = game_pb2.TableView
_TV_SEAT: Final = tag(_TV, "seat")
_TV_PLAYERS: Final = tag(_TV, "players")
_TV_RULES: Final = tag(_TV, "rules")
_TV_SEATS: Final = tag(_TV, "seats")
_TV_TABLE: Final = tag(_TV, "table")
_TV_TABLE_SEAT: Final = tag(_TV, "table_seat")
_TV_TO_ACT: Final = tag(_TV, "to_act")
_TV_MUST_INCLUDE: Final = card_records(_TV, "must_include")
_TV_FINISHED: Final = bool_record(_TV, "finished")
_TV_FIRST_GAME: Final = bool_record(_TV, "first_game")
_TV_GAME_NUMBER: Final = tag(_TV, "game_number")
_TV_DEALER: Final = tag(_TV, "dealer")
_TV_STEAL_OPEN: Final = bool_record(_TV, "steal_open")
_TV_MOVE_COUNT: Final = tag(_TV, "move_count")
_TV_FOLLOW_RULES: Final = tag(_TV, "follow_rules")
_TV_REPLAYED: Final = bool_record(_TV, "replayed")
_TV_HAND: Final = RepeatedCards(_TV, "hand")
_TV_PLAYED: Final = RepeatedCards(_TV, "played")
_SS: Final = game_pb2.SeatStatus
_SS_SEAT: Final = records(_SS, "seat", MAX_PLAYERS)
_SS_CARDS_LEFT: Final = records(_SS, "cards_left", CARD_COUNT + 1)
_SS_PLACE: Final = records(_SS, "place", MAX_PLAYERS + 1)
_SS_PASSED: Final = bool_record(_SS, "passed")
_SS_FROZEN: Final = bool_record(_SS, "frozen")
_SS_HAS_PLAYED: Final = bool_record(_SS, "has_played")
_SS_MATCH_TOTAL: Final = tag(_SS, "match_total")


@lru_cache(maxsize=512)
def _rules_wire(rules: RuleSet) -> tuple[bytes, bytes]:
    """The view's `rules` and `follow_rules` field records, built once per rule set."""
    spec = rules_to_pb(rules).SerializeToString(deterministic=True)
    follow = follow_rules_to_pb(rules).SerializeToString(deterministic=True)
    return length_delimited(_TV_RULES, spec), length_delimited(_TV_FOLLOW_RULES, follow)


def view_to_wire(seat_view: SeatView, state: GameState) -> bytes:
    """The bytes of `view_to_pb(seat_view, state)`, written straight from the engine's view."""
    return _view_wire(
        seat_view.seat,
        seat_view.hand,
        seat_view.hand_counts,
        seat_view.places,
        seat_view.passed,
        seat_view.frozen,
        seat_view.totals,
        seat_view.table,
        seat_view.table_seat,
        seat_view.to_act,
        seat_view.over,
        seat_view.must_include,
        seat_view.first_game,
        seat_view.game_number,
        seat_view.played,
        state,
    )


def spectator_view_to_wire(state: GameState) -> bytes:
    """`view_to_wire(view(state, SPECTATOR), state)` — the view every answer carries —
    without building the engine's `SeatView` first (a third of the view's cost): a spectator
    sees no hand, each seat's card count, and the state's public fields as `view` copies them.
    tests/test_codec.py proves the bytes equal for every state of random matches of every
    preset, so a change of what `view` shows a spectator fails there."""
    match = state.match
    return _view_wire(
        SPECTATOR,
        0,
        tuple(map(int.bit_count, state.hands)),
        state.places,
        state.passed,
        state.frozen,
        match.totals,
        state.table,
        state.table_seat,
        state.to_act,
        state.to_act < 0,
        state.must_include,
        state.first_game,
        match.game_number,
        state.played,
        state,
    )


def _view_wire(
    viewer: int,
    hand: int,
    counts: tuple[int, ...],
    places: tuple[int, ...],
    passed: int,
    frozen: int,
    totals: tuple[int, ...],
    table: Combination | None,
    table_seat: int,
    to_act: int,
    over: bool,
    must_include: int,
    first_game: bool,
    game_number: int,
    played: int,
    state: GameState,
) -> bytes:
    rules_record, follow_rules_record = _rules_wire(state.rules)
    out: list[bytes] = []
    if viewer >= 0:  # optional: a seat 0 viewer is still present on the wire
        out += (_TV_SEAT, varint(viewer), _TV_HAND.encode(hand))
    out += (_TV_PLAYERS, varint(len(counts)), rules_record)
    unplayed = state.unplayed
    statuses = _STATUSES
    for s, cards_left in enumerate(counts):
        key = (
            s,
            cards_left,
            places[s],
            passed >> s & 1,
            frozen >> s & 1,
            unplayed >> s & 1,
            totals[s],
        )
        record = statuses.get(key)
        if record is None:
            record = _status_record(*key)
        out.append(record)
    if table is not None:
        combo = combination_wire(table.kind, table.length, table.top, table.cards)
        out += (_TV_TABLE, varint(len(combo)), combo)
        if table_seat >= 0:
            out += (_TV_TABLE_SEAT, varint(table_seat))
    if not over:
        out += (_TV_TO_ACT, varint(to_act))
    if must_include >= 0:
        out.append(_TV_MUST_INCLUDE[must_include])
    if over:
        out.append(_TV_FINISHED)
    if first_game:
        out.append(_TV_FIRST_GAME)
    if game_number:
        out += (_TV_GAME_NUMBER, varint(game_number))
    if state.match.dealer:
        out += (_TV_DEALER, varint(state.match.dealer))
    out.append(_TV_PLAYED.encode(played))
    if state.steal_open:
        out.append(_TV_STEAL_OPEN)
    if state.move_count:
        out += (_TV_MOVE_COUNT, varint(state.move_count))
    out.append(follow_rules_record)
    if state.match.replayed:
        out.append(_TV_REPLAYED)
    return b"".join(out)


# The `seats` records already written, by what they say: from one move to the next most seats
# do not change (a move changes one seat's count, pass or place), so a view is mostly lookups.
_STATUSES: Final[dict[tuple[int, ...], bytes]] = {}
_STATUSES_SIZE: Final = 16384


def _status_record(
    s: int, cards_left: int, place: int, passed: int, frozen: int, unplayed: int, total: int
) -> bytes:
    """One `seats` record of a TableView (tag, length, SeatStatus), remembered."""
    status = b"".join(
        (
            _SS_SEAT[s],
            _SS_CARDS_LEFT[cards_left],
            _SS_PLACE[place],
            _SS_PASSED if passed else b"",
            _SS_FROZEN if frozen else b"",
            b"" if unplayed else _SS_HAS_PLAYED,
            int_field(_SS_MATCH_TOTAL, total),
        )
    )
    record = _TV_SEATS + varint(len(status)) + status
    if len(_STATUSES) >= _STATUSES_SIZE:
        _STATUSES.clear()
    _STATUSES[s, cards_left, place, passed, frozen, unplayed, total] = record
    return record
