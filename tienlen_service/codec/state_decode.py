"""The payload of a state token -> the engine's GameState and game id, never trusting the bytes.

Protobuf parses them (`ParseFromString`: no hand-written code meets untrusted bytes), and
anything that does not rebuild a game the engine can index safely is a `StateDecodeError`:
the seats, cards and places are checked against the table, the table is classified again
under the game's rules, and the rules are built from the variant, the overrides and the rules
revision the game was dealt under.

A replica decodes a payload when the token is not one it made or checked lately (a state cache
miss: behind a round-robin balancer, most calls). The fields a game keeps from move to move
(the game id, the rules, the match) are then usually ones this replica serialised itself on
an earlier move of the same game (`state.game_parts`): when the payload starts and ends with
those very bytes, only the fields between (those a move changes) are parsed, and the rules
and the match are the ones already built. The split is exact: the runs are what
`encode_state` wrote, and a payload cut anywhere else leaves a truncated record, or a field a
game keeps, in the part parsed; both send it the whole way.
"""

from __future__ import annotations

from typing import Final

from google.protobuf.message import DecodeError

from tienlen.v1 import state_pb2
from tienlen_rules import (
    EMPTY_SEAT,
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
from tienlen_service.codec._layouts import GAME_STATE
from tienlen_service.codec.cards import CARD_COUNT
from tienlen_service.codec.errors import StateDecodeError
from tienlen_service.codec.rules import cached_rules
from tienlen_service.codec.state import FULL_MASK, SEAT_MASKS, game_parts
from tienlen_service.game_ids import GAME_ID_BYTES, SECRET_BYTES, GameId

# A payload of a game with a game id starts with its record: key, length, the id.
_GAME_ID_KEY: Final = GAME_STATE.tag("game_id") + bytes((GAME_ID_BYTES,))
_GAME_ID_END: Final = len(_GAME_ID_KEY) + GAME_ID_BYTES
# The fields a move changes start with the hands (always written: a table has seats).
_MOVE_START: Final = GAME_STATE.tag("hands")[:1]
_DEALT_KEY: Final = GAME_STATE.tag("dealt")[0]
_new_tuple: Final = tuple.__new__


def decode_state(payload: bytes) -> tuple[GameState, bytes]:
    """The engine state and game id of a token payload; StateDecodeError if it is not one.

    A payload whose kept runs this replica made (`state.game_parts`) has only the fields a
    move changes parsed: the ones between the head run and the tail, and a live table's
    fields between the tail and the last run (`state._payload_wire` joins them so). A
    payload cut any other way is decoded whole."""
    if payload[:2] == _GAME_ID_KEY:
        parts = game_parts(payload[2:_GAME_ID_END])
        if parts is not None:
            rules, match, _secret, runs, game_id, ending = parts
            start = len(runs[0])
            if payload.startswith(runs[0]) and payload[start : start + 1] == _MOVE_START:
                people = not payload.endswith(ending)  # a live table's fields: rarely
                body = (
                    _people_cut(payload, start, runs)
                    if people
                    else payload[start : len(payload) - len(ending)]
                )
                msg = _moved(body) if body else None
                if msg is not None:
                    masks = _seat_masks(payload, start, len(match.totals))
                    return _state(msg, rules, match, masks, people=people), game_id
    return _decode_whole(payload)


def _people_cut(payload: bytes, start: int, runs: tuple[bytes, ...]) -> bytes:
    """The fields a move changes and a live table's fields of a payload that ends with the
    last run but not right after the tail (b"": not cut so)."""
    _head, tail, last = runs
    end = len(payload) - len(last)
    if end <= start or not payload.endswith(last):
        return b""
    at = payload.rfind(tail, start, end)
    if at <= start:
        return b""
    return payload[start:at] + payload[at + len(tail) : end]


def _moved(body: bytes) -> state_pb2.GameState | None:
    """The parsed fields a move changes (and a live table's); None when they don't parse or
    hold the match: the kept fields are elsewhere than this replica puts them (decoded whole;
    the game id, rules and secret are in the runs matched at both ends)."""
    try:
        msg = state_pb2.GameState.FromString(body)
    except DecodeError:
        return None
    return None if msg.HasField("match") else msg


def _decode_whole(payload: bytes) -> tuple[GameState, bytes]:
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
    played = msg.match
    seats = len(msg.hands)
    ids, occupants, bankrolls = (
        tuple(played.player_ids[:]),
        tuple(played.occupants[:]),
        tuple(played.bankrolls[:]),
    )
    if any(len(v) not in (0, seats) for v in (ids, occupants, bankrolls)):
        raise StateDecodeError("the state's per-seat fields disagree on the number of seats")
    match = Match(
        played.game_number,
        tuple(played.totals[:]),
        played.seed if played.HasField("seed") else -1,
        played.dealer,
        ids,  # empty: nobody gave ids
        occupants,  # empty: every seat holds a player the match was dealt for
        bankrolls,
        played.replayed,
    )
    return _state(msg, rules, match), GameId(msg.game_id, msg.match_secret)


def _seat_masks(
    payload: bytes, start: int, seats: int
) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The hands and the dealt cards of a payload whose fields a move changes start at
    `start` (and parsed), read from their bytes: the first two records there, one packed
    fixed64 each per seat, as `encode_state` writes them (their keys and lengths checked;
    None when they are not so). Reading them through protobuf's containers costs ~7k."""
    width = 8 * seats
    dealt_at = start + 2 + width
    if (
        payload[start + 1] != width
        or payload[dealt_at] != _DEALT_KEY
        or payload[dealt_at + 1] != width
        or not MIN_PLAYERS <= seats <= MAX_PLAYERS
    ):
        return None
    unpack = SEAT_MASKS[seats].unpack_from
    return unpack(payload, start + 2), unpack(payload, dealt_at + 2)


def _state(
    msg: state_pb2.GameState,
    rules: RuleSet,
    match: Match,
    masks: tuple[tuple[int, ...], tuple[int, ...]] | None = None,
    *,
    people: bool = True,
) -> GameState:
    """The state of a parsed payload's fields a move changes, with its rules and match (and
    its seats' masks when already read; `people`: whether a live table's fields may be among
    them), after cheap consistency checks so that the engine never indexes out of range on it
    (the match's own per-seat fields are checked where it is read, `_decode_whole`)."""
    if masks is None:
        hands = tuple(msg.hands[:])
        dealt = tuple(msg.dealt[:])
    else:
        hands, dealt = masks
    places = tuple(msg.places[:])
    links = msg.chain
    chain = tuple((link.seat, link.cards) for link in links) if links else ()
    payments = msg.chop_payments
    to_act, table_seat, dealer = msg.to_act, msg.table_seat, match.dealer
    instant_winner, compensation_seat = msg.instant_winner, msg.compensation_seat
    must_include, table_cards = msg.must_include, msg.table
    players = len(hands)
    timeouts: tuple[int, ...] = ()
    auto = departed = forfeited = 0
    if people:  # a live table's fields (RULES §9.3, §9.4): read only where written
        timeouts = tuple(msg.timeouts[:])
        auto, departed, forfeited = msg.auto, msg.departed, msg.forfeited
        if len(timeouts) not in (0, players) or (auto | departed | forfeited) >> players:
            raise StateDecodeError("the state's per-seat fields disagree on the number of seats")
    if (
        not MIN_PLAYERS <= players <= MAX_PLAYERS
        or not len(dealt) == len(places) == len(match.totals) == players
    ):
        raise StateDecodeError("the state's per-seat fields disagree on the number of seats")
    # Cards that exist, held only among the cards dealt: then the engine's played cards, the
    # dealt masks' sum less the hands' (tests/engine/properties), are cards too, whatever else
    # a signed payload says (sums, not unions: two checks where a max per tuple took three).
    dealt_cards, held = sum(dealt), sum(hands)
    if dealt_cards > FULL_MASK or table_cards > FULL_MASK or held & ~dealt_cards:
        raise StateDecodeError("the state holds a card that does not exist or was not dealt")
    # Each seat named is one of the table's or none (-1); each place 0 (still playing), 1 to
    # `players`, or EMPTY_SEAT (a seat nobody sits in, RULES §9.1), with 2 players seated at
    # least. Set lookups: min and max over tuples cost ~5k a decode.
    named = _NAMED_SEATS[players]
    if (
        to_act not in named
        or table_seat not in named
        or dealer not in named
        or instant_winner not in named
        or compensation_seat not in named
        or (chain and (len(chain) == 1 or not all(0 <= seat < players for seat, _ in chain)))
        or not -1 <= must_include < CARD_COUNT
        or not _PLACES[players].issuperset(places)
        or (EMPTY_SEAT in places and places.count(EMPTY_SEAT) > players - MIN_PLAYERS)
    ):  # a chain is the chopped play and at least one chop
        raise StateDecodeError("the state names a seat or card that is not at the table")
    table = None
    if table_cards:
        table = _table(table_cards, rules)
        if table is None:
            raise StateDecodeError("the state's table is not a combination")
    # Positionally, in GameState's field order (a named tuple built by keywords costs ~3x;
    # tests/codec/ round-trips every state, so an order that disagrees fails there).
    state: GameState = _new_tuple(
        GameState,
        (
            rules,
            hands,
            dealt,
            to_act,
            must_include,
            table,
            table_seat,
            msg.passed,
            chain,
            msg.chain_victim_out,
            places,
            msg.frozen,
            msg.unplayed,
            tuple(ChopPayment(p.payer, p.payee, p.amount, p.cards) for p in payments)
            if payments
            else (),
            msg.first_game,
            msg.steal_open,
            instant_winner,
            msg.instant_pattern,
            compensation_seat,
            msg.winning_play,
            msg.move_count,
            match,
            timeouts,
            auto,
            departed,
            forfeited,
        ),
    )
    return state


def _table(cards: int, rules: RuleSet) -> Combination | None:
    """The combination a table's cards form under `rules` (`classify`), remembered: the same
    plays come back to the table game after game, and a miss's decode classified each anew."""
    key = (cards, id(rules))
    known = _TABLES.get(key)
    if known is not None and known[0] is rules:  # the id of this very rule set
        return known[1]
    table = classify(cards, rules)
    if len(_TABLES) >= _TABLES_SIZE:
        _TABLES.clear()
    _TABLES[key] = (rules, table)
    return table


# By number of players: the seats a state may name (or -1: none), and the places a seat may
# hold (0: still playing, 1st to last, or EMPTY_SEAT).
_NAMED_SEATS: Final = tuple(frozenset(range(-1, n)) for n in range(MAX_PLAYERS + 1))
_PLACES: Final = tuple(frozenset((EMPTY_SEAT, *range(n + 1))) for n in range(MAX_PLAYERS + 1))

# Tables classified lately, by (cards, id of the rule set), with the rule set they were for.
_TABLES: Final[dict[tuple[int, int], tuple[RuleSet, Combination | None]]] = {}
_TABLES_SIZE: Final = 4096
