"""A game told move by move: one line per move and per thing that follows from it.

`Narrator.lines(events)` turns a step's `game.events` into lines: each play with its
combination, each pass, and what the step brought (a chop and its payment, a round won, a seat
going out, frozen seats (cóng), an instant win (tới trắng), the end); `settlement_lines` draws
the settlement table, with the rotten cards (thối). Only the events are read: the tool shows
what the service says happened, and decides nothing itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tienlen_client.cli.style import Style, ordinal
from tienlen_client.events import (
    ChopSettled,
    Event,
    GameOver,
    GameStarted,
    InstantWin,
    Passed,
    Played,
    PlayerFinished,
    PlayersFrozen,
    RoundWon,
    TurnPassed,
    UnknownEvent,
)
from tienlen_client.models import Game, Settlement

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


def _pad(plain: str, width: int) -> int:
    """Spaces that pad `plain` (its styled form has the same visible width) to `width`."""
    return max(0, width - len(plain))


def _sizes(sizes: Sequence[int]) -> str:
    if sizes and all(n == sizes[0] for n in sizes):
        return f"{sizes[0]} cards each"
    return "cards " + "/".join(str(n) for n in sizes)


def settlement_lines(game: Game, names: Sequence[str], style: Style) -> list[str]:
    """The settlement table of a finished game: place and net per seat, every transfer with
    its reason, the rotten cards."""
    settlement = game.settlement
    if settlement is None:
        return ["(the game has no settlement yet)"]
    s = style
    out = [s.paint("Settlement", "bold"), "  seat  player        place        net"]
    frozen = {i for i, seat in enumerate(game.view.seats) if seat.frozen}
    for seat, (place, net) in enumerate(zip(settlement.places, settlement.net, strict=True)):
        name = names[seat] if seat < len(names) else ""
        mark = " frozen" if seat in frozen else ""
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
        out.append(f"    {payer:>7} pays seat {t.payee} {t.amount:>5} for {reason}{cards}")
    return out
