"""Instant wins (*tới trắng*), RULES §7: hands that win on the deal, as named patterns.

Each list is data: (pattern name, first games only, dealer only, test). The test reads a hand's
per-rank counts. Four of a kind counts as two pairs and a triple as none **[ours]**.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from tienlen_rules.cards import BLACK, RANK_TWO, RED, SUIT_MASKS, CardSet, rank_counts
from tienlen_rules.choices import FourTwos, InstantWinList
from tienlen_rules.events import Event, GameOver, InstantWin
from tienlen_rules.ruleset import RuleSet
from tienlen_rules.state import GameState, replaced

Test = Callable[[CardSet, RuleSet], bool]


class Pattern(NamedTuple):
    """One instant-win pattern of a list."""

    name: str
    first_game_only: bool
    dealer_only: bool
    test: Test


def _counts(hand: CardSet) -> list[int]:
    packed = rank_counts(hand)
    return [(packed >> (4 * r)) & 0xF for r in range(13)]


def _longest_run(counts: list[int], at_least: int, start_rank: int | None = None) -> int:
    """Longest run of consecutive ranks below 2 holding `at_least` cards each (from `start_rank`)."""
    best = run = 0
    for rank in range(RANK_TWO):
        run = run + 1 if counts[rank] >= at_least else 0
        if start_rank is None or rank - run + 1 == start_rank:
            best = max(best, run)
    return best


def _pairs(counts: list[int], *, triple_as_one: bool = False) -> int:
    triple = 1 if triple_as_one else 0
    return sum(2 if c == 4 else 1 if c == 2 else triple if c == 3 else 0 for c in counts)


def run_of(n: int, width: int, *, with_start: bool = False) -> Test:
    """`n` or more consecutive ranks of `width` cards each (pairs 2, triples 3, fours 4);
    `with_start`: the run begins at the 3s and holds the starting card."""

    def test(hand: CardSet, rules: RuleSet) -> bool:
        if with_start and not hand >> rules.start_card & 1:
            return False
        return _longest_run(_counts(hand), width, 0 if with_start else None) >= n

    return test


def rank_complete(rank: int) -> Test:
    """All four cards of a rank (four 3s, four 2s)."""
    return lambda hand, _rules: _counts(hand)[rank] == 4


def pairs_of_any_ranks(n: int) -> Test:
    """`n` or more pairs of any ranks (a four of a kind counts as two; a triple as none
    **[ours]**, or as one with the option `triple_counts_as_pair`)."""
    return lambda hand, rules: _pairs(_counts(hand), triple_as_one=rules.triple_counts_as_pair) >= n


def sets_of_any_ranks(n: int, width: int) -> Test:
    """`n` or more ranks holding at least `width` cards (5 triples, 4 fours of a kind)."""
    return lambda hand, _rules: sum(c >= width for c in _counts(hand)) >= n


def pairs_and_triple(n: int, *, consecutive: bool) -> Test:
    """`n` pairs (consecutive if asked) plus a triple of another rank (source 000)."""

    def test(hand: CardSet, _rules: RuleSet) -> bool:
        counts = _counts(hand)
        for rank, c in enumerate(counts):
            if c == 3:
                rest = [*counts[:rank], 0, *counts[rank + 1 :]]
                found = _longest_run(rest, 2) if consecutive else _pairs(rest)
                if found >= n:
                    return True
        return False

    return test


def dragon(*, same_suit: bool) -> Test:
    """The dragon straight 3..A (*sảnh rồng*), any suits or all one suit."""

    def test(hand: CardSet, _rules: RuleSet) -> bool:
        if same_suit:
            return any(_longest_run(_counts(hand & SUIT_MASKS[s]), 1) == 12 for s in range(4))
        return _longest_run(_counts(hand), 1) == 12

    return test


def one_colour(n: int) -> Test:
    """`n` or more cards of one colour."""
    return lambda hand, _rules: max((hand & RED).bit_count(), (hand & BLACK).bit_count()) >= n


_ANY_GAME = (
    Pattern("four_twos", False, False, rank_complete(RANK_TWO)),
    Pattern("five_consecutive_pairs", False, False, run_of(5, 2)),
    Pattern("six_pairs", False, False, pairs_of_any_ranks(6)),
    Pattern("same_suit_dragon", False, False, dragon(same_suit=True)),
    Pattern("dragon", False, False, dragon(same_suit=False)),
    Pattern("twelve_of_one_colour", False, False, one_colour(12)),
)
_FOUR_THREES = Pattern("four_threes", True, False, rank_complete(0))
_THREE_PAIRS_WITH_START = Pattern(
    "three_consecutive_pairs_with_start", True, False, run_of(3, 2, with_start=True)
)
_STANDARD_FIRST = (_FOUR_THREES, _THREE_PAIRS_WITH_START)
_EXTENDED_FIRST = (
    # A hand that forms two patterns is named by the first that matches, as a player would
    # name it: the 13-card patterns, then sets (3 consecutive fours, 4 then 3 consecutive
    # triples, four 3s) before runs of pairs (4 then 3 with ♠3) — 3333-4444-5555 are 3
    # consecutive fours, 333-444-555-666 four consecutive triples, 3333-44-55 four 3s, as in
    # the standard list and Đấu's below. The payment is the same whichever matches.
    Pattern(
        "five_consecutive_pairs_and_triple", True, False, pairs_and_triple(5, consecutive=True)
    ),
    Pattern("five_pairs_and_triple", True, False, pairs_and_triple(5, consecutive=False)),
    Pattern("three_consecutive_fours", True, False, run_of(3, 4)),
    Pattern("four_consecutive_triples", True, False, run_of(4, 3)),
    Pattern("three_consecutive_triples", True, False, run_of(3, 3)),
    _FOUR_THREES,
    Pattern("four_consecutive_pairs_with_start", True, False, run_of(4, 2, with_start=True)),
    _THREE_PAIRS_WITH_START,
)
_DAU = (
    Pattern("four_consecutive_pairs_with_start", True, True, run_of(4, 2, with_start=True)),
    Pattern("three_consecutive_triples_with_start", True, True, run_of(3, 3, with_start=True)),
    # Most specific first, so the pattern reported is the one a player would name (four fours
    # are also eight pairs); the payment is the same whichever matches.
    Pattern("three_consecutive_fours", False, False, run_of(3, 4)),
    Pattern("four_fours", False, False, sets_of_any_ranks(4, 4)),
    Pattern("four_consecutive_triples", False, False, run_of(4, 3)),
    Pattern("five_triples", False, False, sets_of_any_ranks(5, 3)),
    Pattern("seven_consecutive_pairs", False, False, run_of(7, 2)),
    Pattern("eight_pairs", False, False, pairs_of_any_ranks(8)),
    Pattern("fifteen_of_one_colour", False, False, one_colour(15)),
    Pattern("same_suit_dragon", False, False, dragon(same_suit=True)),
)
_DEM_LA = (
    Pattern("dragon", False, False, dragon(same_suit=False)),
    Pattern("four_twos", False, False, rank_complete(RANK_TWO)),
    Pattern("five_consecutive_pairs", False, False, run_of(5, 2)),
    Pattern("six_pairs", False, False, pairs_of_any_ranks(6)),
)

INSTANT_WIN_LISTS: dict[InstantWinList, tuple[Pattern, ...]] = {
    InstantWinList.NONE: (),
    InstantWinList.STANDARD: _STANDARD_FIRST + _ANY_GAME,
    InstantWinList.EXTENDED: _EXTENDED_FIRST + _ANY_GAME,
    InstantWinList.DAU: _DAU,
    InstantWinList.DEM_LA: _DEM_LA,
}


def instant_win(rules: RuleSet, hand: CardSet, *, first_game: bool, is_dealer: bool) -> str:
    """The first pattern of the rules' list that this hand holds, or ""."""
    for pattern in INSTANT_WIN_LISTS[rules.instant_wins]:
        if pattern.first_game_only and not (first_game and rules.first_game_instant_wins):
            continue
        if (
            not pattern.first_game_only
            and first_game
            and not rules.any_game_instant_wins_in_first_game
        ):
            continue
        if pattern.dealer_only and not is_dealer:
            continue
        if pattern.name == "four_twos" and rules.four_twos == FourTwos.REDEAL:
            continue
        if pattern.test(hand, rules):
            return pattern.name
    return ""


def instant_winners(
    rules: RuleSet, dealt: tuple[CardSet, ...], lead: int, dealer: int, *, first_game: bool
) -> list[tuple[int, str]]:
    """Every seat whose hand wins at once, with its pattern, in seat order from the leader."""
    n = len(dealt)
    if rules.instant_wins == InstantWinList.NONE:
        return []
    if not rules.instant_wins_on_short_hands and min(h.bit_count() for h in dealt if h) < 13:
        return []
    found = []
    for offset in range(n):
        seat = (lead + offset) % n
        if not dealt[seat]:  # an empty seat (RULES §9.1)
            continue
        pattern = instant_win(rules, dealt[seat], first_game=first_game, is_dealer=seat == dealer)
        if pattern:
            found.append((seat, pattern))
    return found


def declare_instant_win(
    state: GameState, winners: list[tuple[int, str]], events: list[Event]
) -> GameState:
    """Tới trắng, checked on the deal (`instant_winners`): when several hands qualify, the
    first in seat order from the leader wins (**[ours]**; option `instant_win_tie`: redeal)."""
    if not winners:
        return state
    seat, pattern = winners[0]
    last = state.seated_count
    places = tuple(1 if s == seat else p or last for s, p in enumerate(state.places))
    events += [InstantWin(seat, pattern), GameOver(places)]
    return replaced(state, to_act=-1, places=places, instant_winner=seat, instant_pattern=pattern)
