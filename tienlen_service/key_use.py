"""Which keys the tokens a replica accepts still need: the metric that says when a key can go.

A key rotation's last step removes the old key (docs/SECURITY.md). It is safe once no token in
use needs that key: no state token signed by it (`tienlen_tokens_verified_total{kid}`), and no
seat token minted under it (`tienlen_seat_tokens_verified_total{kid}`: only matches started
before match secrets have such tokens; the others' are keyed by the match's secret and counted
as `(match)`, needing no key at all). Every series exists at zero from the start, one per
configured key, so "stopped growing" can be read from the first scrape.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tienlen_service.tokens import MATCH_KEYED

if TYPE_CHECKING:
    from collections.abc import Sequence

    from tienlen_service.metrics import Metrics


class KeyUse:
    """Counts each accepted token under the key it needed (see the module's docstring)."""

    __slots__ = ("_seat", "state_tokens")

    def __init__(self, metrics: Metrics, kids: Sequence[str]) -> None:
        #: The series of accepted state tokens, by key id: the servicer counts each call's token
        #: under the key that signed it here itself (it is on every call's path).
        self.state_tokens = {kid: metrics.tokens_verified.labels(kid) for kid in kids}
        self._seat = {kid: metrics.seat_tokens_verified.labels(kid) for kid in (*kids, MATCH_KEYED)}

    def seat_token(self, vouched: str) -> None:
        """A seat token was accepted: minted under key `vouched`, or `MATCH_KEYED`."""
        self._seat[vouched].inc()
