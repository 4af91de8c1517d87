"""Chops (*chặt*), RULES §5, Southern chop table: which bomb (*hàng*) chops what.

| bomb                 | chops                                                              |
| 3 consecutive pairs  | a single 2; smaller 3 consecutive pairs                            |
| four of a kind       | a single 2; a pair of 2s; any 3 consecutive pairs; a smaller four  |
| 4 consecutive pairs  | a single 2; a pair of 2s; any 3 consecutive pairs; any four;       |
|                      | smaller 4 consecutive pairs — also out of turn (see test_play.py)  |

Each case is played through the engine: seat 0 puts the target on the table, seat 1 answers.
What chops are paid is settled in test_settlement.py; here we check the chop is a chop (the
`Played` event says so, and the chain is opened) or that it is refused, and why.
"""

from __future__ import annotations

import pytest
from helpers.moves import SOUTHERN, of_type, play_events, refusal, rules, run, run_events, start

from tienlen_rules import legal_moves
from tienlen_rules.cards import format_cards, parse_set
from tienlen_rules.errors import Reason
from tienlen_rules.events import ChopSettled, Played
from tienlen_rules.ruleset import RuleSet

TWO_S, TWO_H = "2S", "2H"
PAIR_OF_TWOS = "2S 2D"
LOW_THREE_PAIRS = "3S 3C 4S 4C 5S 5C"
HIGH_THREE_PAIRS = "QS QC KS KC AS AC"
LOW_FOUR = "6S 6C 6D 6H"
HIGH_FOUR = "JS JC JD JH"
LOW_FOUR_PAIRS = "7S 7C 8S 8C 9S 9C 10S 10C"
HIGH_FOUR_PAIRS = "7D 7H 8D 8H 9D 9H 10D 10H"


def spare(*used: str) -> list[str]:
    """Two cards in neither play, so that nobody goes out with the target or the answer."""
    taken = 0
    for text in used:
        taken |= parse_set(text)
    free = [c for c in range(52) if not taken >> c & 1]
    return [format_cards(1 << free[0]), format_cards(1 << free[1])]


def target_on_table(target: str, answer: str, ruleset: RuleSet = SOUTHERN):
    """Seat 0 has put `target` on the table; seat 1, holding `answer`, is to act."""
    a, b = spare(target, answer)
    state = start(f"{target} {a}", f"{answer} {b}", ruleset=ruleset)
    return run(state, f"0: {target}")


def answer(target: str, bomb: str, ruleset: RuleSet = SOUTHERN) -> Played:
    """Seat 1 plays `bomb` on `target`; the `Played` event of that move."""
    state = target_on_table(target, bomb, ruleset)
    state, events = play_events(state, 1, bomb)
    assert state.table is not None
    assert state.table.cards == parse_set(bomb)
    return of_type(events, Played)[0]


CHOPS = [
    # 3 consecutive pairs
    (TWO_S, LOW_THREE_PAIRS),
    (TWO_H, HIGH_THREE_PAIRS),
    (LOW_THREE_PAIRS, "6S 6C 7S 7C 8S 8C"),
    (LOW_THREE_PAIRS, "3D 3H 4D 4H 5D 5H"),  # same ranks, higher top card (♥5)
    # four of a kind
    (TWO_H, LOW_FOUR),
    (PAIR_OF_TWOS, LOW_FOUR),
    ("2D 2H", "3S 3C 3D 3H"),
    (HIGH_THREE_PAIRS, "3S 3C 3D 3H"),  # any 3 consecutive pairs, even of higher ranks
    (LOW_FOUR, HIGH_FOUR),
    # 4 consecutive pairs
    (TWO_H, LOW_FOUR_PAIRS),
    (PAIR_OF_TWOS, LOW_FOUR_PAIRS),
    (HIGH_THREE_PAIRS, LOW_FOUR_PAIRS),  # any 3 consecutive pairs
    ("AS AC AD AH", LOW_FOUR_PAIRS),  # any four of a kind
    (LOW_FOUR_PAIRS, HIGH_FOUR_PAIRS),
    (LOW_FOUR_PAIRS, "8D 8H 9D 9H 10D 10H JS JC"),
]


@pytest.mark.parametrize(("target", "bomb"), CHOPS)
def test_southern_chop_table_bomb_chops_target(target: str, bomb: str) -> None:
    played = answer(target, bomb)
    assert played.chop
    assert not played.out_of_turn


def test_three_consecutive_pairs_chop_a_single_two() -> None:
    assert answer("2C", "9S 9C 10D 10H JS JC").chop


def test_four_of_a_kind_chops_a_pair_of_twos() -> None:
    assert answer("2C 2H", "5S 5C 5D 5H").chop


def test_four_consecutive_pairs_chop_a_four_of_a_kind() -> None:
    assert answer("KS KC KD KH", "3S 3C 4S 4C 5S 5C 6S 6C").chop


NOT_CHOPS = [
    # 3 consecutive pairs chop only a single 2 and smaller 3 consecutive pairs
    (PAIR_OF_TWOS, LOW_THREE_PAIRS, Reason.WRONG_TYPE_OR_LENGTH),
    (LOW_FOUR, HIGH_THREE_PAIRS, Reason.WRONG_TYPE_OR_LENGTH),
    (LOW_FOUR_PAIRS, HIGH_THREE_PAIRS, Reason.WRONG_TYPE_OR_LENGTH),
    ("6S 6C 7S 7C 8S 8C", LOW_THREE_PAIRS, Reason.DOES_NOT_BEAT),
    ("3D 3H 4D 4H 5D 5H", LOW_THREE_PAIRS, Reason.DOES_NOT_BEAT),
    # four of a kind doesn't chop a higher four, nor 4 consecutive pairs
    (HIGH_FOUR, LOW_FOUR, Reason.DOES_NOT_BEAT),
    (LOW_FOUR_PAIRS, HIGH_FOUR, Reason.WRONG_TYPE_OR_LENGTH),
    # 4 consecutive pairs don't chop higher 4 consecutive pairs
    (HIGH_FOUR_PAIRS, LOW_FOUR_PAIRS, Reason.DOES_NOT_BEAT),
    # bombs chop 2s, not the highest card below the 2
    ("AH", LOW_FOUR, Reason.WRONG_TYPE_OR_LENGTH),
    ("AD AH", LOW_FOUR_PAIRS, Reason.WRONG_TYPE_OR_LENGTH),
]


@pytest.mark.parametrize(("target", "bomb", "reason"), NOT_CHOPS)
def test_southern_chop_table_bomb_does_not_chop_target(
    target: str, bomb: str, reason: Reason
) -> None:
    state = target_on_table(target, bomb)
    assert refusal(state, f"1: {bomb}") == reason


@pytest.mark.parametrize("bomb", [LOW_THREE_PAIRS, LOW_FOUR, LOW_FOUR_PAIRS])
def test_a_triple_of_twos_cannot_be_chopped(bomb: str) -> None:
    state = target_on_table("2S 2C 2D", bomb)
    assert refusal(state, f"1: {bomb}") == Reason.WRONG_TYPE_OR_LENGTH


def test_four_twos_cannot_be_chopped() -> None:
    """Four 2s are an instant win when dealt, so this needs the instant wins off."""
    no_instant_wins = rules(instant_wins="none")
    state = target_on_table("2S 2C 2D 2H", LOW_FOUR_PAIRS, no_instant_wins)
    assert refusal(state, f"1: {LOW_FOUR_PAIRS}") == Reason.WRONG_TYPE_OR_LENGTH


def test_legal_moves_offer_no_chop_of_four_twos_in_turn_or_out_of_turn() -> None:
    no_instant_wins = rules(instant_wins="none")
    state = start(
        "2S 2C 2D 2H 3S",
        f"{LOW_FOUR_PAIRS} 9H",
        "3D 3H 4D 4H 5D 5H 6D 6H QH",
        ruleset=no_instant_wins,
    )
    state = run(state, "0: 2S 2C 2D 2H")
    assert [m.is_pass for m in legal_moves(state, 1)] == [True]
    assert legal_moves(state, 2) == []


def test_a_bomb_on_a_led_bomb_is_a_paid_chop() -> None:
    """The bomb below need not have been a chop itself: a led 3 consecutive pairs is chopped."""
    state = start(f"{LOW_THREE_PAIRS} 9H", f"{LOW_FOUR} 10H")
    state, events = run_events(state, f"0: {LOW_THREE_PAIRS}", f"1: {LOW_FOUR}", "0: -")
    assert of_type(events, Played)[1].chop
    assert of_type(events, ChopSettled) == [ChopSettled(0, 1, 150, parse_set(LOW_THREE_PAIRS), 1)]


def test_a_higher_bomb_of_the_same_type_is_a_paid_chop() -> None:
    state = start(f"{LOW_THREE_PAIRS} 9H", "6S 6C 7S 7C 8S 8C 10H")
    state, events = run_events(state, f"0: {LOW_THREE_PAIRS}", "1: 6S 6C 7S 7C 8S 8C", "0: -")
    assert of_type(events, Played)[1].chop
    assert [(e.payer, e.payee, e.amount) for e in of_type(events, ChopSettled)] == [(0, 1, 150)]


def test_a_two_on_a_two_is_no_chop() -> None:
    played = answer("2S", "2H")
    assert not played.chop


def test_a_chop_is_settled_only_when_its_chain_ends() -> None:
    """While the round goes on, the chop can still be chopped: nothing is paid yet."""
    state = start("2S 9H 9D", f"{LOW_THREE_PAIRS} 10H", f"{LOW_FOUR} JH")
    state, events = run_events(state, "0: 2S", f"1: {LOW_THREE_PAIRS}")
    assert not of_type(events, ChopSettled)
    assert state.chop_payments == ()
    assert [seat for seat, _ in state.chain] == [0, 1]
    state, events = run_events(state, "2: -", "0: -")
    assert [(e.payer, e.payee, e.amount) for e in of_type(events, ChopSettled)] == [(0, 1, 50)]
    assert state.chain == ()


def test_the_chopped_player_may_chop_back() -> None:
    state = start(f"2S {LOW_FOUR} 9H", f"{LOW_THREE_PAIRS} {HIGH_FOUR} 10H")
    state, events = run_events(
        state, "0: 2S", f"1: {LOW_THREE_PAIRS}", f"0: {LOW_FOUR}", f"1: {HIGH_FOUR}", "0: -"
    )
    assert all(p.chop for p in of_type(events, Played)[1:])
    # the last chopped (seat 0, its four) pays the whole chain: ½ + 1½ + 2 stakes
    assert [(e.payer, e.payee, e.amount, e.links) for e in of_type(events, ChopSettled)] == [
        (0, 1, 400, 3)
    ]
