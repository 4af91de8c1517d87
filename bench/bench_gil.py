"""Which calls on the hot path give the GIL away: calls/s alone, and beside a busy thread.

    python bench/bench_gil.py

A call that releases the GIL (a system call, OpenSSL's one-shot HMAC) lets another thread take
it, and getting it back waits for that thread's switch interval: beside one busy thread such a
call runs hundreds of times a second instead of hundreds of thousands. In a loaded threaded
server (the gRPC poller and the other workers want the GIL) every release costs a context
switch. Each row: calls/s alone, calls/s with a busy thread, and their ratio (near 1 when the
call keeps the GIL). Nothing is asserted; tests pin the hot path's own choices.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import threading
import time
import uuid
from typing import TYPE_CHECKING

from tienlen_service import codec, entropy
from tienlen_service.tokens import KeyRing, TokenCodec

if TYPE_CHECKING:
    from collections.abc import Callable

KEY = bytes(range(32))
MESSAGE = bytes(300)  # about a state token's signed prefix


def rate(fn: Callable[[], object], calls: int) -> float:
    """Calls per second of `calls` calls."""
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return calls / (time.perf_counter() - start)


def beside_a_busy_thread(fn: Callable[[], object], calls: int) -> float:
    """Calls per second while another thread spins in pure Python."""
    stop = threading.Event()

    def spin() -> None:
        while not stop.is_set():
            pass

    spinner = threading.Thread(target=spin)
    spinner.start()
    try:
        time.sleep(0.01)
        return rate(fn, calls)
    finally:
        stop.set()
        spinner.join()


def main() -> None:
    keyed = hmac.new(KEY, digestmod=hashlib.sha256)
    tokens = TokenCodec(KeyRing.generate(), seal=False)
    sealed = TokenCodec(KeyRing.generate(), seal=True)
    token = tokens.encode(MESSAGE)

    def copied_hmac() -> bytes:
        mac = keyed.copy()
        mac.update(MESSAGE)
        return mac.digest()

    rows: list[tuple[str, Callable[[], object]]] = [
        ("hmac.digest (one-shot)", lambda: hmac.digest(KEY, MESSAGE, hashlib.sha256)),
        ("keyed HMAC object, copied (tokens.py)", copied_hmac),
        ("os.urandom(16)", lambda: os.urandom(16)),
        ("uuid.uuid4()", uuid.uuid4),
        ("entropy.random_bytes(16)", lambda: entropy.random_bytes(16)),
        ("token sign", lambda: tokens.encode(MESSAGE)),
        ("token verify", lambda: tokens.decode(token)),
        ("token seal", lambda: sealed.encode(MESSAGE)),
        ("game id (codec.new_game_id)", codec.new_game_id),
    ]
    print(f"{'call':<40}{'alone /s':>12}{'busy thread /s':>16}{'ratio':>8}")
    for name, fn in rows:
        alone = rate(fn, 20_000)
        # Few calls beside the spinner: a call that gives the GIL away waits ~5 ms each time.
        contended = beside_a_busy_thread(fn, 2_000)
        print(f"{name:<40}{alone:>12,.0f}{contended:>16,.0f}{contended / alone:>8.3f}")


if __name__ == "__main__":
    main()
