"""A replica's resident memory over a long load run: does it stay flat?

    python bench/memory.py --minutes 5                  # the figure in bench/README.md
    python bench/memory.py --minutes 0.5 --interval 5   # a quick look

Starts the target (default: our service, `python -m tienlen_service`, one JSON log line per
call), replays complete games at `--concurrency` tables (bench/load.py's load processes) for
`--minutes`, and samples the server's VmRSS every `--interval` seconds. Prints the samples,
then RSS idle (before any call), after the first minute (warm: caches filled, pools grown),
at the end and at its peak, and the growth per minute after the first minute (least squares):
flat means that slope is ~0. Loopback only, bounded by --minutes. Asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import load
import traffic

from tienlen_service.config import Config

MB = 1024 * 1024


def slope_per_minute(samples: list[tuple[float, int]]) -> float:
    """Least-squares slope of RSS (MB) over time (minutes)."""
    if len(samples) < 2:
        return 0.0
    xs = [t / 60 for t, _ in samples]
    ys = [r / MB for _, r in samples]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    den = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / den if den else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--interval", type=float, default=15.0, help="seconds between samples")
    parser.add_argument("--target", default="ours")
    parser.add_argument("--mode", choices=traffic.MODES, default="apply")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--games", type=int, default=300)
    args = parser.parse_args()
    if not 0 < args.minutes <= 60:
        parser.error("--minutes must be in (0, 60]")
    target = load.Target.parse(args.target, Config().workers)
    keys = traffic.new_keys()
    print(f"# memory — {load.machine()}")
    with tempfile.TemporaryDirectory(prefix="tienlen-mem-") as tmp:
        workdir = Path(tmp)
        trace = workdir / "trace.pickle"
        traffic.save(traffic.record(args.games, keys, mode=args.mode), trace)
        running = load.start_target(target, keys=keys, trace=trace, workdir=workdir)
        idle = sum(running.rss_bytes())
        samples: list[tuple[float, int]] = []
        last = [-args.interval]

        def tick(elapsed: float) -> None:
            if elapsed - last[0] >= args.interval:
                last[0] = elapsed
                rss = sum(running.rss_bytes())
                samples.append((elapsed, rss))
                print(f"  {elapsed:7.0f} s  {rss / MB:8.1f} MB", flush=True)

        print(f"{target.spec}: idle RSS {idle / MB:.1f} MB; {args.concurrency} tables, {args.mode}")
        started = time.monotonic()
        try:
            point = load.run_point(
                running,
                trace=trace,
                mode=args.mode,
                concurrency=args.concurrency,
                seconds=args.minutes * 60,
                warmup=2.0,
                clients=2,
                channels=2,
                max_calls=50_000_000,
                tick=tick,
            )
            end = sum(running.rss_bytes())
        finally:
            running.stop()
        samples.append((time.monotonic() - started, end))
    print(load.HEADER)
    print(load.row(point))
    warm = [s for s in samples if s[0] >= 60] or samples
    peak = max(r for _, r in samples)
    print(
        f"RSS: idle {idle / MB:.1f} MB, after 1 min {warm[0][1] / MB:.1f} MB, end {end / MB:.1f} MB,"
        f" peak {peak / MB:.1f} MB; after the first minute {slope_per_minute(warm):+.2f} MB/min"
        f" over {point.calls} calls"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
