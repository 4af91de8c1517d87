"""The image's lock files agree with pyproject.toml, and the Dockerfile installs only from them.

deploy/requirements.lock (the runtime) and deploy/requirements-build.lock (the build's tools)
are made by pip-compile --generate-hashes (`make lock`). This is the offline check that they
still fit the project (`make lock-check`; part of `make test`): every requirement of
pyproject.toml is pinned to a version it accepts, every pin carries its hashes, the locked
set is closed under its packages' own requirements, and the generator pins are the gen extra's.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

REPO = Path(__file__).resolve().parents[2]
RUNTIME_LOCK = REPO / "deploy" / "requirements.lock"
BUILD_LOCK = REPO / "deploy" / "requirements-build.lock"
BUILD_IN = REPO / "deploy" / "requirements-build.in"
DOCKERFILE = REPO / "deploy" / "Dockerfile"
GENERATORS = ("grpcio-tools", "mypy-protobuf")


@dataclass(frozen=True)
class Pin:
    name: str
    version: Version
    hashes: tuple[str, ...]


def parse_lock(path: Path) -> dict[str, Pin]:
    """Package -> its pin, from a pip-compile file (continuation lines joined)."""
    text = path.read_text(encoding="utf-8")
    pins: dict[str, Pin] = {}
    for entry in re.sub(r"\\\n\s*", " ", text).splitlines():
        line = entry.split("#", 1)[0].strip()
        if not line:
            continue
        assert not line.startswith("-"), f"{path.name}: an option in the lock: {line!r}"
        requirement, *options = line.split()
        match = re.fullmatch(r"([A-Za-z0-9._-]+)==([A-Za-z0-9.+!-]+)", requirement)
        assert match, f"{path.name}: {requirement!r} is not pinned with =="
        hashes = tuple(o.removeprefix("--hash=sha256:") for o in options)
        assert all(re.fullmatch(r"[0-9a-f]{64}", h) for h in hashes), requirement
        assert hashes, f"{path.name}: {requirement} has no hash"
        name = canonicalize_name(match.group(1))
        assert name not in pins, f"{path.name}: {name} pinned twice"
        pins[name] = Pin(name, Version(match.group(2)), hashes)
    return pins


def pyproject() -> dict[str, object]:
    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def runtime_requirements() -> list[Requirement]:
    project = pyproject()["project"]
    assert isinstance(project, dict)
    return [Requirement(r) for r in project["dependencies"]]


def generator_requirements() -> list[Requirement]:
    """The `gen` extra: the protobuf code generator that `make gen` installs."""
    project = pyproject()["project"]
    assert isinstance(project, dict)
    return [Requirement(r) for r in project["optional-dependencies"]["gen"]]


@pytest.mark.parametrize("lock", [RUNTIME_LOCK, BUILD_LOCK], ids=lambda p: p.name)
def test_lock_is_made_by_pip_compile_with_hashes(lock: Path) -> None:
    header = lock.read_text(encoding="utf-8").splitlines()[:6]
    command = next(line for line in header if "pip-compile" in line and "--output-file" in line)
    assert "--generate-hashes" in command
    assert "--allow-unsafe" in command, "setuptools & co. are locked too, not left to chance"
    assert f"--output-file=deploy/{lock.name}" in command, "`make lock` writes this very file"
    assert parse_lock(lock)


def test_lock_parser_refuses_an_unhashed_or_unpinned_line(tmp_path: Path) -> None:
    unhashed = tmp_path / "a.lock"
    unhashed.write_text("grpcio==1.85.3\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="no hash"):
        parse_lock(unhashed)
    loose = tmp_path / "b.lock"
    loose.write_text(f"grpcio>=1.85 --hash=sha256:{'0' * 64}\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="not pinned"):
        parse_lock(loose)


def test_every_runtime_requirement_is_locked_to_a_version_it_accepts() -> None:
    pins = parse_lock(RUNTIME_LOCK)
    for requirement in runtime_requirements():
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement} is not in {RUNTIME_LOCK.name}: run `make lock`"
        assert requirement.specifier.contains(pins[name].version, prereleases=True), (
            f"{RUNTIME_LOCK.name} pins {name}=={pins[name].version}, outside {requirement}"
        )


@pytest.mark.parametrize("lock", [RUNTIME_LOCK, BUILD_LOCK], ids=lambda p: p.name)
def test_locked_set_is_closed_under_its_packages_requirements(lock: Path) -> None:
    # The Dockerfile installs the lock with --no-deps: a dependency missing from it would only
    # show when the image starts. Checked with each package's metadata where this environment
    # has the locked version installed (the image build's `pip check` covers the rest).
    pins = parse_lock(lock)
    checked = 0
    for pin in pins.values():
        try:
            dist = metadata.distribution(pin.name)
        except metadata.PackageNotFoundError:
            continue
        if Version(dist.version) != pin.version:
            continue
        checked += 1
        for text in dist.requires or []:
            requirement = Requirement(text)
            if requirement.marker and not requirement.marker.evaluate({"extra": ""}):
                continue
            needed = canonicalize_name(requirement.name)
            assert needed in pins, f"{pin.name} needs {requirement}, which {lock.name} lacks"
            assert requirement.specifier.contains(pins[needed].version, prereleases=True)
    assert checked, f"no package of {lock.name} is installed at its locked version here"


def test_build_lock_pins_the_generator_of_the_dev_extra_and_the_build_backend() -> None:
    pins = parse_lock(BUILD_LOCK)
    lines = [line.split("#", 1)[0].strip() for line in BUILD_IN.read_text().splitlines()]
    declared_names = {canonicalize_name(Requirement(line).name) for line in lines if line}
    backend = pyproject()["build-system"]
    assert isinstance(backend, dict)
    for text in backend["requires"]:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in declared_names, f"{BUILD_IN.name} lacks the build backend {requirement}"
        assert requirement.specifier.contains(pins[name].version)
    gen = {canonicalize_name(r.name): r for r in generator_requirements()}
    for generator in GENERATORS:
        (exact,) = gen[canonicalize_name(generator)].specifier
        assert exact.operator == "==", f"the gen extra pins {generator} exactly"
        assert pins[canonicalize_name(generator)].version == Version(exact.version), (
            f"the image would generate code with another {generator} than `make gen`"
        )


def test_dockerfile_installs_only_from_the_locks() -> None:
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    runs = [line for line in text.splitlines() if line.startswith("RUN ")]
    installs = [
        part.strip()
        for run in runs
        for part in run.split("&&")
        if re.search(r"\bpip (--python \S+ )?install\b", part)
    ]
    assert installs
    for install in installs:
        if "-r " in install:
            assert "--require-hashes" in install, install
            assert "--no-deps" in install, install
            assert re.search(r"requirements(-build)?\.lock\b", install), install
        else:
            # The project's own wheel, built in the image: its dependencies are the lock's.
            assert "--no-deps" in install, install
            assert re.search(r"/tmp/wheels/\*\.whl", install), install
    locks = {m for run in runs for m in re.findall(r"requirements(?:-build)?\.lock", run)}
    assert locks == {RUNTIME_LOCK.name, BUILD_LOCK.name}
    wheel = [part for run in runs for part in run.split("&&") if "pip wheel" in part]
    assert wheel, "the project is built as a wheel in the image"
    assert all("--no-build-isolation" in w for w in wheel), "isolation fetches unlocked tools"
    checks = [run for run in runs if re.search(r"\bpip (--python /opt/venv/\S+ )?check\b", run)]
    assert checks, "the lock satisfies the project's needs"
