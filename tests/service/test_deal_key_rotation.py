"""The deal key rotates without a refused deal: the deal key file lists several keys, and any
of them deals (docs/SECURITY.md, *Who deals*; deploy/README.md mounts it from a Secret).

The rotation, replica by replica: add the new key beside the old, move the host to the new
one, drop the old. Each step is a server started from the file as that step leaves it, on
127.0.0.1 port 0.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import grpc
import pytest

from tienlen.v1 import service_pb2, service_pb2_grpc
from tienlen_service.keys import DealKey, KeyConfigError

OLD = secrets.token_urlsafe(32)
NEW = secrets.token_urlsafe(32)
WAIT = 20.0


def seeded_deal(address: str, deal_key: str) -> grpc.StatusCode:
    """The code a seeded NewGame with this deal key ends with."""
    with grpc.insecure_channel(address) as channel:
        stub = service_pb2_grpc.TienLenEngineStub(channel)
        request = service_pb2.NewGameRequest(players=4, seed=11, deal_key=deal_key)
        try:
            stub.NewGame(request, timeout=WAIT)
        except grpc.RpcError as error:
            return error.code()  # type: ignore[no-any-return]
    return grpc.StatusCode.OK


@pytest.mark.parametrize(
    ("listed", "accepted", "refused"),
    [
        ([OLD], [OLD], [NEW]),  # before
        ([OLD, NEW], [OLD, NEW], []),  # step 1: both, while the host moves to the new one
        ([NEW], [NEW], [OLD]),  # step 3: the old one dropped
    ],
    ids=["before", "overlap", "after"],
)
def test_every_key_the_deal_key_file_lists_deals_and_no_other(
    server_factory, tmp_path: Path, listed: list[str], accepted: list[str], refused: list[str]
) -> None:
    path = tmp_path / "deal-keys"
    path.write_text("# the host's deal keys, one a line\n\n" + "\n".join(listed) + "\n")
    running = server_factory(require_seat_tokens=True, deal_key_file=str(path))
    assert [seeded_deal(running.address, key) for key in accepted] == [grpc.StatusCode.OK] * len(
        accepted
    )
    assert [seeded_deal(running.address, key) for key in refused] == [
        grpc.StatusCode.PERMISSION_DENIED
    ] * len(refused)


def test_a_deal_key_file_without_a_key_or_with_a_short_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "deal-keys"
    path.write_text("# nothing but a comment\n\n")
    with pytest.raises(KeyConfigError, match="no deal key"):
        DealKey.from_file(path)
    path.write_text(f"{NEW}\nshort\n")
    with pytest.raises(KeyConfigError, match="at least 22"):
        DealKey.from_file(path)


def test_a_key_is_accepted_whole_not_by_a_part_of_it() -> None:
    key = DealKey(OLD, NEW)
    assert key.check(NEW)
    assert not key.check(NEW[:-1])
    assert not key.check(OLD + NEW)
