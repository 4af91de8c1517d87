"""Starting a game (*chia bài*), RULES §2, §4, §7, §9.1: the deal, the first leader, instant wins.

`new_game` deals the first game of a match to its players, seated in seats 0..n-1; `deal_game`
deals any game of a match to the seats occupied in it (hands go to occupied seats only, in seat
order), finds who leads and the card the lead must contain, and settles instant wins.
"""

from __future__ import annotations

from collections.abc import Sequence

from tienlen_rules import bankroll, seating
from tienlen_rules.cards import CardSet, card_name
from tienlen_rules.choices import FirstGameLeader, InstantWinTie, MissingStartingCard
from tienlen_rules.deal import (
    MAX_REDEALS,
    RandBelow,
    check_explicit_deal,
    deal,
    seeded_randbelow,
    system_randbelow,
)
from tienlen_rules.errors import SetupError
from tienlen_rules.events import Event, GameStarted
from tienlen_rules.instant_wins import declare_instant_win, instant_winners
from tienlen_rules.ruleset import RuleSet
from tienlen_rules.state import EMPTY_SEAT, GameState, Match

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
    player_ids: Sequence[str] | None = None,
    bankrolls: Sequence[int] | None = None,
) -> tuple[GameState, tuple[Event, ...]]:
    """Deal a game: random (CSPRNG), seeded (reproducible) or explicit `hands`. A match with a
    seed deals from it unless `random_deal` asks for a random deal of this game. A new match
    (`match` None) seats its `players` in seats 0..players-1, with the host's `player_ids` and
    `bankrolls` if it gives them (RULES §9.1, §9.2)."""
    if match is None:
        _check_count(rules, players)
        match = Match(
            1,
            (0,) * players,
            -1 if seed is None else seed,
            dealer,
            seating.checked_player_ids(player_ids, players),
            (),
            bankroll.checked_bankrolls(bankrolls, players),
        )
    elif seed is not None:
        match = match._replace(seed=seed)
    return deal_game(
        rules,
        match,
        (1 << len(match.totals)) - 1,
        hands=hands,
        first_game=first_game,
        leader=leader,
        dealer=dealer,
        random_deal=random_deal,
    )


def deal_game(
    rules: RuleSet,
    match: Match,
    seated: int,
    *,
    hands: Sequence[CardSet] | None = None,
    first_game: bool = True,
    leader: int | None = None,
    dealer: int = 0,
    random_deal: bool = False,
    timeouts: tuple[int, ...] | None = None,
    auto: int = 0,
) -> tuple[GameState, tuple[Event, ...]]:
    """Deal a game of `match` to the `seated` seats (a bitmask of seats 0..len(totals)-1; the
    others are empty, RULES §9.1): hands go to the occupied seats only, in seat order."""
    seats = len(match.totals)
    occupied = [s for s in range(seats) if seated >> s & 1]
    _check_table(rules, occupied, dealer, leader, first_game=first_game)
    bankroll.check_minimum(rules, match.bankrolls, seated)
    seeded = match.seed >= 0 and not random_deal
    randbelow = seeded_randbelow(match.seed, match.game_number) if seeded else system_randbelow()
    for _ in range(MAX_REDEALS):
        dealt = _spread(
            check_explicit_deal(rules, len(occupied), seating.occupied_hands(hands, seated, seats))
            if hands is not None
            else deal(rules, len(occupied), randbelow, occupied.index(dealer)),
            occupied,
            seats,
        )
        lead, must_include = _first_leader(rules, dealt, occupied, first_game, leader, randbelow)
        winners = instant_winners(rules, dealt, lead, dealer, first_game=first_game)
        if len(winners) < 2 or rules.instant_win_tie == InstantWinTie.SEAT_ORDER:
            break
        if hands is not None:
            raise SetupError(
                "REDEAL_REQUIRED", "several hands win instantly and these rules redeal", "hands"
            )
    else:  # pragma: no cover - a tie in 1000 deals in a row
        raise SetupError("REDEAL_LIMIT", "no playable deal was found", "deal")
    places = tuple(0 if seated >> s & 1 else EMPTY_SEAT for s in range(seats))
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
        places=places,
        frozen=0,
        unplayed=seated,
        chop_payments=(),
        first_game=first_game,
        steal_open=rules.lead_stealing and not first_game,
        instant_winner=-1,
        instant_pattern="",
        compensation_seat=-1,
        winning_play=0,
        move_count=0,
        match=match,
        timeouts=timeouts if timeouts and any(timeouts) else (),
        auto=auto,
    )
    sizes = tuple(hand.bit_count() for hand in dealt)
    events: list[Event] = [
        GameStarted(match.game_number, lead, must_include, first_game, dealer, sizes)
    ]
    return declare_instant_win(state, winners, events), tuple(events)


def _spread(hands: tuple[CardSet, ...], occupied: list[int], seats: int) -> tuple[CardSet, ...]:
    """The hands of the occupied seats (in seat order) placed at their seats."""
    if len(occupied) == seats:
        return hands
    spread = [0] * seats
    for seat, hand in zip(occupied, hands, strict=True):
        spread[seat] = hand
    return tuple(spread)


def _check_count(rules: RuleSet, players: int) -> None:
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise SetupError("INVALID_PLAYER_COUNT", f"{players} players: 2 to 4 play", "players")
    if rules.deal_all_cards and players != 3:
        raise SetupError(
            "INVALID_PLAYER_COUNT",
            f"variant {rules.variant!r} deals all 52 cards to exactly 3 players, not {players}",
            "players",
        )


def _seats(occupied: list[int]) -> str:
    """The occupied seats in words: "4" for seats 0..3, else their list."""
    if occupied == list(range(len(occupied))):
        return str(len(occupied))
    return "the occupied seats " + ", ".join(map(str, occupied))


def _check_table(
    rules: RuleSet, occupied: list[int], dealer: int, leader: int | None, *, first_game: bool
) -> None:
    _check_count(rules, len(occupied))
    if dealer not in occupied:
        raise SetupError(
            "INVALID_SEAT", f"dealer {dealer} is not a seat of {_seats(occupied)}", "dealer"
        )
    if leader is not None and leader not in occupied:
        raise SetupError(
            "INVALID_SEAT", f"leader {leader} is not a seat of {_seats(occupied)}", "leader"
        )
    if leader is None and not first_game and not rules.starting_card_every_game:
        raise SetupError(
            "LEADER_REQUIRED",
            "a game that is not a first game needs the leader (the previous winner)",
            "leader",
        )


def _first_leader(
    rules: RuleSet,
    dealt: tuple[CardSet, ...],
    occupied: list[int],
    first_game: bool,
    leader: int | None,
    randbelow: RandBelow,
) -> tuple[int, int]:
    """Who leads, and the card the lead must contain (-1: any), RULES §4. A random leader is
    drawn uniformly over the occupied seats (RULES §9.1)."""
    starting_rule = first_game or rules.starting_card_every_game
    if first_game and rules.first_game_leader == FirstGameLeader.RANDOM:
        return (leader if leader is not None else occupied[randbelow(len(occupied))]), -1
    if not starting_rule:
        return leader if leader is not None else 0, -1
    everything = 0
    for hand in dealt:
        everything |= hand
    dealt_start = everything >> rules.start_card & 1
    if not dealt_start and first_game and rules.missing_starting_card == MissingStartingCard.RANDOM:
        return (leader if leader is not None else occupied[randbelow(len(occupied))]), -1
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
