"""Legal-move generation (*tìm nước đi*), RULES §3, §5, §6: what a hand can play.

Every function here agrees exactly with `combinations.classify` (what a set of cards is) and
`beating.beat` (whether it beats or chops the table); the tests prove it by brute force over
every subset of small hands under every preset. Generation never enumerates subsets: it is
keyed by the combination type and length, as OpenSpiel's dou_dizhu ``SearchForLegalActions``:

* same-rank plays — single (*rác*), pair (*đôi*), triple (*sám cô*), four of a kind (*tứ quý*)
  — come from per-(rank, nibble) tables built once at import;
* sequences — straight (*sảnh*), consecutive pairs (*đôi thông*), consecutive triples (*sám cô
  thông*) — are products of per-rank choices over runs of consecutive ranks without the 2;
* chops (*chặt*) are the bombs (*hàng*) whose chop table lists the table's chop class.

Counting is arithmetic (sums of per-rank choice products over windows), never materialised: an
18-card Đấu hand can form thousands of sequences.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from math import comb

from tienlen_rules.beatable import at_least, has_run_above, has_suited_run
from tienlen_rules.beating import beat
from tienlen_rules.cards import RANK_ACE, RANK_TWO, RANK_UNIT, CardSet
from tienlen_rules.combinations import (
    CONSECUTIVE_PAIRS,
    CONSECUTIVE_TRIPLES,
    FOUR_OF_A_KIND,
    PAIR,
    SINGLE,
    STRAIGHT,
    TRIPLE,
    ChopClass,
    Combination,
    Kind,
    chop_class,
    target_class,
)
from tienlen_rules.ruleset import RuleSet

GroupKey = tuple[Kind, int]
"""A page of the move list: combination type and length (cards, pairs or triples)."""

Choices = tuple[int, ...]
"""The alternative card masks one rank can contribute to a combination."""

_new = tuple.__new__
_SEQ_RANKS = RANK_ACE + 1  # sequences use ranks 3..A, never the 2
_SEQ_UNIT = RANK_UNIT & ~(1 << (4 * RANK_TWO))  # bit 4r for r in 3..A
_SHIFTS = tuple(4 * r for r in range(13))
_BLACK_PAIR, _RED_PAIR = 0b0011, 0b1100
_SAME_RANK_LENGTH = {SINGLE: 1, PAIR: 2, TRIPLE: 3, FOUR_OF_A_KIND: 4}
_SEQUENCE_WIDTH = {STRAIGHT: 1, CONSECUTIVE_PAIRS: 2, CONSECUTIVE_TRIPLES: 3}


def _make(kind: Kind, length: int, cards: CardSet) -> Combination:
    """Build a Combination without the NamedTuple constructor's Python frame (hot path)."""
    return _new(Combination, (kind, length, cards.bit_length() - 1, cards))


def _subsets(nibble: int, size: int, *, same_colour: bool = False) -> Choices:
    """List the `size`-card subsets of one rank's suit nibble, weakest first."""
    return tuple(
        s
        for s in range(1, 16)
        if s & nibble == s
        and s.bit_count() == size
        and not (same_colour and s not in {_BLACK_PAIR, _RED_PAIR})
    )


def _choice_table(size: int, *, same_colour: bool = False) -> tuple[tuple[Choices, ...], ...]:
    """Tabulate [rank][nibble] -> absolute card masks of the rank's `size`-subsets."""
    return tuple(
        tuple(
            tuple(s << (4 * r) for s in _subsets(nib, size, same_colour=same_colour))
            for nib in range(16)
        )
        for r in range(13)
    )


_CHOICES = tuple(_choice_table(size) for size in range(5))  # [size][rank][nibble]
_COLOUR_PAIRS = _choice_table(2, same_colour=True)

ComboTable = tuple[tuple[tuple[Combination, ...], ...], ...]


def _combo_table(kind: Kind, choices: tuple[tuple[Choices, ...], ...]) -> ComboTable:
    length = _SAME_RANK_LENGTH[kind]
    return tuple(tuple(tuple(_make(kind, length, m) for m in nib) for nib in r) for r in choices)


_SINGLES = _combo_table(SINGLE, _CHOICES[1])
_PAIRS = _combo_table(PAIR, _CHOICES[2])
_COLOUR_PAIR_COMBOS = _combo_table(PAIR, _COLOUR_PAIRS)
_TRIPLES = _combo_table(TRIPLE, _CHOICES[3])
_FOURS = _combo_table(FOUR_OF_A_KIND, _CHOICES[4])


def _same_rank_table(kind: Kind, rules: RuleSet) -> ComboTable:
    if kind == SINGLE:
        return _SINGLES
    if kind == PAIR:
        return _COLOUR_PAIR_COMBOS if rules.same_colour_pairs else _PAIRS
    return _TRIPLES if kind == TRIPLE else _FOURS


def _nibbles(hand: CardSet) -> list[int]:
    return [(hand >> s) & 15 for s in _SHIFTS]


# --------------------------------------------------------------------------- sequences


def _sequence_choices(nibs: list[int], width: int) -> list[Choices]:
    """List per rank 3..A the masks that rank can add to a sequence of `width`-card groups."""
    table = _CHOICES[width]
    return [table[r][nibs[r]] for r in range(_SEQ_RANKS)]


def _suit_choices(hand: CardSet, suit: int) -> list[Choices]:
    """List per rank 3..A the one card of `suit` (single-suit straights, Northern)."""
    return [
        ((1 << (4 * r + suit)),) if hand >> (4 * r + suit) & 1 else () for r in range(_SEQ_RANKS)
    ]


def _all_runs(choices: list[Choices], kind: Kind, out: list[Combination]) -> None:
    """Append every sequence of 3+ consecutive ranks: the product of the ranks' choices."""
    for i in range(_SEQ_RANKS - 2):
        acc: list[int] | Choices = choices[i]
        if not acc or not choices[i + 1] or not choices[i + 2]:
            continue
        for j in range(i + 1, _SEQ_RANKS):
            here = choices[j]
            if not here:
                break
            acc = [a | b for a in acc for b in here]
            if j - i >= 2:
                length = j - i + 1
                out += [_new(Combination, (kind, length, m.bit_length() - 1, m)) for m in acc]


def _exact_runs(choices: list[Choices], kind: Kind, length: int, top: int) -> list[Combination]:
    """Find every sequence of exactly `length` ranks whose top card is above `top` (-1: any)."""
    out: list[Combination] = []
    above = (2 << top) - 1 if top >= 0 else 0  # a mask beats `top` iff it is > every card <= top
    for end in range(max(length - 1, top >> 2), _SEQ_RANKS):
        acc: list[int] = [q for q in choices[end] if q > above]
        if not acc:
            continue
        for r in range(end - 1, end - length, -1):
            here = choices[r]
            if not here:
                break
            acc = [a | b for a in acc for b in here]
        else:
            out += [_new(Combination, (kind, length, m.bit_length() - 1, m)) for m in acc]
    return out


def _sequences(
    hand: CardSet, kind: Kind, length: int, top: int, rules: RuleSet
) -> list[Combination]:
    """Find sequences of one kind and exact length above `top`, as `classify` allows them."""
    if kind == STRAIGHT and rules.single_suit_straights:
        out: list[Combination] = []
        for suit in range(4):
            out += _exact_runs(_suit_choices(hand, suit), kind, length, top)
        return out
    if not _sequence_allowed(kind, rules):
        return []
    choices = _sequence_choices(_nibbles(hand), _SEQUENCE_WIDTH[kind])
    return _exact_runs(choices, kind, length, top)


def _sequence_allowed(kind: Kind, rules: RuleSet) -> bool:
    if kind == CONSECUTIVE_PAIRS:
        return rules.consecutive_pairs
    if kind == CONSECUTIVE_TRIPLES:
        return rules.consecutive_triples
    return True


# --------------------------------------------------------------------------- leading


def combination_list(hand: CardSet, rules: RuleSet) -> list[Combination]:
    """List every distinct combination the hand can form under `rules` (a lead, *đánh*).

    Grouped by type in `Kind` order; within a type the order is fixed for a given hand.
    """
    nibs = _nibbles(hand)
    ranks = [r for r in range(13) if nibs[r]]
    pairs = _COLOUR_PAIR_COMBOS if rules.same_colour_pairs else _PAIRS
    out: list[Combination] = []
    for r in ranks:
        out += _SINGLES[r][nibs[r]]
    for r in ranks:
        out += pairs[r][nibs[r]]
    for r in ranks:
        out += _TRIPLES[r][nibs[r]]
    if rules.single_suit_straights:
        for suit in range(4):
            _all_runs(_suit_choices(hand, suit), STRAIGHT, out)
    else:
        _all_runs(_sequence_choices(nibs, 1), STRAIGHT, out)
    if rules.consecutive_pairs:
        _all_runs(_sequence_choices(nibs, 2), CONSECUTIVE_PAIRS, out)
    for r in ranks:
        out += _FOURS[r][nibs[r]]
    if rules.consecutive_triples:
        _all_runs(_sequence_choices(nibs, 3), CONSECUTIVE_TRIPLES, out)
    return out


def combinations_in(hand: CardSet, rules: RuleSet) -> Iterator[Combination]:
    """Yield every distinct combination of `hand`: exactly the subsets `classify` accepts."""
    return iter(combination_list(hand, rules))


def plays_in_group(hand: CardSet, rules: RuleSet, kind: Kind, length: int) -> list[Combination]:
    """List the combinations of one type and length (a page group), generating nothing else."""
    nibs = _nibbles(hand)
    if kind in _SAME_RANK_LENGTH:
        if length != _SAME_RANK_LENGTH[kind]:
            return []
        table = _same_rank_table(kind, rules)
        return [c for r in range(13) for c in table[r][nibs[r]]]
    if length < 3:
        return []
    return _sequences(hand, kind, length, -1, rules)


# --------------------------------------------------------------------------- counting


def _window_sum(weights: Iterable[int]) -> int:
    """Sum, over windows of 3+ consecutive weights, the product of the window's weights."""
    total = one = two = more = 0  # window products ending at the previous rank, by length
    for w in weights:
        more = (more + two) * w
        two = one * w
        one = w
        total += more
    return total


def _window_sums_by_length(weights: list[int]) -> dict[int, int]:
    """Compute `_window_sum` split by window length (3..12)."""
    sums: dict[int, int] = {}
    for start in range(len(weights)):
        product = 1
        for end in range(start, len(weights)):
            product *= weights[end]
            if not product:
                break
            if end - start >= 2:
                sums[end - start + 1] = sums.get(end - start + 1, 0) + product
    return sums


def _pair_count(nib: int, rules: RuleSet) -> int:
    if rules.same_colour_pairs:
        return (nib & _BLACK_PAIR == _BLACK_PAIR) + (nib & _RED_PAIR == _RED_PAIR)
    return comb(nib.bit_count(), 2)


def _suit_ranks(hand: CardSet, suit: int) -> list[int]:
    return [hand >> (4 * r + suit) & 1 for r in range(_SEQ_RANKS)]


def count_combinations(hand: CardSet, rules: RuleSet) -> int:
    """Count the combinations `combinations_in` yields, arithmetically (products over runs)."""
    counts = [((hand >> s) & 15).bit_count() for s in _SHIFTS]
    total = hand.bit_count()
    total += sum(_pair_count((hand >> s) & 15, rules) for s in _SHIFTS)
    total += sum(comb(c, 3) + (c == 4) for c in counts)
    seq = counts[:_SEQ_RANKS]
    if rules.single_suit_straights:
        total += sum(_window_sum(_suit_ranks(hand, suit)) for suit in range(4))
    else:
        total += _window_sum(seq)
    if rules.consecutive_pairs:
        total += _window_sum(comb(c, 2) for c in seq)
    if rules.consecutive_triples:
        total += _window_sum(comb(c, 3) for c in seq)
    return total


def count_by_group(hand: CardSet, rules: RuleSet) -> dict[GroupKey, int]:
    """Count combinations per (type, length) group, arithmetically; empty groups omitted."""
    counts = [((hand >> s) & 15).bit_count() for s in _SHIFTS]
    groups: dict[GroupKey, int] = {
        (SINGLE, 1): hand.bit_count(),
        (PAIR, 2): sum(_pair_count((hand >> s) & 15, rules) for s in _SHIFTS),
        (TRIPLE, 3): sum(comb(c, 3) for c in counts),
        (FOUR_OF_A_KIND, 4): sum(c == 4 for c in counts),
    }
    seq = counts[:_SEQ_RANKS]
    straights: Counter[int] = Counter()
    if rules.single_suit_straights:
        for suit in range(4):
            straights.update(_window_sums_by_length(_suit_ranks(hand, suit)))
    else:
        straights.update(_window_sums_by_length(seq))
    _add_lengths(groups, STRAIGHT, straights)
    if rules.consecutive_pairs:
        _add_lengths(groups, CONSECUTIVE_PAIRS, _window_sums_by_length([comb(c, 2) for c in seq]))
    if rules.consecutive_triples:
        _add_lengths(groups, CONSECUTIVE_TRIPLES, _window_sums_by_length([comb(c, 3) for c in seq]))
    return {key: n for key, n in groups.items() if n}


def _add_lengths(groups: dict[GroupKey, int], kind: Kind, by_length: dict[int, int]) -> None:
    for length, n in sorted(by_length.items()):
        groups[kind, length] = n


# --------------------------------------------------------------------------- beating


def _same_type(hand: CardSet, table: Combination, rules: RuleSet) -> list[Combination]:
    """Find plays of the table's type and length with a higher top card (*đè*).

    In the North they must also follow suit and colour (RULES §6), which `beat` decides, so
    that rule stays in one place.
    """
    kind, top = table.kind, table.top
    if kind in _SAME_RANK_LENGTH:
        found = _same_rank_above(hand, _same_rank_table(kind, rules), top)
    else:
        found = _sequences(hand, kind, table.length, top, rules)
    if rules.follow_suit:
        return [c for c in found if beat(c, table, rules)[0]]
    return found


def _same_rank_above(hand: CardSet, table: ComboTable, top: int) -> list[Combination]:
    base = top >> 2
    above = (2 << top) - 1
    out = [c for c in table[base][(hand >> (4 * base)) & 15] if c.cards > above]
    for r in range(base + 1, 13):
        out += table[r][(hand >> _SHIFTS[r]) & 15]
    return out


# Type and length of each chop class, read from a table: a member's own attributes cost about
# 70 ns each to read on CPython 3.11, a dict lookup half that (`has_beat` runs at every pass).
_SHAPES: dict[ChopClass, tuple[Kind, int]] = {c: (c.kind, c.length) for c in ChopClass}


def _bombs(hand: CardSet, bomb: ChopClass, top: int, rules: RuleSet) -> list[Combination]:
    """Find every play of one bomb class above `top` (-1: any), e.g. every 4 consecutive pairs."""
    kind, length = _SHAPES[bomb]
    if kind == FOUR_OF_A_KIND:
        return (
            _same_rank_above(hand, _FOURS, top)
            if top >= 0
            else plays_in_group(hand, rules, kind, 4)
        )
    found = _sequences(hand, kind, length, top, rules)
    if kind == STRAIGHT:  # only a same-suit straight is a bomb (Northern option)
        return [c for c in found if chop_class(c) == bomb]
    return found


def _chopping_classes(
    table: Combination, rules: RuleSet, bombs: Iterable[ChopClass]
) -> list[ChopClass]:
    """Select the bomb classes among `bombs` that chop the table outright.

    The table's own class is left out: its higher plays are found as same-type plays.
    """
    target = target_class(table)
    if target is None:
        return []
    targets = rules.chop_targets
    return [b for b in bombs if b != target and target in targets.get(b, ())]


def plays_beating(hand: CardSet, table: Combination, rules: RuleSet) -> Iterator[Combination]:
    """Yield every play from `hand` that beats (*đè*) or chops (*chặt*) `table`.

    Exactly the combinations `c` with ``beat(c, table, rules) != Beat.NO``, generated by the
    table's type and length, then the bombs whose chop table lists the table. Lazy.
    """
    yield from _same_type(hand, table, rules)
    for bomb in _chopping_classes(table, rules, rules.chop_targets):
        yield from _bombs(hand, bomb, -1, rules)


def beating_list(hand: CardSet, table: Combination | None, rules: RuleSet) -> list[Combination]:
    """List every play on `table`: all combinations when leading (None), else `plays_beating`."""
    if table is None:
        return combination_list(hand, rules)
    return list(plays_beating(hand, table, rules))


def has_beat(hand: CardSet, table: Combination, rules: RuleSet) -> bool:
    """Tell whether `hand` holds any play that beats or chops `table`.

    Recorded at passes for compensation (*đền bài*, RULES §7), so it is fast: bit tests
    first, generation only as a last resort.
    """
    if _has_same_type(hand, table, rules):
        return True
    # A hand without N consecutive pairs (triples) holds no longer run either: once a run is
    # missing, the longer runs a chop table lists (`long_pairs_chop`) cost nothing to rule out.
    missing: dict[Kind, int] = {}
    for bomb in _chopping_classes(table, rules, rules.chop_targets):
        kind, length = _SHAPES[bomb]
        if length >= missing.get(kind, length + 1):
            continue
        if _has_bomb(hand, bomb, rules):
            return True
        if kind in _SEQUENCE_WIDTH:
            missing[kind] = min(length, missing.get(kind, length))
    return False


def _has_same_type(hand: CardSet, table: Combination, rules: RuleSet) -> bool:
    kind, top = table.kind, table.top
    if kind in _SEQUENCE_WIDTH:  # never built: thousands of runs for 30-odd unseen cards
        if kind == STRAIGHT and rules.single_suit_straights:
            return any(has_run_above(_suit_choices(hand, s), table, rules) for s in range(4))
        if not _sequence_allowed(kind, rules):
            return False
        return has_run_above(_sequence_choices(_nibbles(hand), _SEQUENCE_WIDTH[kind]), table, rules)
    if rules.follow_suit:
        return bool(_same_type(hand, table, rules))
    if kind == SINGLE:
        return hand > (2 << top) - 1
    base = top >> 2
    if _rank_bitmap(hand, kind, rules) >> (4 * base + 4):
        return True
    above = (2 << top) - 1
    table_rank = _same_rank_table(kind, rules)[base][(hand >> (4 * base)) & 15]
    return any(c.cards > above for c in table_rank)


def _rank_bitmap(hand: CardSet, kind: Kind, rules: RuleSet) -> int:
    """Set bit 4r where rank r can make a play of this same-rank kind."""
    if kind == PAIR and rules.same_colour_pairs:
        return ((hand & hand >> 1) | (hand >> 2 & hand >> 3)) & RANK_UNIT
    return at_least(hand, _SAME_RANK_LENGTH[kind])


def _has_bomb(hand: CardSet, bomb: ChopClass, rules: RuleSet) -> bool:
    kind, length = _SHAPES[bomb]
    if kind == FOUR_OF_A_KIND:
        return bool(at_least(hand, 4))
    if kind == STRAIGHT:  # a same-suit straight, whether or not every straight is one suit
        return has_suited_run(hand, length)
    if not _sequence_allowed(kind, rules):
        return False
    run = at_least(hand, _SEQUENCE_WIDTH[kind]) & _SEQ_UNIT
    for _ in range(length - 1):
        run &= run >> 4
        if not run:  # no longer run either: the long runs of pairs cost no more than short ones
            return False
    return bool(run)


def out_of_turn_chops(hand: CardSet, table: Combination, rules: RuleSet) -> Iterator[Combination]:
    """Yield the bombs from `hand` that may chop `table` out of turn (RULES §5).

    *Chặt không cần vòng*: exactly the combinations for which `is_out_of_turn_chop` holds.
    """
    if not rules.out_of_turn:
        return
    target = target_class(table)
    if target is None:
        return
    for bomb in sorted(rules.out_of_turn):
        # The bit test first: most hands hold none of the long runs of pairs a table lists.
        if target in rules.chop_targets.get(bomb, ()) and _has_bomb(hand, bomb, rules):
            yield from _bombs(hand, bomb, table.top if bomb == target else -1, rules)


def has_out_of_turn_chop(hand: CardSet, table: Combination, rules: RuleSet) -> bool:
    """Tell whether `hand` may chop `table` out of turn right now."""
    return next(out_of_turn_chops(hand, table, rules), None) is not None


def plays_containing(plays: Iterable[Combination], card: int) -> list[Combination]:
    """Keep the plays that include `card` (a first game's first lead holds ♠3, RULES §4)."""
    return [c for c in plays if c.cards >> card & 1]
