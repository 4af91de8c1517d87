"""RULES §9.2 "Bankrolls": a table's minimum, checked before every game, and nobody losing more
than they have (`loss_cap`), cut in proportion to what was owed."""

from __future__ import annotations

import pytest
from helpers.seating import FOUR, changed
from helpers.tables import later

from tienlen_rules import Newcomer, SetupError, build_rules, new_game, next_game, settle
from tienlen_rules.bankroll import Payment, cap_losses
from tienlen_rules.settlement import TransferReason
from tienlen_rules.state import GameState


def four_with(bankrolls: list[int], **options: object) -> GameState:
    """FOUR played out with these bankrolls: seat 3 wins, then 0, 1; seat 2 is last."""
    ruleset = build_rules("southern", options)
    hands = [sum(1 << c for c in _cards(h)) for h in FOUR]
    state, _ = new_game(ruleset, 4, hands=hands, first_game=False, leader=0, bankrolls=bankrolls)
    table = later("southern", *FOUR, options=options)
    table.state = state
    table.play(0, "3S").play(1, "5D").play(2, "7H").play(3, "9C").passes(0, 1, 2)
    table.play(3, "10C").passes(0, 1, 2).play(0, "4S").play(1, "6D")
    assert table.places == (2, 3, 4, 1)
    return table.state


def _cards(text: str) -> list[int]:
    from tienlen_rules.cards import parse_cards

    return parse_cards(text)


def test_a_seat_pays_at_most_its_bankroll_and_the_cut_shows_what_was_owed() -> None:
    state = four_with([1000, 1000, 150, 1000])
    result = settle(state)
    place = [(t.payer, t.payee, t.amount, t.owed) for t in result.transfers]
    assert (2, 3, 150, 200) in place  # last owes L = 200 to the winner, has 150
    assert (1, 0, 100, 0) in place  # 3rd pays 2nd in full: not cut, owed 0
    assert result.net == (100, -100, -150, 150)
    assert result.zero_sum


def test_without_a_cap_a_seat_pays_what_it_owes() -> None:
    state = four_with([1000, 1000, 150, 1000], loss_cap="none")
    assert settle(state).net == (100, -100, -200, 200)


def test_without_bankrolls_nothing_is_capped() -> None:
    state = later("southern", *FOUR).state
    assert state.match.bankrolls == ()


def test_a_cut_is_shared_in_proportion_with_leftover_chips_to_the_nearest_payee() -> None:
    # Seat 1 owes 100 to each of seats 0, 2, 3 and has 100 chips: 33 each, and the chip left
    # over (equal remainders) goes to the payee nearest after seat 1 in turn order: seat 2.
    payments = [Payment(0, 1, 0, 100), Payment(1, 1, 2, 100), Payment(2, 1, 3, 100)]
    assert cap_losses(
        build_rules("southern"),
        [1000, 100, 1000, 1000],
        payments,
        [0, 1, 2, 3],
        lambda payer, payee: (payee - payer) % 4,
    )
    assert [p.paid for p in payments] == [33, 34, 33]
    assert [p.owed for p in payments] == [100, 100, 100]


def test_the_largest_remainders_take_the_leftover_chips_before_the_tie_rule() -> None:
    # Owed 50, 30, 20 with 7 chips: 3.5, 2.1, 1.4 -> floors 3, 2, 1, one chip left, to the
    # largest remainder (the 50).
    payments = [Payment(0, 2, 0, 50), Payment(1, 2, 1, 30), Payment(2, 2, 3, 20)]
    cap_losses(
        build_rules("southern"),
        [0, 0, 7, 0],
        payments,
        [0, 1, 2, 3],
        lambda payer, payee: (payee - payer) % 4,
    )
    assert [p.paid for p in payments] == [4, 2, 1]


def test_a_cut_payment_can_put_its_payee_over_in_a_later_pass() -> None:
    # Seat 2 owes seat 1 100 (has 40); seat 1 owes seat 0 150 (has 60). Pass 1: seat 1 is not
    # over (150 - 100 <= 60), seat 2 is: 40. Pass 2: seat 1 now is (150 - 40 > 60): 60 + 40.
    payments = [Payment(0, 2, 1, 100), Payment(1, 1, 0, 150)]
    cap_losses(
        build_rules("southern"),
        [1000, 60, 40],
        payments,
        [0, 1, 2],
        lambda payer, payee: (payee - payer) % 3,
    )
    assert [p.paid for p in payments] == [40, 100]


def test_the_table_minimum_refuses_the_deal_naming_the_seat_and_its_shortfall() -> None:
    dem_la = build_rules("dem_la")  # 20 stakes of 100 chips: 2000
    with pytest.raises(SetupError) as info:
        new_game(dem_la, 3, seed=1, bankrolls=[2000, 1999, 5000])
    assert info.value.code == "BANKROLL_TOO_LOW"
    assert info.value.metadata == {"seat": "1", "shortfall": "1"}
    state, _ = new_game(dem_la, 3, seed=1, bankrolls=[2000, 2000, 5000])
    assert state.match.bankrolls == (2000, 2000, 5000)


def test_the_minimum_is_checked_before_every_game() -> None:
    state = four_with([1000, 1000, 1000, 1000], min_bankroll_stakes=9)  # 900 chips
    # Seat 2 lost 200: 800 left, below 900: the next deal is refused until the host removes it.
    with pytest.raises(SetupError) as info:
        next_game(state, seed=1)
    assert info.value.code == "BANKROLL_TOO_LOW"
    assert info.value.metadata == {"seat": "2", "shortfall": "100"}
    nxt, _ = changed(state, (0, 1, 3), seed=1)
    assert nxt.match.bankrolls == (1100, 900, 0, 1200)


def test_next_game_carries_each_bankroll_plus_its_net_and_a_newcomer_brings_its_own() -> None:
    state = four_with([1000, 1000, 1000, 1000])
    nxt, _ = changed(state, (0, 1, 3), Newcomer(2, "new", 700), seed=1)
    assert nxt.match.bankrolls == (1100, 900, 700, 1200)
    with pytest.raises(SetupError) as info:
        changed(state, (0, 1, 3), Newcomer(2, "new"), seed=1)
    assert info.value.code == "BANKROLL_REQUIRED"


def test_next_game_takes_the_hosts_bankrolls_for_every_seat() -> None:
    state = four_with([1000, 1000, 1000, 1000])
    nxt, _ = next_game(state, seed=1, bankrolls=[5, 6, 7, 8])
    assert nxt.match.bankrolls == (5, 6, 7, 8)
    with pytest.raises(SetupError) as info:
        next_game(state, seed=1, bankrolls=[5, 6, 7])
    assert info.value.code == "INVALID_BANKROLL"


@pytest.mark.parametrize(
    ("bankrolls", "field"), [([100, -1, 100], "bankrolls[1]"), ([1, 2], "bankrolls")]
)
def test_a_negative_or_incomplete_bankroll_list_is_refused(
    bankrolls: list[int], field: str
) -> None:
    with pytest.raises(SetupError) as info:
        new_game(build_rules("southern"), 3, seed=1, bankrolls=bankrolls)
    assert info.value.code == "INVALID_BANKROLL"
    assert info.value.field == field


def test_bankrolls_cannot_be_combined_with_a_northern_match_bankroll() -> None:
    with pytest.raises(SetupError) as info:
        new_game(build_rules("northern", {"match_bankroll": 500}), 4, seed=1, bankrolls=[9] * 4)
    assert info.value.code == "BANKROLLS_WITH_MATCH_BANKROLL"


def test_a_dem_la_frozen_loser_is_capped_like_any_other() -> None:
    # Đếm lá ends at the first finish; seats 1 and 2 never played (frozen: doubled card count).
    ruleset = build_rules("dem_la", {"min_bankroll_stakes": 0})
    hands = [sum(1 << c for c in _cards(h)) for h in ("3S", "5D 6D", "7H 8H 9H")]
    state, _ = new_game(
        ruleset, 3, hands=hands, first_game=False, leader=0, bankrolls=[0, 1000, 250]
    )
    table = later("dem_la", "3S", "5D 6D", "7H 8H 9H")
    table.state = state
    table.play(0, "3S")
    assert table.over
    result = settle(table.state)
    frozen = [t for t in result.transfers if t.reason == TransferReason.FROZEN]
    assert [(t.payer, t.amount, t.owed) for t in frozen] == [(1, 400, 0), (2, 250, 600)]
    assert result.net[2] == -250
