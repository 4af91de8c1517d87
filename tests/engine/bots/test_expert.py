"""The expert bot, the levels and the hints: deterministic, within their budget, always legal,
always explained.

No strength figure is asserted here (those are measured by bench/bots.py, docs/BOTS.md).
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from tienlen_rules import Abandoned, build_rules, game, new_game
from tienlen_rules.bots import LEVELS, make_bot, observe, suggest, suggest_move
from tienlen_rules.bots.expert import MAX_PLAYOUT_MOVES, ExpertBot
from tienlen_rules.bots.hints import Reason
from tienlen_rules.bots.novice import NoviceBot
from tienlen_rules.bots.policy import base_play, playout_play, policy_in
from tienlen_rules.bots.solver import Solver
from tienlen_rules.cards import parse_set
from tienlen_rules.state import GameState, pass_turn, play

from .test_bots_play_legally import PRESETS, play_match, players_for

SOUTHERN = build_rules("southern")


def opening(seed: int = 0) -> GameState:
    """The first seeded deal from `seed` on whose opening lead has a choice (3S in a pair, a
    triple or a straight besides 3S alone), so the expert searches."""
    while True:
        state, _ = new_game(SOUTHERN, 4, seed=seed)
        if len(observe(state, state.to_act).plays) >= 3:
            return state
        seed += 1


def dealt(*hands: str, first_game: bool = True, leader: int | None = None) -> GameState:
    state, _ = new_game(
        SOUTHERN, 4, hands=[parse_set(h) for h in hands], first_game=first_game, leader=leader
    )
    return state


class StopAfter:
    """A caller's stop check that says stop from its (n+1)-th call on, counting its calls."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.checks = 0

    def __call__(self) -> bool:
        self.checks += 1
        return self.checks > self.n


def _bits(mask: int) -> list[int]:
    return [i for i in range(52) if mask >> i & 1]


# --------------------------------------------------------------------------- determinism


def test_the_expert_makes_the_same_search_under_the_same_seed() -> None:
    state = opening(3)
    obs = observe(state, state.to_act)
    # The node budget alone bounds the search: the expert keeps no clock of its own.
    first = ExpertBot().search(obs, random.Random(7))
    again = ExpertBot().search(obs, random.Random(7))
    assert first == again
    assert first.nodes > 0  # it did search: the opening lead has several candidates


def test_a_suggestion_is_the_same_for_the_same_request() -> None:
    state = opening(4)
    for level in ("hard", "expert"):
        assert suggest(state, state.to_act, level, seed=11) == suggest(
            state, state.to_act, level, seed=11
        )


# --------------------------------------------------------------------------- budget


def test_a_budget_of_one_playout_move_stops_after_the_first_deal() -> None:
    state = opening(5)
    obs = observe(state, state.to_act)
    search = ExpertBot(budget=1).search(obs, random.Random(1))
    # One sampled deal, every candidate played on it once, then the budget is spent.
    assert [c.samples for c in search.candidates] == [1] * len(search.candidates)
    assert len(search.candidates) > 1
    assert search.chosen == search.base == base_play(obs)  # one sample never overrides


def test_a_bigger_budget_plays_more_deals() -> None:
    state = opening(5)
    obs = observe(state, state.to_act)
    small = ExpertBot(budget=200).search(obs, random.Random(1))
    large = ExpertBot(budget=1500).search(obs, random.Random(1))
    assert small.candidates[0].samples < large.candidates[0].samples
    assert small.nodes < large.nodes


def test_no_decision_passes_its_node_budget_by_more_than_one_deal() -> None:
    # Counted, not timed: over whole games of every decision, a search stops within its
    # budget plus the playouts of the deal in progress (each at most MAX_PLAYOUT_MOVES).
    bot = ExpertBot(budget=400)
    searched = 0
    for seed in (1, 2):
        state = opening(seed)
        rng = random.Random(seed)
        while not state.over:
            obs = observe(state, state.to_act)
            search = bot.search(obs, random.Random(seed))
            assert search.nodes <= bot.budget + len(search.candidates) * MAX_PLAYOUT_MOVES
            searched += search.nodes > 0
            state, _ = game.apply(state, bot.choose(obs, rng))
    assert searched > 10


def test_the_expert_search_stops_at_the_first_check_that_says_stop() -> None:
    state = opening(0)
    stop = StopAfter(5)
    with pytest.raises(Abandoned):
        suggest_move(state, state.to_act, "expert", seed=1, should_stop=stop)
    assert stop.checks == 6  # five playouts, then the check that stopped it


def test_a_crafted_hand_of_1572_plays_stops_at_the_callers_deadline() -> None:
    # Issue #36's position: Đấu without instant wins, seat 0 holding 3S to AS and 6C to JC
    # (1,572 plays to lead). The caller's deadline, seen at its k-th check, ends the search
    # there: each check comes before one playout, so the work after a deadline is one playout.
    rules = build_rules("dau", {"instant_wins": "none"})
    hand = parse_set("3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 6C 7C 8C 9C 10C JC")
    rest = [c for c in range(52) if not hand >> c & 1]
    state, _ = new_game(
        rules,
        3,
        hands=[hand, sum(1 << c for c in rest[::2]), sum(1 << c for c in rest[1::2])],
        first_game=False,
        leader=0,
    )
    obs = observe(state, 0)
    assert len(obs.plays) == 1572
    for deadline in (1, 7):
        stop = StopAfter(deadline)
        with pytest.raises(Abandoned):
            ExpertBot(should_stop=stop).search(obs, random.Random(1))
        assert stop.checks == deadline + 1


# --------------------------------------------------------------------------- endgames


def _greedy_until(state: GameState, done: Callable[[GameState], bool]) -> GameState:
    greedy = make_bot("greedy")
    rng = random.Random(state.match.seed)
    while not state.over and not done(state):
        state, _ = game.apply(state, greedy.choose(observe(state, state.to_act), rng))
    return state


def test_with_one_opponent_left_the_expert_plays_the_solved_move() -> None:
    # Nothing is hidden once a single opponent holds cards (all 52 dealt): the expert plays the
    # one deal there is and its choice is worth what the solver's best move is worth.
    checked = forced = 0
    for seed in range(1, 60):
        state, _ = new_game(SOUTHERN, 4, seed=seed)
        state = _greedy_until(
            state,
            lambda s: (
                sum(1 for p in s.places if not p) == 2 and len(observe(s, s.to_act).plays) > 1
            ),
        )
        if state.over:
            continue
        obs = observe(state, state.to_act)
        search = ExpertBot().search(obs, random.Random(1))
        solver = Solver(budget=100_000)
        best = solver.best(state)
        assert best is not None
        if search.nodes == 0:  # a forced win, played unsearched: as good as the best move
            after = solver.value(game.apply_in_turn(state, search.chosen))
            assert after is not None
            assert after[obs.seat] == best[1][obs.seat]
            forced += 1
            continue
        chosen = dict(zip([c.combo for c in search.candidates], search.candidates, strict=True))
        assert chosen[search.chosen].samples == 1
        assert chosen[search.chosen].mean == best[1][obs.seat]
        checked += 1
        if checked >= 3 and forced >= 1:
            return
    raise AssertionError(f"{checked} two-player endgames searched, {forced} forced")


def test_an_endgame_search_stops_at_the_callers_stop() -> None:
    searched = 0
    for seed in range(1, 30):
        state, _ = new_game(SOUTHERN, 4, seed=seed)
        state = _greedy_until(state, lambda s: sum(h.bit_count() for h in s.hands) <= 8)
        if state.over:
            continue
        obs = observe(state, state.to_act)
        if ExpertBot().search(obs, random.Random(1)).nodes < 100:
            continue  # no search (one candidate, a forced win) or too small a one
        stop = StopAfter(1)
        with pytest.raises(Abandoned):
            ExpertBot(should_stop=stop).search(obs, random.Random(1))
        assert stop.checks == 2
        searched += 1
    assert searched >= 2


# --------------------------------------------------------------------------- legality


@pytest.mark.parametrize("variant", PRESETS)
def test_the_expert_and_the_levels_only_play_legal_moves(variant: str) -> None:
    seats = players_for(variant)
    lineups = [
        ["expert:budget=150", "counting", "novice", "greedy"][:seats],
        ["counting", "expert:budget=150:max_candidates=3", "greedy", "novice"][:seats],
    ]
    for seed, bots in enumerate(lineups):
        for final in play_match(variant, bots, seed=seed, games=2):
            assert final.over


def test_every_level_names_a_bot_that_can_be_built() -> None:
    assert [level.name for level in LEVELS] == ["easy", "medium", "hard", "expert"]
    for level in LEVELS:
        assert make_bot(level.name) == make_bot(level.bot)
        assert level.description


# --------------------------------------------------------------------------- explanations


def test_every_suggestion_in_a_game_is_explained() -> None:
    state = opening(9)
    rng = random.Random(9)
    greedy = make_bot("greedy")
    explained = 0
    while not state.over:
        seat = state.to_act
        for level in ("easy", "medium", "hard"):
            hint = suggest(state, seat, level, seed=explained)
            assert hint is not None
            assert hint.reason in set(Reason)
            assert hint.explanation
            game.validate(state, hint.move)
            explained += 1
        state, _ = game.apply(state, greedy.choose(observe(state, seat), rng))
    assert explained > 30


def test_going_out_is_explained_as_going_out() -> None:
    state = dealt("3S 4D 5C", "6S 7S 9C", "8D 10D JC", "QS KS AC")
    hint = suggest(state, 0, "medium")
    assert hint is not None
    assert hint.reason == Reason.GO_OUT
    assert sum(1 << c for c in hint.move.cards) == parse_set("3S 4D 5C")


def test_a_chop_is_explained_as_a_chop() -> None:
    state = dealt("3S 2H 7D", "5S 5C 5D 5H 8C 6D", "4C 9D JS", "6C 10H QS")
    for seat, move in [(0, "3S"), (1, "8C"), (2, "9D"), (3, "10H"), (0, "2H")]:
        state, _ = game.apply(state, play(seat, tuple(_bits(parse_set(move)))))
    hint = suggest(state, 1, "medium")
    assert hint is not None
    assert hint.reason == Reason.CHOP
    assert sum(1 << c for c in hint.move.cards) == parse_set("5S 5C 5D 5H")
    assert "chops" in hint.explanation


def test_a_pass_that_saves_a_2_is_explained() -> None:
    state = dealt(
        "3C KD QC JD 10C 9H",
        "2S 4C 5D 6H 8S 9C 10D JH",
        "4D 5C 6C 7C 8D 9D",
        "4H 5H 6D 7D 3D 3H",
        first_game=False,
        leader=0,
    )
    state, _ = game.apply(state, play(0, tuple(_bits(parse_set("KD")))))
    hint = suggest(state, 1, "medium")
    assert hint is not None
    assert hint.move == pass_turn(1)
    assert hint.reason == Reason.KEEP_CONTROL
    assert "2S" in hint.explanation


def test_a_searched_suggestion_lists_the_candidates_it_weighed() -> None:
    state = opening(3)
    hint = suggest(state, state.to_act, "expert", seed=2)
    assert hint is not None
    assert len(hint.candidates) > 1
    assert all(c.samples > 0 for c in hint.candidates)
    assert hint.move in {c.move for c in hint.candidates}


def test_the_novice_goes_out_whenever_its_whole_hand_is_one_play() -> None:
    state = dealt("3S 4D 5C", "6S 7S 9C", "8D 10D JC", "QS KS AC")
    obs = observe(state, state.to_act)
    novice = NoviceBot(mistakes=1.0)  # every other decision would be a random move
    for seed in range(20):
        assert novice.choose(obs, random.Random(seed)) == play(
            0, tuple(_bits(parse_set("3S 4D 5C")))
        )


# --------------------------------------------------------------------------- playouts


@pytest.mark.parametrize("variant", PRESETS)
def test_a_playout_move_is_the_move_apply_makes_and_the_memo_the_policys_play(
    variant: str,
) -> None:
    rules = build_rules(variant)
    seats = players_for(variant)
    for seed in range(3):
        state, _ = new_game(rules, seats, seed=seed)
        while not state.over:
            seat = state.to_act
            plays, _ = game.legal_plays(state, seat)
            combo = policy_in(state, seat, plays)
            assert playout_play(state) == combo
            move = pass_turn(seat) if combo is None else play(seat, tuple(_bits(combo.cards)))
            after, _ = game.apply(state, move)
            assert game.apply_in_turn(state, combo) == after
            state = after
