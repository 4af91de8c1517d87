"""Rounds (*vòng bài*) and turns, RULES §4-§5: who acts next, when a round ends, chop chains.

A round ends when every other player still in it has passed since the last play; the last
player leads the next round, or, if they have gone out, the next seat still holding cards
(*hưởng sái*). Chops in one round form a chain (*chặt chồng*); when it ends, the last chopped
player pays the last chopper for every chopped play of the chain — an earlier link its player
went out with included (**[ours]**) or, with `chop_chain_out_link` = void, left unpaid.

Like every step of a move (`game`, `finishing`), each function here appends the events it
causes to the caller's `events` list and returns the new state (or, for `close_chain`, the
payments); only `game.apply`, `new_game` and `next_game` turn the list into the step's tuple.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache

from tienlen_rules.cards import CardSet
from tienlen_rules.choices import ChopChainOutLink, ChopOnLastCard
from tienlen_rules.combinations import ChopClass, Combination, chop_class, classify
from tienlen_rules.events import ChopSettled, Event, Passed, RoundWon, TurnPassed
from tienlen_rules.movegen import has_beat
from tienlen_rules.ruleset import RuleSet
from tienlen_rules.state import ChopPayment, GameState, replaced


def active_seats(state: GameState) -> int:
    """Bitmask of seats still holding cards and taking turns."""
    return _unplaced(state.places)


@lru_cache(maxsize=4096)
def _unplaced(places: tuple[int, ...]) -> int:
    # Looked up: a game has a handful of `places` tuples, and this runs at every move.
    mask = 0
    for seat, place in enumerate(places):
        if not place:
            mask |= 1 << seat
    return mask


def next_seat(after: int, candidates: int, players: int) -> int:
    """The first seat after `after`, in turn order, that is in the `candidates` bitmask."""
    for step in range(1, players + 1):
        seat = (after + step) % players
        if candidates >> seat & 1:
            return seat
    return -1


def after_play(state: GameState, seat: int, events: list[Event]) -> GameState:
    """Turn order after a play: the next seat still in the round, or a new round."""
    active = active_seats(state)
    candidates = active & ~state.passed & ~(1 << seat)
    if not candidates:
        return new_round(state, events)
    to_act = next_seat(seat, candidates, state.players)
    events.append(TurnPassed(to_act))
    return replaced(state, to_act=to_act)


def record_pass(
    state: GameState, seat: int, events: list[Event], *, evidence: bool = True
) -> GameState:
    """A pass (*bỏ lượt*): the seat is out of the round (*qua tay*) until the next one.
    `evidence=False` (search playouts, which read no events) looks for a beat the passer held
    only while it can still make the passer liable to compensate."""
    compensation_seat, held = (
        _examine_pass(state, seat)
        if evidence or _liability_open(state)
        else (state.compensation_seat, None)
    )
    events.append(Passed(seat, held))
    passed = state.passed | (1 << seat)
    move_count = state.move_count + 1
    candidates = active_seats(state) & ~passed & ~(1 << state.table_seat)
    if not candidates:
        state = replaced(
            state, passed=passed, compensation_seat=compensation_seat, move_count=move_count
        )
        return new_round(state, events)
    to_act = next_seat(seat, candidates, state.players)
    events.append(TurnPassed(to_act))
    return replaced(
        state,
        passed=passed,
        compensation_seat=compensation_seat,
        move_count=move_count,
        to_act=to_act,
    )


def _liability_open(state: GameState) -> bool:
    """Whether a pass now may still make its passer liable (`_examine_pass`): the rule is on,
    nobody is liable yet, and only the table's player has played this game."""
    everyone = state.seated
    return (
        state.rules.compensation
        and state.compensation_seat < 0
        and state.unplayed | (1 << state.table_seat) == everyone
    )


def _examine_pass(state: GameState, seat: int) -> tuple[int, bool | None]:
    """*Đền bài* evidence: at every pass, whether the passer held a legal beat (None when the
    compensation rule is off), and the seat liable to compensate, if any.

    Compensation only applies when every opponent of the winner ends frozen, that is, when only
    the winner ever played; so liability is examined only while one player alone has played:
    the first passer who could beat when no other opponent could is liable.
    """
    rules = state.rules
    if not rules.compensation:
        return state.compensation_seat, None
    table = state.table
    assert table is not None
    held = has_beat(state.hands[seat], table, rules)
    if (
        not held
        or state.compensation_seat >= 0
        or state.unplayed | (1 << state.table_seat) != state.seated
    ):
        return state.compensation_seat, held
    others = state.unplayed & ~(1 << seat)
    alone = not any(
        has_beat(state.hands[o], table, rules)
        for o in range(state.players)
        if others >> o & 1 and not state.places[o]
    )
    return (seat if alone else -1), True


def new_round(state: GameState, events: list[Event]) -> GameState:
    """Everyone else passed: the last player (or the next seat with cards) leads a new round."""
    last = state.table_seat
    active = active_seats(state)
    leader = last if active >> last & 1 else next_seat(last, active, state.players)
    payments = close_open_chain(state, events)
    events += [RoundWon(last, leader), TurnPassed(leader)]
    return replaced(
        state,
        to_act=leader,
        table=None,
        table_seat=-1,
        passed=0,
        chain=(),
        chain_victim_out=False,
        chop_payments=payments,
        steal_open=False,
    )


def extend_chain(
    chain: tuple[tuple[int, CardSet], ...],
    table_seat: int,
    table_cards: CardSet,
    seat: int,
    cards: CardSet,
) -> tuple[tuple[int, CardSet], ...]:
    """Add a chop to the round's chain; a new chain starts with the chopped play."""
    if not chain:
        chain = ((table_seat, table_cards),)
    return (*chain, (seat, cards))


#: The chop classes of 2s: a single 2, a pair and a triple of 2s, valued by suit.
_TWOS = frozenset({ChopClass.TWO, ChopClass.PAIR_OF_TWOS, ChopClass.TRIPLE_OF_TWOS})


def link_value(rules: RuleSet, cards: CardSet) -> Fraction:
    """The penalty value of a chopped play: its 2s by suit, or the bomb's value."""
    combo = classify(cards, rules)
    if combo is None:  # pragma: no cover - chain links were classified when played
        return Fraction(0)
    chopped = chop_class(combo)
    if chopped is None:  # pragma: no cover - a chopped play always has a chop class
        return Fraction(0)
    if chopped in _TWOS:
        return rules.twos_penalty(cards)
    return rules.bomb_values.get(chopped, Fraction(0))


def close_chain(
    rules: RuleSet,
    chain: tuple[tuple[int, CardSet], ...],
    victim_out: bool,
    payments: tuple[ChopPayment, ...],
    events: list[Event],
    hands: tuple[CardSet, ...],
) -> tuple[ChopPayment, ...]:
    """The chain ended: the last chopped pays the last chopper the whole chain (RULES §5, §8).

    If the last chopped play was its player's last cards: nobody pays (Southern), the chopper
    is paid by nobody (Huế, `chopper_only`), or it is paid as usual (`paid`). An earlier link
    its player went out with is paid with the rest (**[ours]**: only the last link decides), or
    is worth nothing (`chop_chain_out_link` = void). `hands` are the hands as the chain ends.
    """
    payer, payee = chain[-2][0], chain[-1][0]
    chopped = 0
    value = Fraction(0)
    for index, (_, cards) in enumerate(chain[:-1]):
        chopped |= cards
        if index < len(chain) - 2 and _went_out_with(chain, index, hands, rules):
            continue
        value += link_value(rules, cards)
    amount = rules.amount(value)
    if victim_out and rules.chop_on_last_card == ChopOnLastCard.VOID:
        events.append(ChopSettled(-1, payee, 0, chopped, len(chain) - 1, victim_out))  # nobody pays
        return payments
    if victim_out and rules.chop_on_last_card == ChopOnLastCard.CHOPPER_ONLY:
        payer = -1
    events.append(ChopSettled(payer, payee, amount, chopped, len(chain) - 1, victim_out))
    return (*payments, ChopPayment(payer, payee, amount, chopped))


def _went_out_with(
    chain: tuple[tuple[int, CardSet], ...], index: int, hands: tuple[CardSet, ...], rules: RuleSet
) -> bool:
    """Whether the chain's link `index` is void under `chop_chain_out_link`: its player went out
    with it — their hand is empty now and they made no later link (every play after a link, up
    to the chain's end, is a link of it)."""
    seat = chain[index][0]
    return (
        rules.chop_chain_out_link == ChopChainOutLink.VOID
        and not hands[seat]
        and all(later != seat for later, _ in chain[index + 1 :])
    )


def chain_after_play(
    state: GameState,
    seat: int,
    combo: Combination,
    hands: Sequence[CardSet],
    events: list[Event],
    *,
    chop: bool,
) -> GameState:
    """The round's chop chain (*chặt chồng*) after a play: a chop adds a link (its victim out
    if the chopped play was their last cards); any other play ends an open chain, which is
    paid at once, on the hands before this play (it is no link)."""
    if chop:
        table = state.table
        assert table is not None
        return replaced(
            state,
            chain=extend_chain(state.chain, state.table_seat, table.cards, seat, combo.cards),
            chain_victim_out=hands[state.table_seat] == 0,
        )
    if not state.chain:
        return state
    payments = close_chain(
        state.rules, state.chain, state.chain_victim_out, state.chop_payments, events, state.hands
    )
    return replaced(state, chain=(), chop_payments=payments)


def close_open_chain(state: GameState, events: list[Event]) -> tuple[ChopPayment, ...]:
    """The chop payments once the round's chain, if one is open, has ended (round or game over)."""
    if not state.chain:
        return state.chop_payments
    return close_chain(
        state.rules, state.chain, state.chain_victim_out, state.chop_payments, events, state.hands
    )
