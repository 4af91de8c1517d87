"""Settlement (*tính tiền*), RULES §8: who pays whom, how much and why, in whole chips.

Every finished game settles into transfers `payer -> payee, amount, reason`. Amounts are
`stake × multiplier` with exact fractions; the rule set already refused stakes that would make a
fraction of a chip. Settlements are zero-sum except where an option says otherwise (Huế: a chop
of a last card is paid to the chopper by nobody, payer -1).
"""

from __future__ import annotations

from enum import StrEnum
from fractions import Fraction
from typing import NamedTuple

from tienlen_rules.bankroll import Payment, cap_losses, capped
from tienlen_rules.cards import THREE_OF_SPADES, CardSet
from tienlen_rules.choices import CardCountRotten, FrozenPays, RottenPayee, Scoring
from tienlen_rules.errors import SetupError
from tienlen_rules.revisions import CONG_DECIDED_ONCE, keeps_old_reading
from tienlen_rules.rotten import rotten_split
from tienlen_rules.ruleset import RuleSet
from tienlen_rules.state import GameState


class TransferReason(StrEnum):
    """Why a transfer is paid. Part of the wire contract (`TransferReason`)."""

    PLACE = "PLACE"
    CHOP = "CHOP"
    ROTTEN = "ROTTEN"
    FROZEN = "FROZEN"
    INSTANT_WIN = "INSTANT_WIN"
    BLIND_THREE = "BLIND_THREE"
    ROTTEN_THREE = "ROTTEN_THREE"
    COMPENSATION = "COMPENSATION"
    CARD_COUNT = "CARD_COUNT"


class Transfer(NamedTuple):
    """`payer` (-1: nobody) pays `payee` `amount` chips for `reason` (and `cards`, if any);
    `owed` is what was owed when the loss cap cut the payment (RULES §9.2), else 0."""

    payer: int
    payee: int
    amount: int
    reason: TransferReason
    cards: CardSet
    owed: int = 0


class RottenEntry(NamedTuple):
    """One part of a seat's rotten split: a 2 or a bomb (`label`, its chop class's text, as the
    settlement message carries it) and its chips."""

    seat: int
    label: str
    cards: CardSet
    amount: int


class Settlement(NamedTuple):
    """A finished game's money: transfers, each seat's net, places, the rotten splits shown,
    whether it is zero-sum, and who leads the next game when that is not the winner (the
    player who compensated, *đền bài*; None: the winner leads)."""

    transfers: tuple[Transfer, ...]
    net: tuple[int, ...]
    places: tuple[int, ...]
    rotten: tuple[RottenEntry, ...]
    zero_sum: bool
    next_leader: int | None


class _Ledger:
    """Collects transfers and rotten splits while a settlement is computed."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.transfers: list[Transfer] = []
        self.rotten: list[RottenEntry] = []

    def pay(
        self, payer: int, payee: int, stakes: Fraction, reason: TransferReason, cards: CardSet = 0
    ) -> None:
        amount = self.rules.amount(stakes)
        if amount:
            self.transfers.append(Transfer(payer, payee, amount, reason, cards))

    def add_chops(self, state: GameState) -> None:
        """The chop chains settled during the game (already in chips; a chain worth nothing,
        under penalty values of 0, is no transfer)."""
        self.transfers.extend(
            Transfer(p.payer, p.payee, p.amount, TransferReason.CHOP, p.cards)
            for p in state.chop_payments
            if p.amount
        )

    def pay_rotten(
        self,
        payer: int,
        payee: int,
        hand: CardSet,
        multiplier: Fraction = Fraction(1),
        *,
        shown: bool = True,
        credit: Fraction = Fraction(0),
    ) -> Fraction:
        """Charge the hand's 2s and bombs (largest split), one transfer per part; the split is
        shown once per hand (`shown=False` for a second payee of the same hand)."""
        total = Fraction(0)
        for part in rotten_split(self.rules, hand, credit):
            stakes = part.value * multiplier
            if shown:
                self.rotten.append(
                    RottenEntry(payer, part.chop_class.value, part.cards, self.rules.amount(stakes))
                )
            self.pay(payer, payee, stakes, TransferReason.ROTTEN, part.cards)
            total += stakes
        return total

    def settlement(self, state: GameState, next_leader: int | None = None) -> Settlement:
        self._cap(state)
        net = [0] * state.players
        for t in self.transfers:
            net[t.payee] += t.amount
            if t.payer >= 0:
                net[t.payer] -= t.amount
        zero_sum = all(t.payer >= 0 for t in self.transfers)
        return Settlement(
            tuple(self.transfers),
            tuple(net),
            state.places,
            tuple(self.rotten),
            zero_sum,
            next_leader,
        )

    def _cap(self, state: GameState) -> None:
        """Nobody loses more than its bankroll (`loss_cap`, RULES §9.2): cut transfers keep
        what was owed beside what is paid."""
        if not capped(self.rules, state.match.bankrolls):  # most tables: nothing to build
            return
        payments = [Payment(i, t.payer, t.payee, t.amount) for i, t in enumerate(self.transfers)]
        winner = max(state.winner, 0)
        order = [winner, *_others(state, winner)]
        players = state.players
        if cap_losses(
            self.rules,
            state.match.bankrolls,
            payments,
            order,
            lambda payer, payee: (payee - payer) % players,
        ):
            self.transfers = [
                t if p.paid == t.amount else t._replace(amount=p.paid, owed=t.amount)
                for t, p in zip(self.transfers, payments, strict=True)
            ]


def settle(state: GameState) -> Settlement:
    """The settlement of a finished game under its rule set's scoring scheme."""
    if state.to_act >= 0:
        raise SetupError("GAME_NOT_OVER", "the game is still being played", "state")
    ledger = _Ledger(state.rules)
    if state.rules.scoring == Scoring.CARD_COUNT:
        return _card_count(state, ledger)
    return _places(state, ledger)


def _others(state: GameState, seat: int) -> list[int]:
    """The other occupied seats, in turn order after `seat`."""
    n = state.players
    seated = state.seated
    return [s for s in ((seat + step) % n for step in range(1, n)) if seated >> s & 1]


def _seat_at(state: GameState, place: int) -> int:
    return state.places.index(place) if place in state.places else -1


def _places(state: GameState, ledger: _Ledger) -> Settlement:
    rules = state.rules
    winner = state.winner
    if state.instant_winner >= 0:
        for seat in _others(state, winner):
            ledger.pay(seat, winner, rules.instant_win_stakes, TransferReason.INSTANT_WIN)
            if rules.count_pigs:
                ledger.pay_rotten(seat, winner, state.hands[seat])
        return ledger.settlement(state)
    if rules.chops_paid_on_freeze or not state.frozen:
        ledger.add_chops(state)
    next_leader = _frozen(state, ledger, winner)
    frozen = [s for s in range(state.players) if state.frozen >> s & 1]
    if _blind_three(state):
        for seat in _others(state, winner):
            if seat not in frozen:
                ledger.pay(seat, winner, rules.blind_three_stakes, TransferReason.BLIND_THREE)
    else:
        _place_transfers(state, ledger, frozen)
    if not frozen:
        _rotten_last(state, ledger, winner)
    _rotten_forfeiters(state, ledger, winner)
    return ledger.settlement(state, next_leader)


def _blind_three(state: GameState) -> bool:
    """Ba mù: the winner went out on ♠3 alone, where the rules pay it (and, unless
    `blind_three_in_first_game` is off, in a first game too)."""
    rules = state.rules
    return (
        bool(rules.blind_three_stakes)
        and state.winning_play == 1 << THREE_OF_SPADES
        and (rules.blind_three_in_first_game or not state.first_game)
    )


def _frozen(state: GameState, ledger: _Ledger, winner: int) -> int | None:
    """Cóng: each frozen player pays the winner `freeze_multiplier × L` plus its 2s and bombs;
    or, with `frozen_pays` = whole_table (sources 000/001/002: "cóng 1 nhà cũng như cả làng"),
    what a loser pays an instant winner (*đền tới trắng*: `instant_win_stakes`, and its 2s and
    bombs only with `count_pigs`) to the winner and to every other player not frozen (still
    holding cards, or gone out before a later freeze; not one ranked last). When every
    opponent is frozen, the compensating player (*đền bài*) pays the winner all of it, and is
    returned: they lead the next game (None: the winner does)."""
    rules = state.rules
    frozen = [s for s in _others(state, winner) if state.frozen >> s & 1]
    if not frozen:
        return None
    if rules.frozen_pays == FrozenPays.WHOLE_TABLE:
        penalty, counts_hand = rules.instant_win_stakes, rules.count_pigs
        # Every other player not frozen: those still holding cards and, after a later freeze
        # (freeze_at), those who went out before it, above the frozen; not one ranked last for
        # going out on a 2, placed below them (it pays as last).
        bottom = min(state.places[s] for s in frozen)
        others = (
            s
            for s in _others(state, winner)
            if s not in frozen and (state.hands[s] or state.places[s] < bottom)
        )
        payees = [winner, *others]
    else:
        penalty, counts_hand = rules.freeze_multiplier * rules.place_last_to_first, True
        payees = [winner]
    payer = state.compensation_seat
    # Đền bài is judged by the opponents who did not forfeit, and never moves a forfeiter's
    # payment nor makes one compensate (RULES §9.4).
    forfeited = state.forfeited
    stayed = [s for s in frozen if not forfeited >> s & 1]
    opponents = (
        state.seated_count - 1 - sum(1 for s in _others(state, winner) if forfeited >> s & 1)
    )
    compensates = (
        rules.compensation
        and payer >= 0
        and not forfeited >> payer & 1
        and bool(stayed)
        and len(stayed) == opponents
    )
    for seat in frozen:
        hand = state.hands[seat]
        if compensates and seat in stayed:  # every opponent frozen: the winner is the payee
            parts = rotten_split(rules, hand) if counts_hand else ()
            ledger.rotten.extend(
                RottenEntry(seat, p.chop_class.value, p.cards, rules.amount(p.value)) for p in parts
            )
            debt = penalty + sum((p.value for p in parts), Fraction(0))
            ledger.pay(payer, winner, debt, TransferReason.COMPENSATION, hand)
            continue
        for payee in payees:
            ledger.pay(seat, payee, penalty, TransferReason.FROZEN)
            if counts_hand:
                ledger.pay_rotten(seat, payee, hand, shown=payee == winner)
    return payer if compensates else None


def _place_transfers(state: GameState, ledger: _Ledger, frozen: list[int]) -> None:
    """Places (source 003): 4 players last→1st L, 3rd→2nd; 3 players last→1st L, 2nd→1st;
    2 players last→1st L. A frozen player pays its frozen amount instead, and the one player
    left alone with frozen players (no other opponent played) neither pays nor receives. When
    the frozen pay the whole table the game ended at the freeze: only players who went out hold
    a place to pay for (a player ranked last for going out on a 2 still pays as last)."""
    rules = state.rules
    n = state.seated_count
    winner = state.winner
    unfrozen = [s for s in _others(state, winner) if s not in frozen]
    alone = (
        unfrozen[0]
        if frozen
        and len(unfrozen) == 1
        and state.hands[unfrozen[0]]
        and not rules.alone_with_frozen_pays_place
        else -1
    )
    unpaid = {*frozen, alone}
    if frozen and rules.frozen_pays == FrozenPays.WHOLE_TABLE:
        unpaid |= {s for s in range(state.players) if state.hands[s]}
    table = {
        4: ((4, 1, rules.place_last_to_first), (3, 2, rules.place_third_to_second)),
        3: ((3, 1, rules.place_last_to_first), (2, 1, rules.place_second_to_first)),
        2: ((2, 1, rules.place_last_to_first),),
    }[n]
    for payer_place, payee_place, stakes in table:
        payer, payee = _seat_at(state, payer_place), _seat_at(state, payee_place)
        # A frozen player pays its frozen amount instead of a place transfer, and receives none
        # (it may sit above a player ranked last for going out on a 2).
        if payer >= 0 and payee >= 0 and not {payer, payee} & unpaid:
            ledger.pay(payer, payee, stakes, TransferReason.PLACE)


def _rotten_last(state: GameState, ledger: _Ledger, winner: int) -> None:
    """Thối: the player left holding cards pays its 2s and bombs to the place just above it
    (or to the winner, `rotten_payee`); rotten ♠3 (*thối 3 bích*): left with only ♠3, it pays
    the winner."""
    rules = state.rules
    holders = [
        s
        for s in range(state.players)
        if state.hands[s] and s != winner and not state.forfeited >> s & 1
    ]
    for seat in holders:
        payee = (
            winner
            if rules.rotten_payee == RottenPayee.WINNER
            else _seat_at(state, state.places[seat] - 1)
        )
        _pay_rotten_hand(state, ledger, seat, payee, winner)


def _pay_rotten_hand(state: GameState, ledger: _Ledger, seat: int, payee: int, winner: int) -> None:
    """A hand left at the end rots: its 2s and bombs to `payee`, and a lone ♠3 (*thối 3
    bích*) to the winner."""
    rules = state.rules
    if payee >= 0:
        ledger.pay_rotten(seat, payee, state.hands[seat])
    if rules.rotten_three_stakes and state.hands[seat] == 1 << THREE_OF_SPADES:
        ledger.pay(
            seat, winner, rules.rotten_three_stakes, TransferReason.ROTTEN_THREE, state.hands[seat]
        )


def _rotten_forfeiters(state: GameState, ledger: _Ledger, winner: int) -> None:
    """A forfeiter that is not frozen (RULES §9.4) pays as a player ending in its place holding
    its cards: its 2s and bombs rot to the player who would collect them from a last player
    (`rotten_payee`: the player placed just above it, another forfeiter or the player left
    holding cards included; or the winner) — never to a frozen player, but to the nearest one
    placed above it who is not frozen —, whoever else is frozen; a lone ♠3 rots to the winner."""
    for seat in range(state.players):
        if not state.forfeited >> seat & 1 or state.frozen >> seat & 1 or not state.hands[seat]:
            continue
        payee = winner
        if state.rules.rotten_payee != RottenPayee.WINNER:
            above = [s for s in range(state.players) if 0 < state.places[s] < state.places[seat]]
            above = [s for s in above if not state.frozen >> s & 1]
            payee = max(above, key=lambda s: state.places[s], default=winner)
        _pay_rotten_hand(state, ledger, seat, payee, winner)


def _card_count(state: GameState, ledger: _Ledger) -> Settlement:
    """Đếm lá (source 004): each loser pays the winner a stake per card left (option
    `card_count_per_card`) plus the rotten conversions of its 2s and bombs (RULES §10: in
    addition to the cards; option `card_count_rotten`: instead of them); a frozen loser (one the
    win froze, `finishing.frozen_at_finish`: it holds every dealt card) pays it all times
    `freeze_multiplier`. A game dealt before rules revision 2 froze nobody in its state: a loser
    holding every dealt card pays so, whatever `freeze_exempt_unplayed` says."""
    rules = state.rules
    old_reading = keeps_old_reading(rules.revision, CONG_DECIDED_ONCE)
    winner = state.winner
    if state.instant_winner >= 0:
        for seat in _others(state, winner):
            ledger.pay(seat, winner, rules.instant_win_stakes, TransferReason.INSTANT_WIN)
            if rules.count_pigs:  # on in the đếm lá preset: "13 stakes plus their conversions"
                ledger.pay_rotten(seat, winner, state.hands[seat])
        return ledger.settlement(state)
    ledger.add_chops(state)
    for seat in _others(state, winner):
        hand = state.hands[seat]
        if old_reading:
            frozen = rules.freezing and hand == state.dealt[seat]
        else:
            frozen = bool(state.frozen >> seat & 1)
        multiplier = rules.freeze_multiplier if frozen else Fraction(1)
        reason = TransferReason.FROZEN if frozen else TransferReason.CARD_COUNT
        counted = hand
        # A rotten card is paid at its conversion only, or in addition to the card itself;
        # instead of it, the split is the one of the largest payment (a card it leaves out is
        # still paid as a card).
        credit = Fraction(0)
        if rules.card_count_rotten == CardCountRotten.INSTEAD:
            credit = rules.card_count_per_card
            for part in rotten_split(rules, hand, credit):
                counted &= ~part.cards
        per_card = rules.card_count_per_card * multiplier
        ledger.pay(seat, winner, counted.bit_count() * per_card, reason, hand)
        ledger.pay_rotten(seat, winner, hand, multiplier, credit=credit)
    return ledger.settlement(state)
