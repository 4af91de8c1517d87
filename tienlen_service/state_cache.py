"""The states a replica made or checked lately, kept by their state token.

A cache keyed by signed tokens is a token concern, not a translation: it sits beside `tokens`
(which signs and verifies) and above `codec` (which turns states into payloads and back), and
knows neither's insides: `sign` and `verify` are handed in by the servicer.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import TYPE_CHECKING

from tienlen_service.codec import decode_state, encode_state

if TYPE_CHECKING:
    from collections.abc import Callable

    from tienlen_rules import GameState


class StateCache:
    """The states a replica made or checked lately, by their state token.

    States are immutable values and `decode_state(encode_state(s, g)) == (s, g)` for every
    state (tests/codec/ proves it for every state of random games of every preset), so
    a token this replica produced need not be verified or decoded again: the next move of a
    game that comes back to the same replica (a PlayStream, a sticky load balancer, a single
    replica) skips both, and so do the repeated decodes of one token (every seat's GetView,
    ValidateMove then ApplyMove). A token becomes a key only once it is known good: this
    replica signed it (`encode`), or `verify` accepted it (`decode`). It stays good for the
    cache's life, because a replica's key ring is fixed when it starts (tokens.KeyRing holds
    an immutable tuple of keys). `sign` and `verify` are the token codec's.

    Bounded (`size` entries, oldest first out) and safe to share between worker threads:
    reads take no lock (a dict lookup is atomic), writes do. `missed` is called on every miss
    (a token verified and decoded: the servicer counts them, `tienlen_tokens_decoded_total`).
    """

    def __init__(self, size: int = 1024, *, missed: Callable[[], None] | None = None) -> None:
        if size < 1:
            raise ValueError("a state cache holds at least one state")
        self._size = size
        self._missed = missed
        # An OrderedDict drops its oldest entry in O(1) (`popitem(last=False)`); a dict's
        # `next(iter(d))` walks the deleted slots at its front: ~3x the cost per insert.
        self._entries: OrderedDict[bytes, tuple[GameState, bytes]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def encode(self, state: GameState, game_id: bytes, sign: Callable[[bytes], bytes]) -> bytes:
        """The state token `sign` makes of `encode_state`, remembering the state under it."""
        token = sign(encode_state(state, game_id))
        self._remember(token, (state, game_id))
        return token

    def decode(self, token: bytes, verify: Callable[[bytes], bytes]) -> tuple[GameState, bytes]:
        """The state and game id of a state token: from memory when this replica made or
        checked it lately, else `decode_state` of the payload `verify` returns (its errors,
        and `StateDecodeError`, propagate; a refused token is not remembered)."""
        entry = self._entries.get(token) if type(token) is bytes else None
        if entry is None:
            entry = decode_state(verify(token))
            self._remember(token, entry)
            if self._missed is not None:
                self._missed()
        return entry

    def clear(self) -> None:
        """Forget every state (benchmarks use it to measure a decode)."""
        with self._lock:
            self._entries.clear()

    def _remember(self, token: bytes, entry: tuple[GameState, bytes]) -> None:
        if type(token) is not bytes:  # pragma: no cover - protobuf bytes fields are bytes
            return
        entries, lock = self._entries, self._lock
        lock.acquire()  # by hand, as the metrics' counters: nothing below raises
        entries[token] = entry
        if len(entries) > self._size:  # one in, at most one out
            entries.popitem(last=False)
        lock.release()
