"""The Python runner can fail: against a deliberately broken copy of the service
(tests/contract/broken_server.py) it reports a mismatch naming the file, the step and the field.

The Node runner proves the same in clients/node/test/runner-can-fail.test.ts.
"""

from __future__ import annotations

import sys

import grpc
import pytest

from tienlen.v1 import service_pb2_grpc

from . import runner

BROKEN = str(runner.CONTRACT_DIR / "broken_server.py")
CONVERSATION = runner.CONVERSATIONS_DIR / "southern_refusals.json"


def _replay_against(fault: str) -> runner.Mismatch:
    command = [sys.executable, BROKEN, "--break", fault, *runner.server_args()]
    with runner.served(command) as address, grpc.insecure_channel(address) as channel:
        stub = service_pb2_grpc.TienLenEngineStub(channel)
        with pytest.raises(runner.Mismatch) as caught:
            runner.replay(runner.load(CONVERSATION), stub)
    return caught.value


def test_a_refusal_with_the_wrong_code_is_reported_with_file_step_and_field() -> None:
    mismatch = _replay_against("refusal-code")
    assert (mismatch.file, mismatch.step, mismatch.rpc, mismatch.where) == (
        "southern_refusals.json",
        2,
        "ApplyMove",
        "code",
    )
    assert "expected FAILED_PRECONDITION, got INVALID_ARGUMENT" in str(mismatch)
    assert str(mismatch).startswith("southern_refusals.json step 2 (ApplyMove): code:")


def test_a_wrong_field_in_an_answer_is_reported_with_its_path() -> None:
    mismatch = _replay_against("to-act")
    first_move = next(
        s
        for s in runner.load(CONVERSATION).steps
        if s.rpc == "ApplyMove" and s.expect.get("code") == "OK"
    )
    assert (mismatch.file, mismatch.step, mismatch.where) == (
        "southern_refusals.json",
        first_move.number,
        "game.toAct",
    )
    assert "expected 1, got 2" in mismatch.detail


def test_the_same_conversation_passes_against_the_real_server() -> None:
    with runner.served() as address, grpc.insecure_channel(address) as channel:
        stub = service_pb2_grpc.TienLenEngineStub(channel)
        conversation = runner.load(CONVERSATION)
        assert runner.replay(conversation, stub) == len(conversation.steps)


def test_the_comparison_names_the_deepest_differing_field() -> None:
    expected = {"game": {"events": [{"played": {"seat": 0}}, {"turnPassed": {"seat": 1}}]}}
    actual = {"game": {"events": [{"played": {"seat": 0}}, {"turnPassed": {"seat": 2}}]}}
    assert runner.compare(expected, actual, "") == (
        "game.events[1].turnPassed.seat",
        "expected 1, got 2",
    )
    assert runner.compare({"toAct": None}, {"toAct": 0}, "") == ("toAct", "expected absent, got 0")
    assert runner.compare({"finished": False}, {"finished": 0}, "") is not None
    assert runner.compare({"net": ["100"]}, {"net": [100]}, "") is not None
    assert runner.compare({"moves": {"$len": 2}}, {"moves": [1]}, "") == (
        "moves",
        "expected 2 elements, got 1",
    )


def test_a_refusal_with_other_error_metadata_is_reported_with_the_entry() -> None:
    got = {
        "code": "INVALID_ARGUMENT",
        "reasons": ["RECORD_ILLEGAL_MOVE"],
        "domains": [runner.DOMAIN],
        "metadata": {"move_number": "4", "move_reason": "DOES_NOT_BEAT"},
        "fieldViolations": ["record.moves[3].cards"],
    }
    expect = {"code": "INVALID_ARGUMENT", "reason": "RECORD_ILLEGAL_MOVE"}
    assert runner.check_refusal({**expect, "metadata": {"move_number": "4"}}, got) is None
    assert runner.check_refusal({**expect, "metadata": {"move_number": "5"}}, got) == (
        "metadata.move_number",
        'expected "5", got "4"',
    )
    assert runner.check_refusal({**expect, "metadata": {"seat": "1"}}, got) == (
        "metadata.seat",
        'expected "1", got (absent)',
    )
