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
`TableView` (merged straight into the answer, it costs no message per seat and card), its
fields as `_layouts.TABLE_VIEW` and `SEAT_STATUS` declare them; tests prove those bytes equal
the mapping's deterministic serialisation, and parse to its message, for every seat of every
state of random matches of every preset.
"""

from __future__ import annotations

from typing import Final, TypeAlias

from tienlen.v1 import game_pb2
from tienlen_rules import (
    EMPTY_SEAT,
    MAX_PLAYERS,
    SPECTATOR,
    GameState,
    Match,
    RuleSet,
    SeatView,
    chop_open,
    chop_seats,
)
from tienlen_service.codec._layouts import SEAT_STATUS, TABLE_VIEW
from tienlen_service.codec._wire import VARINT_TABLE, VARINTS, int_field, length_delimited, varint
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


def view_to_pb(seat_view: SeatView, state: GameState, *, chops: bool = True) -> game_pb2.TableView:
    """The wire view of an engine view (what `view_to_wire`'s bytes are). The seats that could
    chop out of turn are in the spectator's (the host's) view only, and only with `chops`
    (RULES §9.5: where the service checks seat tokens, for a request that proves the host)."""
    table = seat_view.table
    seated = seat_view.seat >= 0
    match = state.match
    return game_pb2.TableView(
        seat=seat_view.seat if seated else None,
        hand=cards_to_pb(seat_view.hand if seated else 0),
        players=len(seat_view.hand_counts),
        rules=rules_to_pb(state.rules),
        seats=[
            game_pb2.SeatStatus(
                seat=s,
                cards_left=cards_left,
                place=max(seat_view.places[s], 0),
                passed=bool(seat_view.passed >> s & 1),
                frozen=bool(seat_view.frozen >> s & 1),
                has_played=not state.unplayed >> s & 1 and seat_view.places[s] != EMPTY_SEAT,
                match_total=seat_view.totals[s],
                empty=seat_view.places[s] == EMPTY_SEAT,
                auto=bool(state.auto >> s & 1),
                left=bool(state.departed >> s & 1),
                forfeited=bool(state.forfeited >> s & 1),
                player_id=match.player_ids[s] if match.player_ids else "",
                timeouts=state.timeouts[s] if state.timeouts else 0,
                bankroll=match.bankrolls[s] if match.bankrolls else None,
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
        chop_seats=chop_seats(state) if chops and not seated else (),
        chop_open=chop_open(state),
        replayed=state.match.replayed,
    )


# --------------------------------------------------------------------------------------------
# The fast path: the same view as wire bytes


_TV_SEAT: Final = TABLE_VIEW.tag("seat")
_TV_HAND: Final = RepeatedCards(TABLE_VIEW, "hand")
_TV_PLAYERS: Final = TABLE_VIEW.tag("players")
_TV_RULES: Final = TABLE_VIEW.tag("rules")
_TV_SEATS: Final = TABLE_VIEW.tag("seats")
_TV_TABLE: Final = TABLE_VIEW.tag("table")
_TV_TABLE_SEAT: Final = TABLE_VIEW.tag("table_seat")
_TV_TO_ACT: Final = TABLE_VIEW.tag("to_act")
_TV_MUST_INCLUDE: Final = card_records(TABLE_VIEW, "must_include")
_TV_FINISHED: Final = TABLE_VIEW.bool_record("finished")
_TV_FIRST_GAME: Final = TABLE_VIEW.bool_record("first_game")
_TV_GAME_NUMBER: Final = TABLE_VIEW.tag("game_number")
_TV_DEALER: Final = TABLE_VIEW.tag("dealer")
_TV_PLAYED: Final = RepeatedCards(TABLE_VIEW, "played")
_TV_STEAL_OPEN: Final = TABLE_VIEW.bool_record("steal_open")
_TV_MOVE_COUNT: Final = TABLE_VIEW.tag("move_count")
_TV_FOLLOW_RULES: Final = TABLE_VIEW.tag("follow_rules")
_TV_CHOP_SEATS: Final = TABLE_VIEW.tag("chop_seats")
_TV_CHOP_OPEN: Final = TABLE_VIEW.bool_record("chop_open")
_TV_REPLAYED: Final = TABLE_VIEW.bool_record("replayed")
_SS_SEAT: Final = SEAT_STATUS.records("seat", MAX_PLAYERS)
_SS_CARDS_LEFT: Final = SEAT_STATUS.records("cards_left", CARD_COUNT + 1)
_SS_PLACE: Final = SEAT_STATUS.records("place", MAX_PLAYERS + 1)
_SS_PASSED: Final = SEAT_STATUS.bool_record("passed")
_SS_FROZEN: Final = SEAT_STATUS.bool_record("frozen")
_SS_HAS_PLAYED: Final = SEAT_STATUS.bool_record("has_played")
_SS_MATCH_TOTAL: Final = SEAT_STATUS.tag("match_total")
_SS_EMPTY: Final = SEAT_STATUS.bool_record("empty")
_SS_AUTO: Final = SEAT_STATUS.bool_record("auto")
_SS_LEFT: Final = SEAT_STATUS.bool_record("left")
_SS_FORFEITED: Final = SEAT_STATUS.bool_record("forfeited")
_SS_PLAYER_ID: Final = SEAT_STATUS.tag("player_id")
_SS_TIMEOUTS: Final = SEAT_STATUS.tag("timeouts")
_SS_BANKROLL: Final = SEAT_STATUS.tag("bankroll")


def _rules_wire(rules: RuleSet) -> tuple[bytes, bytes]:
    """The view's `rules` and `follow_rules` field records, built once per rule set and found
    by its identity (rule sets are cached, `codec.rules`; a RuleSet hashes and compares in
    Python, which every answer would pay)."""
    known = _RULES_WIRE.get(id(rules))
    if known is not None and known[0] is rules:
        return known[1]
    spec = rules_to_pb(rules).SerializeToString(deterministic=True)
    follow = follow_rules_to_pb(rules).SerializeToString(deterministic=True)
    records = length_delimited(_TV_RULES, spec), length_delimited(_TV_FOLLOW_RULES, follow)
    if len(_RULES_WIRE) >= _RULES_WIRE_SIZE:
        _RULES_WIRE.clear()
    _RULES_WIRE[id(rules)] = (rules, records)  # the rule set kept: its id stays its own
    return records


_RULES_WIRE: Final[dict[int, tuple[RuleSet, tuple[bytes, bytes]]]] = {}
_RULES_WIRE_SIZE: Final = 512


def spectator_view_to_wire(state: GameState, *, chops: bool = True) -> bytes:
    """`view_to_wire(view(state, SPECTATOR), state)` — the view every answer carries — without
    the engine's `view` and its checks: a spectator sees no hand, the rest is the state's
    public fields. tests/codec/ proves the bytes equal the mapping's of the engine's view for
    every state of random matches of every preset, so a change of what `view` shows a
    spectator fails there. `chops`: whether the host's chop seats may be shown (RULES §9.5)."""
    return _view_wire(state, SPECTATOR, 0, chops)


def view_to_wire(seat_view: SeatView, state: GameState, *, chops: bool = True) -> bytes:
    """The bytes of `view_to_pb(seat_view, state, chops=chops)`: the seat's own hand, and the
    public table read straight from `state`, in `TABLE_VIEW`'s order (`SeatView`'s other fields
    are the state's by the engine's `view`, which tests/codec/ holds this to), with the
    table's people (RULES §9)."""
    return _view_wire(state, seat_view.seat, seat_view.hand, chops)


def _view_wire(state: GameState, viewer: int, hand: int, chops: bool) -> bytes:
    """The view of `viewer` (SPECTATOR: no seat, no hand) holding `hand`, from one record: the
    state, its fields taken at once (a named tuple's fields one by one cost a call each)."""
    (
        rules,
        hands,
        _dealt,
        to_act,
        must_include,
        table,
        table_seat,
        passed,
        _chain,
        _chain_victim_out,
        places,
        frozen,
        unplayed,
        _chop_payments,
        first_game,
        steal_open,
        _instant_winner,
        _instant_pattern,
        _compensation_seat,
        _winning_play,
        moves,
        match,
        timeouts,
        auto,
        departed,
        forfeited,
    ) = state
    rules_record, follow_rules_record = _rules_wire(rules)
    out: list[bytes] = []
    if viewer >= 0:  # optional: a seat 0 viewer is still present on the wire
        out += (_TV_SEAT, VARINTS[viewer], _TV_HAND.encode(hand))
    counts = tuple(map(int.bit_count, hands))
    out += (_TV_PLAYERS, VARINTS[len(counts)], rules_record)  # a table of 2 to 4
    statuses = _STATUSES
    # A live table's people (RULES §9): each seat's facts, or none for a table without ids,
    # bankrolls, time-outs or leavers (the statuses of earlier releases).
    people = (
        _people(len(hands), match, timeouts, auto, departed, forfeited)
        if auto or departed or timeouts or match.bankrolls or match.player_ids
        else ()
    )
    flags = (
        _SEAT_FLAGS[passed | frozen << 4 | unplayed << 8]
        if (passed | frozen | unplayed) < 16
        else _seat_flags(passed, frozen, unplayed)
    )
    # Each seat's record by what it says, the keys made by zip (no tuple built per seat here);
    # a live table's people (RULES §9) add their facts to the key.
    totals = match.totals
    keys = (
        zip(_SEATS, counts, places, flags, totals, people, strict=False)
        if people
        else zip(_SEATS, counts, places, flags, totals, strict=False)
    )
    for key in keys:  # 4 seats at most
        record = statuses.get(key)
        out.append(_status_record(*key) if record is None else record)
    if table is not None:
        combo = combination_wire(table.kind, table.length, table.top, table.cards)
        out += (_TV_TABLE, VARINTS[len(combo)], combo)  # at most 13 cards
        if table_seat >= 0:
            out += (_TV_TABLE_SEAT, VARINTS[table_seat])
    over = to_act < 0
    if not over:
        out += (_TV_TO_ACT, VARINTS[to_act])
    if must_include >= 0:
        out.append(_TV_MUST_INCLUDE[must_include])
    if over:
        out.append(_TV_FINISHED)
    if first_game:
        out.append(_TV_FIRST_GAME)
    game_number = match.game_number
    if game_number:
        out += (
            _TV_GAME_NUMBER,
            (VARINTS[game_number] if 0 < game_number < VARINT_TABLE else varint(game_number)),
        )
    dealer = match.dealer
    if dealer:
        out += (_TV_DEALER, VARINTS[dealer] if 0 < dealer < VARINT_TABLE else varint(dealer))
    played = state.played
    record = _PLAYED.get(played)
    if record is None:
        record = _played_record(played)
    out.append(record)
    if steal_open:
        out.append(_TV_STEAL_OPEN)
    if moves:
        out += (_TV_MOVE_COUNT, (VARINTS[moves] if 0 < moves < VARINT_TABLE else varint(moves)))
    out.append(follow_rules_record)
    if table is not None and not over:
        opened = rules.open_tables.get(table.cards)  # `chop_open`'s memo, read here first
        if opened or (opened is None and chop_open(state)):
            out += chop_records(state, _TV_CHOP_SEATS, _TV_CHOP_OPEN, host=chops and viewer < 0)
    if match.replayed:
        out.append(_TV_REPLAYED)
    return b"".join(out)


def chop_records(
    state: GameState, seats_tag: bytes, open_record: bytes, *, host: bool
) -> tuple[bytes, ...]:
    """The records of a play on the table that a bomb could chop out of turn (RULES §9.5): the
    seats that could (`chop_seats`, told to the host only, and only when there are some),
    then the public `chop_open` flag; the same fields in the view and in the answer."""
    seats = chop_seats(state) if host else ()
    if seats:
        return seats_tag, VARINTS[len(seats)], bytes(seats), open_record
    return (open_record,)


#: A seat's table facts (RULES §9) in a status key: on auto, left, forfeited, its player id, its
#: time-outs in a row, its bankroll (None: none given).
_People: TypeAlias = tuple[int, int, int, str, int, int | None]
_NOBODY: Final[_People] = (0, 0, 0, "", 0, None)


def _people(
    players: int,
    match: Match,
    timeouts: tuple[int, ...],
    auto: int,
    departed: int,
    forfeited: int,
) -> tuple[_People, ...]:
    """Each seat's table facts (for a table that has some)."""
    ids, bankrolls = match.player_ids, match.bankrolls
    return tuple(
        (
            auto >> s & 1,
            departed >> s & 1,
            forfeited >> s & 1,
            ids[s] if ids else "",
            timeouts[s] if timeouts else 0,
            bankrolls[s] if bankrolls else None,
        )
        for s in range(players)
    )


# The `played` records of the cards played lately (a pass leaves them as they were).
_PLAYED: Final[dict[int, bytes]] = {}
_PLAYED_SIZE: Final = 4096


def _played_record(played: int) -> bytes:
    record = _TV_PLAYED.encode(played)
    if len(_PLAYED) >= _PLAYED_SIZE:
        _PLAYED.clear()
    _PLAYED[played] = record
    return record


# The `seats` records already written, by what they say: from one move to the next most seats
# do not change (a move changes one seat's count, pass or place), so a view is mostly lookups.
_STATUSES: Final[dict[tuple[object, ...], bytes]] = {}
_STATUSES_SIZE: Final = 16384
_SEATS: Final = range(MAX_PLAYERS)
# A seat's three flags in one small int: passed 1, frozen 2, has not played 4.
_PASSED, _FROZEN, _UNPLAYED = 1, 2, 4


def _seat_flags(passed: int, frozen: int, unplayed: int) -> tuple[int, ...]:
    """Each seat's flags, from the three seat masks."""
    return tuple(
        (passed >> s & 1) * _PASSED | (frozen >> s & 1) * _FROZEN | (unplayed >> s & 1) * _UNPLAYED
        for s in _SEATS
    )


# By the three masks of a table of up to four seats (passed | frozen << 4 | unplayed << 8).
_SEAT_FLAGS: Final = tuple(
    _seat_flags(k & 15, k >> 4 & 15, k >> 8) for k in range(1 << 3 * MAX_PLAYERS)
)


def _status_record(
    s: int, cards_left: int, place: int, flags: int, total: int, people: _People = _NOBODY
) -> bytes:
    """One `seats` record of a TableView (tag, length, SeatStatus in `SEAT_STATUS`'s order),
    remembered. An empty seat (place -1 in the engine) has place 0 and `empty` on the wire."""
    auto, left, forfeited, player_id, timeouts, bankroll = people
    name = player_id.encode()
    status = b"".join(
        (
            _SS_SEAT[s],
            _SS_CARDS_LEFT[cards_left],
            _SS_PLACE[max(place, 0)],
            _SS_PASSED if flags & _PASSED else b"",
            _SS_FROZEN if flags & _FROZEN else b"",
            b"" if flags & _UNPLAYED or place == EMPTY_SEAT else _SS_HAS_PLAYED,
            int_field(_SS_MATCH_TOTAL, total),
            _SS_EMPTY if place == EMPTY_SEAT else b"",
            _SS_AUTO if auto else b"",
            _SS_LEFT if left else b"",
            _SS_FORFEITED if forfeited else b"",
            _SS_PLAYER_ID + varint(len(name)) + name if name else b"",
            int_field(_SS_TIMEOUTS, timeouts),
            b"" if bankroll is None else _SS_BANKROLL + varint(bankroll),
        )
    )
    record = _TV_SEATS + varint(len(status)) + status
    if len(_STATUSES) >= _STATUSES_SIZE:
        _STATUSES.clear()
    key = (s, cards_left, place, flags, total)
    _STATUSES[key if people is _NOBODY else (*key, people)] = record
    return record
