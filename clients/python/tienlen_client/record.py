"""Game records (*biên bản ván bài*): a game written down so it can be read, kept and checked.

A `GameRecord` holds everything needed to deal a game again and play it move by move: the
rules (preset and option overrides), the table (players, dealer, leader, first game or not, the
game's number in its match and the totals before it), the dealt hands, every move (a seat's
cards or a pass) and the result (places, transfers, nets). Its text form (docs/RECORDS.md) is
meant for people as much as programs::

    [Variant "southern"]
    [Players "2"]
    [Dealer "0"]
    [Leader "0"]
    [FirstGame "true"]
    [Game "1"]
    [Totals "0 0"]
    [Hand0 "3S 9S"]
    [Hand1 "4S 10S"]

    1. 0: 3S
    2. 1: 4S
    ...

    [Result "over"]
    [Places "2 1"]
    [Transfer "0 1 200 PLACE"]
    [Net "-200 200"]

`GameRecord.from_text` reads it (a `RecordParseError` names the line and column of the first
problem: an unknown tag, a card that does not exist or is dealt twice, a seat not at the table,
a file cut short); `to_text` writes it back exactly. `to_pb` / `from_pb` convert to the
contract's `tienlen.v1.GameRecord` (JSON: protobuf's mapping, `to_json` / `from_json`). A match
is a sequence of games: `MatchRecord`, games one after the other in one text.

`GameLog` is what a `Game` carries to make its record: the facts of the deal and the moves,
taken from the answers the client followed (nothing is added to the state token).
`TienLenClient.replay` has the service check a record.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

import grpc
from google.protobuf import json_format

from tienlen.v1 import cards_pb2, events_pb2, game_pb2, record_pb2, rules_pb2, settlement_pb2
from tienlen_client.cards import RANKS, SUITS, CardTextError, card, texts
from tienlen_client.errors import MoveRejected, TienLenError
from tienlen_client.models import Settlement, Transfer

if TYPE_CHECKING:
    from tienlen_client.models import Game

#: The longest record text `from_text` reads.
MAX_TEXT_BYTES: Final = 256 * 1024
#: The most moves a record may hold (the service's bound too).
MAX_MOVES: Final = 1000
#: The most seats at a table.
MAX_PLAYERS: Final = 4

RECORD_ILLEGAL_MOVE: Final = "RECORD_ILLEGAL_MOVE"
RECORD_PARSE_ERROR: Final = "RECORD_PARSE_ERROR"

HEADER_TAGS: Final = ("Variant", "Option", "Players", "Dealer", "Leader", "FirstGame", "Game")
RESULT_TAGS: Final = ("Result", "Places", "Transfer", "Net")
_SEAT_TAGS: Final = ("Name", "Hand")
_TRANSFER_REASONS: Final = tuple(
    name.removeprefix("TRANSFER_REASON_")
    for name in settlement_pb2.TransferReason.keys()  # noqa: SIM118 - an enum wrapper, not a dict
    if name != "TRANSFER_REASON_UNSPECIFIED"
)
_TAG_LINE: Final = re.compile(r'\[\s*([A-Za-z][A-Za-z0-9]*)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')
_MOVE_LINE: Final = re.compile(r"(\d+)\.\s+(-?\d+)\s*:\s*(.*?)\s*$")


class RecordParseError(TienLenError):
    """Text that is not a game record: `line` and `column` (1-based) say where, `detail` what.
    Raised by the client itself (no call is made), with code INVALID_ARGUMENT."""

    def __init__(self, line: int, column: int, detail: str) -> None:
        super().__init__(
            grpc.StatusCode.INVALID_ARGUMENT,
            RECORD_PARSE_ERROR,
            f"line {line}, column {column}: {detail}",
        )
        self.line = line
        self.column = column
        self.detail = detail


class RecordMoveRejected(MoveRejected):
    """The service refused move `move_number` (1-based) of a replayed record; `reason` is the
    rule's code (``DOES_NOT_BEAT``, ...), `field` the record field at fault."""

    def __init__(
        self,
        move_number: int,
        reason: str,
        message: str,
        metadata: dict[str, str],
        field_violations: tuple[tuple[str, str], ...],
    ) -> None:
        super().__init__(
            grpc.StatusCode.INVALID_ARGUMENT, reason, message, metadata, field_violations
        )
        self.move_number = move_number
        self.field = metadata.get("field", "")


class RecordUnavailable(TienLenError):  # noqa: N818 - a condition, as the other errors
    """The client can't write this game's record: it does not know the dealt hands (a seeded
    or random deal, with a client made without ``record_hands=True``). `client.record(game)`
    asks the service for them."""

    def __init__(self, detail: str) -> None:
        super().__init__(grpc.StatusCode.FAILED_PRECONDITION, "RECORD_UNAVAILABLE", detail)


# --- the record -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RecordedMove:
    """One move: `seat` plays `cards` (card text), or passes (`cards` empty)."""

    seat: int
    cards: tuple[str, ...] = ()

    @property
    def is_pass(self) -> bool:
        """Whether the move is a pass."""
        return not self.cards


@dataclass(frozen=True, slots=True)
class RecordResult:
    """The result a record states: each seat's `places` and `net`, and every transfer."""

    places: tuple[int, ...]
    transfers: tuple[Transfer, ...]
    net: tuple[int, ...]

    @classmethod
    def of(cls, settlement: Settlement) -> RecordResult:
        """The result of a settlement."""
        return cls(settlement.places, settlement.transfers, settlement.net)


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game from the deal to its result (`result` None: recorded before it ended).

    `options` are the rule overrides as (name, value) text pairs, sorted by name; `hands`
    the dealt hands (card text, weakest first); `match_totals` each seat's total before the
    game; `names` the players' names (empty, or one per seat)."""

    variant: str
    players: int
    dealer: int
    leader: int
    first_game: bool
    game_number: int
    match_totals: tuple[int, ...]
    hands: tuple[tuple[str, ...], ...]
    moves: tuple[RecordedMove, ...] = ()
    result: RecordResult | None = None
    options: tuple[tuple[str, str], ...] = ()
    names: tuple[str, ...] = ()

    # --- text ---------------------------------------------------------------------------------

    def to_text(self) -> str:
        """The text form (docs/RECORDS.md): tags, a blank line, the moves, a blank line, the
        result. `from_text` reads it back to an equal record."""
        lines = [_tag("Variant", self.variant)]
        lines += [_tag("Option", f"{name}={value}") for name, value in self.options]
        lines += [
            _tag("Players", str(self.players)),
            _tag("Dealer", str(self.dealer)),
            _tag("Leader", str(self.leader)),
            _tag("FirstGame", "true" if self.first_game else "false"),
            _tag("Game", str(self.game_number)),
            _tag("Totals", " ".join(map(str, self.match_totals))),
        ]
        lines += [_tag(f"Name{seat}", name) for seat, name in enumerate(self.names)]
        lines += [_tag(f"Hand{seat}", " ".join(hand)) for seat, hand in enumerate(self.hands)]
        lines.append("")
        for number, move in enumerate(self.moves, 1):
            lines.append(f"{number}. {move.seat}: {' '.join(move.cards) or 'pass'}")
        if self.moves:
            lines.append("")
        if self.result is None:
            lines.append(_tag("Result", "unfinished"))
        else:
            lines.append(_tag("Result", "over"))
            lines.append(_tag("Places", " ".join(map(str, self.result.places))))
            lines += [_tag("Transfer", _transfer_text(t)) for t in self.result.transfers]
            lines.append(_tag("Net", " ".join(map(str, self.result.net))))
        return "\n".join(lines) + "\n"

    @classmethod
    def from_text(cls, text: str) -> GameRecord:
        """The record of one game's text; RecordParseError (line, column) when it is not one."""
        games = _parse(text)
        if len(games) != 1:
            line = games[1][1] if len(games) > 1 else 1
            raise RecordParseError(
                line, 1, f"{len(games)} games in the text: read a match with MatchRecord.from_text"
            )
        return games[0][0]

    # --- the contract's message ---------------------------------------------------------------

    def to_pb(self) -> record_pb2.GameRecord:
        """The contract's `tienlen.v1.GameRecord`."""
        msg = record_pb2.GameRecord(
            rules=rules_pb2.RuleSetSpec(variant=self.variant, options=dict(self.options)),
            players=self.players,
            player_names=self.names,
            dealer=self.dealer,
            leader=self.leader,
            first_game=self.first_game,
            game_number=self.game_number,
            match_totals=self.match_totals,
            hands=[cards_pb2.Hand(cards=[card(c) for c in hand]) for hand in self.hands],
            moves=[
                record_pb2.RecordedMove(seat=m.seat, pass_turn=True)
                if m.is_pass
                else record_pb2.RecordedMove(seat=m.seat, cards=[card(c) for c in m.cards])
                for m in self.moves
            ],
        )
        if self.result is not None:
            msg.result.CopyFrom(
                record_pb2.RecordResult(
                    places=self.result.places,
                    transfers=[_transfer_pb(t) for t in self.result.transfers],
                    net=self.result.net,
                )
            )
        return msg

    @classmethod
    def from_pb(cls, msg: record_pb2.GameRecord) -> GameRecord:
        """From the contract's message (cards as text; nothing is checked here)."""
        result = None
        if msg.HasField("result"):
            result = RecordResult(
                tuple(msg.result.places),
                tuple(_transfer(t) for t in msg.result.transfers),
                tuple(msg.result.net),
            )
        return cls(
            variant=msg.rules.variant or "southern",
            players=msg.players,
            dealer=msg.dealer,
            leader=msg.leader,
            first_game=msg.first_game,
            game_number=msg.game_number
            or 1,  # unset: a match's first game, as the service reads it
            match_totals=tuple(msg.match_totals) or (0,) * min(max(msg.players, 0), MAX_PLAYERS),
            hands=tuple(texts(h.cards) for h in msg.hands),
            moves=tuple(RecordedMove(m.seat, texts(m.cards)) for m in msg.moves),
            result=result,
            options=tuple(sorted(msg.rules.options.items())),
            names=tuple(msg.player_names),
        )

    def to_json(self) -> str:
        """The record as JSON (protobuf's JSON mapping of `tienlen.v1.GameRecord`)."""
        return json_format.MessageToJson(self.to_pb())

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        """From protobuf JSON of `tienlen.v1.GameRecord` (json_format.ParseError if not)."""
        return cls.from_pb(json_format.Parse(text, record_pb2.GameRecord()))


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A match: its games in order. Its text is the games' texts, a blank line between."""

    games: tuple[GameRecord, ...]

    def to_text(self) -> str:
        """The games' texts, one after the other."""
        return "\n".join(g.to_text() for g in self.games)

    @classmethod
    def from_text(cls, text: str) -> MatchRecord:
        """Every game of the text, in order; RecordParseError (line, column) if not records."""
        return cls(tuple(game for game, _ in _parse(text)))

    def to_pb(self) -> record_pb2.MatchRecord:
        """The contract's `tienlen.v1.MatchRecord`."""
        return record_pb2.MatchRecord(games=[g.to_pb() for g in self.games])

    @classmethod
    def from_pb(cls, msg: record_pb2.MatchRecord) -> MatchRecord:
        """From the contract's message."""
        return cls(tuple(GameRecord.from_pb(g) for g in msg.games))


def _tag(name: str, value: str) -> str:
    """A tag line; a backslash or a double quote in the value is escaped with a backslash."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{escaped}"]'


def _transfer_text(t: Transfer) -> str:
    return " ".join((str(t.payer), str(t.payee), str(t.amount), t.reason, *t.cards))


def _transfer_pb(t: Transfer) -> settlement_pb2.Transfer:
    return settlement_pb2.Transfer(
        payer=t.payer,
        payee=t.payee,
        amount=t.amount,
        reason=settlement_pb2.TransferReason.Value("TRANSFER_REASON_" + t.reason),
        cards=[card(c) for c in t.cards],
    )


def _transfer(t: settlement_pb2.Transfer) -> Transfer:
    reason = settlement_pb2.TransferReason.Name(t.reason).removeprefix("TRANSFER_REASON_")
    return Transfer(t.payer, t.payee, t.amount, reason, texts(t.cards))


# --- the parser -------------------------------------------------------------------------------


@dataclass
class _Draft:
    """A game being read: its tags (with where they were), moves and result lines."""

    line: int
    tags: dict[str, tuple[str, int, int]] = field(default_factory=dict)
    options: list[tuple[str, str]] = field(default_factory=list)
    moves: list[tuple[RecordedMove, int, int]] = field(default_factory=list)
    result: dict[str, tuple[str, int, int]] = field(default_factory=dict)
    transfers: list[tuple[str, int, int]] = field(default_factory=list)
    phase: str = "tags"  # tags -> moves -> result


def _lines(text: str) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(text.split("\n"), 1):
        yield number, line.rstrip("\r")


def _parse(text: str) -> list[tuple[GameRecord, int]]:
    """Every game of a record text, with the line it starts on."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_TEXT_BYTES:
        raise RecordParseError(1, 1, f"the text is longer than {MAX_TEXT_BYTES} bytes")
    drafts: list[_Draft] = []
    last = 1
    for number, line in _lines(text):
        stripped = line.strip()
        if not stripped or stripped.startswith(";"):  # blank lines and ; comments
            continue
        last = number
        column = len(line) - len(line.lstrip()) + 1
        if stripped.startswith("["):
            _read_tag(drafts, line, number, column)
        elif stripped[0].isdigit():
            if not drafts or drafts[-1].phase == "result":
                raise RecordParseError(number, column, "a move before the game's tags")
            _read_move(drafts[-1], line, number, column)
        else:
            raise RecordParseError(
                number, column, 'expected a tag [Name "value"] or a move "1. 0: 3S"'
            )
    if not drafts:
        raise RecordParseError(last, 1, "no game in the text")
    return [(_finish(draft, last), draft.line) for draft in drafts]


def _read_tag(drafts: list[_Draft], line: str, number: int, column: int) -> None:
    match = _TAG_LINE.fullmatch(line.strip())
    if match is None:
        raise RecordParseError(
            number, column, 'a tag is [Name "value"] on one line (a closing quote or ] missing?)'
        )
    name = match.group(1)
    value = re.sub(r"\\(.)", r"\1", match.group(2))
    name_column = line.index(name) + 1
    value_column = line.index('"') + 2
    if name in RESULT_TAGS:
        if not drafts:
            raise RecordParseError(number, name_column, f"[{name}] before the game's tags")
        draft = drafts[-1]
        if name != "Result" and draft.phase != "result":
            raise RecordParseError(number, name_column, f"[{name}] must follow [Result]")
        draft.phase = "result"
        if name == "Transfer":
            draft.transfers.append((value, number, value_column))
        elif name in draft.result:
            raise RecordParseError(number, name_column, f"[{name}] given twice")
        else:
            draft.result[name] = (value, number, value_column)
        return
    if not _known_header(name):
        raise RecordParseError(
            number,
            name_column,
            f"unknown tag [{name}]; the tags are {', '.join(HEADER_TAGS)}, Totals, Name<seat>,"
            f" Hand<seat> and, after the moves, {', '.join(RESULT_TAGS)}",
        )
    if not drafts or drafts[-1].phase != "tags":
        if drafts and drafts[-1].phase == "moves":
            raise RecordParseError(
                number, name_column, f"[{name}] after the moves: the [Result] tag is missing"
            )
        drafts.append(_Draft(number))
    draft = drafts[-1]
    if name == "Option":
        option, sep, option_value = value.partition("=")
        if not sep or not option.strip():
            raise RecordParseError(number, value_column, 'an option is "name=value"')
        if any(option.strip() == o for o, _ in draft.options):
            raise RecordParseError(number, value_column, f"option {option.strip()!r} given twice")
        draft.options.append((option.strip(), option_value.strip()))
        return
    if name in draft.tags:
        raise RecordParseError(number, name_column, f"[{name}] given twice")
    draft.tags[name] = (value, number, value_column)


def _known_header(name: str) -> bool:
    if name in HEADER_TAGS or name == "Totals":
        return True
    for prefix in _SEAT_TAGS:
        seat = name.removeprefix(prefix)
        if seat != name and seat.isdigit() and len(seat) == 1 and int(seat) < MAX_PLAYERS:
            return True
    return False


def _read_move(draft: _Draft, line: str, number: int, column: int) -> None:
    match = _MOVE_LINE.fullmatch(line.strip())
    if match is None:
        raise RecordParseError(
            number, column, 'a move is "<number>. <seat>: <cards>" or "<number>. <seat>: pass"'
        )
    draft.phase = "moves"
    expected = len(draft.moves) + 1
    if int(match.group(1)) != expected:
        raise RecordParseError(number, column, f"move number {expected} expected here")
    if expected > MAX_MOVES:
        raise RecordParseError(number, column, f"more than {MAX_MOVES} moves")
    offset = column - 1
    seat_column = offset + match.start(2) + 1
    cards_column = offset + match.start(3) + 1
    body = match.group(3)
    if body.lower() == "pass":
        draft.moves.append((RecordedMove(int(match.group(2))), number, seat_column))
        return
    if not body:
        raise RecordParseError(number, cards_column, "a move plays cards or is 'pass'")
    played = _cards(body, number, cards_column)
    draft.moves.append((RecordedMove(int(match.group(2)), played), number, seat_column))


def _cards(text: str, line: int, column: int) -> tuple[str, ...]:
    """Canonical card texts of `text`, each checked; RecordParseError at the bad card."""
    out: list[str] = []
    for token, at in _tokens(text):
        try:
            wire = card(token)
        except CardTextError as exc:
            raise RecordParseError(line, column + at, str(exc)) from None
        out.append(RANKS[wire.rank - 1] + SUITS[wire.suit - 1])
    return tuple(out)


def _tokens(text: str) -> Iterator[tuple[str, int]]:
    for match in re.finditer(r"\S+", text):
        yield match.group(0), match.start()


def _int(value: str, line: int, column: int, what: str, low: int, high: int) -> int:
    try:
        number = int(value.strip())
    except ValueError:
        raise RecordParseError(line, column, f"{what} must be a whole number") from None
    if not low <= number <= high:
        raise RecordParseError(line, column, f"{what} must be {low} to {high}, not {number}")
    return number


def _ints(value: str, line: int, column: int, what: str, count: int) -> tuple[int, ...]:
    numbers = []
    for token, at in _tokens(value):
        numbers.append(_int(token, line, column + at, what, -(2**63), 2**63 - 1))
    if len(numbers) != count:
        raise RecordParseError(line, column, f"{what}: {count} numbers, one per seat")
    return tuple(numbers)


def _finish(draft: _Draft, last_line: int) -> GameRecord:
    """The record of a game read completely; RecordParseError for what is missing or wrong."""
    tags = draft.tags

    def need(name: str) -> tuple[str, int, int]:
        if name not in tags:
            raise RecordParseError(draft.line, 1, f"the game has no [{name}] tag")
        return tags[name]

    value, line, col = need("Players")
    players = _int(value, line, col, "Players", 2, MAX_PLAYERS)
    variant = need("Variant")[0].strip()
    if not variant:
        raise RecordParseError(tags["Variant"][1], tags["Variant"][2], "the variant is empty")
    value, line, col = need("Leader")
    leader = _int(value, line, col, "Leader", 0, players - 1)
    dealer = 0
    if "Dealer" in tags:
        value, line, col = tags["Dealer"]
        dealer = _int(value, line, col, "Dealer", 0, players - 1)
    first_game = True
    if "FirstGame" in tags:
        value, line, col = tags["FirstGame"]
        if value.strip().lower() not in ("true", "false"):
            raise RecordParseError(line, col, 'FirstGame is "true" or "false"')
        first_game = value.strip().lower() == "true"
    game_number = 1
    if "Game" in tags:
        value, line, col = tags["Game"]
        game_number = _int(value, line, col, "Game", 1, 2**31 - 1)
    totals = (0,) * players
    if "Totals" in tags:
        totals = _ints(*tags["Totals"], "Totals", players)
    for name in tags:
        seat = name[-1]
        if name[:-1] in _SEAT_TAGS and int(seat) >= players:
            raise RecordParseError(tags[name][1], 2, f"[{name}]: seat {seat} is not at this table")
    hands = _hands(draft, players)
    names: tuple[str, ...] = ()
    if any(f"Name{seat}" in tags for seat in range(players)):
        names = tuple(need(f"Name{seat}")[0] for seat in range(players))
    moves = []
    for move, line, col in draft.moves:
        if not 0 <= move.seat < players:
            raise RecordParseError(line, col, f"seat {move.seat} is not at this table of {players}")
        moves.append(move)
    if "Result" not in draft.result:
        raise RecordParseError(
            last_line,
            1,
            'the game ends without its [Result "over"] or [Result "unfinished"] tag:'
            " the record is cut short",
        )
    return GameRecord(
        variant=variant,
        players=players,
        dealer=dealer,
        leader=leader,
        first_game=first_game,
        game_number=game_number,
        match_totals=totals,
        hands=hands,
        moves=tuple(moves),
        result=_result(draft, players),
        options=tuple(sorted(draft.options)),
        names=names,
    )


def _hands(draft: _Draft, players: int) -> tuple[tuple[str, ...], ...]:
    hands = []
    seen: dict[str, int] = {}
    for seat in range(players):
        name = f"Hand{seat}"
        if name not in draft.tags:
            raise RecordParseError(draft.line, 1, f"the game has no [{name}] tag")
        value, line, col = draft.tags[name]
        hand = _cards(value, line, col)
        if not hand:
            raise RecordParseError(line, col, f"hand {seat} is empty")
        for (_token, at), text in zip(_tokens(value), hand, strict=True):
            if text in seen:
                raise RecordParseError(
                    line, col + at, f"{text} is dealt twice (also to seat {seen[text]})"
                )
            seen[text] = seat
        hands.append(tuple(sorted(hand, key=_strength)))
    return tuple(hands)


def _strength(text: str) -> int:
    wire = card(text)
    return (wire.rank - 1) * 4 + wire.suit - 1


def _result(draft: _Draft, players: int) -> RecordResult | None:
    value, line, col = draft.result["Result"]
    state = value.strip().lower()
    if state == "unfinished":
        extra = [n for n in draft.result if n != "Result"] + ["Transfer"] * bool(draft.transfers)
        if extra:
            raise RecordParseError(line, col, f'an "unfinished" game has no [{extra[0]}]')
        return None
    if state != "over":
        raise RecordParseError(line, col, 'Result is "over" or "unfinished"')
    for name in ("Places", "Net"):
        if name not in draft.result:
            raise RecordParseError(
                line, col, f"the result has no [{name}] tag: the record is cut short"
            )
    places = _ints(*draft.result["Places"], "Places", players)
    net = _ints(*draft.result["Net"], "Net", players)
    transfers = tuple(_read_transfer(*t, players) for t in draft.transfers)
    return RecordResult(places, transfers, net)


def _read_transfer(value: str, line: int, col: int, players: int) -> Transfer:
    tokens = list(_tokens(value))
    if len(tokens) < 4:
        raise RecordParseError(line, col, 'a transfer is "payer payee amount REASON [cards]"')
    payer = _int(tokens[0][0], line, col + tokens[0][1], "payer", -1, players - 1)
    payee = _int(tokens[1][0], line, col + tokens[1][1], "payee", 0, players - 1)
    amount = _int(tokens[2][0], line, col + tokens[2][1], "amount", 1, 2**63 - 1)
    reason = tokens[3][0].upper()
    if reason not in _TRANSFER_REASONS:
        raise RecordParseError(
            line, col + tokens[3][1], f"unknown reason; one of {', '.join(_TRANSFER_REASONS)}"
        )
    rest = value[tokens[4][1] :] if len(tokens) > 4 else ""
    cards_ = _cards(rest, line, col + tokens[4][1]) if rest else ()
    return Transfer(payer, payee, amount, reason, cards_)


# --- the record of a followed game --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameLog:
    """What the client followed of one game: the deal (its rules, table and match position as
    the deal's answer gave them, in `deal`: a record without moves or result), whether the
    dealt hands are known (`hands_known`: not for a seeded or random deal the client did not
    ask about), and every move since, from the answers' events (each move produces exactly one
    Played or Passed event). `earlier`: the records of the match's earlier games."""

    deal: GameRecord
    hands_known: bool
    moves: tuple[RecordedMove, ...] = ()
    earlier: tuple[GameRecord, ...] = ()

    @classmethod
    def dealt(
        cls,
        update: game_pb2.GameUpdate,
        hands: Sequence[Sequence[str]] | None,
        earlier: tuple[GameRecord, ...] = (),
    ) -> GameLog:
        """The log of a game just dealt (a NewGame or NextGame answer, which carries a view)."""
        view = update.view
        leader = next(
            (e.game_started.leader for e in update.events if e.HasField("game_started")),
            view.to_act,
        )
        deal = GameRecord(
            variant=view.rules.variant or "southern",
            players=view.players,
            dealer=view.dealer,
            leader=leader,
            first_game=view.first_game,
            game_number=view.game_number,
            match_totals=tuple(s.match_total for s in view.seats),
            hands=() if hands is None else tuple(_canonical(h) for h in hands),
            options=tuple(sorted(view.rules.options.items())),
        )
        return cls(deal, hands is not None, (), earlier)

    @classmethod
    def of_record(cls, record: GameRecord) -> GameLog:
        """The log of a replayed record: its deal and its moves."""
        deal = dataclasses.replace(record, moves=(), result=None)
        return cls(deal, hands_known=True, moves=record.moves)

    def followed(self, update: game_pb2.GameUpdate) -> GameLog:
        """The log after a move's answer."""
        moves = tuple(_moves(update.events))
        if not moves:
            return self
        return dataclasses.replace(self, moves=self.moves + moves)

    def with_hands(self, hands: Sequence[Sequence[str]]) -> GameLog:
        """The same log, the dealt hands known."""
        deal = dataclasses.replace(self.deal, hands=tuple(_canonical(h) for h in hands))
        return dataclasses.replace(self, deal=deal, hands_known=True)

    def record(self, settlement: Settlement | None, names: Sequence[str] = ()) -> GameRecord:
        """The game's record (RecordUnavailable when the dealt hands are unknown)."""
        if not self.hands_known:
            raise RecordUnavailable(
                "the client does not know this game's dealt hands (a seeded or random deal):"
                " make the client with record_hands=True, or ask client.record(game)"
            )
        return dataclasses.replace(
            self.deal,
            moves=self.moves,
            result=None if settlement is None else RecordResult.of(settlement),
            names=tuple(names) or self.deal.names,
        )


def _canonical(hand: Sequence[str] | str) -> tuple[str, ...]:
    tokens = hand.replace(",", " ").split() if isinstance(hand, str) else list(hand)
    return tuple(sorted((_name(card(t)) for t in tokens), key=_strength))


def _name(wire: cards_pb2.Card) -> str:
    return RANKS[wire.rank - 1] + SUITS[wire.suit - 1]


def _moves(events: Sequence[events_pb2.Event]) -> Iterator[RecordedMove]:
    for event in events:
        kind = event.WhichOneof("kind")
        if kind == "played":
            yield RecordedMove(event.played.seat, texts(event.played.combination.cards))
        elif kind == "passed":
            yield RecordedMove(event.passed.seat)


def record_of(game: Game, names: Sequence[str] = ()) -> GameRecord:
    """`game`'s record from its log (RecordUnavailable without one, or without the hands)."""
    if game.log is None:
        raise RecordUnavailable("this Game carries no log (it was not made by TienLenClient)")
    return game.log.record(game.settlement, names)


def match_record_of(game: Game) -> MatchRecord:
    """The match so far: the earlier games the client followed, then `game`."""
    if game.log is None:
        raise RecordUnavailable("this Game carries no log (it was not made by TienLenClient)")
    return MatchRecord((*game.log.earlier, record_of(game)))


def replay_error(error: TienLenError) -> TienLenError:
    """A ReplayGame refusal as raised to the caller: an illegal move becomes a
    RecordMoveRejected (a MoveRejected) with its 1-based `move_number` and the rule's reason."""
    if error.reason != RECORD_ILLEGAL_MOVE:
        return error
    meta = error.metadata
    try:
        number = int(meta.get("move_number", ""))
    except ValueError:
        return error
    return RecordMoveRejected(
        number, meta.get("move_reason", error.reason), error.message, meta, error.field_violations
    )
