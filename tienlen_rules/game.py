"""The game (*ván bài*), RULES §2, §4, §5, §7: deal, validate and apply moves, chain games.

`new_game` deals and settles instant wins; `validate` says whether a move is legal (raising
`IllegalMove` with a stable reason when it is not); `apply` returns the next state and the events
of the step. Rounds and turns: `rounds.py`; finishing and freezing: `finishing.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, NoReturn

from tienlen_rules import movegen
from tienlen_rules.beating import Beat, beat, is_out_of_turn_chop
from tienlen_rules.cards import CardSet, card_name, cards_of
from tienlen_rules.choices import (
    DealerRotation,
    FirstGameLeader,
    InstantWinTie,
    MissingStartingCard,
)
from tienlen_rules.combinations import CONSECUTIVE_PAIRS, Combination, classify
from tienlen_rules.deal import (
    MAX_REDEALS,
    RandBelow,
    check_explicit_deal,
    deal,
    seeded_randbelow,
    system_randbelow,
)
from tienlen_rules.errors import IllegalMove, Reason, SetupError
from tienlen_rules.events import Event, GameStarted, Played
from tienlen_rules.finishing import finish
from tienlen_rules.instant_wins import declare_instant_win, instant_winners
from tienlen_rules.rounds import after_play, chain_after_play, record_pass
from tienlen_rules.ruleset import RuleSet
from tienlen_rules.settlement import settle
from tienlen_rules.state import GameState, Match, Move, pass_turn, play, replaced

# `Beat` members as module constants: reading an enum member is slow on the move path.
_NO, _BEATS, _CHOPS = Beat

MIN_PLAYERS = 2
MAX_PLAYERS = 4


def new_game(
    rules: RuleSet,
    players: int,
    *,
    seed: int | None = None,
    hands: Sequence[CardSet] | None = None,
    first_game: bool = True,
    leader: int | None = None,
    dealer: int = 0,
    match: Match | None = None,
    random_deal: bool = False,
) -> tuple[GameState, tuple[Event, ...]]:
    """Deal a game: random (CSPRNG), seeded (reproducible) or explicit `hands`. A match with a
    seed deals from it unless `random_deal` asks for a random deal of this game."""
    _check_table(rules, players, dealer, leader, first_game=first_game)
    if match is None:
        match = Match(1, (0,) * players, -1 if seed is None else seed, dealer)
    elif seed is not None:
        match = match._replace(seed=seed)
    seeded = match.seed >= 0 and not random_deal
    randbelow = seeded_randbelow(match.seed, match.game_number) if seeded else system_randbelow()
    for _ in range(MAX_REDEALS):
        dealt = (
            check_explicit_deal(rules, players, hands)
            if hands is not None
            else deal(rules, players, randbelow, dealer)
        )
        lead, must_include = _first_leader(rules, dealt, first_game, leader, randbelow)
        winners = instant_winners(rules, dealt, lead, dealer, first_game=first_game)
        if len(winners) < 2 or rules.instant_win_tie == InstantWinTie.SEAT_ORDER:
            break
        if hands is not None:
            raise SetupError(
                "REDEAL_REQUIRED", "several hands win instantly and these rules redeal", "hands"
            )
    else:  # pragma: no cover - a tie in 1000 deals in a row
        raise SetupError("REDEAL_LIMIT", "no playable deal was found", "deal")
    state = GameState(
        rules=rules,
        hands=dealt,
        dealt=dealt,
        to_act=lead,
        must_include=must_include,
        table=None,
        table_seat=-1,
        passed=0,
        chain=(),
        chain_victim_out=False,
        places=(0,) * players,
        frozen=0,
        unplayed=(1 << players) - 1,
        chop_payments=(),
        first_game=first_game,
        steal_open=rules.lead_stealing and not first_game,
        instant_winner=-1,
        instant_pattern="",
        compensation_seat=-1,
        winning_play=0,
        move_count=0,
        match=match,
    )
    sizes = tuple(hand.bit_count() for hand in dealt)
    events: list[Event] = [
        GameStarted(match.game_number, lead, must_include, first_game, dealer, sizes)
    ]
    return declare_instant_win(state, winners, events), tuple(events)


def _check_table(
    rules: RuleSet, players: int, dealer: int, leader: int | None, *, first_game: bool
) -> None:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise SetupError("INVALID_PLAYER_COUNT", f"{players} players: 2 to 4 play", "players")
    if rules.deal_all_cards and players != 3:
        raise SetupError(
            "INVALID_PLAYER_COUNT",
            f"variant {rules.variant!r} deals all 52 cards to exactly 3 players, not {players}",
            "players",
        )
    if not 0 <= dealer < players:
        raise SetupError("INVALID_SEAT", f"dealer {dealer} is not a seat of {players}", "dealer")
    if leader is not None and not 0 <= leader < players:
        raise SetupError("INVALID_SEAT", f"leader {leader} is not a seat of {players}", "leader")
    if leader is None and not first_game and not rules.starting_card_every_game:
        raise SetupError(
            "LEADER_REQUIRED",
            "a game that is not a first game needs the leader (the previous winner)",
            "leader",
        )


def _first_leader(
    rules: RuleSet,
    dealt: tuple[CardSet, ...],
    first_game: bool,
    leader: int | None,
    randbelow: RandBelow,
) -> tuple[int, int]:
    """Who leads, and the card the lead must contain (-1: any), RULES §4."""
    starting_rule = first_game or rules.starting_card_every_game
    if first_game and rules.first_game_leader == FirstGameLeader.RANDOM:
        return (leader if leader is not None else randbelow(len(dealt))), -1
    if not starting_rule:
        return leader if leader is not None else 0, -1
    everything = 0
    for hand in dealt:
        everything |= hand
    dealt_start = everything >> rules.start_card & 1
    if not dealt_start and first_game and rules.missing_starting_card == MissingStartingCard.RANDOM:
        return (leader if leader is not None else randbelow(len(dealt))), -1
    card = rules.start_card if dealt_start else (everything & -everything).bit_length() - 1
    holder = next(seat for seat, hand in enumerate(dealt) if hand >> card & 1)
    if leader is not None and leader != holder:
        # Never replaced silently: the caller named a leader the starting card overrules. Only
        # without góp 3 does a game that is not a first game take that leader.
        where, fix = (
            ("every game (starting_card_every_game)", "")
            if rules.starting_card_every_game
            else ("a first game", ", or deal a game that is not a first game")
        )
        raise SetupError(
            "INVALID_LEADER",
            f"in {where} the holder of {card_name(card)} (seat {holder}) leads, not seat {leader}:"
            f" leave the leader unset{fix}",
            "leader",
        )
    # Góp 3 (Northern option): in later games the holder leads ("được ưu tiên đánh trước",
    # source 000) without having to play the card; only a first game's lead must contain it.
    # Without the starting card, the lowest card's holder may also lead freely (option).
    free = not dealt_start and rules.missing_starting_card == MissingStartingCard.LOWEST_CARD_FREE
    return holder, card if first_game and not free else -1


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


def _check(state: GameState, move: Move) -> _Checked:
    """Judge a move (RULES §4-§6); IllegalMove with its reason when the rules refuse it."""
    seat = move.seat
    if state.to_act < 0:
        raise IllegalMove(Reason.GAME_OVER, "the game is over")
    if not 0 <= seat < state.players:
        raise IllegalMove(
            Reason.INVALID_SEAT, f"seat {seat} is not at this table of {state.players}"
        )
    if state.places[seat]:
        raise IllegalMove(Reason.SEAT_FINISHED, f"seat {seat} has no cards in play")
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
    """The state after a legal move, and what happened; raises IllegalMove (state unchanged)."""
    combo, result, steal = _check(state, move)
    events: list[Event] = []
    if combo is None:
        state = record_pass(state, move.seat, events)
    else:
        state = _play(state, move.seat, combo, events, chop=result is _CHOPS, steal=steal)
    return state, tuple(events)


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


def next_game(
    state: GameState,
    *,
    seed: int | None = None,
    hands: Sequence[CardSet] | None = None,
    random_deal: bool = False,
) -> tuple[GameState, tuple[Event, ...]]:
    """The next game of the match, RULES §9: led by the previous winner (or the player who
    compensated, *đền bài*); after an instant win, a first game again. Dealt from `seed`, or
    `hands`, or at random (`random_deal`), or else as the match deals (its seed, if any)."""
    if state.to_act >= 0:
        raise SetupError("GAME_NOT_OVER", "the game is still being played", "state")
    settlement = settle(state)
    totals = tuple(t + n for t, n in zip(state.match.totals, settlement.net, strict=True))
    rules = state.rules
    if rules.match_bankroll and any(rules.match_bankroll + t < 0 for t in totals):
        raise SetupError(
            "MATCH_OVER", "a player's total dropped below zero: the match is over", "state"
        )
    winner = state.winner
    leader = winner if settlement.next_leader is None else settlement.next_leader
    dealer = (
        winner
        if rules.dealer_rotation == DealerRotation.WINNER
        else (state.match.dealer + 1) % state.players
    )
    match = Match(
        state.match.game_number + 1, totals, state.match.seed, dealer, state.match.replayed
    )
    first = state.instant_winner >= 0 and rules.first_game_after_instant_win
    return new_game(
        rules,
        state.players,
        seed=seed,
        hands=hands,
        first_game=first,
        leader=None if first or rules.starting_card_every_game else leader,
        dealer=dealer,
        match=match,
        random_deal=random_deal,
    )


def legal_plays(state: GameState, seat: int) -> tuple[list[Combination], bool]:
    """Every legal play for the seat now (in turn, out-of-turn chops, steals) and whether it
    may pass. Agrees exactly with `validate` (property-tested)."""
    if state.to_act < 0 or not 0 <= seat < state.players or state.places[seat]:
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
