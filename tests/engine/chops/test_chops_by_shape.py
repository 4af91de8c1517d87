"""The chop table by shape (`RuleSet.chops_by_shape`) that `beat` reads says exactly what the
chop table by class says (RULES §5, §6, §10): a play chops the table when its chop class
(`chop_class`) lists the table's (`target_class`), a play of its own class only when higher.

Checked for plays of every shape a deck makes — every type and length, with every top rank, a
black and a red 2, one-suit and mixed straights — under every preset and under the options that
change the chop table, against `beat` as it was written before the table by shape existed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from functools import cache

import pytest

from tienlen_rules import (
    Beat,
    ChopClass,
    Combination,
    Kind,
    RuleSet,
    beat,
    build_rules,
    chop_class,
)
from tienlen_rules.beating import _follows
from tienlen_rules.choices import ChopTableName
from tienlen_rules.chop_tables import by_shape
from tienlen_rules.combinations import target_class
from tienlen_rules.errors import Reason
from tienlen_rules.presets import PRESETS

# Rank 0 is the 3, rank 11 the ace, rank 12 the 2; suits ♠ ♣ ♦ ♥ are 0..3 (RULES §1).
ACE, TWO = 11, 12
SPADES, CLUBS, DIAMONDS, HEARTS = range(4)


def _combo(kind: Kind, length: int, cards: list[int]) -> Combination:
    mask = sum(1 << c for c in cards)
    return Combination(kind, length, max(cards), mask)


def _same_rank(kind: Kind, rank: int, suits: tuple[int, ...]) -> Combination:
    return _combo(kind, len(suits), [rank * 4 + s for s in suits])


def _run(kind: Kind, low: int, length: int, suits: tuple[int, ...]) -> Combination:
    """`length` consecutive ranks from `low`, each in every one of `suits`."""
    cards = [r * 4 + s for r in range(low, low + length) for s in suits]
    return _combo(kind, length, cards)


def every_shape() -> Iterator[Combination]:
    """Plays of every shape: each type and length, each top rank (a 2 included where the type
    allows one), two suit patterns each."""
    for rank in range(TWO + 1):
        yield _same_rank(Kind.SINGLE, rank, (SPADES,))
        yield _same_rank(Kind.SINGLE, rank, (HEARTS,))
        yield _same_rank(Kind.PAIR, rank, (SPADES, CLUBS))
        yield _same_rank(Kind.PAIR, rank, (DIAMONDS, HEARTS))
        yield _same_rank(Kind.TRIPLE, rank, (SPADES, CLUBS, DIAMONDS))
        yield _same_rank(Kind.TRIPLE, rank, (CLUBS, DIAMONDS, HEARTS))
        yield _same_rank(Kind.FOUR_OF_A_KIND, rank, (SPADES, CLUBS, DIAMONDS, HEARTS))
    for length in range(3, ACE + 2):  # no run holds a 2: 3..A at the longest
        for low in range(ACE - length + 2):
            yield _run(Kind.STRAIGHT, low, length, (HEARTS,))  # one suit
            top = low + length - 1
            mixed = [r * 4 + (HEARTS if r == top else SPADES) for r in range(low, top + 1)]
            yield _combo(Kind.STRAIGHT, length, mixed)
            yield _run(Kind.CONSECUTIVE_PAIRS, low, length, (CLUBS, HEARTS))
            yield _run(Kind.CONSECUTIVE_TRIPLES, low, length, (SPADES, DIAMONDS, HEARTS))


PLAYS = tuple(every_shape())


def every_class_chops_every_class(rules: RuleSet) -> RuleSet:
    """The rule set with a chop table no preset has, in which every class chops every class:
    its 2s are bombs and its same-suit straights targets, so every part of the table by shape
    is read."""
    targets = {bomb: frozenset(ChopClass) for bomb in ChopClass}
    return dataclasses.replace(
        rules,
        chop_targets=targets,
        chops_by_shape=by_shape(targets),
    )


def rule_sets() -> Iterator[tuple[str, RuleSet]]:
    """Every preset, each with the options that change its chop table, and a table that makes
    every class a bomb and a target."""
    for variant in PRESETS:
        yield variant, build_rules(variant)
        yield (
            f"{variant} long_pairs_chop=nothing",
            build_rules(variant, {"long_pairs_chop": "nothing"}),
        )
        yield (
            f"{variant} suited_straight_chops",
            build_rules(variant, {"suited_straight_chops": True}),
        )
    for table in ChopTableName:
        yield f"southern chop_table={table}", build_rules("southern", {"chop_table": table})
    yield "every class chops every class", every_class_chops_every_class(build_rules("southern"))
    yield (
        "every class chops every class, Northern",
        every_class_chops_every_class(build_rules("northern")),
    )


RULE_SETS = dict(rule_sets())


def beat_by_class(
    new: Combination, table: Combination, rules: RuleSet
) -> tuple[Beat, Reason | None]:
    """`beat` as written before the table by shape: the chop decided by naming both plays'
    chop classes and reading the chop table by class."""
    kind, length, top, _ = new
    table_kind, table_length, table_top, _ = table
    bomb = chop_class(new)
    targets = rules.chop_targets.get(bomb) if bomb is not None else None
    if targets is not None:
        target = target_class(table)
        if target in targets and (target != bomb or top > table_top):
            return Beat.CHOPS, None
    if kind != table_kind or length != table_length:
        return Beat.NO, Reason.WRONG_TYPE_OR_LENGTH
    if rules.follow_suit:
        return _follows(new, table, rules)
    return (Beat.BEATS, None) if top > table_top else (Beat.NO, Reason.DOES_NOT_BEAT)


def bomb_kinds(rules: RuleSet) -> set[Kind]:
    """The types the table by shape has a row for: the plays of any other type skip it."""
    return {kind for kind in Kind if rules.chops_by_shape[kind] is not None}


@cache
def bomb_typed(name: str) -> tuple[Combination, ...]:
    """The plays of the types some bomb of these rules has: the plays that read the table."""
    rules = RULE_SETS[name]
    return tuple(p for p in PLAYS if p.kind in bomb_kinds(rules))


def test_the_plays_hold_every_chop_class_as_a_bomb_and_as_a_target() -> None:
    assert {chop_class(p) for p in PLAYS} == {*ChopClass, None}
    assert {target_class(p) for p in PLAYS} == {*ChopClass, None}


@pytest.mark.parametrize("name", RULE_SETS)
def test_only_a_play_of_a_bomb_s_shape_can_chop(name: str) -> None:
    """The table by shape has rows for the bombs' types and lengths only, so that every other
    play skips it: no play of another shape has a chop class the rules' table lists."""
    rules = RULE_SETS[name]
    for play in PLAYS:
        by_length = rules.chops_by_shape[play.kind]
        if by_length is None or by_length[play.length] is None:
            assert chop_class(play) not in rules.chop_targets, play


@pytest.mark.parametrize("name", RULE_SETS)
def test_a_bomb_chops_by_shape_exactly_what_its_chop_class_chops(name: str) -> None:
    rules = RULE_SETS[name]
    assert bomb_typed(name) or not rules.chop_targets
    for new in bomb_typed(name):
        for table in PLAYS:
            if new.cards & table.cards:
                continue  # plays on the same table are disjoint
            assert beat(new, table, rules) == beat_by_class(new, table, rules), (new, table)


@pytest.mark.parametrize("name", RULE_SETS)
def test_every_play_beats_by_shape_as_it_did_by_class(name: str) -> None:
    """The whole answer, reason code included, for a sample of the plays (every fifth) against
    every play: the "same type" rule and Northern following are read as before."""
    rules = RULE_SETS[name]
    for new in PLAYS[::5]:
        for table in PLAYS:
            if new.cards & table.cards:
                continue
            assert beat(new, table, rules) == beat_by_class(new, table, rules), (new, table)


def test_no_southern_straight_pair_or_single_reaches_the_chop_table() -> None:
    """Southern (RULES §5): only a four of a kind and runs of pairs chop; a 2 does not."""
    assert bomb_kinds(RULE_SETS["southern"]) == {Kind.FOUR_OF_A_KIND, Kind.CONSECUTIVE_PAIRS}


def test_a_same_suit_straight_reaches_the_chop_table_only_with_the_northern_option() -> None:
    """RULES §5 Northern option: a same-suit straight of 5+ cards chops a 2."""
    assert Kind.STRAIGHT not in bomb_kinds(RULE_SETS["northern"])
    assert Kind.STRAIGHT in bomb_kinds(RULE_SETS["northern suited_straight_chops"])
