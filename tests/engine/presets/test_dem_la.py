"""Đếm lá (card counting, source 004), RULES §4, §7, §8, §10: a random first leader, the game ends
at the first finish, each loser pays a stake per card left plus the rotten conversions, chops
paid at the conversions, frozen hands doubled, instant wins worth 13 stakes plus conversions.
"""

from __future__ import annotations

import pytest
from helpers.tables import Table, TransferReason, cards, deal, later, reasons, rules, transfers

from tienlen_rules import new_game
from tienlen_rules.events import (
    GameOver,
    GameStarted,
    InstantWin,
    Played,
    PlayerFinished,
    PlayersFrozen,
)
from tienlen_rules.ruleset import RuleSet

DEM_LA = rules("dem_la")

THREE_PAIRS = "3S 3C 4S 4C 5S 5C"
FOUR_PAIRS = "6S 6C 7S 7C 8S 8C 9S 9C"


def paid_by(table: Table, seat: int) -> int:
    """Everything `seat` pays in the settlement, in chips."""
    return sum(a for payer, _, a in transfers(table.settle()) if payer == seat)


# --------------------------------------------------------------------------- the first leader


def first_leader(ruleset: RuleSet, seed: int) -> tuple[int, tuple[int, ...]]:
    """The seat drawn to lead a seeded 4-player first game (instant wins included), and the hands."""
    state, events = new_game(ruleset, 4, seed=seed)
    (started,) = [e for e in events if isinstance(e, GameStarted)]
    return started.leader, state.hands


def test_the_first_leader_is_drawn_at_random_and_need_not_hold_the_spade_three() -> None:
    # Source 004: "Ván đầu tiên sẽ chọn ngẫu nhiên người đánh trước để đảm bảo công bằng".
    state, _ = new_game(DEM_LA, 4, seed=11)
    assert state.must_include == -1
    deals = [first_leader(DEM_LA, s) for s in range(40)]
    assert {leader for leader, _ in deals} == {0, 1, 2, 3}
    assert any(not hands[leader] & 1 for leader, hands in deals)  # led without holding ♠3


def test_a_seeded_first_leader_is_reproducible() -> None:
    for seed in (1, 2, 3, 99):
        a, _ = new_game(DEM_LA, 4, seed=seed)
        b, _ = new_game(DEM_LA, 4, seed=seed)
        assert (a.to_act, a.hands) == (b.to_act, b.hands)


def test_the_random_first_leader_is_fair_over_seeds() -> None:
    # 2000 seeded deals: each seat leads about a quarter of them (chi-square, 3 degrees of
    # freedom, p = 0.001 threshold 16.27); the draw is deterministic for these seeds.
    counts = [0] * 4
    with_spade_three = 0
    for seed in range(2000):
        leader, hands = first_leader(DEM_LA, seed)
        counts[leader] += 1
        with_spade_three += hands[leader] & 1
    chi2 = sum((c - 500) ** 2 / 500 for c in counts)
    assert chi2 < 16.27, counts
    assert 400 < with_spade_three < 600  # the ♠3 holder leads a quarter of the games, not all


def test_the_southern_first_leader_is_always_the_spade_three_holder() -> None:
    south = rules("southern")
    for seed in range(40):
        leader, hands = first_leader(south, seed)
        assert hands[leader] & 1


def test_the_random_leader_may_lead_any_card() -> None:
    for seed in range(100):
        state, _ = new_game(DEM_LA, 2, seed=seed, hands=[cards("3S 8S"), cards("10D KS")])
        if state.to_act == 1:
            break
    else:  # pragma: no cover
        pytest.fail("no seed let seat 1 lead")
    t = Table(state)
    t.play(1, "10D")  # no ♠3 needed


def test_later_games_are_led_by_the_previous_winner() -> None:
    first = deal("dem_la", "9S", "4D 5D", leader=0)
    first.play(0, "9S")
    second = first.next_game("4S 6D", "3S 7D")
    assert second.to_act == 0


# --------------------------------------------------------------------------- the end of the game


def test_the_game_ends_when_the_first_player_finishes() -> None:
    # Source 004: "Ván chơi sẽ kết thúc ngay khi có người đánh hết toàn bộ 13 lá bài trên tay".
    t = later("dem_la", "4D 9S", "5D 3C 8C", "6D 7C 8D 10C")
    t.play(0, "4D").play(1, "5D").play(2, "6D").play(0, "9S")
    assert t.over
    assert t.of(GameOver)
    assert t.of(PlayerFinished) == [PlayerFinished(0, 1, ranked_last=False)]
    assert not t.of(PlayersFrozen)
    assert t.places == (1, 2, 3)  # the losers ranked by cards left
    s = t.settle()
    assert sorted(transfers(s)) == [(1, 0, 200), (2, 0, 300)]
    assert reasons(s) == {TransferReason.CARD_COUNT}


def test_a_loser_pays_one_stake_per_card_left() -> None:
    # Source 004: "một người thua còn 3 lá (không có lá heo) và tiền cược của bàn là 1000 xu thì
    # sẽ thua số tiền bằng 3 * 1000 = 3000 xu".
    t = later("dem_la", "4D 9S", "5D 6C 7C 8C", options={"stake": 1000})
    t.play(0, "4D").play(1, "5D").play(0, "9S")
    assert transfers(t.settle()) == [(1, 0, 3000)]


@pytest.mark.parametrize(
    ("left", "stakes"),
    [
        ("2S", 1 + 2),  # black 2 = 2 cards
        ("2C", 1 + 2),
        ("2D", 1 + 4),  # red 2 = 4 cards
        ("2H", 1 + 4),
        ("2S 2C", 2 + 2 + 2),  # a pair of 2s: its cards' sum
        ("JS JC JD JH", 4 + 4),  # four of a kind = 4
        (THREE_PAIRS, 6 + 2),  # 3 consecutive pairs = 2
        (f"{FOUR_PAIRS}", 8 + 2),  # 4 consecutive pairs = 2
        ("JS JC JD JH 2H 10D", 6 + 4 + 4),
    ],
)
def test_rotten_conversions_are_paid_in_addition_to_the_cards(left: str, stakes: int) -> None:
    # Source 004: "Thối 2 đen bằng 2 lá, 2 đỏ bằng 4 lá, tứ quý = 4 lá, 3 đôi thông = 2 lá, 4 đôi
    # thông bằng 2 lá"; RULES §10: in addition to the cards themselves.
    t = later("dem_la", "4H 9H", f"5H {left}")
    t.play(0, "4H").play(1, "5H").play(0, "9H")
    assert t.over
    assert paid_by(t, 1) == stakes * 100


def test_a_frozen_loser_pays_everything_doubled() -> None:
    # Source 004: "người thua bị gọi là thua cóng nếu còn nguyên 13 lá bài trên tay. Người thua cóng
    # sẽ bị nhân hai toàn bộ số lá bài bao gồm cộng dồn cả thối heo, hàng".
    thirteen = "3S 3C 4D 5D 6D 7C 8C 10C JC QD KD AD 2C"
    t = later("dem_la", "9S", thirteen, "4S 5S")
    t.play(0, "9S")
    assert t.over
    s = t.settle()
    assert paid_by(t, 1) == (13 + 2) * 2 * 100
    assert TransferReason.FROZEN in reasons(s)
    assert paid_by(t, 2) == 2 * 2 * 100  # holding every dealt card, however few, is frozen


def test_a_loser_who_has_played_is_not_frozen() -> None:
    t = later("dem_la", "4D 9S", "3S 3C 4S 5S 6S 7S 8S 10S JS QS KS AS 5D")
    t.play(0, "4D").play(1, "5D").play(0, "9S")
    assert paid_by(t, 1) == 12 * 100
    assert TransferReason.FROZEN not in reasons(t.settle())


# --------------------------------------------------------------------------- chops


@pytest.mark.parametrize(
    ("led", "chop", "stakes"),
    [
        ("2S", THREE_PAIRS, 2),  # "Chặt 2 đen: 2 lần tiền cược"
        ("2H", THREE_PAIRS, 4),  # "Chặt 2 đỏ: 4 lần tiền cược"
        ("2S 2C", "JS JC JD JH", 2 + 2),  # a pair of 2s: the sum of its cards (RULES §10)
        ("2D 2H", "JS JC JD JH", 4 + 4),
        ("JS JC JD JH", FOUR_PAIRS, 4),  # "4 Đôi thông chặt tứ quý: 4 lần tiền cược"
        (THREE_PAIRS, "JS JC JD JH", 2),  # 3 consecutive pairs: 2
    ],
)
def test_chops_are_paid_at_the_rotten_conversions(led: str, chop: str, stakes: int) -> None:
    # Source 004: "Nếu bị chặt thì người thua sẽ bị tính tiền chặt như trường hợp bị thối".
    t = later("dem_la", f"{led} 10H", f"{chop} KD")
    t.play(0, led).play(1, chop)
    assert t.of(Played)[-1].chop
    t.passes(0).play(1, "KD")
    assert t.over
    assert transfers(t.settle(), TransferReason.CHOP) == [(0, 1, stakes * 100)]


def test_a_stacked_chop_is_paid_by_the_last_chopped_at_the_conversions() -> None:
    # Source 004's example: A plays a black 2, B chops with 3 consecutive pairs, C chops B with a
    # four of a kind: B pays C for the black 2 and the 3 consecutive pairs — 2 + 2 stakes at the
    # conversions RULES §10 settles (the source's own total, "3+12=15 lá", is not followed).
    t = later("dem_la", "2S 10H 3H", f"{THREE_PAIRS} KD", "JS JC JD JH QD")
    t.play(0, "2S").play(1, THREE_PAIRS).play(2, "JS JC JD JH").passes(0, 1)
    t.play(2, "QD")
    assert t.over
    assert transfers(t.settle(), TransferReason.CHOP) == [(1, 2, 400)]


# --------------------------------------------------------------------------- instant wins


@pytest.mark.parametrize(
    ("hand", "pattern"),
    [
        ("3H 4C 5D 6H 7H 8S 9D 10S JC QD KC AH", "dragon"),
        ("2S 2C 2D 2H 9D", "four_twos"),
        ("5H 5S 6D 6H 7D 7C 8H 8C 9H 9D", "five_consecutive_pairs"),
        ("4S 4C 6S 6C 8D 8H 10S 10C QD QH AS AC", "six_pairs"),
    ],
)
def test_source_004_instant_wins(hand: str, pattern: str) -> None:
    t = later("dem_la", "3D", hand, leader=0)
    assert t.of(InstantWin) == [InstantWin(1, pattern)]


def test_an_instant_win_is_paid_13_stakes_plus_rotten_conversions() -> None:
    # RULES §10: each other player pays 13 stakes plus their rotten conversions (source 004:
    # "Người thắng trắng ăn tiền theo số lá kèm theo tiền thối bài").
    six_pairs = "4S 4C 6S 6C 8D 8H 10S 10C QD QH AS AC"
    t = later("dem_la", six_pairs, "2H 5D", "JS JC JD JH 9D 3D")
    assert t.of(InstantWin) == [InstantWin(0, "six_pairs")]
    s = t.settle()
    assert sorted(transfers(s, TransferReason.INSTANT_WIN)) == [(1, 0, 1300), (2, 0, 1300)]
    assert paid_by(t, 1) == (13 + 4) * 100
    assert paid_by(t, 2) == (13 + 4) * 100


@pytest.mark.parametrize(
    "hand",
    [
        "3S 4S 5S 6S 7S 8S 9C 10C JC QC KC 2S",  # 12 of one colour (a Southern instant win)
        "3S 3C 3D 3H 9D",  # four 3s (a Southern first-game instant win)
        "3S 3C 4S 4C 5S 5C 9D",  # 3 consecutive pairs with ♠3 (likewise)
    ],
)
def test_other_southern_instant_wins_are_not_instant_wins_in_dem_la(hand: str) -> None:
    t = deal("dem_la", hand, "KH", leader=0)
    assert not t.of(InstantWin)
    assert deal("southern", hand, "KH").of(InstantWin)


def test_four_consecutive_pairs_chopped_by_higher_ones_are_paid_two_stakes() -> None:
    lower = "3S 3C 4S 4C 5S 5C 6D 6H"
    t = later("dem_la", f"{lower} 10H", f"{FOUR_PAIRS} KD")
    t.play(0, lower).play(1, FOUR_PAIRS).passes(0).play(1, "KD")
    assert transfers(t.settle(), TransferReason.CHOP) == [(0, 1, 200)]


def test_no_compensation_each_frozen_loser_pays_for_itself() -> None:
    # RULES §10: no đền bài in đếm lá. Seat 1 passes on the ♠8 holding ♠10, the only beat;
    # in the South it would pay for both frozen players (see test_options).
    t = later("dem_la", "8S 9S", "10S 4D", "5D 6D")
    t.play(0, "8S").passes(1, 2).play(0, "9S")
    assert t.over
    s = t.settle()
    assert TransferReason.COMPENSATION not in reasons(s)
    assert paid_by(t, 1) == 2 * 2 * 100  # 2 cards, frozen: doubled
    assert paid_by(t, 2) == 2 * 2 * 100
