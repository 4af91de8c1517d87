"""Engine values <-> protobuf messages of the contract (`tienlen.v1`).

The engine (`tienlen_rules`) never sees protobuf; this module is the one place that
translates: cards (enums on the wire, ints 0..51 in the engine), moves, combinations, events,
settlements, views, rule descriptions, and the engine `GameState` <-> the bytes inside a state
token (`tienlen.v1.GameState`: hands as 52-bit masks, rules as variant + canonical overrides, the
table as a mask that is classified again on decode).

Decoding input never trusts it: a malformed field raises `FieldError` naming the field path
(for the `BadRequest` of the error), a state that can't be rebuilt raises `StateDecodeError`.
State encode/decode and the view are on every move's hot path: the state payload and the view
are written as wire bytes by hand (`tienlen_service.wire`; tests prove them byte for byte equal
to the messages' deterministic serialisation), decoding parses with protobuf and caches rule sets
by their (variant, overrides) key, and `StateCache` remembers the states a replica has just
signed or checked, so the token of the previous move costs neither a verify nor a decode.
"""

from __future__ import annotations

import struct
import threading
from collections import OrderedDict
from functools import lru_cache
from typing import TYPE_CHECKING, Final

from google.protobuf.message import DecodeError, Message

import tienlen_rules as engine
from tienlen.v1 import (
    cards_pb2,
    events_pb2,
    game_pb2,
    moves_pb2,
    rules_pb2,
    settlement_pb2,
    state_pb2,
)
from tienlen_rules import (
    FOLLOWS_LAST_PLACE,
    OPTIONS,
    PRESET_DESCRIPTIONS,
    PRESETS,
    CardParseError,
    ChopPayment,
    Combination,
    GameState,
    Kind,
    Match,
    Move,
    OptionSpec,
    OptionType,
    RuleSet,
    Settlement,
    SetupError,
    TransferReason,
    build_rules,
    card_name,
    cards_of,
    classify,
    format_option_value,
    parse_card,
    pass_turn,
    pinned_defaults,
    play,
)
from tienlen_service.entropy import random_bytes
from tienlen_service.wire import (
    fixed64,
    int_field,
    length_delimited,
    packed_varints,
    records,
    tag,
    varint,
    zigzag,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from tienlen_rules import SeatView

CARD_COUNT: Final = 52
FULL_MASK: Final = (1 << CARD_COUNT) - 1
MAX_PLAYERS: Final = 4
GAME_ID_BYTES: Final = 16
INT64_MAX: Final = (1 << 63) - 1
#: Largest chip amount any one option may produce; leaves room (x1000) for multiplied,
#: per-card and summed payments and match totals to stay inside int64 on the wire.
MAX_OPTION_CHIPS: Final = INT64_MAX // 1_000_000

INVALID_CARD: Final = "INVALID_CARD"
INVALID_ARGUMENT: Final = "INVALID_ARGUMENT"


class FieldError(ValueError):
    """A request field that can't be read: `reason` is the ErrorInfo reason, `field` the path."""

    def __init__(self, reason: str, field: str, description: str) -> None:
        super().__init__(f"{field}: {description}")
        self.reason = reason
        self.field = field
        self.description = description


class StateDecodeError(ValueError):
    """Signed state bytes that don't rebuild a game (another version's, or inconsistent)."""


# --------------------------------------------------------------------------------------------
# Cards


def card_to_pb(card: int) -> cards_pb2.Card:
    """The wire card of engine card `card` (rank*4+suit)."""
    return cards_pb2.Card(
        rank=cards_pb2.Rank.ValueType((card >> 2) + 1),
        suit=cards_pb2.Suit.ValueType((card & 3) + 1),
    )


def cards_to_pb(mask: int) -> list[cards_pb2.Card]:
    """The cards of a set, weakest first, as wire cards."""
    return [_CARDS[c] for c in cards_of(mask)]


def card_from_pb(card: cards_pb2.Card, field: str) -> int:
    """The engine card of a wire card; FieldError(INVALID_CARD) names `field` when invalid."""
    rank = card.rank
    suit = card.suit
    if 1 <= rank <= 13 and 1 <= suit <= 4:
        return (rank - 1) * 4 + (suit - 1)
    if not 1 <= rank <= 13:
        raise FieldError(
            INVALID_CARD, f"{field}.rank", "the rank must be one of RANK_THREE..RANK_TWO"
        )
    raise FieldError(
        INVALID_CARD, f"{field}.suit", "the suit must be one of SUIT_SPADES..SUIT_HEARTS"
    )


def cards_from_pb(cards: Iterable[cards_pb2.Card], field: str) -> tuple[int, ...]:
    """Engine cards of a repeated Card field, in order, duplicates kept (the engine refuses
    them with DUPLICATE_CARD)."""
    out: list[int] = []
    for card in cards:
        rank = card.rank
        suit = card.suit
        if not (1 <= rank <= 13 and 1 <= suit <= 4):
            card_from_pb(card, f"{field}[{len(out)}]")  # raises, naming the field
        out.append((rank - 1) * 4 + (suit - 1))
    return tuple(out)


def hand_from_pb(cards: Iterable[cards_pb2.Card], field: str) -> int:
    """A hand of an explicit deal as a mask; a card listed twice is an INVALID_DEAL."""
    mask = 0
    for i, card in enumerate(cards_from_pb(cards, field)):
        bit = 1 << card
        if mask & bit:
            raise SetupError("INVALID_DEAL", f"{card_name(card)} is listed twice", f"{field}[{i}]")
        mask |= bit
    return mask


def card_from_text(text: str) -> cards_pb2.Card:
    """A wire card from card text (``3S``, ``10d``, ``TD``, ``3♠``); CardParseError if not one."""
    return card_to_pb(parse_card(text))


def card_to_text(card: cards_pb2.Card) -> str:
    """Canonical card text of a wire card (``3S``, ``10D``); CardParseError if invalid."""
    try:
        return card_name(card_from_pb(card, "card"))
    except FieldError as exc:
        raise CardParseError(f"{int(card.rank)}/{int(card.suit)}", exc.description) from None


# One message per card, treated as immutable: assigning one into a field or a repeated field
# copies it, so they are never handed out themselves (card_to_pb builds a new message).
_CARDS: Final = tuple(card_to_pb(c) for c in range(CARD_COUNT))


def _card_records(message: type[Message], field: str) -> tuple[bytes, ...]:
    """The record of one card in a `Card` field (or one element of a `repeated Card` field),
    for every card."""
    key = tag(message, field)
    return tuple(length_delimited(key, _CARDS[c].SerializeToString()) for c in range(CARD_COUNT))


def _bool_record(message: type[Message], field: str) -> bytes:
    """The field record of a `bool` field set to true."""
    return tag(message, field) + varint(1)


class _RepeatedCards:
    """Wire bytes of a `repeated Card` field holding a set of cards, weakest first: the
    concatenation of one field record per card (merging them into a message is the same as
    appending the cards to the field, as protobuf defines merging). The records are joined
    ahead of time for every byte of the 52-bit mask, so a set costs seven lookups, not a step
    per card."""

    __slots__ = ("_chunks",)

    def __init__(self, message: type[Message], field: str) -> None:
        records = _card_records(message, field)
        self._chunks = tuple(
            tuple(
                b"".join(
                    records[card]
                    for bit in range(8)
                    if byte >> bit & 1 and (card := base + bit) < CARD_COUNT
                )
                for byte in range(256)
            )
            for base in range(0, CARD_COUNT, 8)
        )

    def encode(self, mask: int) -> bytes:
        c0, c1, c2, c3, c4, c5, c6 = self._chunks
        return b"".join(
            (
                c0[mask & 255],
                c1[mask >> 8 & 255],
                c2[mask >> 16 & 255],
                c3[mask >> 24 & 255],
                c4[mask >> 32 & 255],
                c5[mask >> 40 & 255],
                c6[mask >> 48 & 255],
            )
        )


# --------------------------------------------------------------------------------------------
# Moves and combinations


def move_from_pb(move: moves_pb2.Move, seat: int, field: str = "move") -> Move:
    """The engine move of a wire move for `seat`; FieldError if neither play nor pass is set."""
    action = move.WhichOneof("action")
    if action == "play":
        return play(seat, cards_from_pb(move.play.cards, f"{field}.play.cards"))
    if action == "pass_turn":
        return pass_turn(seat)
    raise FieldError(INVALID_ARGUMENT, field, "set the move: play (with cards) or pass_turn")


def move_to_pb(move: Move) -> moves_pb2.Move:
    """The wire move of an engine move."""
    if move.is_pass:
        return moves_pb2.Move(pass_turn=moves_pb2.Pass())
    return moves_pb2.Move(play=moves_pb2.Play(cards=[_CARDS[c] for c in move.cards]))


def combination_to_pb(combo: Combination) -> moves_pb2.Combination:
    """The wire combination of an engine one (CombinationType values equal `Kind` values)."""
    return moves_pb2.Combination(
        type=moves_pb2.CombinationType.ValueType(combo.kind),
        length=combo.length,
        top=_CARDS[combo.top],
        cards=cards_to_pb(combo.cards),
    )


_CO: Final = moves_pb2.Combination
_CO_TYPE: Final = tag(_CO, "type")
_CO_LENGTH: Final = tag(_CO, "length")
_CO_TOP: Final = _card_records(_CO, "top")
_COMBINATION_CARDS: Final = _RepeatedCards(_CO, "cards")


def kind_from_pb(value: int, field: str) -> Kind | None:
    """The engine Kind of a CombinationType; None for UNSPECIFIED; FieldError if unknown."""
    if value == 0:
        return None
    try:
        return Kind(value)
    except ValueError:
        raise FieldError(INVALID_ARGUMENT, field, f"{value} is not a CombinationType") from None


# --------------------------------------------------------------------------------------------
# Rules


def rules_from_pb(spec: rules_pb2.RuleSetSpec, field: str = "rules") -> RuleSet:
    """The rule set of a RuleSetSpec; SetupError (field paths under `field`) if it can't exist."""
    variant = spec.variant or "southern"
    try:
        rules = build_rules(variant, dict(spec.options))
    except SetupError as exc:
        raise SetupError(
            exc.code, exc.message, f"{field}.{exc.field}" if exc.field else field
        ) from None
    check_amounts(rules, field)
    return rules


#: The stakes options, those that follow L last (a huge L is blamed on place_last_to_first).
_AMOUNT_OPTIONS: Final = tuple(
    sorted(
        (o for o in OPTIONS if o.type is OptionType.STAKES),
        key=lambda o: o.name in FOLLOWS_LAST_PLACE,
    )
)


def check_amounts(rules: RuleSet, field: str = "rules") -> None:
    """Refuse rules whose chip amounts could overflow the wire's int64 (AMOUNT_TOO_LARGE)."""
    for spec in _AMOUNT_OPTIONS:
        if getattr(rules, spec.name) * rules.stake > MAX_OPTION_CHIPS:
            raise SetupError(
                "AMOUNT_TOO_LARGE",
                f"option {spec.name!r} times the stake exceeds {MAX_OPTION_CHIPS} chips",
                f"{field}.options.{spec.name}",
            )


def rules_to_pb(rules: RuleSet) -> rules_pb2.RuleSetSpec:
    """The RuleSetSpec of `rules` as a client reads it: the game's overrides plus, for a game
    dealt before a default changed, the value it keeps (`revisions.pinned_defaults`). Read
    against today's defaults (DescribeRules), or sent to NewGame, it gives the rules the game
    is played by."""
    return rules_pb2.RuleSetSpec(
        variant=rules.variant,
        options=pinned_defaults(rules.variant, rules.revision) | dict(rules.overrides),
    )


def option_to_pb(spec: OptionSpec) -> rules_pb2.RuleOption:
    """DescribeRules' description of one option."""
    return rules_pb2.RuleOption(
        name=spec.name,
        type=_OPTION_TYPES[spec.type],
        default_value=format_option_value(spec.default),
        choices=list(spec.choices),
        minimum=spec.minimum,
        maximum=spec.maximum,
        description=spec.description,
    )


def variants_to_pb() -> list[rules_pb2.Variant]:
    """Every preset with every option's value and its overrides of the Southern defaults."""
    variants = []
    for name in PRESETS:
        rules = build_rules(name)
        values = rules.option_values()
        variants.append(
            rules_pb2.Variant(
                name=name,
                description=PRESET_DESCRIPTIONS.get(name, ""),
                option_values=[
                    rules_pb2.OptionValue(name=k, value=format_option_value(v))
                    for k, v in values.items()
                ],
                overrides=[
                    rules_pb2.OptionValue(name=k, value=format_option_value(v))
                    for k, v in values.items()
                    if v != _SOUTHERN_VALUES[k]
                ],
            )
        )
    return variants


_OPTION_TYPES: Final = {
    OptionType.BOOL: rules_pb2.OPTION_TYPE_BOOL,
    OptionType.INT: rules_pb2.OPTION_TYPE_INT,
    OptionType.STAKES: rules_pb2.OPTION_TYPE_STAKES,
    OptionType.CHOICE: rules_pb2.OPTION_TYPE_CHOICE,
}
_SOUTHERN_VALUES: Final = build_rules("southern").option_values()


@lru_cache(maxsize=512)
def _cached_rules(variant: str, overrides: tuple[tuple[str, str], ...], revision: int) -> RuleSet:
    """Rules of a decoded state, memoised: a state names the same few rule sets again and again."""
    return build_rules(variant, dict(overrides), revision)


# --------------------------------------------------------------------------------------------
# State <-> token payload


def encode_state(state: GameState, game_id: bytes) -> bytes:
    """The deterministic serialisation of an engine state (the payload of a state token): the
    bytes of a `tienlen.v1.GameState` message, written by hand (`tienlen_service.wire`; a
    test proves them equal to the message's deterministic serialisation)."""
    match = state.match
    hands, dealt, places = state.hands, state.dealt, state.places
    table = state.table
    players = len(hands)
    fixed = _packed_fixed64(players)
    out = [
        _GS_GAME_ID + varint(len(game_id)) + game_id if game_id else b"",
        _rules_payload(state.rules),
        _GS_HANDS,
        varint(8 * players),
        fixed.pack(*hands),
        _GS_DEALT,
        varint(8 * players),
        fixed.pack(*dealt),
    ]
    if state.to_act:
        out += (_GS_TO_ACT, zigzag(state.to_act))
    if state.must_include:
        out += (_GS_MUST_INCLUDE, zigzag(state.must_include))
    if table is not None and table.cards:
        out += (_GS_TABLE, fixed64(table.cards))
    if state.table_seat:
        out += (_GS_TABLE_SEAT, zigzag(state.table_seat))
    if state.passed:
        out += (_GS_PASSED, varint(state.passed))
    for seat, cards in state.chain:
        link = int_field(_CL_SEAT, seat) + (_CL_CARDS + fixed64(cards) if cards else b"")
        out += (_GS_CHAIN, varint(len(link)), link)
    if state.chain_victim_out:
        out.append(_GS_CHAIN_VICTIM_OUT)
    out.append(packed_varints(_GS_PLACES, places))  # one per seat: written even when all 0
    if state.frozen:
        out += (_GS_FROZEN, varint(state.frozen))
    if state.unplayed:
        out += (_GS_UNPLAYED, varint(state.unplayed))
    for p in state.chop_payments:
        payment = b"".join(
            (
                _CP_PAYER + zigzag(p.payer) if p.payer else b"",
                int_field(_CP_PAYEE, p.payee),
                int_field(_CP_AMOUNT, p.amount),
                _CP_CARDS + fixed64(p.cards) if p.cards else b"",
            )
        )
        out += (_GS_CHOP_PAYMENTS, varint(len(payment)), payment)
    if state.first_game:
        out.append(_GS_FIRST_GAME)
    if state.steal_open:
        out.append(_GS_STEAL_OPEN)
    if state.instant_winner:
        out += (_GS_INSTANT_WINNER, zigzag(state.instant_winner))
    if state.instant_pattern:
        pattern = state.instant_pattern.encode()
        out += (_GS_INSTANT_PATTERN, varint(len(pattern)), pattern)
    if state.compensation_seat:
        out += (_GS_COMPENSATION_SEAT, zigzag(state.compensation_seat))
    if state.winning_play:
        out += (_GS_WINNING_PLAY, fixed64(state.winning_play))
    if state.move_count:
        out += (_GS_MOVE_COUNT, varint(state.move_count))
    totals = b"".join([zigzag(t) for t in match.totals])
    record = b"".join(
        (
            int_field(_MS_GAME_NUMBER, match.game_number),
            _MS_TOTALS + varint(len(totals)) + totals,
            _MS_SEED + varint(match.seed) if match.seed >= 0 else b"",
            int_field(_MS_DEALER, match.dealer),
        )
    )
    out += (_GS_MATCH, varint(len(record)), record)
    if state.rules.revision:  # 0 (before revisions): written as that release wrote it
        out += (_GS_RULES_REVISION, varint(state.rules.revision))
    return b"".join(out)


@lru_cache(maxsize=512)
def _rules_payload(rules: RuleSet) -> bytes:
    """A state payload's `variant` and `overrides` records, built once per rule set."""
    return state_pb2.GameState(
        variant=rules.variant,
        overrides=[rules_pb2.OptionValue(name=n, value=v) for n, v in rules.overrides],
    ).SerializeToString(deterministic=True)


@lru_cache(maxsize=MAX_PLAYERS + 1)
def _packed_fixed64(count: int) -> struct.Struct:
    return struct.Struct(f"<{count}Q")


_GS: Final = state_pb2.GameState
_GS_GAME_ID: Final = tag(_GS, "game_id")
_GS_HANDS: Final = tag(_GS, "hands")
_GS_DEALT: Final = tag(_GS, "dealt")
_GS_TO_ACT: Final = tag(_GS, "to_act")
_GS_MUST_INCLUDE: Final = tag(_GS, "must_include")
_GS_TABLE: Final = tag(_GS, "table")
_GS_TABLE_SEAT: Final = tag(_GS, "table_seat")
_GS_PASSED: Final = tag(_GS, "passed")
_GS_CHAIN: Final = tag(_GS, "chain")
_GS_CHAIN_VICTIM_OUT: Final = _bool_record(_GS, "chain_victim_out")
_GS_PLACES: Final = tag(_GS, "places")
_GS_FROZEN: Final = tag(_GS, "frozen")
_GS_UNPLAYED: Final = tag(_GS, "unplayed")
_GS_CHOP_PAYMENTS: Final = tag(_GS, "chop_payments")
_GS_FIRST_GAME: Final = _bool_record(_GS, "first_game")
_GS_STEAL_OPEN: Final = _bool_record(_GS, "steal_open")
_GS_INSTANT_WINNER: Final = tag(_GS, "instant_winner")
_GS_INSTANT_PATTERN: Final = tag(_GS, "instant_pattern")
_GS_COMPENSATION_SEAT: Final = tag(_GS, "compensation_seat")
_GS_WINNING_PLAY: Final = tag(_GS, "winning_play")
_GS_MOVE_COUNT: Final = tag(_GS, "move_count")
_GS_MATCH: Final = tag(_GS, "match")
_GS_RULES_REVISION: Final = tag(_GS, "rules_revision")
_CL_SEAT: Final = tag(state_pb2.ChainLinkState, "seat")
_CL_CARDS: Final = tag(state_pb2.ChainLinkState, "cards")
_CP_PAYER: Final = tag(state_pb2.ChopPaymentState, "payer")
_CP_PAYEE: Final = tag(state_pb2.ChopPaymentState, "payee")
_CP_AMOUNT: Final = tag(state_pb2.ChopPaymentState, "amount")
_CP_CARDS: Final = tag(state_pb2.ChopPaymentState, "cards")
_MS_GAME_NUMBER: Final = tag(state_pb2.MatchState, "game_number")
_MS_TOTALS: Final = tag(state_pb2.MatchState, "totals")
_MS_SEED: Final = tag(state_pb2.MatchState, "seed")
_MS_DEALER: Final = tag(state_pb2.MatchState, "dealer")


def decode_state(payload: bytes) -> tuple[GameState, bytes]:
    """The engine state and game id of a token payload; StateDecodeError if it is not one."""
    msg = state_pb2.GameState()
    try:
        msg.ParseFromString(payload)
    except DecodeError:
        raise StateDecodeError("the state does not parse") from None
    if msg.rules_revision < 0:
        raise StateDecodeError("the state's rules revision is negative")
    try:
        overrides = tuple((o.name, o.value) for o in msg.overrides)
        rules = _cached_rules(msg.variant, overrides, msg.rules_revision)
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
    if not 2 <= players <= MAX_PLAYERS or not len(dealt) == len(places) == len(totals) == players:
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
            match.game_number, totals, match.seed if match.HasField("seed") else -1, dealer
        ),
    )
    return state, msg.game_id


class StateCache:
    """The states a replica made or checked lately, by their state token.

    States are immutable values and `decode_state(encode_state(s, g)) == (s, g)` for every
    state (tests/test_codec.py proves it for every state of random games of every preset), so
    a token this replica produced need not be verified or decoded again: the next move of a
    game that comes back to the same replica (a PlayStream, a sticky load balancer, a single
    replica) skips both, and so do the repeated decodes of one token (every seat's GetView,
    ValidateMove then ApplyMove). A token becomes a key only once it is known good: this
    replica signed it (`encode`), or `verify` accepted it (`decode`). It stays good for the
    cache's life, because a replica's key ring is fixed when it starts (tokens.KeyRing holds
    an immutable tuple of keys). The codec knows nothing of tokens: `sign` and `verify` are
    the token codec's.

    Bounded (`size` entries, oldest first out) and safe to share between worker threads:
    reads take no lock (a dict lookup is atomic), writes do.
    """

    def __init__(self, size: int = 1024) -> None:
        if size < 1:
            raise ValueError("a state cache holds at least one state")
        self._size = size
        # An OrderedDict drops its oldest entry in O(1) (`popitem(last=False)`); a dict's
        # `next(iter(d))` walks the deleted slots at its front: ~3x the cost per insert.
        self._entries: OrderedDict[bytes, tuple[GameState, bytes]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def encode(self, state: GameState, game_id: bytes, sign: Callable[[bytes], bytes]) -> bytes:
        """The state token `sign` makes of `encode_state`, remembering the state under it."""
        token = sign(encode_state(state, game_id))
        self._remember(token, (state, game_id))
        return token

    def decode(self, token: bytes, verify: Callable[[bytes], bytes]) -> tuple[GameState, bytes]:
        """The state and game id of a state token: from memory when this replica made or
        checked it lately, else `decode_state` of the payload `verify` returns (its errors,
        and `StateDecodeError`, propagate; a refused token is not remembered)."""
        entry = self._entries.get(token) if type(token) is bytes else None
        if entry is None:
            entry = decode_state(verify(token))
            self._remember(token, entry)
        return entry

    def clear(self) -> None:
        """Forget every state (benchmarks use it to measure a decode)."""
        with self._lock:
            self._entries.clear()

    def _remember(self, token: bytes, entry: tuple[GameState, bytes]) -> None:
        if type(token) is not bytes:  # pragma: no cover - protobuf bytes fields are bytes
            return
        entries = self._entries
        with self._lock:
            entries[token] = entry
            while len(entries) > self._size:
                entries.popitem(last=False)


def new_game_id() -> bytes:
    """A fresh random game id (seat tokens are bound to it)."""
    return random_bytes(GAME_ID_BYTES)


# --------------------------------------------------------------------------------------------
# Events


def events_to_wire(events: Iterable[engine.Event]) -> bytes:
    """Wire events of engine events, in order, as the `events` records of a `GameUpdate`
    (merged into one, they append to its events). They carry public information only."""
    out: list[bytes] = []
    for event in events:
        kind, body = _event_wire(event)
        record = kind + varint(len(body)) + body
        out += (_GU_EVENTS, varint(len(record)), record)
    return b"".join(out)


def _event_wire(event: engine.Event) -> tuple[bytes, bytes]:
    """The `Event` oneof key of an engine event and the bytes of its message."""
    match event:
        case engine.Played():
            cards = event.cards
            combination = _combination_wire(event.kind, event.length, cards.bit_length() - 1, cards)
            return _EV_PLAYED, b"".join(
                (
                    int_field(_PL_SEAT, event.seat),
                    _PL_COMBINATION,
                    varint(len(combination)),
                    combination,
                    _PL_CHOP if event.chop else b"",
                    _PL_OUT_OF_TURN if event.out_of_turn else b"",
                    _PL_STEAL if event.steal else b"",
                    int_field(_PL_CARDS_LEFT, event.cards_left),
                )
            )
        case engine.Passed():
            # `held_beat` stays inside the engine: it would tell the table about a hand.
            return _EV_PASSED, int_field(_PA_SEAT, event.seat)
        case engine.TurnPassed():
            return _EV_TURN_PASSED, int_field(_TP_SEAT, event.seat)
        case engine.RoundWon():
            return _EV_ROUND_WON, int_field(_RW_SEAT, event.seat) + int_field(
                _RW_LEADER, event.leader
            )
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
        case engine.ChopSettled():
            return _EV_CHOP_SETTLED, b"".join(
                (
                    int_field(_CS_PAYER, event.payer),
                    int_field(_CS_PAYEE, event.payee),
                    int_field(_CS_AMOUNT, event.amount),
                    _CHOP_CARDS.encode(event.cards),
                    int_field(_CS_LINKS, event.links),
                )
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
        case engine.GameOver():
            return _EV_GAME_OVER, packed_varints(_GO_PLACES, event.places)
    raise TypeError(f"unknown engine event {event!r}")  # pragma: no cover - exhaustive above


_GU_EVENTS: Final = tag(game_pb2.GameUpdate, "events")
_EV: Final = events_pb2.Event
_EV_GAME_STARTED: Final = tag(_EV, "game_started")
_EV_PLAYED: Final = tag(_EV, "played")
_EV_PASSED: Final = tag(_EV, "passed")
_EV_CHOP_SETTLED: Final = tag(_EV, "chop_settled")
_EV_ROUND_WON: Final = tag(_EV, "round_won")
_EV_PLAYER_FINISHED: Final = tag(_EV, "player_finished")
_EV_PLAYERS_FROZEN: Final = tag(_EV, "players_frozen")
_EV_INSTANT_WIN: Final = tag(_EV, "instant_win")
_EV_TURN_PASSED: Final = tag(_EV, "turn_passed")
_EV_GAME_OVER: Final = tag(_EV, "game_over")
_GST_GAME_NUMBER: Final = tag(events_pb2.GameStarted, "game_number")
_GST_LEADER: Final = tag(events_pb2.GameStarted, "leader")
_GST_MUST_INCLUDE: Final = _card_records(events_pb2.GameStarted, "must_include")
_GST_FIRST_GAME: Final = _bool_record(events_pb2.GameStarted, "first_game")
_GST_DEALER: Final = tag(events_pb2.GameStarted, "dealer")
_GST_HAND_SIZES: Final = tag(events_pb2.GameStarted, "hand_sizes")
_PL_SEAT: Final = tag(events_pb2.Played, "seat")
_PL_COMBINATION: Final = tag(events_pb2.Played, "combination")
_PL_CHOP: Final = _bool_record(events_pb2.Played, "chop")
_PL_OUT_OF_TURN: Final = _bool_record(events_pb2.Played, "out_of_turn")
_PL_STEAL: Final = _bool_record(events_pb2.Played, "steal")
_PL_CARDS_LEFT: Final = tag(events_pb2.Played, "cards_left")
_PA_SEAT: Final = tag(events_pb2.Passed, "seat")
_CS_PAYER: Final = tag(events_pb2.ChopSettled, "payer")
_CS_PAYEE: Final = tag(events_pb2.ChopSettled, "payee")
_CS_AMOUNT: Final = tag(events_pb2.ChopSettled, "amount")
_CHOP_CARDS: Final = _RepeatedCards(events_pb2.ChopSettled, "cards")
_CS_LINKS: Final = tag(events_pb2.ChopSettled, "links")
_RW_SEAT: Final = tag(events_pb2.RoundWon, "seat")
_RW_LEADER: Final = tag(events_pb2.RoundWon, "leader")
_PF_SEAT: Final = tag(events_pb2.PlayerFinished, "seat")
_PF_PLACE: Final = tag(events_pb2.PlayerFinished, "place")
_PF_RANKED_LAST: Final = _bool_record(events_pb2.PlayerFinished, "ranked_last")
_FR_SEATS: Final = tag(events_pb2.PlayersFrozen, "seats")
_FR_PLACES: Final = tag(events_pb2.PlayersFrozen, "places")
_IW_SEAT: Final = tag(events_pb2.InstantWin, "seat")
_IW_PATTERN: Final = tag(events_pb2.InstantWin, "pattern")
_TP_SEAT: Final = tag(events_pb2.TurnPassed, "seat")
_GO_PLACES: Final = tag(events_pb2.GameOver, "places")


# --------------------------------------------------------------------------------------------
# Settlement


_TRANSFER_REASONS: Final = {
    TransferReason.PLACE: settlement_pb2.TRANSFER_REASON_PLACE,
    TransferReason.CHOP: settlement_pb2.TRANSFER_REASON_CHOP,
    TransferReason.ROTTEN: settlement_pb2.TRANSFER_REASON_ROTTEN,
    TransferReason.FROZEN: settlement_pb2.TRANSFER_REASON_FROZEN,
    TransferReason.INSTANT_WIN: settlement_pb2.TRANSFER_REASON_INSTANT_WIN,
    TransferReason.BLIND_THREE: settlement_pb2.TRANSFER_REASON_BLIND_THREE,
    TransferReason.ROTTEN_THREE: settlement_pb2.TRANSFER_REASON_ROTTEN_THREE,
    TransferReason.COMPENSATION: settlement_pb2.TRANSFER_REASON_COMPENSATION,
    TransferReason.CARD_COUNT: settlement_pb2.TRANSFER_REASON_CARD_COUNT,
}


def settlement_to_pb(settlement: Settlement) -> settlement_pb2.Settlement:
    """The wire settlement of a finished game."""
    return settlement_pb2.Settlement(
        transfers=[
            settlement_pb2.Transfer(
                payer=t.payer,
                payee=t.payee,
                amount=t.amount,
                reason=_TRANSFER_REASONS[t.reason],
                cards=cards_to_pb(t.cards),
            )
            for t in settlement.transfers
        ],
        net=settlement.net,
        places=settlement.places,
        rotten=[
            settlement_pb2.RottenPart(
                seat=r.seat, label=r.label, cards=cards_to_pb(r.cards), amount=r.amount
            )
            for r in settlement.rotten
        ],
        zero_sum=settlement.zero_sum,
    )


# --------------------------------------------------------------------------------------------
# Views


def view_to_wire(seat_view: SeatView, state: GameState) -> bytes:
    """The wire view of an engine view, as the bytes of a `TableView` (exactly what the
    message's deterministic serialisation gives; merged straight into an answer, it costs no
    message per seat and card). Cards of a hand come from `seat_view.hand` only (the engine's
    view holds the viewer's own hand, none for a spectator); `state` supplies only public facts
    the engine view does not carry (rules, dealer, who has played)."""
    rules_record, follow_rules_record = _rules_wire(state.rules)
    counts = seat_view.hand_counts
    viewer = seat_view.seat
    table = seat_view.table
    over = seat_view.over
    out: list[bytes] = []
    if viewer >= 0:  # optional: a seat 0 viewer is still present on the wire
        out += (_TV_SEAT, varint(viewer), _VIEW_HAND.encode(seat_view.hand))
    out += (_TV_PLAYERS, varint(len(counts)), rules_record)
    places, passed, frozen, unplayed, totals = (
        seat_view.places,
        seat_view.passed,
        seat_view.frozen,
        state.unplayed,
        seat_view.totals,
    )
    for s, cards_left in enumerate(counts):
        status = b"".join(
            (
                _SS_SEAT[s],
                _SS_CARDS_LEFT[cards_left],
                _SS_PLACE[places[s]],
                _SS_PASSED if passed >> s & 1 else b"",
                _SS_FROZEN if frozen >> s & 1 else b"",
                b"" if unplayed >> s & 1 else _SS_HAS_PLAYED,
                int_field(_SS_MATCH_TOTAL, totals[s]),
            )
        )
        out += (_TV_SEATS, varint(len(status)), status)
    if table is not None:
        combo = _combination_wire(table.kind, table.length, table.top, table.cards)
        out += (_TV_TABLE, varint(len(combo)), combo)
        if seat_view.table_seat >= 0:
            out += (_TV_TABLE_SEAT, varint(seat_view.table_seat))
    if not over:
        out += (_TV_TO_ACT, varint(seat_view.to_act))
    if seat_view.must_include >= 0:
        out.append(_TV_MUST_INCLUDE[seat_view.must_include])
    if over:
        out.append(_TV_FINISHED)
    if seat_view.first_game:
        out.append(_TV_FIRST_GAME)
    if seat_view.game_number:
        out += (_TV_GAME_NUMBER, varint(seat_view.game_number))
    if state.match.dealer:
        out += (_TV_DEALER, varint(state.match.dealer))
    out.append(_VIEW_PLAYED.encode(seat_view.played))
    if state.steal_open:
        out.append(_TV_STEAL_OPEN)
    if state.move_count:
        out += (_TV_MOVE_COUNT, varint(state.move_count))
    out.append(follow_rules_record)
    return b"".join(out)


def _combination_wire(kind: int, length: int, top: int, cards: int) -> bytes:
    """The bytes of a `Combination` message (of a table's play, or of a Played event)."""
    return b"".join(
        (
            int_field(_CO_TYPE, kind),
            int_field(_CO_LENGTH, length),
            _CO_TOP[top],
            _COMBINATION_CARDS.encode(cards),
        )
    )


@lru_cache(maxsize=512)
def _rules_wire(rules: RuleSet) -> tuple[bytes, bytes]:
    """The view's `rules` and `follow_rules` field records, built once per rule set."""
    spec = rules_to_pb(rules).SerializeToString(deterministic=True)
    follow = b"".join(
        (
            _FO_PASS_LOCKOUT if rules.pass_lockout else b"",
            _FO_LEAD_STEALING if rules.lead_stealing else b"",
            _FO_STEAL_WINNER_PAIRS_LEAD if rules.steal_winner_pairs_lead else b"",
        )
    )
    return length_delimited(_TV_RULES, spec), length_delimited(_TV_FOLLOW_RULES, follow)


_TV: Final = game_pb2.TableView
_TV_SEAT: Final = tag(_TV, "seat")
_TV_PLAYERS: Final = tag(_TV, "players")
_TV_RULES: Final = tag(_TV, "rules")
_TV_SEATS: Final = tag(_TV, "seats")
_TV_TABLE: Final = tag(_TV, "table")
_TV_TABLE_SEAT: Final = tag(_TV, "table_seat")
_TV_TO_ACT: Final = tag(_TV, "to_act")
_TV_MUST_INCLUDE: Final = _card_records(_TV, "must_include")
_TV_FINISHED: Final = _bool_record(_TV, "finished")
_TV_FIRST_GAME: Final = _bool_record(_TV, "first_game")
_TV_GAME_NUMBER: Final = tag(_TV, "game_number")
_TV_DEALER: Final = tag(_TV, "dealer")
_TV_STEAL_OPEN: Final = _bool_record(_TV, "steal_open")
_TV_MOVE_COUNT: Final = tag(_TV, "move_count")
_TV_FOLLOW_RULES: Final = tag(_TV, "follow_rules")
_FO_PASS_LOCKOUT: Final = _bool_record(game_pb2.FollowRules, "pass_lockout")
_FO_LEAD_STEALING: Final = _bool_record(game_pb2.FollowRules, "lead_stealing")
_FO_STEAL_WINNER_PAIRS_LEAD: Final = _bool_record(game_pb2.FollowRules, "steal_winner_pairs_lead")
_VIEW_HAND: Final = _RepeatedCards(_TV, "hand")
_VIEW_PLAYED: Final = _RepeatedCards(_TV, "played")
_SS: Final = game_pb2.SeatStatus
_SS_SEAT: Final = records(_SS, "seat", MAX_PLAYERS)
_SS_CARDS_LEFT: Final = records(_SS, "cards_left", CARD_COUNT + 1)
_SS_PLACE: Final = records(_SS, "place", MAX_PLAYERS + 1)
_SS_PASSED: Final = _bool_record(_SS, "passed")
_SS_FROZEN: Final = _bool_record(_SS, "frozen")
_SS_HAS_PLAYED: Final = _bool_record(_SS, "has_played")
_SS_MATCH_TOTAL: Final = tag(_SS, "match_total")
