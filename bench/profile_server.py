"""Where a server's time goes under load: py-spy samples of a target, grouped by component.

    python bench/profile_server.py                          # ours, 8 tables, 8 s, apply mode
    python bench/profile_server.py --target echo --concurrency 64 --mode full

Starts the target as bench/load.py does, drives it with the load processes, and samples the
server with py-spy (`pip install py-spy`; root or ptrace rights) at `--rate` Hz with `--gil`:
only the thread holding the GIL is sampled, so the samples are the server's Python-side CPU.
It prints the share of samples that hold the GIL (how busy the interpreter is) and the share of
each component, inclusive (a sample counts for every component on its stack) and by leaf
(the innermost component of the stack). The raw stacks are kept with --keep.
"""

from __future__ import annotations

import argparse
import collections
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Final

import load
import traffic

from tienlen_service.config import Config

# (component, substring of "function (file:line)" frames), most specific first.
COMPONENTS: Final = (
    ("view -> wire", "view_to_wire ("),
    ("events -> wire", "events_to_wire ("),
    ("settle", "rules/settlement.py"),
    ("state decode", "decode_state ("),
    ("state encode", "encode_state ("),
    ("engine", "tienlen_rules/"),
    ("tokens", "tienlen_service/tokens.py"),
    ("token keys (MACs)", "tienlen_service/keys.py"),
    ("codec (other)", "tienlen_service/codec/"),
    ("servicer", "tienlen_service/servicer.py"),
    ("logging (structlog)", "structlog/"),
    ("metrics (prometheus_client)", "prometheus_client/"),
    ("call observer", "tienlen_service/observability.py"),
    ("access log", "tienlen_service/logs.py"),
    ("our metrics", "tienlen_service/metrics/"),
    ("echo handler", "bench/echo_server.py"),
    ("grpc server (python)", "grpc/_server.py"),
    ("grpc common/cython", "grpc/"),
    ("thread pool", "concurrent/futures/"),
    ("threading", "threading.py"),
)


def component(frame: str) -> str | None:
    for name, needle in COMPONENTS:
        if needle in frame:
            return name
    return None


def summarise(raw: Path, seconds: float, rate: int) -> list[str]:
    inclusive: collections.Counter[str] = collections.Counter()
    leaf: collections.Counter[str] = collections.Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not count_text.isdigit():
            continue
        count = int(count_text)
        total += count
        frames = stack.split(";")
        seen = {c for f in frames if (c := component(f)) is not None}
        for c in seen:
            inclusive[c] += count
        inner = next((c for f in reversed(frames) if (c := component(f)) is not None), "other")
        leaf[inner] += count
    expected = seconds * rate
    lines = [
        (
            f"{total} samples holding the GIL of ~{expected:.0f} taken: the interpreter is busy "
            f"{total / expected:.0%} of the time"
        ),
        f"{'component':<30}{'inclusive':>10}{'leaf':>8}",
    ]
    for name, _ in (*COMPONENTS, ("other", "")):
        if inclusive[name] or leaf[name]:
            lines.append(f"{name:<30}{inclusive[name] / total:>10.1%}{leaf[name] / total:>8.1%}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--target", default="ours")
    parser.add_argument("--mode", choices=traffic.MODES, default="apply")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--rate", type=int, default=250, help="samples per second")
    parser.add_argument("--games", type=int, default=150)
    parser.add_argument("--keep", type=Path, help="copy the raw py-spy stacks here")
    args = parser.parse_args()
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    if not Path(spy).exists():
        sys.exit("profile_server: py-spy is not installed (pip install py-spy)")
    target = load.Target.parse(args.target, Config().workers)
    keys = traffic.new_keys()
    with tempfile.TemporaryDirectory(prefix="tienlen-prof-") as tmp:
        workdir = Path(tmp)
        trace = workdir / "trace.pickle"
        traffic.save(traffic.record(args.games, keys, mode=args.mode), trace)
        running = load.start_target(target, keys=keys, trace=trace, workdir=workdir)
        raw = workdir / "stacks.txt"
        spies: list[subprocess.Popen[bytes]] = []

        def tick(elapsed: float) -> None:
            if spies or elapsed > 1.5:
                return
            spies.append(
                subprocess.Popen(  # py-spy on our own child
                    [
                        spy,
                        "record",
                        "--pid",
                        str(running.procs[0].pid),
                        "--rate",
                        str(args.rate),
                        "--duration",
                        str(int(args.seconds - 2)),
                        "--gil",
                        "--format",
                        "raw",
                        "--output",
                        str(raw),
                        "--nonblocking",
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )

        try:
            point = load.run_point(
                running,
                trace=trace,
                mode=args.mode,
                concurrency=args.concurrency,
                seconds=args.seconds,
                warmup=1.0,
                clients=2,
                channels=2,
                max_calls=10**7,
                tick=tick,
            )
            for s in spies:
                s.wait(timeout=60)
        finally:
            running.stop()
        print(f"# {load.machine()}")
        print(load.HEADER)
        print(load.row(point))
        if not raw.exists():
            sys.exit("profile_server: py-spy wrote nothing (ptrace not allowed?)")
        print("\n".join(summarise(raw, args.seconds - 2, args.rate)))
        if args.keep:
            shutil.copy(raw, args.keep)
    return 0


if __name__ == "__main__":
    sys.exit(main())
