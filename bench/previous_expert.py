"""The previous expert (issue #27's, commit e66b250), kept for measuring: `bench/bots.py --b
previous` plays it. Not part of the engine: the service's `expert` is tienlen_rules/bots/expert.py.
It keeps its own CPU clock (`cpu_cap`) and the research knobs `tilt` and `race`, which the
engine's expert no longer has (issue #39).

A budgeted, determinised search that only overrides its base policy when the evidence says so.

Each decision:

1. The **base move** is the heuristic policy's (`policy.base_play`: greedy's plan with card
   counting on top). Out of turn (a chop or a steal the seat may make at once) and with a
   single candidate, that is the answer: no search.
2. The **candidates** are the base move, the pass when allowed, and the next best plays in the
   policy's order, at most `max_candidates`.
3. **Determinise and play out**: each sample deals the unseen cards to the other seats (each as
   many as it holds, `montecarlo.determinise`); on that deal every surviving candidate is made
   and the game played out by the policy for every seat; the candidate scores the seat's
   settled net in stakes. All candidates share the samples (common random numbers), so their
   differences are paired.
4. **Successive halving**: after each round of `round_samples` samples the worse half of the
   challengers is dropped (the base move always stays, as the reference).
5. **Margin**: a challenger replaces the base move only when its mean paired gain over the
   base is at least `margin` standard errors above zero (and `min_gain` stakes), so noise
   never overrides the policy.

The **budget** is counted, not timed, so a decision is the same under the same seed on any
machine: at most `budget` playout moves (*nodes*) per decision. A CPU-time safety cap
(`cpu_cap` seconds of the calling thread, `time.thread_time`) stops a search that would
overrun anyway (an unusually long position on a slow core); `should_stop` (the caller's
deadline or cancellation) abandons it with `Abandoned`.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tienlen_rules.bots.base import Observation, decline, to_move
from tienlen_rules.bots.expert import Candidate, Search, paired_gain, paired_mean
from tienlen_rules.bots.montecarlo import determinise
from tienlen_rules.bots.policy import base_play, playout_play, ranked_plays
from tienlen_rules.cards import cards_of, to_set
from tienlen_rules.combinations import Combination
from tienlen_rules.errors import Abandoned
from tienlen_rules.game import apply, apply_in_turn
from tienlen_rules.settlement import settle
from tienlen_rules.state import GameState, Move, pass_turn

MAX_PLAYOUT_MOVES = 600
"""A safety stop for one playout (a real game takes far fewer moves)."""


def _never() -> bool:
    return False


@dataclass(frozen=True, slots=True)
class PreviousExpertBot:
    """Determinised search over the policy's best candidates, with a margin over the base."""

    name: str = "previous"
    budget: int = 3000
    """Playout moves per decision (the deterministic budget)."""
    max_candidates: int = 5
    round_samples: int = 8
    margin: float = 1.0
    """Standard errors of paired gain a challenger needs to override the base move."""
    min_gain: float = 0.05
    """Stakes of mean gain a challenger needs too."""
    tilt: float = 0.0
    """How strongly the deals lean toward giving the seats that have played more the higher
    cards (`tilted_deal`; 0: uniform deals)."""
    proposals: int = 60
    """Metropolis swaps per tilted deal."""
    race: float = 0.0
    """When above 0, rounds drop the challengers whose paired gain over the base is more than
    `race` standard errors below zero (racing) instead of the worse half (halving); the search
    ends early once none is left."""
    cpu_cap: float = 0.19
    """Seconds of the thread's CPU after which the search stops with what it has: checked
    after each sampled deal (one deal's playouts, ~10-20 ms), so no decision takes much over
    0.2 s of CPU on any preset or core (issue #27's bound)."""
    should_stop: Callable[[], bool] = field(default=_never, compare=False, repr=False)

    def choose(self, obs: Observation, rng: random.Random) -> Move:
        """The searched move."""
        combo = self.search(obs, rng).chosen
        return decline(obs) if combo is None else to_move(obs.seat, combo)

    def search(self, obs: Observation, rng: random.Random) -> Search:
        """Search the position; see the module's docstring."""
        base = base_play(obs)
        if not obs.in_turn or not obs.plays:
            return Search(base, base, (Candidate(base, 0.0, 0),), 0.0, 0)
        candidates = self.candidates(obs, base)
        if len(candidates) == 1:
            return Search(base, base, (Candidate(base, 0.0, 0),), 0.0, 0)
        n = len(candidates)
        values: list[list[float]] = [[] for _ in range(n)]
        alive = list(range(n))
        nodes = 0
        cap = time.thread_time() + self.cpu_cap
        rounds = 0
        while nodes < self.budget and time.thread_time() < cap:
            for _ in range(self.round_samples):
                deal = (
                    tilted_deal(obs, rng, self.tilt, self.proposals)
                    if self.tilt
                    else determinise(obs, rng)
                )
                # Every alive candidate is played on the deal, so the samples stay paired; the
                # budget is checked before each deal (it may be passed by one deal's playouts).
                for i in alive:
                    if self.should_stop():
                        raise Abandoned("the search was abandoned by its caller")
                    value, used = rollout(deal, obs, candidates[i])
                    values[i].append(value)
                    nodes += used
                if nodes >= self.budget or time.thread_time() >= cap:
                    break
            rounds += 1
            challengers = [i for i in alive if i != 0]
            if not challengers:
                break
            if self.race > 0:
                # Racing: drop only the challengers shown worse than the base move.
                challengers = [
                    i for i in challengers if _upper(values[i], values[0], self.race) >= 0
                ]
                if not challengers:
                    break
            elif len(challengers) > 1:
                challengers.sort(key=lambda i: -paired_mean(values[i], values[0]))
                challengers = challengers[: max(1, len(challengers) // 2)]
            alive = [0, *challengers]
        return self._decide(candidates, values, nodes)

    def _decide(
        self, candidates: list[Combination | None], values: list[list[float]], nodes: int
    ) -> Search:
        base = candidates[0]
        best, best_gain = 0, 0.0
        for i in range(1, len(candidates)):
            paired = paired_gain(values[i], values[0])
            if paired is None:
                continue
            mean, se = paired
            if mean >= self.min_gain and mean >= self.margin * se and mean > best_gain:
                best, best_gain = i, mean
        estimates = tuple(
            Candidate(c, sum(v) / len(v) if v else 0.0, len(v))
            for c, v in zip(candidates, values, strict=True)
        )
        return Search(candidates[best], base, estimates, best_gain, nodes)

    def candidates(self, obs: Observation, base: Combination | None) -> list[Combination | None]:
        """The base move first, the pass when allowed, then the policy's next best plays."""
        found: list[Combination | None] = [base]
        if obs.can_pass and base is not None:
            found.append(None)
        for combo in ranked_plays(obs):
            if len(found) >= self.max_candidates:
                break
            if combo not in found:
                found.append(combo)
        return found


TILT_FROM = 5
"""Cards a seat must have played before its remaining hand is taken as stronger than the rest."""
TILT_SLOPE = 0.015
"""Rank tilt per card played beyond `TILT_FROM` (`tilted_deal`), at `tilt` 1."""


def tilted_deal(obs: Observation, rng: random.Random, tilt: float, proposals: int) -> GameState:
    """`montecarlo.determinise`, then tilted toward how hands are played: a player sheds its
    weakest cards first, so the more a seat has played, the higher what it still holds (in
    `counting` self-play, a seat that has played 12 of 13 cards holds ranks about 1.3 above the
    average of the unseen cards, and 1.5 times its share of the 2s). The deal is a draw from
    P(hands) proportional to the product over each seat's cards of exp(b_s * rank), with
    b_s = tilt * TILT_SLOPE * max(0, played_s - TILT_FROM): Metropolis swaps of one card
    between two other seats, `proposals` of them, from the uniform deal (its stationary law)."""
    deal = determinise(obs, rng)
    weights = [
        tilt * TILT_SLOPE * max(0, obs.played_by[s].bit_count() - TILT_FROM)
        for s in range(len(obs.hand_counts))
    ]
    seats = [s for s in range(len(obs.hand_counts)) if s != obs.seat and obs.hand_counts[s]]
    if len(seats) < 2 or len({weights[s] for s in seats}) < 2:
        return deal
    hands = {s: list(cards_of(deal.hands[s])) for s in seats}
    rand, exp = rng.random, math.exp
    for _ in range(proposals):
        s, t = rng.sample(seats, 2)
        diff = weights[s] - weights[t]
        if not diff:
            continue
        hs, ht = hands[s], hands[t]
        i, j = int(rand() * len(hs)), int(rand() * len(ht))
        # s gives card a, takes card b: log-ratio (b_s - b_t) * (rank b - rank a).
        step = diff * ((ht[j] >> 2) - (hs[i] >> 2))
        if step >= 0 or rand() < exp(step):
            hs[i], ht[j] = ht[j], hs[i]
    new = list(deal.hands)
    for s in seats:
        new[s] = to_set(hands[s])
    return deal._replace(hands=tuple(new))


def _upper(a: list[float], b: list[float], z: float) -> float:
    """The paired mean gain of `a` over `b` plus `z` standard errors (inf with fewer than 2)."""
    paired = paired_gain(a, b)
    if paired is None:
        return math.inf
    mean, se = paired
    return mean + z * se


def rollout(state: GameState, obs: Observation, combo: Combination | None) -> tuple[float, int]:
    """Make `combo` (None: pass) in a determinised state, play the game out with the policy
    for every seat; the seat's net in stakes and the moves it took."""
    if combo is not None:
        state, _ = apply(state, to_move(obs.seat, combo))
    else:
        state, _ = apply(state, pass_turn(obs.seat))
    start = state.move_count
    final = play_out(state)
    used = final.move_count - start + 1
    if not final.over:  # pragma: no cover - the safety stop; a real game ends long before
        return 0.0, used
    return settle(final).net[obs.seat] / state.rules.stake, used


def play_out(state: GameState) -> GameState:
    """Finish the game with the policy for every seat (in turn only: out-of-turn chops are left
    out of playouts, for speed)."""
    for _ in range(MAX_PLAYOUT_MOVES):
        if state.to_act < 0:
            return state
        state = apply_in_turn(state, playout_play(state))
    return state
