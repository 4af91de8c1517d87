"""The image as an operator runs it: the one `make image` built, started read-only as its user.

`make image-test` builds deploy/Dockerfile (scripts/image.py: Docker, or buildah without a
daemon) and runs this module with TIENLEN_IMAGE naming the image; `make pytest` leaves it out
(marker `image`). Every start goes through ``scripts/image.py run``, as the manifests run the
image: its entrypoint, user and environment, the root filesystem read-only, a tmpfs /tmp, the
deal key file mounted read-only where the deal-key component mounts its Secret, on the host's
network, so that every listener is on 127.0.0.1 (gRPC on port 0, read from the `serving`
line; the web and metrics ports, which 0 turns off, on free ports).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import socket
import sys
import urllib.request
from pathlib import Path
from typing import Any

import grpc
import pytest
import yaml
from grpc_health.v1 import health_pb2, health_pb2_grpc
from helpers.deadlines import STARTUP_TIMEOUT
from packaging.utils import canonicalize_name
from prometheus_client.parser import text_string_to_metric_families
from tienlen_client import TienLenClient
from tienlen_client.errors import PermissionDenied

from tienlen_service.keys import KeyRing

pytestmark = pytest.mark.image

REPO = Path(__file__).resolve().parents[2]
RUNNER = REPO / "scripts" / "image.py"
SBOM = REPO / "build" / "sbom.cdx.json"
README = REPO / "deploy" / "README.md"
DEAL_KEY_COMPONENT = REPO / "deploy" / "k8s" / "components" / "deal-key" / "kustomization.yaml"
IMAGE_USER = (10001, 10001)  # the Dockerfile's USER, which deploy/k8s/base runs as
MAX_TURNS = 400
TIMEOUT = 30.0


@pytest.fixture(scope="module")
def image() -> str:
    name = os.environ.get("TIENLEN_IMAGE")
    if not name:
        pytest.skip("no image to run: `make image-test` builds one and runs these tests")
    return name


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def run_args(image: str, env: dict[str, str], volumes: dict[str, Path]) -> list[str]:
    """`scripts/image.py run`'s command line for `image` with this environment and files."""
    options = [f"--env={name}={value}" for name, value in env.items()]
    options += [f"--volume={source}:{target}" for target, source in volumes.items()]
    return [str(RUNNER), "run", *options, image]


def run_python(command_factory: Any, image: str, code: str) -> str:
    """The last line `code` prints, run by the image's own Python (`python` on its PATH) as
    the image runs."""
    process = command_factory(str(RUNNER), "run", "--entrypoint=python", image, "-c", code)
    assert process.wait() == 0, "".join(process.lines)
    return str(process.lines[-1]).strip()


def probe(command_factory: Any, image: str, code: str) -> Any:
    """What `code`, run by the image's own Python, prints as JSON."""
    return json.loads(run_python(command_factory, image, code))


def documented_health_check(address: str) -> str:
    """The gRPC health check deploy/README.md gives for the image (its own Python, no
    grpcurl), pointed at `address`."""
    text = README.read_text(encoding="utf-8")
    (code,) = re.findall(r"docker exec tienlen python -c '([^']*)'", text)
    assert "localhost:50051" in code
    return code.replace("localhost:50051", address)


def deal_key_mount() -> str:
    """Where the manifests' deal-key component mounts the deal keys (TIENLEN_DEAL_KEY_FILE)."""
    component = yaml.safe_load(DEAL_KEY_COMPONENT.read_text(encoding="utf-8"))
    for patch in component["patches"]:
        for operation in yaml.safe_load(patch["patch"]):
            value = operation.get("value")
            if isinstance(value, dict) and value.get("name") == "TIENLEN_DEAL_KEY_FILE":
                return str(value["value"])
    raise AssertionError("the deal-key component sets TIENLEN_DEAL_KEY_FILE")


IDENTITY = """
import json, os
status = dict(line.split(":", 1) for line in open("/proc/self/status"))
def writable(path):
    try:
        with open(os.path.join(path, ".probe"), "w"):
            return True
    except OSError:
        return False
print(json.dumps({
    "ids": [os.getuid(), os.getgid()],
    "groups": os.getgroups(),
    "capabilities": int(status["CapEff"], 16),
    "writable": {path: writable(path) for path in ("/", "/opt/venv", "/etc", "/tmp")},
}))
"""

DISTRIBUTIONS = """
import importlib.metadata, importlib.util, json
print(json.dumps({
    "installed": sorted({(d.metadata["Name"], d.version) for d in importlib.metadata.distributions()}),
    "importable": [m for m in ("pip", "setuptools", "wheel") if importlib.util.find_spec(m)],
}))
"""


def test_the_image_runs_as_its_user_on_a_read_only_root_without_capabilities(
    command_factory, image
) -> None:
    found = probe(command_factory, image, IDENTITY)
    assert tuple(found["ids"]) == IMAGE_USER
    assert found["groups"] in ([], [IMAGE_USER[1]])
    assert found["capabilities"] == 0
    assert found["writable"] == {"/": False, "/opt/venv": False, "/etc": False, "/tmp": True}


def test_the_image_holds_exactly_the_python_packages_of_its_sbom(command_factory, image) -> None:
    # make sbom writes the SBOM from deploy/requirements.lock, the list the image installs
    # from; the image must hold those and the service, nothing else (no pip or setuptools
    # from ensurepip, which neither the lock nor the SBOM lists).
    assert SBOM.is_file(), f"{SBOM} is missing: `make sbom` writes it (make image-test does)"
    bom = json.loads(SBOM.read_text(encoding="utf-8"))
    listed = {(canonicalize_name(c["name"]), c["version"]) for c in bom["components"]}
    root = bom["metadata"]["component"]
    listed.add((canonicalize_name(root["name"]), root["version"]))
    found = probe(command_factory, image, DISTRIBUTIONS)
    installed = {(canonicalize_name(name), version) for name, version in found["installed"]}
    assert installed == listed, {
        "in the image, not in the SBOM": sorted(installed - listed),
        "in the SBOM, not in the image": sorted(listed - installed),
    }
    assert found["importable"] == []


def first_play(client: TienLenClient, game: Any, seat: int) -> Any:
    moves = client.legal_moves(game, seat)
    cards = next((move.cards for move in moves if not move.is_pass), None)
    return client.pass_turn(game, seat) if cards is None else client.play(game, seat, cards)


def play_one_game(address: str, deal_key: str) -> tuple[int, ...]:
    """A seeded 4-player game to its settlement, always the first legal play (else pass)."""
    with TienLenClient(address, deal_key=deal_key, timeout=TIMEOUT) as client:
        game = client.new_game("southern", players=4, seed=37)
        for _ in range(MAX_TURNS):
            if game.finished:
                break
            assert game.to_act is not None
            game = first_play(client, game, game.to_act)
        assert game.finished, f"the game did not end in {MAX_TURNS} turns"
        assert game.settlement is not None
        assert game.settlement.zero_sum
        return tuple(game.settlement.net)


def health(address: str) -> str:
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        request = health_pb2.HealthCheckRequest(service="tienlen.v1.TienLenEngine")
        answer = stub.Check(request, timeout=TIMEOUT)
    return str(health_pb2.HealthCheckResponse.ServingStatus.Name(answer.status))


def http_get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=TIMEOUT) as response:
        return response.status, response.read().decode()


def finished_games(metrics_url: str) -> float:
    _, text = http_get(metrics_url)
    return sum(
        sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        if sample.name == "tienlen_games_finished_total"
    )


def test_the_image_serves_a_sealed_game_says_why_it_refuses_and_drains_on_sigterm(
    command_factory, image, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The deal keys as the Secret holds them during a rotation: the old key and the new one.
    old_key, new_key = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    keys_file = tmp_path / "deal-keys"
    keys_file.write_text(f"{old_key}\n{new_key}\n", encoding="utf-8")
    web_port, metrics_port = free_port(), free_port()
    env = {
        "TIENLEN_HOST": "127.0.0.1",
        "TIENLEN_PORT": "0",
        "TIENLEN_WEB_PORT": str(web_port),
        "TIENLEN_METRICS_PORT": str(metrics_port),
        "TIENLEN_KEYS": KeyRing.new_spec_entry("image-test"),
        "TIENLEN_DEPLOYMENT": "image-test",
        "TIENLEN_SEAL": "1",
        "TIENLEN_REQUIRE_SEALED": "1",
        "TIENLEN_REQUIRE_SEAT_TOKENS": "1",
        "TIENLEN_DEAL_KEY_FILE": deal_key_mount(),
        "TIENLEN_LOG_FORMAT": "json",
    }
    server = command_factory(*run_args(image, env, {deal_key_mount(): keys_file}))
    serving = server.wait_for_event("serving")
    assert (serving["seal"], serving["require_sealed"], serving["require_seat_tokens"]) == (
        True,
        True,
        True,
    )
    address = f"127.0.0.1:{serving['port']}"
    status = health(address)
    documented = run_python(command_factory, image, documented_health_check(address))
    healthz = http_get(f"http://127.0.0.1:{web_port}/healthz")
    with capsys.disabled():
        sys.stdout.write(
            f"\n{image}: gRPC health {status}; web /healthz {healthz[0]} {healthz[1].strip()}\n"
        )
    assert status == documented == "SERVING"
    assert healthz[0] == 200

    # A sealed game with seat tokens, dealt from a seed with the new deal key.
    nets = play_one_game(address, deal_key=new_key)
    assert sum(nets) == 0
    assert finished_games(f"http://127.0.0.1:{metrics_port}/metrics") == 1
    # A seeded deal without the key is refused, and the log says why.
    with pytest.raises(PermissionDenied), TienLenClient(address, deal_key="") as player:
        player.new_game("southern", players=4, seed=37)
    refused = server.wait_for_event("rpc", code="PERMISSION_DENIED")
    assert refused["reason"] == "DEAL_NOT_ALLOWED"

    server.proc.send_signal(signal.SIGTERM)
    assert server.wait(timeout=STARTUP_TIMEOUT) == 0, "".join(server.lines[-20:])
    events = [record.get("event") for record in server.records()]
    assert events.index("shutdown_requested") < events.index("draining") < events.index("stopped")
