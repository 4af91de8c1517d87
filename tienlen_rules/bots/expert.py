"""The expert bot (*máy cao thủ*): a budgeted, determinised search that solves endgames exactly
and only overrides its base policy when the evidence says so.

Each decision:

1. The **base move** is the heuristic policy's (`policy.base_play`: greedy's plan with card
   counting on top). Out of turn (a chop or a steal the seat may make at once), with a single
   candidate, and when the base move goes out or starts a *forced win* (a line of bosses
   nothing unseen can beat or chop, after which the hand runs out: `policy.running_play`),
   that is the answer: no search.
2. The **candidates** are the base move, the pass when allowed, and the next best plays in the
   policy's order, at most `max_candidates`; in an endgame (`solve_cards` cards or fewer left
   in play) every move, up to `ENDGAME_CANDIDATES`.
3. **Determinise and play out**: each sample deals the unseen cards to the other seats (each as
   many as it holds, `montecarlo.determinise`), or, when the possible deals are at most
   `ENUMERATE_DEALS`, takes the next of them all (`deals.enumerated_deals`: the search then ends
   once each was played, an exact mean); on that deal every surviving candidate is made and the
   rest of the game solved exactly in an endgame (`solver.Solver`: every seat's best play to the
   end), otherwise played out by the policy for every seat; the candidate scores the seat's
   settled net in stakes. All candidates share the samples (common random numbers), so their
   differences are paired.
4. **Successive halving**: after each round of `round_samples` samples the worse half of the
   challengers is dropped (the base move always stays, as the reference).
5. **Margin**: a challenger replaces the base move only when its mean paired gain over the
   base is at least `margin` standard errors above zero (and `min_gain` stakes), so noise
   never overrides the policy.

The **budget** is counted, not timed, so a decision is the same under the same seed on any
machine: at most `budget` *nodes* per decision, a node being one playout move or one position
the solver expands (each costs one move generation: bounded by the hand sizes, whatever the
position). It is checked before each sampled deal, and each solve gets only what is left of
it, so a decision passes it by at most one deal's playout moves. The expert keeps no clock of
its own: `should_stop` (the caller's deadline or cancellation, asked before every playout and
every `solver.STOP_EVERY` solver nodes) abandons the search with `Abandoned`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from tienlen_rules.bots.base import Observation, decline, to_move, unseen_cards
from tienlen_rules.bots.deals import deal_count, enumerated_deals
from tienlen_rules.bots.greedy import situation
from tienlen_rules.bots.montecarlo import determinise
from tienlen_rules.bots.policy import RUN_OUT_CARDS, base_play, playout_play, ranked_plays
from tienlen_rules.bots.policy import running_play as boss_line
from tienlen_rules.bots.solver import Solver, final_value
from tienlen_rules.combinations import Combination
from tienlen_rules.errors import Abandoned
from tienlen_rules.game import apply_in_turn
from tienlen_rules.state import GameState, Move

MAX_PLAYOUT_MOVES = 600
"""A safety stop for one playout (a real game takes far fewer moves)."""
ENDGAME_CANDIDATES = 16
"""Candidates weighed in an endgame (every move, up to this many)."""
ENUMERATE_DEALS = 24
"""With this many possible deals of the unseen cards or fewer, each is played once instead of
sampling."""
EXACT_TIE = 1e-9
"""A gain no larger than this, between exact means, is a tie (the base move keeps it)."""


def _never() -> bool:
    return False


class Candidate(NamedTuple):
    """One candidate move after the search: its mean net in stakes and how many samples."""

    combo: Combination | None
    mean: float
    samples: int


class Search(NamedTuple):
    """What a decision found: the chosen play (None: pass), the base policy's play, every
    candidate's estimate (the base first) and the chosen one's paired gain over the base."""

    chosen: Combination | None
    base: Combination | None
    candidates: tuple[Candidate, ...]
    gain: float
    nodes: int


@dataclass(frozen=True, slots=True)
class ExpertBot:
    """Determinised search with exact endgames over the policy's best candidates, with a
    margin over the base move."""

    name: str = "expert"
    budget: int = 3000
    """Nodes per decision (the deterministic budget): playout moves and solver positions."""
    max_candidates: int = 5
    round_samples: int = 8
    margin: float = 1.0
    """Standard errors of paired gain a challenger needs to override the base move."""
    min_gain: float = 0.05
    """Stakes of mean gain a challenger needs too."""
    solve_cards: int = 8
    """With this many cards or fewer left in play, a playout is solved exactly (0: never)."""
    solve_nodes: int = 1500
    """The most nodes one solve may take before the playout goes on by the policy."""
    should_stop: Callable[[], bool] = field(default=_never, compare=False, repr=False)

    def choose(self, obs: Observation, rng: random.Random) -> Move:
        """The searched move."""
        combo = self.search(obs, rng).chosen
        return decline(obs) if combo is None else to_move(obs.seat, combo)

    def search(self, obs: Observation, rng: random.Random) -> Search:
        """Search the position; see the module's docstring."""
        base = base_play(obs)
        unsearched = Search(base, base, (Candidate(base, 0.0, 0),), 0.0, 0)
        if not obs.in_turn or not obs.plays or forced(obs, base):
            return unsearched
        endgame = _live_count(obs) <= self.solve_cards
        candidates = self.candidates(obs, base, endgame=endgame)
        if len(candidates) == 1:
            return unsearched
        n = len(candidates)
        values: list[list[float]] = [[] for _ in range(n)]
        alive = list(range(n))
        solver = Solver(0, self.should_stop)
        deals = self.deals(obs, rng)
        nodes = 0
        exact = False
        while nodes < self.budget:
            for _ in range(self.round_samples):
                deal = next(deals, None)
                if deal is None:
                    exact = True
                    break
                # Every alive candidate is played on the deal, so the samples stay paired; the
                # budget is checked before each deal (it may be passed by one deal's playouts).
                for i in alive:
                    if self.should_stop():
                        raise Abandoned("the search was abandoned by its caller")
                    value, used = self.rollout(
                        deal, obs.seat, candidates[i], solver if endgame else None, nodes
                    )
                    values[i].append(value)
                    nodes += used
                if nodes >= self.budget:
                    break
            else:
                challengers = [i for i in alive if i != 0]
                if len(challengers) > 1:
                    challengers.sort(key=lambda i: -paired_mean(values[i], values[0]))
                    challengers = challengers[: max(1, len(challengers) // 2)]
                alive = [0, *challengers]
                continue
            break
        return self._decide(candidates, values, nodes, exact=exact)

    def deals(self, obs: Observation, rng: random.Random) -> Iterator[GameState]:
        """Every possible deal once, when there are at most `ENUMERATE_DEALS`; else random
        deals without end."""
        if deal_count(obs) <= ENUMERATE_DEALS:
            yield from enumerated_deals(obs)
            return
        while True:
            yield determinise(obs, rng)

    def rollout(
        self,
        state: GameState,
        seat: int,
        combo: Combination | None,
        solver: Solver | None,
        spent: int,
    ) -> tuple[float, int]:
        """Make `combo` (None: pass) for `seat` in a determinised state and, with a `solver`,
        solve the rest exactly; without one (or when the solve runs out of nodes) play the
        game out with the policy for every seat. The seat's net in stakes and the nodes it
        took (`spent` before)."""
        state = apply_in_turn(state, combo)
        used = 1
        if solver is not None and state.to_act >= 0:
            before = solver.nodes
            solver.budget = before + min(self.solve_nodes, self.budget - spent - used)
            solved = solver.value(state)
            used += solver.nodes - before
            if solved is not None:
                return solved[seat], used
        value, moves = self.play_out(state, seat)
        return value, used + moves

    def play_out(self, state: GameState, seat: int) -> tuple[float, int]:
        """Finish the game with the policy for every seat: the seat's net in stakes and the
        moves made."""
        for moves in range(MAX_PLAYOUT_MOVES):
            if state.to_act < 0:
                return final_value(state)[seat], moves
            state = apply_in_turn(state, playout_play(state))
        return 0.0, MAX_PLAYOUT_MOVES  # pragma: no cover - the safety stop; games end first

    def _decide(
        self,
        candidates: list[Combination | None],
        values: list[list[float]],
        nodes: int,
        *,
        exact: bool,
    ) -> Search:
        """The base move unless a challenger passes the margin; after every possible deal was
        played (`exact`), the best mean, whose gain is no estimate."""
        base = candidates[0]
        best, best_gain = 0, 0.0
        for i in range(1, len(candidates)):
            if exact and len(values[i]) == len(values[0]):
                mean = paired_mean(values[i], values[0])
                if mean > max(best_gain, EXACT_TIE):
                    best, best_gain = i, mean
                continue
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

    def candidates(
        self, obs: Observation, base: Combination | None, *, endgame: bool = False
    ) -> list[Combination | None]:
        """The base move first, the pass when allowed, then the policy's next best plays (in
        an endgame, all of them)."""
        found: list[Combination | None] = [base]
        if obs.can_pass and base is not None:
            found.append(None)
        most = ENDGAME_CANDIDATES if endgame else self.max_candidates
        for combo in ranked_plays(obs):
            if len(found) >= most:
                break
            if combo not in found:
                found.append(combo)
        return found


def forced(obs: Observation, base: Combination | None) -> bool:
    """Whether the base move wins without a search: it empties the hand (where going out so
    does not rank last, which the policy already checked), or it starts a line of bosses that
    runs the hand out whatever the others hold (*tới chắc*)."""
    if base is None:
        return False
    if base.cards == obs.hand:
        return True
    if obs.hand.bit_count() > RUN_OUT_CARDS:
        return False
    return boss_line(situation(obs), unseen_cards(obs)) == base


def _live_count(obs: Observation) -> int:
    places = obs.public.places
    return sum(n for seat, n in enumerate(obs.hand_counts) if not places[seat])


def paired_gain(a: list[float], b: list[float]) -> tuple[float, float] | None:
    """The mean paired gain of `a` over `b` on their shared samples and its standard error;
    None with fewer than 2 samples."""
    k = min(len(a), len(b))
    if k < 2:
        return None
    diffs = [a[j] - b[j] for j in range(k)]
    mean = sum(diffs) / k
    var = sum((d - mean) ** 2 for d in diffs) / (k - 1)
    return mean, math.sqrt(var / k)


def paired_mean(a: list[float], b: list[float]) -> float:
    """The mean paired gain of `a` over `b` on their shared samples (0 with none)."""
    k = min(len(a), len(b))
    return sum(a[j] - b[j] for j in range(k)) / k if k else 0.0
