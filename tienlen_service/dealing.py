"""Who may choose a deal, and the deal a NewGame or NextGame request asks for.

Only the host chooses a deal (docs/SECURITY.md, "Who deals"): a seeded or explicit deal needs
the host's deal key where the service has one (`--deal-key-file`). Where the service checks
seat tokens and has no deal key, nobody can prove it is the host, so NewGame and NextGame deal
only at random: a seat token or a finished state token never deals. Elsewhere anyone may act
for any seat, so anyone may deal. A random next deal is fixed by the finished game (`TokenCodec.deal_seed`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tienlen.v1 import service_pb2
from tienlen_service import codec
from tienlen_service.statuses import DealNotAllowed

if TYPE_CHECKING:
    from tienlen_service.keys import DealKey

DealRequest = service_pb2.NewGameRequest | service_pb2.NextGameRequest


class Dealer:
    """The service's dealing authority: `check` refuses a request that may not choose its deal."""

    __slots__ = ("_deal_key", "_require_seat_tokens")

    def __init__(self, deal_key: DealKey | None, *, require_seat_tokens: bool) -> None:
        self._deal_key = deal_key
        self._require_seat_tokens = require_seat_tokens

    def is_host(self, deal_key: str) -> bool:
        """Whether a request proves it is the host's: it carries this service's deal key."""
        return self._deal_key is not None and bool(deal_key) and self._deal_key.check(deal_key)

    def check(self, request: DealRequest) -> None:
        """DealNotAllowed if `request` asks for a seeded or explicit deal it may not choose."""
        if request.WhichOneof("deal") not in {"seed", "explicit"}:
            return
        if self._deal_key is not None:
            if not request.deal_key:
                raise DealNotAllowed("a seeded or explicit deal needs the host's deal key")
            if not self._deal_key.check(request.deal_key):
                raise DealNotAllowed("the deal key is not this service's")
        elif self._require_seat_tokens:
            raise DealNotAllowed(
                "this service deals only at random: it checks seat tokens and has no deal key"
                " (--deal-key-file) for the host's seeded or explicit deals"
            )


def requested_deal(request: DealRequest) -> tuple[int | None, tuple[int, ...] | None]:
    """The seed or explicit hands of a request's `deal` oneof (None, None: random, or for
    NextGame unset: as the match deals)."""
    which = request.WhichOneof("deal")
    if which == "seed":
        return request.seed, None
    if which == "explicit":
        return None, tuple(
            codec.hand_from_pb(hand.cards, f"explicit.hands[{i}].cards")
            for i, hand in enumerate(request.explicit.hands)
        )
    return None, None
