"""The Monte-Carlo bot (*máy mạnh*): determinised Monte-Carlo rollouts of the greedy policy.

The seat does not know the other hands, so each sample first *determinises*: it deals the unseen
cards (not in its hand, not played) at random to the other seats, each getting exactly as many
as it holds, the rest face down (fewer than 4 players). On that deal every candidate move is
made and the game played out with the greedy policy for every seat, and the candidate is scored
by the seat's settled net in stakes (places, chops, *cóng*, *thối* — RULES §8). Every candidate
is played on the same deals (common random numbers), so their differences are measured on
equal terms and few samples suffice; the best mean wins.

This is a rollout improvement of the greedy bot: the candidates are its best few plays
(`max_candidates`) plus the pass, and a candidate is only chosen over the greedy choice when
it does better against greedy play. Budget: about `samples` deals per decision (every deal is
played out once per surviving candidate), or `seconds` of wall time if given (whichever ends
first; a time budget makes the choice depend on the machine's speed). `should_stop`, asked before
every playout, ends the search early with `Abandoned` (its caller no longer wants the move).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from tienlen_rules.bots.base import Observation, decline, to_move, unseen_cards
from tienlen_rules.bots.greedy import greedy_play, lead_order, situation, situation_in
from tienlen_rules.bots.plan import is_precious
from tienlen_rules.cards import CardSet, cards_of
from tienlen_rules.combinations import Combination
from tienlen_rules.errors import Abandoned
from tienlen_rules.game import apply, legal_plays
from tienlen_rules.settlement import settle
from tienlen_rules.state import GameState, Move, pass_turn

MAX_PLAYOUT_MOVES = 1000
"""A safety stop for one playout (a real game takes far fewer moves)."""


def _never() -> bool:
    return False


@dataclass(frozen=True, slots=True)
class MonteCarloBot:
    """Determinised rollouts of the greedy policy over the greedy bot's candidate moves."""

    name: str = "montecarlo"
    samples: int = 12
    max_candidates: int = 4
    seconds: float = 0.0
    should_stop: Callable[[], bool] = field(default=_never, compare=False, repr=False)

    def choose(self, obs: Observation, rng: random.Random) -> Move:
        """The candidate with the best mean net over the sampled deals (successive halving)."""
        candidates = self.candidates(obs)
        if len(candidates) == 1:
            return _move(obs, candidates[0])
        totals = [0.0] * len(candidates)
        alive = list(range(len(candidates)))
        phases = max(1, math.ceil(math.log2(len(candidates))))
        per_phase = max(1, math.ceil(self.samples / phases))
        deadline = time.monotonic() + self.seconds if self.seconds > 0 else math.inf
        for _ in range(phases):
            for _ in range(per_phase):
                deal = determinise(obs, rng)
                for i in alive:
                    if self.should_stop():
                        raise Abandoned("the search was abandoned by its caller")
                    totals[i] += rollout_value(deal, obs, candidates[i])
            # Every survivor was played on the same deals, so totals compare directly.
            alive.sort(key=lambda i: (-totals[i], i))
            alive = alive[: max(1, (len(alive) + 1) // 2)]
            if len(alive) == 1 or time.monotonic() > deadline:
                break
        return _move(obs, candidates[alive[0]])

    def candidates(self, obs: Observation) -> list[Combination | None]:
        """The greedy choice first, the pass when allowed, then the best other plays."""
        found: list[Combination | None] = [greedy_play(situation(obs))]
        if obs.can_pass and None not in found:
            found.append(None)
        for combo in _ordered(obs):
            if len(found) >= self.max_candidates:
                break
            if combo not in found:
                found.append(combo)
        return found


def _ordered(obs: Observation) -> list[Combination]:
    if obs.table is None and obs.in_turn:
        return lead_order(situation(obs))
    return sorted(obs.plays, key=lambda c: (is_precious(c, obs.rules), c.cards.bit_count(), c.top))


def _move(obs: Observation, combo: Combination | None) -> Move:
    return decline(obs) if combo is None else to_move(obs.seat, combo)


def determinise(obs: Observation, rng: random.Random) -> GameState:
    """A full state consistent with what the seat knows: the unseen cards dealt at random to
    the other seats, each getting as many as it holds."""
    unseen = list(cards_of(unseen_cards(obs)))
    rng.shuffle(unseen)
    hands: list[CardSet] = []
    at = 0
    for seat, count in enumerate(obs.hand_counts):
        if seat == obs.seat:
            hands.append(obs.hand)
            continue
        hand = 0
        for card in unseen[at : at + count]:
            hand |= 1 << card
        at += count
        hands.append(hand)
    dealt = tuple(h | p for h, p in zip(hands, obs.played_by, strict=True))
    return obs.public._replace(hands=tuple(hands), dealt=dealt)


def rollout_value(state: GameState, obs: Observation, combo: Combination | None) -> float:
    """Make `combo` (None: pass, or let an out-of-turn chance go) in a determinised state, play
    the game out greedily, and return the seat's net in stakes."""
    if combo is not None:
        state, _ = apply(state, to_move(obs.seat, combo))
    elif obs.in_turn:
        state, _ = apply(state, pass_turn(obs.seat))
    final = play_out(state)
    if not final.over:  # pragma: no cover - the safety stop; a real game ends long before
        return 0.0
    return settle(final).net[obs.seat] / state.rules.stake


def play_out(state: GameState) -> GameState:
    """Finish the game with the greedy policy for every seat (in turn only: out-of-turn chops
    are left out of playouts, for speed)."""
    for _ in range(MAX_PLAYOUT_MOVES):
        if state.to_act < 0:
            return state
        seat = state.to_act
        plays, _ = legal_plays(state, seat)
        combo = greedy_play(situation_in(state, seat, plays))
        move = pass_turn(seat) if combo is None else to_move(seat, combo)
        state, _ = apply(state, move)
    return state
