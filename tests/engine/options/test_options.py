"""Every rule option by name (RULES §2-§10, `options.OPTIONS`): set on its own over the Southern
defaults, each changes exactly what its description says, shown on a game where the default
plays differently. Then the refusals: an unknown preset or option, a bad value, an impossible
table (`dau` with 4 players) and a stake that would make a fraction of a chip are `SetupError`s
with a stable code and the field at fault.

Each option test is registered with `@covers(name)`; `test_every_option_is_tested_by_name`
fails when an option is added without a test here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from fractions import Fraction
from pathlib import Path
from typing import TypeVar

import pytest
from helpers.datafile import options_set
from helpers.tables import (
    Reason,
    Table,
    TransferReason,
    cards,
    combo,
    deal,
    later,
    reasons,
    rules,
    transfers,
)

from tienlen_rules import new_game, next_game
from tienlen_rules.cards import TWOS, parse_card
from tienlen_rules.combinations import Kind
from tienlen_rules.errors import SetupError
from tienlen_rules.events import (
    ChopSettled,
    InstantWin,
    Played,
    PlayerFinished,
    PlayersFrozen,
)
from tienlen_rules.options import LAST_PLACE, OPTIONS, OPTIONS_BY_NAME
from tienlen_rules.presets import PRESET_DESCRIPTIONS, PRESETS
from tienlen_rules.ruleset import build_rules

F = TypeVar("F", bound=Callable[..., object])
TESTED: set[str] = set()
# The options set on the lines of relations.txt beside this file are proven there (by
# test_relations.py), one case a line.
TESTED.update(options_set(Path(__file__).with_name("relations.txt")))
# The table's options (RULES §9) are proven by the tests of tests/engine/tables/, each named
# after its reading; an option counts when a test there sets it by name.
_TABLES = "".join(f.read_text() for f in (Path(__file__).parents[1] / "tables").glob("test_*.py"))
TESTED.update(o.name for o in OPTIONS if f"{o.name}=" in _TABLES or f'"{o.name}":' in _TABLES)

THREE_PAIRS = "3S 3C 4S 4C 5S 5C"
FOUR_PAIRS = "9S 9C 10S 10C JS JC QS QC"
SOUTH = rules("southern")


def covers(*names: str) -> Callable[[F], F]:
    """Register the options a test proves."""

    def mark(test: F) -> F:
        unknown = set(names) - set(OPTIONS_BY_NAME)
        assert not unknown, f"no such option: {unknown}"
        TESTED.update(names)
        return test

    return mark


def setup_error(
    variant: str = "southern",
    options: Mapping[str, object] | None = None,
    players: int | None = None,
) -> SetupError:
    """The SetupError raised building this rule set (and dealing to `players`, if given)."""
    if players is None:
        with pytest.raises(SetupError) as info:
            build_rules(variant, options)
        return info.value
    ruleset = build_rules(variant, options)
    with pytest.raises(SetupError) as info:
        new_game(ruleset, players, seed=1)
    return info.value


# --------------------------------------------------------------------------- presets


def test_the_six_presets_are_named_and_described() -> None:
    assert set(PRESETS) == {"southern", "northern", "hue", "da_nang", "dau", "dem_la"}
    assert set(PRESET_DESCRIPTIONS) == set(PRESETS)
    for name in PRESETS:
        assert rules(name).variant == name


def test_the_southern_preset_is_every_default() -> None:
    defaults = {o.name: o.default for o in OPTIONS}
    assert defaults["instant_win_stakes"] == LAST_PLACE  # "L": the value of place_last_to_first
    assert rules("southern").option_values() == defaults
    assert rules("southern").instant_win_stakes == rules("southern").place_last_to_first


@pytest.mark.parametrize("variant", sorted(PRESETS))
def test_a_preset_option_can_be_overridden_by_name(variant: str) -> None:
    ruleset = rules(variant, stake=500)
    assert ruleset.stake == 500
    assert ruleset.variant == variant
    base = rules(variant).option_values()
    assert ruleset.option_values() == base | {"stake": 500}


def test_every_option_is_tested_by_name() -> None:
    assert sorted(set(OPTIONS_BY_NAME) - TESTED) == []


# --------------------------------------------------------------------------- the deal


@covers("cards_per_hand")
def test_option_cards_per_hand_deals_that_many_cards() -> None:
    state, _ = new_game(rules(cards_per_hand=9), 4, seed=3)
    assert [h.bit_count() for h in state.hands] == [9, 9, 9, 9]
    state, _ = new_game(SOUTH, 4, seed=3)
    assert [h.bit_count() for h in state.hands] == [13, 13, 13, 13]


@covers("deal_all_cards")
def test_option_deal_all_cards_deals_17_17_18_to_three_players() -> None:
    state, _ = new_game(rules(deal_all_cards=True), 3, seed=5, dealer=2)
    assert [h.bit_count() for h in state.hands] == [17, 17, 18]
    error = setup_error(options={"deal_all_cards": True}, players=4)
    assert (error.code, error.field) == ("INVALID_PLAYER_COUNT", "players")


@covers("four_twos")
def test_option_four_twos_redeal_instead_of_instant_win() -> None:
    hands = ("2S 2C 2D 2H 9D", "3S 5D")
    win = deal("southern", *hands)
    assert win.of(InstantWin) == [InstantWin(0, "four_twos")]
    with pytest.raises(SetupError) as info:
        deal("southern", *hands, options={"four_twos": "redeal"})
    assert (info.value.code, info.value.field) == ("REDEAL_REQUIRED", "hands")


@covers("four_twos")
def test_option_four_twos_redeal_makes_a_seeded_deal_without_four_twos() -> None:
    seed = next(
        s for s in range(2000) if new_game(SOUTH, 4, seed=s)[0].instant_pattern == "four_twos"
    )
    redealt, _ = new_game(rules(four_twos="redeal"), 4, seed=seed)
    assert all(hand & TWOS != TWOS for hand in redealt.hands)
    assert redealt.instant_pattern != "four_twos"


@covers("four_threes_lay_down_twos")
def test_option_four_threes_lay_down_twos_removes_every_2() -> None:
    hands = ("3S 3C 3D 3H 2S 9D", "2H 2D 8C")
    on = later("southern", *hands, options={"four_threes_lay_down_twos": True})
    assert on.state.hands == (cards("3S 3C 3D 3H 9D"), cards("8C"))
    off = later("southern", *hands)
    assert off.state.hands == (cards(hands[0]), cards(hands[1]))


# --------------------------------------------------------------------------- combinations


@covers("same_colour_pairs")
def test_option_same_colour_pairs() -> None:
    on = rules(same_colour_pairs=True)
    assert combo("5S 5D", on) is None
    assert combo("5S 5C", on) is not None
    assert combo("5S 5D", SOUTH) is not None


@covers("consecutive_pairs")
def test_option_consecutive_pairs() -> None:
    assert combo(THREE_PAIRS, rules(consecutive_pairs=False)) is None
    found = combo(THREE_PAIRS, SOUTH)
    assert found is not None
    assert found.kind == Kind.CONSECUTIVE_PAIRS


@covers("consecutive_triples")
def test_option_consecutive_triples() -> None:
    triples = "4S 4C 4D 5S 5C 5D 6S 6C 6D"
    found = combo(triples, rules(consecutive_triples=True))
    assert found is not None
    assert found.kind == Kind.CONSECUTIVE_TRIPLES
    assert combo(triples, SOUTH) is None


@covers("single_suit_straights")
def test_option_single_suit_straights() -> None:
    on = rules(single_suit_straights=True)
    assert combo("4C 5D 6C", on) is None
    assert combo("4C 5C 6C", on) is not None
    assert combo("4C 5D 6C", SOUTH) is not None


@covers("follow_suit")
def test_option_follow_suit() -> None:
    following = {"follow_suit": True, "same_colour_pairs": True, "single_suit_straights": True}
    t = later("southern", "4D 9S", "6H 6D", options=following)
    t.play(0, "4D")
    assert t.legal(1) == {"6D"}


# --------------------------------------------------------------------------- chops


FIVE_PAIRS = "3S 3C 4S 4C 5S 5C 6S 6C 7S 7C"


@covers("long_pairs_chop")
def test_option_long_pairs_chop() -> None:
    # RULES §3: 3+ consecutive pairs are bombs; the §5 table stops at 4 pairs. Reachable only
    # without the instant win for 5 consecutive pairs. Which plays 5 pairs chop under each
    # value is in relations.txt; here, whether they chop out of turn.
    # Out of turn, as 4 pairs may (không cần vòng): seat 2 leads ♥2, seat 0 is to act.
    hands = ("8D 4H", f"{FIVE_PAIRS} 3H", "JD 2H 3D")
    for value, allowed in (("ladder", True), ("nothing", False)):
        t = later("southern", *hands, options={"instant_wins": "none", "long_pairs_chop": value})
        t.play(0, "8D").passes(1).play(2, "JD").passes(0).play(2, "2H")
        assert t.to_act == 0
        assert t.can_play(1, FIVE_PAIRS) is allowed


@covers("out_of_turn_chops")
def test_option_out_of_turn_chops() -> None:
    hands = ("8D 2H 4H", f"{FOUR_PAIRS} 3H", "JD 3D")
    for allowed in (True, False):
        t = later("southern", *hands, options={"out_of_turn_chops": allowed})
        t.play(0, "8D").passes(1).play(2, "JD").play(0, "2H")
        assert t.to_act == 2
        assert t.can_play(1, FOUR_PAIRS) is allowed
    t = later("southern", "2H 4H", f"{FOUR_PAIRS} 3H", options={"out_of_turn_chops": False})
    t.play(0, "2H").play(1, FOUR_PAIRS)  # in turn it still chops
    assert t.of(Played)[-1].chop


def _chop_of_a_last_two(value: str) -> Table:
    """Seat 0 goes out on ♥2; seat 1 chops it with a four of a kind."""
    t = later(
        "southern",
        "4D AD 2H",
        "6D 9S 9C 9D 9H 3S",
        "7D 4S 6S",
        options={"chop_on_last_card": value},
    )
    t.play(0, "4D").play(1, "6D").play(2, "7D").play(0, "AD").passes(1, 2).play(0, "2H")
    t.play(1, "9S 9C 9D 9H").passes(2).play(1, "3S")
    assert t.over
    return t


@covers("chop_on_last_card")
@pytest.mark.parametrize(
    ("value", "chops", "zero_sum"),
    [("void", [], True), ("paid", [(0, 1, 100)], True), ("chopper_only", [(-1, 1, 100)], False)],
)
def test_option_chop_on_last_card(
    value: str, chops: list[tuple[int, int, int]], zero_sum: bool
) -> None:
    s = _chop_of_a_last_two(value).settle()
    assert transfers(s, TransferReason.CHOP) == chops
    assert s.zero_sum is zero_sum
    assert (sum(s.net) == 0) is zero_sum


@covers("chop_chain_out_link")
def test_option_chop_chain_out_link() -> None:
    def chain(**options: object) -> list[tuple[int, int, int]]:
        # Seat 0 goes out on ♥2; seat 1 chops it (3 pairs), seat 2 chops seat 1 (four 10s).
        hands = ("3S 2H", "4S 5D 5H 6D 6H 7D 7H 9C", "8S 10C 10D 10H 10S JC")
        t = later("southern", *hands, options=options)
        t.play(0, "3S").play(1, "4S").play(2, "8S").play(0, "2H")
        t.play(1, "5D 5H 6D 6H 7D 7H").play(2, "10C 10D 10H 10S").passes(1)
        return [(e.payer, e.payee, e.amount) for e in t.of(ChopSettled)]

    assert chain() == [(1, 2, 250)]  # the last chopped pays the ♥2 1 + 3 pairs 1½
    assert chain(chop_chain_out_link="void") == [(1, 2, 150)]  # the 3 pairs only


# --------------------------------------------------------------------------- leading


@covers("starting_card")
def test_option_starting_card() -> None:
    hands = ("3S 5S", "3C 6S")
    assert deal("southern", *hands).to_act == 0
    club = deal("southern", *hands, options={"starting_card": "3C"})
    assert club.to_act == 1
    assert club.refused(1, "6S") == Reason.MUST_INCLUDE_STARTING_CARD


@covers("starting_card_every_game")
def test_option_starting_card_every_game() -> None:
    for every_game, leader in ((True, 1), (False, 0)):
        first = deal("southern", "3S", "8S", options={"starting_card_every_game": every_game})
        first.play(0, "3S")
        assert first.state.winner == 0
        assert first.next_game("4D 5D", "3S 6D").to_act == leader


@covers("first_game_leader")
def test_option_first_game_leader_random() -> None:
    on = rules(first_game_leader="random")
    leaders = {
        new_game(on, 4, hands=[cards("3S"), cards("4S"), cards("5S"), cards("6S")], seed=s)[
            0
        ].to_act
        for s in range(30)
    }
    assert leaders == {0, 1, 2, 3}
    state, _ = new_game(on, 2, hands=[cards("3S 9D"), cards("4S")], seed=4)
    assert state.must_include == -1
    south = new_game(SOUTH, 2, hands=[cards("4S"), cards("3S 9D")])[0]
    assert (south.to_act, south.must_include) == (1, 0)


@covers("pass_lockout")
def test_option_pass_lockout() -> None:
    hands = ("4S 7S 3D", "8S 9D", "5S 10D")
    locked = later("southern", *hands)
    locked.play(0, "4S").passes(1).play(2, "5S").play(0, "7S")
    assert locked.to_act == 2
    assert locked.refused(1, "8S") == Reason.LOCKED_OUT_OF_ROUND
    free = later("southern", *hands, options={"pass_lockout": False})
    free.play(0, "4S").passes(1).play(2, "5S").play(0, "7S")
    assert free.to_act == 1  # back in the round after passing
    free.play(1, "8S")


@covers("lead_stealing")
def test_option_lead_stealing() -> None:
    hands = ("9S 10S", f"{THREE_PAIRS} JS", "QS KS")
    on = later("southern", *hands, options={"lead_stealing": True})
    on.play(1, THREE_PAIRS)
    assert on.of(Played)[-1].steal
    off = later("southern", *hands)
    assert off.refused(1, THREE_PAIRS) == Reason.NOT_YOUR_TURN


@covers("steal_winner_pairs_lead")
@pytest.mark.parametrize("open_to_steal", [True, False])
def test_option_steal_winner_pairs_lead(open_to_steal: bool) -> None:
    # Huế (cướp cái on): the previous winner, seat 0, leads 3 consecutive pairs themselves.
    high = "6S 6C 7S 7C 8S 8C"
    t = later(
        "hue",
        f"{THREE_PAIRS} 9D",
        "JD QD KD",
        f"{high} 9H",
        "JH QH KH",
        options={"steal_winner_pairs_lead": open_to_steal},
    )
    t.play(0, THREE_PAIRS)
    assert t.to_act == 1
    assert t.state.steal_open is open_to_steal
    if open_to_steal:  # seat 2 takes the lead out of turn, as a steal
        t.play(2, high)
        assert t.of(Played)[-1].steal
        assert t.to_act == 3
        return
    assert t.refused(2, high) == Reason.CANNOT_STEAL_LEAD
    t.passes(1).play(2, high)  # in turn: an ordinary beat
    assert not t.of(Played)[-1].steal
    assert t.to_act == 3


# --------------------------------------------------------------------------- finishing


@covers("finish_on_two")
@pytest.mark.parametrize(("value", "place"), [("allowed", 1), ("ranks_last", 3)])
def test_option_finish_on_two(value: str, place: int) -> None:
    t = later("southern", "5D AD 2H", "6D 3C 4C", "7D 8S 9H", options={"finish_on_two": value})
    t.play(0, "5D").play(1, "6D").play(2, "7D").play(0, "AD").passes(1, 2).play(0, "2H")
    assert t.of(PlayerFinished)[-1] == PlayerFinished(0, place, ranked_last=place == 3)


@covers("finish_on_four_of_a_kind")
@pytest.mark.parametrize(("value", "place"), [("allowed", 1), ("ranks_last", 3)])
def test_option_finish_on_four_of_a_kind(value: str, place: int) -> None:
    t = later(
        "southern",
        "5D AD JS JC JD JH",
        "6D 3C 4C",
        "7D 8S 9H",
        options={"finish_on_four_of_a_kind": value},
    )
    t.play(0, "5D").play(1, "6D").play(2, "7D").play(0, "AD").passes(1, 2).play(0, "JS JC JD JH")
    assert t.of(PlayerFinished)[-1] == PlayerFinished(0, place, ranked_last=place == 3)


# --------------------------------------------------------------------------- instant wins


@covers("instant_wins")
@pytest.mark.parametrize(
    ("name", "hand", "pattern"),
    [
        ("none", "2S 2C 2D 2H 9D", ""),
        ("standard", "2S 2C 2D 2H 9D", "four_twos"),
        ("standard", "4D 4C 4S 5D 5C 5S 6H 6D 6S 9H", ""),  # 3 consecutive triples: not standard
        ("extended", "4D 4C 4S 5D 5C 5S 6H 6D 6S 9H", "three_consecutive_triples"),
        ("standard", "3S 3C 4S 4C 5S 5C 6S 6C 9H", "three_consecutive_pairs_with_start"),
        # The extended list names 4 consecutive pairs with ♠3 on their own (RULES §7), not as
        # the 3 consecutive pairs with ♠3 they also hold.
        ("extended", "3S 3C 4S 4C 5S 5C 6S 6C 9H", "four_consecutive_pairs_with_start"),
        ("dau", "3S 3C 4S 4C 5S 5C 6S 6C 9H", "four_consecutive_pairs_with_start"),
        ("dau", "2S 2C 2D 2H 9D", ""),
        ("dem_la", "2S 2C 2D 2H 9D", "four_twos"),
        ("dem_la", "3S 4S 5S 6S 7S 8S 9C 10C JC QC KC 2S", ""),  # 12 of one colour
        ("standard", "3S 4S 5S 6S 7S 8S 9C 10C JC QC KC 2S", "twelve_of_one_colour"),
    ],
)
def test_option_instant_wins_selects_the_list(name: str, hand: str, pattern: str) -> None:
    t = deal("southern", hand, "KH", options={"instant_wins": name})
    assert t.state.instant_pattern == pattern


@covers("first_game_instant_wins")
def test_option_first_game_instant_wins() -> None:
    four_threes = ("3S 3C 3D 3H 9D", "KH")
    assert deal("southern", *four_threes).of(InstantWin) == [InstantWin(0, "four_threes")]
    off = deal("southern", *four_threes, options={"first_game_instant_wins": False})
    assert not off.of(InstantWin)
    four_twos = ("2S 2C 2D 2H 9D", "3S")
    assert deal("southern", *four_twos, options={"first_game_instant_wins": False}).of(InstantWin)


@covers("count_pigs")
def test_option_count_pigs() -> None:
    hands = ("2S 2C 2D 2H 9D", "3S 3H", "JS JC JD JH 4D")
    plain = deal("southern", *hands).settle()
    assert sorted(transfers(plain)) == [(1, 0, 200), (2, 0, 200)]
    counted = deal("southern", *hands, options={"count_pigs": True}).settle()
    assert sorted(transfers(counted, TransferReason.ROTTEN)) == [(2, 0, 200)]  # the four: 2 stakes
    assert sorted(transfers(counted, TransferReason.INSTANT_WIN)) == [(1, 0, 200), (2, 0, 200)]


@covers("instant_win_stakes")
def test_option_instant_win_stakes() -> None:
    s = deal("southern", "2S 2C 2D 2H 9D", "3S", options={"instant_win_stakes": 3}).settle()
    assert transfers(s) == [(1, 0, 300)]


def test_the_instant_win_amount_is_l_unless_given() -> None:
    def paid(options: dict[str, object]) -> list[tuple[int, int, int]]:
        return transfers(deal("southern", "2S 2C 2D 2H 9D", "3S", options=options).settle())

    assert paid({"place_last_to_first": 3}) == [(1, 0, 300)]  # L follows the last-place amount
    assert paid({"place_last_to_first": 3, "instant_win_stakes": "l"}) == [(1, 0, 300)]
    assert paid({"place_last_to_first": 3, "instant_win_stakes": 1}) == [(1, 0, 100)]
    assert rules("southern", instant_win_stakes="L").overrides == (("instant_win_stakes", "L"),)
    for name in ("place_last_to_first", "rotten_three_stakes"):
        assert setup_error("southern", {name: "L"}).code == "INVALID_OPTION_VALUE"


def test_ba_mu_in_hue_and_da_nang_pays_l() -> None:
    for variant in ("hue", "da_nang"):
        assert rules(variant).blind_three_stakes == 2
        assert rules(variant, place_last_to_first=3).blind_three_stakes == 3
        assert rules(variant, place_last_to_first=3, blind_three_stakes=3).blind_three_stakes == 3


# --------------------------------------------------------------------------- cóng


def _frozen_game(**options: object) -> Table:
    """Seat 0 goes out before seat 1 has played (2 players)."""
    t = later("southern", "9S", "4D 2H", options=options)
    t.play(0, "9S")
    return t


@covers("freezing")
def test_option_freezing() -> None:
    on = _frozen_game()
    assert on.of(PlayersFrozen) == [PlayersFrozen((1,), (2,))]
    assert TransferReason.FROZEN in reasons(on.settle())
    off = later("southern", "9S", "4D 2H", "5D 6D", options={"freezing": False})
    off.play(0, "9S")
    assert not off.of(PlayersFrozen)
    assert not off.over


@covers("freeze_multiplier")
def test_option_freeze_multiplier() -> None:
    assert transfers(_frozen_game().settle(), TransferReason.FROZEN) == [(1, 0, 400)]  # 2 × L
    assert transfers(_frozen_game(freeze_multiplier=4).settle(), TransferReason.FROZEN) == [
        (1, 0, 800)
    ]
    # The frozen player's 2s are counted as for thối, whatever the multiplier.
    assert transfers(_frozen_game(freeze_multiplier=4).settle(), TransferReason.ROTTEN) == [
        (1, 0, 100)
    ]


@covers("freeze_exempt_unplayed")
def test_option_freeze_exempt_unplayed() -> None:
    hands = ("3S 9S", "4S 10S", "5S 10C", "6S 7S")
    for exempt, frozen in ((0, True), (2, True), (1, False)):
        t = later("southern", *hands, options={"freeze_exempt_unplayed": exempt})
        t.play(0, "3S").play(1, "4S").play(2, "5S").passes(3).play(0, "9S")  # only seat 3 unplayed
        assert bool(t.of(PlayersFrozen)) is frozen, exempt


@covers("frozen_pays")
def test_option_frozen_pays() -> None:
    def frozen_game(**options: object) -> Table:
        t = later("southern", "3S 9S", "4S 5D", "5S 6D", "7D 8D 2H", options=options)
        t.play(0, "3S").play(1, "4S").play(2, "5S").passes(3).play(0, "9S")  # seat 3 frozen
        assert t.of(PlayersFrozen) == [PlayersFrozen((3,), (4,))]
        return t

    t = frozen_game()
    assert not t.over  # seats 1 and 2 play on for 2nd and 3rd
    t.passes(1, 2).play(1, "5D")
    assert t.over
    assert t.places == (1, 2, 3, 4)
    assert sorted(transfers(t.settle())) == [(2, 1, 100), (3, 0, 100), (3, 0, 400)]
    # The whole table: the game ends at the freeze, seat 3 pays each other player L (as to an
    # instant winner: no 2s counted without count_pigs), and nobody pays for places.
    t = frozen_game(frozen_pays="whole_table")
    assert t.over
    assert t.places == (1, 2, 3, 4)
    assert sorted(transfers(t.settle())) == [(3, 0, 200), (3, 1, 200), (3, 2, 200)]
    s = frozen_game(frozen_pays="whole_table", count_pigs=True).settle()
    assert sorted(transfers(s, TransferReason.ROTTEN)) == [(3, 0, 100), (3, 1, 100), (3, 2, 100)]
    assert [(r.seat, r.label, r.amount) for r in s.rotten] == [(3, "2", 100)]  # shown once


@covers("freeze_at")
def test_option_freeze_at() -> None:
    # Đà Nẵng: two players have not played at the first finish, so nobody is frozen; then seat
    # 1 goes out while seat 2 still has not played.
    def game(**options: object) -> Table:
        t = later("da_nang", "3S 9S", "JS", "4D 5D", options=options)
        t.play(0, "3S").passes(1, 2).play(0, "9S")
        assert not t.of(PlayersFrozen)
        t.play(1, "JS")
        assert t.over
        assert t.places == (1, 2, 3)
        return t

    at_first = game()
    assert not at_first.of(PlayersFrozen)
    assert sorted(transfers(at_first.settle())) == [(1, 0, 100), (2, 0, 200)]  # places
    at_every = game(freeze_at="every_finish")
    assert at_every.of(PlayersFrozen) == [PlayersFrozen((2,), (3,))]
    s = at_every.settle()
    assert sorted(transfers(s)) == [(1, 0, 100), (2, 0, 400)]  # seat 2 pays the winner 2L
    assert transfers(s, TransferReason.FROZEN) == [(2, 0, 400)]


@covers("freeze_at")
@pytest.mark.parametrize(
    ("value", "frozen", "paid"),
    [
        ("first_finish", [], [(0, 1, 200), (3, 2, 100)]),
        ("until_win", [PlayersFrozen((3,), (3,))], [(0, 1, 200), (3, 1, 400)]),
    ],
)
def test_option_freeze_at_until_win(
    value: str, frozen: list[PlayersFrozen], paid: list[tuple[int, int, int]]
) -> None:
    # Huế: seat 0 is the first player out, on ♥2 (ranked last), while seat 3 has not played.
    # Judged only at the win, seat 3 plays on and escapes cóng; judged until the win, it is
    # frozen at once (3rd, above seat 0) and pays the winner 2L.
    t = later("hue", "5S 2H", "6S 7S KS", "8S 9S QS", "JD QD", options={"freeze_at": value})
    t.play(0, "5S").play(1, "6S").play(2, "8S").passes(3).play(0, "2H")
    assert t.of(PlayerFinished) == [PlayerFinished(0, 4, ranked_last=True)]
    assert t.of(PlayersFrozen) == frozen
    t.passes(1, 2).play(1, "7S").play(2, "9S")
    if not frozen:
        t.play(3, "QD")  # seat 3 plays: no cóng for it at the win
    t.play(1, "KS")
    if not frozen:
        t.passes(2, 3).play(2, "QS")
    assert t.over
    assert t.places == (4, 1, 2, 3)
    assert sorted(transfers(t.settle())) == paid


@covers("compensation")
@pytest.mark.parametrize("on", [True, False])
def test_option_compensation(on: bool) -> None:
    # Seat 1 passes on the ♠8 holding ♠10, the only beat; seat 0 goes out and both are frozen.
    t = later("southern", "8S 9S", "10S 4D", "5D 6D", options={"compensation": on})
    t.play(0, "8S").passes(1, 2).play(0, "9S")
    assert t.of(PlayersFrozen) == [PlayersFrozen((1, 2), (2, 3))]
    s = t.settle()
    if on:  # đền bài: seat 1 pays for both, seat 2 pays nothing and seat 1 leads the next game
        assert transfers(s) == [(1, 0, 400), (1, 0, 400)]
        assert reasons(s) == {TransferReason.COMPENSATION}
        assert s.next_leader == 1
        assert t.next_game("4S 5S", "6S 7S", "8S 9S").to_act == 1
    else:
        assert sorted(transfers(s)) == [(1, 0, 400), (2, 0, 400)]
        assert reasons(s) == {TransferReason.FROZEN}
        assert s.next_leader is None


# --------------------------------------------------------------------------- specials


def _spade_three_win(**options: object) -> Table:
    """Seat 0 goes out with ♠3 as its very last card, after everyone has played."""
    t = later("southern", "4S 2H 3S", "5S 9S", "6S 10S", "7S 8S", options=options)
    t.play(0, "4S").play(1, "5S").play(2, "6S").play(3, "7S").play(0, "2H").passes(1, 2, 3)
    t.play(0, "3S").passes(1, 2, 3).play(1, "9S").passes(2, 3).play(2, "10S")
    assert t.places == (1, 2, 3, 4)
    return t


@covers("blind_three_stakes")
def test_option_blind_three_stakes() -> None:
    s = _spade_three_win(blind_three_stakes=3).settle()
    assert sorted(transfers(s)) == [(1, 0, 300), (2, 0, 300), (3, 0, 300)]
    assert sorted(transfers(_spade_three_win().settle())) == [(2, 1, 100), (3, 0, 200)]


@covers("blind_three_in_first_game")
def test_option_blind_three_in_first_game() -> None:
    def first_game(**options: object) -> Table:
        # Huế: ♣3 leads the first game, so seat 0 can keep ♠3 to the end.
        t = deal("hue", "3C 9D 3S", "4C 10S", "5C 10C", options=options)
        t.play(0, "3C").play(1, "4C").play(2, "5C").play(0, "9D").passes(1, 2).play(0, "3S")
        t.passes(1, 2).play(1, "10S")
        assert t.state.first_game
        assert t.places == (1, 2, 3)
        return t

    s = first_game().settle()
    assert sorted(transfers(s)) == [(1, 0, 200), (2, 0, 200)]  # every other player pays L
    assert reasons(s) == {TransferReason.BLIND_THREE}
    s = first_game(blind_three_in_first_game=False).settle()
    assert sorted(transfers(s)) == [(1, 0, 100), (2, 0, 200)]  # the places of 3 players
    assert reasons(s) == {TransferReason.PLACE}
    # A later game still pays it.
    later_game = _spade_three_win(blind_three_stakes=3, blind_three_in_first_game=False)
    assert reasons(later_game.settle()) == {TransferReason.BLIND_THREE}


@covers("rotten_three_stakes")
def test_option_rotten_three_stakes() -> None:
    for stakes, expected in ((3, [(1, 0, 300)]), (0, [])):
        t = later("southern", "4D 9S", "3S 5D", options={"rotten_three_stakes": stakes})
        t.play(0, "4D").play(1, "5D").play(0, "9S")
        assert transfers(t.settle(), TransferReason.ROTTEN_THREE) == expected


# --------------------------------------------------------------------------- settlement


@covers("scoring")
def test_option_scoring_points() -> None:
    # Points (sources 000/001/002): ♠2 1, ♣2 2, ♦2 3, ♥2 4, any bomb 4, each point a stake.
    t = later("southern", "2H 3H", "JS JC JD JH 4C", options={"scoring": "points"})
    t.play(0, "2H").play(1, "JS JC JD JH").passes(0).play(1, "4C")
    assert transfers(t.settle(), TransferReason.CHOP) == [(0, 1, 400)]


@covers("scoring")
def test_option_scoring_card_count() -> None:
    t = later("southern", "4D 9S", "5D 6C 7C", "6D 8D", options={"scoring": "card_count"})
    t.play(0, "4D").play(1, "5D").play(2, "6D").play(0, "9S")
    assert t.over  # the game ends at the first finish
    assert sorted(transfers(t.settle())) == [(1, 0, 200), (2, 0, 100)]


@covers("stake")
def test_option_stake() -> None:
    t = later("southern", "4D 9S", "5D 6C", options={"stake": 50})
    t.play(0, "4D").play(1, "5D").play(0, "9S")
    assert transfers(t.settle()) == [(1, 0, 100)]  # L = 2 stakes of 50 chips


def _three_player_places(**options: object) -> Table:
    t = later("southern", "4C AC 9S", "5C 7C 8S", "6C 3D", options=options)
    t.play(0, "4C").play(1, "5C").play(2, "6C").play(0, "AC").passes(1, 2)
    t.play(0, "9S").passes(1, 2).play(1, "7C").passes(2).play(1, "8S")
    assert t.places == (1, 2, 3)
    return t


@covers("place_last_to_first", "place_second_to_first")
def test_option_place_amounts_for_three_players() -> None:
    assert sorted(transfers(_three_player_places().settle())) == [(1, 0, 100), (2, 0, 200)]
    s = _three_player_places(place_last_to_first=3, place_second_to_first="1/2").settle()
    assert sorted(transfers(s)) == [(1, 0, 50), (2, 0, 300)]


@covers("place_third_to_second")
def test_option_place_third_to_second() -> None:
    def four_player_game(**options: object) -> Table:
        t = later("southern", "4C AC 9S", "5C 7C 8S", "6C 3D 10D", "7D JD", options=options)
        t.play(0, "4C").play(1, "5C").play(2, "6C").play(3, "7D").play(0, "AC").passes(1, 2, 3)
        t.play(0, "9S").passes(1, 2, 3).play(1, "7C").passes(2, 3).play(1, "8S").passes(2, 3)
        t.play(2, "3D").play(3, "JD")
        assert t.places == (1, 2, 4, 3)
        return t

    assert sorted(transfers(four_player_game().settle())) == [(2, 0, 200), (3, 1, 100)]
    assert sorted(transfers(four_player_game(place_third_to_second=2).settle())) == [
        (2, 0, 200),
        (3, 1, 200),
    ]


@covers("penalty_two_spades", "penalty_two_clubs", "penalty_two_diamonds", "penalty_two_hearts")
@pytest.mark.parametrize(
    ("option", "two", "default_chips"),
    [
        ("penalty_two_spades", "2S", 50),
        ("penalty_two_clubs", "2C", 50),
        ("penalty_two_diamonds", "2D", 100),
        ("penalty_two_hearts", "2H", 100),
    ],
)
def test_option_penalty_of_each_two(option: str, two: str, default_chips: int) -> None:
    for options, chips in (({}, default_chips), ({option: 3}, 300)):
        t = later("southern", f"{two} 3H", "JS JC JD JH 4C", options=options)
        t.play(0, two).play(1, "JS JC JD JH").passes(0).play(1, "4C")
        assert transfers(t.settle(), TransferReason.CHOP) == [(0, 1, chips)]


@covers("penalty_three_pairs", "penalty_four_of_a_kind")
@pytest.mark.parametrize(
    ("led", "chop", "option", "default_chips"),
    [
        (THREE_PAIRS, "JS JC JD JH", "penalty_three_pairs", 150),
        ("6S 6C 6D 6H", "JS JC JD JH", "penalty_four_of_a_kind", 200),
    ],
)
def test_option_penalty_of_a_chopped_bomb(
    led: str, chop: str, option: str, default_chips: int
) -> None:
    for options, chips in (({}, default_chips), ({option: 4}, 400)):
        t = later("southern", f"{led} KH", f"{chop} AD", options=options)
        t.play(0, led).play(1, chop).passes(0).play(1, "AD")
        assert transfers(t.settle(), TransferReason.CHOP) == [(0, 1, chips)]


def _left_holding(variant: str, last_hand: str, **options: object) -> Table:
    """3 players; seat 0 goes out first, seat 1 second, seat 2 is left holding `last_hand`."""
    t = later(variant, "4C AC 9S", "5C 7C 8S", f"6C {last_hand}", options=options)
    t.play(0, "4C").play(1, "5C").play(2, "6C").play(0, "AC").passes(1, 2)
    t.play(0, "9S").passes(1, 2).play(1, "7C").passes(2).play(1, "8S")
    assert t.places == (1, 2, 3)
    return t


@covers("penalty_four_pairs")
def test_option_penalty_four_pairs() -> None:
    four_pairs = "3S 3D 4S 4D 5S 5D 6S 6D"
    assert transfers(_left_holding("southern", four_pairs).settle(), TransferReason.ROTTEN) == [
        (2, 1, 250)
    ]
    s = _left_holding("southern", four_pairs, penalty_four_pairs=5).settle()
    assert transfers(s, TransferReason.ROTTEN) == [(2, 1, 500)]


@covers("penalty_five_pairs", "penalty_six_pairs", "penalty_three_triples")
@pytest.mark.parametrize(
    ("last_hand", "option", "default_chips"),
    [
        ("10S 10D JS JD QS QD KS KD AS AD", "penalty_five_pairs", 200),
        ("3S 3D 4S 4D 5S 5D 6S 6D 7S 7D 8D 8H", "penalty_six_pairs", 300),
        ("3S 3D 3H 4S 4D 4H 5S 5D 5H", "penalty_three_triples", 250),
    ],
)
def test_option_penalty_of_dau_bombs(last_hand: str, option: str, default_chips: int) -> None:
    # Under Đấu (where these bombs are valued) a last hand rots at the option's value.
    def rotten(**options: object) -> int:
        s = _left_holding("dau", last_hand, **options).settle()
        return sum(a for _, _, a in transfers(s, TransferReason.ROTTEN))

    assert rotten() == default_chips
    assert rotten(**{option: 6}) == 600


@covers("rotten_two_flat")
def test_option_rotten_two_flat() -> None:
    assert sorted(
        transfers(_left_holding("southern", "2S 2H").settle(), TransferReason.ROTTEN)
    ) == [
        (2, 1, 50),
        (2, 1, 100),
    ]
    flat = _left_holding("southern", "2S 2H", rotten_two_flat=13).settle()
    assert transfers(flat, TransferReason.ROTTEN) == [(2, 1, 1300)]


@covers("match_bankroll")
def test_option_match_bankroll_ends_the_match_below_zero() -> None:
    # RULES §9 (Northern option): a player whose total drops below 0 loses the match.
    game = later("southern", "4D 9S", "5D 6C", options={"match_bankroll": 100})
    game.play(0, "4D").play(1, "5D").play(0, "9S")  # seat 1 loses 200 chips
    with pytest.raises(SetupError) as info:
        next_game(game.state, hands=[cards("3S"), cards("4S")])
    assert info.value.code == "MATCH_OVER"
    rich = later("southern", "4D 9S", "5D 6C", options={"match_bankroll": 200})
    rich.play(0, "4D").play(1, "5D").play(0, "9S")
    state, _ = next_game(rich.state, hands=[cards("3S"), cards("4S")])
    assert state.match.totals == (200, -200)


# --------------------------------------------------------------------------- option values


@pytest.mark.parametrize(
    ("name", "text", "value"),
    [
        ("freezing", "false", False),
        ("freezing", "off", False),
        ("freezing", "1", True),
        ("penalty_two_hearts", "3/2", Fraction(3, 2)),
        ("penalty_two_hearts", "1.5", Fraction(3, 2)),
        ("stake", "250", 250),
        ("chop_table", "HUE", "hue"),
    ],
)
def test_option_values_may_be_given_as_text(name: str, text: str, value: object) -> None:
    assert getattr(build_rules("southern", {name: text}), name) == value


# --------------------------------------------------------------------------- refusals


def test_an_unknown_preset_is_refused_naming_it() -> None:
    error = setup_error("western")
    assert (error.code, error.field) == ("UNKNOWN_VARIANT", "variant")
    assert "western" in error.message


def test_an_unknown_option_is_refused_naming_it() -> None:
    error = setup_error(options={"jokers_wild": True})
    assert (error.code, error.field) == ("UNKNOWN_OPTION", "options.jokers_wild")
    assert "jokers_wild" in error.message


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("freezing", "maybe"),
        ("cards_per_hand", 0),
        ("cards_per_hand", 14),
        ("cards_per_hand", "many"),
        ("stake", 0),
        ("stake", True),
        ("penalty_two_hearts", "-1"),
        ("penalty_two_hearts", "a lot"),
        ("chop_table", "western"),
        ("starting_card", "3D"),
        ("scoring", "chips"),
        ("freeze_exempt_unplayed", 4),
    ],
)
def test_a_bad_option_value_is_refused_naming_the_option(name: str, value: object) -> None:
    error = setup_error(options={name: value})
    assert (error.code, error.field) == ("INVALID_OPTION_VALUE", f"options.{name}")
    assert name in error.message


@pytest.mark.parametrize("variant", ["northern", "hue", "da_nang", "dem_la"])
def test_a_bad_option_value_is_refused_under_every_preset(variant: str) -> None:
    error = setup_error(variant, {"scoring": "chips"})
    assert (error.code, error.field) == ("INVALID_OPTION_VALUE", "options.scoring")


@pytest.mark.parametrize("players", [2, 4])
def test_dau_with_other_than_three_players_is_refused(players: int) -> None:
    error = setup_error("dau", players=players)
    assert (error.code, error.field) == ("INVALID_PLAYER_COUNT", "players")
    assert "3" in error.message


def test_dau_with_three_players_is_accepted() -> None:
    state, _ = new_game(rules("dau"), 3, seed=1)
    assert sum(h.bit_count() for h in state.hands) == 52


@pytest.mark.parametrize(
    ("variant", "stake", "options"),
    [
        ("southern", 1, {}),  # a black 2 is ½ stake
        ("southern", 3, {}),
        ("dau", 1, {}),  # 4 consecutive pairs 1½ stakes
        ("hue", 100, {"penalty_two_hearts": "1/3"}),
        (
            "southern",
            2,
            {"place_last_to_first": "1/2", "freeze_multiplier": "5/2"},
        ),  # frozen: 5/4 stakes
    ],
)
def test_a_stake_that_makes_a_fraction_of_a_chip_is_refused(
    variant: str, stake: int, options: dict[str, object]
) -> None:
    error = setup_error(variant, {"stake": stake, **options})
    assert (error.code, error.field) == ("FRACTIONAL_AMOUNT", "options.stake")


@pytest.mark.parametrize(
    ("variant", "stake"), [("southern", 2), ("dau", 2), ("dem_la", 1), ("northern", 2)]
)
def test_a_stake_that_makes_whole_chips_is_accepted(variant: str, stake: int) -> None:
    assert rules(variant, stake=stake).stake == stake


def test_a_card_count_frozen_payment_that_is_a_fraction_of_a_chip_is_refused_at_setup() -> None:
    # dem_la, stake 2, frozen ×5/4: every option value is whole chips alone and ×5/4, but a
    # frozen loser holding 1 card owes 1 × 5/4 stakes = 2½ chips (accepted until a47dcf2, when
    # such a game failed only at settlement).
    options = {
        "stake": 2,
        "freeze_multiplier": "5/4",
        "instant_win_stakes": 12,
        "place_third_to_second": 2,
        "place_second_to_first": 2,
    }
    with pytest.raises(SetupError) as info:
        build_rules("dem_la", options)
    assert (info.value.code, info.value.field) == ("FRACTIONAL_AMOUNT", "options.stake")


@covers("first_game_after_instant_win")
def test_option_first_game_after_instant_win() -> None:
    won = deal("southern", "2S 2C 2D 2H 9D", "3S 5D")  # seat 0: four 2s
    assert won.over
    following = won.next_game("9D 10D", "3S 5D")
    assert following.state.first_game  # a first game again: ♠3's holder leads with it
    assert following.to_act == 1
    assert following.state.must_include == parse_card("3S")
    options = {"first_game_after_instant_win": False}
    won = deal("southern", "2S 2C 2D 2H 9D", "3S 5D", options=options)
    following = won.next_game("9D 10D", "3S 5D")
    assert not following.state.first_game  # the instant winner leads with anything
    assert following.to_act == 0
    assert following.state.must_include == -1


@covers("card_count_per_card")
def test_option_card_count_per_card() -> None:
    def paid(**options: object) -> list[tuple[int, int, int]]:
        t = later("dem_la", "9S", "4D 5D 6D", options=options)
        t.play(0, "9S")  # seat 0 goes out; seat 1 played nothing: frozen (all 3 cards), ×2
        return transfers(t.settle())

    assert paid() == [(1, 0, 600)]  # 3 cards × 1 stake × 2
    assert paid(card_count_per_card=2) == [(1, 0, 1200)]


@covers("rotten_payee")
def test_option_rotten_payee() -> None:
    def rotten(**options: object) -> list[tuple[int, int, int]]:
        t = later("southern", "4S 9S", "5S 10S", "6S JD 2H", options=options)
        t.play(0, "4S").play(1, "5S").play(2, "6S").play(0, "9S").play(1, "10S")
        assert t.over
        assert t.places == (1, 2, 3)  # seat 2 is left holding ♥2
        return transfers(t.settle(), TransferReason.ROTTEN)

    assert rotten() == [(2, 1, 100)]  # to the player who finished just above
    assert rotten(rotten_payee="winner") == [(2, 0, 100)]


@covers("dealer_rotation")
def test_option_dealer_rotation() -> None:
    def next_dealer(**options: object) -> tuple[int, tuple[int, ...]]:
        hands = ("3S 4S", "5S 6S", "7S 8S")
        t = deal("dau", *hands, options=options, dealer=0)
        t.play(0, "3S").play(1, "5S").play(2, "7S").passes(0, 1).play(2, "8S")  # seat 2 out
        t.passes(0, 1).play(0, "4S")  # seat 0 out second; seat 1 is last
        assert t.over
        winner = t.state.winner
        following = t.next_game("3C 4C 5C", "6C 7C 8C", "9C 10C JC QC")
        return following.state.match.dealer, (winner,)

    dealer, (winner,) = next_dealer()
    assert dealer == winner == 2  # the previous winner deals
    dealer, _ = next_dealer(dealer_rotation="next_seat")
    assert dealer == 1  # the seat after the previous dealer (seat 0)


@covers("pair_of_twos_beats_pair_of_twos")
def test_option_pair_of_twos_beats_pair_of_twos() -> None:
    t = later("northern", "2S 2C 9S", "2D 2H 9D", options={"pair_of_twos_beats_pair_of_twos": True})
    t.play(0, "2S 2C")
    assert "2D 2H" in t.legal(1)


@covers("missing_starting_card")
def test_option_missing_starting_card() -> None:
    hands = ("4S 9D", "5S 10D")  # nobody holds ♠3: ♠4 is the lowest card dealt

    def first(**options: object) -> Table:
        return deal("southern", *hands, options=options, seed=3)

    t = first()
    assert (t.to_act, t.state.must_include) == (0, parse_card("4S"))
    t = first(missing_starting_card="lowest_card_free")
    assert (t.to_act, t.state.must_include) == (0, -1)
    assert "9D" in t.legal(0)
    drawn = {
        deal("southern", *hands, options={"missing_starting_card": "random"}).to_act
        for _ in range(40)
    }
    assert drawn == {0, 1}  # a fair draw, not the ♠4 holder every time


@covers("any_game_instant_wins_in_first_game")
def test_option_any_game_instant_wins_in_first_game() -> None:
    hands = ("2S 2C 2D 2H 9D", "3S 5D")  # four 2s: an any-game instant win
    assert deal("southern", *hands).over
    off = {"any_game_instant_wins_in_first_game": False}
    assert not deal("southern", *hands, options=off).over  # a first game: first-game list only
    assert later("southern", *hands, options=off).over  # later games still check it


@covers("instant_wins_on_short_hands")
def test_option_instant_wins_on_short_hands() -> None:
    hands = ("2S 2C 2D 2H 9D", "3S 5D")  # five cards: a short explicit deal
    assert later("southern", *hands).over
    assert not later("southern", *hands, options={"instant_wins_on_short_hands": False}).over


@covers("alone_with_frozen_pays_place")
def test_option_alone_with_frozen_pays_place() -> None:
    def places_paid(**options: object) -> list[tuple[int, int, int]]:
        t = later("southern", "3S 9S", "4S 5D", "7D 8D", options=options)
        t.play(0, "3S").play(1, "4S").passes(2).play(0, "9S")  # seat 2 never played: frozen
        assert t.over
        assert t.places == (1, 2, 3)
        return transfers(t.settle(), TransferReason.PLACE)

    assert places_paid() == []  # seat 1, alone with a frozen player, neither pays nor receives
    assert places_paid(alone_with_frozen_pays_place=True) == [(1, 0, 100)]  # 2nd -> 1st


@covers("chops_paid_on_freeze")
def test_option_chops_paid_on_freeze() -> None:
    def chops(**options: object) -> list[tuple[int, int, int]]:
        t = later("southern", "2S 4D", "3S 3C 4S 4C 5S 5C", "9C 10C", options=options)
        t.play(0, "2S").play(1, "3S 3C 4S 4C 5S 5C")  # seat 1 chops and goes out; seat 2 frozen
        assert t.over
        assert t.state.frozen == 0b100
        return transfers(t.settle(), TransferReason.CHOP)

    assert chops() == [(0, 1, 50)]  # the chopped ♠2, paid as usual
    assert chops(chops_paid_on_freeze=False) == []


@covers("card_count_rotten")
def test_option_card_count_rotten() -> None:
    def paid(**options: object) -> list[tuple[int, int, int]]:
        t = later("dem_la", "9S", "4D 5D 2S", options=options)
        t.play(0, "9S")  # seat 0 out at once; seat 1 holds its whole hand: frozen, doubled
        return sorted(transfers(t.settle()))

    # in addition: 3 cards + ♠2's conversion 2 = 5 stakes, doubled = 10
    assert paid() == sorted([(1, 0, 600), (1, 0, 400)])
    # instead: 2 cards + the ♠2 at 2 = 4 stakes, doubled = 8
    assert paid(card_count_rotten="instead") == sorted([(1, 0, 400), (1, 0, 400)])


@covers("triple_counts_as_pair")
def test_option_triple_counts_as_pair() -> None:
    hands = ("3S 3D 5C 5H 7S 7D 9C 9H JS JD KS KC KH", "4D 6D")  # five pairs and a triple
    assert not later("southern", *hands).over  # a triple is no pair: five pairs only
    won = later("southern", *hands, options={"triple_counts_as_pair": True})
    assert won.of(InstantWin) == [InstantWin(0, "six_pairs")]


@covers("instant_win_tie")
def test_option_instant_win_tie() -> None:
    hands = ("2S 2C 2D 2H 9D", "3S 3D 5C 5H 7S 7D 9C 9H JS JD KS KC")  # four 2s; six pairs
    won = later("southern", *hands)
    assert won.of(InstantWin) == [InstantWin(0, "four_twos")]  # the first from the leader
    won = later("southern", *hands, leader=1)
    assert won.of(InstantWin) == [InstantWin(1, "six_pairs")]
    with pytest.raises(SetupError) as info:
        later("southern", *hands, options={"instant_win_tie": "redeal"})
    assert (info.value.code, info.value.field) == ("REDEAL_REQUIRED", "hands")
    one = later("southern", "2S 2C 2D 2H 9D", "3S 4D", options={"instant_win_tie": "redeal"})
    assert one.of(InstantWin) == [InstantWin(0, "four_twos")]  # a single winner still wins
