"""Metrics: the standard gRPC server metrics and the service's own (`metrics_server` serves
them), every family in this package:

    calls    the standard gRPC server series per method (`MethodSeries`), the calls in flight
             (`InFlight`), the web port's calls and connections (`WebMetrics`,
             `WebConnectionMetrics`)
    domain   games, moves, chops and tokens (`CounterFamily`, `VariantCounters`), the bots'
             searches (`BotSearch`)

Names follow the standard gRPC server metrics (as go-grpc-prometheus and py-grpc-prometheus
export them) so that existing dashboards and alerts work unchanged, plus the domain counters
prefixed ``tienlen_``. Labels never hold a game, a player, a card or a token. The call
observer (`observability`) and the web port feed them; every call is counted and timed. The
servicer times and counts each bot run of SuggestMove (`BotSearch`) under the bot's name.
`Metrics` registers the server's families in one registry (the web port adds its own two).
"""

from __future__ import annotations

import threading

import grpc
from prometheus_client import (
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    GCCollector,
    Histogram,
    PlatformCollector,
    ProcessCollector,
    disable_created_metrics,
)

from tienlen_rules import BOTS, LEVELS_BY_NAME
from tienlen_service.metrics.calls import (
    HANDLING_BUCKETS,
    GrpcCollector,
    InFlight,
    MethodSeries,
    WebConnectionMetrics,
    WebMetrics,
)
from tienlen_service.metrics.domain import (
    SEARCH_BUCKETS,
    SEARCH_OUTCOMES,
    BotSearch,
    Count,
    CounterFamily,
    PlainCounter,
    VariantCounters,
)

__all__ = [
    "HANDLING_BUCKETS",
    "SEARCH_BUCKETS",
    "SEARCH_OUTCOMES",
    "BotSearch",
    "Count",
    "CounterFamily",
    "InFlight",
    "MethodSeries",
    "Metrics",
    "PlainCounter",
    "VariantCounters",
    "WebConnectionMetrics",
    "WebMetrics",
]


class Metrics:
    """The service's Prometheus metrics, registered in one `CollectorRegistry`.

    A registry per server (not prometheus_client's global one) lets several servers live in
    one process, as they do in the tests.
    """

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        # The `*_created` series double the exposition for nothing Prometheus uses (it is a
        # process-wide switch of prometheus_client; every server here wants it off).
        disable_created_metrics()  # type: ignore[no-untyped-call]
        self.registry = registry if registry is not None else CollectorRegistry(auto_describe=True)
        r = self.registry
        # --- the standard gRPC server metrics -----------------------------------------------
        # Kept as plain numbers per method under one lock (`MethodSeries`), exported by a
        # collector under the same names, labels and buckets as prometheus_client's own
        # Counter and Histogram would: five locked updates per call instead of six
        # library calls of a lock each (bench/README.md, issue 28).
        self._grpc_series: dict[tuple[str, str, str], MethodSeries] = {}
        self._grpc_lock = threading.Lock()
        r.register(GrpcCollector(self._grpc_series))
        self.in_flight = InFlight(self._grpc_series)
        r.register(self.in_flight)
        # --- domain counters (exported with a _total suffix) ----------------------------------
        # Counted on every move: plain numbers under a lock (`CounterFamily`).
        self.games_started = CounterFamily(
            "tienlen_games_started", "Games dealt (NewGame and NextGame).", "variant", r
        )
        self.moves_applied = CounterFamily(
            "tienlen_moves_applied", "Moves (plays and passes) applied.", "variant", r
        )
        self.moves_rejected = Counter(
            "tienlen_moves_rejected",
            "Moves refused by the rules, by the engine's reason code.",
            ("reason",),
            registry=r,
        )
        self.games_finished = CounterFamily(
            "tienlen_games_finished", "Games played to their settlement.", "variant", r
        )
        self.instant_wins = CounterFamily(
            "tienlen_instant_wins",
            "Games ended at the deal by an instant win (tới trắng).",
            "variant",
            r,
        )
        self.chops = CounterFamily(
            "tienlen_chops", "Chops (chặt) of a 2 or of a chop.", "variant", r
        )
        self.tokens_rejected = Counter(
            "tienlen_tokens_rejected",
            "State or seat tokens refused, by reason code.",
            ("reason",),
            registry=r,
        )
        # By key id (configured keys: few values): once a retired key's series stop growing
        # in both, the key can go (docs/SECURITY.md, rotation).
        self.tokens_verified = CounterFamily(
            "tienlen_tokens_verified",
            "State tokens accepted, by the id of the key that signed them.",
            "kid",
            r,
        )
        self.seat_tokens_verified = CounterFamily(
            "tienlen_seat_tokens_verified",
            "Seat tokens accepted, by the key they were minted under; (match): the match's.",
            "kid",
            r,
        )
        self.tokens_decoded = PlainCounter(
            "tienlen_tokens_decoded",
            "State tokens verified and decoded because this replica had not made or checked them "
            "lately (a state cache miss; counted on misses only). Against "
            "tienlen_tokens_verified_total: the state cache's hit rate, high where a balancer "
            "sends a game's calls to one replica (deploy/README.md, Affinity).",
            r,
        )
        self._variants: dict[str, VariantCounters] = {}
        # --- the bots of SuggestMove ------------------------------------------------------------
        self.bot_search_seconds = Histogram(
            "tienlen_bot_search_seconds",
            "Time a bot took to answer SuggestMove (or to give up, abandoned), in seconds.",
            ("bot",),
            buckets=SEARCH_BUCKETS,
            registry=r,
        )
        self.bot_searches = Counter(
            "tienlen_bot_searches",
            "Bot runs of SuggestMove, by bot and outcome (suggested, no_move, abandoned, refused).",
            ("bot", "outcome"),
            registry=r,
        )
        # Every bot's series from the start, at zero (a dashboard sees a bot before its first
        # call); the label values are the engine's bot names only, never a caller's string.
        self._bots = {
            bot: BotSearch(self.bot_search_seconds, self.bot_searches, bot)
            for bot in (*BOTS, *LEVELS_BY_NAME)
        }
        self.build_info = Gauge(
            "tienlen_build_info",
            "Always 1; the labels tell the running version.",
            ("version",),
            registry=r,
        )
        self._register_runtime_collectors(r)

    @staticmethod
    def _register_runtime_collectors(registry: CollectorRegistry) -> None:
        """The process's own series: process_* (CPU seconds, RSS, open and max fds, start
        time), python_gc_* (collections, collected and uncollectable objects) and python_info.

        prometheus_client registers these in its global registry only; a registry of our own
        must add them, or the saturation alerts and panels (deploy/) find nothing. The
        collectors read the live process at each scrape, so one set per registry is right.
        Into the global registry (already holding them) they are not added twice.
        """
        if registry is REGISTRY:
            return
        ProcessCollector(registry=registry)
        GCCollector(registry=registry)
        PlatformCollector(registry=registry)

    def variant(self, variant: str) -> VariantCounters:
        """The domain counters of one variant, their labelled children looked up once: the
        servicer counts every move, and `labels()` validates, sorts and locks on each call."""
        counters = self._variants.get(variant)
        if counters is None:
            counters = VariantCounters(
                games_started=self.games_started.labels(variant),
                moves_applied=self.moves_applied.labels(variant),
                games_finished=self.games_finished.labels(variant),
                instant_wins=self.instant_wins.labels(variant),
                chops=self.chops.labels(variant),
            )
            # A race only builds the same tuple twice: labels() returns one series per value.
            self._variants[variant] = counters
        return counters

    def bot_search(self, bot: str) -> BotSearch:
        """The series of `bot`, one of the engine's `BOTS` or level names (KeyError for any other name: the
        servicer refuses an unknown bot before it asks, so no label holds a caller's string)."""
        return self._bots[bot]

    def initialize_methods(self, service: str, methods: dict[str, str]) -> None:
        """Create the zero-valued series of every method (name -> grpc_type) of `service`.

        So that ``rate()`` over a method that has not been called yet is 0, not "no data".
        """
        for method, grpc_type in methods.items():
            self.method_series(grpc_type, service, method).initialize(grpc.StatusCode.OK)

    def method_series(self, grpc_type: str, service: str, method: str) -> MethodSeries:
        """The standard gRPC series of one method (made at zero on first use)."""
        key = (grpc_type, service, method)
        series = self._grpc_series.get(key)
        if series is None:
            with self._grpc_lock:
                series = self._grpc_series.setdefault(key, MethodSeries(key))
        return series
