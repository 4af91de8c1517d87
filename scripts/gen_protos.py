"""Generate the Python code of the contract: `protos/tienlen/v1/*.proto` -> `tienlen/v1/`.

Writes `*_pb2.py`, `*_pb2_grpc.py` and their mypy stubs (`*.pyi`, mypy-protobuf) into the
package `tienlen.v1` at the repository root, so the generated absolute imports
(`from tienlen.v1 import cards_pb2`) resolve both for the service and for the Python client
(which ships the same package: `clients/python/tienlen` links to it).

    python scripts/gen_protos.py           # (re)generate
    python scripts/gen_protos.py --check   # exit 1 if the generated files are missing or stale

The generated code checks the protobuf runtime version at import: it needs a protobuf runtime
of the same major version as, and not older than, the protoc bundled with grpcio-tools.
"""

from __future__ import annotations

import argparse
import filecmp
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROTO_ROOT = ROOT / "protos"
PACKAGE = Path("tienlen") / "v1"
GENERATED_SUFFIXES = ("_pb2.py", "_pb2.pyi", "_pb2_grpc.py", "_pb2_grpc.pyi")
INIT_TEXT = (
    '"""Generated protobuf and gRPC code for the Tiến Lên contract (package tienlen.v1)."""\n'
)


def proto_files() -> list[Path]:
    """Every .proto of the contract, relative to the proto root, sorted."""
    return sorted(p.relative_to(PROTO_ROOT) for p in (PROTO_ROOT / PACKAGE).glob("*.proto"))


def generate(out: Path) -> list[Path]:
    """Run protoc (grpc_tools) into `out`; return the generated files relative to `out`."""
    from grpc_tools import protoc  # type: ignore[import-untyped]

    with _resource_path() as include:
        args = [
            "grpc_tools.protoc",
            f"-I{PROTO_ROOT}",
            f"-I{include}",
            f"--python_out={out}",
            f"--grpc_python_out={out}",
            f"--plugin=protoc-gen-mypy={_plugin('protoc-gen-mypy')}",
            f"--plugin=protoc-gen-mypy_grpc={_plugin('protoc-gen-mypy_grpc')}",
            f"--mypy_out=quiet:{out}",
            f"--mypy_grpc_out=quiet:{out}",
            *(str(p) for p in proto_files()),
        ]
        code = protoc.main(args)
    if code != 0:
        raise SystemExit(f"protoc failed with exit code {code}")
    package = out / PACKAGE
    for init in (out / PACKAGE.parent / "__init__.py", package / "__init__.py"):
        init.write_text(INIT_TEXT, encoding="utf-8")
    return sorted(
        p.relative_to(out) for p in package.iterdir() if p.name.endswith(GENERATED_SUFFIXES)
    )


def _plugin(name: str) -> str:
    """The mypy-protobuf plugin executable: beside this interpreter (a venv), else on PATH."""
    beside = Path(sys.executable).parent / name
    if beside.is_file():
        return str(beside)
    found = shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} not found: install mypy-protobuf")
    return found


class _resource_path:  # noqa: N801 - used as a context manager, reads like a function
    """The well-known protos bundled with grpc_tools (google/protobuf/*.proto)."""

    def __enter__(self) -> str:
        from importlib import resources

        self._ctx = resources.as_file(resources.files("grpc_tools") / "_proto")
        return str(self._ctx.__enter__())

    def __exit__(self, *exc: object) -> None:
        self._ctx.__exit__(None, None, None)


def stale_files(fresh: Path, generated: list[Path]) -> list[str]:
    """Generated files that differ from (or are missing in) the repository, plus strays."""
    problems = [
        str(rel)
        for rel in generated
        if not (ROOT / rel).is_file() or not filecmp.cmp(fresh / rel, ROOT / rel, shallow=False)
    ]
    names = {rel.name for rel in generated}
    target = ROOT / PACKAGE
    if target.is_dir():
        problems += [
            f"{PACKAGE / p.name} (no .proto generates it)"
            for p in sorted(target.iterdir())
            if p.name.endswith(GENERATED_SUFFIXES) and p.name not in names
        ]
    problems += [
        str(init.relative_to(ROOT))
        for init in (ROOT / PACKAGE.parent / "__init__.py", target / "__init__.py")
        if not init.is_file()
    ]
    return problems


def main(argv: list[str] | None = None) -> int:
    """Generate, or with --check verify that the generated files are current."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--check", action="store_true", help="verify the generated files are current; write nothing"
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp)
        generated = generate(fresh)
        if args.check:
            problems = stale_files(fresh, generated)
            if problems:
                print(
                    "generated protobuf code is stale; run scripts/gen_protos.py:", file=sys.stderr
                )
                for problem in problems:
                    print(f"  {problem}", file=sys.stderr)
                return 1
            print(f"generated protobuf code is current ({len(generated)} files)")
            return 0
        target = ROOT / PACKAGE
        target.mkdir(parents=True, exist_ok=True)
        for stray in target.iterdir():
            if stray.name.endswith(GENERATED_SUFFIXES):
                stray.unlink()
        for rel in generated:
            (ROOT / rel).write_bytes((fresh / rel).read_bytes())
        for init in (PACKAGE.parent / "__init__.py", PACKAGE / "__init__.py"):
            if (
                not (ROOT / init).is_file()
                or (ROOT / init).read_text(encoding="utf-8") != INIT_TEXT
            ):
                (ROOT / init).write_text(INIT_TEXT, encoding="utf-8")
        print(f"generated {len(generated)} files into {PACKAGE}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
