"""A match's id and the secret that rides with it in its state tokens.

The id (16 random bytes, `GameUpdate.game_id`) is public: hosts store it, seat tokens name it.
The secret (16 more random bytes, made with the match, kept by every game of it in the state
payload, `GameState.match_secret`) is what seat tokens and the seeds of random next deals are
keyed by (`tokens.TokenCodec`). Neither depends on the key that signs the state token, so both
outlive a key rotation exactly as the match's state does: a state token is re-signed by the
new key with every answer, and carries the secret along. The secret is as private as the
state: sealed tokens hide it, and an unsealed token shows it to its holder along with every
hand (docs/SECURITY.md).

`GameId` is the id's bytes with the secret attached, so everything that stores, shows or
compares a game id keeps doing so with the id alone; the codec and the tokens read `secret`.
A match started before secrets existed has an empty one: its seat tokens and next deals keep
using the key ring, as then.
"""

from __future__ import annotations

from typing import Final, Self

from tienlen_service.entropy import random_bytes

GAME_ID_BYTES: Final = 16
SECRET_BYTES: Final = 16


class GameId(bytes):
    """A match's public id (its bytes: compared, hashed and shown as the id alone) carrying
    the match's `secret` (b"": a match started before secrets)."""

    secret: bytes

    def __new__(cls, game_id: bytes, secret: bytes = b"") -> Self:  # noqa: D102 - as bytes
        made = super().__new__(cls, game_id)
        made.secret = bytes(secret)
        return made

    def __repr__(self) -> str:
        return f"GameId({bytes(self)!r}, secret={'<set>' if self.secret else 'none'})"

    def __reduce__(self) -> tuple[type[GameId], tuple[bytes, bytes]]:
        return GameId, (bytes(self), self.secret)


def new_game_id() -> GameId:
    """A fresh match: a random id and a random secret."""
    return GameId(random_bytes(GAME_ID_BYTES), random_bytes(SECRET_BYTES))


def secret_of(game_id: bytes) -> bytes:
    """The match secret `game_id` carries (b"" for a plain id, or a match older than secrets)."""
    return game_id.secret if isinstance(game_id, GameId) else b""
