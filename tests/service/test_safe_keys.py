"""Safe keys by default: the published example key is refused unless this is a dev run, and a
per-key-id count of verified tokens tells when a retired key can go.

The example key of deploy/k8s is public: anyone can forge tokens with it. A server given it
exits 2 with one clear line (as for any bad setting); with `--dev` it starts and warns.
"""

from __future__ import annotations

import re
import secrets
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest

from tienlen.v1 import service_pb2, service_pb2_grpc
from tienlen_service.config import Config
from tienlen_service.server import PublishedKeyError, Server
from tienlen_service.tokens import KeyRing

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 10.0


EXAMPLE_KID = "example-replace-me"
EXAMPLE = f"{EXAMPLE_KID}:RVhBTVBMRS1LRVktUkVQTEFDRS1NRS0zMi1CWVRFUyE="
"""The example key the deploy manifests shipped (public: it is in this repository's history)."""

#: A `kid:base64url` key entry as a manifest or a doc would show it (32 bytes: 43-44 chars).
KEY_ENTRY = re.compile(r"\b([A-Za-z0-9._-]{1,32}):([A-Za-z0-9_+/-]{43}=?)(?![A-Za-z0-9_+/=-])")


def published_entries() -> list[str]:
    """Every key entry written out in the deploy manifests and the docs."""
    files = [
        *(ROOT / "deploy").rglob("*.yaml"),
        *(ROOT / "deploy").rglob("*.md"),
        *(ROOT / "docs").rglob("*.md"),
        ROOT / "README.md",
    ]
    return [
        f"{kid}:{key}"
        for path in files
        for kid, key in KEY_ENTRY.findall(path.read_text(encoding="utf-8"))
    ]


def test_every_key_written_in_the_manifests_or_docs_is_known_as_published() -> None:
    # A key committed to this repository is public: the server must refuse it outside a dev
    # run. A new example key needs its SHA-256 in tokens.PUBLISHED_EXAMPLE_KEYS.
    for entry in {EXAMPLE, *published_entries()}:
        kid, _, _ = entry.partition(":")
        assert KeyRing.from_spec(entry).published_kids == (kid,), entry


def test_only_the_published_keys_of_a_ring_are_flagged() -> None:
    ring = KeyRing.from_spec(f"mine:{KeyRing.new_spec_entry('x').split(':')[1]},{EXAMPLE}")
    assert ring.published_kids == (EXAMPLE_KID,)
    assert KeyRing.from_spec(KeyRing.new_spec_entry("fresh")).published_kids == ()


def test_a_server_refuses_the_published_key_unless_it_is_a_dev_run() -> None:
    with pytest.raises(PublishedKeyError, match="--dev"):
        Server(Config(host="127.0.0.1", port=0, metrics_port=None, web_port=None, keys=EXAMPLE))
    Server(
        Config(host="127.0.0.1", port=0, metrics_port=None, web_port=None, keys=EXAMPLE, dev=True)
    )


def test_the_command_exits_2_with_one_clear_line_for_the_published_key(
    process_factory: Callable[..., Any],
) -> None:
    process = process_factory(env={"TIENLEN_KEYS": EXAMPLE})
    assert process.wait() == 2
    errors = [line for line in process.lines if "error" in line]
    assert len(errors) == 1
    assert "published" in errors[0]
    assert "--dev" in errors[0]
    assert EXAMPLE.split(":")[1] not in "".join(process.lines)  # the key itself is never echoed


def test_a_dev_run_starts_with_the_published_key_and_warns(
    process_factory: Callable[..., Any],
) -> None:
    process = process_factory("--dev", env={"TIENLEN_KEYS": EXAMPLE})
    process.start_and_wait()
    warning = process.wait_for_event("published_key")
    assert warning["kids"] == [EXAMPLE_KID]
    assert process.wait_for_event("serving")["dev"] is True
    process.terminate()
    assert process.wait() == 0


def verified(metrics_url: str) -> dict[str, float]:
    with urllib.request.urlopen(metrics_url, timeout=TIMEOUT) as response:
        text = response.read().decode()
    return {
        kid: float(value)
        for kid, value in re.findall(
            r'^tienlen_tokens_verified_total\{kid="([^"]+)"\} (\S+)$', text, re.MULTILINE
        )
    }


def test_verified_tokens_are_counted_by_the_key_that_signed_them(
    server_factory: Callable[..., Any],
) -> None:
    old = ("old", secrets.token_bytes(32))
    new = ("new", secrets.token_bytes(32))
    before = server_factory(keyring=KeyRing([old]))  # the replica before the rotation
    after = server_factory(keyring=KeyRing([new, old]))  # new key first, old still verifies
    with grpc.insecure_channel(before.address) as a, grpc.insecure_channel(after.address) as b:
        old_token = (
            service_pb2_grpc.TienLenEngineStub(a)
            .NewGame(service_pb2.NewGameRequest(seed=3), timeout=TIMEOUT)
            .game.state_token
        )
        stub = service_pb2_grpc.TienLenEngineStub(b)
        assert verified(after.metrics_url) == {"new": 0.0, "old": 0.0}  # a series per key at once
        view = service_pb2.GetViewRequest(state_token=old_token)
        stub.GetView(view, timeout=TIMEOUT)
        stub.GetView(view, timeout=TIMEOUT)
        new_token = stub.NewGame(service_pb2.NewGameRequest(seed=3), timeout=TIMEOUT).game
        stub.GetView(service_pb2.GetViewRequest(state_token=new_token.state_token), timeout=TIMEOUT)
    assert verified(after.metrics_url) == {"new": 1.0, "old": 2.0}
