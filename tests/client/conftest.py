"""The client tests import `tienlen_client` from clients/python when it is not installed."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

CLIENT_SRC = Path(__file__).resolve().parents[2] / "clients" / "python"

if importlib.util.find_spec("tienlen_client") is None:  # pragma: no cover - depends on the venv
    # Appended (not prepended): the repository's own `tienlen` package stays first on the path.
    sys.path.append(str(CLIENT_SRC))
