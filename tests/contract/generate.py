"""Write the golden conversations (tests/contract/conversations/*.json) by running them.

    .venv/bin/python -m tests.contract.generate            # every conversation
    .venv/bin/python -m tests.contract.generate chop_chain  # only these

Each scenario below states, with `must=`, the facts its author derived from RULES.md (who
leads and acts, chop payments, places, nets); the generator stops if the server disagrees.
Everything else an answer holds is recorded as the expectation and reviewed by reading the
file before it is committed. Regenerate only when the contract changes on purpose, and review
the diff: a golden file that changes is a frontend that breaks.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import grpc

from tienlen.v1 import service_pb2_grpc

from . import runner
from .golden import Script
from .scenarios import SCENARIOS

if TYPE_CHECKING:
    from collections.abc import Callable


def main(argv: list[str]) -> int:
    """Run the chosen scenarios (default: all) and write their files."""
    chosen: dict[str, Callable[[Script], Any]] = {
        name: fn for name, (fn, _title, _rules) in SCENARIOS.items() if not argv or name in argv
    }
    unknown = set(argv) - set(SCENARIOS)
    if unknown:
        print(f"unknown scenarios: {', '.join(sorted(unknown))}", file=sys.stderr)  # noqa: T201 - a command-line tool
        return 2
    runner.CONVERSATIONS_DIR.mkdir(exist_ok=True)
    with runner.served() as address, grpc.insecure_channel(address) as channel:
        stub = service_pb2_grpc.TienLenEngineStub(channel)
        for name, fn in chosen.items():
            _, title, rules = SCENARIOS[name]
            script = Script(stub, name, title, rules)
            fn(script)
            path = script.write(runner.CONVERSATIONS_DIR)
            print(f"{path.relative_to(runner.REPO)}: {len(script.steps)} steps")  # noqa: T201
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
