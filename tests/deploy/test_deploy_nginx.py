"""deploy/nginx/nginx.conf renders into a configuration that nginx itself accepts.

`nginx -t` parses the rendered file with the real nginx (CI installs Debian's nginx). The
structural checks below hold whether or not nginx is installed.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "deploy" / "nginx" / "nginx.conf"
RENDER_SCRIPT = REPO / "deploy" / "nginx" / "render.py"


def load_render() -> Callable[..., str]:
    spec = importlib.util.spec_from_file_location("tienlen_nginx_render", RENDER_SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    render: Callable[..., str] = module.render
    return render


def find_nginx() -> str | None:
    found = shutil.which("nginx")
    if found:
        return found
    return "/usr/sbin/nginx" if Path("/usr/sbin/nginx").is_file() else None


def rendered(tmp_path: Path) -> str:
    return load_render()(
        listen="127.0.0.1:18080",
        upstreams=["127.0.0.1:50051", "127.0.0.1:50052", "127.0.0.1:50053"],
        runtime_dir=str(tmp_path),
        workers="1",
    )


def directives(config: str) -> list[str]:
    """The configuration without comments, one statement per item."""
    lines = [line.split("#", 1)[0].strip() for line in config.splitlines()]
    return [part.strip() for part in " ".join(lines).replace("{", ";").replace("}", ";").split(";")]


def test_template_placeholders_are_only_the_documented_four() -> None:
    text = TEMPLATE.read_text(encoding="utf-8")
    code = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    assert set(re.findall(r"\$\{(\w+)\}", code)) == {
        "TIENLEN_NGINX_WORKERS",
        "TIENLEN_NGINX_RUNTIME_DIR",
        "TIENLEN_NGINX_LISTEN",
        "TIENLEN_NGINX_UPSTREAM_SERVERS",
    }
    # envsubst would substitute inside comments too: no placeholder may appear there.
    comments = "\n".join(line.split("#", 1)[1] for line in text.splitlines() if "#" in line)
    assert not re.findall(r"\$\{?TIENLEN_", comments)


def test_rendering_fills_every_placeholder_and_keeps_nginx_variables(tmp_path: Path) -> None:
    config = rendered(tmp_path)
    assert "TIENLEN_NGINX" not in "\n".join(directives(config))
    assert "$remote_addr" in config
    assert "$upstream_addr" in config
    servers = re.findall(r"^\s*server (127\.0\.0\.1:\d+) ", config, re.MULTILINE)
    assert servers == ["127.0.0.1:50051", "127.0.0.1:50052", "127.0.0.1:50053"]


def test_rendering_refuses_an_empty_upstream(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="upstream"):
        load_render()(listen="127.0.0.1:1", upstreams=[], runtime_dir=str(tmp_path))


def test_config_is_an_l7_grpc_balancer(tmp_path: Path) -> None:
    statements = directives(rendered(tmp_path))
    assert "listen 127.0.0.1:18080 http2" in statements
    assert "grpc_pass grpc://tienlen_engine" in statements
    assert any(re.fullmatch(r"keepalive \d+", s) for s in statements), "upstream keepalive"
    (next_upstream,) = [s for s in statements if s.startswith("grpc_next_upstream ")]
    # Every RPC is pure: a call a replica failed (down, reset, timed out, 5xx) goes to the next.
    assert {"error", "timeout", "invalid_header", "http_502", "non_idempotent"} <= set(
        next_upstream.split()[1:]
    )
    (tries,) = [s for s in statements if s.startswith("grpc_next_upstream_tries ")]
    assert 2 <= int(tries.split()[1]) <= 5, "bounded: a bad call cannot visit every replica"
    (limit,) = [s for s in statements if s.startswith("grpc_next_upstream_timeout ")]
    assert limit.split()[1] not in {"0", "0s"}, "bounded in time too"
    for timeout in ("grpc_connect_timeout", "grpc_read_timeout", "grpc_send_timeout"):
        assert any(s.startswith(timeout + " ") for s in statements), timeout
    # No replica left -> gRPC UNAVAILABLE (14), which clients retry, not a bare HTTP 502.
    assert "add_header grpc-status 14 always" in statements


def test_a_games_calls_hash_to_one_replica_and_calls_naming_no_game_spread(tmp_path: Path) -> None:
    """Affinity (deploy/README.md): the upstream hashes the game id the clients send as call
    metadata (tienlen-game-id), consistently; a call without one hashes by its request id, so
    NewGame and the like are not all sent to one replica."""
    statements = directives(rendered(tmp_path))
    assert "hash $tienlen_affinity consistent" in statements
    assert "map $http_tienlen_game_id $tienlen_affinity" in statements
    assert '"" $request_id' in statements
    assert "default $http_tienlen_game_id" in statements


def test_nginx_accepts_the_rendered_config(tmp_path: Path) -> None:
    nginx = find_nginx()
    if nginx is None:
        pytest.skip("nginx is not installed (CI installs it: apt-get install -y nginx)")
    config_file = tmp_path / "nginx.conf"
    config_file.write_text(rendered(tmp_path), encoding="utf-8")
    result = subprocess.run(
        [nginx, "-t", "-q", "-p", str(tmp_path), "-c", str(config_file), "-e", "stderr"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    # And nginx really parses it: a broken copy must fail.
    config_file.write_text(rendered(tmp_path).replace("grpc_pass", "grpc_pas"), encoding="utf-8")
    broken = subprocess.run(
        [nginx, "-t", "-q", "-p", str(tmp_path), "-c", str(config_file), "-e", "stderr"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert broken.returncode != 0


def location_blocks(config: str) -> dict[str, str]:
    """`location X { ... }` -> its body (the template's locations hold no nested blocks)."""
    code = "\n".join(line.split("#", 1)[0] for line in config.splitlines())
    return {
        m.group(1).strip(): m.group(2)
        for m in re.finditer(r"location\s+([^{]+?)\s*\{([^{}]*)\}", code)
    }


def test_no_location_reads_requests_whole_over_kept_alive_upstreams(tmp_path: Path) -> None:
    # Measured (deploy/README.md): with upstream keepalive, nginx re-sending a gRPC call it had
    # read whole (mirror_request_body) hung the call or marked a healthy replica down. Calls
    # killed mid-way are left to the clients' retry of UNAVAILABLE instead.
    statements = directives(rendered(tmp_path))
    assert any(re.fullmatch(r"keepalive \d+", s) for s in statements)
    assert not [s for s in statements if s.startswith("mirror")]


def test_play_stream_has_its_own_idle_timeout(tmp_path: Path) -> None:
    # A bidirectional stream lasts the whole game, with a player's thinking between moves.
    stream = location_blocks(rendered(tmp_path))["= /tienlen.v1.TienLenEngine/PlayStream"]
    assert "grpc_pass grpc://tienlen_engine;" in stream
    (idle,) = re.findall(r"grpc_read_timeout\s+(\d+)s;", stream)
    assert int(idle) >= 120, "a player thinking between moves keeps the stream"
