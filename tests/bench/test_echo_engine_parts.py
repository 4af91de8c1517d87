"""The echo's engine parts (bench/echo_server.py --engine) do the service's own work: their
bytes are the ones in the service's recorded answers, so the load benchmark's decomposition of
ApplyMove (echo-engine, echo-engine-view, echo-engine-codec) measures the real steps."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tienlen.v1 import service_pb2

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture
def bench_modules(monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    monkeypatch.syspath_prepend(str(BENCH))
    import echo_server
    import traffic

    return echo_server, traffic


def test_every_part_makes_the_bytes_of_the_services_answer(
    bench_modules: tuple[Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    echo_server, traffic = bench_modules
    keys = traffic.new_keys()
    monkeypatch.setenv("TIENLEN_KEYS", keys)
    answers = traffic.answers(traffic.record(3, keys, match_games=2))
    work = echo_server._engine_work(answers, echo_server.PARTS)
    assert answers["ApplyMove"]
    for request, recorded in answers["ApplyMove"].items():
        view, events, token = work(request)
        game = service_pb2.ApplyMoveResponse.FromString(recorded).game
        assert token == game.state_token
        assert view == game.view.SerializeToString(deterministic=True)
        wanted = service_pb2.ApplyMoveResponse()
        wanted.game.events.extend(game.events)
        assert events == wanted.game.SerializeToString(deterministic=True)


def test_an_unknown_part_is_refused(bench_modules: tuple[Any, Any]) -> None:
    echo_server, _traffic = bench_modules
    with pytest.raises(SystemExit, match="not \\['vieww'\\]"):
        echo_server._engine_work({}, ["apply", "vieww"])
