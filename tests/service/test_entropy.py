"""`entropy.random_bytes`: the OS CSPRNG read a block at a time, each byte handed out once."""

from __future__ import annotations

import os
import threading

import pytest

from tienlen_service import entropy


def test_random_bytes_reads_the_os_a_block_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[int] = []
    real = os.urandom

    def counting(size: int) -> bytes:
        reads.append(size)
        return real(size)

    monkeypatch.setattr(entropy.os, "urandom", counting)
    monkeypatch.setattr(entropy, "_POOL", entropy._Pool())
    chunks = [entropy.random_bytes(12) for _ in range(1000)]
    assert all(len(c) == 12 for c in chunks)
    assert len(reads) == -(-12 * 1000 // entropy.BLOCK)  # 3 system calls, not 1000
    assert len(set(chunks)) == 1000


def test_no_byte_is_handed_out_twice_across_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    # A counter instead of the OS: every byte position is numbered, so a repeat would show.
    counter = iter(range(10**9))

    def numbered(size: int) -> bytes:
        return b"".join(next(counter).to_bytes(4, "big") for _ in range(size // 4))

    monkeypatch.setattr(entropy.os, "urandom", numbered)
    monkeypatch.setattr(entropy, "_POOL", entropy._Pool())
    taken: list[bytes] = []

    def work() -> None:
        mine = [entropy.random_bytes(8) for _ in range(2000)]
        taken.extend(mine)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    words = [chunk[i : i + 4] for chunk in taken for i in (0, 4)]
    assert len(words) == len(set(words)) == 4 * 2000 * 2


def test_a_larger_request_than_a_block_is_served_whole() -> None:
    assert len(entropy.random_bytes(entropy.BLOCK * 2 + 1)) == entropy.BLOCK * 2 + 1
    assert entropy.random_bytes(0) == b""
    with pytest.raises(ValueError, match="negative"):
        entropy.random_bytes(-1)


def test_a_forked_child_never_reuses_the_parents_bytes() -> None:
    entropy.random_bytes(16)  # the parent holds a partly used block
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        os.close(read)
        os.write(write, entropy.random_bytes(16))
        os._exit(0)
    os.close(write)
    child = os.read(read, 16)
    os.close(read)
    os.waitpid(pid, 0)
    assert child != entropy.random_bytes(16)  # the parent's next bytes are not the child's
