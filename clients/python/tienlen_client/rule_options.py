"""`RuleOptions`: the presets' option values, asked of DescribeRules once per client.

Following a table from the events (``update_view="basic"``) needs two option values that the
events and `TableView.rules` don't carry (`follow.TableRules`). They are the deployment's data,
the same for every game, so one DescribeRules call serves a client for its lifetime. While
DescribeRules can't be had (the service or a gateway refuses it), moves are asked for the full
view instead, and DescribeRules is asked again at most every `RETRY_SECONDS`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Final

from tienlen.v1 import game_pb2, moves_pb2, service_pb2
from tienlen_client.errors import TienLenError
from tienlen_client.follow import CannotFollow, TableRules, UpdateView
from tienlen_client.models import Game

#: How long a client waits after a failed DescribeRules before asking again (its basic moves
#: get full answers meanwhile).
RETRY_SECONDS: Final = 30.0

_log = logging.getLogger("tienlen_client")


class RuleOptions:
    """The option values of every preset (from `describe`, called at most once, on first use);
    safe to share between threads."""

    def __init__(
        self,
        describe: Callable[[], service_pb2.DescribeRulesResponse],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._describe = describe
        self._clock = clock
        self._lock = threading.Lock()
        self._presets: dict[str, dict[str, str]] | None = None
        self._retry_at = float("-inf")

    def presets(self) -> dict[str, dict[str, str]]:
        """Every preset's option values by name (asks DescribeRules the first time; its errors
        are raised as the client raises them)."""
        with self._lock:  # held during the call: concurrent first users wait for one answer
            if self._presets is None:
                described = self._describe()
                self._presets = {
                    v.name: {o.name: o.value for o in v.option_values} for v in described.variants
                }
            return self._presets

    def table_rules(self, game: Game) -> TableRules | None:
        """What following `game` from the events needs; None when it can't be followed (its
        view is a seat's, or its preset or option values are unknown here): ask for the view."""
        if game.view.seat is not None:
            return None
        presets = self._presets_or_none()
        if presets is None:
            return None
        try:
            return TableRules.resolve(game.view.raw.rules, presets)
        except CannotFollow:
            return None

    def _presets_or_none(self) -> dict[str, dict[str, str]] | None:
        """`presets()`, or None while DescribeRules fails (logged; asked again after
        `RETRY_SECONDS`): a move is then simply answered with the full view."""
        if self._presets is None and self._clock() < self._retry_at:
            return None
        try:
            return self.presets()
        except TienLenError as exc:
            self._retry_at = self._clock() + RETRY_SECONDS
            _log.warning(
                "asking for full answers: DescribeRules failed (%s); retrying in %.0f s",
                exc,
                RETRY_SECONDS,
            )
            return None


def apply_request(
    options: RuleOptions | None,
    game: Game,
    seat: int,
    wire_move: moves_pb2.Move,
    wanted: UpdateView,
) -> tuple[service_pb2.ApplyMoveRequest, TableRules | None]:
    """The ApplyMoveRequest of a move (unary or streamed), and the rules its answer is followed
    with: a basic answer only when one is `wanted` and the table can be followed, else the
    full view is asked for up front (rules None)."""
    rules = options.table_rules(game) if wanted == "basic" and options is not None else None
    request = service_pb2.ApplyMoveRequest(
        state_token=game.state,
        seat=seat,
        seat_token=game.seat_token(seat),
        move=wire_move,
        view=game_pb2.UPDATE_VIEW_BASIC if rules is not None else game_pb2.UPDATE_VIEW_UNSPECIFIED,
    )
    return request, rules
