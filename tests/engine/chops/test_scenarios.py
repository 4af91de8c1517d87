"""Chop scenarios (*chặt*, *chặt chồng*), RULES §5, §8 and §10, played through the public engine.

Edge cases of the chop rules not covered elsewhere: chains of three and more links, chains that
mix in-turn and out-of-turn chops, a 2 (or a pair of 2s) beaten by a higher one before it is
chopped, mixed-colour pairs of 2s, chains that end by everyone passing, by the chopper going out
or by the game ending, who leads after a chain, the chop of a last card under each preset, and
the variant chop tables (Huế, Đà Nẵng, Northern, Đấu, đếm lá) cell by cell where untested.
Amounts are chips at the default stake of 100 unless a test says otherwise.
"""

from __future__ import annotations

import pytest
from helpers.tables import (
    Reason,
    Table,
    TransferReason,
    cards,
    later,
    transfers,
)

from tienlen_rules import legal_moves
from tienlen_rules.events import ChopSettled, Played, RoundWon

THREE_PAIRS = "3S 3C 4S 4C 5S 5C"
HIGH_THREE_PAIRS = "JS JC QS QC KS KC"
LOW_FOUR_PAIRS = "7S 7C 8S 8C 9S 9C 10S 10C"
HIGH_FOUR_PAIRS = "7D 7H 8D 8H 9D 9H 10D 10H"
SIXES = "6S 6C 6D 6H"
KINGS = "KS KC KD KH"
ACES = "AS AC AD AH"
DAU_FOUR_PAIRS = "3S 3C 4S 4C 5S 5C 6S 6C"
DAU_FIVE_PAIRS = "4S 4C 5S 5C 6S 6C 7S 7C 8S 8C"
DAU_TRIPLES = "JS JC JD QS QC QD KS KC KD"
DAU_SIX_PAIRS = "4D 4H 5D 5H 6D 6H 7S 7C 8S 8C 9S 9C"
DAU_HIGH_FIVE_PAIRS = "7D 7H 8D 8H 9S 9C 10S 10C JS JC"

Chain = tuple[int, int, int, int]


def game(variant: str, *hands: str, **options: object) -> Table:
    """A non-first game of the preset from explicit hands, seat 0 leading; really played."""
    t = later(variant, *hands, options=options or None)
    assert not t.over, f"the deal ended the game at once: {t.state.instant_pattern}"
    return t


def chains(t: Table) -> list[Chain]:
    """Every settled chop chain so far: (payer, payee, chips, links)."""
    return [(e.payer, e.payee, e.amount, e.links) for e in t.of(ChopSettled)]


def last_play(t: Table) -> Played:
    return t.of(Played)[-1]


# --------------------------------------------------------------------------- Southern chains


def test_a_four_link_chain_is_paid_whole_by_the_last_chopped_to_the_last_chopper() -> None:
    # RULES §5 stacked chops: ♠2 ½, 3 pairs 1½, higher 3 pairs 1½, four 2 = 5½ stakes, paid by
    # the owner of the four (the last chopped) to the last chopper; nobody else pays.
    t = game(
        "southern",
        f"2S {LOW_FOUR_PAIRS} KH",
        f"{THREE_PAIRS} QD",
        f"{HIGH_THREE_PAIRS} QH",
        f"{ACES} KD",
    )
    t.play(0, "2S").play(1, THREE_PAIRS).play(2, HIGH_THREE_PAIRS).play(3, ACES)
    t.play(0, LOW_FOUR_PAIRS)  # the first chopped player chops back, in turn
    assert all(p.chop for p in t.of(Played)[1:])
    assert chains(t) == []  # nothing is paid while the chain can still grow
    t.passes(1, 2, 3)
    assert chains(t) == [(3, 0, 550, 4)]
    assert t.of(ChopSettled)[0].cards == cards(f"2S {THREE_PAIRS} {HIGH_THREE_PAIRS} {ACES}")
    # The last chopper made the last play: it leads the next round.
    assert t.of(RoundWon)[-1] == RoundWon(0, 0)
    assert t.to_act == 0
    assert t.state.table is None
    assert t.state.chain == ()


def test_a_two_beaten_by_a_higher_two_then_chopped_twice_charges_only_the_chopped_two() -> None:
    # RULES §5: "Only the chopped cards are charged: a 2 that was beaten by a higher 2 before the
    # chop is not part of the chain." ♥2 1 + 3 pairs 1½ = 2½ stakes; the ♠2 is not charged.
    t = game("southern", "2S JD", "2H QD", f"{THREE_PAIRS} KD", f"{SIXES} AD")
    t.play(0, "2S").play(1, "2H").play(2, THREE_PAIRS).play(3, SIXES).passes(0, 1, 2)
    assert chains(t) == [(2, 3, 250, 2)]
    assert t.of(ChopSettled)[0].cards == cards(f"2H {THREE_PAIRS}")


def test_a_pair_of_twos_beaten_by_a_higher_pair_then_chopped_charges_only_the_higher_pair() -> None:
    # ♦2 1 + ♥2 1 = 2 stakes, paid by the owner of ♦2♥2; the ♠2♣2 beneath is not charged.
    t = game("southern", "2S 2C JD", "2D 2H QD", f"{SIXES} KD")
    t.play(0, "2S 2C").play(1, "2D 2H").play(2, SIXES).passes(0, 1)
    assert chains(t) == [(1, 2, 200, 1)]
    assert t.of(ChopSettled)[0].cards == cards("2D 2H")


def test_a_two_beaten_by_a_higher_two_then_chopped_out_of_turn_charges_only_that_two() -> None:
    t = game("southern", "2S JD", "2D QD", "KS KD", f"{LOW_FOUR_PAIRS} AD")
    t.play(0, "2S").play(1, "2D")
    assert t.to_act == 2
    t.play(3, LOW_FOUR_PAIRS)
    assert last_play(t).out_of_turn
    t.passes(0, 1, 2)
    assert chains(t) == [(1, 3, 100, 1)]
    assert t.of(ChopSettled)[0].cards == cards("2D")


def test_a_mixed_colour_pair_of_twos_chopped_then_chopped_out_of_turn_is_paid_as_the_sum() -> None:
    # RULES §8: a pair of 2s is worth the sum of its cards: ♣2 ½ + ♦2 1 = 1½; with the four 2,
    # the owner of the four pays 3½ stakes to the out-of-turn chopper.
    t = game("southern", "2C 2D JD", f"{SIXES} KD", "QD QH", f"{LOW_FOUR_PAIRS} AD")
    t.play(0, "2C 2D").play(1, SIXES)
    assert t.to_act == 2
    t.play(3, LOW_FOUR_PAIRS)  # seat 3 chops out of turn, before seat 2 has acted
    assert last_play(t).chop
    assert last_play(t).out_of_turn
    assert t.to_act == 0  # play continues from the chopper
    t.passes(0, 1, 2)  # seat 2, skipped by the chop, still gets its turn
    assert chains(t) == [(1, 3, 350, 2)]
    assert t.to_act == 3


def test_a_chain_mixing_in_turn_and_out_of_turn_chops_is_paid_to_the_last_chopper() -> None:
    # ♥2 (seat 0) chopped by 3 pairs (seat 1, in turn), chopped out of turn by 4 pairs (seat 3,
    # skipping seat 2), chopped in turn by higher 4 pairs (seat 2): seat 3 pays 1 + 1½ + 2½.
    t = game(
        "southern",
        "2H KD",
        f"{THREE_PAIRS} QD",
        f"{HIGH_FOUR_PAIRS} AH",
        f"{LOW_FOUR_PAIRS} AD",
    )
    t.play(0, "2H").play(1, THREE_PAIRS)
    assert t.to_act == 2
    t.play(3, LOW_FOUR_PAIRS)
    assert last_play(t).out_of_turn
    assert t.to_act == 0
    t.passes(0, 1)
    assert t.to_act == 2
    t.play(2, HIGH_FOUR_PAIRS)
    assert last_play(t).chop
    assert not last_play(t).out_of_turn
    t.passes(3)
    assert chains(t) == [(3, 2, 500, 3)]
    assert t.to_act == 2


def test_a_chopped_player_who_chops_back_out_of_turn_is_paid_for_the_whole_chain() -> None:
    # Seat 0's ♥2 is chopped by seat 1; seat 0 chops seat 1 out of turn (seat 2 was to act).
    # The last chopped, seat 1, pays the whole chain — ♥2 1 + 3 pairs 1½ — to seat 0.
    t = game("southern", f"2H {LOW_FOUR_PAIRS} KD", f"{THREE_PAIRS} QD", "JD AD")
    t.play(0, "2H").play(1, THREE_PAIRS)
    assert t.to_act == 2
    t.play(0, LOW_FOUR_PAIRS)
    assert last_play(t).out_of_turn
    assert t.to_act == 1
    t.passes(1, 2)
    assert chains(t) == [(1, 0, 250, 2)]
    assert t.to_act == 0


def test_a_led_three_pairs_chopped_by_a_four_then_by_four_pairs_costs_three_and_a_half() -> None:
    # RULES §5: a bomb on a led bomb is a paid chop; 3 pairs 1½ + four 2 = 3½ stakes.
    t = game("southern", f"{THREE_PAIRS} KD", f"{SIXES} QD", f"{LOW_FOUR_PAIRS} AD")
    t.play(0, THREE_PAIRS).play(1, SIXES).play(2, LOW_FOUR_PAIRS).passes(0, 1)
    assert chains(t) == [(1, 2, 350, 2)]
    assert t.to_act == 2


def test_a_passed_player_is_offered_the_out_of_turn_chop_and_the_chopped_player_acts_next() -> None:
    # RULES §5: 4 consecutive pairs chop out of turn "even after passing in this round"; after
    # the chop, play continues from the chopper.
    pairs = "3S 3C 4S 4C 5C 5D 6C 6D"
    t = game("southern", "5S 9D", f"{pairs} KS", "2H JD")
    t.play(0, "5S").passes(1).play(2, "2H")
    assert t.to_act == 0
    assert t.state.passed >> 1 & 1
    assert t.legal(1) == {pairs}
    assert not any(m.is_pass for m in legal_moves(t.state, 1))  # not its turn: no pass
    t.play(1, pairs)
    assert last_play(t).out_of_turn
    assert t.to_act == 2  # the seat after the chopper: the chopped player
    t.passes(2, 0)
    assert chains(t) == [(2, 1, 100, 1)]
    assert t.of(RoundWon)[-1] == RoundWon(1, 1)
    assert t.to_act == 1


def test_a_two_that_won_its_round_can_no_longer_be_chopped() -> None:
    # A chop is played on the play on the table; once everyone passed, the round is over.
    t = game("southern", "2H 9D", "JD QD", f"{LOW_FOUR_PAIRS} AD")
    t.play(0, "2H").passes(1, 2)
    assert t.to_act == 0
    assert t.state.table is None
    assert t.refused(2, LOW_FOUR_PAIRS) == Reason.NOT_YOUR_TURN
    assert chains(t) == []


@pytest.mark.parametrize(
    ("variant", "bomb", "allowed"),
    [
        ("southern", LOW_FOUR_PAIRS, False),  # a triple of 2s can't be chopped (RULES §5)
        ("dau", "3S 3C 3D 4S 4C 4D 5S 5C 5D", False),  # Đấu: 3 triples don't chop a triple of 2s
        ("dau", DAU_SIX_PAIRS, True),  # ...while 6 pairs do, out of turn
    ],
)
def test_a_triple_of_twos_out_of_turn(variant: str, bomb: str, allowed: bool) -> None:
    t = game(variant, "2S 2C 2D 3H", "KD AD", f"{bomb} AH")
    t.play(0, "2S 2C 2D")
    assert t.to_act == 1
    assert t.can_play(2, bomb) is allowed
    assert (t.legal(2) == {bomb}) is allowed
    if not allowed:
        assert t.refused(2, bomb) == Reason.NOT_YOUR_TURN


# --------------------------------------------------------------------------- how a chain ends


def test_a_chopper_who_goes_out_on_the_chop_is_paid_and_the_next_seat_leads() -> None:
    # The chop was seat 1's last cards: the chain is paid (the chopped seat 0 still holds cards)
    # and, nobody beating it, the lead passes to the next seat holding cards (hưởng sái).
    t = game("southern", "4S 2H 9D", "5S 3S 3C 4C 4D 5C 5D", "6S KD JD")
    t.play(0, "4S").play(1, "5S").play(2, "6S").play(0, "2H")
    t.play(1, "3S 3C 4C 4D 5C 5D")
    assert t.places[1] == 1
    assert chains(t) == []
    t.passes(2, 0)
    assert chains(t) == [(0, 1, 100, 1)]
    assert t.of(RoundWon)[-1] == RoundWon(1, 2)
    assert t.to_act == 2
    t.play(2, "JD").passes(0).play(2, "KD")
    assert t.over
    assert transfers(t.settle(), TransferReason.CHOP) == [(0, 1, 100)]


def test_a_chain_still_open_when_the_game_ends_is_paid() -> None:
    # Seat 0 is out; seat 1's ♥2 is chopped by seat 2's last cards, which leaves seat 1 alone:
    # the game ends at once and the chain closes, seat 1 paying seat 2.
    t = game("southern", "3D 9S", "4D 2H JH", f"5D {THREE_PAIRS}")
    t.play(0, "3D").play(1, "4D").play(2, "5D").play(0, "9S")
    assert t.places[0] == 1
    t.play(1, "2H").play(2, THREE_PAIRS)
    assert t.over
    assert t.places == (1, 3, 2)
    assert chains(t) == [(1, 2, 100, 1)]
    s = t.settle()
    assert transfers(s, TransferReason.CHOP) == [(1, 2, 100)]
    assert sorted(transfers(s, TransferReason.PLACE)) == [(1, 0, 200), (2, 0, 100)]
    assert s.zero_sum


def test_a_chain_closed_because_the_others_are_frozen_is_still_paid() -> None:
    # Seat 1 goes out by chopping seat 0's ♥2; seats 2 and 3 never played and are frozen, so
    # seat 0 is left alone and the game ends. RULES §8: "chop payments made during the game are
    # settled as usual for everyone, frozen or not".
    t = game("southern", "2H 9D", THREE_PAIRS, "JD QD", "KD AD")
    t.play(0, "2H").play(1, THREE_PAIRS)
    assert t.over
    assert t.state.frozen == 0b1100
    s = t.settle()
    assert transfers(s, TransferReason.CHOP) == [(0, 1, 100)]
    assert s.net[0] == -100  # left alone with frozen players: no place transfer, only the chop


def test_a_last_two_beaten_by_a_higher_two_that_is_chopped_is_paid_by_the_higher_two() -> None:
    # Seat 0 goes out on ♠2; seat 1 beats it with ♥2 and seat 2 chops the ♥2. Only the chopped
    # ♥2 is charged, and its player still holds cards: the chop is paid, not voided.
    t = game("southern", "6D 2S", "7D 2H JD", f"8D {THREE_PAIRS} KD")
    t.play(0, "6D").play(1, "7D").play(2, "8D").play(0, "2S")
    assert t.places[0] == 1
    t.play(1, "2H").play(2, THREE_PAIRS).passes(1)
    assert chains(t) == [(1, 2, 100, 1)]
    assert t.of(ChopSettled)[0].cards == cards("2H")


@pytest.mark.parametrize(
    ("variant", "options", "expected"),
    [
        ("southern", {}, []),  # nobody pays
        ("southern", {"chop_on_last_card": "paid"}, [(1, 2, 300)]),
        ("hue", {}, [(-1, 2, 300)]),  # the chopper is paid, the chopped pays nothing
        ("da_nang", {}, []),  # Đà Nẵng inherits the Southern rule
    ],
)
def test_a_chain_whose_last_chopped_went_out_with_the_chopped_cards(
    variant: str, options: dict[str, object], expected: list[tuple[int, int, int]]
) -> None:
    # RULES §5: seat 1 goes out by chopping seat 0's ♥2 with a four, then seat 2 chops seat 1's
    # four with a higher four: the last chopped (seat 1) went out with the chopped cards.
    t = game(variant, "4S 2H 9D JD", f"5S {SIXES}", f"QS {KINGS} JS", **options)
    t.play(0, "4S").play(1, "5S").play(2, "QS").play(0, "2H").play(1, SIXES)
    assert t.places[1] == 1
    t.play(2, KINGS).passes(0)
    settled = t.of(ChopSettled)
    assert len(settled) == 1
    assert settled[0].cards == cards(f"2H {SIXES}")
    assert t.to_act == 2
    t.play(2, "JS")
    assert t.over
    assert transfers(t.settle(), TransferReason.CHOP) == expected


@pytest.mark.parametrize(
    ("variant", "expected"), [("southern", [(-1, 2, 0, 1)]), ("hue", [(-1, 2, 100, 1)])]
)
def test_an_out_of_turn_chop_of_a_last_two(variant: str, expected: list[Chain]) -> None:
    # Seat 0 goes out on ♥2; seat 2 chops it out of turn (seat 1 was to act). Southern: nobody
    # pays; Huế: the chopper is paid by nobody (RULES §5, chop_on_last_card).
    t = game(variant, "4S 2H", "5S JD QD", "6S 3S 3C 4C 4D 5C 5D 6C 6D KD")
    t.play(0, "4S").play(1, "5S").play(2, "6S").play(0, "2H")
    assert t.places[0] != 0
    assert t.to_act == 1
    t.play(2, "3S 3C 4C 4D 5C 5D 6C 6D")
    assert last_play(t).out_of_turn
    assert t.to_act == 1  # seat 0 is out: after the chopper comes seat 1
    t.passes(1)
    assert chains(t) == expected
    assert t.to_act == 2


# --------------------------------------------------------------------------- values and options


def test_a_chain_under_the_points_scheme() -> None:
    # RULES §8 points: ♣2 = 2 points, any bomb = 4 points, each point a stake.
    t = game("southern", "2C JD", f"{THREE_PAIRS} QD", f"{SIXES} KD", scoring="points")
    t.play(0, "2C").play(1, THREE_PAIRS).play(2, SIXES).passes(0, 1)
    assert chains(t) == [(1, 2, 600, 2)]


def test_a_chain_is_paid_at_the_stake_times_its_stakes() -> None:
    # Source 004's example at a stake of 10 chips: B pays C ½ + 1½ = 2 stakes = 20 chips.
    t = game("southern", "2S JD", f"{THREE_PAIRS} QD", f"{SIXES} KD", stake=10)
    t.play(0, "2S").play(1, THREE_PAIRS).play(2, SIXES).passes(0, 1)
    assert chains(t) == [(1, 2, 20, 2)]


# --------------------------------------------------------------------------- regional tables


@pytest.mark.parametrize("variant", ["southern", "hue", "da_nang", "northern"])
def test_a_two_chopped_by_a_four_then_by_a_higher_four_costs_three_stakes(variant: str) -> None:
    # Every table has four of a kind chop a single 2 and a smaller four (RULES §5, §10).
    t = game(variant, "2H 3D", f"{SIXES} 4D", f"{KINGS} 5D")
    t.play(0, "2H").play(1, SIXES).play(2, KINGS).passes(0, 1)
    assert chains(t) == [(1, 2, 300, 2)]


def test_hue_four_consecutive_pairs_do_not_chop_a_four_of_a_kind() -> None:
    # RULES §5 Huế: "4 consecutive pairs chop a 2 and a pair of 2s" (source 000: "4 đôi thông
    # chặt được heo và đôi heo"); unlike the South and Đà Nẵng, not a four of a kind.
    # The bare relation, and Đà Nẵng's, are in relations.txt; here, the refusal at the table.
    t = game("hue", f"{SIXES} 3D", f"{LOW_FOUR_PAIRS} AD")
    t.play(0, SIXES)
    assert t.refused(1, LOW_FOUR_PAIRS) == Reason.WRONG_TYPE_OR_LENGTH


def test_hue_four_consecutive_pairs_chop_smaller_four_pairs_out_of_turn() -> None:
    # RULES §10 Huế: "4 consecutive pairs may chop out of turn as in the South", and 4 pairs on
    # smaller 4 pairs remain a paid chop (2½ stakes).
    t = game("hue", "3S 3C 4S 4C 5S 5C 6S 6C KD", "QD QH", f"{LOW_FOUR_PAIRS} AD")
    t.play(0, "3S 3C 4S 4C 5S 5C 6S 6C")
    assert t.to_act == 1
    t.play(2, LOW_FOUR_PAIRS)
    assert last_play(t).chop
    assert last_play(t).out_of_turn
    t.passes(0, 1)
    assert chains(t) == [(0, 2, 250, 1)]


def test_hue_a_pair_of_twos_beaten_then_chopped_out_of_turn_charges_only_the_higher_pair() -> None:
    t = game("hue", "2S 2C JD", "2D 2H QD", "KS KD", f"{LOW_FOUR_PAIRS} AD")
    t.play(0, "2S 2C").play(1, "2D 2H")
    t.play(3, LOW_FOUR_PAIRS)
    assert last_play(t).out_of_turn
    t.passes(0, 1, 2)
    assert chains(t) == [(1, 3, 200, 1)]


def test_da_nang_four_pairs_chop_a_led_four_of_a_kind_out_of_turn() -> None:
    # RULES §5 Đà Nẵng: 4 pairs chop a four of a kind "at any time, out of turn".
    t = game("da_nang", f"{SIXES} 3D", "QD QH", f"{LOW_FOUR_PAIRS} AD")
    t.play(0, SIXES)
    assert t.to_act == 1
    t.play(2, LOW_FOUR_PAIRS)
    assert last_play(t).out_of_turn
    t.passes(0, 1)
    assert chains(t) == [(0, 2, 200, 1)]


@pytest.mark.parametrize("variant", ["hue", "da_nang"])
def test_a_four_of_a_kind_does_not_chop_out_of_turn_in_hue_and_da_nang(variant: str) -> None:
    # Only 4 consecutive pairs chop out of turn (RULES §5, §10).
    t = game(variant, "2H 3D", "QD QH", f"{SIXES} AD")
    t.play(0, "2H")
    assert t.refused(2, SIXES) == Reason.NOT_YOUR_TURN
    t.passes(1).play(2, SIXES)
    assert last_play(t).chop


def test_da_nang_a_pair_of_twos_chopped_out_of_turn_then_by_higher_four_pairs() -> None:
    # RULES §5 Đà Nẵng: 4 pairs chop a pair of 2s out of turn; higher 4 pairs on them remain a
    # paid chop (§10). ♠2 ½ + ♥2 1 + 4 pairs 2½ = 4 stakes, paid by the lower 4 pairs' owner.
    t = game("da_nang", "2S 2H JD", f"{HIGH_FOUR_PAIRS} AH", f"{LOW_FOUR_PAIRS} AD")
    t.play(0, "2S 2H")
    assert t.to_act == 1
    t.play(2, LOW_FOUR_PAIRS)
    assert last_play(t).out_of_turn
    assert t.to_act == 0
    t.passes(0).play(1, HIGH_FOUR_PAIRS).passes(2)
    assert chains(t) == [(2, 1, 400, 2)]
    assert t.to_act == 1


@pytest.mark.parametrize(("pair", "chips"), [("2D 2H", 200), ("2S 2C", 100)])
def test_northern_a_pair_of_twos_chopped_by_a_four_is_paid_the_sum_of_its_twos(
    pair: str, chips: int
) -> None:
    # RULES §10 Northern: chops are paid at the Southern penalty values.
    t = game("northern", f"{pair} 3S", f"{SIXES} 4C")
    t.play(0, pair).play(1, SIXES).passes(0)
    assert chains(t) == [(0, 1, chips, 1)]


def test_northern_a_two_beaten_by_a_higher_two_then_chopped_charges_only_the_chopped_two() -> None:
    t = game("northern", "2S 3S", "2H 4S", f"{SIXES} 5C")
    t.play(0, "2S").play(1, "2H").play(2, SIXES).passes(0, 1)
    assert chains(t) == [(1, 2, 100, 1)]
    assert t.of(ChopSettled)[0].cards == cards("2H")


def test_northern_a_four_of_a_kind_does_not_chop_out_of_turn() -> None:
    t = game("northern", "2H 3S", "4S 5S", f"{SIXES} 5C")
    t.play(0, "2H")
    assert t.refused(2, SIXES) == Reason.NOT_YOUR_TURN
    t.passes(1)
    assert t.can_play(2, SIXES)


def test_northern_a_chop_with_a_last_four_ranks_the_chopper_last_but_is_paid() -> None:
    # RULES §6/§10: going out with a four of a kind ranks you last in the North; the chopped
    # player still holds cards, so the chop is paid (§5), and the lead passes on (hưởng sái).
    t = game("northern", "2H 3S 9S", SIXES, "4C 5C")
    t.play(0, "2H").play(1, SIXES)
    assert t.places[1] == 3
    t.passes(2, 0)
    assert chains(t) == [(0, 1, 100, 1)]
    assert t.of(RoundWon)[-1] == RoundWon(1, 2)
    t.play(2, "4C").passes(0).play(2, "5C")
    assert t.over
    assert t.places == (2, 3, 1)
    s = t.settle()
    assert transfers(s, TransferReason.CHOP) == [(0, 1, 100)]
    assert sorted(transfers(s, TransferReason.PLACE)) == [(0, 2, 100), (1, 2, 200)]


def test_northern_a_six_card_same_suit_straight_chopping_a_pair_of_twos_is_paid() -> None:
    # RULES §5 Northern option: a same-suit straight of 6+ cards chops a pair of 2s.
    t = game("northern", "2D 2H 3S", "6C 7C 8C 9C 10C JC 4S", suited_straight_chops=True)
    t.play(0, "2D 2H").play(1, "6C 7C 8C 9C 10C JC").passes(0)
    assert chains(t) == [(0, 1, 200, 1)]


# --------------------------------------------------------------------------- Đấu


def test_dau_a_chain_with_an_out_of_turn_triples_chop_is_paid_at_dau_values() -> None:
    # ♥2 (seat 0) chopped by 4 pairs (seat 1), chopped out of turn by 3 consecutive triples
    # (seat 0), chopped by 6 pairs (seat 2, in turn): seat 0 pays 1 + 1½ + 2½ = 5 stakes.
    t = game("dau", f"2H {DAU_TRIPLES} 3D", f"{DAU_FOUR_PAIRS} AD", f"{DAU_SIX_PAIRS} AH")
    t.play(0, "2H").play(1, DAU_FOUR_PAIRS)
    assert t.to_act == 2
    t.play(0, DAU_TRIPLES)
    assert last_play(t).out_of_turn
    assert t.to_act == 1
    t.passes(1).play(2, DAU_SIX_PAIRS).passes(0)
    assert chains(t) == [(0, 2, 500, 3)]
    assert t.to_act == 2


def test_dau_a_triple_of_twos_chopped_out_of_turn_by_six_pairs_is_paid_its_sum() -> None:
    # RULES §5 Đấu: 6 pairs chop a triple of 2s, out of turn; ♠2 ½ + ♣2 ½ + ♥2 1 = 2 stakes.
    t = game("dau", "2S 2C 2H 3D", "KD AD", f"{DAU_SIX_PAIRS} AH")
    t.play(0, "2S 2C 2H")
    assert t.to_act == 1
    t.play(2, DAU_SIX_PAIRS)
    assert last_play(t).out_of_turn
    t.passes(0, 1)
    assert chains(t) == [(0, 2, 200, 1)]


def test_dau_a_mixed_colour_pair_of_twos_chopped_by_five_pairs() -> None:
    t = game("dau", "2C 2D 3D", f"{DAU_FIVE_PAIRS} KD", "AD")
    t.play(0, "2C 2D").play(1, DAU_FIVE_PAIRS).passes(2, 0)
    assert chains(t) == [(0, 1, 150, 1)]


def test_dau_the_chop_of_a_last_two_is_void() -> None:
    # Source 000 (Đấu): "nếu người bị chặt cuối mà tới luôn thì không ai bị phạt hoặc thưởng gì".
    t = game("dau", "4S 2H", "5S JD QD", f"6S {LOW_FOUR_PAIRS} KD")
    t.play(0, "4S").play(1, "5S").play(2, "6S").play(0, "2H")
    assert t.places[0] == 1
    assert t.refused(2, LOW_FOUR_PAIRS) == Reason.NOT_YOUR_TURN  # 4 pairs: in turn only
    t.passes(1).play(2, LOW_FOUR_PAIRS)
    assert chains(t) == [(-1, 2, 0, 1)]  # nobody pays
    assert t.to_act == 2
    t.play(2, "KD")
    assert transfers(t.settle(), TransferReason.CHOP) == []


@pytest.mark.parametrize(
    ("led", "chop"),
    [
        (DAU_FOUR_PAIRS, DAU_HIGH_FIVE_PAIRS),
        (DAU_FIVE_PAIRS, DAU_TRIPLES),
        (DAU_TRIPLES, "3S 3C 4S 4C 5S 5C 6S 6C 7S 7C 8S 8C"),
    ],
)
def test_dau_points_scheme_every_chopped_bomb_is_worth_four_points(led: str, chop: str) -> None:
    # RULES §8: "Alternative scheme by points: ... any bomb = 4"; source 000 (Đấu): "Hàng (4 đôi
    # thông, 5 đôi thông, 3 sám cô thông, 6 đôi thông) = 4 điểm".
    t = game("dau", f"{led} 9D", f"{chop} AD", "AH", scoring="points")
    t.play(0, led).play(1, chop)
    assert last_play(t).chop
    t.passes(2, 0)
    assert chains(t) == [(0, 1, 400, 1)]


@pytest.mark.parametrize(
    ("variant", "rotten"),
    [
        ("hue", []),
        ("da_nang", []),
        ("southern", [(1, 0, 400)]),  # a Southern bomb: 4 points
    ],
)
def test_points_scheme_values_three_pairs_only_where_they_are_bombs(
    variant: str, rotten: list[tuple[int, int, int]]
) -> None:
    # RULES §10: in Huế and Đà Nẵng 3 consecutive pairs are not bombs "and they don't rot";
    # switching to the points scheme ("any bomb = 4", §8) must not make them a valued bomb.
    t = game(variant, "4D 9S", f"{THREE_PAIRS} 5D 8S", scoring="points")
    t.play(0, "4D").play(1, "5D").play(0, "9S")
    assert t.over
    assert transfers(t.settle(), TransferReason.ROTTEN) == rotten


# --------------------------------------------------------------------------- đếm lá


def test_dem_la_a_three_link_chain_is_paid_at_the_rotten_conversions() -> None:
    # RULES §10 đếm lá: red 2 = 4 stakes, four of a kind = 4; the four's owner pays 8 stakes.
    t = game("dem_la", "2H JD 3D", f"{SIXES} QD", f"{LOW_FOUR_PAIRS} AD")
    t.play(0, "2H").play(1, SIXES).play(2, LOW_FOUR_PAIRS).passes(0, 1)
    assert chains(t) == [(1, 2, 800, 2)]
    t.play(2, "AD")
    assert t.over
    assert transfers(t.settle(), TransferReason.CHOP) == [(1, 2, 800)]


def test_dem_la_a_mixed_colour_pair_of_twos_is_paid_the_sum_of_its_conversions() -> None:
    # Black 2 = 2 stakes + red 2 = 4 stakes.
    t = game("dem_la", "2S 2H 10H", f"{KINGS} AD")
    t.play(0, "2S 2H").play(1, KINGS).passes(0).play(1, "AD")
    assert t.over
    assert transfers(t.settle(), TransferReason.CHOP) == [(0, 1, 600)]


def test_dem_la_a_chop_with_the_last_cards_ends_the_game_and_is_paid() -> None:
    t = game("dem_la", "2D 9S 10S", KINGS)
    t.play(0, "2D").play(1, KINGS)
    assert t.over
    s = t.settle()
    assert transfers(s, TransferReason.CHOP) == [(0, 1, 400)]
    assert transfers(s, TransferReason.CARD_COUNT) == [(0, 1, 200)]


def test_dem_la_four_pairs_chop_a_four_of_a_kind_out_of_turn_for_four_stakes() -> None:
    # RULES §10: the chop table is the Southern one; "4 consecutive pairs on four of a kind = 4".
    t = game("dem_la", f"{KINGS} 9S", "QD 3D", "7S 7C 8S 8C 9C 9D 10S 10C AD")
    t.play(0, KINGS)
    assert t.to_act == 1
    t.play(2, "7S 7C 8S 8C 9C 9D 10S 10C")
    assert last_play(t).out_of_turn
    t.passes(0, 1)
    assert chains(t) == [(0, 2, 400, 1)]
