"""House rules (RULES.md: "Every such choice must be a rule option in the API"): each **[ours]**
choice and each explicit "option" of the rule book that a rule option controls, shown by
changing the option on a game where the default plays differently.

Choices whose flip `test_options.py` already proves (four_twos, finish_on_two with a single 2,
finish_on_four_of_a_kind, chop_on_last_card, suited_straight_chops, góp 3, four 3s, cards per
hand, count_pigs, the instant-win lists, first_game_instant_wins, freeze_multiplier under places,
freeze_exempt_unplayed, freezing, compensation, blind/rotten three under Southern, lead_stealing
under Southern, stake, place amounts, penalty values, match_bankroll, and the plain flips of
chop_chain_out_link, frozen_pays and freeze_at) are not repeated here.
Choices with no option at all are listed in the audit report, not tested here.
"""

from __future__ import annotations

import pytest
from helpers.tables import (
    Reason,
    Table,
    TransferReason,
    cards,
    deal,
    later,
    reasons,
    transfers,
)

from tienlen_rules import new_game
from tienlen_rules.cards import parse_set
from tienlen_rules.errors import SetupError
from tienlen_rules.events import ChopSettled, PlayerFinished, PlayersFrozen
from tienlen_rules.ruleset import build_rules

THREE_PAIRS_LOW = "3S 3C 4S 4C 5S 5C"
FOUR_PAIRS = "9S 9C 10S 10C JS JC QS QC"
FOUR_PAIRS_LOW = "3S 3C 4S 4C 5S 5C 6S 6C"
THREE_TRIPLES = "3S 3C 3D 4S 4C 4D 5S 5C 5D"
HUE_DA_NANG = ["hue", "da_nang"]


def _left_holding(variant: str, last_hand: str, **options: object) -> Table:
    """3 players; seat 0 goes out first, seat 1 second, seat 2 is left holding `last_hand`."""
    t = later(variant, "4C AC 9S", "5C 7C 8S", f"6C {last_hand}", options=options)
    t.play(0, "4C").play(1, "5C").play(2, "6C").play(0, "AC").passes(1, 2)
    t.play(0, "9S").passes(1, 2).play(1, "7C").passes(2).play(1, "8S")
    assert t.places == (1, 2, 3)
    return t


# --------------------------------------------------------------------------- §4, §10 finishing


@pytest.mark.parametrize(("value", "place"), [("ranks_last", 3), ("allowed", 1)])
def test_northern_finishing_with_any_play_containing_a_two_ranks_last(
    value: str, place: int
) -> None:
    # RULES §10 Northern: "Finishing with any play that contains a 2 ... ranks you last" —
    # here a pair of 2s (played on any pair below 2s), not only a single 2.
    t = later(
        "northern",
        "5D 5H 2S 2C",
        "6D 6H 3C",
        "7D 7H 9H",
        options={"finish_on_two": value},
    )
    t.play(0, "5D 5H").play(1, "6D 6H").play(2, "7D 7H").play(0, "2S 2C")
    assert t.of(PlayerFinished)[-1] == PlayerFinished(0, place, ranked_last=place == 3)


def test_a_player_ranked_last_for_finishing_on_a_two_pays_as_last() -> None:
    # RULES §10 All presets: "a player ranked last for finishing on a 2 ... pays as last".
    def played(value: str) -> Table:
        t = later("southern", "5D AD 2H", "6D 3C 4C", "7D 8S 9H", options={"finish_on_two": value})
        t.play(0, "5D").play(1, "6D").play(2, "7D").play(0, "AD").passes(1, 2).play(0, "2H")
        t.passes(1, 2).play(1, "3C").play(2, "8S").passes(1).play(2, "9H")
        assert t.over
        return t

    last = played("ranks_last")
    assert last.places == (3, 2, 1)
    assert sorted(transfers(last.settle(), TransferReason.PLACE)) == [(0, 2, 200), (1, 2, 100)]
    allowed = played("allowed")
    assert allowed.places == (1, 3, 2)
    assert sorted(transfers(allowed.settle(), TransferReason.PLACE)) == [(1, 0, 200), (2, 0, 100)]


# --------------------------------------------------------------------------- §5 chặt chồng


@pytest.mark.parametrize("value", ["paid", "void"])
def test_a_chain_link_is_void_only_if_its_player_went_out_with_that_link(value: str) -> None:
    # RULES §5: only an earlier link its player *went out with* is in question. Seat 0 plays ♥2
    # (not its last card), is chopped, and chops back with its last cards: seat 0 went out with
    # the last link, so its ♥2 is paid under either reading: ♥2 1 + 3 pairs 1½, by seat 1.
    t = later(
        "southern",
        "4D 2H 7S 7C 7D 7H",
        f"5D {THREE_PAIRS_LOW} 9C",
        "6D JD QD",
        options={"chop_chain_out_link": value},
    )
    t.play(0, "4D").play(1, "5D").play(2, "6D").play(0, "2H").play(1, THREE_PAIRS_LOW)
    t.passes(2).play(0, "7S 7C 7D 7H").passes(1)
    assert t.places[0] == 1
    settled = t.of(ChopSettled)
    assert [(e.payer, e.payee, e.amount, e.links) for e in settled] == [(1, 0, 250, 2)]


@pytest.mark.parametrize(("value", "chips"), [("paid", 300), ("void", 200)])
def test_hue_chopper_only_decides_the_last_link_and_chop_chain_out_link_the_earlier(
    value: str, chips: int
) -> None:
    # Huế pays the chopper of a last card by nobody (chop_on_last_card), a rule about the chain's
    # last link; an earlier link its player went out with follows chop_chain_out_link. Seat 0
    # goes out on ♥2 (ranked last), seat 1 chops it, seat 2 chops seat 1: seat 1 pays its four
    # (2 stakes) and, unless the link is void, the ♥2 (1 stake); it is a chop every player pays.
    t = later(
        "hue",
        "5D 2H",
        "6D 9S 9C 9D 9H 3S",
        "7D KS KC KD KH 4S",
        options={"chop_chain_out_link": value},
    )
    t.play(0, "5D").play(1, "6D").play(2, "7D").play(0, "2H")
    t.play(1, "9S 9C 9D 9H").play(2, "KS KC KD KH").passes(1)
    settled = t.of(ChopSettled)[-1]
    assert (settled.payer, settled.payee, settled.amount) == (1, 2, chips)
    assert settled.cards == cards("2H 9S 9C 9D 9H")  # every chopped card of the chain


# --------------------------------------------------------------------------- §3, §5 long runs

FIVE_PAIRS = "7S 7C 8S 8C 9S 9C 10S 10C JS JC"


@pytest.mark.parametrize("value", ["ladder", "nothing"])
def test_five_consecutive_pairs_chop_four_consecutive_pairs_only_on_the_ladder(
    value: str,
) -> None:
    # RULES §3: "consecutive pairs (3+ pairs)" are bombs; §5's table stops at 4 pairs. Seat 0
    # leads ♥2, seat 1 chops it with 4 pairs, seat 2 chops seat 1 with 5 pairs (instant wins
    # off: 5 consecutive pairs would win on the deal): seat 1 pays the chain, ♥2 1 + 4 pairs 2½.
    t = later(
        "southern",
        "2H 9D",
        f"{FOUR_PAIRS_LOW} KD",
        f"{FIVE_PAIRS} AD",
        options={"instant_wins": "none", "long_pairs_chop": value},
    )
    t.play(0, "2H").play(1, FOUR_PAIRS_LOW)
    if value == "nothing":
        assert t.refused(2, FIVE_PAIRS) == Reason.WRONG_TYPE_OR_LENGTH
        return
    t.play(2, FIVE_PAIRS).passes(0, 1)
    settled = t.of(ChopSettled)
    assert [(e.payer, e.payee, e.amount, e.links) for e in settled] == [(1, 2, 350, 2)]


FIVE_PAIRS_LOW = "3S 3C 4S 4C 5S 5C 6S 6C 7S 7C"
FIVE_PAIRS_HIGH = "8S 8C 9S 9C 10S 10C JS JC QS QC"
SIX_PAIRS_HIGH = "8S 8C 9S 9C 10S 10C JS JC QS QC KS KC"


def _chain_paid(led: str, chop: str) -> list[tuple[int, int, int]]:
    t = later("southern", f"{led} AD", f"{chop} AH", "2S", "2C", options={"instant_wins": "none"})
    t.play(0, led).play(1, chop).passes(2, 3, 0)
    return [(e.payer, e.payee, e.amount) for e in t.of(ChopSettled)]


@pytest.mark.parametrize(
    ("led", "chop", "paid"),
    [
        (FOUR_PAIRS_LOW, FIVE_PAIRS_HIGH, 250),  # 4 pairs: 2½ stakes
        (FIVE_PAIRS_LOW, FIVE_PAIRS_HIGH, 250),  # 5 pairs: valued as 4 pairs [ours]
        (FIVE_PAIRS_LOW, SIX_PAIRS_HIGH, 250),  # 6 pairs chopping 5 pairs: the chopped 5 pairs
    ],
)
def test_a_chop_of_a_run_of_pairs_only_the_ladder_makes_a_bomb_is_paid_as_the_run_one_shorter(
    led: str, chop: str, paid: int
) -> None:
    # RULES §5: a bomb played on a bomb is a chop, and a chop is paid. No source values 5 or 6
    # consecutive pairs outside Đấu, so each is worth the run one pair shorter [ours].
    assert _chain_paid(led, chop) == [(0, 1, paid)]


def test_a_longer_run_keeps_its_own_penalty_value_when_the_option_gives_one() -> None:
    rules = build_rules("southern", {"penalty_five_pairs": 4})
    assert rules.bomb_values["5pairs"] == 4
    assert rules.bomb_values["6pairs"] == 4  # one pair shorter: the 5 pairs' value
    dau = build_rules("dau")
    assert (dau.bomb_values["6pairs"], dau.bomb_values["7pairs"]) == (3, 3)
    assert "5pairs" not in build_rules("southern", {"long_pairs_chop": "nothing"}).bomb_values


# --------------------------------------------------------------------------- §7, §8 cóng


@pytest.mark.parametrize(
    ("value", "over", "paid"),
    [
        ("winner", True, [(2, 0, 400), (3, 0, 400)]),
        ("whole_table", True, [(2, 0, 200), (2, 1, 200), (3, 0, 200), (3, 1, 200)]),
    ],
)
def test_two_frozen_of_four_pay_the_winner_or_the_whole_table(
    value: str, over: bool, paid: list[tuple[int, int, int]]
) -> None:
    # RULES §7: "two frozen: the one left takes 2nd and the game ends" and neither pays nor
    # receives a place transfer (§8). Sources 000/001/002's other reading: "Cóng 2 nhà: thì 2 nhà
    # bị cóng đền tới trắng nhà được cóng rồi đền luôn nhà còn lại" — the two frozen pay the
    # instant-win amount to the winner and to the one left, not to each other.
    t = later("southern", "3S 9S", "4S 5D", "6D 7D", "8D 10D", options={"frozen_pays": value})
    t.play(0, "3S").play(1, "4S").passes(2, 3).play(0, "9S")
    assert t.of(PlayersFrozen) == [PlayersFrozen((2, 3), (3, 4))]
    assert t.over is over
    assert t.places == (1, 2, 3, 4)
    s = t.settle()
    assert sorted(transfers(s)) == paid
    assert reasons(s) == {TransferReason.FROZEN}


def test_whole_table_a_player_ranked_last_for_going_out_on_a_two_still_pays_as_last() -> None:
    # Huế: seat 0 goes out on ♥2 and ranks last; seat 1 wins while seats 2 and 3 have not played.
    # The frozen pay the whole table, which ended at the freeze: the winner (the only player
    # the game was cut short for has gone out), and seat 0 pays as last (RULES §10).
    t = later("hue", "2H", "9S", "4D 5D", "6D 7D", options={"frozen_pays": "whole_table"})
    t.play(0, "2H").passes(1, 2, 3).play(1, "9S")
    assert t.over
    assert t.places == (4, 1, 2, 3)
    s = t.settle()
    assert sorted(transfers(s, TransferReason.FROZEN)) == [(2, 1, 200), (3, 1, 200)]
    assert transfers(s, TransferReason.PLACE) == [(0, 1, 200)]


@pytest.mark.parametrize(("value", "debt"), [("winner", 400), ("whole_table", 200)])
def test_compensation_pays_what_the_frozen_owe_under_either_reading(value: str, debt: int) -> None:
    # Đền bài: seat 1 passed on ♠8 holding ♠10, the only beat; both opponents end frozen. Seat 1
    # pays the winner everything the frozen owe: 2L each, or L each when the frozen pay as to an
    # instant winner (the whole table is then only the winner).
    t = later("southern", "8S 9S", "10S 4D", "5D 6D", options={"frozen_pays": value})
    t.play(0, "8S").passes(1, 2).play(0, "9S")
    s = t.settle()
    assert transfers(s) == [(1, 0, debt), (1, 0, debt)]
    assert reasons(s) == {TransferReason.COMPENSATION}
    assert s.next_leader == 1


@pytest.mark.parametrize("value", ["first_finish", "every_finish"])
def test_a_finish_ranked_last_judges_no_cong(value: str) -> None:
    """With freeze_at first_finish or every_finish (until_win is tested with its option)."""
    # Cóng is "eaten" by the winner ("Người ăn cóng là người tới nhất", source 000): going out on
    # a 2 in Huế ranks seat 0 last and freezes nobody; seat 1's win then freezes seat 2.
    t = later("hue", "2H", "9S", "4D 5D", options={"freeze_at": value})
    t.play(0, "2H")
    assert not t.of(PlayersFrozen)
    t.passes(1, 2).play(1, "9S")
    assert t.of(PlayersFrozen) == [PlayersFrozen((2,), (2,))]
    assert t.places == (3, 1, 2)


def test_until_win_a_finish_ranked_last_that_would_leave_one_player_waits_for_the_win() -> None:
    # freeze_at = until_win: Huế, seat 0 goes out first on ♥2 (ranked last) while seat 2 has
    # not played. Freezing seat 2 would leave seat 1 alone, 1st without going out; "người ăn
    # cóng là người tới nhất" (source 000), so the win judges it: seat 1 goes out, seat 2 frozen.
    t = later("hue", "5S 2H", "6S 9S", "JD QD", options={"freeze_at": "until_win"})
    t.play(0, "5S").play(1, "6S").passes(2).play(0, "2H")
    assert t.of(PlayerFinished) == [PlayerFinished(0, 3, ranked_last=True)]
    assert not t.of(PlayersFrozen)
    t.passes(1).play(1, "9S")
    assert t.of(PlayersFrozen) == [PlayersFrozen((2,), (2,))]
    assert t.over
    assert sorted(transfers(t.settle())) == [(0, 1, 200), (2, 1, 400)]


def test_until_win_the_frozen_ending_the_game_wait_for_the_win() -> None:
    # With frozen_pays = whole_table the game ends at a freeze, which needs a winner to be paid:
    # a finish ranked last freezes nobody; seat 3, still unplayed at seat 1's win, is frozen then.
    options = {"freeze_at": "until_win", "frozen_pays": "whole_table"}
    t = later("hue", "5S 2H", "6S 7S KS", "8S 9S QS", "JD QD", options=options)
    t.play(0, "5S").play(1, "6S").play(2, "8S").passes(3).play(0, "2H")
    assert not t.of(PlayersFrozen)
    t.passes(1, 2).play(1, "7S").play(2, "9S").passes(3).play(1, "KS")
    assert t.of(PlayersFrozen) == [PlayersFrozen((3,), (3,))]
    assert t.over
    assert t.places == (4, 1, 2, 3)


@pytest.mark.parametrize(
    ("value", "places", "paid"),
    [
        ("first_finish", (1, 3, 2, 4), [(1, 2, 100), (3, 0, 200)]),
        ("every_finish", (1, 3, 2, 4), [(1, 2, 100), (3, 0, 400)]),
    ],
)
def test_da_nang_a_player_spared_at_the_win_is_frozen_at_a_later_finish_by_option(
    value: str, places: tuple[int, ...], paid: list[tuple[int, int, int]]
) -> None:
    # Đà Nẵng spares the two players who have not played at the win ("vẫn đánh tiếp"). Seat 2
    # then plays; when seat 2 goes out, seat 3 still has not played: frozen at every finish
    # (it pays the winner 2L and takes 4th), or not (it plays on and ends last, paying L).
    t = later("da_nang", "3S 9S", "4S JS QS", "KD AD", "7D 8D", options={"freeze_at": value})
    t.play(0, "3S").play(1, "4S").passes(2, 3).play(0, "9S")
    assert not t.of(PlayersFrozen)
    t.passes(1).play(1, "JS").play(2, "KD").passes(3, 1).play(2, "AD")
    if value == "first_finish":
        assert not t.over
        t.passes(3, 1).play(3, "7D").play(1, "QS")
    else:
        assert t.of(PlayersFrozen) == [PlayersFrozen((3,), (4,))]
    assert t.over
    assert t.places == places
    assert sorted(transfers(t.settle())) == paid


# --------------------------------------------------------------------------- §10 Northern


def test_whole_table_pays_a_player_who_went_out_before_a_later_freeze() -> None:
    # Sources 000/001/002, "cóng 1 nhà: nhà bị cóng đền tới trắng cho nhà được cóng rồi đền
    # luôn cho 2 nhà còn lại": the frozen pay every other player. Đà Nẵng with freeze_at: seat 2
    # goes out 2nd and freezes seat 3, ending the game while seat 1 still holds cards. Seat 2,
    # ahead of seat 1, is paid as seat 1 is (not left with nothing while seat 1 collects).
    options = {"freeze_at": "every_finish", "frozen_pays": "whole_table"}
    t = later("da_nang", "3S 9S", "4S JS QS", "KD AD", "7D 8D", options=options)
    t.play(0, "3S").play(1, "4S").passes(2, 3).play(0, "9S")
    t.passes(1).play(1, "JS").play(2, "KD").passes(3, 1).play(2, "AD")
    assert t.of(PlayersFrozen) == [PlayersFrozen((3,), (4,))]
    assert t.over
    assert t.places == (1, 3, 2, 4)
    s = t.settle()
    assert sorted(transfers(s)) == [(3, 0, 200), (3, 1, 200), (3, 2, 200)]
    assert s.net == (200, 200, 200, -600)


def test_northern_thoi_hai_is_thirteen_stakes_once_and_a_four_rots_at_two() -> None:
    # RULES §10 Northern: "a last player holding any 2 pays 13 stakes (once, not per 2) to the
    # player who finished just before them; a four of a kind left rots at 2 stakes".
    def rotten(**options: object) -> list[tuple[int, int, int]]:
        s = _left_holding("northern", "2S 2C JS JC JD JH", **options).settle()
        return sorted(transfers(s, TransferReason.ROTTEN))

    assert rotten() == [(2, 1, 200), (2, 1, 1300)]
    assert rotten(rotten_two_flat=0) == [(2, 1, 50), (2, 1, 50), (2, 1, 200)]  # per 2, by suit
    assert rotten(penalty_four_of_a_kind=0) == [(2, 1, 1300)]


@pytest.mark.parametrize(("options", "chips"), [({}, 100), ({"penalty_two_hearts": 3}, 300)])
def test_northern_chops_are_paid_at_the_southern_penalty_values(
    options: dict[str, object], chips: int
) -> None:
    # RULES §10 Northern: "chops are paid at the Southern penalty values" (not the flat 13 of
    # thối hai): a chopped ♥2 is 1 stake, and the penalty option sets it.
    t = later("northern", "2H 3H", "JS JC JD JH 4C", options=options)
    t.play(0, "2H").play(1, "JS JC JD JH").passes(0).play(1, "4C")
    assert t.over
    assert transfers(t.settle(), TransferReason.CHOP) == [(0, 1, chips)]


# --------------------------------------------------------------------------- §10 Huế, Đà Nẵng


@pytest.mark.parametrize("allowed", [True, False])
def test_hue_four_consecutive_pairs_chop_out_of_turn_as_in_the_south(allowed: bool) -> None:
    # RULES §10 Huế: "4 consecutive pairs may chop out of turn as in the South."
    hands = ("8D 2H 4H", f"{FOUR_PAIRS} 3H", "JD 3D")
    t = later("hue", *hands, options={"out_of_turn_chops": allowed})
    t.play(0, "8D").passes(1).play(2, "JD").play(0, "2H")
    assert t.to_act == 2
    assert t.can_play(1, FOUR_PAIRS) is allowed  # seat 1 passed and it is not its turn


@pytest.mark.parametrize("variant", HUE_DA_NANG)
def test_hue_and_da_nang_three_pairs_are_an_ordinary_unpaid_combination_that_does_not_rot(
    variant: str,
) -> None:
    # RULES §10: "3 consecutive pairs are not bombs: an ordinary combination (a higher one beats
    # a lower one, unpaid) ... and they don't rot." How they beat and chop is in the cases of
    # relations.txt; here, that they don't rot, even given a penalty value: not being a bomb
    # of the table's chop table, they have none to pay (issue #25).
    last_hand = "10S 10D JS JD QS QD"
    assert transfers(_left_holding(variant, last_hand).settle(), TransferReason.ROTTEN) == []
    valued = _left_holding(variant, last_hand, penalty_three_pairs="3/2").settle()
    assert transfers(valued, TransferReason.ROTTEN) == []


@pytest.mark.parametrize("variant", HUE_DA_NANG)
@pytest.mark.parametrize(
    ("led", "chop", "chips"),
    [("6S 6C 6D 6H", "9S 9C 9D 9H", 200), (FOUR_PAIRS_LOW, FOUR_PAIRS, 250)],
)
def test_hue_and_da_nang_a_bomb_on_a_smaller_bomb_of_its_kind_remains_a_paid_chop(
    variant: str, led: str, chop: str, chips: int
) -> None:
    # RULES §10: "Four of a kind on a smaller four of a kind, and 4 consecutive pairs on a
    # smaller 4 consecutive pairs, remain paid chops." With no chop table it is a plain beat.
    def game(**options: object) -> Table:
        t = later(variant, f"{led} KH", f"{chop} AD", options=options)
        t.play(0, led).play(1, chop).passes(0).play(1, "AD")
        assert t.over
        return t

    # relations.txt holds the bare relations; here, that the chop is paid, the beat not.
    assert transfers(game().settle(), TransferReason.CHOP) == [(0, 1, chips)]
    assert transfers(game(chop_table="none").settle(), TransferReason.CHOP) == []


def _spade_three_win(variant: str, **options: object) -> Table:
    """Seat 0 goes out with ♠3 as its very last card, after everyone has played."""
    t = later(variant, "4S 2H 3S", "5S 9S", "6S 10S", "7S 8S", options=options)
    t.play(0, "4S").play(1, "5S").play(2, "6S").play(3, "7S").play(0, "2H").passes(1, 2, 3)
    t.play(0, "3S").passes(1, 2, 3).play(1, "9S").passes(2, 3).play(2, "10S")
    assert t.places == (1, 2, 3, 4)
    return t


@pytest.mark.parametrize("variant", HUE_DA_NANG)
def test_hue_and_da_nang_ba_mu_pays_l_instead_of_the_place_transfers(variant: str) -> None:
    # RULES §10: "ba mù — every other player pays the winner L instead of their place transfer".
    on = _spade_three_win(variant).settle()
    assert sorted(transfers(on)) == [(1, 0, 200), (2, 0, 200), (3, 0, 200)]
    assert {t.reason for t in on.transfers} == {TransferReason.BLIND_THREE}
    off = _spade_three_win(variant, blind_three_stakes=0).settle()
    assert sorted(transfers(off)) == [(2, 1, 100), (3, 0, 200)]


@pytest.mark.parametrize("variant", HUE_DA_NANG)
@pytest.mark.parametrize(
    ("options", "expected"), [({}, [(1, 0, 300)]), ({"rotten_three_stakes": 0}, [])]
)
def test_hue_and_da_nang_rotten_spade_three_pays_the_winner_three_stakes(
    variant: str, options: dict[str, object], expected: list[tuple[int, int, int]]
) -> None:
    # RULES §10: "rotten ♠3 — the last player pays the winner 3 stakes".
    t = later(variant, "4D 9S", "3S 5D", options=options)
    t.play(0, "4D").play(1, "5D").play(0, "9S")
    assert transfers(t.settle(), TransferReason.ROTTEN_THREE) == expected


@pytest.mark.parametrize("variant", HUE_DA_NANG)
def test_hue_and_da_nang_cuop_cai_is_on_and_can_be_turned_off(variant: str) -> None:
    # RULES §10: "Ba mù, rotten ♠3 and cướp cái are on" in Huế and Đà Nẵng; §7: "Option."
    hands = ("9S 10S", f"{THREE_PAIRS_LOW} JS", "QS KS")
    on = later(variant, *hands)
    on.play(1, THREE_PAIRS_LOW)
    assert on.to_act == 2
    off = later(variant, *hands, options={"lead_stealing": False})
    assert off.refused(1, THREE_PAIRS_LOW) == Reason.NOT_YOUR_TURN


# --------------------------------------------------------------------------- §10 Đấu


@pytest.mark.parametrize("allowed", [True, False])
def test_dau_only_three_triples_and_six_pairs_chop_out_of_turn(allowed: bool) -> None:
    # RULES §10 Đấu: "only 3 consecutive triples and 6 consecutive pairs chop out of turn".
    def after_a_two(bomb: str) -> Table:
        t = later("dau", "8D 2H 4H", f"{bomb} 6H", "JD 3H", options={"out_of_turn_chops": allowed})
        t.play(0, "8D").passes(1).play(2, "JD").play(0, "2H")
        assert t.to_act == 2
        return t

    assert after_a_two(THREE_TRIPLES).can_play(1, THREE_TRIPLES) is allowed
    assert not after_a_two(FOUR_PAIRS).can_play(1, FOUR_PAIRS)  # 4 pairs: only in turn
    in_turn = later("dau", "2H 4H", f"{FOUR_PAIRS} 3C", "5D 6D").play(0, "2H")
    assert in_turn.can_play(1, FOUR_PAIRS)


# --------------------------------------------------------------------------- §10 Đếm lá


@pytest.mark.parametrize(("options", "chips"), [({}, 200), ({"penalty_two_spades": 1}, 100)])
def test_dem_la_chops_are_paid_at_the_rotten_conversions(
    options: dict[str, object], chips: int
) -> None:
    # RULES §10 Đếm lá: "Chops are paid at the rotten conversions (black 2 = 2 stakes, ...)".
    t = later("dem_la", "2S 3H", "JS JC JD JH 4C", options=options)
    t.play(0, "2S").play(1, "JS JC JD JH").passes(0).play(1, "4C")
    assert t.over
    s = t.settle()
    assert transfers(s, TransferReason.CHOP) == [(0, 1, chips)]
    assert transfers(s, TransferReason.CARD_COUNT) == [(0, 1, 100)]


@pytest.mark.parametrize(("options", "chips"), [({}, 1300), ({"instant_win_stakes": 5}, 500)])
def test_dem_la_instant_win_pays_thirteen_stakes(options: dict[str, object], chips: int) -> None:
    # RULES §10 Đếm lá: "Instant wins ...: each other player pays 13 stakes plus their rotten
    # conversions."
    t = deal("dem_la", "2S 2C 2D 2H 9D", "3S 5H", options=options)
    assert t.state.instant_pattern == "four_twos"
    assert transfers(t.settle()) == [(1, 0, chips)]


@pytest.mark.parametrize(
    ("options", "cards_chips", "rotten_chips", "reason"),
    [
        ({}, 400, 800, TransferReason.FROZEN),
        ({"freeze_multiplier": 3}, 600, 1200, TransferReason.FROZEN),
        ({"freezing": False}, 200, 400, TransferReason.CARD_COUNT),
    ],
)
def test_dem_la_a_frozen_loser_pays_everything_doubled(
    options: dict[str, object], cards_chips: int, rotten_chips: int, reason: TransferReason
) -> None:
    # RULES §7/§8/§10 Đếm lá: "a frozen hand (all 13 cards left) counts double"; "Frozen =
    # holding every dealt card; a frozen loser's whole payment is doubled."
    t = later("dem_la", "9S", "4D 2H", options=options)
    t.play(0, "9S")
    assert t.over
    s = t.settle()
    assert transfers(s, reason) == [(1, 0, cards_chips)]  # 2 cards left
    assert transfers(s, TransferReason.ROTTEN) == [(1, 0, rotten_chips)]  # ♥2 = 4 cards


def test_count_pigs_decides_the_rotten_payments_of_a_card_count_instant_win() -> None:
    hands = ("2S 2C 2D 2H 9D", "3S 3H", "JS JC JD JH 4D")

    def rotten(count_pigs: bool) -> list[tuple[int, int, int]]:
        options = {"scoring": "card_count", "count_pigs": count_pigs}
        return transfers(deal("southern", *hands, options=options).settle(), TransferReason.ROTTEN)

    assert rotten(True) == [(2, 0, 200)]  # the four jacks at southern's value: 2 stakes
    assert rotten(False) == []
    assert build_rules("dem_la").count_pigs  # đếm lá: "13 stakes plus their rotten conversions"


def test_an_explicit_hand_emptied_by_the_four_threes_lay_down_is_refused() -> None:
    rules = build_rules("southern", {"four_threes_lay_down_twos": True})
    with pytest.raises(SetupError) as info:
        new_game(
            rules,
            2,
            hands=[parse_set("3S 3C 3D 3H 9D"), parse_set("2H 2D")],
            first_game=False,
            leader=0,
        )
    assert (info.value.code, info.value.field) == ("INVALID_DEAL", "hands[1]")
