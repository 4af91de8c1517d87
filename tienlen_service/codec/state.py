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
equal tokens): `state_to_pb` is the mapping, and `encode_state` writes its bytes, the fields a
move changes by hand (`_move_wire`, the codec's wire primitives), the rest by protobuf. A
state of a game dealt before rules revisions were recorded (revision 0) is written as that
release wrote it, without the field, so its replicas still read it during a rolling update. Decoding never trusts the bytes: anything that does not rebuild a game the
engine can index safely is a `StateDecodeError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, NamedTuple

from google.protobuf.message import DecodeError

from tienlen.v1 import rules_pb2, state_pb2
from tienlen_rules import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    ChopPayment,
    Combination,
    GameState,
    Match,
    RuleSet,
    SetupError,
    classify,
)
from tienlen_service.codec._wire import (
    bool_record,
    fixed64,
    int_field,
    length_delimited,
    packed_fixed64,
    packed_varints,
    sint_field,
    tag,
    varint,
)
from tienlen_service.codec.cards import CARD_COUNT
from tienlen_service.codec.errors import StateDecodeError
from tienlen_service.codec.rules import cached_rules
from tienlen_service.game_ids import SECRET_BYTES, GameId, secret_of

if TYPE_CHECKING:
    from collections.abc import Callable

FULL_MASK: Final = (1 << CARD_COUNT) - 1


def state_to_pb(state: GameState, game_id: bytes) -> state_pb2.GameState:
    """The token payload of an engine state, as a message (the pieces `encode_state` joins);
    `game_id` may carry the match's secret (`game_ids.GameId`)."""
    message = _head_pb(game_id, state.rules)
    message.MergeFrom(_move_pb(state))
    message.MergeFrom(_tail_pb(state.rules, state.match, secret_of(game_id)))
    return message


def encode_state(state: GameState, game_id: bytes) -> bytes:
    """The payload of a state token: the deterministic serialisation of `state_to_pb`.

    Written in three pieces: the fields a game keeps from move to move (its id, the rules,
    the match) are serialised by protobuf once per game (`_game_parts`), and the move's own
    fields (4-23) are written per move by `_move_wire`. A deterministic serialisation writes a
    message's fields in field-number order, each record on its own, so the pieces joined in
    order are exactly the whole message's bytes (tests/test_codec.py: every state of random
    matches of every preset and the edge values, against `state_to_pb` and the pinned
    payloads). Building the message was ~90 % of an encode (bench/README.md, issue 28)."""
    rules, match, secret = state.rules, state.match, secret_of(game_id)
    parts = _GAME_PARTS.get(game_id)
    if (
        parts is None
        or parts.rules is not rules  # a RuleSet compares by identity (cached_rules)
        or not (parts.match is match or parts.match == match)
        or parts.secret != secret
    ):
        parts = _game_parts(game_id, rules, match, secret)
    return parts.head + _move_wire(state) + parts.tail


class _GameParts(NamedTuple):
    """The serialised fields of a payload that stay the same through a game, and what they
    were made of (checked on every use: a game id alone does not pin its rules or match)."""

    rules: RuleSet
    match: Match
    secret: bytes
    head: bytes  # fields 1-3: game_id, variant, overrides
    tail: bytes  # fields 24-25 and 40: match, rules_revision, match_secret


# Games in progress on this replica, by game id; cleared when full (a miss costs one build).
_GAME_PARTS: Final[dict[bytes, _GameParts]] = {}
_GAME_PARTS_SIZE: Final = 4096


def _move_pb(state: GameState) -> state_pb2.GameState:
    """Fields 4-23: what a move changes."""
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
    )


_GS: Final = state_pb2.GameState
_GS_HANDS: Final = tag(_GS, "hands")
_GS_DEALT: Final = tag(_GS, "dealt")
_GS_TO_ACT: Final = tag(_GS, "to_act")
_GS_MUST_INCLUDE: Final = tag(_GS, "must_include")
_GS_TABLE: Final = tag(_GS, "table")
_GS_TABLE_SEAT: Final = tag(_GS, "table_seat")
_GS_PASSED: Final = tag(_GS, "passed")
_GS_CHAIN: Final = tag(_GS, "chain")
_GS_CHAIN_VICTIM_OUT: Final = bool_record(_GS, "chain_victim_out")
_GS_PLACES: Final = tag(_GS, "places")
_GS_FROZEN: Final = tag(_GS, "frozen")
_GS_UNPLAYED: Final = tag(_GS, "unplayed")
_GS_CHOP_PAYMENTS: Final = tag(_GS, "chop_payments")
_GS_FIRST_GAME: Final = bool_record(_GS, "first_game")
_GS_STEAL_OPEN: Final = bool_record(_GS, "steal_open")
_GS_INSTANT_WINNER: Final = tag(_GS, "instant_winner")
_GS_INSTANT_PATTERN: Final = tag(_GS, "instant_pattern")
_GS_COMPENSATION_SEAT: Final = tag(_GS, "compensation_seat")
_GS_WINNING_PLAY: Final = tag(_GS, "winning_play")
_GS_MOVE_COUNT: Final = tag(_GS, "move_count")
_CL_SEAT: Final = tag(state_pb2.ChainLinkState, "seat")
_CL_CARDS: Final = tag(state_pb2.ChainLinkState, "cards")
_CP_PAYER: Final = tag(state_pb2.ChopPaymentState, "payer")
_CP_PAYEE: Final = tag(state_pb2.ChopPaymentState, "payee")
_CP_AMOUNT: Final = tag(state_pb2.ChopPaymentState, "amount")
_CP_CARDS: Final = tag(state_pb2.ChopPaymentState, "cards")


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


def _move_wire(state: GameState) -> bytes:
    """The bytes of `_move_pb(state)` (deterministic), written in field-number order."""
    table = state.table
    places = state.places
    to_act, must_include, table_seat = state.to_act, state.must_include, state.table_seat
    passed, frozen, unplayed = state.passed, state.frozen, state.unplayed
    out = [
        packed_fixed64(_GS_HANDS, state.hands),
        packed_fixed64(_GS_DEALT, state.dealt),
        _TO_ACT[to_act] if to_act in _TO_ACT else sint_field(_GS_TO_ACT, to_act),
        _MUST_INCLUDE[must_include]
        if must_include in _MUST_INCLUDE
        else sint_field(_GS_MUST_INCLUDE, must_include),
        b"" if table is None else fixed64(_GS_TABLE, table.cards),
        _TABLE_SEAT[table_seat]
        if table_seat in _TABLE_SEAT
        else sint_field(_GS_TABLE_SEAT, table_seat),
        _PASSED[passed] if passed in _PASSED else int_field(_GS_PASSED, passed),
    ]
    for seat, cards in state.chain:
        link = int_field(_CL_SEAT, seat) + fixed64(_CL_CARDS, cards)
        out += (_GS_CHAIN, varint(len(link)), link)
    if state.chain_victim_out:
        out.append(_GS_CHAIN_VICTIM_OUT)
    if places and min(places) >= 0 and max(places) < 128:  # one byte each: every real place
        out += (_GS_PLACES, varint(len(places)), bytes(places))
    else:
        out.append(packed_varints(_GS_PLACES, places))
    out += (
        _FROZEN[frozen] if frozen in _FROZEN else int_field(_GS_FROZEN, frozen),
        _UNPLAYED[unplayed] if unplayed in _UNPLAYED else int_field(_GS_UNPLAYED, unplayed),
    )
    for p in state.chop_payments:
        payment = b"".join(
            (
                sint_field(_CP_PAYER, p.payer),
                int_field(_CP_PAYEE, p.payee),
                int_field(_CP_AMOUNT, p.amount),
                fixed64(_CP_CARDS, p.cards),
            )
        )
        out += (_GS_CHOP_PAYMENTS, varint(len(payment)), payment)
    if state.first_game:
        out.append(_GS_FIRST_GAME)
    if state.steal_open:
        out.append(_GS_STEAL_OPEN)
    winner, compensation = state.instant_winner, state.compensation_seat
    out.append(
        _INSTANT_WINNER[winner]
        if winner in _INSTANT_WINNER
        else sint_field(_GS_INSTANT_WINNER, winner)
    )
    if state.instant_pattern:
        out.append(length_delimited(_GS_INSTANT_PATTERN, state.instant_pattern.encode()))
    out += (
        _COMPENSATION_SEAT[compensation]
        if compensation in _COMPENSATION_SEAT
        else sint_field(_GS_COMPENSATION_SEAT, compensation),
        fixed64(_GS_WINNING_PLAY, state.winning_play),
        int_field(_GS_MOVE_COUNT, state.move_count),
    )
    return b"".join(out)


def _head_pb(game_id: bytes, rules: RuleSet) -> state_pb2.GameState:
    """Fields 1-3: the game id, the variant and the overrides."""
    return state_pb2.GameState(
        game_id=game_id,
        variant=rules.variant,
        overrides=[rules_pb2.OptionValue(name=n, value=v) for n, v in rules.overrides],
    )


def _tail_pb(rules: RuleSet, match: Match, secret: bytes) -> state_pb2.GameState:
    """Fields 24-25 and 40: the match, the rules revision and the match's secret."""
    return state_pb2.GameState(
        match=state_pb2.MatchState(
            game_number=match.game_number,
            totals=match.totals,
            seed=None if match.seed < 0 else match.seed,  # absent: a random deal
            dealer=match.dealer,
            replayed=match.replayed,  # false: not written, as before the field
        ),
        rules_revision=rules.revision,  # 0 (before revisions): not written, as then
        match_secret=secret,  # empty (a match older than secrets): not written, as then
    )


def _game_parts(game_id: bytes, rules: RuleSet, match: Match, secret: bytes) -> _GameParts:
    head = _head_pb(game_id, rules).SerializeToString(deterministic=True)
    tail = _tail_pb(rules, match, secret).SerializeToString(deterministic=True)
    parts = _GameParts(rules, match, secret, head, tail)
    if len(_GAME_PARTS) >= _GAME_PARTS_SIZE:
        _GAME_PARTS.clear()
    _GAME_PARTS[bytes(game_id)] = parts
    return parts


def decode_state(payload: bytes) -> tuple[GameState, bytes]:
    """The engine state and game id (a `GameId`: with the match's secret) of a token payload;
    StateDecodeError if it is not one."""
    msg = state_pb2.GameState()
    try:
        msg.ParseFromString(payload)
    except DecodeError:
        raise StateDecodeError("the state does not parse") from None
    if msg.rules_revision < 0:
        raise StateDecodeError("the state's rules revision is negative")
    if len(msg.match_secret) not in (0, SECRET_BYTES):
        raise StateDecodeError("the state's match secret has the wrong length")
    try:
        overrides = tuple((o.name, o.value) for o in msg.overrides)
        rules = cached_rules(msg.variant, overrides, msg.rules_revision)
    except SetupError as exc:
        raise StateDecodeError(f"the state's rules can't be built: {exc.message}") from None
    hands = tuple(msg.hands[:])
    dealt = tuple(msg.dealt[:])
    places = tuple(msg.places[:])
    match = msg.match
    totals = tuple(match.totals[:])
    chain = tuple((link.seat, link.cards) for link in msg.chain)
    to_act, table_seat, dealer = msg.to_act, msg.table_seat, match.dealer
    instant_winner, compensation_seat = msg.instant_winner, msg.compensation_seat
    # Cheap consistency checks, so the engine never indexes out of range on a state.
    players = len(hands)
    if (
        not MIN_PLAYERS <= players <= MAX_PLAYERS
        or not len(dealt) == len(places) == len(totals) == players
    ):
        raise StateDecodeError("the state's per-seat fields disagree on the number of seats")
    if max(hands) > FULL_MASK or max(dealt) > FULL_MASK or msg.table > FULL_MASK:
        raise StateDecodeError("the state holds a card that does not exist")
    if (
        min(to_act, table_seat, dealer, instant_winner, compensation_seat) < -1
        or max(to_act, table_seat, dealer, instant_winner, compensation_seat) >= players
        or (chain and not all(0 <= seat < players for seat, _ in chain))
        or len(chain) == 1  # a chain is the chopped play and at least one chop
        or not -1 <= msg.must_include < CARD_COUNT
        or not all(0 <= place <= players for place in places)  # 0: still playing
    ):
        raise StateDecodeError("the state names a seat or card that is not at the table")
    table: Combination | None = None
    if msg.table:
        table = classify(msg.table, rules)
        if table is None:
            raise StateDecodeError("the state's table is not a combination")
    state = GameState(
        rules=rules,
        hands=hands,
        dealt=dealt,
        to_act=to_act,
        must_include=msg.must_include,
        table=table,
        table_seat=table_seat,
        passed=msg.passed,
        chain=chain,
        chain_victim_out=msg.chain_victim_out,
        places=places,
        frozen=msg.frozen,
        unplayed=msg.unplayed,
        chop_payments=tuple(
            ChopPayment(p.payer, p.payee, p.amount, p.cards) for p in msg.chop_payments
        ),
        first_game=msg.first_game,
        steal_open=msg.steal_open,
        instant_winner=instant_winner,
        instant_pattern=msg.instant_pattern,
        compensation_seat=compensation_seat,
        winning_play=msg.winning_play,
        move_count=msg.move_count,
        match=Match(
            match.game_number,
            totals,
            match.seed if match.HasField("seed") else -1,
            dealer,
            match.replayed,
        ),
    )
    return state, GameId(msg.game_id, msg.match_secret)
