"""State-token costs: sign/verify and seal/open of a game-sized payload, in microseconds.

    python bench/bench_tokens.py [--payload 400] [--rounds 15] [--number 5000]

Prints the median (and p90 over rounds) µs per operation, and each as a ratio to a bare
HMAC-SHA256 of the same bytes measured in the same run — the ratio is the figure that holds
on a shared, noisy machine.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import os
import platform
import statistics
import timeit
from collections.abc import Callable

from tienlen_service.tokens import KeyRing, TokenCodec


def per_op_us(fn: Callable[[], object], number: int, rounds: int) -> tuple[float, float]:
    times = sorted(t / number * 1e6 for t in timeit.repeat(fn, number=number, repeat=rounds))
    return statistics.median(times), times[int(0.9 * (len(times) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--payload", type=int, default=400, help="payload bytes (a game state)")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--number", type=int, default=5000, help="operations per round")
    args = parser.parse_args()

    payload = os.urandom(args.payload)
    ring = KeyRing.generate()
    signed = TokenCodec(ring, seal=False)
    sealed = TokenCodec(ring, seal=True)
    signed_token = signed.encode(payload)
    sealed_token = sealed.encode(payload)
    seat = signed.seat_token(b"g" * 16, 1)
    key = os.urandom(32)

    cases: list[tuple[str, Callable[[], object]]] = [
        ("baseline: hmac-sha256", lambda: hmac.digest(key, signed_token, hashlib.sha256)),
        ("sign (encode, unsealed)", lambda: signed.encode(payload)),
        ("verify (decode, unsealed)", lambda: signed.decode(signed_token)),
        ("seal (encode, sealed)", lambda: sealed.encode(payload)),
        ("open (decode, sealed)", lambda: sealed.decode(sealed_token)),
        ("seat token: mint", lambda: signed.seat_token(b"g" * 16, 1)),
        ("seat token: check", lambda: signed.check_seat_token(b"g" * 16, 1, seat)),
    ]
    print(f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}")
    print(
        f"payload {args.payload} B -> token {len(signed_token)} B signed, "
        f"{len(sealed_token)} B sealed; {args.rounds} rounds x {args.number} ops"
    )
    baseline = None
    print(f"{'operation':28} {'median µs':>10} {'p90 µs':>8} {'x hmac':>7}")
    for name, fn in cases:
        median, p90 = per_op_us(fn, args.number, args.rounds)
        baseline = baseline or median
        print(f"{name:28} {median:10.2f} {p90:8.2f} {median / baseline:7.1f}")


if __name__ == "__main__":
    main()
