"""A seat's legal moves as a move picker lists them (ListLegalMoves), RULES §3, §5.

`legal_listing(state, seat)` is the one definition of the listing: the pass first when it is
legal, then every legal play (`game.legal_plays`: in turn, out-of-turn chops, steals) in
`sort_key` order (type, length, top card, then the cards), each with its `chop` flag and its
page group (type and length); and the number of plays in every group, in the same order.
`chops(state, combo)` is the one answer to "does this legal play chop the table" (*chặt*): the
flag `apply` records in its `Played` event, the flag ValidateMove answers, the chop a bot looks
for.

    >>> from tienlen_rules import build_rules, new_game, legal_listing, parse_set, classify
    >>> from tienlen_rules import Kind, apply, play, parse_cards
    >>> rules = build_rules("southern")
    >>> hands = tuple(parse_set(h) for h in ("3S 9S", "4S 10S", "5S JS", "6S QS"))
    >>> state, _ = new_game(rules, 4, hands=hands)
    >>> state, _ = apply(state, play(0, parse_cards("3S")))
    >>> listing = legal_listing(state, 1)
    >>> [("pass" if m.is_pass else m.combination.kind.name, m.chop) for m in listing.moves]
    [('pass', False), ('SINGLE', False), ('SINGLE', False)]
    >>> listing.groups
    {(<Kind.SINGLE: 1>, 1): 2}
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

from tienlen_rules.beating import Beat, beat
from tienlen_rules.combinations import Combination, Kind
from tienlen_rules.game import legal_plays
from tienlen_rules.movegen import GroupKey
from tienlen_rules.state import GameState


class LegalMove(NamedTuple):
    """One entry of a listing: the pass (`combination` None) or a legal play, with whether it
    chops the table."""

    combination: Combination | None
    chop: bool = False

    @property
    def is_pass(self) -> bool:
        """Whether this entry is the pass."""
        return self.combination is None

    @property
    def group(self) -> GroupKey | None:
        """The page group of a play (None for the pass)."""
        combo = self.combination
        return None if combo is None else group_key(combo)


PASS = LegalMove(None)
"""The pass, as a listing's entry."""


class LegalListing(NamedTuple):
    """A seat's legal moves now: `moves` (the pass first when legal, then the plays in
    `sort_key` order), whether it may pass, and `groups`: how many plays each (type, length)
    group has, in `sort_key` order."""

    moves: tuple[LegalMove, ...]
    can_pass: bool
    groups: dict[GroupKey, int]

    def matching(self, kind: Kind | None = None, length: int = 0) -> tuple[LegalMove, ...]:
        """The entries of one group: plays of `kind` (None: any) and `length` (0: any). With
        neither given, every entry, the pass included; with a filter, plays only."""
        if kind is None and not length:
            return self.moves
        return tuple(
            m
            for m in self.moves
            if m.combination is not None
            and (kind is None or m.combination.kind == kind)
            and (not length or m.combination.length == length)
        )


def legal_listing(state: GameState, seat: int) -> LegalListing:
    """The seat's legal moves in listing order, each play with its chop flag and group."""
    plays, can_pass = legal_plays(state, seat)
    plays = sorted(plays, key=sort_key)
    entries = [LegalMove(c, chops(state, c)) for c in plays]
    return LegalListing(
        moves=((PASS, *entries) if can_pass else tuple(entries)),
        can_pass=can_pass,
        groups=group_counts(plays),
    )


def chops(state: GameState, combo: Combination) -> bool:
    """Whether a legal play chops the table (*chặt*, RULES §5): exactly the `chop` flag of the
    `Played` event `apply` records for it. A lead chops nothing."""
    table = state.table
    return table is not None and beat(combo, table, state.rules)[0] is Beat.CHOPS


def sort_key(combo: Combination) -> tuple[int, int, int, int]:
    """Order plays for listing: type, length, top card, then the cards themselves."""
    return combo.kind, combo.length, combo.top, combo.cards


def group_key(combo: Combination) -> GroupKey:
    """Return the page group of a play: its type and length."""
    return combo.kind, combo.length


def group_counts(combos: Iterable[Combination]) -> dict[GroupKey, int]:
    """Count the plays in each (type, length) group, groups in `sort_key` order."""
    return dict(sorted(Counter(group_key(c) for c in combos).items()))
