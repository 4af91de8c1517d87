"""The engine's errors: parse errors, setup errors and rule violations, with stable codes.

Three different failures, three exception types (as python-chess separates "can't parse" from
"illegal"): `CardParseError` (the text is not a card), `SetupError` (a game or rule set that
can't exist) and `IllegalMove` (a well-formed move the rules refuse). Every refusal carries a
`Reason`, a stable UPPER_SNAKE code that is part of the public contract, and a sentence.
"""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    """Stable, machine-readable reason codes. The service returns them in `ErrorInfo.reason`."""

    NOT_YOUR_TURN = "NOT_YOUR_TURN"
    """The seat acted while another seat is to act (and the move is no out-of-turn chop)."""
    CARD_NOT_IN_HAND = "CARD_NOT_IN_HAND"
    """A played card is not in the acting seat's hand."""
    DUPLICATE_CARD = "DUPLICATE_CARD"
    """The same card appears twice in one play."""
    EMPTY_PLAY = "EMPTY_PLAY"
    """A play with no cards (to pass, send a pass)."""
    NOT_A_COMBINATION = "NOT_A_COMBINATION"
    """The cards form no combination playable under these rules."""
    MUST_INCLUDE_STARTING_CARD = "MUST_INCLUDE_STARTING_CARD"
    """The first lead of a first game must contain the starting card (♠3, or its fallback)."""
    DOES_NOT_BEAT = "DOES_NOT_BEAT"
    """Same type and length as the table, but not higher (or, in the North, not following suit)."""
    WRONG_TYPE_OR_LENGTH = "WRONG_TYPE_OR_LENGTH"
    """Not the same combination type and length as the play on the table, and no chop."""
    LOCKED_OUT_OF_ROUND = "LOCKED_OUT_OF_ROUND"
    """The seat passed earlier in this round (*qua tay*) and may not come back in."""
    LEADER_CANNOT_PASS = "LEADER_CANNOT_PASS"  # noqa: S105 - a reason code, not a password
    """The seat leads a new round: it must play something."""
    GAME_OVER = "GAME_OVER"
    """The game has ended; start the next game."""
    SEAT_FINISHED = "SEAT_FINISHED"
    """The seat has no cards left (finished or frozen) and takes no more turns."""
    INVALID_SEAT = "INVALID_SEAT"
    """The seat number is not at this table."""
    CANNOT_STEAL_LEAD = "CANNOT_STEAL_LEAD"
    """An attempt to steal the lead (*cướp cái*) that the rules don't allow here."""
    SEAT_EMPTY = "SEAT_EMPTY"
    """Nobody sits in the seat in this game (RULES §9.1)."""
    SEAT_LEFT = "SEAT_LEFT"
    """The seat's player left during this game: only the host's time-out moves play it
    (RULES §9.4, play_out), or it plays no more (forfeit)."""
    LEAVE_REFUSED = "LEAVE_REFUSED"
    """These rules make a player stay until the game ends (`leave_mid_game` = refuse)."""


class CardParseError(ValueError):
    """A card token that can't be read (`token` names it)."""

    def __init__(self, token: str, detail: str) -> None:
        super().__init__(f"bad card {token!r}: {detail}")
        self.token = token
        self.detail = detail


class SetupError(ValueError):
    """A game, deal or rule set that can't exist: `code` is stable, `field` names the input,
    `constraint` the broken constraint between options (`constraints.CONSTRAINTS`), if any, and
    `metadata` what else a program needs to act on it (e.g. the seat and its shortfall)."""

    def __init__(
        self,
        code: str,
        message: str,
        field: str = "",
        *,
        constraint: str = "",
        metadata: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.constraint = constraint
        self.metadata = metadata or {}


class IllegalMove(Exception):  # noqa: N818 - the domain's word: an illegal move
    """A well-formed move that the rules refuse."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message


class Abandoned(Exception):  # noqa: N818 - the domain's word: work given up
    """Long work (a bot's search) stopped because its caller said it no longer wants the result
    (`should_stop()` became true: a cancelled call, a passed deadline). Not a rule: the engine
    stays free of any transport and only ever asks the callable it was given."""
