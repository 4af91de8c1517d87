"""The engine's GameState <-> the payload of a state token (`tienlen.v1.GameState`, state.proto).

The service keeps no state: every answer carries the whole game, signed (and maybe sealed) by
`tokens`, and the next request hands it back. The payload is the engine state nearly field for
field: hands and deals as 52-bit masks, seats as ints with -1 for "none" (zigzag `sint32`), the
rules as the variant and the canonical overrides plus the rules revision the game was dealt
under, and the table as a mask that is classified again on decode. A seeded deal keeps its
seed (`MatchState.seed`, absent for a random deal); a replayed match says so
(`MatchState.replayed`); the match's secret (`game_ids`) rides with its id (`match_secret`,
absent in a match started before secrets, whose payloads are written as then).

Encoding is protobuf's deterministic serialisation, so equal states give equal bytes (and
equal tokens): `state_to_pb` is the mapping, and `encode_state` writes its bytes in the order
`_layouts.GAME_STATE` declares, the fields a move changes by hand (`_payload_wire`, the
codec's wire primitives), those a game keeps by protobuf. A state of a game dealt before
rules revisions were recorded (revision 0) is written as that release wrote it, without the
field, so its replicas still read it during a rolling update. Decoding never trusts the
bytes: anything that does not rebuild a game the engine can index safely is a
`StateDecodeError`.
"""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Final, NamedTuple

from tienlen.v1 import rules_pb2, state_pb2
from tienlen_rules import (
    MAX_PLAYERS,
    GameState,
    Match,
    RuleSet,
)
from tienlen_service.codec._layouts import CHAIN_LINK_STATE, CHOP_PAYMENT_STATE, GAME_STATE
from tienlen_service.codec._wire import (
    VARINT_TABLE,
    VARINTS,
    fixed64,
    int_field,
    length_delimited,
    packed_varints,
    sint_field,
    varint,
)
from tienlen_service.codec.cards import CARD_COUNT
from tienlen_service.game_ids import GameId, secret_of

if TYPE_CHECKING:
    from collections.abc import Callable

    from google.protobuf.message import Message

FULL_MASK: Final = (1 << CARD_COUNT) - 1


def state_to_pb(state: GameState, game_id: bytes) -> state_pb2.GameState:
    """The token payload of an engine state, as a message (what `encode_state`'s bytes are):
    the fields a game keeps (`_game_pb`) and those a move changes (`_move_pb`); `game_id` may
    carry the match's secret (`game_ids.GameId`)."""
    message = _game_pb(game_id, state.rules, state.match, secret_of(game_id))
    message.MergeFrom(_move_pb(state))
    return message


def encode_state(state: GameState, game_id: bytes) -> bytes:
    """The payload of a state token: the deterministic serialisation of `state_to_pb`.

    `_layouts.GAME_STATE` declares the payload's fields in field-number order, each either
    kept by the game (`serialised`: the game id, the rules, the match) or changed by a move.
    The game's runs of fields are serialised by protobuf once per game (`GameParts`), and
    `_payload_wire` writes the move's fields by hand around them, in the layout's order. A
    deterministic serialisation writes a message's fields in field-number order, each record
    on its own, so the runs joined in order are exactly the whole message's bytes
    (tests/codec/: every state of random matches of every preset and the edge values, against
    `state_to_pb` and the pinned payloads). Building the message was ~90 % of an encode
    (bench/README.md, issue 28). docs/ARCHITECTURE.md says how to add a field."""
    rules, match, secret = state.rules, state.match, secret_of(game_id)
    parts = _GAME_PARTS.get(game_id)
    if (
        parts is None
        or parts.rules is not rules  # a RuleSet compares by identity (cached_rules)
        or not (parts.match is match or parts.match == match)
        or parts.secret != secret
    ):
        parts = _game_parts(game_id, rules, match, secret)
    return _payload_wire(state, parts.runs)


class GameParts(NamedTuple):
    """The serialised runs of a payload's fields that stay the same through a game, and what
    they were made of (checked on every use: a game id alone does not pin its rules or
    match)."""

    rules: RuleSet
    match: Match
    secret: bytes
    runs: tuple[bytes, ...]  # GAME_STATE's serialised runs, in order
    game_id: GameId  # the id with its secret, as a decode returns it
    ending: bytes  # the last two runs joined: how a payload of a table without people ends


# Games in progress on this replica, by game id; cleared when full (a miss costs one build).
_GAME_PARTS: Final[dict[bytes, GameParts]] = {}
_GAME_PARTS_SIZE: Final = 4096
# The layout's runs of fields a game keeps: each is serialised on its own (`_game_parts`).
_GAME_RUNS: Final = tuple(fields for serialised, fields in GAME_STATE.pieces() if serialised)
_GAME_STATE_FIELDS: Final = frozenset(GAME_STATE.fields)


#: What this replica serialised of a game lately, by its game id (None: nothing): its rules,
#: its match and the runs of fields it keeps (`state_decode` reads a payload of it faster).
#: The dict's own `get`: called on every miss, it costs no Python frame.
game_parts: Final[Callable[[bytes], GameParts | None]] = _GAME_PARTS.get


def _game_pb(game_id: bytes, rules: RuleSet, match: Match, secret: bytes) -> state_pb2.GameState:
    """The fields a game keeps from move to move (GAME_STATE's `serialised` ones)."""
    return state_pb2.GameState(
        game_id=game_id,
        variant=rules.variant,
        overrides=[rules_pb2.OptionValue(name=n, value=v) for n, v in rules.overrides],
        match=state_pb2.MatchState(
            game_number=match.game_number,
            totals=match.totals,
            seed=None if match.seed < 0 else match.seed,  # absent: a random deal
            dealer=match.dealer,
            # Absent when nobody gave them (every player of the match's first deal, no ids,
            # no bankrolls): a token of a match without seat changes keeps its bytes.
            player_ids=match.player_ids or None,
            occupants=match.occupants or None,
            bankrolls=match.bankrolls or None,
            replayed=match.replayed,
        ),
        rules_revision=rules.revision,  # 0 (before revisions): not written, as then
        match_secret=secret,  # b"" (a match older than secrets): not written, as then
    )


def _move_pb(state: GameState) -> state_pb2.GameState:
    """The fields a move changes."""
    table = state.table
    return state_pb2.GameState(
        hands=state.hands,
        dealt=state.dealt,
        to_act=state.to_act,
        must_include=state.must_include,
        table=0 if table is None else table.cards,
        table_seat=state.table_seat,
        passed=state.passed,
        chain=[state_pb2.ChainLinkState(seat=s, cards=c) for s, c in state.chain]
        if state.chain
        else None,
        chain_victim_out=state.chain_victim_out,
        places=state.places,
        frozen=state.frozen,
        unplayed=state.unplayed,
        chop_payments=[
            state_pb2.ChopPaymentState(payer=p.payer, payee=p.payee, amount=p.amount, cards=p.cards)
            for p in state.chop_payments
        ]
        if state.chop_payments
        else None,
        first_game=state.first_game,
        steal_open=state.steal_open,
        instant_winner=state.instant_winner,
        instant_pattern=state.instant_pattern,
        compensation_seat=state.compensation_seat,
        winning_play=state.winning_play,
        move_count=state.move_count,
        timeouts=state.timeouts or None,
        auto=state.auto,
        departed=state.departed,
        forfeited=state.forfeited,
    )


def _game_parts(game_id: bytes, rules: RuleSet, match: Match, secret: bytes) -> GameParts:
    whole = _game_pb(game_id, rules, match, secret)
    runs: list[bytes] = []
    for fields in _GAME_RUNS:  # each run alone: a copy of the whole without the other fields
        run: Message = state_pb2.GameState()
        run.CopyFrom(whole)
        for other in _GAME_STATE_FIELDS.difference(fields):
            run.ClearField(other)
        runs.append(run.SerializeToString(deterministic=True))
    tail, last = runs[-2:]
    kept = game_id if isinstance(game_id, GameId) else GameId(game_id, secret)
    parts = GameParts(rules, match, secret, tuple(runs), kept, tail + last)
    if len(_GAME_PARTS) >= _GAME_PARTS_SIZE:
        _GAME_PARTS.clear()
    _GAME_PARTS[bytes(game_id)] = parts
    return parts


_GS_HANDS: Final = GAME_STATE.tag("hands")
_GS_DEALT: Final = GAME_STATE.tag("dealt")
_GS_TO_ACT: Final = GAME_STATE.tag("to_act")
_GS_MUST_INCLUDE: Final = GAME_STATE.tag("must_include")
_GS_TABLE: Final = GAME_STATE.tag("table")
_GS_TABLE_SEAT: Final = GAME_STATE.tag("table_seat")
_GS_PASSED: Final = GAME_STATE.tag("passed")
_GS_CHAIN: Final = GAME_STATE.tag("chain")
_GS_CHAIN_VICTIM_OUT: Final = GAME_STATE.bool_record("chain_victim_out")
_GS_PLACES: Final = GAME_STATE.tag("places")
_GS_FROZEN: Final = GAME_STATE.tag("frozen")
_GS_UNPLAYED: Final = GAME_STATE.tag("unplayed")
_GS_CHOP_PAYMENTS: Final = GAME_STATE.tag("chop_payments")
_GS_FIRST_GAME: Final = GAME_STATE.bool_record("first_game")
_GS_STEAL_OPEN: Final = GAME_STATE.bool_record("steal_open")
_GS_INSTANT_WINNER: Final = GAME_STATE.tag("instant_winner")
_GS_INSTANT_PATTERN: Final = GAME_STATE.tag("instant_pattern")
_GS_COMPENSATION_SEAT: Final = GAME_STATE.tag("compensation_seat")
_GS_WINNING_PLAY: Final = GAME_STATE.tag("winning_play")
_GS_MOVE_COUNT: Final = GAME_STATE.tag("move_count")
_GS_TIMEOUTS: Final = GAME_STATE.tag("timeouts")
_GS_AUTO: Final = GAME_STATE.tag("auto")
_GS_DEPARTED: Final = GAME_STATE.tag("departed")
_GS_FORFEITED: Final = GAME_STATE.tag("forfeited")
_CL_SEAT: Final = CHAIN_LINK_STATE.tag("seat")
_CL_CARDS: Final = CHAIN_LINK_STATE.tag("cards")
_CP_PAYER: Final = CHOP_PAYMENT_STATE.tag("payer")
_CP_PAYEE: Final = CHOP_PAYMENT_STATE.tag("payee")
_CP_AMOUNT: Final = CHOP_PAYMENT_STATE.tag("amount")
_CP_CARDS: Final = CHOP_PAYMENT_STATE.tag("cards")


def _records(key: bytes, encode: Callable[[bytes, int], bytes], values: range) -> dict[int, bytes]:
    """The whole record of each of `values` of one field, to look up."""
    return {v: encode(key, v) for v in values}


# The records of the values nearly every state holds, looked up (other values are encoded).
_SEATS: Final = range(-1, MAX_PLAYERS)
_TO_ACT: Final = _records(_GS_TO_ACT, sint_field, _SEATS)
_MUST_INCLUDE: Final = _records(_GS_MUST_INCLUDE, sint_field, range(-1, CARD_COUNT))
_TABLE_SEAT: Final = _records(_GS_TABLE_SEAT, sint_field, _SEATS)
_INSTANT_WINNER: Final = _records(_GS_INSTANT_WINNER, sint_field, _SEATS)
_COMPENSATION_SEAT: Final = _records(_GS_COMPENSATION_SEAT, sint_field, _SEATS)
_MASKS: Final = range(1 << MAX_PLAYERS)
_PASSED: Final = _records(_GS_PASSED, int_field, _MASKS)
_FROZEN: Final = _records(_GS_FROZEN, int_field, _MASKS)
_UNPLAYED: Final = _records(_GS_UNPLAYED, int_field, _MASKS)


# The packed records of the seats' masks (hands, dealt), by the number of seats: the key and
# the length, then the masks packed at once (`packed_fixed64`'s bytes, with no call;
# `state_decode` reads them back the same way).
_FIXED64: Final = struct.Struct("<Q")
SEAT_MASKS: Final = tuple(struct.Struct(f"<{n}Q") for n in range(MAX_PLAYERS + 1))
_HANDS_KEYS: Final = tuple(_GS_HANDS + varint(8 * n) if n else b"" for n in range(MAX_PLAYERS + 1))
_DEALT_KEYS: Final = tuple(_GS_DEALT + varint(8 * n) if n else b"" for n in range(MAX_PLAYERS + 1))


def _payload_wire(state: GameState, game: tuple[bytes, ...]) -> bytes:
    """The bytes of `state_to_pb(state, ...)` (deterministic): every field in GAME_STATE's
    order, the game's runs (`game`, serialised once per game) in their places. A new field a
    move changes is written here in its place; one the game keeps goes in `_game_pb` only."""
    head, tail, last = game  # game_id, variant, overrides | match, rules_revision | match_secret
    (  # every field at once (a named tuple's fields read one by one cost a call each)
        _rules,
        hands,
        dealt,
        to_act,
        must_include,
        table,
        table_seat,
        passed,
        chain,
        chain_victim_out,
        places,
        frozen,
        unplayed,
        chop_payments,
        first_game,
        steal_open,
        winner,
        instant_pattern,
        compensation,
        winning_play,
        move_count,
        _match,
        timeouts,
        auto,
        departed,
        forfeited,
    ) = state
    seats = len(hands)  # 2 to MAX_PLAYERS: one record of `seats` fixed64s each
    pack = SEAT_MASKS[seats].pack
    out = [
        head,
        _HANDS_KEYS[seats],
        pack(*hands),
        _DEALT_KEYS[seats],
        pack(*dealt),
        _TO_ACT[to_act] if to_act in _TO_ACT else sint_field(_GS_TO_ACT, to_act),
        _MUST_INCLUDE[must_include]
        if must_include in _MUST_INCLUDE
        else sint_field(_GS_MUST_INCLUDE, must_include),
        b"" if table is None else _GS_TABLE + _FIXED64.pack(table.cards),  # a play: not 0
        _TABLE_SEAT[table_seat]
        if table_seat in _TABLE_SEAT
        else sint_field(_GS_TABLE_SEAT, table_seat),
        _PASSED[passed] if passed in _PASSED else int_field(_GS_PASSED, passed),
    ]
    for seat, cards in chain:
        link = int_field(_CL_SEAT, seat) + fixed64(_CL_CARDS, cards)
        out += (_GS_CHAIN, varint(len(link)), link)
    if chain_victim_out:
        out.append(_GS_CHAIN_VICTIM_OUT)
    if places and min(places) >= 0 and max(places) < 128:  # one byte each: every real place
        out += (_GS_PLACES, varint(len(places)), bytes(places))
    else:
        out.append(packed_varints(_GS_PLACES, places))
    out += (
        _FROZEN[frozen] if frozen in _FROZEN else int_field(_GS_FROZEN, frozen),
        _UNPLAYED[unplayed] if unplayed in _UNPLAYED else int_field(_GS_UNPLAYED, unplayed),
    )
    for p in chop_payments:
        payment = b"".join(
            (
                sint_field(_CP_PAYER, p.payer),
                int_field(_CP_PAYEE, p.payee),
                int_field(_CP_AMOUNT, p.amount),
                fixed64(_CP_CARDS, p.cards),
            )
        )
        out += (_GS_CHOP_PAYMENTS, varint(len(payment)), payment)
    if first_game:
        out.append(_GS_FIRST_GAME)
    if steal_open:
        out.append(_GS_STEAL_OPEN)
    out.append(
        _INSTANT_WINNER[winner]
        if winner in _INSTANT_WINNER
        else sint_field(_GS_INSTANT_WINNER, winner)
    )
    if instant_pattern:
        out.append(length_delimited(_GS_INSTANT_PATTERN, instant_pattern.encode()))
    out += (
        _COMPENSATION_SEAT[compensation]
        if compensation in _COMPENSATION_SEAT
        else sint_field(_GS_COMPENSATION_SEAT, compensation),
        _GS_WINNING_PLAY + _FIXED64.pack(winning_play) if winning_play else b"",
        (
            _GS_MOVE_COUNT + VARINTS[move_count]
            if 0 < move_count < VARINT_TABLE
            else int_field(_GS_MOVE_COUNT, move_count)
        )
        if move_count
        else b"",
        tail,
    )
    # A live table's people (RULES §9.3, §9.4): written only when set, so a game without
    # time-outs or leavers keeps the bytes earlier releases wrote.
    if auto or departed or timeouts:
        if timeouts:
            out.append(packed_varints(_GS_TIMEOUTS, timeouts))
        for key, mask in (
            (_GS_AUTO, auto),
            (_GS_DEPARTED, departed),
            (_GS_FORFEITED, forfeited),
        ):
            if mask:
                out.append(int_field(key, mask))
    out.append(last)
    return b"".join(out)
