"""Reading the service's JSON log lines in tests (the `log_stream` fixture of conftest.py)."""

from __future__ import annotations

import io
import json
from typing import Any


def json_lines(stream: io.StringIO) -> list[dict[str, Any]]:
    """The JSON records logged to `stream` so far (other lines, e.g. grpc's own, left out)."""
    return [json.loads(line) for line in stream.getvalue().splitlines() if line.startswith("{")]
