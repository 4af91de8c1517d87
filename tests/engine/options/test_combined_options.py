"""Options combined (issue #25): a table's rules are resolved in one place, in one order
(docs/RULE-OPTIONS.md, "How a table's rules are resolved"), and the money follows the rule book
under any combination of options, not only at a preset's defaults.

- A scoring scheme other than points changes no penalty value: a table plays its preset's
  values unless it gives its own (`points_penalty_values` is the one derived default).
- What chops, rots and is charged to a frozen player is what the table can play (RULES §3:
  bombs are "the combinations that can chop"): a run of pairs is never a bomb where
  consecutive pairs are not a combination, whatever its penalty value.
- No combination of option values is refused as such: the Đấu chop table without consecutive
  pairs is played (its consecutive triples still chop), and the one refusal there is, a stake
  that makes a fraction of a chip, names its constraint.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

import pytest
from helpers.option_tables import documented_values
from helpers.tables import TransferReason, later, reasons

from tienlen_rules import apply, legal_moves, new_game
from tienlen_rules.constraints import (
    CONSTRAINTS,
    CONSTRAINTS_BY_NAME,
    Constraint,
    ConstraintKind,
    OptionCondition,
)
from tienlen_rules.errors import SetupError
from tienlen_rules.options import OPTIONS_BY_NAME, OptionType
from tienlen_rules.presets import PRESETS
from tienlen_rules.ruleset import build_rules
from tienlen_rules.settlement import settle

THREE_PLAYER_MOVES = ((0, "4S"), (1, "5S"), (2, "8S"), (0, None), (1, "9S"))


def net_after(
    variant: str,
    options: Mapping[str, object],
    hands: tuple[str, ...],
    moves: tuple[tuple[int, str | None], ...],
) -> list[int]:
    """The nets of a later game (seat 0 leads) with these hands, played with these moves."""
    table = later(variant, *hands, options=options)
    for seat, cards in moves:
        if cards is None:
            table.passes(seat)
        else:
            table.play(seat, cards)
    assert table.over
    return list(table.settle().net)


# --------------------------------------------------------------------------------------------
# The five games of issue #25.
# --------------------------------------------------------------------------------------------


def test_card_count_scoring_keeps_the_southern_penalty_of_a_red_two() -> None:
    # ♦2 left in hand: southern's ♦2 is 1 stake, card count or not (RULES §8 penalty values);
    # seat 0 pays the winner 2 cards + ♦2's 1 stake, seat 2 1 card.
    hands = ("4S 2D", "5S 9S", "8S JC")
    assert net_after("southern", {"scoring": "card_count"}, hands, THREE_PLAYER_MOVES) == [
        -200,
        300,
        -100,
    ]
    explicit = {"scoring": "card_count", "penalty_two_diamonds": 1}
    assert net_after("southern", explicit, hands, THREE_PLAYER_MOVES) == [-200, 300, -100]


def test_places_scoring_keeps_the_dem_la_penalty_of_a_black_two() -> None:
    # ♠2 rots at dem_la's 2 stakes whatever the scheme: places, 3 players — seat 0 last pays
    # L = 2 and ♠2 = 2 to the player above it (2nd, seat 1), who pays the winner 1.
    hands = ("4S 2S", "5S 9S", "8S")
    assert net_after("dem_la", {"scoring": "places"}, hands, THREE_PLAYER_MOVES) == [
        -400,
        100,
        300,
    ]


def test_consecutive_pairs_do_not_rot_where_they_are_not_a_combination() -> None:
    # 66 77 88 can't be played with consecutive_pairs off: no bomb, no thối (RULES §3, §8).
    hands = ("4S 6S 6C 7S 7C 8S 8C", "5S 10S", "9S")
    moves = ((0, "4S"), (1, "5S"), (2, "9S"), (0, None), (1, "10S"))
    table = later("southern", *hands, options={"consecutive_pairs": False})
    for seat, cards in moves:
        table.passes(seat) if cards is None else table.play(seat, cards)
    settlement = table.settle()
    assert list(settlement.net) == [-200, -100, 300]
    assert TransferReason.ROTTEN not in reasons(settlement)
    assert settlement.rotten == ()


def test_a_frozen_player_pays_nothing_for_pairs_that_are_not_a_combination() -> None:
    # Frozen: 2L = 4 stakes; 44 55 66 77 are no bomb at this table (RULES §3, §7).
    table = later(
        "southern", "4S 9H JS", "4C 4D 5S 5D 6D 6H 7S 7C", options={"consecutive_pairs": False}
    )
    table.play(0, "4S").passes(1).play(0, "9H").passes(1).play(0, "JS")
    assert list(table.settle().net) == [400, -400]


def test_the_dau_chop_table_is_played_without_consecutive_pairs() -> None:
    # Nothing in the rule book ties Đấu's chop table to consecutive pairs: without them, its
    # consecutive triples are its only bombs, and they still chop a 2 out of turn (RULES §5).
    rules = build_rules("dau", {"consecutive_pairs": False})
    state, _ = new_game(rules, 3, seed=1)
    assert sum(h.bit_count() for h in state.hands) == 52
    table = later(
        "dau",
        "2S 3S",
        "4S 4C 4D 5S 5C 5D 6S 6C 6D KH",
        "7S 7C 8S 8C 9S 9C QD",
        options={"consecutive_pairs": False},
    )
    assert table.rules.bomb_values.keys() == {"3triples"}
    table.play(0, "2S")
    assert not table.can_play(2, "7S 7C 8S 8C 9S 9C")  # no combination at this table
    table.play(1, "4S 4C 4D 5S 5C 5D 6S 6C 6D")  # chops ♠2
    table.passes(2, 0)
    assert [(p.payer, p.payee, p.amount) for p in table.state.chop_payments] == [(0, 1, 50)]


# --------------------------------------------------------------------------------------------
# The class: one resolution, bombs by what the table can play.
# --------------------------------------------------------------------------------------------

PENALTIES = tuple(name for name in OPTIONS_BY_NAME if name.startswith("penalty_"))


@pytest.mark.parametrize("variant", sorted(PRESETS))
@pytest.mark.parametrize("scoring", ["places", "card_count"])
def test_no_scheme_but_points_changes_a_preset_penalty_value(variant: str, scoring: str) -> None:
    preset = build_rules(variant).option_values()
    values = build_rules(variant, {"scoring": scoring}).option_values()
    assert {n: values[n] for n in PENALTIES} == {n: preset[n] for n in PENALTIES}


@pytest.mark.parametrize("variant", sorted(PRESETS))
def test_points_scoring_derives_every_penalty_the_table_does_not_give(variant: str) -> None:
    derived = dict(CONSTRAINTS_BY_NAME["points_penalty_values"].values)
    values = build_rules(variant, {"scoring": "points", "penalty_two_hearts": "5"}).option_values()
    assert values["penalty_two_hearts"] == 5
    for name, text in derived.items():
        if name != "penalty_two_hearts":
            assert str(values[name]) == text


@pytest.mark.parametrize(
    ("variant", "options", "bombs"),
    [
        ("southern", {"consecutive_pairs": False}, {"four"}),
        ("southern", {"consecutive_pairs": False, "penalty_three_pairs": "3"}, {"four"}),
        ("hue", {"penalty_three_pairs": "3/2"}, {"four", "4pairs"}),
        ("dau", {"consecutive_triples": False}, {"4pairs", "5pairs", "6pairs"}),
        ("dau", {"penalty_four_of_a_kind": "2"}, {"4pairs", "5pairs", "6pairs", "3triples"}),
        ("northern", {"penalty_four_pairs": "5/2"}, {"four"}),
        ("southern", {"chop_table": "none"}, set()),
    ],
)
def test_only_a_combination_the_chop_table_lists_and_the_table_plays_is_a_valued_bomb(
    variant: str, options: Mapping[str, object], bombs: set[str]
) -> None:
    rules = build_rules(variant, {"long_pairs_chop": "nothing", **options})
    assert set(rules.bomb_values) == bombs
    assert set(rules.chop_targets) >= set(rules.bomb_values)
    for chopped in rules.chop_targets.values():
        assert all(str(t) in {"2", "22", "222"} or t in rules.chop_targets for t in chopped)


def test_a_four_of_a_kind_is_no_bomb_in_dau_whatever_its_value() -> None:
    # Đấu: four of a kind is an ordinary combination (RULES §5): both players freeze at the
    # first finish, and KKKK costs its holder 2L only, even valued at 2 stakes (RULES §7).
    table = later("dau", "5S", "KS KC KD KH 4S", "9S", options={"penalty_four_of_a_kind": 2})
    table.play(0, "5S")
    assert table.over
    settlement = table.settle()
    assert list(settlement.net) == [800, -400, -400]
    assert TransferReason.ROTTEN not in reasons(settlement)


def test_every_constraint_names_known_options() -> None:
    for constraint in CONSTRAINTS:
        assert constraint.options
        for name in (*constraint.options, *(c.option for c in constraint.when)):
            assert name in OPTIONS_BY_NAME, (constraint.name, name)
        for name, _ in constraint.values:
            assert name in constraint.options
        if constraint.kind is ConstraintKind.REFUSED_UNLESS:
            assert constraint.refusal


def test_a_fractional_amount_names_the_whole_chips_constraint() -> None:
    with pytest.raises(SetupError) as info:
        build_rules("southern", {"stake": 1})
    assert (info.value.code, info.value.constraint) == ("FRACTIONAL_AMOUNT", "whole_chips")
    assert CONSTRAINTS_BY_NAME["whole_chips"].refusal == "FRACTIONAL_AMOUNT"


# --------------------------------------------------------------------------------------------
# The `applies_when` constraints are true: where the condition fails, the options change
# nothing — the same seeded games are played move for move and settle to the same nets.
# --------------------------------------------------------------------------------------------

GAMES_PER_VALUE = 40


def _failing(condition: OptionCondition) -> str:
    """A value of the condition's option for which the condition does not hold."""
    if condition.negated:
        return condition.values[0]
    return next(v for v in _values(condition.option) if v not in condition.values)


def _values(name: str) -> tuple[str, ...]:
    """Two values of an int or stakes option (its bounds; 1 and 3 stakes), every value of the
    others."""
    spec = OPTIONS_BY_NAME[name]
    if spec.type is OptionType.INT:
        return (str(spec.minimum), str(spec.maximum if spec.maximum < 100 else spec.minimum + 1))
    if spec.type is OptionType.STAKES:
        return ("1", "3")
    return documented_values(name)


def _games(options: Mapping[str, str], seed: int) -> list[tuple[list[str], tuple[int, ...]]]:
    """Seeded games with short explicit hands (cóng, thối and chops come early), moves drawn
    from the legal moves by a seeded generator: each game's moves and nets."""
    rules = build_rules("southern", options)
    rng = random.Random(seed)
    played: list[tuple[list[str], tuple[int, ...]]] = []
    for _ in range(GAMES_PER_VALUE):
        deck = list(range(52))
        rng.shuffle(deck)
        sizes = [rng.randint(1, 6) for _ in range(3)]
        hands = [sum(1 << c for c in deck[sum(sizes[:i]) : sum(sizes[: i + 1])]) for i in range(3)]
        first = rng.random() < 0.3
        try:
            state, _ = new_game(
                rules, 3, hands=hands, first_game=first, leader=None if first else 0
            )
        except SetupError:
            played.append((["refused"], ()))
            continue
        moves: list[str] = []
        while not state.over:
            options_now = [m for s in range(3) for m in legal_moves(state, s)]
            move = rng.choice(options_now)
            moves.append(str(move))
            state, _ = apply(state, move)
        played.append((moves, settle(state).net))
    return played


CASES = [
    (c, name) for c in CONSTRAINTS if c.kind is ConstraintKind.APPLIES_WHEN for name in c.options
]


@pytest.mark.parametrize(("constraint", "name"), CASES, ids=[f"{c.name}-{n}" for c, n in CASES])
def test_an_option_changes_nothing_where_its_constraint_says_it_does_not_apply(
    constraint: Constraint, name: str
) -> None:
    base = {c.option: _failing(c) for c in constraint.when}
    results = [_games({**base, name: value}, seed=len(name)) for value in _values(name)]
    assert all(r == results[0] for r in results[1:])


def test_cards_per_hand_changes_nothing_where_every_card_is_dealt() -> None:
    deals = {
        n: new_game(
            build_rules("southern", {"deal_all_cards": True, "cards_per_hand": n}), 3, seed=7
        )[0].hands
        for n in (9, 13)
    }
    assert deals[9] == deals[13]
    assert sorted(h.bit_count() for h in deals[9]) == [17, 17, 18]


def test_the_applies_when_check_sees_an_option_that_does_apply() -> None:
    # The check above can fail: with freezing on, the frozen multiplier changes the money.
    on = {"freezing": "true"}
    assert _games({**on, "freeze_multiplier": "1"}, 1) != _games(
        {**on, "freeze_multiplier": "3"}, 1
    )
