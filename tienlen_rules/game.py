"""The game (*ván bài*), RULES §4, §5, §7: validate and apply moves, list a seat's legal plays.

`validate` says whether a play or pass is legal (raising `IllegalMove` with a stable reason when
it is not); `apply` returns the next state and the events of the step. Dealing: `starting.py`;
the next game of a match: `matches.py`; the host's reports (time-outs, leaves):
`table_moves.py`; rounds and turns: `rounds.py`; finishing and freezing: `finishing.py`.
"""

from __future__ import annotations

from typing import NamedTuple, NoReturn

from tienlen_rules import movegen
from tienlen_rules.beating import Beat, beat, is_out_of_turn_chop
from tienlen_rules.cards import CardSet, card_name, cards_of
from tienlen_rules.combinations import CONSECUTIVE_PAIRS, Combination, classify
from tienlen_rules.errors import IllegalMove, Reason
from tienlen_rules.events import Event, Played
from tienlen_rules.finishing import finish
from tienlen_rules.rounds import after_play, chain_after_play, record_pass
from tienlen_rules.ruleset import RuleSet
from tienlen_rules.state import EMPTY_SEAT, GameState, Move, pass_turn, play, replaced
from tienlen_rules.timeouts import in_hand

# `Beat` members as module constants: reading an enum member is slow on the move path.
_NO, _BEATS, _CHOPS = Beat


def validate(state: GameState, move: Move) -> Combination | None:
    """The combination a legal play forms, None for a legal pass; IllegalMove otherwise."""
    return _check(state, move).combination


def can_apply(state: GameState, move: Move) -> bool:
    """Whether the move is legal in this state."""
    try:
        _check(state, move)
    except IllegalMove:
        return False
    return True


class _Checked(NamedTuple):
    """A legal move, judged: what it forms (None: a pass), how it meets the table, and
    whether it steals the lead (*cướp cái*)."""

    combination: Combination | None
    result: Beat
    steal: bool = False


def _check(state: GameState, move: Move, *, for_seat: bool = True) -> _Checked:
    """Judge a move (RULES §4-§6); IllegalMove with its reason when the rules refuse it.
    `for_seat=False`: the move is the seat's time-out, which the host plays for a seat whose
    player left (RULES §9.4) as for any other."""
    seat = move.seat
    if state.to_act < 0:
        raise IllegalMove(Reason.GAME_OVER, "the game is over")
    if not 0 <= seat < state.players:
        raise IllegalMove(
            Reason.INVALID_SEAT, f"seat {seat} is not at this table of {state.players}"
        )
    if state.places[seat] or state.departed:
        check_seat_plays(state, seat, for_seat=for_seat)
    if move.is_pass:
        return _Checked(None, _check_pass(state, seat))
    combo = _combination(state, seat, move.cards)
    if seat != state.to_act:
        return _check_out_of_turn(state, seat, combo)
    table = state.table
    if table is None:
        if state.must_include >= 0 and not combo.cards >> state.must_include & 1:
            raise IllegalMove(
                Reason.MUST_INCLUDE_STARTING_CARD,
                f"the first lead must include {card_name(state.must_include)}",
            )
        return _Checked(combo, _BEATS)  # a lead in turn takes the lead, it steals nothing
    result, reason = beat(combo, table, state.rules)
    if reason is not None:
        raise IllegalMove(reason, _beat_message(reason, combo, table))
    return _Checked(combo, result, is_steal(state, seat, combo))


def check_seat_plays(state: GameState, seat: int, *, for_seat: bool = True) -> None:
    """IllegalMove unless the seat may make a move of its own: it is occupied (RULES §9.1), its
    player has not left during the game (§9.4; `for_seat=False`, the host's time-out move, may
    play a seat whose player left) and it still holds cards in play."""
    place = state.places[seat]
    if place == EMPTY_SEAT:
        raise IllegalMove(Reason.SEAT_EMPTY, f"nobody sits in seat {seat} in this game")
    if state.departed >> seat & 1 and (for_seat or state.forfeited >> seat & 1):
        raise IllegalMove(
            Reason.SEAT_LEFT,
            f"seat {seat}'s player left during this game: the host plays its time-outs"
            if not state.forfeited >> seat & 1
            else f"seat {seat}'s player left during this game and forfeited it",
        )
    if place:
        raise IllegalMove(Reason.SEAT_FINISHED, f"seat {seat} has no cards in play")


def _check_pass(state: GameState, seat: int) -> Beat:
    if seat != state.to_act:
        _not_your_turn(state, seat)
    if state.table is None:
        raise IllegalMove(Reason.LEADER_CANNOT_PASS, "the leader of a round must play")
    return _NO


def _combination(state: GameState, seat: int, cards: tuple[int, ...]) -> Combination:
    if not cards:
        raise IllegalMove(Reason.EMPTY_PLAY, "a play needs at least one card; to pass, pass")
    mask = 0
    for card in cards:
        if not 0 <= card < 52:
            raise IllegalMove(Reason.CARD_NOT_IN_HAND, f"{card} is not a card")
        bit = 1 << card
        if mask & bit:
            raise IllegalMove(Reason.DUPLICATE_CARD, f"{card_name(card)} is played twice")
        mask |= bit
    missing = mask & ~state.hands[seat]
    if missing:
        card = (missing & -missing).bit_length() - 1
        raise IllegalMove(
            Reason.CARD_NOT_IN_HAND, f"{card_name(card)} is not in seat {seat}'s hand"
        )
    combo = classify(mask, state.rules)
    if combo is None:
        raise IllegalMove(
            Reason.NOT_A_COMBINATION,
            f"{len(cards)} cards that form no combination under these rules",
        )
    return combo


def _check_out_of_turn(state: GameState, seat: int, combo: Combination) -> _Checked:
    """Out-of-turn plays: a chop by the table's out-of-turn bombs, or stealing the lead."""
    table = state.table
    if is_steal(state, seat, combo):
        # Taking the lead beats nothing; a steal-back is played on a bomb, and is paid as a
        # chop wherever the chop table makes 3 consecutive pairs a bomb (RULES §5).
        return _Checked(
            combo, _BEATS if table is None else beat(combo, table, state.rules)[0], True
        )
    if (
        table is not None
        and seat != state.table_seat
        and is_out_of_turn_chop(combo, table, state.rules)
    ):
        return _Checked(combo, _CHOPS)
    if state.rules.lead_stealing and combo.kind == CONSECUTIVE_PAIRS and combo.length == 3:
        why = (
            "doesn't beat the steal on the table"
            if state.steal_open
            else "is open only from the deal of a game that is not a first game until the"
            " first play that doesn't keep it open"
        )
        raise IllegalMove(Reason.CANNOT_STEAL_LEAD, f"stealing the lead (cướp cái) {why}")
    return _not_your_turn(state, seat)


def is_steal(state: GameState, seat: int, combo: Combination) -> bool:
    """*Cướp cái*: 3 consecutive pairs at the start of a non-first game take the lead; a
    higher 3 consecutive pairs takes it back."""
    if not state.steal_open or combo.kind != CONSECUTIVE_PAIRS or combo.length != 3:
        return False
    table = state.table
    return table is None or (seat != state.table_seat and beat(combo, table, state.rules)[0] != _NO)


def _keeps_steal_open(rules: RuleSet, combo: Combination, steal: bool) -> bool:
    """Whether the lead may still be stolen after this play: after a steal, and after the
    previous winner's own lead of 3 consecutive pairs unless `steal_winner_pairs_lead` is off
    (then only a player who did not win steals, sources 000/002)."""
    if rules.steal_winner_pairs_lead:
        return combo.kind == CONSECUTIVE_PAIRS and combo.length == 3
    return steal


def _not_your_turn(state: GameState, seat: int) -> NoReturn:
    if state.passed >> seat & 1:
        raise IllegalMove(
            Reason.LOCKED_OUT_OF_ROUND,
            f"seat {seat} passed this round and is out until a new round",
        )
    raise IllegalMove(Reason.NOT_YOUR_TURN, f"seat {state.to_act} is to act, not seat {seat}")


def _beat_message(reason: Reason, combo: Combination, table: Combination) -> str:
    if reason == Reason.WRONG_TYPE_OR_LENGTH:
        return f"a {combo.kind.name.lower()} of {combo.length} can't beat a {table.kind.name.lower()} of {table.length}"
    return f"the {combo.kind.name.lower()} topped by {card_name(combo.top)} doesn't beat the table's, topped by {card_name(table.top)}"


def apply(state: GameState, move: Move) -> tuple[GameState, tuple[Event, ...]]:
    """The state after a legal play or pass, and what happened; raises IllegalMove (state
    unchanged). A seat's own move takes it off auto (RULES §9.3). The host's reports (a
    time-out, a leave: `Move.action`) are applied by `table_moves.apply`."""
    combo, result, steal = _check(state, move)
    events: list[Event] = []
    if state.auto or (state.timeouts and state.timeouts[move.seat]):
        state = in_hand(state, move.seat, events)
    if combo is None:
        state = record_pass(state, move.seat, events)
    else:
        state = _play(state, move.seat, combo, events, chop=result is _CHOPS, steal=steal)
    return state, tuple(events)


def check_step(state: GameState, move: Move) -> Combination | None:
    """`validate` for a move `step` would make."""
    return _check(state, move, for_seat=False).combination


def step(state: GameState, move: Move, events: list[Event]) -> GameState:
    """A play or pass made for the seat (its time-out move, RULES §9.3): as `apply`, but the
    seat stays where it is on auto and its time-outs are not reset."""
    combo, result, steal = _check(state, move, for_seat=False)
    if combo is None:
        return record_pass(state, move.seat, events)
    return _play(state, move.seat, combo, events, chop=result is _CHOPS, steal=steal)


def apply_in_turn(state: GameState, combo: Combination | None) -> GameState:
    """The state after the seat to act makes a play from its `legal_plays` (None: a legal
    pass), without `apply`'s validation or its events' tuple: for search playouts, which make
    only moves the move generator gave them. Agrees with `apply` (tested)."""
    seat = state.to_act
    events: list[Event] = []
    if combo is None:
        return record_pass(state, seat, events, evidence=False)
    table = state.table
    if table is None:
        return _play(state, seat, combo, events, chop=False, steal=False)
    chop = beat(combo, table, state.rules)[0] is _CHOPS
    return _play(state, seat, combo, events, chop=chop, steal=is_steal(state, seat, combo))


def _play(
    state: GameState,
    seat: int,
    combo: Combination,
    events: list[Event],
    *,
    chop: bool,
    steal: bool,
) -> GameState:
    """A legal play (RULES §5): the cards leave the hand and take the table; a chop extends
    the round's chop chain and any other play ends it; a player left without cards finishes;
    then the turn moves on."""
    hands = list(state.hands)
    hands[seat] &= ~combo.cards
    events.append(
        Played(
            seat=seat,
            cards=combo.cards,
            kind=combo.kind,
            length=combo.length,
            chop=chop,
            out_of_turn=seat != state.to_act,
            steal=steal,
            cards_left=hands[seat].bit_count(),
        )
    )
    state = chain_after_play(state, seat, combo, hands, events, chop=chop)
    state = _take_table(state, seat, combo, tuple(hands), steal=steal)
    if not hands[seat]:
        state = finish(state, seat, combo, events)
    if state.over:
        return state
    return after_play(state, seat, events)


def _take_table(
    state: GameState, seat: int, combo: Combination, hands: tuple[CardSet, ...], *, steal: bool
) -> GameState:
    """The play is on the table: the seat has played (and is back in the round: with
    `pass_lockout` off, so is everyone), the starting card's duty is done, and the lead may
    still be stolen only after a steal (`_keeps_steal_open`)."""
    rules = state.rules
    passed = state.passed if rules.pass_lockout else 0
    return replaced(
        state,
        hands=hands,
        table=combo,
        table_seat=seat,
        passed=passed & ~(1 << seat),
        unplayed=state.unplayed & ~(1 << seat),
        steal_open=state.steal_open and _keeps_steal_open(rules, combo, steal),
        must_include=-1,
        move_count=state.move_count + 1,
    )


def legal_plays(state: GameState, seat: int) -> tuple[list[Combination], bool]:
    """Every legal play for the seat now (in turn, out-of-turn chops, steals) and whether it
    may pass. Agrees exactly with `validate` (property-tested)."""
    if (
        state.to_act < 0
        or not 0 <= seat < state.players
        or state.places[seat]
        or state.departed >> seat & 1
    ):
        return [], False
    hand, table, rules = state.hands[seat], state.table, state.rules
    if seat == state.to_act:
        if table is None:
            plays = movegen.combination_list(hand, rules)
            if state.must_include >= 0:
                plays = movegen.plays_containing(plays, state.must_include)
            return plays, False
        return movegen.beating_list(hand, table, rules), True
    plays = []
    if table is not None and seat != state.table_seat:
        plays = list(movegen.out_of_turn_chops(hand, table, rules))
    if state.steal_open:
        seen = {c.cards for c in plays}
        steals = movegen.plays_in_group(hand, rules, CONSECUTIVE_PAIRS, 3)
        plays += [c for c in steals if c.cards not in seen and is_steal(state, seat, c)]
    return plays, False


def legal_moves(state: GameState, seat: int) -> list[Move]:
    """Every legal move for the seat now, plays first then the pass if allowed."""
    plays, can_pass = legal_plays(state, seat)
    moves = [play(seat, tuple(cards_of(c.cards))) for c in plays]
    if can_pass:
        moves.append(pass_turn(seat))
    return moves
