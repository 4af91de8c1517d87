"""Differential testing of the settlement (RULES §5, §7, §8, §10) against an independent calculator.

The calculator below (`expected`) is written from the rule book, not from `settlement.py`: it reads
only a finished game's public history — the events the engine emitted while the game was played
(who played which cards, who went out, the round ends, instant wins) plus, for *đền bài*, a note
taken at every pass of who held a legal beat — and works out on its own the places, who was frozen,
every chop chain and who pays it, the rotten (*thối*) 2s and bombs by the largest split, *cóng*,
*đền bài*, *ba mù*, rotten ♠3, instant wins and Northern *thối hai*, then every seat's net in chips.
Its numbers come from the rule book's text (`book`), not from the engine's option tables.

Random complete games are played for every preset (random legal moves from `game.legal_moves`,
out-of-turn chops and steals included) on seeded deals and on crafted deals that force rare
situations (tiny hands for *cóng*, hands full of 2s and bombs for chop chains), and the engine's
`settle(state).net` must equal the calculator's. Each disagreement investigated has an explicit
example test below (engine bugs, fixed: a frozen player paid a place transfer; and, issue #25,
runs of pairs rotted where consecutive pairs are no combination, and the card count scheme
repriced another preset's 2s and bombs).

Beyond the presets, `test_random_option_combinations_settle_as_the_rule_book_says` draws whole
tables from every documented value of every option and plays matches through `next_game`,
checking every game's lead as dealt (góp 3 included), the deal's own rules (the four 2s'
redeal, the four 3s' lay-down), who is frozen in the state, the events and the FROZEN transfers
alike, and between games the leader, the dealer, first games and the totals (issue #38: those
match checks had never run); `test_matches_with_the_options_of_issue_38_...` sets góp 3, a
bankroll, freeze_at, the redeal and same-suit straights in turn.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import cache

import pytest
from helpers.option_tables import documented_values, mend_following

from tienlen_rules import apply, legal_moves, new_game, next_game
from tienlen_rules.cards import TWOS, cards_of, format_cards, parse_cards, parse_set
from tienlen_rules.errors import SetupError
from tienlen_rules.events import (
    ChopSettled,
    Event,
    GameOver,
    InstantWin,
    Passed,
    Played,
    PlayerFinished,
    PlayersFrozen,
    RoundWon,
)
from tienlen_rules.options import (
    BOMB_PENALTY_OPTIONS,
    LAST_PLACE,
    OPTIONS,
)
from tienlen_rules.presets import PRESETS
from tienlen_rules.ruleset import RuleSet, build_rules
from tienlen_rules.settlement import Settlement, TransferReason, settle
from tienlen_rules.state import GameState, Move, pass_turn, play

F = Fraction
SPADE_THREE = 0  # ♠3, the weakest card (RULES §1)
NONE, ONE, TWO = F(0), F(1), F(2)

# --------------------------------------------------------------------------------------------
# The rule book's numbers (RULES §5, §8, §10), per preset and scoring scheme.
# --------------------------------------------------------------------------------------------

#: Penalty values of the 2s by suit ♠ ♣ ♦ ♥, in stakes: black ½, red 1 (§8).
STAKE_TWOS = (F(1, 2), F(1, 2), F(1), F(1))
#: Points scheme (§8): ♠2 = 1, ♣2 = 2, ♦2 = 3, ♥2 = 4.
POINT_TWOS = (F(1), F(2), F(3), F(4))
#: Card count conversions (§8, §10): black 2 = 2 cards, red 2 = 4.
COUNT_TWOS = (F(2), F(2), F(4), F(4))

SOUTHERN_BOMBS = {"3pairs": F(3, 2), "four": F(2), "4pairs": F(5, 2)}
#: The penalty options' bomb names.
BOMB_NAMES = ("3pairs", "four", "4pairs", "5pairs", "6pairs", "3triples")
HUE_BOMBS = {"four": F(2), "4pairs": F(5, 2)}  # §10: 3 consecutive pairs are no bomb, don't rot
NORTHERN_BOMBS = {"four": F(2)}  # §10: "a four of a kind left rots at 2 stakes"
DAU_BOMBS = {"4pairs": F(3, 2), "5pairs": F(2), "3triples": F(5, 2), "6pairs": F(3)}
COUNT_BOMBS = {"four": F(4), "3pairs": F(2), "4pairs": F(2)}  # §8 đếm lá conversions


def _table(rows: Mapping[str, str]) -> dict[str, frozenset[str]]:
    return {bomb: frozenset(targets.split()) for bomb, targets in rows.items()}


#: Which bomb chops what (§5): bomb class -> the classes it chops ("2" a single 2, "22" a pair
#: of 2s, "222" a triple of 2s, "3pairs".. consecutive pairs, "four", "3triples").
CHOPS = {
    "southern": _table(
        {"3pairs": "2 3pairs", "four": "2 22 3pairs four", "4pairs": "2 22 3pairs four 4pairs"}
    ),
    "hue": _table({"four": "2 four", "4pairs": "2 22 4pairs"}),
    "da_nang": _table({"four": "2 four", "4pairs": "22 four 4pairs"}),
    "northern": _table({"four": "2 22 four"}),
    "dau": _table(
        {
            "4pairs": "2 4pairs",
            "5pairs": "2 22 4pairs 5pairs",
            "3triples": "2 22 4pairs 5pairs 3triples",
            "6pairs": "2 22 222 4pairs 5pairs 3triples 6pairs",
        }
    ),
    "none": {},
}


@dataclass(frozen=True)
class Book:
    """The rule book's settlement numbers for one table (amounts in stakes)."""

    variant: str
    scoring: str = "places"  # places | points | card_count
    stake: int = 100
    last_to_first: Fraction = TWO  # L
    third_to_second: Fraction = ONE
    second_to_first: Fraction = ONE
    twos: tuple[Fraction, Fraction, Fraction, Fraction] = STAKE_TWOS
    bombs: Mapping[str, Fraction] = field(default_factory=lambda: dict(SOUTHERN_BOMBS))
    twos_flat: Fraction = NONE  # Northern thối hai: any 2 left pays this once
    chops: Mapping[str, frozenset[str]] = field(default_factory=lambda: CHOPS["southern"])
    chop_on_last_card: str = "void"
    chain_out_link: str = "paid"  # an earlier link its player went out with: paid, or void
    last_on_two: bool = False
    last_on_four: bool = False
    freezing: bool = True
    freeze_multiplier: Fraction = TWO
    freeze_exempt: int = 0
    freeze_at: str = "first_finish"  # or every_finish (not ranked last), or until_win
    frozen_pays: str = "winner"  # or whole_table: the game ends, each frozen pays all as L
    compensation: bool = True
    instant: Fraction | None = None  # None: L
    count_pigs: bool = False
    blind_three: Fraction | None = NONE  # None: L
    rotten_three: Fraction = NONE
    suited_straights: bool = False  # Northern option: same-suit straights of 5+ chop 2s
    long_pairs: str = "ladder"  # runs of pairs longer than the table's chop as a ladder, or not
    listed_pairs: int = 9  # the longest run of pairs the chop table itself lists
    consecutive_pairs: bool = True  # §3: runs of pairs are a combination (not in the North)
    consecutive_triples: bool = False  # §3: runs of triples are a combination (only in Đấu)
    alone_pays_place: bool = False  # §8: the one left alone with the frozen pays no place
    chops_on_freeze: bool = True  # §8: chops are paid in a game with frozen players
    blind_three_first_game: bool = True  # §7: ba mù in a first game too
    per_card: Fraction = ONE  # §8 đếm lá: a stake per card left
    count_rotten_instead: bool = False  # §10 đếm lá: conversions in addition to the cards
    rotten_to_winner: bool = False  # §8: thối is paid to the place above the one left

    @property
    def counts_cards(self) -> bool:
        return self.scoring == "card_count"

    @property
    def blind_three_stakes(self) -> Fraction:
        return self.last_to_first if self.blind_three is None else self.blind_three


def book(variant: str, scoring: str = "places", **changes: object) -> Book:
    """The rule book's numbers for a preset (§10: a preset inherits the Southern rule)."""
    b = Book(variant=variant, scoring=scoring)
    if variant == "northern":
        b = replace(
            b,
            bombs=dict(NORTHERN_BOMBS),
            twos_flat=F(13),
            chops=CHOPS["northern"],
            last_on_two=True,
            last_on_four=True,
            freezing=False,
            compensation=False,
        )
    elif variant in {"hue", "da_nang"}:
        b = replace(
            b,
            bombs=dict(HUE_BOMBS),
            chops=CHOPS[variant],
            blind_three=None,
            rotten_three=F(3),
        )
        if variant == "hue":
            b = replace(b, chop_on_last_card="chopper_only", last_on_two=True)
        else:
            b = replace(b, freeze_exempt=2)
    elif variant == "dau":
        b = replace(b, bombs=dict(DAU_BOMBS), chops=CHOPS["dau"], consecutive_triples=True)
    elif variant == "dem_la":
        # §10: đếm lá's prices are the conversions; they are the preset's, not the scheme's.
        b = replace(
            b,
            scoring="card_count",
            compensation=False,
            instant=F(13),
            twos=COUNT_TWOS,
            bombs=dict(COUNT_BOMBS),
            count_pigs=True,
        )
    if variant == "dem_la" and scoring != "places":
        b = replace(b, scoring=scoring)
    if variant == "northern":
        b = replace(b, consecutive_pairs=False)
    if b.scoring == "points":  # §8: the points scheme is its values, every bomb 4
        b = replace(b, twos=POINT_TWOS, bombs=dict.fromkeys(BOMB_NAMES, F(4)))
    b = replace(b, **changes)  # type: ignore[arg-type]
    if b.long_pairs == "ladder":  # §3: N pairs chop what N-1 pairs chop, and N-1 pairs
        chops = dict(b.chops)
        runs = [n for n in range(3, 10) if f"{n}pairs" in chops]
        for n in range(max(runs, default=9) + 1, 10):
            chops[f"{n}pairs"] = chops[f"{n - 1}pairs"] | {f"{n - 1}pairs", f"{n}pairs"}
        b = replace(b, chops=chops, listed_pairs=max(runs, default=9))
    if b.suited_straights:  # §5: ≥5 cards chop a single 2, ≥6 cards a pair of 2s
        straights = {
            f"straight{n}": frozenset({"2"} if n == 5 else {"2", "22"}) for n in range(5, 13)
        }
        b = replace(b, chops={**b.chops, **straights})
    return b


# --------------------------------------------------------------------------------------------
# Combinations, read independently of the engine's classifier (RULES §3).
# --------------------------------------------------------------------------------------------

RANK_TWO = 12


def shape(cards: int) -> tuple[str, int]:
    """(kind, length) of a legal play: single, pair, triple, four, straight, pairs, triples."""
    ranks = Counter(c >> 2 for c in cards_of(cards))
    sizes = set(ranks.values())
    if len(ranks) == 1:
        return ({1: "single", 2: "pair", 3: "triple", 4: "four"}[sizes.pop()], 1)
    low, k = min(ranks), len(ranks)
    consecutive = sorted(ranks) == list(range(low, low + k)) and RANK_TWO not in ranks
    assert consecutive, f"{format_cards(cards)} is no combination"
    return ({1: "straight", 2: "pairs", 3: "triples"}[sizes.pop()], k)


def chop_class(cards: int) -> str:
    """What a play is for chopping: "2", "22", "222", "four", "3pairs", "3triples", or ""."""
    kind, length = shape(cards)
    if cards & ~TWOS == 0 and kind != "four":
        return "2" * cards.bit_count()
    if kind == "four":
        return "four"
    if kind in {"pairs", "triples"}:
        return f"{length}{kind}"
    if kind == "straight" and length >= 5 and len({c & 3 for c in cards_of(cards)}) == 1:
        return f"straight{length}"
    return ""


def is_chop(b: Book, new: int, table: int) -> bool:
    """§5: a bomb on a play its table lists (its own class only when higher) is a chop."""
    bomb, target = chop_class(new), chop_class(table)
    if target not in b.chops.get(bomb, frozenset()):
        return False
    return target != bomb or max(cards_of(new)) > max(cards_of(table))


def playable(b: Book, name: str) -> bool:
    """§3: runs of pairs and of triples are combinations only where the table plays them."""
    if name.endswith("pairs"):
        return b.consecutive_pairs
    if name.endswith("triples"):
        return b.consecutive_triples
    return True


def bomb_values(b: Book) -> dict[str, Fraction]:
    """§8's bomb values. [ours] A run of pairs only the ladder makes a bomb (longer than the
    chop table lists) is worth the run one pair shorter unless the house values it: no source
    values those runs, and §5 pays every chop. §3: a bomb is a combination that can chop — one
    the chop table lists and the table can play; nothing else has a value to pay."""
    values = dict(b.bombs)
    for n in range(b.listed_pairs + 1, 10):
        if not values.get(f"{n}pairs"):
            values[f"{n}pairs"] = values.get(f"{n - 1}pairs", F(0))
    return {k: v for k, v in values.items() if k in b.chops and playable(b, k)}


def chopped_value(b: Book, cards: int) -> Fraction:
    """§8: a chopped 2 (pair of 2s: the sum of its cards) by suit, a bomb at its value."""
    if cards & ~TWOS == 0 and cards.bit_count() < 4:
        return sum((b.twos[c & 3] for c in cards_of(cards)), F(0))
    return bomb_values(b).get(chop_class(cards), F(0))


def rotten_value(b: Book, hand: int, credit: Fraction = NONE) -> Fraction:
    """§8 thối: the hand split into disjoint 2s and bombs the way that gives the largest total.
    With `credit`, a card the split leaves out is paid `credit` (đếm lá with the conversions
    instead of the cards): the largest total is then the split's value less `credit` per card
    it takes, and that is what this returns (the per-card part is the caller's)."""
    counts = tuple(sum(1 for c in cards_of(hand) if c >> 2 == r) for r in range(12))
    twos = tuple(b.twos[c & 3] for c in cards_of(hand & TWOS))
    return _best_split(b, counts, twos, credit)


def _best_split(
    b: Book, counts: tuple[int, ...], twos: tuple[Fraction, ...], credit: Fraction
) -> Fraction:
    runs: list[tuple[int, int, Fraction]] = []  # (width per rank, ranks, value)
    for name, value in bomb_values(b).items():
        if name.endswith("pairs"):
            runs.append((2, int(name.removesuffix("pairs")), value))
        elif name.endswith("triples"):
            runs.append((3, int(name.removesuffix("triples")), value))
    four = bomb_values(b).get("four", F(0))
    if b.twos_flat:  # thối hai: once for any 2s, or they are paid as cards
        loose = max(b.twos_flat - credit * len(twos), NONE) if twos else NONE
    else:  # each 2 by suit, or as a card where that pays more
        loose = sum((max(v - credit, NONE) for v in twos), NONE)
    if len(twos) == 4 and four:  # four 2s may also be split as a four of a kind
        loose = max(loose, four - 4 * credit)

    @cache
    def best(state: tuple[int, ...]) -> Fraction:
        result = F(0)
        for r in range(12):
            if state[r] == 4 and four:
                result = max(result, four - 4 * credit + best((*state[:r], 0, *state[r + 1 :])))
            for width, ranks, value in runs:
                if r + ranks <= 12 and all(state[r + i] >= width for i in range(ranks)):
                    after = list(state)
                    for i in range(ranks):
                        after[r + i] -= width
                    score = value - credit * width * ranks
                    result = max(result, score + best(tuple(after)))
        return result

    return loose + best(counts)


# --------------------------------------------------------------------------------------------
# The public record of a game and the independent calculator.
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PassNote:
    """At a pass: who passed on whose play, whether they held a legal beat, and which other
    seats (not the passer, not the table's player) held one (for *đền bài*, §7)."""

    seat: int
    table_seat: int
    held: bool
    beaters: frozenset[int]


@dataclass
class Record:
    """A finished game as the public saw it."""

    players: int
    dealt: tuple[int, ...]
    events: list[Event]
    passes: list[PassNote]
    first_game: bool = False


@dataclass(frozen=True)
class Link:
    seat: int
    cards: int
    cards_left: int


@dataclass
class Outcome:
    """The calculator's answer: places, frozen seats, net chips per seat, and why."""

    places: list[int]
    frozen: frozenset[int]
    net: list[int]
    notes: list[str]
    compensator: int = -1  # đền bài: who pays for the frozen, and leads the next game


def expected(b: Book, record: Record) -> Outcome:
    """Every seat's net in chips, from the rule book and the game's public history."""
    n = record.players
    hands = list(record.dealt)
    played: set[int] = set()
    places = [0] * n
    free = list(range(1, n + 1))
    frozen: set[int] = set()
    ranked_last: set[int] = set()  # went out on a 2 (or a four of a kind) and ranked last
    alone: set[int] = set()
    instant = -1
    winning_play = 0
    net = [F(0)] * n
    notes: list[str] = []

    def pay(payer: int, payee: int, stakes: Fraction, why: str) -> None:
        if not stakes:
            return
        notes.append(f"{payer}->{payee} {stakes} {why}")
        net[payee] += stakes
        if payer >= 0:
            net[payer] -= stakes

    table: Link | None = None
    chain: list[Link] = []
    chop_pays: list[tuple[int, int, Fraction, str]] = []  # paid at the end (§8)

    def pay_chops() -> None:
        for chop in chop_pays:
            pay(*chop)

    def close_chain() -> None:
        if len(chain) >= 2:
            victim, chopper = chain[-2], chain[-1]
            value = F(0)
            for i, link in enumerate(chain[:-1]):
                # §5: an earlier link played as its player's last cards (the chain went on).
                if i < len(chain) - 2 and link.cards_left == 0 and b.chain_out_link == "void":
                    notes.append(f"chop chain link of {link.seat}'s last cards: void link")
                    continue
                value += chopped_value(b, link.cards)
            payer = victim.seat
            if victim.cards_left == 0 and b.chop_on_last_card == "void":
                notes.append(f"chop chain on {victim.seat}'s last cards: void")
            else:
                why = f"chop x{len(chain) - 1}"
                if victim.cards_left == 0:
                    why += " on last cards"
                    payer = -1 if b.chop_on_last_card == "chopper_only" else payer
                chop_pays.append((payer, chopper.seat, value, why))
        chain.clear()

    def take_place(seat: int, place: int) -> None:
        places[seat] = place
        free.remove(place)

    game_over = False

    def go_out(seat: int, cards: int) -> None:
        nonlocal winning_play, game_over
        # Not under the card count, whose first player out wins (source 004, issue #38).
        last = not b.counts_cards and (
            (b.last_on_two and cards & TWOS) or (b.last_on_four and shape(cards)[0] == "four")
        )
        place = free[-1] if last else free[0]
        if last:
            ranked_last.add(seat)
        won_before = 1 in places
        take_place(seat, place)
        if place == 1 and b.counts_cards:
            winning_play = cards
            after = [(seat + k) % n for k in range(1, n)]
            for other in sorted(
                (s for s in after if not places[s]), key=lambda s: hands[s].bit_count()
            ):
                take_place(other, free[0])
            game_over = True
            return
        if place == 1:
            winning_play = cards
        # Cóng is judged at the win, or with freeze_at at every finish not ranked last, or at
        # every finish until the win; the frozen take the last places in seat order after the
        # winner (after the player ranked last, before anyone won). Before anyone won, a freeze
        # needs two players left to play for 1st, and a game that goes on (not whole_table).
        if (
            place == 1
            or (not last and b.freeze_at == "every_finish")
            or (not won_before and b.freeze_at == "until_win")
        ):
            anchor = places.index(1) if 1 in places else seat
            after = [(anchor + k) % n for k in range(1, n)]
            unplayed = [s for s in after if not places[s] and s not in played]
            others_left = [s for s in after if not places[s] and s not in unplayed]
            goes_on = 1 in places or (len(others_left) >= 2 and b.frozen_pays == "winner")
            # freeze_exempt_unplayed is the Đà Nẵng rule of the win ("về nhất"): it spares only
            # at the finish that takes 1st (issue #38).
            exempt = place == 1 and len(unplayed) == b.freeze_exempt
            if b.freezing and unplayed and not exempt and goes_on:
                if place != 1:
                    notes.append("cóng at a later finish" if 1 in places else "cóng ranked last")
                for s, p in zip(unplayed, free[-len(unplayed) :], strict=True):
                    frozen.add(s)
                    places[s] = p
                for p in places:
                    if p in free:
                        free.remove(p)
                left = [s for s in after if not places[s]]
                if b.frozen_pays == "whole_table":  # the game ends at the freeze
                    for s in left:
                        take_place(s, free[0])
                    game_over = True
                    return
                # §8: left alone with frozen players (it takes 2nd): no place transfer. Not so
                # after a later freeze: it lost to an opponent who went out and pays as usual.
                if len(left) == 1 and place == 1 and not b.alone_pays_place:
                    alone.add(left[0])
        left = [s for s in range(n) if not places[s]]
        if len(left) <= 1:
            if left:
                take_place(left[0], free[0])
            game_over = True

    for event in record.events:
        if isinstance(event, InstantWin):
            instant = event.seat
        elif isinstance(event, Played):
            assert not game_over
            hands[event.seat] &= ~event.cards
            played.add(event.seat)
            link = Link(event.seat, event.cards, hands[event.seat].bit_count())
            chopping = table is not None and is_chop(b, event.cards, table.cards)
            assert chopping == event.chop, f"chop flag of {format_cards(event.cards)}"
            if chopping:
                assert table is not None
                if not chain:
                    chain.append(table)
                chain.append(link)
            else:
                close_chain()
            table = link
            if not hands[event.seat]:
                go_out(event.seat, event.cards)
        elif isinstance(event, RoundWon):
            close_chain()
            table = None
        elif isinstance(event, GameOver):
            close_chain()

    if instant >= 0:
        places = [1 if s == instant else n for s in range(n)]
        for other in range(n):
            if other != instant:
                stakes = b.last_to_first if b.instant is None else b.instant
                if b.count_pigs:
                    stakes += rotten_value(b, hands[other])
                pay(other, instant, stakes, "instant win")
        return _outcome(b, places, frozenset(), net, notes)

    assert game_over, "the game did not end"
    winner = places.index(1)
    if b.counts_cards:
        # §8 đếm lá: a loser holding every dealt card is frozen, unless exactly
        # freeze_exempt_unplayed losers never played (the exemption of the win, issue #38).
        unplayed = {s for s in range(n) if s != winner and hands[s] == record.dealt[s]}
        if b.freezing and len(unplayed) != b.freeze_exempt:
            frozen |= unplayed
        for other in range(n):
            if other == winner:
                continue
            # §10: conversions in addition to the cards, or instead (the largest payment).
            credit = b.per_card if b.count_rotten_instead else NONE
            stakes = hands[other].bit_count() * b.per_card + rotten_value(b, hands[other], credit)
            if other in frozen:
                stakes *= b.freeze_multiplier
            pay(other, winner, stakes, "frozen cards left" if other in frozen else "cards left")
        pay_chops()
        return _outcome(b, places, frozenset(frozen), net, notes)

    if b.chops_on_freeze or not frozen:  # §8 [ours]; off: cóng cancels the chops
        pay_chops()
    seat_at = {p: s for s, p in enumerate(places)}
    opponents = set(range(n)) - {winner}
    whole_table = b.frozen_pays == "whole_table"
    if whole_table:  # sources 000/001/002: each frozen pays as to an instant winner, to each
        instant_stakes = b.last_to_first if b.instant is None else b.instant
        owed = {
            s: instant_stakes + (rotten_value(b, hands[s]) if b.count_pigs else NONE)
            for s in sorted(frozen)
        }
    else:
        owed = {
            s: b.freeze_multiplier * b.last_to_first + rotten_value(b, hands[s])
            for s in sorted(frozen)
        }
    compensator = -1
    if b.compensation and frozen and frozen == opponents:
        for note in record.passes:
            if (
                note.held
                and note.table_seat == winner
                and not note.beaters & (opponents - {note.seat})
            ):
                compensator = note.seat
                break
    if compensator >= 0:
        pay(compensator, winner, sum(owed.values(), F(0)), "đền bài")
    else:
        for s, stakes in owed.items():
            pay(s, winner, stakes, "cóng")
            if whole_table:  # and to every other player not frozen, not ranked last
                for other in sorted(opponents - frozen - ranked_last):
                    pay(s, other, stakes, "cóng to the table")

    blind = (
        bool(b.blind_three_stakes)
        and winning_play == 1 << SPADE_THREE
        and (b.blind_three_first_game or not record.first_game)
    )
    if blind:
        for s in sorted(opponents - frozen):
            pay(s, winner, b.blind_three_stakes, "ba mù")
    else:
        # With whole_table the game ended at the freeze: those still holding cards hold no
        # place to pay for (one ranked last for going out on a 2 still pays as last).
        unplaced = {s for s in range(n) if hands[s]} if whole_table and frozen else set()
        transfers = {
            4: [(4, 1, b.last_to_first), (3, 2, b.third_to_second)],
            3: [(3, 1, b.last_to_first), (2, 1, b.second_to_first)],
            2: [(2, 1, b.last_to_first)],
        }[n]
        for lo, hi, stakes in transfers:
            payer, payee = seat_at[lo], seat_at[hi]
            if not {payer, payee} & (frozen | alone | unplaced):
                pay(payer, payee, stakes, "place")
    # Thối: the player left holding cards at the end (normally the last; see the Northern
    # example below when the last went out on a 2) pays its 2s and bombs to the place above.
    holders = [s for s in range(n) if hands[s] and s != winner]
    for last in holders if not frozen else []:
        payee = winner if b.rotten_to_winner else seat_at[places[last] - 1]
        pay(last, payee, rotten_value(b, hands[last]), "thối")
        if b.rotten_three and hands[last] == 1 << SPADE_THREE:
            pay(last, winner, b.rotten_three, "thối ♠3")
    return replace(_outcome(b, places, frozenset(frozen), net, notes), compensator=compensator)


def _outcome(
    b: Book, places: list[int], frozen: frozenset[int], net: list[Fraction], notes: list[str]
) -> Outcome:
    chips = []
    for stakes in net:
        amount = stakes * b.stake
        assert amount.denominator == 1, f"{stakes} stakes is not whole chips"
        chips.append(int(amount))
    return Outcome(places, frozen, chips, notes)


# --------------------------------------------------------------------------------------------
# Playing games: random legal moves, and scripted ones.
# --------------------------------------------------------------------------------------------


def note_pass(state: GameState, seat: int, played: set[int]) -> PassNote:
    """Who held a legal beat at this pass (the passer; and the others while only the table's
    player has played, when *đền bài* can still arise)."""
    held = any(not m.is_pass for m in legal_moves(state, seat))
    beaters: set[int] = set()
    if played <= {state.table_seat}:
        for other in range(state.players):
            if other in {seat, state.table_seat} or state.places[other]:
                continue
            view = state._replace(to_act=other)
            if any(not m.is_pass for m in legal_moves(view, other)):
                beaters.add(other)
    return PassNote(seat, state.table_seat, held, frozenset(beaters))


@dataclass
class Game:
    """A game being played: the engine state and the public record."""

    state: GameState
    record: Record
    played: set[int] = field(default_factory=set)

    def move(self, move: Move) -> None:
        if move.is_pass:
            self.record.passes.append(note_pass(self.state, move.seat, self.played))
        else:
            self.played.add(move.seat)
        self.state, events = apply(self.state, move)
        self.record.events += events


def start(
    rules: RuleSet,
    players: int,
    *,
    seed: int | None = None,
    hands: Sequence[int] | None = None,
    first_game: bool = True,
    leader: int | None = None,
    dealer: int = 0,
) -> Game:
    state, events = new_game(
        rules, players, seed=seed, hands=hands, first_game=first_game, leader=leader, dealer=dealer
    )
    return Game(state, Record(players, state.dealt, list(events), [], first_game))


@dataclass(frozen=True)
class Style:
    """How a random player behaves: how often it passes, chops, or plays out of turn."""

    pass_rate: float
    chop_rate: float = 0.7
    out_of_turn_rate: float = 0.4


STYLES = (Style(0.05), Style(0.25), Style(0.6), Style(0.9, out_of_turn_rate=0.2))


def random_move(game: Game, b: Book, rng: random.Random, style: Style) -> Move:
    state = game.state
    mine = legal_moves(state, state.to_act)
    others = [
        m
        for seat in range(state.players)
        if seat != state.to_act and not state.places[seat]
        for m in legal_moves(state, seat)
    ]
    if others and rng.random() < style.out_of_turn_rate:
        return rng.choice(others)
    plays = [m for m in mine if not m.is_pass]
    can_pass = len(plays) < len(mine)
    if can_pass and (not plays or rng.random() < style.pass_rate):
        return pass_turn(state.to_act)
    if state.table is not None:
        table = state.table.cards
        chops = [m for m in plays if is_chop(b, sum(1 << c for c in m.cards), table)]
        if chops and rng.random() < style.chop_rate:
            return rng.choice(chops)
    return rng.choice(plays)


def play_out(game: Game, b: Book, rng: random.Random, style: Style, limit: int = 3000) -> Game:
    for _ in range(limit):
        if game.state.over:
            return game
        game.move(random_move(game, b, rng, style))
    pytest.fail("a random game did not end")
    return game  # pragma: no cover


# --------------------------------------------------------------------------------------------
# Deals that force rare situations.
# --------------------------------------------------------------------------------------------


def tiny_deal(rng: random.Random, players: int, most: int = 5) -> list[int]:
    """Hands of 1..`most` random cards: the first finish comes early, so players freeze."""
    deck = list(range(52))
    rng.shuffle(deck)
    hands = []
    for _ in range(players):
        size = rng.randint(1, most)
        hands.append(sum(1 << c for c in deck[:size]))
        del deck[:size]
    return hands


def bomb_deal(rng: random.Random, players: int, b: Book, most: int = 13) -> list[int]:
    """Hands built around 2s and bombs (fours, consecutive pairs and triples) so that chops
    and stacked chops are common, padded with random cards."""
    free = set(range(52))
    hands = [0] * players
    pieces = [k for k in b.bombs if k != "four"]
    for seat in range(players):
        for _ in range(rng.randint(1, 3)):
            choice = rng.choice(["four", "two", "two", *pieces])
            if choice == "two":
                wanted = [c for c in range(48, 52) if c in free][:1]
            elif choice == "four":
                rank = rng.randrange(12)
                wanted = [rank * 4 + s for s in range(4)]
            else:
                width = 2 if choice.endswith("pairs") else 3
                ranks = int(choice[0])
                low = rng.randrange(0, 13 - ranks)
                wanted = []
                for r in range(low, low + ranks):
                    have = [r * 4 + s for s in range(4) if r * 4 + s in free]
                    wanted += rng.sample(have, min(width, len(have)))
            picked = [c for c in wanted if c in free]
            if hands[seat].bit_count() + len(picked) > most:
                continue
            for c in picked:
                free.discard(c)
                hands[seat] |= 1 << c
        rest = sorted(free)
        size = rng.randint(max(1, hands[seat].bit_count()), most)
        for c in rng.sample(rest, min(len(rest), max(0, size - hands[seat].bit_count()))):
            free.discard(c)
            hands[seat] |= 1 << c
    if any(h == 0 for h in hands):
        return tiny_deal(rng, players)
    return hands


# --------------------------------------------------------------------------------------------
# The differential runs.
# --------------------------------------------------------------------------------------------

PLAYERS = {"dau": (3,)}


@dataclass
class Mismatch:
    kind: str
    variant: str
    engine: tuple[int, ...]
    mine: list[int]
    places: tuple[int, ...]
    my_places: list[int]
    dealt: str
    record: Record
    notes: list[str]

    def __str__(self) -> str:
        return (
            f"[{self.variant} {self.kind}] engine {self.engine} expected {self.mine}; places"
            f" {self.places} vs {self.my_places}; dealt {self.dealt}; {self.notes};"
            f" moves {describe(self.record)}"
        )


def describe(record: Record) -> str:
    """The game's moves in script form ("0: 3S", "1: -") and what they settled, for a failure
    message."""
    steps = []
    for event in record.events:
        if isinstance(event, Played):
            steps.append(f"{event.seat}: {format_cards(event.cards)}")
        elif isinstance(event, Passed):
            steps.append(f"{event.seat}: -")
        elif isinstance(event, InstantWin | PlayersFrozen | ChopSettled | PlayerFinished):
            steps.append(f"<{event}>")
    return " ; ".join(steps)


def compare(b: Book, rules: RuleSet, game: Game, kind: str) -> Mismatch | None:
    state = game.state
    assert state.over
    mine = expected(b, game.record)
    engine = settle(state)
    same_places = b.counts_cards or list(state.places) == mine.places
    frozen = shown_frozen(state, game, engine)
    if list(engine.net) == mine.net and same_places and frozen == mine.frozen:
        return None
    return Mismatch(
        f"{kind}; frozen {sorted(frozen)} expected {sorted(mine.frozen)}",
        rules.variant,
        engine.net,
        mine.net,
        state.places,
        mine.places,
        " | ".join(format_cards(h) for h in state.dealt),
        game.record,
        mine.notes,
    )


def shown_frozen(state: GameState, game: Game, settlement: Settlement) -> frozenset[int]:
    """The seats the engine calls frozen, which must be one set wherever it says so (issue #38):
    in its state (the view's flag), in its PlayersFrozen events, and among the seats the
    settlement charges FROZEN (a frozen seat pays FROZEN unless đền bài or a multiplier of 0
    leaves it nothing to pay)."""
    in_state = frozenset(s for s in range(state.players) if state.frozen >> s & 1)
    in_events = frozenset(
        s for e in game.record.events if isinstance(e, PlayersFrozen) for s in e.seats
    )
    charged = {t.payer for t in settlement.transfers if t.reason == TransferReason.FROZEN}
    assert in_state == in_events, f"frozen in the state {in_state}, in the events {in_events}"
    assert charged <= in_state, f"charged FROZEN {charged}, frozen {in_state}"
    return in_state


#: The engine's option name for each `Book` field a test may change.
ENGINE_OPTION = {
    "stake": "stake",
    "last_to_first": "place_last_to_first",
    "third_to_second": "place_third_to_second",
    "second_to_first": "place_second_to_first",
    "chop_on_last_card": "chop_on_last_card",
    "chain_out_link": "chop_chain_out_link",
    "freeze_at": "freeze_at",
    "frozen_pays": "frozen_pays",
    "freeze_multiplier": "freeze_multiplier",
    "freeze_exempt": "freeze_exempt_unplayed",
    "compensation": "compensation",
    "instant": "instant_win_stakes",
    "count_pigs": "count_pigs",
    "blind_three": "blind_three_stakes",
    "rotten_three": "rotten_three_stakes",
    "freezing": "freezing",
    "suited_straights": "suited_straight_chops",
    "long_pairs": "long_pairs_chop",
}


def table_rules(
    variant: str,
    scoring: str = "places",
    changes: Mapping[str, object] | None = None,
    engine: Mapping[str, object] | None = None,
) -> tuple[Book, RuleSet]:
    """The rule book's numbers and the engine's rule set for the same table."""
    changes = dict(changes or {})
    b = book(variant, scoring, **changes)
    options: dict[str, object] = {"scoring": scoring} if scoring != "places" else {}
    for name, value in changes.items():
        options[ENGINE_OPTION[name]] = str(value) if isinstance(value, Fraction) else value
    options |= dict(engine or {})
    return b, build_rules(variant, options)


def run_games(
    variant: str,
    scoring: str,
    games: int,
    seed: int,
    changes: Mapping[str, object] | None = None,
    engine: Mapping[str, object] | None = None,
) -> dict[str, int]:
    """`games` random games of every kind for this table, all of them (bounded by count and
    seeded: the same games on every run, so what a test asserts was reached always is);
    returns how many games of each kind were played and what they settled; fails on any
    disagreement."""
    b, rules = table_rules(variant, scoring, changes, engine)
    rng = random.Random(seed)
    played: Counter[str] = Counter()
    problems: list[Mismatch] = []
    for _ in range(games):
        players = rng.choice(PLAYERS.get(variant, (2, 3, 4)))
        style = rng.choice(STYLES)
        kind = rng.choice(["seeded", "seeded", "tiny", "bombs"])
        if kind == "seeded":
            first = rng.random() < 0.5
            game = start(
                rules,
                players,
                seed=rng.randrange(1 << 30),
                first_game=first,
                leader=None if first else rng.randrange(players),
            )
        else:
            most = 18 if variant == "dau" else 13
            hands = tiny_deal(rng, players) if kind == "tiny" else bomb_deal(rng, players, b, most)
            first = rng.random() < 0.3
            game = start(
                rules,
                players,
                hands=hands,
                first_game=first,
                leader=None if first else rng.randrange(players),
                seed=rng.randrange(1 << 30),  # a random first leader is drawn from it
            )
        play_out(game, b, rng, style)
        played[kind] += 1
        for note in expected(b, game.record).notes:
            played[" ".join(note.split()[2:]) if "->" in note else note.split(":")[-1].strip()] += 1
        problem = compare(b, rules, game, kind)
        if problem is not None:
            problems.append(problem)
    assert not problems, f"{len(problems)} disagreements, first: {problems[0]}"
    return dict(played)


# --------------------------------------------------------------------------------------------
# Named differential tests, one per preset and scoring scheme.
# --------------------------------------------------------------------------------------------

GAMES = 1000


def test_random_southern_games_settle_as_the_rule_book_says() -> None:
    run_games("southern", "places", GAMES, seed=1)


def test_random_southern_points_games_settle_as_the_rule_book_says() -> None:
    run_games("southern", "points", GAMES, seed=2)


def test_random_northern_games_settle_as_the_rule_book_says() -> None:
    run_games("northern", "places", GAMES, seed=3)


def test_random_northern_points_games_settle_as_the_rule_book_says() -> None:
    run_games("northern", "points", GAMES // 3, seed=4)


def test_random_hue_games_settle_as_the_rule_book_says() -> None:
    played = run_games("hue", "places", GAMES, seed=5)
    for part in ("ba mù", "thối ♠3", "chop x1 on last cards", "cóng", "đền bài"):
        assert played[part], f"no game settled {part}"


def test_random_da_nang_games_settle_as_the_rule_book_says() -> None:
    run_games("da_nang", "places", GAMES, seed=6)


def test_random_hue_and_da_nang_points_games_settle_as_the_rule_book_says() -> None:
    run_games("hue", "points", GAMES // 3, seed=7)
    run_games("da_nang", "points", GAMES // 3, seed=8)


def test_random_dau_games_settle_as_the_rule_book_says() -> None:
    run_games("dau", "places", GAMES * 2 // 3, seed=9)


def test_random_dau_points_games_settle_as_the_rule_book_says() -> None:
    run_games("dau", "points", GAMES // 3, seed=10)


def test_random_dem_la_games_settle_as_the_rule_book_says() -> None:
    played = run_games("dem_la", "card_count", GAMES, seed=11)
    assert played["instant win"]
    assert played["chop x2"]


def test_random_southern_games_reach_the_rare_settlements() -> None:
    # The deals and players are built so that every part of the settlement is exercised.
    played = run_games("southern", "places", GAMES // 2, seed=20)
    for part in ("cóng", "đền bài", "thối", "chop x2", "instant win", "place"):
        assert played[part], f"no game settled {part}"


def test_random_games_with_house_options_settle_as_the_rule_book_says() -> None:
    run_games(
        "southern",
        "places",
        300,
        seed=12,
        changes={"count_pigs": True, "chop_on_last_card": "paid"},
    )
    run_games(
        "hue",
        "places",
        300,
        seed=13,
        changes={
            "freeze_multiplier": F(2),
            "stake": 50,
            "last_to_first": F(3),
            "third_to_second": F(2),
        },
    )
    run_games(
        "southern",
        "places",
        300,
        seed=14,
        changes={"freeze_multiplier": F(4), "instant": F(4), "second_to_first": F(1, 2)},
        engine={"lead_stealing": True},
    )
    run_games(
        "southern", "points", 300, seed=15, changes={"compensation": False, "freeze_exempt": 1}
    )
    run_games("northern", "places", 300, seed=16, changes={"suited_straights": True})
    run_games(
        "da_nang", "places", 300, seed=17, changes={"last_to_first": F(4), "rotten_three": F(0)}
    )


def test_random_games_with_the_chain_and_cong_readings_settle_as_the_rule_book_says() -> None:
    # The other readings of chặt chồng and cóng: a void earlier link, cóng judged at every
    # finish (it differs where Đà Nẵng spared two players at the win), the frozen paying the
    # whole table.
    played = run_games(
        "hue",
        "places",
        300,
        seed=18,
        changes={"chain_out_link": "void", "frozen_pays": "whole_table"},
    )
    assert played["cóng to the table"]
    assert played["đền bài"]
    played = run_games("da_nang", "places", 400, seed=19, changes={"freeze_at": "every_finish"})
    assert played["cóng at a later finish"]
    played = run_games(
        "da_nang",
        "points",
        300,
        seed=21,
        changes={"freeze_at": "every_finish", "frozen_pays": "whole_table", "count_pigs": True},
    )
    assert played["cóng at a later finish"]


# --------------------------------------------------------------------------------------------
# Focused differential runs.
# --------------------------------------------------------------------------------------------


def hands_with_singles(
    rng: random.Random, b: Book, players: int, singles: list[str], most: int
) -> tuple[list[int], int]:
    """Seat 0 holds `singles[0]` and a random 2 (returned too); every other seat a loaded hand
    of at most `most` cards, plus `singles[seat]` when there is one."""
    used = parse_set(" ".join(singles))
    two = rng.randrange(48, 52)
    hands = [parse_set(singles[0]) | 1 << two]
    used |= 1 << two
    for seat in range(1, players):
        hand = loaded_hand(rng, b, most, used)
        while hand & used:  # its fallback single card was taken
            hand = loaded_hand(rng, b, most, used)
        used |= hand
        if seat < len(singles):
            hand |= parse_set(singles[seat])
        hands.append(hand)
    return hands, two


def loaded_hand(rng: random.Random, b: Book, most: int, avoid: int) -> int:
    """A hand of at most `most` cards full of 2s, fours and runs of pairs and triples (some
    overlapping, so the largest split matters), without the cards of `avoid`."""
    hand = 0
    kinds = ["four", "two", "pairs", "pairs", "triples"]
    for _ in range(rng.randint(1, 6)):
        kind = rng.choice(kinds)
        if kind == "two":
            picked = [rng.randrange(48, 52)]
        elif kind == "four":
            rank = rng.randrange(12)
            picked = [rank * 4 + s for s in range(4)]
        else:
            width = 2 if kind == "pairs" else 3
            ranks = rng.randint(3, 6)
            low = rng.randrange(0, 12 - ranks + 1)
            picked = []
            for r in range(low, low + ranks):
                picked += rng.sample([r * 4 + s for s in range(4)], width)
        mask = sum(1 << c for c in picked) & ~avoid
        if (hand | mask).bit_count() <= most:
            hand |= mask
    return hand or 1 << 4


ROTTEN_TABLES = [
    ("southern", "places"),
    ("southern", "points"),
    ("northern", "places"),
    ("hue", "places"),
    ("da_nang", "points"),
    ("dau", "places"),
    ("dau", "points"),
    ("dem_la", "card_count"),
]


@pytest.mark.parametrize(("variant", "scoring"), ROTTEN_TABLES)
def test_rotten_and_frozen_hands_split_as_the_rule_book_says(variant: str, scoring: str) -> None:
    # 2 players: seat 1 leads ♥3, seat 0 beats with its only card ♥A and wins; seat 1 is last
    # (or, when seat 0 leads ♥A at once, frozen) holding a hand loaded with 2s and bombs.
    b, rules = table_rules(variant, scoring, engine={"instant_wins": "none"})
    rng = random.Random(f"rotten/{variant}/{scoring}")  # a str seed: the same every run
    avoid = parse_set("3H AH")
    most = 17 if variant == "dau" else 12
    problems = []
    # Đấu is played by 3: seat 2 holds ♥4 ♥5, plays ♥4 on the ♥3 and finishes at random.
    third = ["4H 5H"] if variant == "dau" else []
    for i in range(120):
        loser = loaded_hand(rng, b, most, avoid | parse_set("4H 5H"))
        hands = [parse_set(h) for h in ["AH", *third]]
        hands.insert(1, loser | parse_set("3H"))
        frozen = i % 3 == 0
        game = start(rules, len(hands), hands=hands, first_game=False, leader=0 if frozen else 1)
        if not frozen:
            game.move(play(1, parse_cards("3H")))
            if third:
                game.move(play(2, parse_cards("4H")))
        game.move(play(0, parse_cards("AH")))
        play_out(game, b, rng, STYLES[i % len(STYLES)])
        problem = compare(b, rules, game, "frozen" if frozen else "rotten")
        if problem is not None:
            problems.append(problem)
    assert not problems, f"{len(problems)} disagreements, first: {problems[0]}"


@pytest.mark.parametrize(
    ("variant", "value"),
    [("southern", "paid"), ("southern", "void"), ("hue", "paid"), ("hue", "void")],
)
def test_chains_past_a_last_card_settle_as_the_rule_book_says(variant: str, value: str) -> None:
    # Every seat plays a single, then seat 0 goes out on a 2 (1st, or last in Huế) and the
    # others, holding 2s and bombs, play on chopping as often as they can: chains that go on
    # past seat 0's last card are common, and chop_chain_out_link decides what that link is
    # worth (§5).
    b, rules = table_rules(
        variant, changes={"chain_out_link": value}, engine={"instant_wins": "none"}
    )
    rng = random.Random(f"chains/{variant}/{value}")  # a str seed: the same every run
    chopper = Style(0.3, chop_rate=0.95, out_of_turn_rate=0.5)
    problems = []
    voided = 0
    for i in range(150):
        players = 3 + i % 2
        singles = ["3H", "4H", "5H", "6H"][:players]
        hands, two = hands_with_singles(rng, b, players, singles, 10)
        game = start(rules, players, hands=hands, first_game=False, leader=0)
        for seat, single in enumerate(singles):
            game.move(play(seat, parse_cards(single)))
        game.move(play(0, [two]))
        play_out(game, b, rng, chopper)
        voided += sum("void link" in note for note in expected(b, game.record).notes)
        problem = compare(b, rules, game, "chain past a last card")
        if problem is not None:
            problems.append(problem)
    assert not problems, f"{len(problems)} disagreements, first: {problems[0]}"
    assert bool(voided) is (value == "void")


@pytest.mark.parametrize(
    ("frozen_pays", "exempt"), [("winner", 0), ("whole_table", 0), ("winner", 1)]
)
def test_cong_judged_until_the_win_settles_as_the_rule_book_says(
    frozen_pays: str, exempt: int
) -> None:
    # freeze_at = until_win (Huế): seats 0..2 each play a single (3 players: seats 0 and 1),
    # the last seat passes, seat 0 goes out on a 2 ranked last with that seat still unplayed;
    # loaded hands then play on at random. With 4 players the unplayed seat is frozen at once;
    # with 3 (one player would be left) or whole_table (the game would end) the win judges it.
    # freeze_exempt_unplayed = 1 (exactly the one unplayed seat) spares nobody there: it is
    # the rule of the win (issue #38).
    b, rules = table_rules(
        "hue",
        changes={"freeze_at": "until_win", "frozen_pays": frozen_pays, "freeze_exempt": exempt},
        engine={"instant_wins": "none"},
    )
    rng = random.Random(f"until_win/{frozen_pays}/{exempt}")
    problems = []
    notes: Counter[str] = Counter()
    for i in range(150):
        players = 3 + i % 2
        singles = ["3H", "4H", "5H"][: players - 1]
        hands, two = hands_with_singles(rng, b, players, singles, 8)
        game = start(rules, players, hands=hands, first_game=False, leader=0)
        for seat, single in enumerate(singles):
            game.move(play(seat, parse_cards(single)))
        game.move(pass_turn(players - 1))
        game.move(play(0, [two]))
        play_out(game, b, rng, Style(0.3))
        notes.update(expected(b, game.record).notes)
        problem = compare(b, rules, game, "cóng until the win")
        if problem is not None:
            problems.append(problem)
    assert not problems, f"{len(problems)} disagreements, first: {problems[0]}"
    assert bool(notes["cóng ranked last"]) is (frozen_pays == "winner")


# --------------------------------------------------------------------------------------------
# Explicit examples.
# --------------------------------------------------------------------------------------------


def scripted(
    variant: str,
    hands: Sequence[str],
    moves: Sequence[str],
    *,
    leader: int | None = 0,
    first_game: bool = False,
    options: Mapping[str, object] | None = None,
) -> Game:
    """A game from explicit hands and a script of moves ("1: 2S", "2: -")."""
    rules = build_rules(variant, options)
    game = start(
        rules, len(hands), hands=[parse_set(h) for h in hands], first_game=first_game, leader=leader
    )
    for step in moves:
        seat_text, _, text = step.partition(":")
        text = text.strip()
        seat = int(seat_text)
        game.move(pass_turn(seat) if text in {"-", "pass"} else play(seat, parse_cards(text)))
    return game


def nets(b: Book, game: Game) -> tuple[list[int], list[int]]:
    """(engine nets, rule-book nets) of a finished game."""
    assert game.state.over, "the scripted game is not over"
    return list(settle(game.state).net), expected(b, game.record).net


def test_calculator_reads_the_rule_book_penalty_values() -> None:
    southern, dau, northern = book("southern"), book("dau"), book("northern")
    # Largest split (§8): 6 consecutive pairs rot as two 3 consecutive pairs (1½ + 1½), not as
    # 4 consecutive pairs (2½); four 2s rot as 2s (½ + ½ + 1 + 1), not as a four of a kind (2).
    assert rotten_value(southern, parse_set("3S 3C 4S 4C 5S 5C 6S 6C 7S 7C 8S 8C")) == 3
    assert rotten_value(southern, parse_set("2S 2C 2D 2H")) == 3
    assert rotten_value(southern, parse_set("5S 5C 5D 5H 6S 6C 7S 7C 2D")) == 3
    assert rotten_value(book("hue"), parse_set("3S 3C 4S 4C 5S 5C")) == 0  # §10: they don't rot
    assert rotten_value(dau, parse_set("4S 4C 4D 5S 5C 5D 6S 6C 6D")) == F(5, 2)
    assert rotten_value(dau, parse_set("4S 4C 4D 4H")) == 0  # no bomb in Đấu
    # Northern thối hai (§10): any 2s pay 13 once; a four of a kind adds 2.
    assert rotten_value(northern, parse_set("2S 2C 2D 2H 9S 9C 9D 9H")) == 15
    assert rotten_value(book("southern", "points"), parse_set("2S 2H 7S 7C 7D 7H")) == 9
    assert rotten_value(book("dem_la"), parse_set("2S 2D 3S 3C 4S 4C 5S 5C")) == 8


def test_a_stacked_chop_chain_is_paid_by_the_last_chopped_to_the_last_chopper() -> None:
    # Source 004 (§5): A plays a black 2, B chops with 3 consecutive pairs, C chops B with a
    # four of a kind: B pays C ½ + 1½ = 2 stakes; A pays nothing for the chain.
    game = scripted(
        "southern",
        ["8C 2S 9C", "3S 3C 4S 4C 5S 5C JD 9D", "7S 7C 7D 7H QH 10H", "KD 6D AH"],
        [
            *("0: 8C", "1: JD", "2: QH", "3: KD", "0: -", "1: -", "2: -", "3: 6D"),
            *("0: 2S", "1: 3S 3C 4S 4C 5S 5C", "2: 7S 7C 7D 7H", "3: -", "0: -", "1: -"),
            *("2: 10H", "3: AH", "0: -", "1: -", "0: 9C"),
        ],
    )
    engine, mine = nets(book("southern"), game)
    # C: 1st +2 (L from B) +2 (chain); D: 2nd +1; A: 3rd -1; B: last -2 -2.
    assert mine == [-100, -400, 400, 100]
    assert engine == mine


def test_an_earlier_link_that_went_out_is_still_paid_by_the_last_chopped() -> None:
    # §5 [ours]: A goes out on ♠2, B chops it (A's last card: that link alone would be void),
    # C chops B: the chain goes on, so B pays C for A's 2 as well: ½ + 1½.
    game = scripted(
        "southern",
        ["8C 2S", "3S 3C 4S 4C 5S 5C JD 9D", "7S 7C 7D 7H QH 10H", "6D KD 8D AH"],
        [
            *("3: 6D", "0: 8C", "1: JD", "2: QH", "3: KD", "0: -", "1: -", "2: -", "3: 8D"),
            *("0: 2S", "1: 3S 3C 4S 4C 5S 5C", "2: 7S 7C 7D 7H", "3: -", "1: -"),
            *("2: 10H", "3: AH"),
        ],
        leader=3,
    )
    engine, mine = nets(book("southern"), game)
    assert game.state.places == (1, 4, 2, 3)
    assert mine == [200, -400, 300, -100]
    assert engine == mine


def test_a_chop_of_a_last_card_is_void_in_the_south_and_paid_to_the_chopper_only_in_hue() -> None:
    # §5: B chops A's last card ♠2 with a four of a kind. Southern: nobody pays for it; A is
    # 1st. Huế: going out on a 2 ranks A last, and the chopper is paid ½ by nobody.
    hands = ["5S 2S", "7S 7C 7D 7H 6H 9H", "8D 10D 4D"]
    moves = ["0: 5S", "1: 6H", "2: 8D", "0: 2S", "1: 7S 7C 7D 7H", "2: -", "1: 9H"]
    for variant, expected_nets in (("southern", [300, -100, -200]), ("hue", [-200, 350, -100])):
        game = scripted(variant, hands, moves)
        engine, mine = nets(book(variant), game)
        assert mine == expected_nets
        assert engine == mine


def test_one_frozen_player_of_three_leaves_the_other_alone_with_no_place_transfer() -> None:
    # Investigated disagreement, the calculator was wrong: with 3 players and one frozen, the
    # other non-frozen player is "left alone with frozen players" (§8): 2nd, no place transfer
    # (the calculator first had seat 1 pay 2nd->1st).
    game = scripted(
        "southern",
        ["5S 6S", "4S 9D KH", "3C 4C"],
        ["0: 5S", "1: 9D", "2: -", "0: -", "1: 4S", "2: -", "0: 6S"],
    )
    engine, mine = nets(book("southern"), game)
    assert game.state.places == (1, 2, 3)
    assert mine == [400, 0, -400]
    assert engine == mine


def test_four_players_one_frozen_the_others_still_pay_third_to_second() -> None:
    # §7: one frozen player pays 2L; the three others play on and 3rd pays 2nd as usual,
    # but thối is not charged again (3rd's ♣2 does not rot).
    game = scripted(
        "southern",
        ["5S QS", "4S 9D KH 2C", "8S 2H 10C", "3C 4C"],
        [
            *("0: 5S", "1: 9D", "2: 10C", "3: -", "0: -", "1: -", "2: 8S", "3: -", "0: QS"),
            *("1: KH", "2: 2H"),
        ],
    )
    engine, mine = nets(book("southern"), game)
    assert game.state.places == (1, 3, 2, 4)
    assert mine == [400, -100, 100, -400]
    assert engine == mine


def test_compensation_falls_on_the_first_passer_who_alone_could_beat() -> None:
    # §7 đền bài: seat 0 leads ♠9 then ♠10; seat 1 could beat ♠9 with ♠J while nobody else
    # could, and passed; every opponent is frozen: seat 1 pays the winner all they owe
    # (3 × 2L plus seat 2's 3 consecutive pairs, 1½ = 13½ stakes); seats 2 and 3 pay nothing.
    game = scripted(
        "southern",
        ["9S 10S", "JS 3C", "4C 4D 5C 5D 6C 6H", "5H 6D"],
        ["0: 9S", "1: -", "2: -", "3: -", "0: 10S"],
    )
    engine, mine = nets(book("southern"), game)
    assert mine == [1350, -1350, 0, 0]
    assert engine == mine


def test_ba_mu_and_rotten_three_spades_in_da_nang() -> None:
    # §7, §10 ba mù: winning with ♠3 as the very last card: every other player pays L instead
    # of their place transfer.
    blind = scripted(
        "da_nang",
        ["AS 3S", "5D 6D", "7H 8H 9C"],
        ["1: 5D", "2: 7H", "0: AS", "1: -", "2: -", "0: 3S", "1: 6D"],
        leader=1,
    )
    engine, mine = nets(book("da_nang"), blind)
    assert mine == [400, -200, -200]
    assert engine == mine
    # Rotten ♠3: the last player left holding only ♠3 pays the winner 3 stakes on top of L.
    rotten = scripted("da_nang", ["7H 9C", "4S 3S"], ["1: 4S", "0: 7H", "1: -", "0: 9C"], leader=1)
    engine, mine = nets(book("da_nang"), rotten)
    assert mine == [500, -500]
    assert engine == mine


def test_northern_thoi_hai_falls_on_the_player_left_holding_cards() -> None:
    # Investigated disagreement (a RULES ambiguity; the calculator now follows the engine):
    # seat 2 goes out on ♦2, ranked last (§10); seat 0 wins; seat 1 is left holding ♠2 ♣2 and
    # four kings: it is 2nd, not last, yet source 000/002 ("người chơi còn lại còn hai") makes
    # the player left with a 2 pay thối hai: 13 + 2 stakes to the place above it (the winner).
    game = scripted(
        "northern",
        ["7D AS AC AD AH", "4S KS KC KD KH 2S 2C", "2D"],
        ["1: 4S", "2: 2D", "0: AS AC AD AH", "1: -", "0: 7D"],
        leader=1,
    )
    engine, mine = nets(book("northern"), game)
    assert game.state.places == (1, 2, 3)
    assert mine == [1800, -1600, -200]
    assert engine == mine


def test_dem_la_frozen_loser_pays_everything_doubled() -> None:
    # §8, §10: seat 0 goes out; seat 1 has ♣4 ♥2 left (2 cards + 4 for the red 2), seat 2
    # ♦6 ♠2 (2 + 2); seat 3 never played: (3 cards + 4 for ♦2) × 2.
    game = scripted(
        "dem_la",
        ["9S 10S", "3C 4C 2H", "5D 6D 2S", "7C 8C 2D"],
        ["1: 3C", "2: 5D", "3: -", "0: 9S", "1: -", "2: -", "0: 10S"],
        leader=1,
    )
    engine, mine = nets(book("dem_la"), game)
    assert mine == [2400, -600, -400, -1400]
    assert engine == mine


# --- Fixed: a frozen player placed above players ranked last collected a place transfer.


FROZEN_ABOVE_RANKED_LAST = (["2S", "2C", "3D", "5S"], ["0: 2S", "1: 2C", "2: -", "3: -", "2: 3D"])


def test_a_frozen_player_collects_no_place_transfer() -> None:
    # Huế, 4 players: seat 0 goes out on ♠2 (ranked last, 4th), seat 1 on ♣2 (3rd), seat 2 leads
    # ♦3 and wins; seat 3 never played: frozen, it takes the place left, 2nd. Seat 3 owes 2L;
    # it should not be paid 3rd->2nd by seat 1.
    # (Whether seat 1, also ranked last, should pay 3rd->2nd to nobody, as here, or L to the
    # winner, "pays as last" §10, is a RULES ambiguity; the frozen seat's -2L is not.)
    hands, moves = FROZEN_ABOVE_RANKED_LAST
    game = scripted("hue", hands, moves)
    assert game.state.places == (4, 3, 1, 2)
    assert game.state.frozen == 1 << 3
    engine, mine = nets(book("hue"), game)
    assert mine == [-200, 0, 600, -400]
    assert engine[3] == mine[3]  # the engine: [-200, -100, 600, -300], seat 3 is paid 1 stake


# --- Disagreement 2: the card-count scheme chosen outside the đếm lá preset.


def test_card_count_scoring_on_another_preset_keeps_its_penalty_values() -> None:
    # Southern with scoring=card_count, 2 players: seat 1 leads ♠4, seat 0 goes out with ♠5.
    # Seat 1 keeps 7 cards, among them 3 consecutive pairs and ♣2, at southern's values
    # (issue #25: a scheme is no set of prices): 7 + 1½ + ½ = 9 stakes.
    game = scripted(
        "southern",
        ["5S", "4S 3S 3C 4C 4D 5C 5D 2C"],
        ["1: 4S", "0: 5S"],
        leader=1,
        options={"scoring": "card_count"},
    )
    engine, mine = nets(book("southern", "card_count"), game)
    assert mine == [900, -900]
    assert engine == mine


# --------------------------------------------------------------------------------------------
# Random option combinations (issue #25): whole tables drawn from every documented value of
# every option, each read as the rule book reads it, played as matches through `next_game`.
# --------------------------------------------------------------------------------------------


def random_table(
    rng: random.Random, round_robin: int, forced: Sequence[Mapping[str, str]] = ()
) -> tuple[str, dict[str, str]]:
    """A preset and overrides: every option is overridden with a probability, at a random
    documented value; `round_robin` also sets one value of one option in turn, so a run of
    `sum(len(values))` tables sets every value of every option at least once; and, with
    `forced`, the options of `forced[round_robin % len(forced)]` over all of it."""
    variant = rng.choice(sorted(PRESETS))
    options: dict[str, str] = {}
    for spec in OPTIONS:
        if rng.random() < 0.25:
            options[spec.name] = rng.choice(documented_values(spec.name))
    cells = [(spec.name, v) for spec in OPTIONS for v in documented_values(spec.name)]
    name, value = cells[round_robin % len(cells)]
    options[name] = value
    if forced:
        options |= forced[round_robin % len(forced)]
    return variant, mend_following(variant, options, keep=name)


#: How each option the settlement reads maps onto the rule book's numbers (`Book`): option ->
#: (field, how its text reads).
def _stakes(text: str) -> Fraction | None:
    return None if text == LAST_PLACE else F(text)


BOOK_FIELD: dict[str, tuple[str, Callable[[str], object]]] = {
    "stake": ("stake", int),
    "place_last_to_first": ("last_to_first", F),
    "place_third_to_second": ("third_to_second", F),
    "place_second_to_first": ("second_to_first", F),
    "rotten_two_flat": ("twos_flat", F),
    "chop_table": ("chops", lambda t: CHOPS[t]),
    "long_pairs_chop": ("long_pairs", str),
    "suited_straight_chops": ("suited_straights", lambda t: t == "true"),
    "chop_on_last_card": ("chop_on_last_card", str),
    "chop_chain_out_link": ("chain_out_link", str),
    "finish_on_two": ("last_on_two", lambda t: t == "ranks_last"),
    "finish_on_four_of_a_kind": ("last_on_four", lambda t: t == "ranks_last"),
    "freezing": ("freezing", lambda t: t == "true"),
    "freeze_at": ("freeze_at", str),
    "freeze_multiplier": ("freeze_multiplier", F),
    "frozen_pays": ("frozen_pays", str),
    "freeze_exempt_unplayed": ("freeze_exempt", int),
    "alone_with_frozen_pays_place": ("alone_pays_place", lambda t: t == "true"),
    "chops_paid_on_freeze": ("chops_on_freeze", lambda t: t == "true"),
    "compensation": ("compensation", lambda t: t == "true"),
    "instant_win_stakes": ("instant", _stakes),
    "count_pigs": ("count_pigs", lambda t: t == "true"),
    "blind_three_stakes": ("blind_three", _stakes),
    "blind_three_in_first_game": ("blind_three_first_game", lambda t: t == "true"),
    "rotten_three_stakes": ("rotten_three", F),
    "card_count_per_card": ("per_card", F),
    "card_count_rotten": ("count_rotten_instead", lambda t: t == "instead"),
    "rotten_payee": ("rotten_to_winner", lambda t: t == "winner"),
    "consecutive_pairs": ("consecutive_pairs", lambda t: t == "true"),
    "consecutive_triples": ("consecutive_triples", lambda t: t == "true"),
}
#: Penalty options -> a 2's suit index, or a bomb's name.
TWO_SUITS = {"penalty_two_spades": 0, "penalty_two_clubs": 1, "penalty_two_diamonds": 2}
TWO_SUITS["penalty_two_hearts"] = 3
BOMB_OPTION = dict(
    zip(
        BOMB_PENALTY_OPTIONS,
        ("3pairs", "four", "4pairs", "5pairs", "6pairs", "3triples"),
        strict=True,
    )
)


def book_for(variant: str, options: Mapping[str, str]) -> Book:
    """The rule book's numbers for a preset with these overrides: the preset's (`book`), the
    scheme's (points: its values), then each override as the option's description reads it."""
    scoring = options.get("scoring", "card_count" if variant == "dem_la" else "places")
    changes = {f: read(options[o]) for o, (f, read) in BOOK_FIELD.items() if o in options}
    b = book(variant, scoring, **changes)
    if variant == "dem_la" and scoring == "places":
        b = replace(b, scoring="places")
    twos = list(b.twos)
    bombs = dict(b.bombs)
    for name, text in options.items():
        if name in TWO_SUITS:
            twos[TWO_SUITS[name]] = F(text)
        elif name in BOMB_OPTION:
            bombs[BOMB_OPTION[name]] = F(text)
    return replace(b, twos=tuple(twos), bombs=bombs)  # type: ignore[arg-type]


#: Deals a table may refuse (an explicit deal its redeal options can't play): skipped, counted.
REFUSED_DEALS = frozenset({"REDEAL_REQUIRED", "INVALID_DEAL"})


def four_twos_deal(rng: random.Random, players: int) -> list[int]:
    """Small hands, one of them holding all four 2s (a redeal, or an instant win, or a four of a
    kind where neither applies)."""
    hands = tiny_deal(rng, players)
    holder = rng.randrange(players)
    hands = [h & ~TWOS for h in hands]
    hands[holder] |= TWOS
    return [h or (1 << c) for h, c in zip(hands, (0, 1, 2, 3), strict=False)]


def straights_deal(rng: random.Random, players: int) -> list[int]:
    """Hands built around same-suit straights of 5-7 cards and 2s (suited_straight_chops), padded
    with random cards."""
    free = set(range(52))
    hands = [0] * players
    for seat in range(players):
        picks: list[int] = []
        if rng.random() < 0.7:
            length, suit = rng.randint(5, 7), rng.randrange(4)
            low = rng.randrange(0, 12 - length + 1)
            picks += [r * 4 + suit for r in range(low, low + length)]
        picks += rng.sample(range(48, 52), rng.randint(0, 2))
        for c in picks:
            if c in free:
                free.discard(c)
                hands[seat] |= 1 << c
        for c in rng.sample(sorted(free), rng.randint(1, 3)):
            free.discard(c)
            hands[seat] |= 1 << c
    return hands


def twos_deal(rng: random.Random, players: int) -> list[int]:
    """Hands of 1-3 cards, each with a 2 where there is one left: where going out on a 2 ranks
    last, the first player out often does so (cóng judged until the win)."""
    hands = tiny_deal(rng, players, most=3)
    hands = [h & ~TWOS for h in hands]
    for seat, two in zip(rng.sample(range(players), players), range(48, 52), strict=False):
        hands[seat] |= 1 << two
    return hands


def deal_for(
    rng: random.Random, b: Book, rules: RuleSet, players: int, state: GameState | None
) -> tuple[GameState, list[Event], str]:
    """The next game of a match (or its first): a seeded deal, or an explicit tiny or bomb deal
    (those make cóng, chains and thối common), now and then one hand of four 2s, and same-suit
    straights where they chop; with the kind of deal it was. A deal the table refuses (an
    explicit deal its redeal options can't play) is counted and dealt again from a seed."""
    kinds = ["seeded", "tiny", "bombs", "four twos" if rng.random() < 0.1 else "tiny"]
    if b.suited_straights:
        kinds.append("straights")
    if b.last_on_two:
        kinds.append("twos")
    kind = rng.choice(kinds)
    # Explicit deals take a seed too: the draws a deal makes (a random first leader) come from
    # it, so every run plays the same games.
    seed, hands = rng.randrange(1 << 30), None
    if kind == "seeded" or rules.deal_all_cards:
        kind = "seeded"
    elif kind == "four twos":
        hands = four_twos_deal(rng, players)
    elif kind == "straights":
        hands = straights_deal(rng, players)
    elif kind == "twos":
        hands = twos_deal(rng, players)
    else:
        most = 13
        hands = tiny_deal(rng, players) if kind == "tiny" else bomb_deal(rng, players, b, most)
    first = rng.random() < 0.5
    leader = None if first or rules.starting_card_every_game else rng.randrange(players)
    try:
        if state is None:
            dealt, events = new_game(
                rules, players, seed=seed, hands=hands, first_game=first, leader=leader
            )
        else:
            dealt, events = next_game(state, seed=seed, hands=hands)
    except SetupError as exc:
        if exc.code not in REFUSED_DEALS or hands is None:
            raise
        seed = rng.randrange(1 << 30)
        if state is None:
            dealt, events = new_game(rules, players, seed=seed, first_game=first, leader=leader)
        else:
            dealt, events = next_game(state, seed=seed)
        kind = f"refused {exc.code}"
    return dealt, list(events), kind


def lead_problems(rules: RuleSet, state: GameState, where: str) -> list[str]:
    """Who leads a game as dealt, and what its lead must contain (RULES §4; góp 3's readings,
    issue #38): a first game is led by the starting card's holder with it (♣3 where the table
    says), by a fair draw with first_game_leader = random, and where the card is out of play by
    the lowest card's holder, with it (lowest_card), freely (lowest_card_free), or by a draw
    (random); with góp 3 every other game is led by the same holder — the lowest card's where
    the starting card is out — with anything. Other games: the previous winner (`match_problems`)."""
    if state.instant_winner >= 0:
        return []
    values = rules.option_values()
    first = state.first_game
    if not first and not values["starting_card_every_game"]:
        return []
    everything = 0
    for hand in state.dealt:
        everything |= hand
    start_card = 1 if values["starting_card"] == "3C" else SPADE_THREE
    missing = values["missing_starting_card"]
    drawn = first and (
        values["first_game_leader"] == "random"
        or (not everything >> start_card & 1 and missing == "random")
    )
    if drawn:
        leader, must = state.to_act, -1
    else:
        card = start_card if everything >> start_card & 1 else min(cards_of(everything))
        leader = next(s for s, h in enumerate(state.dealt) if h >> card & 1)
        free = card != start_card and missing == "lowest_card_free"
        must = card if first and not free else -1
    if (state.to_act, state.must_include) != (leader, must):
        got = f"seat {state.to_act} leads including {state.must_include}"
        return [f"{where}: {got}, expected seat {leader} including {must}"]
    return []


def deal_problems(rules: RuleSet, state: GameState, events: list[Event], where: str) -> list[str]:
    """The deal's own rules: four_twos = redeal deals no hand all four 2s (sources 000/001),
    whatever the instant-win list; with four_threes_lay_down_twos, a deal with four 3s in a hand
    leaves no 2 in any hand (source 000)."""
    problems = []
    if rules.four_twos == "redeal":
        if any(h & TWOS == TWOS for h in state.dealt):
            problems.append(f"{where}: a hand was dealt all four 2s under four_twos = redeal")
        if any(isinstance(e, InstantWin) and e.pattern == "four_twos" for e in events):
            problems.append(f"{where}: four 2s won under four_twos = redeal")
    four_threes = any(h & 0xF == 0xF for h in state.dealt)
    if rules.four_threes_lay_down_twos and four_threes and any(h & TWOS for h in state.dealt):
        problems.append(f"{where}: four 3s dealt, and 2s still in hand")
    return problems


def run_matches(
    tables: int, games: int, seed: int, forced: Sequence[Mapping[str, str]] = ()
) -> Counter[str]:
    """`tables` random tables (`random_table`), each a match of up to `games` games through
    `next_game`; every game's nets must be the calculator's, and between games the match must
    carry on as RULES §7, §9 say: the winner (or the player who compensated) leads, a game after
    an instant win is a first game again (unless first_game_after_instant_win is off), the
    totals are the sums of the nets, the dealer rotates as dealer_rotation says, and a player
    below the bankroll ends the match."""
    rng = random.Random(seed)
    seen: Counter[str] = Counter()
    problems: list[str] = []
    for index in range(tables):
        variant, options = random_table(rng, index, forced)
        for name, value in options.items():
            seen[f"{name}={value}"] += 1
        rules = build_rules(variant, options)
        b = book_for(variant, options)
        players = 3 if rules.deal_all_cards else rng.choice((2, 3, 4))
        state: GameState | None = None
        previous: Outcome | None = None
        totals = [0] * players
        for number in range(games):
            new_state, events, kind = deal_for(rng, b, rules, players, state)
            seen[f"deal {kind}"] += 1
            game = Game(
                new_state, Record(players, new_state.dealt, events, [], new_state.first_game)
            )
            where = f"table {index} ({variant} {options}) game {number}"
            if state is not None and previous is not None:
                problems += match_problems(b, state, previous, new_state, totals, where)
            problems += lead_problems(rules, new_state, where)
            problems += deal_problems(rules, new_state, events, where)
            if rules.starting_card_every_game and not new_state.first_game:
                seen["góp 3 lead"] += 1
            play_out(game, b, rng, rng.choice(STYLES))
            seen["game"] += 1
            seen["suited straight chop"] += sum(
                isinstance(e, Played) and e.chop and chop_class(e.cards).startswith("straight")
                for e in game.record.events
            )
            mine = expected(b, game.record)
            for note in mine.notes:
                seen[
                    " ".join(note.split()[2:]) if "->" in note else note.split(":")[-1].strip()
                ] += 1
            problem = compare(b, rules, game, f"table {index} {options}")
            if problem is not None:
                problems.append(str(problem))
            totals = [t + n for t, n in zip(totals, mine.net, strict=True)]
            state, previous = game.state, mine
            if rules.match_bankroll and any(rules.match_bankroll + t < 0 for t in totals):
                with pytest.raises(SetupError, match="match is over"):
                    next_game(state, seed=1)
                seen["match over"] += 1
                break
        seen["table"] += 1
    assert not problems, f"{len(problems)} disagreements, first: {problems[0]}"
    return seen


def match_problems(
    b: Book,
    before: GameState,
    mine: Outcome,
    after: GameState,
    totals: list[int],
    where: str,
) -> list[str]:
    """What differs, between two games of a match, from RULES §7 and §9 (see `run_matches`)."""
    rules = before.rules
    problems = []
    instant = before.instant_winner >= 0
    first = instant and rules.first_game_after_instant_win
    if after.first_game != first:
        problems.append(f"{where}: first game {after.first_game}, expected {first}")
    if list(after.match.totals) != totals:
        problems.append(f"{where}: totals {after.match.totals}, expected {totals}")
    winner = mine.places.index(1)
    dealer = (
        winner if rules.dealer_rotation == "winner" else (before.match.dealer + 1) % before.players
    )
    if after.match.dealer != dealer:
        problems.append(f"{where}: dealer {after.match.dealer}, expected {dealer}")
    leads = not first and not rules.starting_card_every_game and after.instant_winner < 0
    if leads and not after.over:
        leader = winner if mine.compensator < 0 else mine.compensator
        if after.to_act != leader:
            problems.append(f"{where}: {after.to_act} leads, expected {leader}")
    return problems


#: Tables and games per match of the combination check: bounded by count, seeded.
COMBINATION_TABLES = 400
COMBINATION_GAMES = 4


def test_random_option_combinations_settle_as_the_rule_book_says() -> None:
    seen = run_matches(COMBINATION_TABLES, COMBINATION_GAMES, seed=25)
    for spec in OPTIONS:  # every documented value of every option was played
        for value in documented_values(spec.name):
            assert seen[f"{spec.name}={value}"], f"{spec.name}={value} never drawn"
    for part in ("cóng", "thối", "chop x1", "instant win", "place", "match over"):
        assert seen[part], f"no game settled {part}"
    assert seen["game"] >= COMBINATION_TABLES * 2


#: Options each table of `test_matches_with_the_options_of_issue_38_...` sets in turn, over a
#: random table (issue #38): góp 3, a match bankroll, cóng at every finish with the exemption of
#: the win, cóng until the win where going out on a 2 ranks last, the four 2s' redeal, and
#: same-suit straight bombs.
FORCED_OPTIONS: tuple[dict[str, str], ...] = (
    {"starting_card_every_game": "true"},
    {"match_bankroll": "300"},
    {"freezing": "true", "freeze_at": "every_finish", "freeze_exempt_unplayed": "1"},
    {"freezing": "true", "freeze_at": "until_win", "finish_on_two": "ranks_last"},
    {"four_twos": "redeal"},
    {"suited_straight_chops": "true"},
)
FORCED_TABLES = 240


def test_matches_with_the_options_of_issue_38_play_and_settle_as_the_rule_book_says() -> None:
    seen = run_matches(FORCED_TABLES, COMBINATION_GAMES, seed=38, forced=FORCED_OPTIONS)
    for part in (
        "góp 3 lead",
        "match over",
        "cóng at a later finish",
        "deal refused REDEAL_REQUIRED",
        "suited straight chop",
        "frozen cards left",
    ):
        assert seen[part], f"no game reached {part}"


def test_card_count_conversions_instead_of_cards_take_the_split_of_the_largest_payment() -> None:
    # §8 "the way that gives the largest total", §10 conversions instead of the cards: with a
    # four and 3 consecutive pairs both at 6 stakes, 5555 66 77 splits as the four, which
    # leaves 4 cards paid as cards: 6 + 4 = 10 stakes, not 6 + 2; a card worth more as a card
    # than as a conversion stays a card (a reading the combination check settled).
    options = {
        "scoring": "card_count",
        "card_count_rotten": "instead",
        "penalty_three_pairs": "6",
        "penalty_four_of_a_kind": "6",
        "freezing": False,
    }
    game = scripted("southern", ["9S", "5S 5C 5D 5H 6S 6C 7S 7C 2S"], ["0: 9S"], options=options)
    b = replace(
        book("southern", "card_count"),
        count_rotten_instead=True,
        freezing=False,
        bombs={**SOUTHERN_BOMBS, "3pairs": F(6), "four": F(6)},
    )
    engine, mine = nets(b, game)
    assert mine == [1100, -1100]  # ♠2: ½ as a conversion, 1 as a card
    assert engine == mine
