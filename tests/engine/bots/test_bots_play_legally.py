"""Bots play only legal moves, see only what their seat may see, and follow their heuristics.

Legality is checked by the engine itself: every game below is played through `game.apply`,
which raises `IllegalMove` on anything illegal, and through the simulator's invariant checks.
"""

from __future__ import annotations

import random

import pytest

import tienlen_rules
from tienlen_rules import game
from tienlen_rules.bots import BOTS, make_bot, observe, suggest_move
from tienlen_rules.bots.base import Observation, unseen_cards
from tienlen_rules.bots.greedy import GreedyBot, greedy_play, situation
from tienlen_rules.bots.montecarlo import MonteCarloBot, determinise
from tienlen_rules.bots.plan import plan_cost
from tienlen_rules.cards import format_cards, parse_cards, parse_set
from tienlen_rules.ruleset import build_rules
from tienlen_rules.seat_view import view as game_view
from tienlen_rules.state import GameState, pass_turn, play
from tools.simulate import GameRecord, LocalTable, play_game

PRESETS = ("southern", "northern", "hue", "da_nang", "dau", "dem_la")
SOUTHERN = build_rules("southern")


def players_for(variant: str) -> int:
    return 3 if variant == "dau" else 4


def play_match(variant: str, bots: list[str], seed: int, games: int) -> list[GameState]:
    """Chained games (so later-game rules such as stealing the lead come up), all checked."""
    rules = build_rules(variant)
    players = [make_bot(b) for b in bots]
    rng = random.Random(seed)
    state, _ = tienlen_rules.new_game(rules, len(bots), seed=seed)
    finals = []
    for number in range(games):
        if number:
            state, _ = tienlen_rules.next_game(state)
        state, _ = play_game(state, players, rng, LocalTable(), GameRecord(state))
        finals.append(state)
    return finals


@pytest.mark.parametrize("variant", PRESETS)
@pytest.mark.parametrize("bot", ["random", "greedy"])
def test_a_bot_only_ever_plays_legal_moves(variant: str, bot: str) -> None:
    seats = players_for(variant)
    for seed in range(6):
        bots = [bot if (seat + seed) % 2 == 0 else "random" for seat in range(seats)]
        for final in play_match(variant, bots, seed, games=5):
            assert final.over


@pytest.mark.parametrize("variant", PRESETS)
def test_the_monte_carlo_bot_only_plays_legal_moves(variant: str) -> None:
    seats = players_for(variant)
    bots = ["montecarlo:samples=2:max_candidates=3"] + ["greedy"] * (seats - 1)
    for final in play_match(variant, bots, seed=3, games=1):
        assert final.over


@pytest.mark.parametrize("players", [2, 3])
def test_bots_play_legally_at_small_tables_with_cards_face_down(players: int) -> None:
    bots = ["greedy", "montecarlo:samples=2", "random"][:players]
    for final in play_match("southern", bots, seed=11, games=3):
        assert final.over


def test_the_registry_names_every_bot_and_parses_parameters() -> None:
    assert set(BOTS) == {"random", "novice", "greedy", "counting", "montecarlo", "expert"}
    bot = make_bot("montecarlo:samples=7:seconds=0.5")
    assert isinstance(bot, MonteCarloBot)
    assert (bot.samples, bot.seconds, bot.name) == (7, 0.5, "montecarlo")
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("alphazero")
    with pytest.raises(ValueError, match="montecarlo"):
        make_bot("montecarlo:depth=3")
    with pytest.raises(ValueError, match="key=value"):
        make_bot("montecarlo:samples")


def test_a_suggested_move_is_legal_for_every_bot() -> None:
    state, _ = tienlen_rules.new_game(SOUTHERN, 4, seed=5)
    for name in BOTS:
        move = suggest_move(state, state.to_act, name, seed=1)
        assert move is not None
        game.validate(state, move)
    idle = (state.to_act + 1) % 4
    assert suggest_move(state, idle, "greedy") is None


# --------------------------------------------------------------------------- what a bot sees


def mid_game(seed: int = 2, moves: int = 9) -> GameState:
    state, _ = tienlen_rules.new_game(SOUTHERN, 4, seed=seed)
    rng = random.Random(seed)
    bot = make_bot("random")
    for _ in range(moves):
        state, _ = game.apply(state, bot.choose(observe(state, state.to_act), rng))
    return state


def test_an_observation_hides_every_other_hand() -> None:
    state = mid_game()
    for seat in range(4):
        obs = observe(state, seat)
        assert obs.hand == state.hands[seat]
        assert obs.view() == game_view(state, seat)
        for other in range(4):
            if other != seat:
                assert obs.public.hands[other] == 0
                assert obs.public.dealt[other] == obs.played_by[other]
        assert obs.hand_counts == tuple(h.bit_count() for h in state.hands)


def test_the_unseen_cards_are_exactly_the_other_hands() -> None:
    state = mid_game()
    obs = observe(state, 1)
    others = state.hands[0] | state.hands[2] | state.hands[3]
    assert unseen_cards(obs) == others


def test_a_determinised_deal_fits_what_the_seat_knows() -> None:
    state = mid_game()
    obs = observe(state, 2)
    rng = random.Random(0)
    seen_different = False
    for _ in range(20):
        deal = determinise(obs, rng)
        assert deal.hands[2] == obs.hand
        assert tuple(h.bit_count() for h in deal.hands) == obs.hand_counts
        union = 0
        for hand in deal.hands:
            assert not union & hand
            union |= hand
        assert union == state.hands[0] | state.hands[1] | state.hands[2] | state.hands[3]
        seen_different |= deal.hands != state.hands
        game.legal_plays(deal, deal.to_act)  # a playable state
    assert seen_different


# --------------------------------------------------------------------------- greedy heuristics


def observation(
    *hands: str, leader: int = 0, table: str | None = None, seat: int = 0
) -> Observation:
    """Seat `seat` to act; with `table`, seat `leader` first leads it (the table's cards are
    added to the leader's hand), then the seats in between pass."""
    dealt = [parse_set(h) for h in hands]
    if table is not None:
        dealt[leader] |= parse_set(table)
    state, _ = tienlen_rules.new_game(
        SOUTHERN, len(hands), hands=dealt, first_game=False, leader=leader
    )
    if table is not None:
        state, _ = game.apply(state, play(leader, parse_cards(table)))
        while state.to_act != seat:
            state, _ = game.apply(state, pass_turn(state.to_act))
    return observe(state, seat)


def greedy_text(obs: Observation) -> str:
    combo = greedy_play(situation(obs))
    return "pass" if combo is None else format_cards(combo.cards)


def test_greedy_leads_the_weakest_unit_and_keeps_its_straight_whole() -> None:
    obs = observation("4S 5C 6D 9H 9S QD 2H", "3C 7C 8C KS", "10D JD KH AH")
    assert greedy_text(obs) == "4S 5C 6D"


def test_greedy_goes_out_when_one_play_empties_its_hand() -> None:
    obs = observation("9S 9H", "3S 4S 5S", table="7C 7D", leader=1)
    assert greedy_text(obs) == "9S 9H"


def test_greedy_saves_its_two_early_and_spends_it_late() -> None:
    early = observation(
        "4S 5D 7C 8H 10S JD QC KH 2S", "3S 6H 9C 10C 10H JH QD", table="9D", leader=1
    )
    assert greedy_text(early) == "10S"
    keep = observation(
        "4S 5D 7C 8H 10S JD QC KC 2S", "3S 6H 9C 10C 10H JH QD", table="KH", leader=1
    )
    assert greedy_text(keep) == "pass"
    on_an_ace = observation(
        "4S 5D 7C 8H 10S JD QC KC 2S", "3S 6H 9C 10C 10H JH QD", table="AH", leader=1
    )
    assert greedy_text(on_an_ace) == "2S"
    late = observation("4S 2S", "3S 6H 9C", table="KD", leader=1)
    assert greedy_text(late) == "2S"


def test_greedy_chops_a_two_whenever_it_can() -> None:
    obs = observation("5S 5C 6S 6C 7S 7C 9D", "2D 3H 4H", table="2D", leader=1)
    assert greedy_text(obs) == "5S 5C 6S 6C 7S 7C"


def test_greedy_avoids_leading_a_single_into_an_opponent_on_one_card() -> None:
    obs = observation("3S 8C 8D QH", "AH")
    assert greedy_text(obs) == "8C 8D"
    only_singles = observation("3S 8C JD QH", "AH")
    assert greedy_text(only_singles) == "QH"


def test_greedy_chops_out_of_turn_when_the_rules_allow() -> None:
    hands = [parse_set("2H 3H"), parse_set("KD AD"), parse_set("4S 4C 5S 5C 6S 6C 7S 7C 9D")]
    state, _ = tienlen_rules.new_game(SOUTHERN, 3, hands=hands, first_game=False, leader=0)
    state, _ = game.apply(state, play(0, parse_cards("2H")))
    obs = observe(state, 2)
    assert state.to_act == 1
    assert not obs.in_turn
    assert obs.can_pass  # letting it go
    move = GreedyBot().choose(obs, random.Random(0))
    assert format_cards(sum(1 << c for c in move.cards)) == "4S 4C 5S 5C 6S 6C 7S 7C"
    game.validate(state, move)


def test_a_plan_counts_the_plays_a_hand_still_needs() -> None:
    assert plan_cost(parse_set("3S 4D 5C 6H 7S"), SOUTHERN) == 1
    assert plan_cost(parse_set("3S 3C 4S 4C 5S 5C"), SOUTHERN) == 0  # a bomb is control
    assert plan_cost(parse_set("3S 4C 5D 5H 6S 9S 9H 2H"), SOUTHERN) == 3
    assert plan_cost(parse_set("2S 2H"), SOUTHERN) == 0
    northern = build_rules("northern")
    assert plan_cost(parse_set("3S 4D 5C"), northern) == 3
    assert plan_cost(parse_set("3S 4S 5S"), northern) == 1
