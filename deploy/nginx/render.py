# ruff: noqa: INP001  (a stand-alone script next to the template it renders, not a package)
"""Render deploy/nginx/nginx.conf for a set of engine replicas.

The template's four placeholders are substituted exactly as
``envsubst '${TIENLEN_NGINX_WORKERS} ...'`` would (only those names; nginx's own ``$variables``
are left alone), so this script is a convenience for hosts without gettext's envsubst and the
one renderer the tests use::

    python3 deploy/nginx/render.py --listen 0.0.0.0:8080 --runtime-dir /run/tienlen-nginx \
        --upstream 10.0.0.11:50051 --upstream 10.0.0.12:50051 > /etc/nginx/nginx.conf
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

TEMPLATE = Path(__file__).with_name("nginx.conf")
PLACEHOLDERS = (
    "TIENLEN_NGINX_WORKERS",
    "TIENLEN_NGINX_RUNTIME_DIR",
    "TIENLEN_NGINX_LISTEN",
    "TIENLEN_NGINX_UPSTREAM_SERVERS",
)


def upstream_lines(upstreams: list[str], *, max_fails: int = 1, fail_timeout: str = "5s") -> str:
    """Return the ``server`` lines of the upstream block, one per ``host:port``."""
    if not upstreams:
        raise ValueError("at least one upstream replica is needed")
    return "\n        ".join(
        f"server {address} max_fails={max_fails} fail_timeout={fail_timeout};"
        for address in upstreams
    )


def render(
    *,
    listen: str,
    upstreams: list[str],
    runtime_dir: str,
    workers: str = "auto",
    fail_timeout: str = "5s",
    template: str | None = None,
) -> str:
    """Return the template with its placeholders filled in."""
    text = TEMPLATE.read_text(encoding="utf-8") if template is None else template
    values = {
        "TIENLEN_NGINX_WORKERS": workers,
        "TIENLEN_NGINX_RUNTIME_DIR": runtime_dir,
        "TIENLEN_NGINX_LISTEN": listen,
        "TIENLEN_NGINX_UPSTREAM_SERVERS": upstream_lines(upstreams, fail_timeout=fail_timeout),
    }
    # envsubst replaces both ${NAME} and $NAME for the names it is given.
    pattern = re.compile(
        r"\$(?:\{(" + "|".join(PLACEHOLDERS) + r")\}|(" + "|".join(PLACEHOLDERS) + r")\b)"
    )
    return pattern.sub(lambda m: values[m.group(1) or m.group(2)], text)


def main(argv: list[str] | None = None) -> int:
    """Command line: print the rendered configuration."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--listen", required=True, help="address:port of the gRPC listener")
    parser.add_argument(
        "--upstream", action="append", required=True, help="host:port of a replica (repeat)"
    )
    parser.add_argument("--runtime-dir", required=True, help="pid file, logs and temp dirs")
    parser.add_argument("--workers", default="auto", help="worker_processes (default auto)")
    args = parser.parse_args(argv)
    sys.stdout.write(
        render(
            listen=args.listen,
            upstreams=args.upstream,
            runtime_dir=args.runtime_dir,
            workers=args.workers,
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
