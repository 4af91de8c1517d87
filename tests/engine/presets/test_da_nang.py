"""Đà Nẵng (*kiểu Đà Nẵng*), RULES §5, §7, §10: its chop table (3 consecutive pairs only steal
the lead, four of a kind chops only a single 2, 4 consecutive pairs chop a pair of 2s or a four
of a kind out of turn but never a single 2), *cướp cái*, *ba mù*, rotten ♠3, and no *cóng* when
exactly two players have not played.
"""

from __future__ import annotations

import pytest
from helpers.tables import (
    Reason,
    Table,
    TransferReason,
    later,
    reasons,
    transfers,
)

from tienlen_rules.events import ChopSettled, Played, PlayersFrozen

THREE_PAIRS = "3S 3C 4S 4C 5S 5C"
HIGHER_THREE_PAIRS = "6S 6C 7S 7C 8S 8C"
FOUR_PAIRS = "9S 9C 10S 10C JS JC QS QC"


# --------------------------------------------------------------------------- 3 consecutive pairs


def test_three_consecutive_pairs_do_not_chop_a_two() -> None:
    # Source 000: "Ba đôi thông chỉ có thể được dùng để cướp cái, không có tác dụng chặt heo".
    t = later("da_nang", "2H 9S", f"{THREE_PAIRS} 10S")
    t.play(0, "2H")
    assert t.refused(1, THREE_PAIRS) == Reason.WRONG_TYPE_OR_LENGTH
    assert THREE_PAIRS not in t.legal(1)


def test_a_higher_three_consecutive_pairs_beats_a_lower_one_unpaid() -> None:
    t = later("da_nang", f"{THREE_PAIRS} 9S", f"{HIGHER_THREE_PAIRS} 10S")
    t.play(0, THREE_PAIRS).play(1, HIGHER_THREE_PAIRS).passes(0).play(1, "10S")
    assert not t.of(ChopSettled)
    assert TransferReason.CHOP not in reasons(t.settle())


def test_three_consecutive_pairs_do_not_rot() -> None:
    t = later("da_nang", "4D 9S", f"{THREE_PAIRS} 5D 8S")
    t.play(0, "4D").play(1, "5D").play(0, "9S")
    assert t.over
    assert transfers(t.settle()) == [(1, 0, 200)]


def test_cuop_cai_three_consecutive_pairs_steal_the_lead_in_a_non_first_game() -> None:
    t = later("da_nang", "9S 10S", f"{THREE_PAIRS} JS", f"{HIGHER_THREE_PAIRS} QS", leader=0)
    t.play(1, THREE_PAIRS)
    assert t.of(Played)[-1].steal
    assert t.to_act == 2
    t.play(2, HIGHER_THREE_PAIRS)  # in turn, higher: takes the lead back
    assert t.of(Played)[-1].steal
    t.passes(0, 1)
    assert t.to_act == 2  # the last stealer leads the next round


# --------------------------------------------------------------------------- the chop table


def test_four_consecutive_pairs_chop_a_four_of_a_kind_out_of_turn_after_passing() -> None:
    # Source 000: "Bốn đôi thông ngồi không cũng hưởng và chặt đôi heo hoặc tứ quý bất cứ lúc nào
    # mà không cần biết mình có lượt hay không".
    t = later("da_nang", "8D 5S 5C 5D 5H 4H", f"{FOUR_PAIRS} 3H", "2D 3D")
    t.play(0, "8D").passes(1).play(2, "2D").play(0, "5S 5C 5D 5H")  # the four chops the ♦2
    assert t.to_act == 2  # seat 1 is out of the round...
    t.play(1, FOUR_PAIRS)  # ...and chops the four out of turn (chặt chồng)
    assert t.of(Played)[-1].chop
    assert t.of(Played)[-1].out_of_turn
    t.passes(2, 0)
    settled = t.of(ChopSettled)[-1]
    # The last chopped (seat 0) pays the whole chain: ♦2 1 stake + four of a kind 2 stakes.
    assert (settled.payer, settled.payee, settled.amount, settled.links) == (0, 1, 300, 2)


def test_four_consecutive_pairs_chop_a_pair_of_twos_out_of_turn() -> None:
    t = later("da_nang", "8D 8H 2S 2C 4H", f"{FOUR_PAIRS} 3H", "JD JH 3D")
    t.play(0, "8D 8H").passes(1).play(2, "JD JH").play(0, "2S 2C")
    t.play(1, FOUR_PAIRS)
    assert t.of(Played)[-1].out_of_turn


def test_four_consecutive_pairs_cannot_chop_a_single_two_even_in_turn() -> None:
    t = later("da_nang", "8D 2H 4H", f"{FOUR_PAIRS} 3H", "JD 3D")
    t.play(0, "8D").passes(1).play(2, "JD").play(0, "2H")
    assert not t.can_play(1, FOUR_PAIRS)  # out of turn
    u = later("da_nang", "2H 4H", f"{FOUR_PAIRS} 3H")
    u.play(0, "2H")
    assert u.refused(1, FOUR_PAIRS) == Reason.WRONG_TYPE_OR_LENGTH  # in turn


# --------------------------------------------------------------------------- cóng


def _first_finish_with_unplayed(variant: str, unplayed: int) -> Table:
    """4 players; seat 0 goes out first while exactly `unplayed` others have not played."""
    hands = {
        3: ("3S", "4S 10S", "5S 10C", "6S 7S"),
        2: ("3S 9S", "4S 10S", "5S 10C", "6S 7S"),
        1: ("3S 9S", "4S 10S", "5S 10C", "6S 7S"),
    }[unplayed]
    t = later(variant, *hands)
    if unplayed == 3:
        t.play(0, "3S")
    elif unplayed == 2:
        t.play(0, "3S").play(1, "4S").passes(2, 3).play(0, "9S")
    else:
        t.play(0, "3S").play(1, "4S").play(2, "5S").passes(3).play(0, "9S")
    assert t.places[0] == 1
    return t


def test_no_cong_when_exactly_two_players_have_not_played() -> None:
    # Source 000: "Không cóng bài (đối với 2 nhà chưa ra bài): Nếu 1 người về nhất nhưng vẫn còn
    # 2 nhà chưa ra được lá bài nào thì vẫn đánh tiếp".
    t = _first_finish_with_unplayed("da_nang", 2)
    assert not t.of(PlayersFrozen)
    assert not t.over
    assert t.state.frozen == 0
    south = _first_finish_with_unplayed("southern", 2)
    assert south.of(PlayersFrozen) == [PlayersFrozen((2, 3), (3, 4))]


@pytest.mark.parametrize(("unplayed", "frozen"), [(1, (3,)), (3, (1, 2, 3))])
def test_cong_applies_otherwise(unplayed: int, frozen: tuple[int, ...]) -> None:
    t = _first_finish_with_unplayed("da_nang", unplayed)
    assert t.of(PlayersFrozen)[-1].seats == frozen


def test_the_two_players_spared_play_on_and_are_never_frozen_later() -> None:
    t = _first_finish_with_unplayed("da_nang", 2)
    # Seats 2 and 3 passed this round; seat 1 passes too and leads the next (hưởng sái).
    t.passes(1)
    assert t.to_act == 1
    t.play(1, "10S").passes(2, 3)
    assert t.places[1] == 2
    t.play(2, "5S").play(3, "6S").passes(2).play(3, "7S")
    assert t.over
    assert t.places == (1, 2, 4, 3)
    s = t.settle()
    assert sorted(transfers(s)) == [(2, 0, 200), (3, 1, 100)]
    assert reasons(s) == {TransferReason.PLACE}


# --------------------------------------------------------------------------- ba mù, rotten ♠3


def test_ba_mu_winning_with_the_spade_three_makes_every_other_pay_as_last() -> None:
    # Source 000: "Về ba mù: Nếu 1 người về nhất với duy nhất con ♠3 ở lượt cuối cùng thì tính 3
    # người kia thua chót".
    t = later("da_nang", "4S 2H 3S", "5S 9S", "6S 10S", "7S 8S")
    t.play(0, "4S").play(1, "5S").play(2, "6S").play(3, "7S").play(0, "2H").passes(1, 2, 3)
    t.play(0, "3S").passes(1, 2, 3).play(1, "9S").passes(2, 3).play(2, "10S")
    assert t.over
    assert t.places == (1, 2, 3, 4)
    s = t.settle()
    assert sorted(transfers(s)) == [(1, 0, 200), (2, 0, 200), (3, 0, 200)]
    assert reasons(s) == {TransferReason.BLIND_THREE}


def test_rotten_spade_three_the_last_player_holding_only_it_pays_the_winner_3_stakes() -> None:
    t = later("da_nang", "4D 9S", "3S 5D")
    t.play(0, "4D").play(1, "5D").play(0, "9S")
    s = t.settle()
    assert sorted(transfers(s)) == [(1, 0, 200), (1, 0, 300)]
    assert transfers(s, TransferReason.ROTTEN_THREE) == [(1, 0, 300)]


def test_four_of_a_kind_on_a_smaller_four_of_a_kind_is_a_paid_chop() -> None:
    # RULES §10: in Huế and Đà Nẵng a four of a kind on a smaller four remains a paid chop.
    t = later("da_nang", "5S 5C 5D 5H KD", "9S 9C 9D 9H AD")
    t.play(0, "5S 5C 5D 5H").play(1, "9S 9C 9D 9H")
    assert t.of(Played)[-1].chop
    t.passes(0).play(1, "AD")
    assert transfers(t.settle(), TransferReason.CHOP) == [(0, 1, 200)]
