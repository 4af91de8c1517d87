"""What the codec refuses, and why: the reasons the servicer puts in the answer's ErrorInfo.

Decoding input never trusts it. A request field that can't be read raises `FieldError`, which
names the field's path for the answer's `BadRequest`; state bytes that don't rebuild a game
raise `StateDecodeError`. Rule sets that can't exist are the engine's own `SetupError`.
"""

from __future__ import annotations

from typing import Final

INVALID_CARD: Final = "INVALID_CARD"
INVALID_ARGUMENT: Final = "INVALID_ARGUMENT"


class FieldError(ValueError):
    """A request field that can't be read: `reason` is the ErrorInfo reason, `field` the path."""

    def __init__(self, reason: str, field: str, description: str) -> None:
        super().__init__(f"{field}: {description}")
        self.reason = reason
        self.field = field
        self.description = description


class StateDecodeError(ValueError):
    """Signed state bytes that don't rebuild a game (another version's, or inconsistent)."""
