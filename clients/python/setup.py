"""The build hook of the client's wheel: the generated `tienlen.v1` code goes inside it.

The client imports the protobuf/gRPC code of the contract (`from tienlen.v1 import ...`), made
from `protos/tienlen/v1/*.proto` by protoc. That code is generated here, when the wheel is
built, rather than committed: `grpcio-tools` and `mypy-protobuf` are build requirements
(pyproject.toml), so `pip install <clone>/clients/python` and `python -m build` work in any
environment, while an installed client needs neither. The pins are the repository's own
generator's (scripts/gen_protos.py), and tests/client/test_wheel.py checks that the wheel's
files are byte for byte the ones the repository generates.

Why built rather than committed beside the client: the protos stay the one source (no second
copy to keep in step, no drift check to run on every change), the repository keeps its rule
of no generated code in git, and the price — pip fetching grpcio-tools into the build
environment, once, from its cache afterwards — is paid by the build alone.

- wheel (`build_py`): protoc writes `tienlen/v1/*_pb2*.py` and their `.pyi` stubs into the
  build directory, with `tienlen/py.typed` so that type checkers read the stubs.
- sdist: the `.proto` files are copied in (`protos/`), so the wheel `python -m build` makes
  from the sdist is generated from the same contract.
- editable installs (`pip install -e`, the repository's own venv) generate nothing: there the
  repository's `tienlen` package (`make gen`) is the one imported.
"""

# ruff: noqa: INP001 - a build script beside pyproject.toml, not a module of a package

from __future__ import annotations

import shutil
import sys
from importlib import resources
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

HERE = Path(__file__).resolve().parent
CONTRACT = Path("tienlen") / "v1"
# An sdist carries its own copy of the protos; a checkout builds from the repository's.
PROTO_ROOTS = (HERE / "protos", HERE.parent.parent / "protos")
INIT_TEXT = (
    '"""Generated protobuf and gRPC code for the Tiến Lên contract (package tienlen.v1)."""\n'
)


def proto_root() -> Path:
    """The directory holding `tienlen/v1/*.proto`."""
    for root in PROTO_ROOTS:
        if any((root / CONTRACT).glob("*.proto")):
            return root
    searched = ", ".join(str(r) for r in PROTO_ROOTS)
    raise SystemExit(f"no tienlen/v1/*.proto found (looked in {searched})")


def plugin(name: str) -> str:
    """A mypy-protobuf protoc plugin: beside this interpreter, else on PATH (build envs)."""
    beside = Path(sys.executable).parent / name
    if beside.is_file():
        return str(beside)
    found = shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} not found: mypy-protobuf is a build requirement")
    return found


def generate(out: Path) -> None:
    """Generate the `tienlen.v1` package into `out`: protoc (grpcio-tools), mypy-protobuf."""
    from grpc_tools import protoc  # type: ignore[import-untyped]

    root = proto_root()
    protos = sorted(str(p.relative_to(root)) for p in (root / CONTRACT).glob("*.proto"))
    with resources.as_file(resources.files("grpc_tools") / "_proto") as well_known:
        code = protoc.main(
            [
                "grpc_tools.protoc",
                f"-I{root}",
                f"-I{well_known}",
                f"--python_out={out}",
                f"--grpc_python_out={out}",
                f"--plugin=protoc-gen-mypy={plugin('protoc-gen-mypy')}",
                f"--plugin=protoc-gen-mypy_grpc={plugin('protoc-gen-mypy_grpc')}",
                f"--mypy_out=quiet:{out}",
                f"--mypy_grpc_out=quiet:{out}",
                *protos,
            ]
        )
    if code != 0:
        raise SystemExit(f"protoc failed with exit code {code}")
    for init in (out / CONTRACT.parent / "__init__.py", out / CONTRACT / "__init__.py"):
        init.write_text(INIT_TEXT, encoding="utf-8")
    (out / CONTRACT.parent / "py.typed").write_text("", encoding="utf-8")


class BuildPyWithContract(build_py):
    """build_py, then the generated contract code into the build directory (not editable)."""

    def run(self) -> None:
        """Copy the client's sources, then generate the contract's code beside them."""
        super().run()
        if not self.editable_mode:
            generate(Path(self.build_lib))


class SdistWithProtos(sdist):
    """sdist, with the contract's `.proto` files under `protos/`."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        """The sdist's tree, plus `protos/tienlen/v1/*.proto`."""
        super().make_release_tree(base_dir, files)
        root = proto_root()
        target = Path(base_dir) / "protos" / CONTRACT
        target.mkdir(parents=True, exist_ok=True)
        for proto in sorted((root / CONTRACT).glob("*.proto")):
            shutil.copyfile(proto, target / proto.name)


setup(cmdclass={"build_py": BuildPyWithContract, "sdist": SdistWithProtos})
