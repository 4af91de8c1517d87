"""A game told move by move: one line per move and per thing that follows from it.

`Narrator.lines(events)` turns a step's `game.events` into lines: each play with its
combination, each pass, and what the step brought (a chop and its payment, a round won, a seat
going out, frozen seats (cóng), an instant win (tới trắng), the end), and at a table of people
(RULES §9) the host's reports and the seat changes: a time-out, a seat going on auto and coming
back, a player leaving during the game, a player leaving the table and a newcomer sitting down
between games. `seats_line` draws who sits where (empty seats, seats on auto, leavers), and
`settlement_lines` the settlement table, with the rotten cards (thối) and the payments the loss
cap cut. Only the events are read: the tool shows what the service says happened, and decides
nothing itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tienlen_client.cli.style import Style, ordinal
from tienlen_client.events import (
    AutoPlay,
    ChopSettled,
    Event,
    GameOver,
    GameStarted,
    InstantWin,
    Passed,
    Played,
    PlayerFinished,
    PlayerLeft,
    PlayersFrozen,
    RoundWon,
    SeatTaken,
    SeatVacated,
    TimedOut,
    TurnPassed,
    UnknownEvent,
)
from tienlen_client.models import Game, SeatInfo, Settlement

INDENT = "      "
CARDS_WIDTH = 17  # a straight of five 10s-and-up is longer: it pushes its own line only
LABEL_WIDTH = 20


@dataclass
class Narrator:
    """Tells one table's events; `names[seat]` says who sits there (a bot's name, "you")."""

    names: Sequence[str]
    style: Style = field(default_factory=Style)
    moves: int = 0

    def seat(self, seat: int) -> str:
        """``seat 2 (greedy)``, padded so that the moves line up."""
        name = self.names[seat] if 0 <= seat < len(self.names) else "?"
        width = max((len(n) for n in self.names), default=0)
        return f"seat {seat} " + self.style.paint(f"({name})", "dim") + " " * (width - len(name))

    def lines(self, events: Sequence[Event]) -> list[str]:
        """The lines of one step's events, in order."""
        out: list[str] = []
        for event in events:
            line = self.line(event)
            if line is not None:
                out.append(line)
        return out

    def line(self, event: Event) -> str | None:
        """One event's line (None: nothing worth a line, e.g. whose turn it is now)."""
        s = self.style
        if isinstance(event, Played):
            return self._played(event)
        if isinstance(event, Passed):
            self.moves += 1
            return f"{self.moves:4d}  {self.seat(event.seat)} passes"
        if isinstance(event, GameStarted):
            first = " (a first game)" if event.first_game else ""
            lead = f", with {s.card(event.must_include)}" if event.must_include else ""
            sizes = _sizes(event.hand_sizes)
            return s.paint(
                f"Game {event.game_number} dealt{first}: {sizes}; seat {event.leader} leads{lead}",
                "bold",
            )
        if isinstance(event, ChopSettled):
            return INDENT + self._chop_settled(event)
        if isinstance(event, RoundWon):
            after = "" if event.leader == event.seat else f" (it is out: seat {event.leader} leads)"
            return INDENT + s.paint(f"seat {event.seat} wins the round{after}", "dim")
        if isinstance(event, PlayerFinished):
            last = " — ranked last: finished on a 2 or a bomb" if event.ranked_last else ""
            return INDENT + s.paint(
                f"seat {event.seat} is out: {ordinal(event.place)} place{last}", "green", "bold"
            )
        if isinstance(event, PlayersFrozen):
            seats = ", ".join(f"seat {seat}" for seat in event.seats)
            places = ", ".join(ordinal(p) for p in event.places)
            return INDENT + s.paint(
                f"FROZEN (cóng): {seats} never played a card — {places} place", "cyan", "bold"
            )
        if isinstance(event, InstantWin):
            return INDENT + s.paint(
                f"INSTANT WIN (tới trắng): seat {event.seat} wins on the deal with "
                f"{event.pattern.replace('_', ' ')}",
                "magenta",
                "bold",
            )
        if isinstance(event, GameOver):
            return s.paint("Game over.", "bold")
        if isinstance(event, TimedOut):
            in_a_row = f" ({event.timeouts} in a row)" if event.timeouts > 1 else ""
            return INDENT + s.paint(f"seat {event.seat}'s time ran out{in_a_row}:", "yellow")
        if isinstance(event, AutoPlay):
            if event.on:
                return INDENT + s.paint(f"seat {event.seat} is on auto (tự động đánh)", "yellow")
            return INDENT + s.paint(f"seat {event.seat} is back: off auto", "green")
        if isinstance(event, PlayerLeft):
            return INDENT + self._left(event)
        if isinstance(event, SeatVacated):
            return s.paint(
                f"seat {event.seat}{_who(event.player_id)} leaves the table, with a final"
                f" total of {event.total:+d}",
                "magenta",
            )
        if isinstance(event, SeatTaken):
            return s.paint(
                f"a newcomer{_who(event.player_id)} sits down in seat {event.seat},"
                " with a total of 0",
                "green",
            )
        if isinstance(event, UnknownEvent):
            return INDENT + s.paint("(an event this client does not know)", "dim")
        if isinstance(event, TurnPassed):
            return None
        return None  # pragma: no cover - every kind is handled above

    def _played(self, event: Played) -> str:
        s = self.style
        self.moves += 1
        notes = []
        if event.chop:
            notes.append(s.paint("CHOP! (chặt)", "red", "bold"))
        if event.steal:
            notes.append(s.paint("steals the lead (cướp cái)", "yellow", "bold"))
        elif event.out_of_turn:
            notes.append(s.paint("out of turn", "yellow"))
        left = f"{event.cards_left} left" if event.cards_left else "no cards left"
        combination = event.combination
        cards = s.cards(combination.cards) + " " * _pad(" ".join(combination.cards), CARDS_WIDTH)
        label = s.paint(combination.label, "cyan") + " " * _pad(combination.label, LABEL_WIDTH)
        return (
            f"{self.moves:4d}  {self.seat(event.seat)} plays  {cards} {label} "
            f"{s.paint(f'{left:<13}', 'dim')} {' '.join(notes)}"
        ).rstrip()

    def _left(self, event: PlayerLeft) -> str:
        """A player who left during the game (RULES §9.4)."""
        how = (
            f"a forfeit, {ordinal(event.place)} place, its cards stay in its hand"
            if event.forfeit
            else "played out on auto until the game ends"
        )
        return self.style.paint(f"seat {event.seat}'s player left: {how}", "magenta")

    def _chop_settled(self, event: ChopSettled) -> str:
        s = self.style
        chain = f" ({event.links} chops)" if event.links > 1 else ""
        if event.payer < 0 or event.amount == 0:
            why = " (the chopped player went out with those cards)" if event.victim_out else ""
            return s.paint(
                f"the chop of {s.cards(event.cards)} costs nobody anything{chain}{why}", "dim"
            )
        return s.paint(
            f"chop paid: seat {event.payer} pays seat {event.payee} {event.amount} "
            f"for {s.cards(event.cards)}{chain}",
            "red",
        )


def _who(player_id: str) -> str:
    return f" ({player_id})" if player_id else ""


def _pad(plain: str, width: int) -> int:
    """Spaces that pad `plain` (its styled form has the same visible width) to `width`."""
    return max(0, width - len(plain))


def _sizes(sizes: Sequence[int]) -> str:
    if sizes and all(n == sizes[0] for n in sizes):
        return f"{sizes[0]} cards each"
    return "cards " + "/".join(str(n) for n in sizes)


def seats_line(seats: Sequence[SeatInfo], names: Sequence[str], style: Style) -> str:
    """Who sits where: ``seat 0: an, seat 1: (empty), seat 2: chi (on auto)``, with each seat's
    bankroll where the table plays with them."""
    parts = []
    for info in seats:
        name = names[info.seat] if info.seat < len(names) else ""
        parts.append(f"seat {info.seat}: " + _seat_state(info, name or "player", style))
    return "  " + ", ".join(parts)


def _seat_state(info: SeatInfo, name: str, style: Style) -> str:
    if info.empty:
        return style.paint("(empty)", "dim")
    marks = [
        mark
        for mark, shown in (
            ("on auto", info.auto),
            ("left", info.left and not info.forfeited),
            ("forfeited", info.forfeited),
        )
        if shown
    ]
    if info.bankroll is not None:
        marks.append(f"{info.bankroll} chips")
    return name + (style.paint(f" ({', '.join(marks)})", "dim") if marks else "")


def settlement_lines(game: Game, names: Sequence[str], style: Style) -> list[str]:
    """The settlement table of a finished game: place and net per seat, every transfer with
    its reason, the rotten cards."""
    settlement = game.settlement
    if settlement is None:
        return ["(the game has no settlement yet)"]
    s = style
    out = [s.paint("Settlement", "bold"), "  seat  player        place        net"]
    seats = game.view.seats
    for seat, (place, net) in enumerate(zip(settlement.places, settlement.net, strict=True)):
        if seat < len(seats) and seats[seat].empty:
            continue  # nobody sat there this game
        name = names[seat] if seat < len(names) else ""
        mark = _settled_mark(seats[seat]) if seat < len(seats) else ""
        colour = "green" if net > 0 else "red" if net < 0 else "dim"
        out.append(
            f"  {seat:<4}  {name:<12}  {ordinal(place):<5}{mark:<7}"
            f"{s.paint(f'{net:+6d}', colour, 'bold')}"
        )
    out += _transfer_lines(settlement, s)
    if settlement.rotten:
        out.append("  rotten cards (thối):")
        out += [
            f"    seat {r.seat} was left holding {s.cards(r.cards)} ({r.label}): {r.amount}"
            for r in settlement.rotten
        ]
    if any(t.owed for t in settlement.transfers):
        out.append(s.paint("  (cut: the loss cap, nobody pays more than its bankroll)", "dim"))
    if not settlement.zero_sum:
        out.append(s.paint("  (not zero-sum: chips came from or went to the pot)", "dim"))
    return out


def _transfer_lines(settlement: Settlement, s: Style) -> list[str]:
    if not settlement.transfers:
        return ["  no chips change hands"]
    out = ["  transfers:"]
    for t in settlement.transfers:
        payer = "nobody" if t.payer < 0 else f"seat {t.payer}"
        cards = f" {s.cards(t.cards)}" if t.cards else ""
        reason = t.reason.lower().replace("_", " ")
        cut = f" (cut: {t.owed} owed)" if t.owed else ""
        out.append(f"    {payer:>7} pays seat {t.payee} {t.amount:>5} for {reason}{cards}{cut}")
    return out


def _settled_mark(info: SeatInfo) -> str:
    """A seat's mark in the settlement table: how it ended the game, if not by playing."""
    if info.forfeited:
        return " forfeit"
    if info.frozen:
        return " frozen"
    return " left" if info.left else ""
