"""RULES §7-§10 statements no other test pinned on their own: found by an audit that mapped every
sentence of §7 (special wins and losses), §8 (settlement), §9 (matches) and §10 (variant details)
to the test proving it. Each test quotes its sentence and deals explicit hands in card notation
through the public engine API; amounts are in chips at the default stake of 100.
"""

from __future__ import annotations

import pytest
from helpers.tables import Table, TransferReason, deal, later, reasons, transfers

from tienlen_rules.events import ChopSettled, InstantWin

L = 200  # the last-place amount: 2 stakes of 100 chips


def instant(t: Table) -> tuple[int, str] | None:
    """(seat, pattern) of the deal's instant win, or None when the game is played."""
    wins = t.of(InstantWin)
    assert t.over == bool(wins)
    return (wins[0].seat, wins[0].pattern) if wins else None


# =========================================================================== §7 instant-win lists

EXTENDED = {"instant_wins": "extended"}


def test_extended_list_three_consecutive_fours_win_a_first_game_under_their_own_name() -> None:
    """§7 extended list (source 000/001): "3 consecutive fours of a kind". Three consecutive
    fours are also three consecutive triples and six pairs; the pattern reported (shown to the
    players by the InstantWin event) is the one the hand is named by, the most specific."""
    fours = "4S 4C 4D 4H 5S 5C 5D 5H 6S 6C 6D 6H 9H"
    t = deal("southern", "3S", fours, options=EXTENDED)
    assert instant(t) == (1, "three_consecutive_fours")
    assert transfers(t.settle()) == [(0, 1, L)]
    # In a later game only the any-game list applies: the same hand is six pairs there.
    assert instant(later("southern", "3S", fours, options=EXTENDED)) == (1, "six_pairs")


@pytest.mark.parametrize(
    ("hand", "pattern"),
    [
        # also four 3s
        ("3S 3C 3D 3H 4S 4C 4D 4H 5S 5C 5D 5H 9H", "three_consecutive_fours"),
        # also 4 consecutive pairs with ♠3
        ("3S 3C 3D 4S 4C 4D 5S 5C 5D 6S 6C 6D 9H", "four_consecutive_triples"),
        # also 3 consecutive pairs with ♠3
        ("3S 3C 4S 4C 5S 5C 6S 6C 9H 10D JS QC KH", "four_consecutive_pairs_with_start"),
        # also 3 consecutive pairs with ♠3: four 3s, as on the standard list
        ("3S 3C 3D 3H 4S 4C 5S 5C 9H 10D JS QC KH", "four_threes"),
    ],
)
def test_extended_list_names_a_hand_that_forms_two_patterns_as_a_player_would(
    hand: str, pattern: str
) -> None:
    """§7's extended list names each pattern apart; a hand that forms two is reported by the
    one a player would name it by (the payment is the same)."""
    t = deal("southern", hand, "KD", options=EXTENDED)
    assert instant(t) == (0, pattern)
    assert transfers(t.settle()) == [(1, 0, L)]


def test_extended_list_five_consecutive_pairs_and_a_triple_win_a_first_game() -> None:
    """§7 extended list: "5 consecutive pairs + 1 triple" — a first-game pattern, seen on its
    own when the any-game list (where 5 consecutive pairs alone win) is off in first games."""
    hand = "5S 5C 6S 6C 7S 7C 8S 8C 9S 9C KS KC KD"
    first_only = {**EXTENDED, "any_game_instant_wins_in_first_game": False}
    t = deal("southern", "3S", hand, options=first_only)
    assert instant(t) == (1, "five_consecutive_pairs_and_triple")
    standard = deal("southern", "3S", hand, options={"any_game_instant_wins_in_first_game": False})
    assert instant(standard) is None  # not on the standard (Wikipedia) first-game list


# =========================================================================== §8 points scheme

POINTS = {"scoring": "points"}


def test_points_scheme_instant_win_with_count_pigs_pays_l_plus_the_points_held() -> None:
    """§8: "Instant win: every other player pays the winner L; with đếm heo they also pay for
    their 2s and bombs at the penalty values" — under the points scheme "♠2 = 1, ♣2 = 2, ♦2 = 3,
    ♥2 = 4, any bomb = 4, each point one stake": ♥2 4 + four 9s 4 = 8 stakes beside L."""
    options = {**POINTS, "count_pigs": True}
    t = later("southern", "3S 3C 4S 4C 5S 5C 6S 6C 7S 7C", "2H 9S 9C 9D 9H 4D", options=options)
    assert instant(t) == (0, "five_consecutive_pairs")
    s = t.settle()
    assert transfers(s, TransferReason.INSTANT_WIN) == [(1, 0, L)]
    assert sorted(a for _, _, a in transfers(s, TransferReason.ROTTEN)) == [400, 400]
    assert s.net == (L + 800, -(L + 800))


# =========================================================================== §8 Đấu values


def test_dau_stacked_chop_two_four_pairs_five_pairs_three_triples_pays_the_whole_chain() -> None:
    """§8 "Đấu: black 2 ½, red 2 1, 4 consecutive pairs 1½, 5 consecutive pairs 2, 3 consecutive
    triples 2½ ..." and §5 stacked chops: ♥2, chopped by 4 consecutive pairs, chopped by 5
    consecutive pairs, chopped by 3 consecutive triples: the last chopped (the 5 pairs) pays the
    last chopper 1 + 1½ + 2 = 4½ stakes; the earlier links pay nothing."""
    t = later(
        "dau",
        "2H QS QC QD KS KC KD AS AC AD 3D",
        "3S 3C 4S 4C 5S 5C 6S 6C 7D",
        "7S 7C 8S 8C 9S 9C 10S 10C JS JC JD",
    )
    assert instant(t) is None
    t.play(0, "2H").play(1, "3S 3C 4S 4C 5S 5C 6S 6C")
    t.play(2, "7S 7C 8S 8C 9S 9C 10S 10C JS JC")
    t.play(0, "QS QC QD KS KC KD AS AC AD").passes(1, 2)
    settled = t.of(ChopSettled)
    assert [(e.payer, e.payee, e.amount, e.links) for e in settled] == [(2, 0, 450, 3)]


# =========================================================================== §7-§8 cóng amounts


def test_frozen_player_pays_twice_l_plus_four_consecutive_pairs_at_two_and_a_half() -> None:
    """§8: "a frozen player pays the winner 2L ... plus their 2s and bombs at the penalty
    values": 4 consecutive pairs 2½ and ♣2 ½ beside 2L = 400 + 250 + 50."""
    t = later("southern", "4D 9S", "5D 10S", "3S 3C 4S 4C 5S 5C 6S 6C 2C", leader=0)
    t.play(0, "4D").play(1, "5D").passes(2).play(0, "9S")
    assert t.over
    s = t.settle()
    assert transfers(s, TransferReason.FROZEN) == [(2, 0, 2 * L)]
    assert sorted(transfers(s, TransferReason.ROTTEN)) == [(2, 0, 50), (2, 0, 250)]
    # Seat 1, alone with the frozen player, takes 2nd and neither pays nor receives.
    assert TransferReason.PLACE not in reasons(s)
    assert s.net == (700, 0, -700)


@pytest.mark.parametrize(
    ("last_hand", "chips"),
    [
        ("9D 9H 10S 10C JS JC QS QC KS KC", 200),  # 5 consecutive pairs: 2 (not 4 pairs' 1½)
        ("JS JC JD QS QC QD KS KC KD", 250),  # 3 consecutive triples: 2½
        ("8D 8H 9D 9H 10S 10C JS JC QS QC KS KC", 300),  # 6 consecutive pairs: 3
    ],
)
def test_dau_longer_bombs_rot_at_their_dau_values(last_hand: str, chips: int) -> None:
    """§8: "Đấu: ... 5 consecutive pairs 2, 3 consecutive triples 2½, 6 consecutive pairs 3.
    ... The same value is paid when something is chopped and when it rots in the last hand."
    Seat 0 goes out first, seat 1 second; seat 2, left holding the bomb, pays it to seat 1."""
    t = later("dau", "4C AC 9S", "5C 7C 8S", f"6C {last_hand}")
    t.play(0, "4C").play(1, "5C").play(2, "6C").play(0, "AC").passes(1, 2)
    t.play(0, "9S").passes(1, 2).play(1, "7C").passes(2).play(1, "8S")
    assert t.over
    assert t.places == (1, 2, 3)
    s = t.settle()
    assert transfers(s, TransferReason.ROTTEN) == [(2, 1, chips)]
    assert transfers(s, TransferReason.PLACE) == [(2, 0, L), (1, 0, 100)]
