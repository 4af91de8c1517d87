"""The host's deal key in tests: the contract's public test key (tests/contract/deal-key.txt).

A service that checks seat tokens deals seeded or explicit hands only for the host, which
proves itself with the deal key (docs/SECURITY.md, "Who deals"); the in-process servers of the
tests that check seat tokens are given this key, and the tests that deal send it."""

from __future__ import annotations

from pathlib import Path
from typing import Final

DEAL_KEY_FILE: Final = Path(__file__).resolve().parent.parent / "contract" / "deal-key.txt"
DEAL_KEY: Final = DEAL_KEY_FILE.read_text(encoding="utf-8").strip()
