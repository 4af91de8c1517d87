"""Hints (*gợi ý*): a bot's move for a seat, with a reason a player can read.

`suggest` asks a bot (or a difficulty level, `levels.LEVELS`) for a seat's move and explains it:
a stable reason code for a frontend to translate and an English sentence, plus, when the bot
searched (`expert`), its estimate for each candidate it weighed (mean net in stakes over the
sampled deals). The reason describes the chosen move against the seat's hand and the table;
it decides nothing.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from enum import StrEnum
from typing import NamedTuple

from tienlen_rules.beating import Beat, beat
from tienlen_rules.bots.base import (
    Observation,
    checkpoint,
    observe,
    to_move,
    unseen_cards,
    watched,
)
from tienlen_rules.bots.expert import ExpertBot, Search
from tienlen_rules.bots.greedy import situation
from tienlen_rules.bots.plan import is_precious, plan_cost
from tienlen_rules.bots.policy import RUN_OUT_CARDS, running_play
from tienlen_rules.cards import TWOS, format_cards
from tienlen_rules.combinations import Combination, Kind
from tienlen_rules.movegen import has_beat
from tienlen_rules.state import GameState, Move, pass_turn


class Reason(StrEnum):
    """Why a move was suggested (stable codes: part of the SuggestMove contract)."""

    GO_OUT = "GO_OUT"
    RUN_OUT = "RUN_OUT"
    CHOP = "CHOP"
    STEAL_LEAD = "STEAL_LEAD"
    LET_GO = "LET_GO"
    BLOCK_LAST_CARD = "BLOCK_LAST_CARD"
    SHED_LOW = "SHED_LOW"
    BEAT_CHEAPLY = "BEAT_CHEAPLY"
    SPEND_CONTROL = "SPEND_CONTROL"
    KEEP_CONTROL = "KEEP_CONTROL"
    KEEP_COMBINATIONS = "KEEP_COMBINATIONS"
    CANNOT_BEAT = "CANNOT_BEAT"
    SEARCHED = "SEARCHED"


class CandidateValue(NamedTuple):
    """A move the search weighed: its mean net in stakes over `samples` sampled deals."""

    move: Move
    value: float
    samples: int


class Suggestion(NamedTuple):
    """A bot's move with its explanation."""

    move: Move
    reason: Reason
    explanation: str
    candidates: tuple[CandidateValue, ...]


def suggest(
    state: GameState,
    seat: int,
    bot: str = "greedy",
    *,
    seed: int | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Suggestion | None:
    """The move `bot` (a bot spec or a level name) suggests for `seat`, explained; None when the
    seat has nothing to do. `should_stop` as in `suggest_move`."""
    obs = observe(state, seat)
    if not obs.plays and not (obs.in_turn and obs.can_pass):
        return None
    from tienlen_rules.bots import make_bot  # the registry imports this module's callers

    chosen = watched(make_bot(bot), should_stop)
    checkpoint(should_stop)
    rng = random.Random(seed)  # noqa: S311 - a game move, not a secret
    search: Search | None = None
    if isinstance(chosen, ExpertBot):
        search = chosen.search(obs, rng)
        move = _move(obs, search.chosen)
    else:
        move = chosen.choose(obs, rng)
    if move.is_pass and not obs.in_turn:
        return None
    checkpoint(should_stop)
    reason, text = explain(obs, move, search)
    values: tuple[CandidateValue, ...] = ()
    if search is not None and search.nodes:
        values = tuple(
            CandidateValue(_move(obs, c.combo), round(c.mean, 3), c.samples)
            for c in search.candidates
            if c.samples
        )
    return Suggestion(move, reason, text, values)


def _move(obs: Observation, combo: Combination | None) -> Move:
    return pass_turn(obs.seat) if combo is None else to_move(obs.seat, combo)


def _cards(mask: int) -> str:
    return format_cards(mask)


def explain(obs: Observation, move: Move, search: Search | None = None) -> tuple[Reason, str]:
    """The reason code and sentence for `move` in the seat's position."""
    rules, hand, table = obs.rules, obs.hand, obs.table
    cards = sum(1 << c for c in move.cards)
    combo = next((c for c in obs.plays if c.cards == cards), None) if cards else None
    if search is not None and search.chosen != search.base and search.gain > 0:
        what = "passing" if combo is None else _cards(cards)
        return Reason.SEARCHED, (
            f"{what} did best in the deals the bot tried: about {search.gain:+.2f} stakes"
            " over its first choice"
        )
    if combo is None:
        return _explain_pass(obs)
    if cards == hand:
        return Reason.GO_OUT, f"{_cards(cards)} plays your last cards"
    if table is not None and beat(combo, table, rules)[0] == Beat.CHOPS:
        return Reason.CHOP, f"{_cards(cards)} chops {_cards(table.cards)}: chops are paid"
    if not obs.in_turn:
        return Reason.STEAL_LEAD, f"{_cards(cards)} takes the lead out of turn"
    # Only where the policy looks for a line (RUN_OUT_CARDS): each boss tried asks the next
    # ones, which on a long hand is a tree of thousands of plays.
    if (
        hand.bit_count() <= RUN_OUT_CARDS
        and running_play(situation(obs), unseen_cards(obs)) == combo
    ):
        return Reason.RUN_OUT, (
            f"nobody can beat {_cards(cards)}, and what is left then plays out your hand"
        )
    sit = situation(obs)
    if sit.danger == 1 and (table is None or table.kind == Kind.SINGLE):
        return Reason.BLOCK_LAST_CARD, (
            f"an opponent has one card left: {_cards(cards)} gives them no easy single"
        )
    if is_precious(combo, rules):
        return Reason.SPEND_CONTROL, (
            f"{_cards(cards)} spends a 2 or a bomb now: the hand is short or an opponent is close"
            " to going out"
        )
    keeps = _keeps(obs, combo)
    if table is None:
        return Reason.SHED_LOW, f"{_cards(cards)} sheds your weakest cards{keeps}"
    return Reason.BEAT_CHEAPLY, f"{_cards(cards)} beats it cheaply, breaking no combination{keeps}"


def _keeps(obs: Observation, combo: Combination) -> str:
    control = obs.hand & ~combo.cards & TWOS
    if control:
        return f" and keeps your {_cards(control)} for later (a 2 wins a round or draws a chop)"
    return ""


def _explain_pass(obs: Observation) -> tuple[Reason, str]:
    table = obs.table
    if not obs.in_turn:
        return Reason.LET_GO, "let it go"
    if not obs.plays or table is None:
        return Reason.CANNOT_BEAT, "nothing in your hand beats it"
    rules, hand = obs.rules, obs.hand
    plain = [c for c in obs.plays if not is_precious(c, rules)]
    if not plain:
        control = hand & TWOS
        what = _cards(control) if control else "your bombs"
        return Reason.KEEP_CONTROL, f"only {what} would beat it: keep them for a better moment"
    before = plan_cost(hand, rules)
    if all(plan_cost(hand & ~c.cards, rules) > before for c in plain):
        return Reason.KEEP_COMBINATIONS, (
            "beating it would break up your combinations: let it go and lead later"
        )
    if not has_beat(hand & ~TWOS, table, rules):
        return Reason.KEEP_CONTROL, "only a 2 would beat it: keep it for a better moment"
    return Reason.KEEP_COMBINATIONS, "passing keeps your hand in better shape"
