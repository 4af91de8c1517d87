"""RULES §8 sentence by sentence: place transfers and *thối* under every preset and scheme.

Each test quotes the rule-book sentence it proves. `tests/engine/settlement/test_southern.py` proves the
Southern amounts; here one game is played to the end under each preset and the same sentences
are checked against each preset's numbers (§8, §10).
"""

from __future__ import annotations

import pytest
from helpers.tables import Table, TransferReason, later, transfers

ROTTEN = "2S 2H 9S 9C 9D 9H"  # a black 2, a red 2 and a four of a kind


def _four_players(variant: str, options: dict[str, object] | None = None) -> Table:
    """Seats go out in seat order (clubs all the way, so the North follows suit); seat 3 is left
    holding `ROTTEN`."""
    t = later(variant, "3C 10C", "4C JC", "5C QC", f"6C {ROTTEN}", options=options)
    t.play(0, "3C").play(1, "4C").play(2, "5C").play(3, "6C")
    t.play(0, "10C").play(1, "JC").play(2, "QC")
    assert t.over
    assert t.places == (1, 2, 3, 4)
    return t


@pytest.mark.parametrize("variant", ["southern", "northern", "hue", "da_nang"])
def test_s8_four_players_last_pays_first_two_stakes_and_third_pays_second_one(
    variant: str,
) -> None:
    """§8: "Places (source 003). Paid as transfers, counted in stakes: 4 players: last → 1st 2,
    3rd → 2nd 1 (nets +2, +1, −1, −2)." §10: "The §8 place transfers apply to every preset
    except đếm lá"."""
    s = _four_players(variant).settle()
    assert transfers(s, TransferReason.PLACE) == [(3, 0, 200), (2, 1, 100)]


@pytest.mark.parametrize("variant", ["southern", "northern", "hue", "da_nang", "dau"])
def test_s8_three_players_last_pays_first_two_stakes_and_second_pays_first_one(
    variant: str,
) -> None:
    """§8: "3 players: last → 1st 2, 2nd → 1st 1 (nets +3, −1, −2)." """
    t = later(variant, "3C 10C", "4C JC", "5C 6D")
    t.play(0, "3C").play(1, "4C").play(2, "5C").play(0, "10C").play(1, "JC")
    assert t.places == (1, 2, 3)
    s = t.settle()
    assert transfers(s, TransferReason.PLACE) == [(2, 0, 200), (1, 0, 100)]
    assert s.net == (300, -100, -200)


@pytest.mark.parametrize("variant", ["southern", "northern", "hue", "da_nang"])
def test_s8_two_players_last_pays_first_two_stakes(variant: str) -> None:
    """§8: "2 players: last → 1st 2." """
    t = later(variant, "3C 10C", "4C 6D")
    t.play(0, "3C").play(1, "4C").play(0, "10C")
    assert t.settle().net == (200, -200)


@pytest.mark.parametrize(
    ("variant", "options", "rotten"),
    [
        ("southern", None, [50, 100, 200]),  # black 2 ½, red 2 1, four of a kind 2
        ("hue", None, [50, 100, 200]),
        ("da_nang", None, [50, 100, 200]),
        ("northern", None, [1300, 200]),  # §10: thối hai 13 stakes once; a four rots at 2
        ("southern", {"scoring": "points"}, [100, 400, 400]),  # ♠2 = 1, ♥2 = 4, any bomb = 4
    ],
)
def test_s8_thoi_the_last_players_twos_and_bombs_are_paid_to_the_player_just_before_them(
    variant: str, options: dict[str, object] | None, rotten: list[int]
) -> None:
    """§8: "Thối (rotten): at the end, the last player's remaining 2s and bombs are paid to the
    player who finished just before them (3rd of 4)"; "The same value is paid when something is
    chopped and when it rots in the last hand"; the points scheme: "♠2 = 1, ♣2 = 2, ♦2 = 3,
    ♥2 = 4, any bomb = 4, each point one stake"."""
    s = _four_players(variant, options).settle()
    assert sorted(a for _, _, a in transfers(s, TransferReason.ROTTEN)) == sorted(rotten)
    assert {(p, q) for p, q, _ in transfers(s, TransferReason.ROTTEN)} == {(3, 2)}
    assert transfers(s, TransferReason.PLACE) == [(3, 0, 200), (2, 1, 100)]


def test_s8_dau_thoi_values_its_twos_but_not_its_ordinary_four_of_a_kind() -> None:
    """§8: "Penalty values ... Đấu: black 2 ½, red 2 1, 4 consecutive pairs 1½, ..." — a four of
    a kind is no bomb in Đấu (§5), so it does not rot; the 2s go to the 2nd of 3."""
    t = later("dau", "3C 10C", "4C JC", f"5C {ROTTEN}")
    t.play(0, "3C").play(1, "4C").play(2, "5C").play(0, "10C").play(1, "JC")
    s = t.settle()
    assert sorted(transfers(s, TransferReason.ROTTEN)) == [(2, 1, 50), (2, 1, 100)]


def test_s8_every_settlement_is_zero_sum_and_nets_add_up() -> None:
    """§8: "Every finished game produces a settlement: a list of transfers payer → payee, amount,
    reason ... and each player's net. Amounts are exact integers of chips ..., and every
    settlement is zero-sum unless an option explicitly says otherwise"."""
    for variant in ("southern", "northern", "hue", "da_nang"):
        s = _four_players(variant).settle()
        assert s.zero_sum
        assert sum(s.net) == 0
        net = [0, 0, 0, 0]
        for t in s.transfers:
            assert isinstance(t.amount, int)
            net[t.payer] -= t.amount
            net[t.payee] += t.amount
        assert tuple(net) == s.net


@pytest.mark.parametrize("variant", ["southern", "northern", "hue", "da_nang"])
def test_s9_games_chain_into_a_match_that_carries_running_totals(variant: str) -> None:
    """§9: "Games chain into a match: the next game's leader is the previous winner ... The match
    carries running totals." """
    first = _four_players(variant)
    net = first.settle().net
    second = first.next_game("3D 10D", "4D JD", "5D QD", "6D KD")
    assert second.state.match.totals == net
    assert second.state.match.game_number == first.state.match.game_number + 1
    assert second.to_act == first.state.winner
    second.play(0, "3D").play(1, "4D").play(2, "5D").play(3, "6D")
    second.play(0, "10D").play(1, "JD").play(2, "QD")
    third = second.next_game("3H", "4H", "5H", "6H")
    assert third.state.match.totals == tuple(
        a + b for a, b in zip(net, second.settle().net, strict=True)
    )
