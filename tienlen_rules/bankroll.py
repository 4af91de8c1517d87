"""Bankrolls (RULES §9.2): the chips each seat may lose, the table's minimum, and the loss cap.

A host may give each seat's bankroll when it deals a game, for every seat or for none; NextGame
without bankrolls carries each staying seat's bankroll plus its last net. A deal in which a
seat's bankroll is below `min_bankroll_stakes` stakes is refused, before every game (source 004:
20 × the stake to sit down). And nobody loses more than they have (`loss_cap` = bankroll): the
settlement's payments of a seat over its bankroll are cut, in proportion to what it owed on each
(`cap_losses`), and every cut transfer shows what was owed and what was paid.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tienlen_rules.choices import LossCap
from tienlen_rules.errors import SetupError
from tienlen_rules.ruleset import RuleSet

#: The largest bankroll, in chips: totals and nets stay well inside int64.
MAX_BANKROLL = 10**15


def checked_bankrolls(bankrolls: Sequence[int] | None, seats: int) -> tuple[int, ...]:
    """Bankrolls as a host gives them: none (()), or one per seat, each 0..MAX_BANKROLL."""
    if not bankrolls:
        return ()
    if len(bankrolls) != seats:
        raise SetupError(
            "INVALID_BANKROLL",
            f"{len(bankrolls)} bankrolls given for {seats} seats: give every seat's, or none",
            "bankrolls",
        )
    for seat, chips in enumerate(bankrolls):
        if not 0 <= chips <= MAX_BANKROLL:
            why = "negative" if chips < 0 else f"over {MAX_BANKROLL}"
            raise SetupError(
                "INVALID_BANKROLL", f"seat {seat}'s bankroll {chips} is {why}", f"bankrolls[{seat}]"
            )
    return tuple(bankrolls)


def check_allowed(rules: RuleSet, bankrolls: Sequence[int]) -> None:
    """Northern `match_bankroll` is a bankroll of its own: it can't be combined with the
    per-game bankrolls (RULES §9.1 [ours])."""
    if bankrolls and rules.match_bankroll:
        raise SetupError(
            "BANKROLLS_WITH_MATCH_BANKROLL",
            "match_bankroll gives every player its chips for the match: per-game bankrolls can't"
            " be combined with it",
            "bankrolls",
            constraint="bankrolls_without_match_bankroll",
        )


def check_minimum(rules: RuleSet, bankrolls: Sequence[int], seated: int) -> None:
    """`min_bankroll_stakes`: refuse a deal where an occupied seat's bankroll is below the
    table's minimum (the first such seat in seat order), naming the seat and its shortfall."""
    check_allowed(rules, bankrolls)
    if not bankrolls or not rules.min_bankroll_stakes:
        return
    minimum = rules.min_bankroll_stakes * rules.stake
    for seat, chips in enumerate(bankrolls):
        if seated >> seat & 1 and chips < minimum:
            raise SetupError(
                "BANKROLL_TOO_LOW",
                f"seat {seat}'s bankroll of {chips} chips is below the table's minimum of"
                f" {minimum} ({rules.min_bankroll_stakes} stakes): {minimum - chips} short",
                f"bankrolls[{seat}]",
                metadata={"seat": str(seat), "shortfall": str(minimum - chips)},
            )


class Payment:
    """One transfer while losses are capped: who pays whom, what was owed, what is paid now."""

    __slots__ = ("index", "owed", "paid", "payee", "payer")

    def __init__(self, index: int, payer: int, payee: int, owed: int) -> None:
        self.index = index
        self.payer = payer
        self.payee = payee
        self.owed = owed
        self.paid = owed


def capped(rules: RuleSet, bankrolls: Sequence[int]) -> bool:
    """Whether a game's losses are capped: bankrolls were given and `loss_cap` is `bankroll`."""
    return bool(bankrolls) and rules.loss_cap == LossCap.BANKROLL


def cap_losses(
    rules: RuleSet,
    bankrolls: Sequence[int],
    payments: list[Payment],
    order: Sequence[int],
    distance: Callable[[int, int], int],
) -> bool:
    """Cut the payments of every seat over its bankroll (RULES §9.2 [ours]), in place; whether
    anything was cut.

    A seat is over when what it pays minus what it receives exceeds its bankroll. Seats are
    taken in turn order from the game's winner (`order`); an over seat's payments are
    re-apportioned to a total of its bankroll plus its current receipts, in proportion to what it
    owed on each: each payment's floor, then the chips left over one each to the largest
    remainders (ties: the payee nearest after the payer in turn order, `distance`, then the
    earlier transfer), and never above its current amount. Whole passes repeat until one changes
    nothing: payments only fall, so this ends, with one result."""
    if not capped(rules, bankrolls):
        return False
    cut = False
    changed = True
    while changed:
        changed = False
        for seat in order:
            paying = [p for p in payments if p.payer == seat]
            pays = sum(p.paid for p in paying)
            receives = sum(p.paid for p in payments if p.payee == seat)
            if pays - receives <= bankrolls[seat]:
                continue
            for payment, amount in zip(
                paying, _apportion(paying, bankrolls[seat] + receives, distance), strict=True
            ):
                if amount < payment.paid:
                    payment.paid = amount
                    changed = cut = True
    return cut


def _apportion(paying: list[Payment], total: int, distance: Callable[[int, int], int]) -> list[int]:
    """`total` chips shared over `paying` in proportion to what each owed (largest
    remainders), each capped at its current amount."""
    owed = sum(p.owed for p in paying)
    shares = [p.owed * total // owed for p in paying]
    left = total - sum(shares)
    by_remainder = sorted(
        range(len(paying)),
        key=lambda i: (
            -(paying[i].owed * total % owed),
            distance(paying[i].payer, paying[i].payee),
            paying[i].index,
        ),
    )
    for i in by_remainder[:left]:
        shares[i] += 1
    return [min(share, p.paid) for share, p in zip(shares, paying, strict=True)]
