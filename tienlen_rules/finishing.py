"""Going out (*về*), places and freezing (*cóng*), RULES §4, §6, §7, §10.

A player who plays their last card takes the next place; going out on a 2 or a four of a kind
ranks you last where the rules say so. At the first win, players who have not played a card are
frozen: they take the last places and stop playing. The game ends when one player is left
holding cards, or at the first finish under card counting (*đếm lá*).

Two readings of *cóng* are options. When it is judged: at the win only (**[ours]**, RULES §10),
or at every finish that is not ranked last (`freeze_at`) — which differs only for players a
Đà Nẵng table spared at the win (`freeze_exempt_unplayed`) — or at every finish until the win,
so that a first player out ranked last (going out on a 2 in Huế) freezes too. What it does to
the game: the frozen stop and the others play on (RULES §7), or the game ends at once because
the frozen pay the whole table (`frozen_pays`, sources 000/001/002).
"""

from __future__ import annotations

from tienlen_rules.cards import TWOS
from tienlen_rules.choices import FinishOnFourOfAKind, FinishOnTwo, FreezeAt, FrozenPays
from tienlen_rules.combinations import FOUR_OF_A_KIND, Combination
from tienlen_rules.events import Event, GameOver, PlayerFinished, PlayersFrozen
from tienlen_rules.rounds import close_open_chain
from tienlen_rules.state import EMPTY_SEAT, GameState, replaced


def ranks_last(state: GameState, combo: Combination) -> bool:
    """Whether going out with this play ranks the player last (*thua chót*)."""
    rules = state.rules
    if rules.finish_on_two == FinishOnTwo.RANKS_LAST and combo.cards & TWOS:
        return True
    return (
        rules.finish_on_four_of_a_kind == FinishOnFourOfAKind.RANKS_LAST
        and combo.kind == FOUR_OF_A_KIND
    )


def finish(state: GameState, seat: int, combo: Combination, events: list[Event]) -> GameState:
    """The seat has gone out: give it its place, judge cóng, end the game if done."""
    free = free_places(state.places)
    won_before = 1 in state.places
    last = ranks_last(state, combo)
    place = free[-1] if last else free[0]
    places = list(state.places)
    places[seat] = place
    events.append(PlayerFinished(seat, place, last))
    state = replaced(state, places=tuple(places))
    rules = state.rules
    if place == 1:
        state = replaced(state, winning_play=combo.cards)
        if rules.ends_at_first_finish:
            state = _rank_by_cards_left(state, seat)
            return end_game(state, events)
    if (
        place == 1
        or (not last and rules.freeze_at == FreezeAt.EVERY_FINISH)
        or (not won_before and rules.freeze_at == FreezeAt.UNTIL_WIN)
    ):
        frozen_before = state.frozen
        state = _freeze(state, seat, events)
        if state.frozen != frozen_before and rules.frozen_pays == FrozenPays.WHOLE_TABLE:
            # The frozen pay every other player (settlement): nothing is left to play for.
            return end_game(_place_the_rest(state), events)
    remaining = [s for s, p in enumerate(state.places) if not p]
    if len(remaining) <= 1:
        if remaining:
            places = list(state.places)
            places[remaining[0]] = free_places(state.places)[0]
            state = replaced(state, places=tuple(places))
        return end_game(state, events)
    return state


def free_places(places: tuple[int, ...]) -> list[int]:
    """The places no seat holds yet, best first (one place per occupied seat)."""
    taken = set(places)
    seated = len(places) - places.count(EMPTY_SEAT)
    return [p for p in range(1, seated + 1) if p not in taken]


def _after(winner: int, players: int) -> list[int]:
    return [(winner + step) % players for step in range(1, players)]


def _freeze(state: GameState, seat: int, events: list[Event]) -> GameState:
    """Cóng, judged as `seat` goes out: every player still in who has not played is frozen (at
    the win, at every finish, or at every finish until the win, by `freeze_at`), unless exactly
    `freeze_exempt_unplayed` of them have not played.

    A finish ranked last before anyone has won (`freeze_at` = until_win) freezes only if the
    game then goes on for 1st place — two players left in play, and the frozen not ending it
    (`frozen_pays` = whole_table) — since "người ăn cóng là người tới nhất" (the winner eats
    the cóng, source 000); else the win judges it. The frozen take the places above the player
    ranked last, in seat order after them (**[ours]**, as after a winner)."""
    rules = state.rules
    if not rules.freezing or rules.ends_at_first_finish:
        return state
    winner = state.winner
    frozen = [
        s
        for s in _after(seat if winner < 0 else winner, state.players)
        if state.unplayed >> s & 1 and not state.places[s]
    ]
    if not frozen or len(frozen) == rules.freeze_exempt_unplayed:
        return state
    left = state.places.count(0) - len(frozen)
    if winner < 0 and (left < 2 or rules.frozen_pays == FrozenPays.WHOLE_TABLE):
        return state
    free = free_places(state.places)[-len(frozen) :]
    places = list(state.places)
    mask = 0
    for frozen_seat, place in zip(frozen, free, strict=True):
        places[frozen_seat] = place
        mask |= 1 << frozen_seat
    events.append(PlayersFrozen(tuple(frozen), tuple(free)))
    return replaced(state, places=tuple(places), frozen=state.frozen | mask)


def _place_the_rest(state: GameState) -> GameState:
    """The players neither out nor frozen take the places left, in seat order after the winner
    (as the frozen take theirs, RULES §7 [ours])."""
    others = [s for s in _after(state.winner, state.players) if not state.places[s]]
    places = list(state.places)
    for seat, place in zip(others, free_places(state.places), strict=True):
        places[seat] = place
    return replaced(state, places=tuple(places))


def _rank_by_cards_left(state: GameState, winner: int) -> GameState:
    """Đếm lá ends at the first finish: the others are placed by cards left, then seat order."""
    others = [s for s in _after(winner, state.players) if not state.places[s]]
    others.sort(key=lambda s: state.hands[s].bit_count())
    places = list(state.places)
    for seat, place in zip(others, free_places(state.places), strict=True):
        places[seat] = place
    return replaced(state, places=tuple(places))


def end_by_forfeit(state: GameState, events: list[Event]) -> GameState:
    """A forfeit left one seat holding cards (RULES §9.4): it takes the best place still open
    and the game ends; if nobody had won, it wins, and cóng is judged now."""
    remaining = [s for s, p in enumerate(state.places) if not p]
    if remaining:
        seat = remaining[0]
        places = list(state.places)
        places[seat] = free_places(state.places)[0]
        state = replaced(state, places=tuple(places))
        if places[seat] == 1:
            state = _freeze(state, seat, events)
    return end_game(state, events)


def end_game(state: GameState, events: list[Event]) -> GameState:
    """Close any open chop chain and mark the game over."""
    payments = close_open_chain(state, events)
    events.append(GameOver(state.places))
    return replaced(state, to_act=-1, chain=(), chop_payments=payments)
