"""Forfeits (RULES §9.4, `leave_mid_game` = forfeit): a seat that stops playing at once.

The forfeiter never acts again; its cards stay in its hand and its plays stay on the table (chops
of them and by them are paid as §5 says: the cards it holds are not its "last cards"). It takes
the lowest place still open (several forfeits: the first to leave is the very last). For who
leads, a forfeit counts as going out: the lead passes to the next seat still holding cards; in a
first game where the forfeiter held the starting card and had not led, the lead is that of
`missing_starting_card` over the cards still in play. When one seat is left holding cards, the
game ends. How a forfeiter freezes and pays: `finishing` and `settlement`.
"""

from __future__ import annotations

from tienlen_rules.choices import MissingStartingCard
from tienlen_rules.deal import RandBelow, seeded_randbelow
from tienlen_rules.events import Event, PlayerLeft, TurnPassed
from tienlen_rules.finishing import end_by_forfeit, free_places
from tienlen_rules.rounds import active_seats, new_round, next_seat
from tienlen_rules.state import GameState, replaced


def forfeit(state: GameState, seat: int, events: list[Event]) -> GameState:
    """The seat (still holding cards in play) forfeits the game: placed, out, turn moved on."""
    place = free_places(state.places)[-1]
    places = list(state.places)
    places[seat] = place
    bit = 1 << seat
    events.append(PlayerLeft(seat, forfeit=True, place=place))
    state = replaced(
        state,
        places=tuple(places),
        departed=state.departed | bit,
        forfeited=state.forfeited | bit,
        passed=state.passed & ~bit,
        move_count=state.move_count + 1,
    )
    active = active_seats(state)
    if active & (active - 1) == 0:  # one seat (or none) still holds cards: the game ends
        return end_by_forfeit(state, events)
    if state.to_act != seat:
        return state
    if state.table is None:
        return _lead_after(state, seat, active, events)
    candidates = active & ~state.passed & ~(1 << state.table_seat)
    if not candidates:
        return new_round(state, events)
    to_act = next_seat(seat, candidates, state.players)
    events.append(TurnPassed(to_act))
    return replaced(state, to_act=to_act)


def _lead_after(state: GameState, seat: int, active: int, events: list[Event]) -> GameState:
    """The forfeiter was to lead: the next seat holding cards leads, or, when the lead had to
    contain the starting card the forfeiter holds, the lead `missing_starting_card` gives over
    the cards still in play."""
    must = state.must_include
    if must < 0 or not state.hands[seat] >> must & 1:
        leader = next_seat(seat, active, state.players)
        events.append(TurnPassed(leader))
        return replaced(state, to_act=leader)
    rule = state.rules.missing_starting_card
    in_play = 0
    for s in range(state.players):
        if active >> s & 1:
            in_play |= state.hands[s]
    if rule == MissingStartingCard.RANDOM:
        seats = [s for s in range(state.players) if active >> s & 1]
        leader = seats[_draw(state)(len(seats))]
        must = -1
    else:
        must = (in_play & -in_play).bit_length() - 1
        leader = next(
            s for s in range(state.players) if state.hands[s] >> must & 1 and active >> s & 1
        )
        if rule == MissingStartingCard.LOWEST_CARD_FREE:
            must = -1
    events.append(TurnPassed(leader))
    return replaced(state, to_act=leader, must_include=must)


def _draw(state: GameState) -> RandBelow:
    """A fair draw fixed by the game's deal (which no player knows whole), so a record of the
    game replays it."""
    seed = 0
    for index, hand in enumerate(state.dealt):
        seed |= hand << (52 * index)
    return seeded_randbelow(seed, state.match.game_number)
