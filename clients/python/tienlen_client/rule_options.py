"""`RuleOptions`: the presets' option values, asked of DescribeRules once per client.

Following a table from the events (``update_view="basic"``) needs two option values that the
events and `TableView.rules` don't carry (`follow.TableRules`). They are the deployment's data,
the same for every game, so one DescribeRules call serves a client for its lifetime.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from tienlen.v1 import service_pb2
from tienlen_client.follow import CannotFollow, TableRules
from tienlen_client.models import Game


class RuleOptions:
    """The option values of every preset (from `describe`, called at most once, on first use);
    safe to share between threads."""

    def __init__(self, describe: Callable[[], service_pb2.DescribeRulesResponse]) -> None:
        self._describe = describe
        self._lock = threading.Lock()
        self._presets: dict[str, dict[str, str]] | None = None

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
        try:
            return TableRules.resolve(game.view.raw.rules, self.presets())
        except CannotFollow:
            return None
