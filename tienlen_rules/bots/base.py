"""What a bot (*máy*) sees and how it answers: one seat's observation in, one move out.

A bot decides from an `Observation`: its own hand, the other seats' card counts, the table, the
cards each seat has played, and its legal plays. It never sees another seat's hand: `observe`
builds the observation from the full state and empties every hidden hand in the public copy
of the state it hands over (which a Monte-Carlo bot fills with sampled cards to play out).

Out of turn, a seat may hold a chop it can play at once (*chặt không cần vòng*, RULES §5) or
3 consecutive pairs that steal the lead (*cướp cái*, RULES §7); the observation then lists
those plays and a pass means "let it go".
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from typing import NamedTuple, Protocol

from tienlen_rules.cards import CardSet, cards_of
from tienlen_rules.combinations import Combination
from tienlen_rules.errors import Abandoned
from tienlen_rules.game import legal_plays
from tienlen_rules.ruleset import RuleSet
from tienlen_rules.seat_view import SeatView, view
from tienlen_rules.state import GameState, Move, pass_turn, play

_new = tuple.__new__
_HANDS = GameState._fields.index("hands")
_DEALT = GameState._fields.index("dealt")
_COMPENSATION = GameState._fields.index("compensation_seat")


class Observation(NamedTuple):
    """One seat's knowledge when it must decide.

    `hand` is its own cards and `hand_counts` every seat's card count. `plays` are its legal
    plays now: every legal play in turn, the out-of-turn chops and steals otherwise.
    `can_pass` says whether passing is legal in turn; out of turn a pass declines and is always
    allowed. `public` is the state with every other seat's hand (and dealt cards) emptied and
    nothing a seat can't know left in it (the table, who passed, places, the chop chain...);
    `played_by[s]` is every card seat `s` has played this game.
    """

    seat: int
    hand: CardSet
    hand_counts: tuple[int, ...]
    plays: tuple[Combination, ...]
    can_pass: bool
    in_turn: bool
    public: GameState
    played_by: tuple[CardSet, ...]

    @property
    def rules(self) -> RuleSet:
        """The rules of the game."""
        return self.public.rules

    @property
    def table(self) -> Combination | None:
        """The play to beat (None while leading)."""
        return self.public.table

    def view(self) -> SeatView:
        """The seat's view, as `rules.view.view` gives it to a frontend."""
        played = 0
        for cards in self.played_by:
            played |= cards
        state = self.public._replace(
            hands=tuple(self.hand if s == self.seat else 0 for s in range(len(self.hand_counts)))
        )
        return view(state, self.seat)._replace(hand_counts=self.hand_counts, played=played)


class Bot(Protocol):
    """A strategy: given what its seat may see, choose a move (a play from `obs.plays`, or a
    pass when `obs.can_pass`)."""

    @property
    def name(self) -> str:
        """The bot's registry name."""
        ...

    def choose(self, obs: Observation, rng: random.Random) -> Move:
        """The move to make."""
        ...


def observe(
    state: GameState, seat: int, plays: list[Combination] | None = None, can_pass: bool = False
) -> Observation:
    """What `seat` may know now. `plays`/`can_pass` default to `game.legal_plays`."""
    if plays is None:
        plays, can_pass = legal_plays(state, seat)
    in_turn = seat == state.to_act
    hands, dealt = state.hands, state.dealt
    played_by = tuple([d & ~h for d, h in zip(dealt, hands, strict=True)])
    own = hands[seat]
    fields = list(state)  # faster than NamedTuple._replace, which this hot path would pay per move
    fields[_HANDS] = tuple([own if s == seat else 0 for s in range(len(hands))])
    fields[_DEALT] = tuple([dealt[s] if s == seat else played_by[s] for s in range(len(hands))])
    fields[_COMPENSATION] = -1  # who alone could have beaten is not public
    public = _new(GameState, fields)
    counts = tuple([h.bit_count() for h in hands])
    return Observation(
        seat, own, counts, tuple(plays), can_pass or not in_turn, in_turn, public, played_by
    )


def to_move(seat: int, combo: Combination) -> Move:
    """The move that plays this combination."""
    return play(seat, tuple(cards_of(combo.cards)))


def decline(obs: Observation) -> Move:
    """Pass in turn, or let an out-of-turn chance go."""
    return pass_turn(obs.seat)


def unseen_cards(obs: Observation) -> CardSet:
    """Cards the seat has not seen: in other hands or face down (fewer than 4 players)."""
    played = 0
    for cards in obs.played_by:
        played |= cards
    return ((1 << 52) - 1) & ~obs.hand & ~played


def watched(bot: Bot, should_stop: Callable[[], bool] | None) -> Bot:
    """`bot` asking `should_stop` as it works: a search (a bot with a `should_stop` field)
    asks it before every playout; every other bot answers in a bounded number of legal-move
    generations, and its caller asks between them (`checkpoint`)."""
    if should_stop is None or not dataclasses.is_dataclass(bot):
        return bot
    if any(f.name == "should_stop" for f in dataclasses.fields(bot)):
        return dataclasses.replace(bot, should_stop=should_stop)
    return bot


def checkpoint(should_stop: Callable[[], bool] | None) -> None:
    """Raise `Abandoned` once `should_stop` says the caller no longer wants the move: asked
    between a suggestion's steps (observing, choosing, explaining), whatever the bot."""
    if should_stop is not None and should_stop():
        raise Abandoned("the suggestion was abandoned by its caller")
