"""Several real replicas behave as one service: behind nginx, and behind client round_robin.

Each test starts replicas of the real server (`python -m tienlen_service`) on free loopback
ports, waits for each on its gRPC health check, and drives complete games through them while
replicas are stopped (SIGTERM), killed (SIGKILL) and replaced. The service is stateless: a
game's state is in the token the client holds, so losing a replica must lose no game, and a
token minted by one replica must be accepted by every replica that shares its keys.

Everything is bounded: each test runs well under 90 s, every wait has a deadline, every load
loop has a fixed number of games, and every process is ended in a `finally`.
"""

from __future__ import annotations

import base64
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import suppress
from dataclasses import dataclass, field
from importlib.util import module_from_spec, spec_from_file_location
from pathlib import Path
from typing import Any, TypeVar, cast

import grpc
import pytest
from grpc_channelz.v1 import channelz_pb2

# The in-process channelz queries (what the channelz service answers); grpc-stubs types them here.
from grpc_channelz.v1._servicer import ChannelzServicer
from grpc_health.v1 import health_pb2, health_pb2_grpc
from helpers.deadlines import STARTUP_TIMEOUT
from tienlen_client import Game, InvalidToken, LegalMove, TienLenClient, channel_target

pytestmark = pytest.mark.cluster

REPO = Path(__file__).resolve().parents[2]
NGINX_RENDER_SCRIPT = REPO / "deploy" / "nginx" / "render.py"
ENGINE_SERVICE = "tienlen.v1.TienLenEngine"
LOOPBACK = "127.0.0.1"

SHUTDOWN_GRACE = 5  # the replicas' --grace
# --drain-delay of the rolling restart: after SIGTERM a replica reports NOT_SERVING this long
# before it closes its port, so that clients which watch its health move their calls away first
# (grpcio cancels the calls still queued when the port closes).
DRAIN_DELAY = 1.0
LOAD_TIMEOUT = 55.0  # the whole load phase of a test
CALL_ATTEMPTS = 8  # test-level attempts of one call when it fails even after client retries
MAX_TURNS = 400  # a 4-player game of 52 cards ends long before this
GAMES_PER_DRIVER = 200  # the rolling restart's drivers stop long before, when it is done

T = TypeVar("T")


# --- processes ---------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        port: int = sock.getsockname()[1]
        return port


def new_keys(kid: str) -> str:
    """A key specification of one fresh random key, as TIENLEN_KEYS takes it."""
    return f"{kid}:{base64.urlsafe_b64encode(os.urandom(32)).decode()}"


def find_nginx() -> str | None:
    found = shutil.which("nginx")
    if found:
        return found
    return "/usr/sbin/nginx" if Path("/usr/sbin/nginx").is_file() else None


def tail(path: Path, lines: int = 25) -> str:
    try:
        return "\n".join(path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no output)"


@dataclass
class Replica:
    """One server process on a loopback port."""

    port: int
    keys: str
    process: subprocess.Popen[bytes]
    log: Path
    metrics_port: int = 0

    @property
    def address(self) -> str:
        return f"{LOOPBACK}:{self.port}"

    def alive(self) -> bool:
        return self.process.poll() is None


@dataclass
class Cluster:
    """Starts, stops and always cleans up server replicas and nginx."""

    workdir: Path
    keys: str
    replicas: list[Replica] = field(default_factory=list)
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    started: int = 0

    def start(
        self,
        port: int | None = None,
        *,
        keys: str | None = None,
        metrics: bool = False,
        drain_delay: float = 0.0,
    ) -> Replica:
        """Start a replica (not yet waited for: see wait_serving)."""
        port = free_port() if port is None else port
        metrics_port = free_port() if metrics else 0
        self.started += 1
        log = self.workdir / f"replica-{self.started}-{port}.log"
        env = {
            **os.environ,
            # Keys through the environment, as in production (not visible in `ps`).
            "TIENLEN_KEYS": keys or self.keys,
            "PYTHONUNBUFFERED": "1",
        }
        with log.open("wb") as out:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "tienlen_service",
                    "--host",
                    LOOPBACK,
                    "--port",
                    str(port),
                    "--metrics-port",
                    str(metrics_port),
                    "--web-port",
                    "0",
                    "--grace",
                    str(SHUTDOWN_GRACE),
                    "--drain-delay",
                    str(drain_delay),
                    "--log-format",
                    "json",
                    "--log-level",
                    "warning",
                ],
                cwd=REPO,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.processes.append(process)
        replica = Replica(port, keys or self.keys, process, log, metrics_port)
        self.replicas.append(replica)
        return replica

    def wait_serving(self, replica: Replica, timeout: float = STARTUP_TIMEOUT) -> None:
        """Block until the replica's health service reports SERVING (no sleeps: Watch streams)."""
        deadline = time.monotonic() + timeout
        with grpc.insecure_channel(replica.address) as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            while True:
                remaining = deadline - time.monotonic()
                if not replica.alive():
                    pytest.fail(
                        f"replica on {replica.address} exited with {replica.process.returncode}"
                        f" while starting:\n{tail(replica.log)}"
                    )
                if remaining <= 0:
                    pytest.fail(
                        f"replica on {replica.address} not SERVING after {timeout} s:\n"
                        f"{tail(replica.log)}"
                    )
                request = health_pb2.HealthCheckRequest(service=ENGINE_SERVICE)
                try:
                    # Re-checked every second at most, to notice a process that died.
                    for reply in stub.Watch(
                        request, timeout=min(1.0, remaining), wait_for_ready=True
                    ):
                        if reply.status == health_pb2.HealthCheckResponse.SERVING:
                            return
                except grpc.RpcError as error:
                    if error.code() not in {
                        grpc.StatusCode.DEADLINE_EXCEEDED,
                        grpc.StatusCode.UNAVAILABLE,
                    }:
                        raise

    def start_serving(
        self, count: int, *, metrics: bool = False, drain_delay: float = 0.0
    ) -> list[Replica]:
        """Start `count` replicas at once, then wait for each."""
        replicas = [self.start(metrics=metrics, drain_delay=drain_delay) for _ in range(count)]
        for replica in replicas:
            self.wait_serving(replica)
        return replicas

    def terminate(self, replica: Replica) -> None:
        replica.process.send_signal(signal.SIGTERM)

    def kill(self, replica: Replica) -> None:
        replica.process.send_signal(signal.SIGKILL)

    def wait_exit(self, replica: Replica, timeout: float = SHUTDOWN_GRACE + 10.0) -> int:
        try:
            return replica.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"replica on {replica.address} still running {timeout} s after a signal")

    def start_nginx(self, upstream_ports: Sequence[int]) -> int:
        """Run nginx (not as a daemon) in front of the given replica ports; return its port."""
        nginx = find_nginx()
        if nginx is None:
            pytest.skip("nginx is not installed (CI installs it: apt-get install -y nginx)")
        runtime = self.workdir / "nginx"
        runtime.mkdir()
        # Workers of an nginx started by root run as `nobody`: they must reach their temp dirs.
        runtime.chmod(0o755)
        self.workdir.chmod(0o755)
        port = free_port()
        config = runtime / "nginx.conf"
        config.write_text(
            load_nginx_render()(
                listen=f"{LOOPBACK}:{port}",
                upstreams=[f"{LOOPBACK}:{p}" for p in upstream_ports],
                runtime_dir=str(runtime),
                workers="1",
                # Replacements come back on the same ports within a second or two.
                fail_timeout="1s",
            ),
            encoding="utf-8",
        )
        log = runtime / "stderr.log"
        with log.open("wb") as out:
            process = subprocess.Popen(
                [nginx, "-p", str(runtime), "-c", str(config), "-e", "stderr", "-g", "daemon off;"],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.processes.append(process)
        # Ready when a health check through nginx reaches a replica.
        deadline = time.monotonic() + STARTUP_TIMEOUT
        with grpc.insecure_channel(f"{LOOPBACK}:{port}") as channel:
            stub = health_pb2_grpc.HealthStub(channel)
            while True:
                if process.poll() is not None:
                    pytest.fail(f"nginx exited with {process.returncode}:\n{tail(log)}")
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    pytest.fail(f"nginx not ready after {STARTUP_TIMEOUT} s:\n{tail(log)}")
                try:
                    reply = stub.Check(
                        health_pb2.HealthCheckRequest(service=ENGINE_SERVICE),
                        timeout=min(1.0, remaining),
                        wait_for_ready=True,
                    )
                except grpc.RpcError:
                    continue
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return port

    def close(self) -> None:
        """End every process this cluster started: SIGTERM, then SIGKILL what is left."""
        running = [p for p in self.processes if p.poll() is None]
        for process in running:
            with suppress(ProcessLookupError):  # it already exited
                os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + SHUTDOWN_GRACE + 2.0
        for process in running:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                with suppress(ProcessLookupError):  # it already exited
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=5)


def load_nginx_render() -> Callable[..., str]:
    spec = spec_from_file_location("tienlen_nginx_render", NGINX_RENDER_SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    render: Callable[..., str] = module.render
    return render


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    running = Cluster(tmp_path, new_keys("cluster-1"))
    try:
        yield running
    finally:
        running.close()


# --- the client and a game driver ---------------------------------------------------------------


def make_client(address: str | list[str]) -> TienLenClient:
    return TienLenClient(address, timeout=5.0)


def client_retries(address: str | list[str]) -> int:
    """How many times this process's channels to `address` retried a call, from channelz.

    The client retries UNAVAILABLE inside the gRPC channel (its retry policy), where no
    interceptor sees it. channelz counts each call once on the channel, and each attempt on the
    subchannel (connection to a replica) that carried it: retries = attempts - calls. Call it
    when no call is in flight: a subchannel's streams still open then are client-side health
    checks (one Watch per connection when the channel health-checks), not attempts; those of
    connections that have since closed cannot be told apart and are counted too.
    """
    target = channel_target(address)
    no_context = cast("grpc.ServicerContext", None)  # only used to report a query's errors
    calls = attempts = 0
    start = 0
    while True:
        page = ChannelzServicer.GetTopChannels(
            channelz_pb2.GetTopChannelsRequest(start_channel_id=start), no_context
        )
        for channel in page.channel:
            if channel.data.target != target:
                continue
            calls += channel.data.calls_started
            for ref in channel.subchannel_ref:
                data = ChannelzServicer.GetSubchannel(
                    channelz_pb2.GetSubchannelRequest(subchannel_id=ref.subchannel_id), no_context
                ).subchannel.data
                open_streams = data.calls_started - data.calls_succeeded - data.calls_failed
                attempts += data.calls_started - open_streams
        if page.end or not page.channel:
            return attempts - calls
        start = max(channel.ref.channel_id for channel in page.channel) + 1


def first_play(moves: Sequence[LegalMove]) -> tuple[str, ...] | None:
    """The cards of the first legal play, or None when passing is all that is left."""
    return next((move.cards for move in moves if not move.is_pass), None)


def nets(game: Game) -> tuple[int, ...]:
    assert game.finished
    assert game.settlement is not None, "a finished game has a settlement"
    assert game.settlement.zero_sum, "southern games are zero-sum"
    return game.settlement.net


@dataclass
class Load:
    """Counts what the test's own game drivers saw, shared between threads."""

    deadline: float
    # Test-level attempts of one call. 1 = none of our own: every call must succeed with the
    # client's default retries alone (what the no-lost-call tests prove).
    attempts: int = CALL_ATTEMPTS
    calls: int = 0
    failures: int = 0
    games_started: int = 0
    games_completed: int = 0
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    progress: threading.Condition = field(init=False)

    def __post_init__(self) -> None:
        self.progress = threading.Condition(self.lock)

    def call(self, path: str, function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Make one call; a failure (after the client's own retries) is counted and retried here:
        the game's state is in the token we still hold, so a retry is always safe."""
        for attempt in range(1, self.attempts + 1):
            if time.monotonic() > self.deadline:
                raise TimeoutError("load phase deadline passed")
            try:
                result = function(*args, **kwargs)
            except Exception as error:
                with self.lock:
                    self.calls += 1
                    self.failures += 1
                    name = getattr(function, "__name__", "call")
                    self.errors.append(f"{path} {name}: {error!r}"[:300])
                if attempt == self.attempts:
                    raise
                threading.Event().wait(0.05 * attempt)  # back off before our own retry
                continue
            with self.progress:
                self.calls += 1
                self.progress.notify_all()
            return result
        raise AssertionError("unreachable")

    def wait_for_calls(self, count: int, timeout: float) -> None:
        with self.progress:
            if not self.progress.wait_for(lambda: self.calls >= count, timeout=timeout):
                pytest.fail(f"load made only {self.calls} calls in {timeout} s")

    def play_game(self, path: str, client: TienLenClient, seed: int) -> tuple[int, ...]:
        """Play one 4-player game to its settlement, always the first legal play (else pass)."""
        with self.lock:
            self.games_started += 1
        game = self.call(path, client.new_game, variant="southern", players=4, seed=seed)
        for _ in range(MAX_TURNS):
            if game.finished:
                break
            seat = game.to_act
            assert seat is not None, "a game in progress has a seat to act"
            cards = first_play(self.call(path, client.legal_moves, game, seat))
            if cards is None:
                game = self.call(path, client.pass_turn, game, seat)
            else:
                game = self.call(path, client.play, game, seat, cards)
        else:
            raise AssertionError(f"game {seed} did not finish in {MAX_TURNS} turns")
        with self.progress:
            self.games_completed += 1
            self.progress.notify_all()
        return nets(game)


def collect(
    futures: dict[Future[tuple[int, ...]], tuple[str, int]], load: Load
) -> dict[tuple[str, int], tuple[int, ...]]:
    done, not_done = wait(futures, timeout=max(0.0, load.deadline - time.monotonic()) + 5.0)
    assert not not_done, f"{len(not_done)} games still running at the deadline"
    results: dict[tuple[str, int], tuple[int, ...]] = {}
    lost = []
    for future in done:
        try:
            results[futures[future]] = future.result()
        except Exception as error:  # noqa: BLE001 - reported below
            lost.append(f"{futures[future]}: {error!r}")
    assert not lost, (
        "lost games:\n" + "\n".join(lost) + "\nlast errors:\n" + "\n".join(load.errors[-10:])
    )
    return results


def report(
    capsys: pytest.CaptureFixture[str],
    title: str,
    load: Load,
    paths: dict[str, str | list[str]],
) -> dict[str, int]:
    """Print the figures of a run; return the client retries of each path."""
    retries = {name: client_retries(address) for name, address in paths.items()}
    with capsys.disabled():
        print(  # noqa: T201 - the figures this test exists to show
            f"\n[cluster] {title}: games completed {load.games_completed}/{load.games_started}, "
            f"calls {load.calls}, client retries "
            + ", ".join(f"{name} {count}" for name, count in retries.items())
            + f", failed calls {load.failures}"
        )
        for error in load.errors[:5]:
            print(f"[cluster]   failure: {error}")  # noqa: T201
    return retries


# --- the tests ---------------------------------------------------------------------------------


def test_tokens_are_shared_by_replicas_with_the_same_keys_and_refused_by_others(
    cluster: Cluster,
) -> None:
    replicas = cluster.start_serving(3)
    # The same key id with other key material: the hardest case to tell apart.
    stranger = cluster.start(keys=new_keys("cluster-1"))
    cluster.wait_serving(stranger)
    clients = [make_client(r.address) for r in replicas]

    game = clients[0].new_game(variant="southern", players=4, seed=11)
    seat = game.to_act
    assert seat is not None
    # Every replica reads the token minted by replica 0, and gives the same answer.
    answers = [c.legal_moves(game, seat) for c in clients]
    assert answers[0]
    assert answers == [answers[0]] * len(clients)
    # And the game goes on from replica to replica, each reading the previous one's token.
    for turn in range(12):
        client = clients[turn % len(clients)]
        seat = game.to_act
        assert seat is not None
        cards = first_play(client.legal_moves(game, seat))
        game = client.pass_turn(game, seat) if cards is None else client.play(game, seat, cards)
    assert game.to_act is not None, "12 moves do not finish a game"

    # A replica with other keys refuses the token with a clear error, and stays up.
    foreign = make_client(stranger.address)
    with pytest.raises(InvalidToken) as refused:
        foreign.legal_moves(game, game.to_act)
    assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.reason.startswith("TOKEN_"), refused.value.reason
    assert refused.value.message
    assert stranger.alive()
    cluster.wait_serving(stranger, timeout=5.0)
    # The other way round too: the cluster refuses the stranger's tokens.
    stranger_game = foreign.new_game(variant="southern", players=4, seed=12)
    assert stranger_game.to_act is not None
    with pytest.raises(InvalidToken):
        clients[1].play(stranger_game, stranger_game.to_act, ["3S"])
    assert all(r.alive() for r in replicas)


def test_games_survive_sigterm_sigkill_and_replacement(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    games_per_path = int(os.environ.get("TIENLEN_CLUSTER_GAMES", "24"))
    replicas = cluster.start_serving(3)
    nginx_port = cluster.start_nginx([r.port for r in replicas])

    nginx_address = f"{LOOPBACK}:{nginx_port}"
    replica_addresses = [r.address for r in replicas]
    via_nginx = make_client(nginx_address)
    via_round_robin = make_client(replica_addresses)
    load = Load(deadline=time.monotonic() + LOAD_TIMEOUT)
    clients = {"nginx": via_nginx, "round_robin": via_round_robin}
    futures: dict[Future[tuple[int, ...]], tuple[str, int]] = {}
    first_half = range(1, games_per_path // 2 + 1)
    second_half = range(games_per_path // 2 + 1, games_per_path + 1)
    with ThreadPoolExecutor(max_workers=8, thread_name_prefix="game") as pool:

        def submit(seeds: range) -> None:
            for seed in seeds:
                for path, client in clients.items():
                    futures[pool.submit(load.play_game, path, client, seed)] = (path, seed)

        # The first half of the games is in flight when the faults come.
        submit(first_half)
        load.wait_for_calls(300, timeout=20.0)
        in_flight = load.games_started - load.games_completed
        terminated, killed = replicas[0], replicas[1]
        cluster.terminate(terminated)
        cluster.kill(killed)
        cluster.wait_exit(killed)
        # The replacement comes back on the killed replica's port, which nginx's upstream and
        # the round_robin client both list. The second half of the games runs on it.
        replacement = cluster.start(killed.port, metrics=True)
        cluster.wait_serving(replacement)
        submit(second_half)
        assert cluster.wait_exit(terminated) == 0, "SIGTERM is a clean shutdown (exit 0)"
        results = collect(futures, load)
        replacement_calls = scraped_calls(replacement)
    report(
        capsys,
        "SIGTERM + SIGKILL + replacement",
        load,
        {"nginx": nginx_address, "round_robin": replica_addresses},
    )

    assert in_flight > 0, "the faults happened while games were being played"
    assert replacement_calls > 0, "nginx and round_robin sent calls to the replacement"
    assert load.games_completed == 2 * games_per_path, "zero lost games"
    for key, net in results.items():
        assert len(net) == 4
        assert sum(net) == 0, f"game {key} settled to {net}, which is not zero-sum"
    # The engine is deterministic in the seed: the same game played through either path (and
    # so through any mix of replicas) reaches the same settlement.
    for seed in range(1, games_per_path + 1):
        assert results[("nginx", seed)] == results[("round_robin", seed)], seed


def scraped_calls(replica: Replica) -> float:
    """grpc_server_handled_total summed over the replica's engine methods, from /metrics."""
    url = f"http://{LOOPBACK}:{replica.metrics_port}/metrics"
    with urllib.request.urlopen(url, timeout=2.0) as response:
        text = response.read().decode()
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line.startswith("grpc_server_handled_total{") and ENGINE_SERVICE in line
    )


def state_cache_hit_rate(replicas: Sequence[Replica]) -> float:
    """The replicas' state cache hit rate, from /metrics: 1 - tokens decoded / tokens verified
    (`tienlen_tokens_decoded_total` counts the misses; deploy/README.md, Affinity)."""
    decoded = verified = 0.0
    for replica in replicas:
        url = f"http://{LOOPBACK}:{replica.metrics_port}/metrics"
        with urllib.request.urlopen(url, timeout=2.0) as response:
            for line in response.read().decode().splitlines():
                if line.startswith("tienlen_tokens_decoded_total "):
                    decoded += float(line.rsplit(" ", 1)[1])
                elif line.startswith("tienlen_tokens_verified_total{"):
                    verified += float(line.rsplit(" ", 1)[1])
    return 1.0 - decoded / verified if verified else 0.0


def wait_until_served(replica: Replica, deadline: float) -> None:
    """Until the replica's /metrics counts engine calls it handled (bounded by `deadline`)."""
    while scraped_calls(replica) == 0:
        assert time.monotonic() < deadline, f"replica {replica.address} got no calls"
        threading.Event().wait(0.05)


def test_rolling_restart_under_round_robin_loses_no_call(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    old = cluster.start_serving(3, metrics=True, drain_delay=DRAIN_DELAY)
    spare_ports = [free_port() for _ in old]
    # The client knows every address a replica may come up on, as DNS would list new pods.
    addresses = [r.address for r in old] + [f"{LOOPBACK}:{p}" for p in spare_ports]
    client = make_client(addresses)
    load = Load(deadline=time.monotonic() + LOAD_TIMEOUT)
    stop = threading.Event()

    def player(first_seed: int) -> int:
        games = 0
        for game_index in range(GAMES_PER_DRIVER):  # bounded in count, and by load.deadline
            if stop.is_set():
                break
            assert sum(load.play_game("round_robin", client, first_seed + game_index)) == 0
            games += 1
        return games

    replacements: list[Replica] = []
    with ThreadPoolExecutor(max_workers=6, thread_name_prefix="player") as pool:
        futures = [pool.submit(player, 1000 * (i + 1)) for i in range(6)]
        try:
            load.wait_for_calls(300, timeout=20.0)
            for previous, port in zip(old, spare_ports, strict=True):
                replacement = cluster.start(port, metrics=True, drain_delay=DRAIN_DELAY)
                replacements.append(replacement)
                cluster.wait_serving(replacement)
                # Like a readiness gate plus endpoint propagation: the old replica goes only
                # once the client is sending calls to its replacement.
                deadline = time.monotonic() + 15.0
                while scraped_calls(replacement) == 0:
                    assert time.monotonic() < deadline, "the client never used the replacement"
                    assert not all(f.done() for f in futures), "the load ended before the restart"
                    threading.Event().wait(0.05)
                cluster.terminate(previous)
                assert cluster.wait_exit(previous) == 0, "SIGTERM is a clean shutdown (exit 0)"
            # Keep the load on the new replicas for a while.
            load.wait_for_calls(load.calls + 300, timeout=20.0)
        finally:
            stop.set()
        done, not_done = wait(futures, timeout=max(0.0, load.deadline - time.monotonic()) + 5.0)
    assert not not_done, "players still running at the deadline"
    for future in done:
        future.result()  # re-raises a player's failure
    report(capsys, "rolling restart", load, {"round_robin": addresses})
    with capsys.disabled():
        print(  # noqa: T201 - round robin spreads a game's calls: about 1/N of them hit
            "[cluster]   state cache hit rate of the new replicas"
            f" {state_cache_hit_rate(replacements):.0%}"
        )

    assert load.games_completed == load.games_started, "zero lost games"
    assert load.failures == 0, "calls failed during the rolling restart:\n" + "\n".join(
        load.errors[:10]
    )
    assert all(not r.alive() for r in old)


def test_nginx_loses_no_call_through_a_killed_replica_and_a_rolling_restart(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through nginx, with the client's default retries and none of the test's own: a replica
    SIGKILLed under load and then every replica restarted in turn cost zero failed calls.

    Every RPC is pure, so nginx may re-send a call whose replica died (grpc_next_upstream ...
    non_idempotent); what it cannot re-send is answered UNAVAILABLE, which the client retries,
    or, when the replica died just after its answer began, reset (INTERNAL "Received
    RST_STREAM"), which the client sends again itself.
    """
    replicas = cluster.start_serving(3, metrics=True, drain_delay=DRAIN_DELAY)
    nginx_port = cluster.start_nginx([r.port for r in replicas])
    address = f"{LOOPBACK}:{nginx_port}"
    client = make_client(address)
    load = Load(deadline=time.monotonic() + LOAD_TIMEOUT, attempts=1)
    stop = threading.Event()

    def player(first_seed: int) -> int:
        games = 0
        for game_index in range(GAMES_PER_DRIVER):  # bounded in count, and by load.deadline
            if stop.is_set():
                break
            assert sum(load.play_game("nginx", client, first_seed + game_index)) == 0
            games += 1
        return games

    restarted: list[Replica] = []
    with ThreadPoolExecutor(max_workers=6, thread_name_prefix="player") as pool:
        futures = [pool.submit(player, 5000 + 1000 * i) for i in range(6)]
        try:
            load.wait_for_calls(300, timeout=20.0)
            # A replica killed with calls in flight, and a replacement on its port (nginx's
            # upstream lists fixed addresses, as on VMs).
            killed = replicas[0]
            cluster.kill(killed)
            cluster.wait_exit(killed)
            replacement = cluster.start(killed.port, metrics=True, drain_delay=DRAIN_DELAY)
            cluster.wait_serving(replacement)
            load.wait_for_calls(load.calls + 200, timeout=20.0)
            # A rolling restart: each replica drained by SIGTERM, then replaced on its port.
            for previous in [replacement, *replicas[1:]]:
                cluster.terminate(previous)
                assert cluster.wait_exit(previous) == 0, "SIGTERM is a clean shutdown (exit 0)"
                restarted.append(
                    cluster.start(previous.port, metrics=True, drain_delay=DRAIN_DELAY)
                )
                cluster.wait_serving(restarted[-1])
                # nginx sends a replica it saw fail no calls for a while: wait until the new
                # one has served some (an event, bounded), not for a count of calls overall.
                wait_until_served(restarted[-1], deadline=load.deadline)
        finally:
            stop.set()
        done, not_done = wait(futures, timeout=max(0.0, load.deadline - time.monotonic()) + 5.0)
    assert not not_done, "players still running at the deadline"
    report(
        capsys, "nginx: SIGKILL + rolling restart, default client retries", load, {"nginx": address}
    )
    log = (cluster.workdir / "nginx" / "access.log").read_text(encoding="utf-8").splitlines()
    resent = [line for line in log if re.search(r'"upstream":"[^"]*, ', line)]
    unavailable = [line for line in log if '"status":204' in line]  # the UNAVAILABLE error_page
    with capsys.disabled():
        print(  # noqa: T201
            f"[cluster]   nginx sent {len(resent)} calls on to the next replica and answered"
            f" {len(unavailable)} UNAVAILABLE (in flight on a dying replica; the client re-sent);"
            f" state cache hit rate of the restarted replicas {state_cache_hit_rate(restarted):.0%}"
        )

    assert load.failures == 0, "calls failed through nginx:\n" + "\n".join(load.errors[:10])
    for future in done:
        future.result()  # re-raises a player's failure
    assert load.games_completed == load.games_started, "zero lost games"
    assert all(scraped_calls(r) > 0 for r in restarted), "every new replica served calls"


def test_nginx_sends_a_games_calls_to_one_replica_so_they_hit_its_state_cache(
    cluster: Cluster, capsys: pytest.CaptureFixture[str]
) -> None:
    """Affinity without state (deploy/README.md): the client names each call's game
    (`tienlen-game-id`) and nginx hashes it, so a game's calls go to one replica, whose state
    cache answers them without verifying and decoding the token again; the games' calls still
    spread over every replica, and the games end as they do anywhere."""
    replicas = cluster.start_serving(3, metrics=True)
    nginx_port = cluster.start_nginx([r.port for r in replicas])
    address = f"{LOOPBACK}:{nginx_port}"
    client = make_client(address)
    load = Load(deadline=time.monotonic() + LOAD_TIMEOUT, attempts=1)
    games = 12
    for seed in range(1, games + 1):
        assert sum(load.play_game("nginx", client, seed)) == 0
    rate = state_cache_hit_rate(replicas)
    served = [scraped_calls(r) for r in replicas]
    report(capsys, "nginx: a game's calls hashed to one replica", load, {"nginx": address})
    with capsys.disabled():
        print(  # noqa: T201 - the figure this test exists to show
            f"[cluster]   state cache hit rate {rate:.1%} over {load.calls} calls;"
            f" calls per replica {[int(n) for n in served]}"
        )
    assert load.games_completed == games
    # A game misses at most on its first move (NewGame is spread by its request id, its moves
    # hashed by the game): without affinity, about two calls in three would miss.
    assert rate > 0.9
    assert all(n > 0 for n in served), "every replica served calls"


def test_play_stream_passes_through_nginx(cluster: Cluster) -> None:
    """PlayStream is bidirectional: nginx must pass it through as it comes (its location does
    not read the request first, as the unary calls' does), or no move would ever be answered."""
    replicas = cluster.start_serving(2)
    nginx_port = cluster.start_nginx([r.port for r in replicas])
    client = make_client(f"{LOOPBACK}:{nginx_port}")
    game = client.new_game(variant="southern", players=4, seed=7)
    with client.play_stream() as stream:
        for _ in range(MAX_TURNS):
            if game.finished:
                break
            seat = game.to_act
            assert seat is not None
            cards = first_play(client.legal_moves(game, seat))
            game = (
                stream.pass_turn(game, seat, timeout=10.0)
                if cards is None
                else stream.play(game, seat, cards, timeout=10.0)
            )
    assert sum(nets(game)) == 0


def started_and_handled(replica: Replica, method: str) -> tuple[float, float]:
    """grpc_server_started_total and grpc_server_handled_total of one engine method."""
    url = f"http://{LOOPBACK}:{replica.metrics_port}/metrics"
    with urllib.request.urlopen(url, timeout=2.0) as response:
        lines = response.read().decode().splitlines()
    selector = f'grpc_method="{method}"'

    def total(prefix: str) -> float:
        return sum(
            float(line.rsplit(" ", 1)[1])
            for line in lines
            if line.startswith(prefix) and selector in line and ENGINE_SERVICE in line
        )

    return total("grpc_server_started_total{"), total("grpc_server_handled_total{")


def test_a_call_whose_replica_dies_mid_call_is_answered_through_nginx(cluster: Cluster) -> None:
    """A replica SIGKILLed while it computes a call: nginx cannot re-send a request that went
    out, so it answers gRPC UNAVAILABLE (never INTERNAL), and the client's default retry gets
    the answer from the other replica. A slow bot's SuggestMove is the call, so that it is
    surely in flight when the replica dies; on a busy machine the call can still end between
    the moment it is seen in flight and the kill: then the killed replica is started again and
    the catch is tried anew (a bounded number of times)."""
    replicas = cluster.start_serving(2, metrics=True)
    nginx_port = cluster.start_nginx([r.port for r in replicas])
    address = f"{LOOPBACK}:{nginx_port}"
    client = TienLenClient(address, timeout=120.0)
    game = client.new_game(variant="southern", players=4, seed=3)
    suggestions = 0
    for _attempt in range(8):  # bounded: each attempt kills one replica mid-call
        busy, move, game, suggestions = catch_and_kill(cluster, client, replicas, game, suggestions)
        assert move is not None, "the other replica answered the call"
        lines = nginx_log_lines(cluster, "/SuggestMove", suggestions)
        if f'"upstream":"{busy.address}"' in lines[-1] and '"status":200' in lines[-1]:
            # The call ended on the busy replica just before the kill: start it again, retry.
            replicas = [r for r in replicas if r is not busy]
            replicas.append(cluster.start(busy.port, metrics=True))
            cluster.wait_serving(replicas[-1])
            continue
        lines = nginx_log_lines(cluster, "/SuggestMove", suggestions + 1)
        # The killed replica's attempt: its failure mapped to UNAVAILABLE (HTTP 204 +
        # grpc-status 14 from the error_page), not a reset stream ...
        assert f'"upstream":"{busy.address}"' in lines[-2], lines[-2]
        assert '"status":204' in lines[-2], lines[-2]
        # ... and the client's retry, answered by the other replica.
        (other,) = [r for r in replicas if r is not busy]
        assert '"status":200' in lines[-1], lines[-1]
        assert re.search(rf'"upstream":"[^"]*{re.escape(other.address)}"', lines[-1]), lines[-1]
        return
    pytest.fail("no SuggestMove call could be killed in flight in 8 attempts")


def catch_and_kill(
    cluster: Cluster, client: TienLenClient, replicas: list[Replica], game: Game, suggestions: int
) -> tuple[Replica, Any, Game, int]:
    """Play on until a montecarlo SuggestMove is seen in flight on a replica, SIGKILL that
    replica, and wait for the call's answer: (the killed replica, the answer, the game, the
    number of SuggestMove calls made so far)."""
    busy: Replica | None = None
    with ThreadPoolExecutor(max_workers=1) as pool:
        for _ in range(12):  # bounded: a suggestion too quick to catch moves the game on
            seat = game.to_act
            assert seat is not None
            cards = first_play(client.legal_moves(game, seat))
            game = client.pass_turn(game, seat) if cards is None else client.play(game, seat, cards)
            seat = game.to_act
            assert seat is not None
            before = {r.port: started_and_handled(r, "SuggestMove")[0] for r in replicas}
            suggestion = pool.submit(client.suggest, game, seat, "montecarlo")
            suggestions += 1
            # Until a replica has started the call and not finished it (the bot thinks for
            # about half a second here), or the call is already answered.
            while busy is None and not suggestion.done():
                for replica in replicas:
                    started, handled = started_and_handled(replica, "SuggestMove")
                    if started > before[replica.port] and started > handled:
                        busy = replica
            if busy is not None:
                break
            suggestion.result()
        assert busy is not None, "no SuggestMove call could be caught in flight"
        cluster.kill(busy)
        cluster.wait_exit(busy)
        return busy, suggestion.result(timeout=150.0), game, suggestions


def nginx_log_lines(cluster: Cluster, method: str, count: int) -> list[str]:
    """The access-log lines of `method`, once there are `count` of them: nginx writes a line
    when it finishes a request, which can be just after the client has its answer."""
    log = cluster.workdir / "nginx" / "access.log"
    deadline = time.monotonic() + 10.0
    while True:
        lines = [e for e in log.read_text(encoding="utf-8").splitlines() if method in e]
        if len(lines) >= count:
            return lines
        assert time.monotonic() < deadline, "\n".join(lines)
        threading.Event().wait(0.05)
