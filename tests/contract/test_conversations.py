"""The golden conversations replayed by the Python runner against the real server.

One server (started as a subprocess with tests/contract/server.json's settings) serves every
conversation; each file is one test, so a mismatch names the file, the step and the field.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import grpc
import pytest

from tienlen.v1 import service_pb2_grpc

from . import runner

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

FILES = runner.conversation_files()


@pytest.fixture(scope="module")
def stub() -> Iterator[service_pb2_grpc.TienLenEngineStub]:
    with runner.served() as address, grpc.insecure_channel(address) as channel:
        yield service_pb2_grpc.TienLenEngineStub(channel)


def test_there_are_golden_conversations_for_every_rpc() -> None:
    rpcs = {step.rpc for path in FILES for step in runner.load(path).steps}
    assert rpcs == set(runner.RPCS), f"no conversation calls {sorted(set(runner.RPCS) - rpcs)}"


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_conversation(path: Path, stub: service_pb2_grpc.TienLenEngineStub) -> None:
    conversation = runner.load(path)
    assert runner.replay(conversation, stub) == len(conversation.steps)
