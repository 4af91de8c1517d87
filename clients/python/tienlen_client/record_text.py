"""The text form of game records (docs/RECORDS.md): `game_text` writes one game, `parse_games`
reads every game of a text. Meant for people as much as programs::

    [Event "Tết at home"]
    [Date "2026.02.17"]
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

A `RecordParseError` names the line and column of the first problem: a tag given twice, a card
that does not exist or is dealt twice, a seat not at the table, a file cut short. Tags the
format does not use for the game (`Event`, `Site`, `Date`, `Round`, `Annotator`, or any other
a program adds, as PGN users do) are kept, in `GameRecord.tags`, and written back.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

from tienlen.v1 import settlement_pb2
from tienlen_client.cards import RANKS, SUITS, CardTextError, card
from tienlen_client.models import Transfer
from tienlen_client.record import (
    MAX_MOVES,
    MAX_PLAYERS,
    MAX_TEXT_BYTES,
    GameRecord,
    RecordedMove,
    RecordParseError,
    RecordResult,
)

HEADER_TAGS: Final = (
    "Variant",
    "Option",
    "Players",
    "Dealer",
    "Leader",
    "FirstGame",
    "Game",
    "Replayed",
)
RESULT_TAGS: Final = ("Result", "Places", "Transfer", "Net")
#: Tags of the record's own (not the game's), written first and in this order when present:
#: what the event was, where and when it was played (PGN's `YYYY.MM.DD`, `??` for an unknown
#: part), which round of the event, and who wrote the record down.
STANDARD_TAGS: Final = ("Event", "Site", "Date", "Round", "Annotator")
_SEAT_TAGS: Final = ("Name", "Hand")
_TRANSFER_REASONS: Final = tuple(
    name.removeprefix("TRANSFER_REASON_")
    for name in settlement_pb2.TransferReason.keys()  # noqa: SIM118 - an enum wrapper, not a dict
    if name != "TRANSFER_REASON_UNSPECIFIED"
)
_TAG_LINE: Final = re.compile(r'\[\s*([A-Za-z][A-Za-z0-9]*)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')
_MOVE_LINE: Final = re.compile(r"(\d+)\.\s+(-?\d+)\s*:\s*(.*?)\s*$")
_DATE: Final = re.compile(r"(\d{4}|\?{4})\.(\d{2}|\?{2})\.(\d{2}|\?{2})")


def ordered_tags(
    tags: Iterator[tuple[str, str]] | tuple[tuple[str, str], ...],
) -> tuple[tuple[str, str], ...]:
    """A record's own tags in their written order: the standard ones first (`STANDARD_TAGS`
    order), then the others as given."""
    given = tuple(tags)
    standard = sorted(
        (t for t in given if t[0] in STANDARD_TAGS), key=lambda t: STANDARD_TAGS.index(t[0])
    )
    return (*standard, *(t for t in given if t[0] not in STANDARD_TAGS))


# --- the writer -------------------------------------------------------------------------------


def game_text(record: GameRecord) -> str:
    """One game's text: tags, a blank line, the moves, a blank line, the result. `parse_games`
    reads it back to an equal record."""
    lines = [_tag(name, value) for name, value in ordered_tags(record.tags)]
    lines.append(_tag("Variant", record.variant))
    lines += [_tag("Option", f"{name}={value}") for name, value in record.options]
    lines += [
        _tag("Players", str(record.players)),
        _tag("Dealer", str(record.dealer)),
        _tag("Leader", str(record.leader)),
        _tag("FirstGame", "true" if record.first_game else "false"),
        _tag("Game", str(record.game_number)),
        _tag("Totals", " ".join(map(str, record.match_totals))),
    ]
    if record.replayed:
        lines.append(_tag("Replayed", "true"))
    lines += [_tag(f"Name{seat}", name) for seat, name in enumerate(record.names)]
    lines += [_tag(f"Hand{seat}", " ".join(hand)) for seat, hand in enumerate(record.hands)]
    lines.append("")
    for number, move in enumerate(record.moves, 1):
        lines.append(f"{number}. {move.seat}: {' '.join(move.cards) or 'pass'}")
    if record.moves:
        lines.append("")
    if record.result is None:
        lines.append(_tag("Result", "unfinished"))
    else:
        lines.append(_tag("Result", "over"))
        lines.append(_tag("Places", " ".join(map(str, record.result.places))))
        lines += [_tag("Transfer", _transfer_text(t)) for t in record.result.transfers]
        lines.append(_tag("Net", " ".join(map(str, record.result.net))))
    return "\n".join(lines) + "\n"


def _tag(name: str, value: str) -> str:
    """A tag line; a backslash or a double quote in the value is escaped with a backslash."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{escaped}"]'


def _transfer_text(t: Transfer) -> str:
    return " ".join((str(t.payer), str(t.payee), str(t.amount), t.reason, *t.cards))


# --- the reader -------------------------------------------------------------------------------


@dataclass
class _Draft:
    """A game being read: its tags (with where they were), moves and result lines."""

    line: int
    tags: dict[str, tuple[str, int, int]] = field(default_factory=dict)
    options: list[tuple[str, str]] = field(default_factory=list)
    moves: list[tuple[RecordedMove, int, int]] = field(default_factory=list)
    result: dict[str, tuple[str, int, int]] = field(default_factory=dict)
    transfers: list[tuple[str, int, int]] = field(default_factory=list)
    own: list[tuple[str, str]] = field(default_factory=list)  # the record's own tags
    phase: str = "tags"  # tags -> moves -> result


def _lines(text: str) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(text.split("\n"), 1):
        yield number, line.rstrip("\r")


def parse_games(text: str) -> list[tuple[GameRecord, int]]:
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
    if not _known_header(name) and _seat_tag(name):
        raise RecordParseError(
            number,
            name_column,
            f"[{name}]: the seat tags are Name0..Name{MAX_PLAYERS - 1} and"
            f" Hand0..Hand{MAX_PLAYERS - 1}",
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
    if name in draft.tags or any(name == own for own, _ in draft.own):
        raise RecordParseError(number, name_column, f"[{name}] given twice")
    if _known_header(name):
        draft.tags[name] = (value, number, value_column)
        return
    if name == "Date" and not _DATE.fullmatch(value.strip()):
        raise RecordParseError(number, value_column, 'a Date is "YYYY.MM.DD" ("??" for unknown)')
    draft.own.append((name, value))  # a record's own tag (Event, Site, ...): kept as it is


def _seat_tag(name: str) -> bool:
    """Whether `name` is a seat tag's name with any number (`Hand7`)."""
    return any(name != name.removeprefix(p) and name.removeprefix(p).isdigit() for p in _SEAT_TAGS)


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


def _flag(tags: dict[str, tuple[str, int, int]], name: str, *, default: bool) -> bool:
    """A `true` / `false` tag's value (`default` when the tag is absent)."""
    if name not in tags:
        return default
    value, line, col = tags[name]
    text = value.strip().lower()
    if text not in ("true", "false"):
        raise RecordParseError(line, col, f'{name} is "true" or "false"')
    return text == "true"


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
    first_game = _flag(tags, "FirstGame", default=True)
    replayed = _flag(tags, "Replayed", default=False)
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
        tags=ordered_tags(tuple(draft.own)),
        replayed=replayed,
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
        hands.append(tuple(sorted(hand, key=strength)))
    return tuple(hands)


def strength(text: str) -> int:
    """A card text's place in the deck, weakest first (3S = 0 ... 2H = 51)."""
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
