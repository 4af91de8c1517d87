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
that does not exist or is dealt twice, a seat not at the table, a file cut short. The tags of
the table's people (RULES §9: ``Empty``, ``PlayerId0``, ``Bankrolls``, ``Timeouts``, ``Auto``)
are `record_people`'s; the host's reports are moves (``7. 2: timeout``, ``9. 3: leave``), and a
payment the loss cap cut says what was owed (``[Transfer "3 0 150 PLACE owed=200"]``). Tags the
format does not use for the game (`Event`, `Site`, `Date`, `Round`, `Annotator`, or any other
a program adds, as PGN users do) are kept, in `GameRecord.tags`, and written back.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Final

from tienlen.v1 import settlement_pb2
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
from tienlen_client.record_people import is_people_tag, people_tags, read_people
from tienlen_client.record_syntax import read_cards, strength, tag, tokens, whole, wholes

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
_SEAT_TAGS: Final = ("Name", "Hand", "PlayerId")
_TRANSFER_REASONS: Final = tuple(
    name.removeprefix("TRANSFER_REASON_")
    for name in settlement_pb2.TransferReason.keys()  # noqa: SIM118 - an enum wrapper, not a dict
    if name != "TRANSFER_REASON_UNSPECIFIED"
)
_TAG_LINE: Final = re.compile(r'\[\s*([A-Za-z][A-Za-z0-9]*)\s+"((?:[^"\\]|\\.)*)"\s*\]\s*$')
_MOVE_LINE: Final = re.compile(r"(\d+)\.\s+(-?\d+)\s*:\s*(.*?)\s*$")
_OWED: Final = "owed="
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
    lines = [tag(name, value) for name, value in ordered_tags(record.tags)]
    lines.append(tag("Variant", record.variant))
    lines += [tag("Option", f"{name}={value}") for name, value in record.options]
    lines += [
        tag("Players", str(record.players)),
        tag("Dealer", str(record.dealer)),
        tag("Leader", str(record.leader)),
        tag("FirstGame", "true" if record.first_game else "false"),
        tag("Game", str(record.game_number)),
        tag("Totals", " ".join(map(str, record.match_totals))),
    ]
    if record.replayed:
        lines.append(tag("Replayed", "true"))
    lines += [tag(f"Name{seat}", name) for seat, name in enumerate(record.names)]
    lines += people_tags(record)
    lines += [
        tag(f"Hand{seat}", " ".join(hand))
        for seat, hand in enumerate(record.hands)
        if seat not in record.empty_seats
    ]
    lines.append("")
    for number, move in enumerate(record.moves, 1):
        lines.append(f"{number}. {move.seat}: {_move_text(move)}")
    if record.moves:
        lines.append("")
    if record.result is None:
        lines.append(tag("Result", "unfinished"))
    else:
        lines.append(tag("Result", "over"))
        lines.append(tag("Places", " ".join(map(str, record.result.places))))
        lines += [tag("Transfer", _transfer_text(t)) for t in record.result.transfers]
        lines.append(tag("Net", " ".join(map(str, record.result.net))))
    return "\n".join(lines) + "\n"


def _move_text(move: RecordedMove) -> str:
    if move.timeout:
        return "timeout"
    if move.leave:
        return "leave"
    return " ".join(move.cards) or "pass"


def _transfer_text(t: Transfer) -> str:
    owed = (f"{_OWED}{t.owed}",) if t.owed else ()
    return " ".join((str(t.payer), str(t.payee), str(t.amount), t.reason, *owed, *t.cards))


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
        last = MAX_PLAYERS - 1
        raise RecordParseError(
            number,
            name_column,
            f"[{name}]: the seat tags are Name0..Name{last}, PlayerId0..PlayerId{last} and"
            f" Hand0..Hand{last}",
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
    if name in HEADER_TAGS or name == "Totals" or is_people_tag(name):
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
    seat = int(match.group(2))
    word = body.lower()
    if word in {"pass", "timeout", "leave"}:
        move = RecordedMove(seat, timeout=word == "timeout", leave=word == "leave")
        draft.moves.append((move, number, seat_column))
        return
    if not body:
        raise RecordParseError(
            number, cards_column, "a move plays cards or is 'pass', 'timeout' or 'leave'"
        )
    played = read_cards(body, number, cards_column)
    draft.moves.append((RecordedMove(seat, played), number, seat_column))


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
    players = whole(value, line, col, "Players", 2, MAX_PLAYERS)
    variant = need("Variant")[0].strip()
    if not variant:
        raise RecordParseError(tags["Variant"][1], tags["Variant"][2], "the variant is empty")
    value, line, col = need("Leader")
    leader = whole(value, line, col, "Leader", 0, players - 1)
    dealer = 0
    if "Dealer" in tags:
        value, line, col = tags["Dealer"]
        dealer = whole(value, line, col, "Dealer", 0, players - 1)
    first_game = _flag(tags, "FirstGame", default=True)
    replayed = _flag(tags, "Replayed", default=False)
    game_number = 1
    if "Game" in tags:
        value, line, col = tags["Game"]
        game_number = whole(value, line, col, "Game", 1, 2**31 - 1)
    totals = (0,) * players
    if "Totals" in tags:
        totals = wholes(*tags["Totals"], "Totals", players)
    for name in tags:
        seat = name[-1]
        if name[:-1] in _SEAT_TAGS and int(seat) >= players:
            raise RecordParseError(tags[name][1], 2, f"[{name}]: seat {seat} is not at this table")
    people = read_people(tags, players)
    hands = _hands(draft, players, people.empty_seats)
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
        empty_seats=people.empty_seats,
        player_ids=people.player_ids,
        bankrolls=people.bankrolls,
        timeouts=people.timeouts,
        auto_seats=people.auto_seats,
    )


def _hands(draft: _Draft, players: int, empty: tuple[int, ...]) -> tuple[tuple[str, ...], ...]:
    """The dealt hands, index = seat: one Hand tag per occupied seat, none for an empty one."""
    hands: list[tuple[str, ...]] = []
    seen: dict[str, int] = {}
    for seat in range(players):
        name = f"Hand{seat}"
        if seat in empty:
            if name in draft.tags:
                raise RecordParseError(
                    draft.tags[name][1], 2, f"[{name}]: seat {seat} is empty (the Empty tag)"
                )
            hands.append(())
            continue
        if name not in draft.tags:
            raise RecordParseError(draft.line, 1, f"the game has no [{name}] tag")
        value, line, col = draft.tags[name]
        hand = read_cards(value, line, col)
        if not hand:
            raise RecordParseError(line, col, f"hand {seat} is empty")
        for (_token, at), text in zip(tokens(value), hand, strict=True):
            if text in seen:
                raise RecordParseError(
                    line, col + at, f"{text} is dealt twice (also to seat {seen[text]})"
                )
            seen[text] = seat
        hands.append(tuple(sorted(hand, key=strength)))
    return tuple(hands)


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
    places = wholes(*draft.result["Places"], "Places", players)
    net = wholes(*draft.result["Net"], "Net", players)
    transfers = tuple(_read_transfer(*t, players) for t in draft.transfers)
    return RecordResult(places, transfers, net)


def _read_transfer(value: str, line: int, col: int, players: int) -> Transfer:
    parts = list(tokens(value))
    if len(parts) < 4:
        raise RecordParseError(
            line, col, 'a transfer is "payer payee amount REASON [owed=N] [cards]"'
        )
    payer = whole(parts[0][0], line, col + parts[0][1], "payer", -1, players - 1)
    payee = whole(parts[1][0], line, col + parts[1][1], "payee", 0, players - 1)
    reason = parts[3][0].upper()
    if reason not in _TRANSFER_REASONS:
        raise RecordParseError(
            line, col + parts[3][1], f"unknown reason; one of {', '.join(_TRANSFER_REASONS)}"
        )
    owed = 0
    rest = parts[4:]
    if rest and rest[0][0].lower().startswith(_OWED):
        token, at = rest.pop(0)
        owed = whole(token[len(_OWED) :], line, col + at, "owed", 1, 2**63 - 1)
    # A payment the loss cap cut (owed=) may be cut to nothing; any other is at least a chip.
    low = 0 if owed else 1
    amount = whole(
        parts[2][0], line, col + parts[2][1], "amount", low, owed - 1 if owed else 2**63 - 1
    )
    cards_ = read_cards(value[rest[0][1] :], line, col + rest[0][1]) if rest else ()
    return Transfer(payer, payee, amount, reason, cards_, owed)
