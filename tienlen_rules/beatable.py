"""Whether a hand can beat a sequence (*đè sảnh, đôi thông*), answered without building its runs.

`movegen.has_beat` asks "can anyone beat this?" at every pass (compensation, *đền bài*, RULES
§7) and the bots ask it of every card they have not seen. For a straight (*sảnh*) or a run of
pairs or triples (*đôi thông*, *sám cô thông*) the hand's runs are products of per-rank choices:
34 unseen cards hold over half a million 12-card straights, so building them to find one costs
seconds. The answer needs only one run per end rank and top card: a run of `length` ranks
ending at rank `e` exists when every rank below `e` in the window has a choice, and it beats the
table when the choice at `e` puts a card above the table's top on top (RULES §3). In the North
the top card must also follow suit, and a same-suit straight may chop (RULES §6, §10): those
are `beating.beat`'s to decide, so one representative run per top card is built and asked, the
one-suit run when the hand has one (it is all a chop can need). At most 12 end ranks times 6
choices: microseconds, whatever the hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from tienlen_rules.beating import beat
from tienlen_rules.cards import RANK_TWO, RANK_UNIT, CardSet
from tienlen_rules.combinations import Combination
from tienlen_rules.ruleset import RuleSet

_new = tuple.__new__
_SEQ_UNIT = RANK_UNIT & ~(1 << (4 * RANK_TWO))  # bit 4r for the ranks 3..A


def has_run_above(choices: Sequence[Sequence[int]], table: Combination, rules: RuleSet) -> bool:
    """Whether some run of the table's type and length, made of one choice per rank
    (`choices[r]`: the card masks rank r can add, ranks 3..A), has a top card above the
    table's and beats it (`beat`): exactly whether building them all would find one."""
    kind, length, top = table.kind, table.length, table.top
    above = (2 << top) - 1  # a rank's choice puts a higher card on top iff it exceeds this
    last = len(choices)
    having = 0  # bit r: rank r has a choice
    for r in range(last):
        if choices[r]:
            having |= 1 << r
    below = (1 << (length - 1)) - 1  # the window's ranks under its end
    for end in range(max(length - 1, top >> 2), last):
        lowest = end - length + 1
        if having >> lowest & below != below:
            continue
        for on_top in choices[end]:
            if on_top <= above:
                continue
            if not rules.follow_suit:
                return True
            cards = on_top | _below(choices, lowest, end, on_top)
            run = _new(Combination, (kind, length, on_top.bit_length() - 1, cards))
            if beat(run, table, rules)[0]:
                return True
    return False


def _below(choices: Sequence[Sequence[int]], lowest: int, end: int, on_top: int) -> int:
    """The ranks under the top of a representative run: the top card's suit where the rank
    has it (a one-suit straight when the hand holds one), else the rank's first choice."""
    suit = (on_top.bit_length() - 1) & 3
    cards = 0
    for r in range(lowest, end):
        same = 1 << (4 * r + suit)
        cards |= same if same in choices[r] else choices[r][0]
    return cards


def has_suited_run(hand: CardSet, length: int) -> bool:
    """Whether `hand` holds `length` consecutive ranks (3..A) of one suit: a same-suit
    straight, the Northern bomb (*sảnh đồng chất*)."""
    for suit in range(4):
        run = (hand >> suit) & _SEQ_UNIT
        for _ in range(length - 1):
            run &= run >> 4
        if run:
            return True
    return False


def at_least(hand: CardSet, n: int) -> int:
    """Set bit 4r where the hand holds at least `n` cards of rank r."""
    x = (hand & 0x5555555555555) + ((hand >> 1) & 0x5555555555555)
    counts = (x & 0x3333333333333) + ((x >> 2) & 0x3333333333333)
    if n == 1:
        return (counts | counts >> 1 | counts >> 2) & RANK_UNIT
    if n == 2:
        return (counts >> 1 | counts >> 2) & RANK_UNIT
    if n == 3:
        return (counts >> 2 | (counts & counts >> 1)) & RANK_UNIT
    return counts >> 2 & RANK_UNIT
