"""Metrics: the standard gRPC server metrics and the service's own (`metrics_server` serves them).

Names follow the standard gRPC server metrics (as go-grpc-prometheus and py-grpc-prometheus
export them) so that existing dashboards and alerts work unchanged, plus a few domain counters
prefixed ``tienlen_``. Labels never hold a game, a player, a card or a token. The interceptor
(`observability`) and the web port feed them; every call is counted and timed. The servicer
times and counts each bot run of SuggestMove (`BotSearch`) under the bot's name.
"""

from __future__ import annotations

import threading
import time
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from itertools import accumulate
from typing import TYPE_CHECKING, Any, Final, NamedTuple, ParamSpec, TypeVar

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
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

from tienlen_rules import BOTS, LEVELS_BY_NAME, Abandoned

if TYPE_CHECKING:
    _Handler = grpc.RpcMethodHandler[Any, Any]
    _ServerInterceptor = grpc.ServerInterceptor[Any, Any]
else:
    _ServerInterceptor = grpc.ServerInterceptor


# Sub-millisecond engine calls up to slow, queued ones: the default Prometheus buckets start
# at 5 ms, which would put every healthy call of this service in the first bucket.
HANDLING_BUCKETS: Final = (
    0.0001,
    0.00025,
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
)

# A bot's answer, from tens of microseconds to seconds: a random or greedy suggestion takes
# about 50-100 µs (below the calls' first bucket, where the two could not be told apart), a
# Monte-Carlo search hundreds of playouts, about a second at a game's first lead. Above 0.1 ms
# the bounds are the calls' own, so a search reads against its SuggestMove calls bucket by bucket.
SEARCH_BUCKETS: Final = (0.000025, 0.00005, *HANDLING_BUCKETS)

#: What became of one bot run of SuggestMove (the `outcome` label of tienlen_bot_searches_total):
#: it answered with a move; it answered that the seat has nothing to do; it stopped because its
#: call ended (deadline passed or client cancelled: the engine's `Abandoned`); or it never ran,
#: refused at once because every search slot was taken (TOO_MANY_SEARCHES).
SEARCH_OUTCOMES: Final = ("suggested", "no_move", "abandoned", "refused")

_P = ParamSpec("_P")
_T = TypeVar("_T")


class Count:
    """One series of a `CounterFamily`: a number under a lock."""

    __slots__ = ("_lock", "value")

    def __init__(self) -> None:
        self._lock, self.value = threading.Lock(), 0

    def inc(self) -> None:
        """One more."""
        with self._lock:
            self.value += 1


class CounterFamily(Collector):
    """A one-label counter counted on every move (moves, games, verified tokens): plain numbers
    (`Count`) exported at each scrape as prometheus_client's `Counter` exports them; one locked
    add instead of the library's three calls, ~1.2k instead of ~4.3k instructions (issue 28)."""

    def __init__(self, name: str, doc: str, label: str, registry: CollectorRegistry) -> None:
        self._name, self._doc, self._label = name, doc, label
        self._children: dict[str, Count] = {}
        self._lock = threading.Lock()
        registry.register(self)

    def labels(self, value: str) -> Count:
        """The series of one label value (made at its first use)."""
        child = self._children.get(value)
        if child is None:
            with self._lock:
                child = self._children.setdefault(value, Count())
        return child

    def describe(self) -> list[Metric]:
        """The family without its samples (what the registry reads at register)."""
        return [CounterMetricFamily(self._name, self._doc, labels=(self._label,))]

    def collect(self) -> list[Metric]:
        """Every series' value, in the order first used (read at each scrape)."""
        family = CounterMetricFamily(self._name, self._doc, labels=(self._label,))
        for value, child in list(self._children.items()):
            family.add_metric((value,), child.value)
        return [family]


class VariantCounters(NamedTuple):
    """One variant's domain counters (series of the `variant`-labelled counters)."""

    games_started: Count
    moves_applied: Count
    games_finished: Count
    instant_wins: Count
    chops: Count


class BotSearch:
    """One bot's series: its child of the search-time histogram and its children of the
    outcome counter, looked up once (`labels()` validates, sorts and locks on every call)."""

    def __init__(self, seconds: Histogram, searches: Counter, bot: str) -> None:
        self._seconds = seconds.labels(bot=bot)
        self._outcomes = {o: searches.labels(bot=bot, outcome=o) for o in SEARCH_OUTCOMES}

    def refused(self) -> None:
        """No search slot was free: counted, not timed (the bot never ran)."""
        self._outcomes["refused"].inc()

    def run(self, search: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        """`search(*args, **kwargs)`, timed and counted by how it ended: `suggested` (an
        answer), `no_move` (None: the seat has nothing to do) or `abandoned` (`Abandoned`,
        re-raised). Any other exception is a bug, left to the gRPC metrics (code UNKNOWN)."""
        start = time.perf_counter()
        try:
            result = search(*args, **kwargs)
        except Abandoned:
            self._finish("abandoned", start)
            raise
        self._finish("no_move" if result is None else "suggested", start)
        return result

    def _finish(self, outcome: str, start: float) -> None:
        self._seconds.observe(time.perf_counter() - start)
        self._outcomes[outcome].inc()


_BOUNDS: Final = tuple(HANDLING_BUCKETS)
_BUCKET_NAMES: Final = (
    *(floatToGoString(b) for b in HANDLING_BUCKETS),  # type: ignore[no-untyped-call]
    "+Inf",
)
_RPC_LABELS: Final = ("grpc_type", "grpc_service", "grpc_method")


class MethodSeries:
    """One method's standard gRPC server series — calls started, request and response
    messages, calls handled by status code, the handling-time histogram — as plain numbers
    under one lock, read by `_GrpcCollector` at each scrape. Every update is exact; a call's
    end is one locked update (`finish`), not one library call per series."""

    __slots__ = ("_lock", "buckets", "handled", "labels", "received", "sent", "started", "total")

    def __init__(self, labels: tuple[str, str, str]) -> None:
        self.labels = labels
        self._lock = threading.Lock()
        self.started = 0
        self.received = 0
        self.sent = 0
        self.handled: dict[str, int] = {}
        self.buckets = [0] * (len(_BOUNDS) + 1)  # the last: above every bound (+Inf)
        self.total = 0.0

    def initialize(self, code: str) -> None:
        """Make the `handled` series of `code` exist at zero."""
        with self._lock:
            self.handled.setdefault(code, 0)

    def start(self, *, received: bool) -> None:
        """A call started (with its request message, for a unary or server-streaming call)."""
        with self._lock:
            self.started += 1
            if received:
                self.received += 1

    def add_received(self) -> None:
        """One more request message of a client or bidi stream."""
        with self._lock:
            self.received += 1

    def add_sent(self) -> None:
        """One more response message of a stream."""
        with self._lock:
            self.sent += 1

    def finish(self, code: str, elapsed: float, *, sent: int = 0) -> None:
        """A call ended with `code` after `elapsed` seconds (`sent` more response messages)."""
        index = bisect_left(_BOUNDS, elapsed)  # a bound holds the values up to and at it
        with self._lock:
            self.sent += sent
            self.handled[code] = self.handled.get(code, 0) + 1
            self.buckets[index] += 1
            self.total += elapsed

    def snapshot(self) -> tuple[int, int, int, dict[str, int], list[int], float]:
        """The numbers, read together."""
        with self._lock:
            return (
                self.started,
                self.received,
                self.sent,
                dict(self.handled),
                list(self.buckets),
                self.total,
            )


class _GrpcCollector(Collector):
    """The standard gRPC server families, from every method's `MethodSeries`."""

    def __init__(self, series: dict[tuple[str, str, str], MethodSeries]) -> None:
        self._series = series

    def describe(self) -> list[Metric]:
        return list(self._families(()))

    def collect(self) -> list[Metric]:
        return list(self._families(list(self._series.values())))

    @staticmethod
    def _families(series: Iterable[MethodSeries]) -> Iterator[Metric]:
        started = CounterMetricFamily(
            "grpc_server_started", "RPCs started on the server.", labels=_RPC_LABELS
        )
        handled = CounterMetricFamily(
            "grpc_server_handled",
            "RPCs completed on the server, by status code.",
            labels=(*_RPC_LABELS, "grpc_code"),
        )
        seconds = HistogramMetricFamily(
            "grpc_server_handling_seconds",
            "Time from the start of an RPC to its status, in seconds.",
            labels=_RPC_LABELS,
        )
        received = CounterMetricFamily(
            "grpc_server_msg_received",
            "Request messages received on the server.",
            labels=_RPC_LABELS,
        )
        sent = CounterMetricFamily(
            "grpc_server_msg_sent", "Response messages sent by the server.", labels=_RPC_LABELS
        )
        for one in series:
            n_started, n_received, n_sent, by_code, buckets, total = one.snapshot()
            labels = list(one.labels)
            started.add_metric(labels, n_started)
            for code, count in by_code.items():
                handled.add_metric([*labels, code], count)
            cumulative = list(accumulate(buckets))
            seconds.add_metric(
                labels, list(zip(_BUCKET_NAMES, cumulative, strict=True)), sum_value=total
            )
            received.add_metric(labels, n_received)
            sent.add_metric(labels, n_sent)
        yield from (started, handled, seconds, received, sent)


class InFlight(Collector):
    """The `tienlen_rpcs_in_flight` gauge: calls being handled right now, on either port
    (drops to 0 when a SIGTERM drain completes). A number under a lock, exported at each
    scrape: a fifth of the cost of a prometheus_client Gauge's inc and dec, paid twice a call."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._value = 0

    def inc(self) -> None:
        """A call started."""
        with self._lock:
            self._value += 1

    def dec(self) -> None:
        """A call ended."""
        with self._lock:
            self._value -= 1

    def value(self) -> int:
        """Calls being handled now."""
        return self._value

    def describe(self) -> list[Metric]:
        """The gauge's family without its sample (what the registry reads at register, and the
        docs' checks)."""
        return [self._family(None)]

    def collect(self) -> list[Metric]:
        """The gauge's one sample (prometheus_client calls it at each scrape)."""
        return [self._family(self._value)]

    @staticmethod
    def _family(value: int | None) -> Metric:
        return GaugeMetricFamily(
            "tienlen_rpcs_in_flight",
            "RPCs being handled right now (drops to 0 when a SIGTERM drain completes).",
            value=value,
        )


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
        r.register(_GrpcCollector(self._grpc_series))
        self.in_flight = InFlight()
        r.register(self.in_flight)
        # --- domain counters (exported with a _total suffix) ----------------------------------
        # Counted on every move: plain numbers under a lock (`CounterFamily`).
        family = CounterFamily  # counted on every move: plain numbers under a lock
        dealt, applied = "Games dealt (NewGame and NextGame).", "Moves (plays and passes) applied."
        self.games_started = family("tienlen_games_started", dealt, "variant", r)
        self.moves_applied = family("tienlen_moves_applied", applied, "variant", r)
        self.moves_rejected = Counter(
            "tienlen_moves_rejected",
            "Moves refused by the rules, by the engine's reason code.",
            ("reason",),
            registry=r,
        )
        finished = "Games played to their settlement."
        self.games_finished = family("tienlen_games_finished", finished, "variant", r)
        instant = "Games ended at the deal by an instant win (tới trắng)."
        self.instant_wins = family("tienlen_instant_wins", instant, "variant", r)
        self.chops = family("tienlen_chops", "Chops (chặt) of a 2 or of a chop.", "variant", r)
        self.tokens_rejected = Counter(
            "tienlen_tokens_rejected",
            "State or seat tokens refused, by reason code.",
            ("reason",),
            registry=r,
        )
        # By key id (configured keys: few values): once a retired key's series stop growing
        # in both, the key can go (docs/SECURITY.md, rotation).
        signed = "State tokens accepted, by the id of the key that signed them."
        self.tokens_verified = family("tienlen_tokens_verified", signed, "kid", r)
        minted = "Seat tokens accepted, by the key they were minted under; (match): the match's."
        self.seat_tokens_verified = family("tienlen_seat_tokens_verified", minted, "kid", r)
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
            self.method_series(grpc_type, service, method).initialize(grpc.StatusCode.OK.name)

    def method_series(self, grpc_type: str, service: str, method: str) -> MethodSeries:
        """The standard gRPC series of one method (made at zero on first use)."""
        key = (grpc_type, service, method)
        series = self._grpc_series.get(key)
        if series is None:
            with self._grpc_lock:
                series = self._grpc_series.setdefault(key, MethodSeries(key))
        return series


# --------------------------------------------------------------------------------------------
# The web port's connections


class WebConnectionMetrics:
    """The web port's connections: how many are open, and how many were refused, by reason.

    `reasons` are the guard's fixed refusal reasons (every series exists from the start, at 0):
    ``CONNECTION_LIMIT`` (the port holds ``--web-max-connections``: refused on accept),
    ``READ_TIMEOUT`` (a request not sent whole within ``--web-read-timeout``),
    ``HEADERS_TOO_LARGE``, ``TOO_MANY_HEADERS``, ``BAD_REQUEST`` (not HTTP/1.1).
    """

    def __init__(self, registry: CollectorRegistry, reasons: tuple[str, ...]) -> None:
        self.open = Gauge(
            "tienlen_web_connections",
            "Connections open on the web port.",
            registry=registry,
        )
        self.refused = Counter(
            "tienlen_web_connections_refused",
            "Web port connections refused and closed before their request reached the "
            "application, by reason.",
            ("reason",),
            registry=registry,
        )
        for reason in reasons:
            self.refused.labels(reason)
