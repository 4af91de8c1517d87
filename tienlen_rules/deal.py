"""Dealing (*chia bài*), RULES §2: a uniform Fisher–Yates shuffle, seeded or from a CSPRNG.

A seeded deal draws from SHA-256 in counter mode over (seed, game number, counter) with rejection
sampling, so it is uniform and reproducible in any language, not tied to Python's `random`.
Explicit deals (tests, tutorials, replays) may give any disjoint hands.
"""

from __future__ import annotations

import hashlib
import itertools
import os
from collections.abc import Callable, Sequence

from tienlen_rules.cards import RANK_MASKS, TWOS, CardSet, format_cards
from tienlen_rules.choices import FourTwos
from tienlen_rules.errors import SetupError
from tienlen_rules.ruleset import RuleSet

RandBelow = Callable[[int], int]
MAX_REDEALS = 1000


def _randbelow(next_block: Callable[[], bytes]) -> RandBelow:
    """A uniform `randbelow(n)` drawing 4 bytes at a time from the blocks of `next_block`, with
    rejection sampling (no modulo bias)."""
    buffer = b""

    def randbelow(n: int) -> int:
        nonlocal buffer
        limit = (1 << 32) - (1 << 32) % n
        while True:
            if len(buffer) < 4:
                buffer += next_block()
            value = int.from_bytes(buffer[:4], "big")
            buffer = buffer[4:]
            if value < limit:
                return value % n

    return randbelow


def seeded_randbelow(seed: int, game_number: int) -> RandBelow:
    """A deterministic uniform `randbelow(n)` for this seed and game of the match: SHA-256 of
    ``tienlen:{seed}:{game_number}:{counter}`` for counter = 0, 1, 2, ..."""
    counter = itertools.count()

    def next_block() -> bytes:
        return hashlib.sha256(f"tienlen:{seed}:{game_number}:{next(counter)}".encode()).digest()

    return _randbelow(next_block)


def system_randbelow() -> RandBelow:
    """Uniform draws from the operating system's CSPRNG, read 256 bytes at a time: a whole deal
    (51 draws) in one system call, not one per card (each call gives the GIL away)."""
    return _randbelow(lambda: os.urandom(256))


def hand_sizes(rules: RuleSet, players: int, dealer: int) -> list[int]:
    """Cards per seat: 13 each (or `cards_per_hand`), or 17/17/18 with the dealer's 18 in Đấu."""
    if rules.deal_all_cards:
        base, extra = divmod(52, players)
        return [base + (1 if (seat - dealer) % players < extra else 0) for seat in range(players)]
    return [rules.cards_per_hand] * players


def deal(
    rules: RuleSet, players: int, randbelow: RandBelow, dealer: int = 0
) -> tuple[CardSet, ...]:
    """Shuffle (Fisher–Yates) and deal; redeal a hand of four 2s when the rules say so."""
    sizes = hand_sizes(rules, players, dealer)
    for _ in range(MAX_REDEALS):
        deck = list(range(52))
        for i in range(51, 0, -1):
            j = randbelow(i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        hands: list[CardSet] = []
        start = 0
        for size in sizes:
            mask = 0
            for card in deck[start : start + size]:
                mask |= 1 << card
            hands.append(mask)
            start += size
        if not needs_redeal(rules, hands):
            return lay_down_twos(rules, tuple(hands))
    raise SetupError("REDEAL_LIMIT", "no playable deal was found", "deal")  # pragma: no cover


def needs_redeal(rules: RuleSet, hands: Sequence[CardSet]) -> bool:
    """Sources 000/001: some tables redeal when one hand holds all four 2s."""
    return rules.four_twos == FourTwos.REDEAL and any(h & TWOS == TWOS for h in hands)


def lay_down_twos(rules: RuleSet, hands: tuple[CardSet, ...]) -> tuple[CardSet, ...]:
    """Northern option: when a hand holds four 3s, everyone lays down (removes) their 2s."""
    if rules.four_threes_lay_down_twos and any(h & RANK_MASKS[0] == RANK_MASKS[0] for h in hands):
        return tuple(h & ~TWOS for h in hands)
    return hands


def check_explicit_deal(
    rules: RuleSet, players: int, hands: Sequence[CardSet]
) -> tuple[CardSet, ...]:
    """Validate an explicit deal: one hand per seat, 1..13 cards (1..18 in Đấu), disjoint."""
    if len(hands) != players:
        raise SetupError("INVALID_DEAL", f"{len(hands)} hands given for {players} players", "hands")
    largest = max(hand_sizes(rules, players, 0))
    seen = 0
    for seat, hand in enumerate(hands):
        n = hand.bit_count()
        if not 1 <= n <= max(largest, 13):
            raise SetupError(
                "INVALID_DEAL",
                f"hand {seat} has {n} cards; 1 to {max(largest, 13)} allowed",
                f"hands[{seat}]",
            )
        if hand & seen:
            raise SetupError(
                "INVALID_DEAL", f"hand {seat} repeats {format_cards(hand & seen)}", f"hands[{seat}]"
            )
        seen |= hand
    if needs_redeal(rules, hands):
        raise SetupError(
            "REDEAL_REQUIRED", "a hand holds all four 2s and these rules redeal it", "hands"
        )
    dealt = lay_down_twos(rules, tuple(hands))
    for seat, hand in enumerate(dealt):
        if not hand:
            raise SetupError(
                "INVALID_DEAL",
                f"hand {seat} holds only 2s, which the four 3s lay down: it would hold no card",
                f"hands[{seat}]",
            )
    return dealt
