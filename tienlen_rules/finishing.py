"""Going out (*về*), places and freezing (*cóng*), RULES §4, §6, §7, §10.

A player who plays their last card takes the next place; going out on a 2 or a four of a kind
ranks you last where the rules say so. At the first win, players who have not played a card are
frozen: they take the last places and stop playing. The game ends when one player is left
holding cards, or at the first finish under card counting (*đếm lá*).

Who is frozen is decided in one place, `frozen_at_finish`, for every scheme (places, points,
the card count): at which finish (`freeze_at`), with which exemption
(`freeze_exempt_unplayed`). Two readings of *cóng* are options. When it is judged: at the win
only (**[ours]**, RULES §10), or at every finish that is not ranked last (`freeze_at`) — which
differs only for players a Đà Nẵng table spared at the win — or at every finish until the win,
so that a first player out ranked last (going out on a 2 in Huế) freezes too. What it does to
the game: the frozen stop and the others play on (RULES §7), or the game ends at once because
the frozen pay the whole table (`frozen_pays`, sources 000/001/002). Under the card count the
game ends at the win, the one finish that judges it; the frozen are marked as in the other
schemes, and the settlement charges exactly the seats marked.
"""

from __future__ import annotations

from tienlen_rules.cards import TWOS
from tienlen_rules.choices import FinishOnFourOfAKind, FinishOnTwo, FreezeAt, FrozenPays
from tienlen_rules.combinations import FOUR_OF_A_KIND, Combination
from tienlen_rules.events import Event, GameOver, PlayerFinished, PlayersFrozen
from tienlen_rules.revisions import (
    CARD_COUNT_FIRST_OUT_WINS,
    CONG_DECIDED_ONCE,
    keeps_old_reading,
)
from tienlen_rules.rounds import close_open_chain
from tienlen_rules.state import EMPTY_SEAT, GameState, replaced


def ranks_last(state: GameState, combo: Combination) -> bool:
    """Whether going out with this play ranks the player last (*thua chót*). Never under the
    card count, which prices no place: its first player out wins and ends the game (source 004:
    "người đó cũng là người chiến thắng"), unless the game was dealt before rules revision 2."""
    rules = state.rules
    if rules.ends_at_first_finish and not keeps_old_reading(
        rules.revision, CARD_COUNT_FIRST_OUT_WINS
    ):
        return False
    if rules.finish_on_two == FinishOnTwo.RANKS_LAST and combo.cards & TWOS:
        return True
    return (
        rules.finish_on_four_of_a_kind == FinishOnFourOfAKind.RANKS_LAST
        and combo.kind == FOUR_OF_A_KIND
    )


def finish(state: GameState, seat: int, combo: Combination, events: list[Event]) -> GameState:
    """The seat has gone out: give it its place, judge cóng, end the game if done."""
    free = free_places(state.places)
    last = ranks_last(state, combo)
    place = free[-1] if last else free[0]
    places = list(state.places)
    places[seat] = place
    events.append(PlayerFinished(seat, place, last))
    state = replaced(state, places=tuple(places))
    rules = state.rules
    if place == 1:
        state = replaced(state, winning_play=combo.cards)
    frozen = frozen_at_finish(state, seat)
    if frozen:
        state = _freeze(state, frozen, events)
    if place == 1 and rules.ends_at_first_finish:
        # The card count ends at the win: the others are placed by cards left.
        return end_game(_rank_by_cards_left(state, seat), events)
    if frozen and rules.frozen_pays == FrozenPays.WHOLE_TABLE:
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


def frozen_at_finish(state: GameState, seat: int) -> tuple[int, ...]:
    """Cóng (RULES §7, §10): the seats frozen as `seat` goes out — `state` already gives it its
    place —, in seat order after the winner (after `seat` while nobody has won); () if none.

    The one decision of who is frozen, for every scheme (the card count included):

    1. Whether this finish judges cóng: the win (the finish that takes 1st) always, and under
       the card count, which ends there, no other. With `freeze_at` = every_finish, every later
       finish that is not ranked last too; with until_win, every finish before the win, one
       ranked last included — but that one only if the game then goes on for 1st: two players
       left in play besides the frozen, and the frozen not ending it (as they do with
       `frozen_pays` = whole_table), since "người ăn cóng là người tới nhất" (the winner eats
       the cóng, source 000); else the win judges.
    2. Who: every player still in play (no place yet) who has not played a card (`unplayed`:
       a lead, a beat, a chop or a steal is a play; 2s laid down by four 3s are not).
    3. The exemption (`freeze_exempt_unplayed`, Đà Nẵng: "nếu 1 người về nhất nhưng vẫn còn 2
       nhà chưa ra bài thì vẫn đánh tiếp"): at the win, when exactly that many have not played,
       nobody is frozen and they play on (under the card count: they pay as the other losers).
       It is the rule of the win: a later finish that judges cóng, or one ranked last before
       the win, freezes whoever has still not played.

    Off where `freezing` is off. A game dealt before rules revision 2 keeps the old reading
    (`revisions.READING_CHANGES`): the exemption at every finish that judges, none under the
    card count, where the settlement alone charged the frozen."""
    rules = state.rules
    if not rules.freezing:
        return ()
    old = keeps_old_reading(rules.revision, CONG_DECIDED_ONCE)
    places = state.places
    winner = state.winner
    won = winner == seat
    if not won and (rules.ends_at_first_finish or not _judges_later(state, seat)):
        return ()
    if rules.ends_at_first_finish and old:
        return ()
    # A forfeiter that never played (RULES §9.4) is judged with the others, in its own place.
    unplayed = state.unplayed & ~state.frozen
    forfeited = state.forfeited
    frozen = tuple(
        s
        for s in _after(winner if winner >= 0 else seat, state.players)
        if unplayed >> s & 1 and (not places[s] or forfeited >> s & 1)
    )
    if not frozen or (len(frozen) == rules.freeze_exempt_unplayed and (won or old)):
        return ()
    if winner < 0:  # ranked last before the win: only if the game goes on for 1st
        left = places.count(0) - sum(1 for s in frozen if not places[s])
        if left < 2 or rules.frozen_pays == FrozenPays.WHOLE_TABLE:
            return ()
    return frozen


def _judges_later(state: GameState, seat: int) -> bool:
    """Whether a finish that does not take 1st judges cóng (`freeze_at`): after the win, one
    not ranked last (every_finish); before it, one ranked last (until_win)."""
    if state.winner >= 0:
        place = state.places[seat]
        ranked_last = any(p not in state.places for p in range(1, place))
        return state.rules.freeze_at == FreezeAt.EVERY_FINISH and not ranked_last
    return state.rules.freeze_at == FreezeAt.UNTIL_WIN


def free_places(places: tuple[int, ...]) -> list[int]:
    """The places no seat holds yet, best first (one place per occupied seat, RULES §9.1)."""
    taken = set(places)
    seated = len(places) - places.count(EMPTY_SEAT)
    return [p for p in range(1, seated + 1) if p not in taken]


def _after(winner: int, players: int) -> list[int]:
    return [(winner + step) % players for step in range(1, players)]


def _freeze(state: GameState, frozen: tuple[int, ...], events: list[Event]) -> GameState:
    """The frozen seats take the last places still open, in the order given (seat order after
    the winner, or after the player ranked last before anyone won: RULES §7 [ours]), are marked
    and announced (PlayersFrozen); the settlement charges exactly the seats marked. A forfeiter
    keeps the place it took when it left, below every frozen player (RULES §9.4)."""
    placing = [s for s in frozen if not state.places[s]]
    open_places = free_places(state.places)
    free = open_places[len(open_places) - len(placing) :]
    places = list(state.places)
    mask = 0
    for seat, place in zip(placing, free, strict=True):
        places[seat] = place
    for seat in frozen:
        mask |= 1 << seat
    events.append(PlayersFrozen(frozen, tuple(places[s] for s in frozen)))
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
    """Đếm lá ends at the first finish: the others (the frozen placed already) are placed by
    cards left, then seat order."""
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
            frozen = frozen_at_finish(state, seat)
            if frozen:
                state = _freeze(state, frozen, events)
    return end_game(state, events)


def end_game(state: GameState, events: list[Event]) -> GameState:
    """Close any open chop chain and mark the game over."""
    payments = close_open_chain(state, events)
    events.append(GameOver(state.places))
    return replaced(state, to_act=-1, chain=(), chop_payments=payments)
