"""Fixtures of the web port's tests: a real server on 127.0.0.1 with both ports on port 0."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from .webclient import WebClient


@pytest.fixture
def start_web(server_factory: Any) -> Callable[..., tuple[Any, WebClient]]:
    """Start a server with both ports (the web port on a free port); returns (running, client)."""

    def start(**settings: Any) -> tuple[Any, WebClient]:
        settings.setdefault("web_port", 0)
        running = server_factory(**settings)
        return running, WebClient(running.handle.web_port)

    return start
