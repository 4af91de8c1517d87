"""Call metadata: the ``x-request-id`` of every call, found again in the service's log line,
and the game a call is about (``tienlen-game-id``).

The game id lets a balancer send every call of a game to one replica (nginx's `hash`, Envoy's
ring hash on the header: deploy/README.md "Affinity"), whose state cache then answers without
verifying and decoding the token again, while any replica still answers any call (the state is
in the token). A call that starts a game (NewGame, ReplayGame) or is about none carries none.

Not `uuid.uuid4()`: it reads `os.urandom` on every call, and a system call gives the GIL away,
which costs a host calling from many threads a context switch per call. An id only has to be
unique, not secret: 128 bits from a generator seeded once from the OS do that.
"""

from __future__ import annotations

import random
from typing import Final

REQUEST_ID_HEADER: Final = "x-request-id"
GAME_ID_HEADER: Final = "tienlen-game-id"

_IDS: Final = random.Random()  # seeded from os.urandom once  # noqa: S311 - ids, not secrets


def new_request_id() -> str:
    """32 hexadecimal digits, new on every call."""
    return f"{_IDS.getrandbits(128):032x}"


def request_metadata(game_id: bytes = b"") -> tuple[tuple[str, str], ...]:
    """The call metadata carrying a new request id, and the game id (hexadecimal) of a call
    about a game."""
    request_id = (REQUEST_ID_HEADER, new_request_id())
    return (request_id, (GAME_ID_HEADER, game_id.hex())) if game_id else (request_id,)
