"""The deals a seat cannot tell apart (*chia lại bài*): every way the cards it has not seen may
sit in the other hands, when there are few enough to list.

A seat knows its own hand, every card played and how many cards each other seat holds; the
unseen cards (`base.unseen_cards`) are in the other hands or face down (fewer than 4 players).
Late in a game there may be only a handful of ways to place them (one, when a single other seat
still holds cards and nothing is face down: the game is then one of perfect information), and
a search can play each of them once instead of sampling (`enumerated_deals`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator

from tienlen_rules.bots.base import Observation, unseen_cards
from tienlen_rules.cards import CardSet, cards_of
from tienlen_rules.state import GameState


def deal_count(obs: Observation) -> int:
    """How many deals of the unseen cards fit what the seat knows (a multinomial coefficient:
    the other hands' sizes, the rest face down)."""
    left = unseen_cards(obs).bit_count()
    count = 1
    for seat, size in enumerate(obs.hand_counts):
        if seat != obs.seat:
            count *= math.comb(left, size)
            left -= size
    return count


def enumerated_deals(obs: Observation) -> Iterator[GameState]:
    """Every deal that fits what the seat knows, once each, in a fixed order: full states as
    `montecarlo.determinise` makes them."""
    others = [s for s in range(len(obs.hand_counts)) if s != obs.seat]
    for hands in _split(unseen_cards(obs), [obs.hand_counts[s] for s in others]):
        full = [obs.hand] * len(obs.hand_counts)
        for seat, hand in zip(others, hands, strict=True):
            full[seat] = hand
        dealt = tuple(h | p for h, p in zip(full, obs.played_by, strict=True))
        yield obs.public._replace(hands=tuple(full), dealt=dealt)


def _split(cards: CardSet, sizes: list[int]) -> Iterator[tuple[CardSet, ...]]:
    """Every way to take hands of `sizes` from `cards`, in order (the rest stays out)."""
    if not sizes:
        yield ()
        return
    for chosen in itertools.combinations(cards_of(cards), sizes[0]):
        hand = sum(1 << card for card in chosen)
        for rest in _split(cards & ~hand, sizes[1:]):
            yield (hand, *rest)
