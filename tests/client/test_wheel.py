"""The client as another project gets it: built, installed outside the repository, run.

`python -m build` makes the client's sdist and, from it, the wheel; the wheel goes into a new
virtual environment in a temporary directory (not the repository's, nothing of the checkout
on its path, dependencies from the package index as pip is configured: its cache makes later
runs quick) and must work there without grpcio-tools: the client README's first sample plays
a seeded game to its settlement against a real server, and the `tienlen` command runs.

For speed the build runs `--no-isolation`, in this venv, which holds the build requirements
(the dev tools pin the same generator; a test below checks the pins agree), and the new venv
is made without pip of its own: this venv's pip installs into it (`pip --python`). Built with
isolation, as `pip install clients/python` does, the build only adds fetching those pins.

Every step is a subprocess with a time limit, so a hung build or install fails the test
instead of stalling the run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from email.parser import Parser
from pathlib import Path
from typing import Any

import pytest

from .test_readme_samples import README_ADDRESS, assert_printed_in_order

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "python"
CONTRACT = ROOT / "tienlen" / "v1"
BUILD_TIMEOUT = 600.0
"""Seconds for `python -m build` (two isolated build environments) or one `pip install`."""
RUN_TIMEOUT = 120.0
"""Seconds for a sample or a `tienlen` command to run."""
_GENERATED = re.compile(r"_pb2(_grpc)?\.pyi?$")


@dataclass(frozen=True)
class Built:
    wheel: Path
    sdist: Path


@dataclass(frozen=True)
class Installed:
    home: Path  # outside the repository: the working directory of everything run there
    python: Path
    bin: Path


def clean_env() -> dict[str, str]:
    """The caller's environment without what would put the checkout or our venv on the path."""
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "VIRTUAL_ENV"}}
    env["PYTHONNOUSERSITE"] = "1"
    return env


def run(args: list[str], *, cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(  # our own interpreter and tools
        args, cwd=cwd, env=clean_env(), capture_output=True, text=True, timeout=timeout, check=False
    )
    assert result.returncode == 0, f"{args} failed:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    out = tmp_path_factory.mktemp("dist")
    run(
        [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(CLIENT)],
        cwd=out,
        timeout=BUILD_TIMEOUT,
    )
    (wheel,) = out.glob("tienlen_client-*.whl")
    (sdist,) = out.glob("tienlen_client-*.tar.gz")
    return Built(wheel, sdist)


@pytest.fixture(scope="module")
def installed(built: Built, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    home = tmp_path_factory.mktemp("another-project")
    assert ROOT not in home.parents
    venv = home / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], cwd=home, timeout=BUILD_TIMEOUT)
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python), "--disable-pip-version-check"]
    run([*pip, "install", str(built.wheel)], cwd=home, timeout=BUILD_TIMEOUT)
    return Installed(home, python, venv / "bin")


def test_the_build_requirements_pin_the_repository_s_generator() -> None:
    client = tomllib.loads((CLIENT / "pyproject.toml").read_text(encoding="utf-8"))
    service = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    requires = set(client["build-system"]["requires"])
    generator = {
        r.split("#")[0].strip() for r in service["project"]["optional-dependencies"]["gen"]
    }
    assert generator <= requires
    assert all("==" in r for r in generator), "exact pins: the generated files embed them"


def test_the_wheel_ships_the_code_the_repository_generates(built: Built) -> None:
    # The drift check of the build hook: same generator pins and flags as scripts/gen_protos.py.
    with zipfile.ZipFile(built.wheel) as wheel:
        shipped = {
            Path(name).name: wheel.read(name)
            for name in wheel.namelist()
            if name.startswith("tienlen/v1/") and _GENERATED.search(name)
        }
        names = set(wheel.namelist())
    generated = {p.name: p.read_bytes() for p in CONTRACT.iterdir() if _GENERATED.search(p.name)}
    assert generated, "run make gen first"
    assert shipped.keys() == generated.keys()
    stale = sorted(name for name in generated if shipped[name] != generated[name])
    assert not stale, f"the wheel's generated code differs from the repository's: {stale}"
    assert {"tienlen/__init__.py", "tienlen/v1/__init__.py"} <= names
    assert {"tienlen/py.typed", "tienlen_client/py.typed"} <= names  # typed, stubs included


def test_the_wheel_says_its_version_and_its_readme_renders(built: Built) -> None:
    with zipfile.ZipFile(built.wheel) as wheel:
        (metadata_name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
        metadata = Parser().parsestr(wheel.read(metadata_name).decode())
        entry_points = next(
            wheel.read(n).decode() for n in wheel.namelist() if n.endswith("entry_points.txt")
        )
    assert metadata["Name"] == "tienlen-client"
    assert re.fullmatch(r"\d+\.\d+\.\d+", metadata["Version"])
    assert metadata["Description-Content-Type"] == "text/markdown"
    readme = (CLIENT / "README.md").read_text(encoding="utf-8")
    assert metadata.get_payload().strip() == readme.strip()
    assert "tienlen = tienlen_client.cli:main" in entry_points
    requires = metadata.get_all("Requires-Dist") or []
    assert not [r for r in requires if r.startswith("grpcio-tools")], "a build tool, not a need"


def test_the_sdist_carries_the_protos_its_wheel_is_generated_from(built: Built) -> None:
    with tarfile.open(built.sdist) as sdist:
        names = {Path(*Path(n).parts[1:]).as_posix() for n in sdist.getnames()}
    protos = {
        f"protos/tienlen/v1/{p.name}" for p in (ROOT / "protos" / "tienlen" / "v1").glob("*.proto")
    }
    assert protos <= names
    assert "setup.py" in names


def test_the_installed_client_imports_from_its_own_venv_without_grpcio_tools(
    installed: Installed,
) -> None:
    script = (
        "import importlib.util, tienlen.v1.service_pb2 as s, tienlen_client as c\n"
        "print(s.__file__); print(c.__file__); print(c.__version__)\n"
        "print(importlib.util.find_spec('grpc_tools'))\n"
    )
    out = run([str(installed.python), "-c", script], cwd=installed.home, timeout=RUN_TIMEOUT)
    service_file, client_file, version, tools = out.stdout.splitlines()
    venv = installed.python.parent.parent
    assert Path(service_file).is_relative_to(venv)
    assert Path(client_file).is_relative_to(venv)
    assert version != "0+unknown"
    assert tools == "None"


def test_the_client_readme_sample_plays_a_seeded_game_in_a_fresh_venv(
    installed: Installed, server_factory: Callable[..., Any]
) -> None:
    running = server_factory()
    readme = (CLIENT / "README.md").read_text(encoding="utf-8")
    sample = re.findall(r"```python\n(.*?)```", readme, re.DOTALL)[0]
    assert README_ADDRESS in sample
    script = installed.home / "sample.py"
    script.write_text(sample.replace(README_ADDRESS, running.address), encoding="utf-8")
    out = run([str(installed.python), str(script)], cwd=installed.home, timeout=RUN_TIMEOUT)
    assert_printed_in_order(out.stdout.splitlines(), sample)


def test_the_tienlen_command_watches_a_game_in_a_fresh_venv(
    installed: Installed, server_factory: Callable[..., Any]
) -> None:
    running = server_factory()
    args = [str(installed.bin / "tienlen"), "watch", "--seed", "7", "--bots", "greedy"]
    args += ["--address", running.address]
    out = run(args, cwd=installed.home, timeout=RUN_TIMEOUT)
    assert "Game over." in out.stdout
    assert "Settlement" in out.stdout
