"""Matches (RULES §9): the next game, its leader and dealer, and the table's people changing.

Games chain into a match: the next game's leader is the previous winner (or the player who
compensated, *đền bài*), a game after an instant win is a first game again, and the match
carries running totals. Between games players may leave and newcomers sit down (`SeatChanges`,
`seating.next_table`); the previous winner is followed as a person, not a seat: if they left,
or nobody but them stayed, the next game is a first game again (`first_game_when_winner_leaves`,
source 004).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from tienlen_rules import bankroll, seating
from tienlen_rules.cards import CardSet
from tienlen_rules.choices import DealerRotation
from tienlen_rules.errors import SetupError
from tienlen_rules.events import Event, SeatTaken, SeatVacated
from tienlen_rules.rounds import next_seat
from tienlen_rules.ruleset import RuleSet
from tienlen_rules.seating import NextTable, SeatChanges
from tienlen_rules.settlement import settle
from tienlen_rules.starting import MAX_PLAYERS, MIN_PLAYERS, deal_game
from tienlen_rules.state import GameState, Match


class _Lead(NamedTuple):
    """Who leads and deals the next game, and whether it is a first game."""

    first_game: bool
    leader: int | None
    dealer: int


def next_game(
    state: GameState,
    *,
    seed: int | None = None,
    hands: Sequence[CardSet] | None = None,
    random_deal: bool = False,
    changes: SeatChanges | None = None,
    bankrolls: Sequence[int] | None = None,
) -> tuple[GameState, tuple[Event, ...]]:
    """The next game of the match, RULES §9: dealt from `seed`, or `hands`, or at random
    (`random_deal`), or else as the match deals (its seed, if any); to the table the host's
    `changes` make (None: everyone stays but those who left during the game), with the
    `bankrolls` given (None: each staying seat's carried, a newcomer's its own)."""
    if state.to_act >= 0:
        raise SetupError("GAME_NOT_OVER", "the game is still being played", "state")
    rules = state.rules
    settlement = settle(state)
    totals = [t + n for t, n in zip(state.match.totals, settlement.net, strict=True)]
    table = seating.next_table(
        seats=state.players,
        seated=state.seated,
        departed=state.departed,
        player_ids=state.match.player_ids,
        occupants=state.match.occupants,
        changes=changes,
        max_seats=seating.table_seats(rules.deal_all_cards),
    )
    _check_count(rules, table.seated)
    _check_match_bankroll(rules, totals, table.staying)
    chips = _bankrolls(state, settlement.net, table, bankrolls)
    events: list[Event] = [
        SeatVacated(s, state.match.player_ids[s] if state.match.player_ids else "", totals[s])
        for s in table.leavers
    ]
    events += [SeatTaken(n.seat, n.player_id) for n in table.newcomers]
    previous = state.winner if settlement.next_leader is None else settlement.next_leader
    lead = _lead(state, table, previous)
    size = table.seats
    kept = [totals[s] if table.staying >> s & 1 else 0 for s in range(state.players)]
    counts = state.timeouts or (0,) * state.players
    timeouts = [counts[s] if table.staying >> s & 1 else 0 for s in range(state.players)]
    match = Match(
        state.match.game_number + 1,
        (*kept, *[0] * (size - state.players)),
        state.match.seed if seed is None else seed,
        lead.dealer,
        table.player_ids,
        table.occupants,
        chips,
    )
    new_state, dealt = deal_game(
        rules,
        match,
        table.seated,
        hands=hands,
        first_game=lead.first_game,
        leader=lead.leader,
        dealer=lead.dealer,
        random_deal=random_deal,
        timeouts=(*timeouts, *[0] * (size - state.players)),
        auto=state.auto & table.staying,
    )
    return new_state, (*events, *dealt)


def _check_count(rules: RuleSet, seated: int) -> None:
    """A table plays with 2 to 4 players (Đấu: exactly 3), RULES §9.1."""
    count = seated.bit_count()
    wanted = "exactly 3" if rules.deal_all_cards else "2 to 4"
    if not MIN_PLAYERS <= count <= MAX_PLAYERS or (rules.deal_all_cards and count != 3):
        raise SetupError(
            "INVALID_PLAYER_COUNT",
            f"the next game would seat {count} players: {wanted} play at this table",
            "seating",
        )


def _check_match_bankroll(rules: RuleSet, totals: list[int], staying: int) -> None:
    """Northern `match_bankroll`: a player whose chips (the bankroll plus its total) fell below 0
    loses the match; a busted seat ends it only if it stays (RULES §9.1)."""
    if rules.match_bankroll and any(
        rules.match_bankroll + t < 0 for s, t in enumerate(totals) if staying >> s & 1
    ):
        raise SetupError(
            "MATCH_OVER", "a player's total dropped below zero: the match is over", "state"
        )


def _bankrolls(
    state: GameState, net: tuple[int, ...], table: NextTable, given: Sequence[int] | None
) -> tuple[int, ...]:
    """The next game's bankrolls (RULES §9.2): the host's, for every seat; or, without them,
    each staying seat's bankroll plus its last net and each newcomer's own."""
    size = table.seats
    newcomers_chips = [n.bankroll for n in table.newcomers if n.bankroll is not None]
    if given:
        if newcomers_chips:
            raise SetupError(
                "INVALID_BANKROLL",
                "bankrolls are given for every seat: give the newcomers' there, not beside them",
                "seating.newcomers",
            )
        chips = bankroll.checked_bankrolls(given, size)
        for seat, amount in enumerate(chips):
            if amount and not table.seated >> seat & 1:
                raise SetupError(
                    "INVALID_BANKROLL",
                    f"seat {seat} is empty in the next game: its bankroll must be 0",
                    f"bankrolls[{seat}]",
                )
        return chips
    previous = state.match.bankrolls
    if not previous:
        if newcomers_chips:
            raise SetupError(
                "INVALID_BANKROLL",
                "this match plays without bankrolls: give every seat's (bankrolls), or none",
                "seating.newcomers",
            )
        return ()
    carried = [previous[s] + net[s] if table.staying >> s & 1 else 0 for s in range(state.players)]
    carried += [0] * (size - state.players)
    for index, newcomer in enumerate(table.newcomers):
        if newcomer.bankroll is None:
            raise SetupError(
                "BANKROLL_REQUIRED",
                f"the table plays with bankrolls: the newcomer in seat {newcomer.seat} needs one",
                f"seating.newcomers[{index}].bankroll",
            )
        carried[newcomer.seat] = newcomer.bankroll
    return bankroll.checked_bankrolls(carried, size)


def _lead(state: GameState, table: NextTable, previous: int) -> _Lead:
    """Who leads and deals the next game (RULES §9.1, §10).

    The previous winner (`previous`: the winner, or the player who compensated) leads, as a
    person: a newcomer in their old seat does not. A game after an instant win is a first
    game; so is one where the previous winner left or nobody else stayed
    (`first_game_when_winner_leaves`); with that option off, the next occupied seat after the
    departed winner's leads freely. The dealer: in a first game a seat change made, the
    lowest-numbered occupied seat; otherwise the winner if still seated, else the next occupied
    seat after the winner's; `next_seat` rotation counts on from the previous dealer's seat."""
    rules = state.rules
    winner = state.winner
    stays = bool(table.staying >> previous & 1)
    instant = state.instant_winner >= 0 and rules.first_game_after_instant_win
    changed = rules.first_game_when_winner_leaves and (not stays or table.staying == 1 << previous)
    first = instant or changed
    size = table.seats
    if rules.dealer_rotation == DealerRotation.NEXT_SEAT:
        dealer = next_seat(state.match.dealer, table.seated, size)
    elif changed and not instant:
        dealer = (table.seated & -table.seated).bit_length() - 1
    else:
        dealer = winner if table.staying >> winner & 1 else next_seat(winner, table.seated, size)
    if first or rules.starting_card_every_game:
        return _Lead(first, None, dealer)
    leader = previous if stays else next_seat(previous, table.seated, size)
    return _Lead(first_game=False, leader=leader, dealer=dealer)
