"""Scenario tests of RULES §1-§4 and §9, each named after the rule it proves.

Cards, combinations and comparing (§1, §3), dealing (§2), who leads, rounds, passing, the lead
after the round winner went out (*hưởng sái*), finishing and game end (§4), the last play with a
2 or a bomb under each preset (§4, §6, §10), and chaining games into a match (§9).

Every scenario starts from explicit hands in card notation and drives the public engine API
(`new_game`, `apply`, `validate`, `legal_moves`, `next_game`). The helpers mirror those of
`conftest.py` in this folder, kept local so this file type-checks on its own.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import TypeVar

import pytest

from tienlen_rules import apply, legal_moves, new_game, next_game, validate
from tienlen_rules.cards import (
    CardSet,
    format_cards,
    parse_card,
    parse_cards,
    parse_set,
    to_set,
)
from tienlen_rules.combinations import Kind
from tienlen_rules.errors import IllegalMove, Reason, SetupError
from tienlen_rules.events import (
    ChopSettled,
    Event,
    GameOver,
    InstantWin,
    Played,
    PlayerFinished,
    RoundWon,
)
from tienlen_rules.ruleset import RuleSet, build_rules
from tienlen_rules.settlement import TransferReason, settle
from tienlen_rules.state import GameState, Move, pass_turn
from tienlen_rules.state import play as play_move

E = TypeVar("E")

SOUTHERN = build_rules("southern")
NO_INSTANT_WINS = build_rules("southern", {"instant_wins": "none"})


# --------------------------------------------------------------------------- helpers


def deal(*hands: str) -> list[CardSet]:
    """One card-notation string per seat."""
    return [parse_set(hand) for hand in hands]


def begin(
    *hands: str,
    ruleset: RuleSet = SOUTHERN,
    first_game: bool = False,
    leader: int = 0,
) -> GameState:
    """A game from explicit hands that is really played (the deal is no instant win).

    Not a first game unless asked: seat `leader` then leads with anything.
    """
    state, _ = new_game(
        ruleset,
        len(hands),
        hands=deal(*hands),
        first_game=first_game,
        leader=None if first_game else leader,
    )
    assert not state.over, f"the deal ended the game at once: {state.instant_pattern}"
    return state


def move(text: str) -> Move:
    """``"2: 3S 3C"`` plays, ``"2: -"`` passes."""
    seat, _, cards = text.partition(":")
    cards = cards.strip()
    if cards == "-":
        return pass_turn(int(seat))
    return play_move(int(seat), parse_cards(cards))


def run_events(state: GameState, *steps: str) -> tuple[GameState, list[Event]]:
    """Apply a script of moves, each of which must be legal; the final state and all events."""
    events: list[Event] = []
    for step in steps:
        try:
            state, new = apply(state, move(step))
        except IllegalMove as exc:  # pragma: no cover - a broken scenario says so clearly
            pytest.fail(f"step {step!r} was refused: {exc}")
        events += new
    return state, events


def run(state: GameState, *steps: str) -> GameState:
    return run_events(state, *steps)[0]


def refused(state: GameState, step: str) -> Reason:
    """Why `apply` refuses the move; `validate` must agree and the state must be unchanged."""
    before = copy.deepcopy(state)
    with pytest.raises(IllegalMove) as applied:
        apply(state, move(step))
    with pytest.raises(IllegalMove) as validated:
        validate(state, move(step))
    assert state == before
    assert applied.value.reason == validated.value.reason
    return applied.value.reason


def of_type(events: Iterable[Event], kind: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, kind)]


def last_played(events: Iterable[Event]) -> Played:
    return of_type(events, Played)[-1]


def legal_plays_text(state: GameState, seat: int) -> set[str]:
    """Every play `legal_moves` offers the seat, in card notation."""
    return {format_cards(to_set(m.cards)) for m in legal_moves(state, seat) if not m.is_pass}


DRAGON_TO_DIAMOND_ACE = "3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AD"
DRAGON_TO_HEART_ACE = "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AH"


# --------------------------------------------------------------------------- §1 cards


def test_suit_breaks_a_rank_tie_clubs_ten_beats_spades_ten() -> None:
    # Source 000: "lá ♣10 (mười chuồn) lớn hơn lá ♠10 (mười bích)".
    state = run(begin("10S 3D", "10C 4D"), "0: 10S")
    state, events = run_events(state, "1: 10C")
    assert last_played(events).seat == 1
    reverse = run(begin("10C 3D", "10S 4D"), "0: 10C")
    assert refused(reverse, "1: 10S") == Reason.DOES_NOT_BEAT


def test_the_two_of_hearts_beats_every_other_single_and_nothing_single_beats_it() -> None:
    state = run(begin("2D 3D", "2H 4D", "2C 5D"), "0: 2D", "1: 2H")
    assert refused(state, "2: 2C") == Reason.DOES_NOT_BEAT
    assert legal_plays_text(state, 2) == set()


def test_a_move_may_be_written_with_t_for_ten_and_unicode_suits() -> None:
    state = run(begin("9S 3D", "TD 4D"), "0: 9S")
    after, events = apply(state, move("1: 10♦"))
    assert last_played(events).cards == parse_set("10D")
    assert after == apply(state, move("1: td"))[0]


# --------------------------------------------------------------------------- §3 combinations


def test_a_straight_may_not_hold_a_two_even_at_its_top() -> None:
    hand = "JS QD KC AH 2S 5H"
    state = begin(hand, "3D 4D")
    assert refused(state, "0: QD KC AH 2S") == Reason.NOT_A_COMBINATION
    offered = legal_plays_text(state, 0)
    assert "JS QD KC AH" in offered
    assert not any("2S" in play and len(play.split()) >= 3 for play in offered)


def test_consecutive_pairs_may_not_hold_a_pair_of_twos() -> None:
    state = begin("KS KC AS AC 2S 2C 5H", "3D 4D")
    assert refused(state, "0: KS KC AS AC 2S 2C") == Reason.NOT_A_COMBINATION
    state = begin("QS QC KS KC AS AC 5H", "3D 4D")
    state, events = run_events(state, "0: QS QC KS KC AS AC")
    played = last_played(events)
    assert (played.kind, played.length) == (Kind.CONSECUTIVE_PAIRS, 3)


def test_two_pairs_or_a_full_house_are_no_combination() -> None:
    state = begin("3S 3C 5S 5C 4D 4H 4S", "9D")
    assert refused(state, "0: 3S 3C 5S 5C") == Reason.NOT_A_COMBINATION
    assert refused(state, "0: 3S 3C 4D 4H 4S") == Reason.NOT_A_COMBINATION
    assert refused(state, "0: 3S 3C 4S") == Reason.NOT_A_COMBINATION


def test_three_consecutive_pairs_do_not_beat_an_ordinary_pair() -> None:
    state = run(begin("9S 9C 3H", "4S 4C 5S 5C 6S 6C 7H"), "0: 9S 9C")
    assert refused(state, "1: 4S 4C 5S 5C 6S 6C") == Reason.WRONG_TYPE_OR_LENGTH


def test_a_pair_does_not_beat_three_consecutive_pairs() -> None:
    state = run(begin("4S 4C 5S 5C 6S 6C 3H", "2D 2H KD"), "0: 4S 4C 5S 5C 6S 6C")
    assert refused(state, "1: 2D 2H") == Reason.WRONG_TYPE_OR_LENGTH
    assert legal_plays_text(state, 1) == set()


def test_three_consecutive_pairs_chop_a_single_two_but_not_a_pair_of_twos() -> None:
    three_pairs = "4S 4C 5S 5C 6S 6C"
    single = run(begin("2S 3H", f"{three_pairs} 7H"), "0: 2S")
    _, events = run_events(single, f"1: {three_pairs}")
    assert last_played(events).chop
    pair = run(begin("2S 2C 3H", f"{three_pairs} 7H"), "0: 2S 2C")
    assert refused(pair, f"1: {three_pairs}") == Reason.WRONG_TYPE_OR_LENGTH


def test_three_consecutive_pairs_do_not_chop_an_ace() -> None:
    state = run(begin("AH 3H", "4S 4C 5S 5C 6S 6C 7H"), "0: AH")
    assert refused(state, "1: 4S 4C 5S 5C 6S 6C") == Reason.WRONG_TYPE_OR_LENGTH


def test_consecutive_pairs_of_the_same_ranks_are_decided_by_the_highest_card() -> None:
    low = "5S 5C 6S 6C 7S 7D"  # topped by ♦7
    high = "5D 5H 6D 6H 7C 7H"  # topped by ♥7
    state = run(begin(f"{low} 3S", f"{high} 4S"), f"0: {low}")
    _, events = run_events(state, f"1: {high}")
    assert last_played(events).chop  # a higher bomb on a bomb is a chop (§5)
    reverse = run(begin(f"{high} 3S", f"{low} 4S"), f"0: {high}")
    assert refused(reverse, f"1: {low}") == Reason.DOES_NOT_BEAT


def test_four_consecutive_pairs_are_not_beaten_by_three_higher_pairs() -> None:
    four = "3S 3C 4S 4C 5S 5C 6S 6C"
    state = run(begin(f"{four} 9H", "QS QC KS KC AS AC 10D"), f"0: {four}")
    assert refused(state, "1: QS QC KS KC AS AC") == Reason.WRONG_TYPE_OR_LENGTH


def test_a_pair_is_compared_by_its_highest_card_not_its_lower_one() -> None:
    # ♠9♥9 (low ♠9, top ♥9) beats ♣9♦9 (low ♣9, top ♦9).
    state = run(begin("9C 9D 3S", "9S 9H 4S"), "0: 9C 9D")
    _, events = run_events(state, "1: 9S 9H")
    assert last_played(events).seat == 1
    reverse = run(begin("9S 9H 3S", "9C 9D 4S"), "0: 9S 9H")
    assert refused(reverse, "1: 9C 9D") == Reason.DOES_NOT_BEAT


def test_a_pair_of_twos_is_beaten_by_the_pair_holding_the_higher_two_without_a_chop() -> None:
    state = run(begin("2C 2D 3S", "2S 2H 4S"), "0: 2C 2D")
    _, events = run_events(state, "1: 2S 2H")
    played = last_played(events)
    assert (played.seat, played.chop) == (1, False)


def test_a_triple_of_twos_beats_a_triple_of_aces() -> None:
    state = run(begin("AS AC AD 3S", "2S 2C 2D 4S"), "0: AS AC AD")
    _, events = run_events(state, "1: 2S 2C 2D")
    assert last_played(events).kind == Kind.TRIPLE


def test_the_dragon_is_beaten_only_by_a_higher_dragon() -> None:
    # Instant wins are off so that a dragon can be dealt and played.
    state = begin(
        f"{DRAGON_TO_DIAMOND_ACE} 2S",
        f"{DRAGON_TO_HEART_ACE} 2C",
        "3D 4D 5D 6D 7D 8D 9D 10D JD QD KD 2D",
        ruleset=NO_INSTANT_WINS,
    )
    state, events = run_events(state, f"0: {DRAGON_TO_DIAMOND_ACE}")
    assert (last_played(events).kind, last_played(events).length) == (Kind.STRAIGHT, 12)
    eleven = "4C 5C 6C 7C 8C 9C 10C JC QC KC AH"
    assert refused(state, f"1: {eleven}") == Reason.WRONG_TYPE_OR_LENGTH
    _, events = run_events(state, f"1: {DRAGON_TO_HEART_ACE}")
    assert last_played(events).seat == 1


def test_a_lower_dragon_does_not_beat_a_higher_one() -> None:
    state = begin(
        f"{DRAGON_TO_HEART_ACE} 2S",
        f"{DRAGON_TO_DIAMOND_ACE} 2C",
        ruleset=NO_INSTANT_WINS,
    )
    state = run(state, f"0: {DRAGON_TO_HEART_ACE}")
    assert refused(state, f"1: {DRAGON_TO_DIAMOND_ACE}") == Reason.DOES_NOT_BEAT


# --------------------------------------------------------------------------- §2 dealing


@pytest.mark.parametrize("players", [2, 3])
def test_seeded_small_tables_are_led_by_the_lowest_dealt_card(players: int) -> None:
    """With 2-3 players ♠3 may stay out of play; then the lowest dealt card leads and is due."""
    fallback_seen = False
    for seed in range(40):
        state, _ = new_game(SOUTHERN, players, seed=seed)
        if state.over:  # an instant win on the deal
            continue
        everything = 0
        for hand in state.hands:
            everything |= hand
        lowest = (everything & -everything).bit_length() - 1
        assert state.must_include == lowest
        assert state.hands[state.to_act] >> lowest & 1
        fallback_seen |= lowest != parse_card("3S")
        for m in legal_moves(state, state.to_act):
            assert lowest in m.cards
    assert fallback_seen


def test_redeal_option_keeps_four_twos_from_being_an_instant_win() -> None:
    redeal = build_rules("southern", {"four_twos": "redeal"})
    with pytest.raises(SetupError) as caught:
        new_game(redeal, 2, hands=deal("2S 2C 2D 2H 9S", "3S"), first_game=True)
    assert caught.value.code == "REDEAL_REQUIRED"
    state, events = new_game(SOUTHERN, 2, hands=deal("2S 2C 2D 2H 9S", "3S"), first_game=True)
    assert of_type(events, InstantWin) == [InstantWin(0, "four_twos")]
    assert state.over


# --------------------------------------------------------------------------- §4 who leads


def test_the_lowest_card_fallback_lead_may_be_any_combination_holding_that_card() -> None:
    # Two players, no ♠3 dealt: ♦4 is the lowest dealt card.
    state = begin("4D 4H 5S 6C 9S", "5D 6D 7H", first_game=True)
    assert (state.to_act, state.must_include) == (0, parse_card("4D"))
    assert refused(state, "0: 4H") == Reason.MUST_INCLUDE_STARTING_CARD
    assert refused(state, "0: 4H 5S 6C") == Reason.MUST_INCLUDE_STARTING_CARD
    offered = legal_plays_text(state, 0)
    assert offered == {"4D", "4D 4H", "4D 5S 6C"}
    assert run(state, "0: 4D 5S 6C").table is not None


def test_the_fallback_lowest_card_need_not_be_a_three() -> None:
    state = begin("6S 9H", "5H 8D", "7C 10S", first_game=True)
    assert (state.to_act, state.must_include) == (1, parse_card("5H"))


def test_in_a_first_game_nobody_but_the_spade_three_holder_may_act_first() -> None:
    state = begin("4S 5S", "6D 7D", "3S 9H", "8C 9C", first_game=True)
    assert state.to_act == 2
    assert refused(state, "0: 4S") == Reason.NOT_YOUR_TURN
    assert refused(state, "2: -") == Reason.LEADER_CANNOT_PASS
    assert legal_plays_text(state, 2) == {"3S"}


def test_hue_the_lead_must_hold_the_club_three_even_inside_four_threes() -> None:
    # Source 000 (Huế): "Nếu ván đầu tiên một người có tứ quý 3 ... vẫn phải đánh sao cho ♣3
    # đầu tiên": four 3s are no instant win there, and the lead must contain ♣3.
    hue = build_rules("hue")
    state = begin("3S 3C 3D 3H 9S", "4S 5D", "6H 7H", ruleset=hue, first_game=True)
    assert (state.to_act, state.must_include) == (0, parse_card("3C"))
    assert refused(state, "0: 9S") == Reason.MUST_INCLUDE_STARTING_CARD
    assert refused(state, "0: 3S") == Reason.MUST_INCLUDE_STARTING_CARD
    _, events = run_events(state, "0: 3S 3C 3D 3H")
    assert last_played(events).kind == Kind.FOUR_OF_A_KIND


def test_a_later_game_is_led_by_the_given_winner_even_without_the_spade_three() -> None:
    state = begin("3S 4S", "9D 9H", "5C 6C", first_game=False, leader=1)
    assert (state.to_act, state.must_include) == (1, -1)
    assert refused(state, "0: 3S") == Reason.NOT_YOUR_TURN
    assert run(state, "1: 9D 9H").table_seat == 1


# --------------------------------------------------------------------------- §4 rounds and hưởng sái


def test_after_the_round_winner_goes_out_on_the_lead_the_next_seat_leads() -> None:
    # Everyone has played (nobody is frozen); seat 1 wins a round and leads its last card; nobody
    # beats it, so the next seat holding cards, seat 2, leads (hưởng sái).
    state = begin("3S 9S 10S", "4S QH 5H", "5S 8D", "6S 7D")
    state = run(state, "0: 3S", "1: 4S", "2: 5S", "3: 6S", "0: 9S", "1: QH", "2: -", "3: -")
    state = run(state, "0: -")
    assert (state.to_act, state.table) == (1, None)
    state, events = run_events(state, "1: 5H")
    assert of_type(events, PlayerFinished) == [PlayerFinished(1, 1, False)]
    assert state.to_act == 2  # the others may still beat the last play
    state, events = run_events(state, "2: -", "3: -", "0: -")
    assert of_type(events, RoundWon) == [RoundWon(1, 2)]
    assert (state.to_act, state.table) == (2, None)


def test_huong_sai_passes_the_lead_to_the_next_seat_even_if_it_passed_in_that_round() -> None:
    # Seat 1 passes; seat 0 then goes out on a play nobody beats: seat 1, the next seat holding
    # cards after seat 0, leads the new round although it had passed in the last one.
    state = begin("3S 6S 9S JS", "4S 5H", "5S 8C 10D", "6D 7C")
    state = run(state, "0: 3S", "1: 4S", "2: 5S", "3: 6D", "0: 9S", "1: -", "2: -", "3: -")
    state = run(state, "0: 6S", "1: -", "2: 8C", "3: -", "0: JS")
    assert state.places == (1, 0, 0, 0)
    assert state.to_act == 2  # seats 1 and 3 are locked out of this round
    state, events = run_events(state, "2: -")
    assert of_type(events, RoundWon) == [RoundWon(0, 1)]
    assert (state.to_act, state.table, state.passed) == (1, None, 0)


def test_huong_sai_wraps_round_the_table_from_the_last_seat() -> None:
    state = begin("3S 9D", "4S 9H", "5S 10D", "6S 7S")
    state = run(state, "0: 3S", "1: 4S", "2: 5S", "3: 6S", "0: -", "1: -", "2: -")
    state, events = run_events(state, "3: 7S")  # seat 3 leads its last card and goes out
    assert of_type(events, PlayerFinished) == [PlayerFinished(3, 1, False)]
    state, events = run_events(state, "0: -", "1: -", "2: -")
    assert of_type(events, RoundWon) == [RoundWon(3, 0)]
    assert state.to_act == 0


def test_a_player_who_beats_the_last_play_of_a_finished_player_wins_the_round_himself() -> None:
    state = begin("3S 5S", "4S 9H QD KD", "6S 8S", "7S JD")
    state = run(state, "0: 3S", "1: 4S", "2: 6S", "3: 7S", "0: -", "1: 9H", "2: -", "3: JD")
    assert state.places[3] == 1  # seat 3 went out on ♦J
    assert state.to_act == 1  # seats 0 and 2 passed this round
    state, events = run_events(state, "1: QD")  # nobody is left to answer: seat 1 won the round
    assert of_type(events, RoundWon) == [RoundWon(1, 1)]
    assert (state.to_act, state.table) == (1, None)


def test_after_a_finishing_play_the_turn_skips_seats_locked_out_of_the_round() -> None:
    state = begin("3S 6S 9S", "4S JD", "5S 8S", "7C 10C")
    state = run(state, "0: 3S", "1: 4S", "2: 5S", "3: 7C", "0: 9S", "1: -", "2: -", "3: 10C")
    # seat 3 went out on ♣10; seats 1 and 2 passed this round, so seat 0 is the only one to act
    assert state.places[3] == 1
    assert state.to_act == 0
    assert refused(state, "1: JD") == Reason.LOCKED_OUT_OF_ROUND
    state, events = run_events(state, "0: -")
    assert of_type(events, RoundWon) == [RoundWon(3, 0)]
    assert state.to_act == 0


def test_going_out_on_an_out_of_turn_chop_passes_the_lead_on_from_the_chopper() -> None:
    # Seat 2 passed, then chops seat 1's ♠2 out of turn with its last cards (4 consecutive
    # pairs) and goes out; play goes on from seat 2, and when nobody answers, the lead passes
    # to the next seat after seat 2 that holds cards.
    four_pairs = "7C 7D 8C 8D 9C 9H 10C 10H"
    state = begin("3S 5S 9D", "4S 2S 10D KH", f"6S {four_pairs}", "6C JD QD")
    state = run(state, "0: 3S", "1: 4S", "2: 6S", "3: 6C", "0: 9D", "1: 10D", "2: -", "3: JD")
    state = run(state, "0: -", "1: 2S")
    assert state.to_act == 3
    state, events = run_events(state, f"2: {four_pairs}")
    played = last_played(events)
    assert (played.chop, played.out_of_turn) == (True, True)
    assert of_type(events, PlayerFinished) == [PlayerFinished(2, 1, False)]
    assert state.to_act == 3
    state, events = run_events(state, "3: -", "1: -")
    assert of_type(events, RoundWon) == [RoundWon(2, 3)]
    assert [(e.payer, e.payee, e.amount) for e in of_type(events, ChopSettled)] == [(1, 2, 50)]
    assert state.to_act == 3


# --------------------------------------------------------------------------- §4 game end


def test_a_four_player_game_ends_when_the_third_player_goes_out() -> None:
    state = begin("3S 7S", "4S 8S", "5S 9S", "6S 2H")
    state = run(state, "0: 3S", "1: 4S", "2: 5S", "3: 6S", "0: 7S")
    assert state.places == (1, 0, 0, 0)
    state = run(state, "1: 8S")
    assert state.places == (1, 2, 0, 0)
    assert not state.over
    state, events = run_events(state, "2: 9S")
    assert state.over
    assert state.places == (1, 2, 3, 4)
    assert state.hands[3] == parse_set("2H")  # the last player still holds cards
    assert of_type(events, GameOver) == [GameOver((1, 2, 3, 4))]
    assert legal_moves(state, 3) == []


def test_places_follow_the_order_of_going_out_round_the_table() -> None:
    state = begin("3S 8S JS", "4S 2H", "5S 6S", "7S 9S 10H")
    state = run(state, "0: 3S", "1: 4S", "2: 5S", "3: 7S", "0: 8S", "1: 2H")
    assert state.places == (0, 1, 0, 0)
    state = run(state, "2: -", "3: -", "0: -")  # hưởng sái: seat 2 leads
    state = run(state, "2: 6S", "3: 9S", "0: JS")
    assert state.over
    assert state.places == (3, 1, 2, 4)


def test_a_two_player_game_ends_before_the_other_can_chop_the_last_two() -> None:
    state = run(begin("5D 7D 2H", "6D 9S 9C 9D 9H"), "0: 5D", "1: 6D", "0: 7D", "1: -")
    state, events = run_events(state, "0: 2H")
    assert state.over
    assert state.places == (1, 2)
    assert refused(state, "1: 9S 9C 9D 9H") == Reason.GAME_OVER
    assert not of_type(events, ChopSettled)


def test_going_out_by_chopping_a_two_ends_a_two_player_game_and_the_chop_is_paid() -> None:
    three_pairs = "4S 4C 5S 5C 6S 6C"
    state = begin(f"3S {three_pairs}", "2H 9D 10D")
    state = run(state, "0: 3S", "1: 2H")
    state, events = run_events(state, f"0: {three_pairs}")
    assert state.over
    assert state.places == (1, 2)
    assert [(e.payer, e.payee, e.amount) for e in of_type(events, ChopSettled)] == [(1, 0, 100)]
    result = settle(state)
    assert sorted((t.payer, t.payee, t.amount, t.reason) for t in result.transfers) == [
        (1, 0, 100, TransferReason.CHOP),
        (1, 0, 200, TransferReason.PLACE),
    ]


# --------------------------------------------------------------------------- §4 last play with a 2 or a bomb

LAST_PLAYS = {
    "2H": "2H",
    "2S 2C": "2S 2C",
    "2S 2C 2D": "2S 2C 2D",
    "four 10s": "10S 10C 10D 10H",
    "3 pairs": "JS JC QS QC KS KC",
}


@pytest.mark.parametrize(
    ("variant", "last", "ranked_last"),
    [
        ("southern", "2H", False),
        ("southern", "2S 2C 2D", False),
        ("southern", "four 10s", False),
        ("southern", "3 pairs", False),
        ("hue", "2H", True),
        ("hue", "2S 2C", True),
        ("hue", "2S 2C 2D", True),
        ("hue", "four 10s", False),
        ("hue", "3 pairs", False),
        ("northern", "2H", True),
        ("northern", "2S 2C", True),
        ("northern", "2S 2C 2D", True),
        ("northern", "four 10s", True),
        ("da_nang", "2H", False),
        ("da_nang", "2S 2C", False),
        ("da_nang", "four 10s", False),
        ("dau", "2H", False),
        ("dau", "four 10s", False),
        ("dem_la", "2H", False),
        ("dem_la", "four 10s", False),
    ],
)
def test_last_play_with_a_two_or_a_bomb_under_each_preset(
    variant: str, last: str, ranked_last: bool
) -> None:
    """RULES §4: Southern allows it; Northern and Huế rank a finish on a 2 last (Northern also
    a four of a kind); the other presets inherit the Southern rule (§10)."""
    ruleset = build_rules(variant)
    cards = LAST_PLAYS[last]
    state = begin(f"5D AD {cards}", "6D 3C 4C", "7D 8S 9H", ruleset=ruleset)
    state = run(state, "0: 5D", "1: 6D", "2: 7D", "0: AD", "1: -", "2: -")
    assert (state.to_act, state.table) == (0, None)
    state, events = run_events(state, f"0: {cards}")
    finished = of_type(events, PlayerFinished)
    assert finished == [PlayerFinished(0, 3 if ranked_last else 1, ranked_last)]
    if ranked_last:
        assert not state.over  # the others play on for the places above
        state = run(state, "1: -", "2: -")
        assert state.to_act == 1  # hưởng sái
        state = run(state, "1: 3C", "2: -", "1: 4C")
        assert state.over
        assert state.places == (3, 1, 2)
        assert state.winner == 1


def test_northern_four_players_first_out_on_a_two_is_fourth_and_the_one_left_third() -> None:
    north = build_rules("northern")
    state = begin("5D AD 2H", "6D 3C 4C", "7D 8C", "8D 9C JH", ruleset=north)
    state = run(state, "0: 5D", "1: 6D", "2: 7D", "3: 8D", "0: AD", "1: -", "2: -", "3: -")
    state, events = run_events(state, "0: 2H")
    assert of_type(events, PlayerFinished) == [PlayerFinished(0, 4, True)]
    state, events = run_events(state, "1: -", "2: -", "3: -")
    assert of_type(events, RoundWon) == [RoundWon(0, 1)]  # hưởng sái
    state, events = run_events(state, "1: 3C", "2: 8C")
    assert of_type(events, PlayerFinished) == [PlayerFinished(2, 1, False)]
    state = run(state, "3: 9C", "1: -", "3: JH")
    assert state.over
    assert state.places == (4, 3, 1, 2)


# --------------------------------------------------------------------------- §9 matches


def northern_game_won_by_seat_1_after_seat_0_went_out_on_a_two() -> GameState:
    north = build_rules("northern")
    state = begin("5D AD 2H", "6D 3C 4C", "7D 8S 9H", ruleset=north)
    state = run(state, "0: 5D", "1: 6D", "2: 7D", "0: AD", "1: -", "2: -", "0: 2H")
    state = run(state, "1: -", "2: -", "1: 3C", "2: -", "1: 4C")
    assert state.over
    assert state.places == (3, 1, 2)
    return state


def test_the_next_game_is_led_by_the_first_place_not_by_the_first_to_go_out() -> None:
    state = northern_game_won_by_seat_1_after_seat_0_went_out_on_a_two()
    following, _ = next_game(state, hands=deal("3S 4S", "9D 10D", "5C 6C"))
    assert not following.first_game
    assert (following.to_act, following.must_include) == (1, -1)
    assert run(following, "1: 10D").table_seat == 1


def test_match_totals_carry_each_games_net_from_game_to_game() -> None:
    state = run(begin("3S 5S", "4S 9H", "6S 7S"), "0: 3S", "1: 4S", "2: 6S", "0: -", "1: -")
    state = run(state, "2: 7S", "0: -", "1: 9H")
    assert state.over
    assert state.places == (3, 2, 1)
    assert settle(state).net == (-200, -100, 300)
    assert state.match.game_number == 1
    second, _ = next_game(state, hands=deal("4S 9H", "6S 7S", "3S 5S"))
    assert (second.match.game_number, second.match.totals) == (2, (-200, -100, 300))
    assert (second.to_act, second.first_game) == (2, False)
    second = run(second, "2: 3S", "0: 4S", "1: 6S", "2: -", "0: -", "1: 7S", "2: -", "0: 9H")
    assert second.over
    assert second.places == (2, 1, 3)
    assert settle(second).net == (-100, 300, -200)
    third, _ = next_game(second, hands=deal("3S 9S", "4S 10S", "5S JS"))  # no instant win
    assert (third.match.game_number, third.match.totals) == (3, (-300, 200, 100))
    assert third.to_act == 1


def test_the_game_after_an_instant_win_is_a_first_game_with_its_own_instant_wins() -> None:
    # A four-3s hand is an instant win only in a first game; the game after an instant win is one.
    hands = deal("2S 2C 2D 2H 5S", "6S", "7S")
    won, _ = new_game(SOUTHERN, 3, hands=hands, first_game=False, leader=0)
    assert won.instant_winner == 0
    following, events = next_game(won, hands=deal("9S", "3S 3C 3D 3H 8D", "4S"))
    assert following.first_game
    assert of_type(events, InstantWin) == [InstantWin(1, "four_threes")]
    assert following.match.totals == settle(won).net


def test_the_game_after_an_instant_win_is_led_by_the_spade_three_not_the_instant_winner() -> None:
    hands = deal("2S 2C 2D 2H 5S", "6S", "3S 8D", "7S")
    won, _ = new_game(SOUTHERN, 4, hands=hands, first_game=False, leader=0)
    assert won.instant_winner == 0
    following, _ = next_game(won, hands=deal("9S 9C", "5D 6H", "4S 10D", "3S KH"))
    assert (following.to_act, following.must_include) == (3, parse_card("3S"))
    assert refused(following, "0: 9S 9C") == Reason.NOT_YOUR_TURN
    assert refused(following, "3: KH") == Reason.MUST_INCLUDE_STARTING_CARD


def test_a_game_still_being_played_has_no_next_game() -> None:
    state = begin("3S 4S", "5S 6S")
    with pytest.raises(SetupError) as caught:
        next_game(state)
    assert caught.value.code == "GAME_NOT_OVER"
