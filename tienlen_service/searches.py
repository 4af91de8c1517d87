"""Bot suggestions for SuggestMove: which bot by default, and the searches that watch their call.

Every suggestion watches its call: `call_gone(context)` is asked between the suggestion's steps
and, by a search (`SEARCH_BOTS`: hundreds of playouts), between playouts, and the bot stops
when the caller cancelled, hung up or its deadline passed (every transport's context honours
one contract for this, `call_context.CallContext`), so abandoned calls cannot hold the workers;
and at most `search_slots(workers)` searches run at once (more are refused at once
with RESOURCE_EXHAUSTED, which clients retry with backoff). The bot's seed is derived from the
request (`suggestion_seed`), so the same request gets the same suggestion on every replica.
"""

from __future__ import annotations

import hashlib
import struct
import threading
from typing import TYPE_CHECKING, Final

import grpc

import tienlen_rules as engine
from tienlen_service.call_context import call_gone, expired
from tienlen_service.statuses import CALL_ABANDONED, TOO_MANY_SEARCHES, abort, rich_status

if TYPE_CHECKING:
    from tienlen.v1 import service_pb2
    from tienlen_rules import GameState
    from tienlen_service.metrics import Metrics

DEFAULT_BOT: Final = "greedy"
#: Bots whose suggestion is a search (hundreds of playouts): watched and bounded; and the
#: difficulty levels played by one.
SEARCH_BOTS: Final = frozenset({"montecarlo", "expert"})
_SEARCH_NAMES: Final = SEARCH_BOTS | {
    level.name for level in engine.LEVELS if level.bot.partition(":")[0] in SEARCH_BOTS
}


def search_slots(workers: int) -> int:
    """How many bot searches (`SEARCH_BOTS`) a server with `workers` call threads runs at once:
    half of them, at least one, on the hint pool (`budget.WorkerPools`), never on the
    `workers` that cheap calls need."""
    return max(1, workers // 2)


class Search:
    """A replica's bot searches: calling it asks a bot for a seat's move, timed and counted by
    bot; a search (`SEARCH_BOTS`) takes one of `max_searches` slots and watches its call."""

    def __init__(self, *, metrics: Metrics, max_searches: int) -> None:
        self._metrics = metrics
        self._max_searches = max_searches
        self._searches = threading.BoundedSemaphore(max_searches)

    def __call__(
        self,
        state: GameState,
        request: service_pb2.SuggestMoveRequest,
        name: str,
        context: grpc.ServicerContext,
    ) -> engine.Suggestion | None:
        """A bot's suggestion, timed and counted by bot; a search (SEARCH_BOTS) takes a slot."""
        search, bounded = self._metrics.bot_search(name), name in _SEARCH_NAMES
        if bounded and not self._searches.acquire(blocking=False):
            search.refused()
            abort(
                context,
                rich_status(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    TOO_MANY_SEARCHES,
                    f"this replica runs at most {self._max_searches} {name} searches at once;"
                    " retry with backoff, or ask a cheaper bot",
                    {"bot": name},
                ),
            )
        try:
            return search.run(
                engine.suggest,
                state,
                request.seat,
                name,
                seed=suggestion_seed(request),
                should_stop=call_gone(context),
            )
        except engine.Abandoned:
            deadline_passed = expired(context)
            abort(
                context,
                rich_status(
                    grpc.StatusCode.DEADLINE_EXCEEDED
                    if deadline_passed
                    else grpc.StatusCode.CANCELLED,
                    CALL_ABANDONED,
                    "the search stopped: the call's deadline passed"
                    if deadline_passed
                    else "the search stopped: the call was cancelled",
                    {"bot": name},
                ),
            )
        finally:
            if bounded:
                self._searches.release()


def suggestion_seed(request: service_pb2.SuggestMoveRequest) -> int:
    """The bot's random seed, derived from the request: the same request gets the same
    suggestion on every replica (a pure function)."""
    digest = hashlib.blake2b(request.state_token, digest_size=8, person=b"tienlen-suggest")
    digest.update(struct.pack(">i", request.seat))
    digest.update(request.bot.encode())
    return int.from_bytes(digest.digest(), "big")
