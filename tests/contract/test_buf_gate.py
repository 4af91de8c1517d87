"""The wire-contract gate (scripts/buf_gate.py: buf lint + buf breaking against the committed
baseline) passes on the real protos and fails on a scratch copy with a field removed or
renumbered; a compatible change, or a breaking one published as tienlen.v2, passes.

buf is the one npm installs in clients/node from package-lock.json; the fixture runs `npm ci`
there when it is missing, so the test needs nothing installed by hand.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GATE = REPO / "scripts" / "buf_gate.py"
NODE_DIR = REPO / "clients" / "node"
BUF = NODE_DIR / "node_modules" / ".bin" / "buf"
NPM_CI_TIMEOUT_S = 600
GATE_TIMEOUT_S = 300


@pytest.fixture(scope="module")
def buf() -> Path:
    """buf from clients/node's lock file (`npm ci` when it is not installed yet)."""
    if not BUF.exists():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund"],
            cwd=NODE_DIR,
            check=True,
            timeout=NPM_CI_TIMEOUT_S,
        )
    assert BUF.exists(), f"npm ci did not install {BUF}"
    return BUF


def gate(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(GATE), "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=GATE_TIMEOUT_S,
        check=False,
        env={**os.environ, "BUF": str(BUF)},
    )


@pytest.fixture
def scratch(tmp_path: Path, buf: Path) -> Path:
    """A copy of the contract (buf.yaml, protos/ with the baseline) to break."""
    del buf
    shutil.copy(REPO / "buf.yaml", tmp_path / "buf.yaml")
    shutil.copytree(REPO / "protos", tmp_path / "protos")
    return tmp_path


def edit(path: Path, pattern: str, replacement: str) -> None:
    text = path.read_text(encoding="utf-8")
    changed, count = re.subn(pattern, replacement, text, count=1, flags=re.MULTILINE)
    assert count == 1, f"{pattern!r} not found in {path}"
    path.write_text(changed, encoding="utf-8")


def test_the_gate_passes_on_the_real_protos(buf: Path) -> None:
    del buf
    result = gate(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "lint and breaking passed" in result.stdout


def test_removing_a_field_fails_the_gate(scratch: Path) -> None:
    # NewGameRequest.players goes away (as a careless refactor would do it).
    edit(scratch / "protos/tienlen/v1/service.proto", r"^\s*int32 players = 2;\n", "")
    result = gate(scratch)
    assert result.returncode == 1
    assert "players" in result.stdout + result.stderr
    assert "breaking changes" in result.stderr


def test_renumbering_a_field_fails_the_gate(scratch: Path) -> None:
    # 4: a number no other field of Card uses (3 is Card.text).
    edit(scratch / "protos/tienlen/v1/cards.proto", r"^(\s*Suit suit = )2;", r"\g<1>4;")
    result = gate(scratch)
    assert result.returncode == 1
    assert "suit" in (result.stdout + result.stderr).lower()


def test_a_lint_finding_fails_the_gate(scratch: Path) -> None:
    (scratch / "protos/tienlen/v1/extra.proto").write_text(
        'syntax = "proto3";\npackage tienlen.v1;\nenum colour { RED = 0; }\n', encoding="utf-8"
    )
    result = gate(scratch)
    assert result.returncode == 1
    assert "lint findings" in result.stderr


def test_adding_a_field_passes_the_gate(scratch: Path) -> None:
    edit(
        scratch / "protos/tienlen/v1/cards.proto",
        r"^(\s*Suit suit = 2;)",
        "\\g<1>\n  // A note for the test.\n  string note = 4;",
    )
    result = gate(scratch)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_breaking_change_published_as_v2_passes_the_gate(scratch: Path) -> None:
    v1 = scratch / "protos/tienlen/v1"
    v2 = scratch / "protos/tienlen/v2"
    shutil.copytree(v1, v2)
    for proto in v2.glob("*.proto"):
        text = (
            proto.read_text(encoding="utf-8")
            .replace("tienlen.v1", "tienlen.v2")
            .replace("tienlen/v1/", "tienlen/v2/")
        )
        proto.write_text(text, encoding="utf-8")
    edit(v2 / "service.proto", r"^\s*int32 players = 2;\n", "")
    result = gate(scratch)
    assert result.returncode == 0, result.stdout + result.stderr
