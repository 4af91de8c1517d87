"""Rotten cards (*thối*), RULES §8: the largest-value split of a hand into 2s and bombs.

A hand left at the end is split into disjoint 2s and valued bombs (those with a penalty value
under the rules) in the way that gives the largest total **[ours]**. This one is not an option:
no source says how overlapping 2s and bombs are split (they only say the last hand's "heo, hàng"
are counted), and the one that says who counts, source 003, has the player who collects do the
check ("chỉ do người về thứ ba tự tiến hành"), which points to the largest split, not another.
The search runs over per-rank counts (only 2s have suit-dependent values, and 2s are in no
sequence), memoised, so it is instant even for an 18-card hand.
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

from tienlen_rules.cards import RANK_MASKS, RANK_TWO, TWOS, CardSet, rank_counts
from tienlen_rules.combinations import (
    CONSECUTIVE_PAIRS,
    CONSECUTIVE_TRIPLES,
    FOUR_OF_A_KIND,
    ChopClass,
)
from tienlen_rules.ruleset import RuleSet


class RottenPart(NamedTuple):
    """One part of a split: a 2 or a valued bomb (`chop_class`), its cards, `value` stakes."""

    chop_class: ChopClass
    cards: CardSet
    value: Fraction


class _Shape(NamedTuple):
    bomb: ChopClass
    width: int  # cards per rank
    ranks: int  # consecutive ranks


#: Cards per rank of each kind of valued bomb: a four of a kind is 4 cards of one rank.
_WIDTH = {FOUR_OF_A_KIND: 4, CONSECUTIVE_PAIRS: 2, CONSECUTIVE_TRIPLES: 3}


def _shapes(rules: RuleSet) -> tuple[tuple[_Shape, Fraction], ...]:
    shapes: list[tuple[_Shape, Fraction]] = []
    for bomb, value in rules.bomb_values.items():
        width = _WIDTH.get(bomb.kind)
        if width is not None:
            ranks = 1 if bomb.kind == FOUR_OF_A_KIND else bomb.length
            shapes.append((_Shape(bomb, width, ranks), value))
    return tuple(shapes)


def _loose_twos(rules: RuleSet, twos: CardSet, credit: Fraction) -> CardSet:
    """The loose 2s worth charging: every valued one (`credit` 0), or, where each card not in
    the split is paid `credit` instead (card count, conversions instead of the cards), those
    worth more as a conversion than as a card (flat thối hai: all of them or none)."""
    if rules.rotten_two_flat:
        return twos if twos and rules.rotten_two_flat > credit * twos.bit_count() else 0
    return sum(
        (1 << c for c in range(48, 52) if twos >> c & 1 and twos_value(rules, 1 << c) > credit),
        0,
    )


def twos_value(rules: RuleSet, twos: CardSet) -> Fraction:
    """The value of loose 2s: by suit, or the Northern flat *thối hai* once for any."""
    if not twos:
        return Fraction(0)
    if rules.rotten_two_flat:
        return rules.rotten_two_flat
    return rules.twos_penalty(twos)


def rotten_split(
    rules: RuleSet, hand: CardSet, credit: Fraction = Fraction(0)
) -> tuple[RottenPart, ...]:
    """The disjoint split of `hand` into valued bombs and 2s that gives the largest total
    (RULES §8; empty: nothing rots). Where each card left out of the split is paid `credit`
    instead (card count with its conversions instead of the cards), the total is the split's
    value plus `credit` per card it leaves: the largest payment, not merely the largest value."""
    packed = rank_counts(hand)
    counts = tuple((packed >> (4 * r)) & 0xF for r in range(13))
    _, placements = _best(rules, counts, hand & TWOS, credit)
    parts: list[RottenPart] = []
    remaining = hand
    value_of = dict(_shapes(rules))
    for shape, low in placements:
        cards = 0
        for rank in range(low, low + shape.ranks):
            taken = 0
            for card in range(4 * rank, 4 * rank + 4):
                if remaining >> card & 1 and taken < shape.width:
                    cards |= 1 << card
                    taken += 1
        remaining &= ~cards
        parts.append(RottenPart(shape.bomb, cards, value_of[shape]))
    loose = _loose_twos(rules, remaining & TWOS, credit)
    if loose and rules.rotten_two_flat:
        parts.append(RottenPart(ChopClass.TWO, loose, rules.rotten_two_flat))
    elif loose:
        parts.extend(
            RottenPart(ChopClass.TWO, 1 << c, twos_value(rules, 1 << c))
            for c in range(48, 52)
            if loose >> c & 1
        )
    return tuple(p for p in parts if p.value)


def rotten_value(rules: RuleSet, hand: CardSet) -> Fraction:
    """The total value of the hand's rotten 2s and bombs, in stakes."""
    return sum((p.value for p in rotten_split(rules, hand)), Fraction(0))


@lru_cache(maxsize=4096)
def _best(
    rules: RuleSet, counts: tuple[int, ...], twos: CardSet, credit: Fraction
) -> tuple[Fraction, tuple[tuple[_Shape, int], ...]]:
    """Best (score, placements) for these rank counts; `twos` are the 2s still loose; a part's
    score is its value less `credit` per card it takes."""
    charged = _loose_twos(rules, twos, credit)
    best_value = twos_value(rules, charged) - credit * charged.bit_count()
    best: tuple[tuple[_Shape, int], ...] = ()
    for shape, value in _shapes(rules):
        # A four of a kind may be four 2s; a run of pairs or triples never holds a 2.
        last_low = RANK_TWO + 1 - shape.ranks if shape.width == 4 else RANK_TWO - shape.ranks
        for low in range(last_low + 1):
            span = range(low, low + shape.ranks)
            if all(counts[r] >= shape.width for r in span):
                rest = tuple(c - shape.width if r in span else c for r, c in enumerate(counts))
                rest_twos = twos & ~RANK_MASKS[RANK_TWO] if RANK_TWO in span else twos
                sub_value, sub = _best(rules, rest, rest_twos, credit)
                score = value - credit * shape.width * shape.ranks + sub_value
                if score > best_value:
                    best_value = score
                    best = ((shape, low), *sub)
    return best_value, best
