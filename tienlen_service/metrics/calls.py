"""The calls' metrics: the standard gRPC server series of every method (`MethodSeries`,
exported by `GrpcCollector` under the names gRPC dashboards expect), the calls in flight on
either port (`InFlight`), and the web port's own families (`WebMetrics`: its calls by
transport; `WebConnectionMetrics`: its connections)."""

from __future__ import annotations

import threading
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from itertools import accumulate
from typing import TYPE_CHECKING, Final

import grpc
from prometheus_client import Counter, Gauge, Histogram
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

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

_BOUNDS: Final = tuple(HANDLING_BUCKETS)
_BUCKET_NAMES: Final = (
    *(floatToGoString(b) for b in HANDLING_BUCKETS),  # type: ignore[no-untyped-call]
    "+Inf",
)
_RPC_LABELS: Final = ("grpc_type", "grpc_service", "grpc_method")


class MethodSeries:
    """One method's standard gRPC server series — calls started, request and response
    messages, calls handled by status code, the handling-time histogram — as plain numbers
    under one lock, read by `GrpcCollector` at each scrape. Every update is exact; a call's
    end is one locked update (`finish`), not one library call per series."""

    __slots__ = ("_lock", "buckets", "handled", "labels", "received", "sent", "started", "total")

    def __init__(self, labels: tuple[str, str, str]) -> None:
        self.labels = labels
        self._lock = threading.Lock()
        self.started = 0
        self.received = 0
        self.sent = 0
        # By the code's name, read as `_name_` (the enum's `name` is a descriptor call, and an
        # enum member hashes by a Python `__hash__`: both cost every call more).
        self.handled: dict[str, int] = {}
        self.buckets = [0] * (len(_BOUNDS) + 1)  # the last: above every bound (+Inf)
        self.total = 0.0

    def initialize(self, code: grpc.StatusCode) -> None:
        """Make the `handled` series of `code` exist at zero."""
        with self._lock:
            self.handled.setdefault(code._name_, 0)

    def start(self, received: bool) -> None:
        """A call started (with its request message, for a unary or server-streaming call).
        The lock taken and released by hand, as in `finish`: a `with` costs every call more."""
        lock = self._lock
        lock.acquire()
        self.started += 1
        if received:
            self.received += 1
        lock.release()

    def add_received(self) -> None:
        """One more request message of a client or bidi stream."""
        with self._lock:
            self.received += 1

    def add_sent(self) -> None:
        """One more response message of a stream."""
        with self._lock:
            self.sent += 1

    def finish(self, code: grpc.StatusCode, elapsed: float, sent: int = 0) -> None:
        """A call ended with `code` after `elapsed` seconds (`sent` more response messages)."""
        index = bisect_left(_BOUNDS, elapsed)  # a bound holds the values up to and at it
        lock = self._lock
        lock.acquire()  # nothing below raises
        self.sent += sent
        handled, name = self.handled, code._name_
        handled[name] = handled.get(name, 0) + 1
        self.buckets[index] += 1
        self.total += elapsed
        lock.release()

    def in_flight(self) -> int:
        """Calls started and not yet ended."""
        with self._lock:
            return self.started - sum(self.handled.values())

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


class GrpcCollector(Collector):
    """The standard gRPC server families, from every method's `MethodSeries`."""

    def __init__(self, series: dict[tuple[str, str, str], MethodSeries]) -> None:
        self._series = series

    def describe(self) -> list[Metric]:
        """The families without their samples (read at register)."""
        return list(self._families(()))

    def collect(self) -> list[Metric]:
        """Every method's series (read at each scrape)."""
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
    (drops to 0 when a SIGTERM drain completes). A gRPC call is in flight from its start to its
    status, which its method's series count anyway (`MethodSeries.in_flight`), so the gRPC port
    pays nothing more per call for it; a web call is counted here (`inc`, `dec`: a number
    under a lock)."""

    def __init__(self, series: dict[tuple[str, str, str], MethodSeries]) -> None:
        self._series = series
        self._lock = threading.Lock()
        self._web = 0

    def inc(self) -> None:
        """A web call started."""
        with self._lock:
            self._web += 1

    def dec(self) -> None:
        """A web call ended."""
        with self._lock:
            self._web -= 1

    def value(self) -> int:
        """Calls being handled now, on either port."""
        return self._web + sum(series.in_flight() for series in list(self._series.values()))

    def describe(self) -> list[Metric]:
        """The gauge's family without its sample (what the registry reads at register, and the
        docs' checks)."""
        return [self._family(None)]

    def collect(self) -> list[Metric]:
        """The gauge's one sample (prometheus_client calls it at each scrape)."""
        return [self._family(self.value())]

    @staticmethod
    def _family(value: int | None) -> Metric:
        return GaugeMetricFamily(
            "tienlen_rpcs_in_flight",
            "RPCs being handled right now (drops to 0 when a SIGTERM drain completes).",
            value=value,
        )


# --------------------------------------------------------------------------------------------
# The web port


class WebMetrics:
    """The web port's call metrics, in the server's registry.

    The gRPC families (``grpc_server_*``) stay what gRPC dashboards expect; web calls are
    counted in these, with the same method labels plus ``transport`` (``connect`` or
    ``grpc_web``). Requests refused before they reach an RPC (wrong content type, unknown
    method, foreign origin, oversize body) are counted by ``reason``, a short fixed list.
    The in-flight gauge (``tienlen_rpcs_in_flight``) and the domain counters are shared.
    """

    def __init__(self, registry: CollectorRegistry) -> None:
        labels = ("transport", "grpc_service", "grpc_method")
        self.started = Counter(
            "tienlen_web_started",
            "Web (Connect, gRPC-Web) calls started, by transport and method.",
            labels,
            registry=registry,
        )
        self.handled = Counter(
            "tienlen_web_handled",
            "Web calls completed, by transport, method and status code.",
            (*labels, "grpc_code"),
            registry=registry,
        )
        self.handling_seconds = Histogram(
            "tienlen_web_handling_seconds",
            "Time from the start of a web call to its status, in seconds.",
            labels,
            buckets=HANDLING_BUCKETS,
            registry=registry,
        )
        self.refused = Counter(
            "tienlen_web_refused",
            "Web requests refused before reaching an RPC, by reason.",
            ("reason",),
            registry=registry,
        )


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
