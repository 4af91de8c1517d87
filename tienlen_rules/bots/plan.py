"""Hand planning for the heuristic bots: how many more leads a hand needs (*tính bài*).

A player wants to shed a hand in as few plays as possible, keeping 2s (*heo*) and bombs (*hàng*)
as control: they win a round or chop, so they cost no lead of their own. `plan_cost` splits a
hand greedily into consecutive pairs (*đôi thông*), straights (*sảnh*), then one set (single,
pair or triple) per remaining rank, in two orders (longest straights first; straights only from
unpaired ranks) and counts the units of the cheaper split.

It works on rank *layers* — bit 4r of layer k is set when rank r holds at least k cards — so
taking a straight or a run of pairs is a few integer operations, and a plan takes microseconds.
It is a heuristic (suits are ignored except for Northern one-suit straights), never a legality
check.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

from tienlen_rules.cards import RANK_TWO, RANK_UNIT, TWOS, CardSet, rank_counts
from tienlen_rules.combinations import ChopClass, Combination, chop_class
from tienlen_rules.ruleset import RuleSet

_SEQ_UNIT = RANK_UNIT & ~(1 << (4 * RANK_TWO))  # bit 4r for ranks 3..A
Layers = tuple[int, int, int, int]


class PlanRules(NamedTuple):
    """The few rule options planning depends on (hashable, for the memo)."""

    consecutive_pairs: bool
    single_suit_straights: bool
    bombs: frozenset[ChopClass]

    @classmethod
    def of(cls, rules: RuleSet) -> PlanRules:
        """The planning view of a rule set; the last one is kept (playouts ask for it for
        every play they weigh, always with the same rule set, and building it, or even hashing
        the rule set, costs more than the memoised plan itself)."""
        global _LAST  # noqa: PLW0603 - a one-entry memo, replaced whole (thread-safe)
        last = _LAST
        if last is not None and last[0] is rules:
            return last[1]
        found = cls(
            rules.consecutive_pairs, rules.single_suit_straights, frozenset(rules.chop_targets)
        )
        _LAST = (rules, found)
        return found


_LAST: tuple[RuleSet, PlanRules] | None = None


def is_precious(combo: Combination, rules: RuleSet) -> bool:
    """Whether a play spends control: it holds a 2 or is a bomb that can chop."""
    return bool(combo.cards & TWOS) or chop_class(combo) in rules.chop_targets


def plan_cost(hand: CardSet, rules: RuleSet) -> int:
    """How many plays the hand still needs, not counting 2s and bombs (they take control)."""
    return _plan_cost(hand, PlanRules.of(rules))


@lru_cache(maxsize=1 << 16)
def _plan_cost(hand: CardSet, rules: PlanRules) -> int:
    # Memoised: search bots ask about the same hands over and over; the function is pure.
    layers = _layers(hand)
    # A four of a kind is a bomb: free, and out of the plan.
    if ChopClass.FOUR_OF_A_KIND in rules.bombs:
        layers = _remove(layers, layers[3], 4)
    cost = 0
    if rules.consecutive_pairs:
        cost, layers = _take_pair_runs(layers, rules.bombs)
    if rules.single_suit_straights:
        return cost + _suited(hand, layers)
    return cost + min(_straights_first(layers), _unpaired_straights(layers))


def _layers(hand: CardSet) -> Layers:
    c = rank_counts(hand)
    one = (c | c >> 1 | c >> 2) & _SEQ_UNIT
    two = (c >> 1 | c >> 2) & _SEQ_UNIT
    three = (c >> 2 | (c & c >> 1)) & _SEQ_UNIT
    return one, two, three, c >> 2 & _SEQ_UNIT


def _remove(layers: Layers, ranks: int, k: int) -> Layers:
    """Take `k` (1, 2 or 4) cards from each rank in `ranks` (which hold at least `k`)."""
    one, two, three, four = layers
    keep = ~ranks
    if k == 1:
        return (
            one & keep | two & ranks,
            two & keep | three & ranks,
            three & keep | four & ranks,
            four & keep,
        )
    if k == 2:
        return one & keep | three & ranks, two & keep | four & ranks, three & keep, four & keep
    return one & keep, two & keep, three & keep, four & keep


_REPUNIT = tuple(sum(1 << (4 * i) for i in range(n)) for n in range(14))


def _longest_run(ranks: int) -> tuple[int, int]:
    """The longest run of consecutive ranks in a layer: (its ranks as a layer mask, length)."""
    length = 0
    last = 0
    while ranks:
        last = ranks
        ranks &= ranks >> 4
        length += 1
    return (last & -last) * _REPUNIT[length], length


def _take_pair_runs(layers: Layers, bombs: frozenset[str]) -> tuple[int, Layers]:
    """Take runs of 3+ consecutive pairs: free when they chop, one play otherwise."""
    cost = 0
    while True:
        run, length = _longest_run(layers[1])
        if length < 3:
            return cost, layers
        cost += f"{length}pairs" not in bombs
        layers = _remove(layers, run, 2)


def _straights_first(layers: Layers) -> int:
    """Units when the longest straights are taken first, then one set per rank."""
    cost = 0
    while True:
        run, length = _longest_run(layers[0])
        if length < 3:
            return cost + layers[0].bit_count()
        cost += 1
        layers = _remove(layers, run, 1)


def _unpaired_straights(layers: Layers) -> int:
    """Units when straights come only from ranks holding one card (no pair is broken)."""
    singles = layers[0] & ~layers[1]
    cost = layers[0].bit_count()
    while True:
        run, length = _longest_run(singles)
        if length < 3:
            return cost
        cost -= length - 1
        singles &= ~run


def _suited(hand: CardSet, layers: Layers) -> int:
    """Northern: straights are one suit; take suited runs of 3+, then one set per rank."""
    cost = 0
    for suit in range(4):
        suited = hand >> suit & layers[0]
        while True:
            run, length = _longest_run(suited)
            if length < 3:
                break
            cost += 1
            suited &= ~run
            layers = _remove(layers, run, 1)
    return cost + layers[0].bit_count()
