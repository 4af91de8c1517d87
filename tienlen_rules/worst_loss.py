"""The most one game can cost a seat (RULES §9.2), so that a host can size a table's minimum.

Source 004's 20 × the stake to sit down does not bound a game's loss: a frozen đếm lá loser with
♥2, ♦2 and a four of a kind owes (13 + 4 + 4 + 4) × 2 = 50 stakes. `max_loss_stakes` is an upper
bound, worked out from the rule values, on what a seat can pay in one game: it never
under-states (tests play many games and check it), and it may over-state, since it counts every
way of paying at its worst together.

The seat pays the largest of:

- as an instant win's loser: the instant-win amount, and its 2s and bombs with *đếm heo*;
- frozen (it never played, so it was never chopped): the frozen amount and its 2s and bombs
  (card count: its cards and their conversions, doubled); under `frozen_pays` = whole_table
  that to every other player; and as the compensating player of *đền bài*, all the frozen
  players' debts;
- otherwise: the largest place payment (or *ba mù*), rotten ♠3, its hand's 2s and bombs (card
  count: its cards left and their conversions), and chop chains — a seat pays a whole chain
  when it was chopped last, and a card is in one chain at most, so all the chains it pays are
  worth at most the deck's most valuable split into 2s and bombs.

"A hand's 2s and bombs at their worst" is a knapsack over the 2s and the valued bombs of the
rules by their sizes, for the hand's number of cards (a relaxation: it may pick more bombs of
one kind than the ranks allow, which only makes the bound larger).
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

from tienlen_rules.choices import FrozenPays, Scoring
from tienlen_rules.combinations import CONSECUTIVE_PAIRS, CONSECUTIVE_TRIPLES, FOUR_OF_A_KIND
from tienlen_rules.deal import hand_sizes
from tienlen_rules.ruleset import RuleSet

#: Cards per rank of each kind of valued bomb (a four of a kind: 4 cards of one rank).
_WIDTH = {FOUR_OF_A_KIND: 4, CONSECUTIVE_PAIRS: 2, CONSECUTIVE_TRIPLES: 3}
#: Every card of the deck.
_DECK = 52


@lru_cache(maxsize=256)
def max_loss_stakes(rules: RuleSet) -> Fraction:
    """An upper bound on the stakes one game of these rules can cost one seat (see above),
    over every table size the rules deal to."""
    counts = (3,) if rules.deal_all_cards else (2, 3, 4)
    return max(_max_loss(rules, players) for players in counts)


def _max_loss(rules: RuleSet, players: int) -> Fraction:
    hand = max(hand_sizes(rules, players, 0))
    worst_hand = _worst_split(rules, hand)
    chains = _worst_split(rules, _DECK)
    pigs = worst_hand if rules.count_pigs else Fraction(0)
    instant = rules.instant_win_stakes + pigs
    if rules.scoring == Scoring.CARD_COUNT:
        per_card = rules.card_count_per_card
        frozen = rules.freeze_multiplier * (hand * per_card + worst_hand)
        loser = (hand - 1) * per_card + worst_hand + chains
        return max(instant, frozen if rules.freezing else Fraction(0), loser)
    others = players - 1
    frozen = Fraction(0)
    if rules.freezing:
        if rules.frozen_pays == FrozenPays.WHOLE_TABLE:
            frozen = others * instant
        else:
            frozen = rules.freeze_multiplier * rules.place_last_to_first + worst_hand
            if rules.compensation:
                frozen *= others
    place = max(
        rules.place_last_to_first,
        rules.place_third_to_second,
        rules.place_second_to_first,
        rules.blind_three_stakes,
    )
    loser = place + rules.rotten_three_stakes + worst_hand + chains
    return max(instant, frozen, loser)


def _worst_split(rules: RuleSet, cards: int) -> Fraction:
    """The most `cards` cards can be worth as disjoint 2s and valued bombs (relaxed)."""
    twos = sorted(rules.two_values, reverse=True)
    items: list[tuple[int, Fraction]] = [
        (_WIDTH[bomb.kind] * (1 if bomb.kind == FOUR_OF_A_KIND else bomb.length), value)
        for bomb, value in rules.bomb_values.items()
        if bomb.kind in _WIDTH
    ]
    best = Fraction(0)
    for count in range(min(4, cards) + 1):
        if rules.rotten_two_flat:
            loose = rules.rotten_two_flat if count else Fraction(0)
        else:
            loose = sum(twos[:count], Fraction(0))
        best = max(best, loose + _knapsack(tuple(items), cards - count))
    return best


@lru_cache(maxsize=1024)
def _knapsack(items: tuple[tuple[int, Fraction], ...], capacity: int) -> Fraction:
    """The most value of bombs (each of `size` cards, any number of each) in `capacity` cards."""
    best = [Fraction(0)] * (capacity + 1)
    for room in range(1, capacity + 1):
        for size, value in items:
            if size <= room and best[room - size] + value > best[room]:
                best[room] = best[room - size] + value
    return best[capacity]
