"""A dev run lets a page call from either loopback spelling of a listed origin: a browser sends
`http://localhost:5173` or `http://127.0.0.1:5173` as the page was opened, and both are the
same dev server. Outside a dev run only the listed spelling is allowed. Real servers on
127.0.0.1 port 0 (both ports)."""

from __future__ import annotations

from typing import Any

import pytest

from tienlen_service.config import Config

from .webclient import WebClient

LISTED = "http://localhost:5173"


def test_a_dev_run_allows_every_loopback_spelling_of_a_listed_origin() -> None:
    config = Config(dev=True, cors_origins=(LISTED, "https://cards.example"))
    assert config.allowed_origins == (
        LISTED,
        "https://cards.example",
        "http://127.0.0.1:5173",
        "http://[::1]:5173",
    )
    assert Config(dev=True, cors_origins=("http://[::1]:8000",)).allowed_origins == (
        "http://[::1]:8000",
        "http://localhost:8000",
        "http://127.0.0.1:8000",
    )


def test_outside_a_dev_run_only_the_listed_spelling_is_allowed() -> None:
    assert Config(cors_origins=(LISTED,)).allowed_origins == (LISTED,)


@pytest.mark.parametrize(
    ("dev", "status"), [(True, 200), (False, 403)], ids=["dev run", "production"]
)
def test_a_page_on_127_0_0_1_may_call_when_localhost_is_listed(
    server_factory: Any, dev: bool, status: int
) -> None:
    running = server_factory(web_port=0, cors_origins=(LISTED,), dev=dev)
    web = WebClient(running.handle.web_port)
    assert web.preflight(LISTED).status == 200
    answer = web.preflight("http://127.0.0.1:5173")
    assert answer.status == status
    if status == 200:
        assert answer.header("access-control-allow-origin") == "http://127.0.0.1:5173"
    assert web.preflight("http://127.0.0.1:5174").status == 403  # another port is another origin
