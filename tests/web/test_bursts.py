"""The web port's own errors under a flood are logged once per burst, not once each."""

from __future__ import annotations

import asyncio
import errno
import json
import logging

from tienlen_service.web.bursts import BurstFilter, Bursts


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def lines(stream) -> list[dict]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line]


def test_a_burst_of_failed_accepts_is_one_line_then_one_saying_how_many(log_stream) -> None:
    clock = Clock()
    bursts = Bursts(window=10.0, clock=clock)
    loop = asyncio.new_event_loop()
    try:
        context = {
            "message": "socket.accept() out of system resource",
            "exception": OSError(errno.EMFILE, "Too many open files"),
        }
        for _ in range(1000):
            bursts.loop_exception_handler(loop, context)
        clock.now = 10.0
        bursts.loop_exception_handler(loop, context)
    finally:
        loop.close()
    records = [r for r in lines(log_stream) if r["event"] == "web_loop_error"]
    assert [r["repeats"] for r in records] == [0, 999]
    assert records[0]["error_type"] == "OSError"
    assert "traceback" not in json.dumps(records).lower()


def test_repeated_uvicorn_warnings_pass_the_filter_once_per_window() -> None:
    clock = Clock()
    burst_filter = BurstFilter(Bursts(window=10.0, clock=clock))

    def record(msg: str) -> logging.LogRecord:
        return logging.LogRecord("uvicorn.error", logging.WARNING, __file__, 1, msg, None, None)

    passed = [burst_filter.filter(record("Invalid HTTP request received.")) for _ in range(50)]
    other = burst_filter.filter(record("Unsupported upgrade request."))
    clock.now = 11.0
    later = record("Invalid HTTP request received.")
    assert passed.count(True) == 1
    assert other
    assert burst_filter.filter(later)
    assert later.repeats == 49
