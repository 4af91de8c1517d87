"""The layers hold at run time too: the engine loads without grpc or protobuf.

The static side (who may import whom) is `make lint-imports` (.importlinter); this proves
what a bare `import tienlen_rules` pulls in, in a fresh interpreter, so that nothing loaded
by the test session itself can hide an import.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _modules_loaded_by(statement: str) -> set[str]:
    probe = f"import sys\n{statement}\nprint('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return set(done.stdout.split())


def _loaded(loaded: set[str], top: str) -> bool:
    return any(m == top or m.startswith(top + ".") for m in loaded)


def test_the_engine_loads_without_grpc_protobuf_or_the_service() -> None:
    loaded = _modules_loaded_by("import tienlen_rules")
    assert "tienlen_rules.game" in loaded  # the probe saw the engine load
    for top in ("grpc", "google.protobuf", "tienlen.v1", "tienlen_service", "tienlen_client"):
        assert not _loaded(loaded, top), top


def test_the_probe_sees_protobuf_when_the_codec_loads_it() -> None:
    # The counter-check: the same probe does see protobuf come in with the service's codec.
    loaded = _modules_loaded_by("import tienlen_service.codec")
    assert _loaded(loaded, "google.protobuf")
    assert _loaded(loaded, "tienlen_rules")
