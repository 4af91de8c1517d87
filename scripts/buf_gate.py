"""The wire-contract gate: `buf lint` (STANDARD, buf.yaml) and `buf breaking` against the
committed baseline of the last release (protos/baseline/tienlen-v1.image.json).

    python scripts/buf_gate.py                    # lint + breaking; exit 1 on any finding
    python scripts/buf_gate.py --root /tmp/copy   # the same on another tree (the gate's tests)
    python scripts/buf_gate.py --update-baseline  # at a release: record today's contract

A change that breaks `tienlen.v1` (a field removed, renumbered or retyped, a message or RPC
renamed, ...) fails the gate. To make such a change, publish it as a new package
(`protos/tienlen/v2/`) next to v1 — new files break nothing — and keep v1 until its frontends
have moved. Update the baseline only when a release is cut, never to make the gate pass.

The buf CLI comes from the npm package @bufbuild/buf, installed from clients/node's
package-lock.json (`cd clients/node && npm ci`); `$BUF` overrides its path.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BASELINE = Path("protos/baseline/tienlen-v1.image.json")
BUF_TIMEOUT_S = 120


def buf_path() -> str:
    """The buf executable: $BUF, else the one npm installed in clients/node."""
    explicit = os.environ.get("BUF")
    if explicit:
        return explicit
    path = REPO / "clients" / "node" / "node_modules" / ".bin" / "buf"
    if not path.exists():
        sys.exit(f"buf_gate: {path} is missing: run `cd clients/node && npm ci` first")
    return str(path)


def run(root: Path, *args: str) -> int:
    """Run buf in `root` (which holds buf.yaml); its findings go to stdout/stderr."""
    command = [buf_path(), *args]
    print(f"buf_gate: {' '.join(args)}", flush=True)
    try:
        return subprocess.run(command, cwd=root, timeout=BUF_TIMEOUT_S, check=False).returncode
    except subprocess.TimeoutExpired:
        print(f"buf_gate: buf {args[0]} took longer than {BUF_TIMEOUT_S}s", file=sys.stderr)
        return 1


def gate(root: Path) -> int:
    """Lint, then check for breaking changes against the baseline; 0 when both pass."""
    baseline = root / BASELINE
    if not baseline.exists():
        print(
            f"buf_gate: no baseline at {baseline}: run with --update-baseline at a release",
            file=sys.stderr,
        )
        return 1
    lint = run(root, "lint")
    breaking = run(root, "breaking", "--against", str(BASELINE))
    if lint or breaking:
        print(
            "buf_gate: FAILED — "
            + ("lint findings; " if lint else "")
            + (
                "breaking changes to the wire contract: publish them as tienlen.v2 instead"
                if breaking
                else ""
            ),
            file=sys.stderr,
        )
        return 1
    print("buf_gate: lint and breaking passed")
    return 0


def update_baseline(root: Path) -> int:
    """Record the current contract as the baseline (a buf image in JSON, without source info)."""
    (root / BASELINE).parent.mkdir(parents=True, exist_ok=True)
    code = run(root, "build", "--exclude-source-info", "-o", str(BASELINE))
    if code == 0:
        # One field per line, so a reviewer sees in the diff what a release changed.
        path = root / BASELINE
        path.write_text(
            json.dumps(json.loads(path.read_text(encoding="utf-8")), indent=1) + "\n",
            encoding="utf-8",
        )
        print(f"buf_gate: baseline written to {BASELINE}; commit it with the release")
    return code


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=REPO,
        help="tree holding buf.yaml and protos/ (default: this repo)",
    )
    parser.add_argument(
        "--update-baseline", action="store_true", help="write the baseline from the current protos"
    )
    ns = parser.parse_args(argv)
    root = ns.root.resolve()
    return update_baseline(root) if ns.update_baseline else gate(root)


if __name__ == "__main__":
    sys.exit(main())
