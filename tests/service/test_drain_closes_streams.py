"""A drain ends the long-lived streams: a replica stops in seconds, not after its whole grace.

Every recommended client keeps a health `Watch` open, and a game host keeps a `PlayStream`
open: both last as long as their client wants, and once made a replica wait its whole grace
period (23 s; 11 s with a PlayStream). When the port closes, the Watch streams end (with OK,
after NOT_SERVING) and the PlayStream calls are cancelled (their moves are pure: the client
sends them again elsewhere). The grace here is 60 s; the stop must come long before it.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from tienlen.v1 import service_pb2, service_pb2_grpc

WAIT = 20.0
"""Seconds a stop may take here: a third of the grace it must not wait out."""
GRACE = 60.0


class OpenStreams:
    """A health Watch (its first SERVING read) and a PlayStream (one move answered)."""

    def __init__(self, channel: grpc.Channel) -> None:
        health = health_pb2_grpc.HealthStub(channel)
        self.watch = health.Watch(health_pb2.HealthCheckRequest(service=""), timeout=GRACE * 2)
        assert next(self.watch).status == health_pb2.HealthCheckResponse.SERVING
        stub = service_pb2_grpc.TienLenEngineStub(channel)
        game = stub.NewGame(service_pb2.NewGameRequest(seed=1), timeout=WAIT).game
        self.requests: queue.SimpleQueue[service_pb2.PlayStreamRequest | None] = queue.SimpleQueue()
        self.play = stub.PlayStream(self._sent(), timeout=GRACE * 2)
        view = service_pb2.GetViewRequest(state_token=game.state_token)
        self.requests.put(
            service_pb2.PlayStreamRequest(
                tag="1",
                move=service_pb2.ApplyMoveRequest(
                    state_token=game.state_token,
                    seat=stub.GetView(view, timeout=WAIT).view.to_act,
                ),
            )
        )
        assert next(self.play).tag == "1"  # answered (in-band: no move set): the stream is open

    def _sent(self) -> Iterator[service_pb2.PlayStreamRequest]:
        while (request := self.requests.get()) is not None:
            yield request

    def assert_closed_by_the_drain(self) -> None:
        statuses = [update.status for update in self.watch]  # ends: no error raised
        assert statuses[-1:] == [health_pb2.HealthCheckResponse.NOT_SERVING]
        try:
            with pytest.raises(grpc.RpcError) as ended:
                next(self.play)
        finally:
            self.requests.put(None)
        # Cancelled by the server (the client may read it as the connection going away): both
        # tell a client to send its unanswered moves again on a new stream.
        assert ended.value.code() in {grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE}


def test_stop_ends_open_watch_and_play_streams_long_before_the_grace(
    server_factory: Callable[..., Any],
) -> None:
    running = server_factory()
    with grpc.insecure_channel(running.address) as channel:
        streams = OpenStreams(channel)
        stopper = threading.Thread(target=running.handle.stop, args=(GRACE, 0))
        stopper.start()
        streams.assert_closed_by_the_drain()
        stopper.join(WAIT)
        assert not stopper.is_alive(), "the drain waited for the streams' grace"


def test_sigterm_with_open_streams_exits_0_long_before_the_grace(
    process_factory: Callable[..., Any],
) -> None:
    process = process_factory("--grace", str(GRACE))
    address = process.start_and_wait()
    with grpc.insecure_channel(address) as channel:
        streams = OpenStreams(channel)
        process.terminate()
        streams.assert_closed_by_the_drain()
        assert process.wait(WAIT) == 0
    closed = process.wait_for_event("streams_closed")
    # Ours, and perhaps the start-up wait's Watch if the server has not yet seen it cancelled.
    assert closed["health_watches"] >= 1
    assert closed["play_streams"] == 1
