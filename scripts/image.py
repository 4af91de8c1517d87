"""Build deploy/Dockerfile and run the image, with Docker or with no daemon at all.

    python scripts/image.py build [--tag tienlen-engine:dev] [--base auto|official|debian|REF]
    python scripts/image.py run [--env K=V]... [--volume SRC:DST]... [--entrypoint PATH] IMAGE [ARG]...

`make image` and `make image-test` call it (deploy/README.md, "Build and run the image").

**Builder.** Docker where a Docker daemon answers; else buildah with chroot isolation (no
daemon, no user namespaces: it needs root). ``--builder`` (``$IMAGE_BUILDER``) chooses.

**Base.** ``auto``: the official Python image the Dockerfile names, where it is in the local
storage or a registry answers for it; else a Debian base made here with debootstrap
(scripts/image_base.py), kept in the local storage and reused while its recipe holds (without
asking the registry again: ``official`` does). A reference is used as it is.

**Package index and CA.** The build uses the package index this machine's pip uses
(``$PIP_INDEX_URL``) and the CA bundle this machine trusts (`machine_ca_bundle`): passed as the
Dockerfile's ``PIP_INDEX_URL`` build argument and its ``pip-ca`` build secret
(``--pip-index-url``, ``--pip-ca`` choose others).

**Run.** ``run`` starts the image as an orchestrator would: its entrypoint, environment, user
and working directory, the root filesystem read-only, a small writable ``/tmp``, the given
files mounted read-only, on the host's network (so a test binds loopback ports). With Docker:
``docker run --read-only``. Without: the image's own root filesystem (a buildah working
container) bind-mounted read-only in a private mount namespace (``unshare --mount``), with
``/proc``, a minimal ``/dev`` and a tmpfs ``/tmp``, entered with ``chroot --userspec`` as the
image's numeric user with no capabilities and ``no_new_privs``. That runner has no seccomp
profile, PID or network namespace of its own: a container runtime adds those. The service is
the command's own process (signals reach it as they would PID 1 of a container), and the
command exits with the service's status.

Where neither builder can work here, both commands say why in one line and exit 3.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, Protocol

import image_base

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "deploy" / "Dockerfile"
LOG = ROOT / "build" / "image-build.log"
CANNOT = 3
"""The exit status where this machine cannot build or run an image at all (reason printed)."""
PULL_TIMEOUT = 60
SYSTEM_CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"  # Debian's and Ubuntu's
LOG_TAIL = 40


class CannotHereError(Exception):
    """What building or running an image needs is missing here (a capability, not a bug)."""


def say(text: str) -> None:
    """One line of this tool's own, told apart from the builder's."""
    print(f"image: {text}", flush=True)


def official_image() -> str:
    """The Dockerfile's default base, fully qualified (buildah resolves no short names)."""
    text = DOCKERFILE.read_text(encoding="utf-8")
    match = re.search(r"^ARG PYTHON_IMAGE=(\S+)", text, re.MULTILINE)
    assert match, "deploy/Dockerfile declares ARG PYTHON_IMAGE"
    name = match.group(1)
    return name if "/" in name else f"docker.io/library/{name}"


def quiet(argv: Sequence[str], timeout: float | None = None) -> subprocess.CompletedProcess[str]:
    """Run `argv`, its output captured, whatever its status."""
    return subprocess.run(argv, capture_output=True, text=True, check=False, timeout=timeout)


def first_line(text: str) -> str:
    """The first line with something on it (an error's gist)."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "no output")


@dataclass(frozen=True)
class RunSpec:
    """What `run` starts: the image, its extra environment, read-only files, arguments."""

    image: str
    env: tuple[str, ...]
    volumes: tuple[tuple[str, str], ...]
    entrypoint: str | None
    args: tuple[str, ...]


class Builder(Protocol):
    """What `build` and `run` need of Docker or buildah."""

    name: str

    def label(self, ref: str, key: str) -> str | None:
        """The image's label `key`; None without the image or the label."""

    def exists(self, ref: str) -> bool:
        """Whether the image is in the local storage."""

    def pull(self, ref: str) -> str | None:
        """Pull the image; None, or the error's first line."""

    def commit_rootfs(self, root: Path, config: Sequence[tuple[str, str]], ref: str) -> None:
        """Store a root filesystem as the image `ref`, with `config` (``--env``, ``--cmd``,
        ``--label`` flags and their values)."""

    def build_argv(self, tag: str, args: Sequence[str], secret: str | None) -> list[str]:
        """The build command of deploy/Dockerfile with these build arguments."""

    def size(self, ref: str) -> str:
        """The image's size as the builder shows it."""

    def run(self, spec: RunSpec) -> int:
        """Run the image read-only as its user; the service's exit status."""


class Docker:
    """A Docker daemon (BuildKit, for the build secret)."""

    name = "docker"

    def label(self, ref: str, key: str) -> str | None:  # noqa: D102 - see Builder
        done = quiet(["docker", "image", "inspect", "--format", "{{json .Config.Labels}}", ref])
        labels = json.loads(done.stdout or "null") if done.returncode == 0 else None
        value = (labels or {}).get(key)
        return value if isinstance(value, str) else None

    def exists(self, ref: str) -> bool:  # noqa: D102
        return quiet(["docker", "image", "inspect", ref]).returncode == 0

    def pull(self, ref: str) -> str | None:  # noqa: D102
        done = quiet(["docker", "pull", "--quiet", ref], timeout=PULL_TIMEOUT)
        return None if done.returncode == 0 else first_line(done.stderr)

    def commit_rootfs(self, root: Path, config: Sequence[tuple[str, str]], ref: str) -> None:  # noqa: D102
        changes: list[str] = []
        for flag, value in config:
            word = flag.removeprefix("--").upper()
            changes += ["--change", f"{word} {json.dumps([value]) if word == 'CMD' else value}"]
        tar = subprocess.Popen(["tar", "-C", str(root), "-c", "."], stdout=subprocess.PIPE)
        subprocess.run(["docker", "import", *changes, "-", ref], stdin=tar.stdout, check=True)
        if tar.wait() != 0:
            raise RuntimeError("tar of the base's root filesystem failed")

    def build_argv(self, tag: str, args: Sequence[str], secret: str | None) -> list[str]:  # noqa: D102
        secrets = ["--secret", f"id=pip-ca,src={secret}"] if secret else []
        return ["docker", "build", "-f", str(DOCKERFILE), "-t", tag, *args, *secrets, str(ROOT)]

    def size(self, ref: str) -> str:  # noqa: D102
        return quiet(["docker", "image", "ls", "--format", "{{.Size}}", ref]).stdout.strip()

    def run(self, spec: RunSpec) -> int:  # noqa: D102
        argv = ["docker", "run", "--rm", "--read-only", "--network", "host", "--cap-drop", "ALL"]
        argv += ["--security-opt", "no-new-privileges", "--tmpfs", "/tmp:size=16m"]
        for variable in spec.env:
            argv += ["--env", variable]
        for source, target in spec.volumes:
            argv += ["--volume", f"{Path(source).resolve()}:{target}:ro"]
        if spec.entrypoint:
            argv += ["--entrypoint", spec.entrypoint]
        return supervise([*argv, spec.image, *spec.args], cleanup=lambda: None)


class Buildah:
    """buildah with chroot isolation: no daemon; root."""

    name = "buildah"

    @staticmethod
    def config(ref: str) -> dict[str, Any] | None:
        """The image's OCI config (Env, Entrypoint, User, Labels...); None without the image."""
        done = quiet(["buildah", "inspect", "--type", "image", ref])
        if done.returncode != 0:
            return None
        config: dict[str, Any] = json.loads(done.stdout)["OCIv1"].get("config") or {}
        return config

    def label(self, ref: str, key: str) -> str | None:  # noqa: D102
        value = ((self.config(ref) or {}).get("Labels") or {}).get(key)
        return value if isinstance(value, str) else None

    def exists(self, ref: str) -> bool:  # noqa: D102
        return self.config(ref) is not None

    def pull(self, ref: str) -> str | None:  # noqa: D102
        try:
            done = quiet(["buildah", "pull", "--quiet", ref], timeout=PULL_TIMEOUT)
        except subprocess.TimeoutExpired:
            return f"no answer in {PULL_TIMEOUT} s"
        return None if done.returncode == 0 else first_line(done.stderr)

    def commit_rootfs(self, root: Path, config: Sequence[tuple[str, str]], ref: str) -> None:  # noqa: D102
        container = quiet(["buildah", "from", "scratch"]).stdout.strip()
        try:
            mount = quiet(["buildah", "mount", container]).stdout.strip()
            subprocess.run(["cp", "-a", f"{root}/.", f"{mount}/"], check=True)
            quiet(["buildah", "umount", container])
            flags = [word for pair in config for word in pair]
            subprocess.run(["buildah", "config", *flags, container], check=True)
            commit = ["buildah", "commit", "--quiet", "--rm", container, ref]
            subprocess.run(commit, check=True, stdout=subprocess.DEVNULL)
        except BaseException:
            quiet(["buildah", "rm", container])
            raise

    def build_argv(self, tag: str, args: Sequence[str], secret: str | None) -> list[str]:  # noqa: D102
        secrets = ["--secret", f"id=pip-ca,src={secret}"] if secret else []
        dockerfile = ["--layers", "-f", str(DOCKERFILE), "-t", tag]
        return ["buildah", "bud", "--isolation", "chroot", *dockerfile, *args, *secrets, str(ROOT)]

    def size(self, ref: str) -> str:  # noqa: D102
        done = quiet(["buildah", "images", "--json", ref])
        images = json.loads(done.stdout) if done.returncode == 0 else []
        return str(images[0]["size"]) if images else "?"

    def run(self, spec: RunSpec) -> int:  # noqa: D102
        image = self.config(spec.image)
        if image is None:
            raise CannotHereError(f"no image {spec.image} in the local storage (make image)")
        user = image.get("User") or "0"
        if not re.fullmatch(r"\d+(:\d+)?", user):
            raise CannotHereError(f"this runner needs a numeric USER; the image has {user!r}")
        uid, _, gid = user.partition(":")
        workdir = image.get("WorkingDir") or "/"
        entrypoint = [spec.entrypoint] if spec.entrypoint else image.get("Entrypoint") or []
        command = [*entrypoint, *(spec.args or ([] if spec.entrypoint else image.get("Cmd") or []))]
        container = quiet(["buildah", "from", "--pull-never", spec.image]).stdout.strip()

        def cleanup() -> None:
            quiet(["buildah", "umount", container])
            quiet(["buildah", "rm", container])

        try:
            rootfs = Path(quiet(["buildah", "mount", container]).stdout.strip())
            script = chroot_script(rootfs, spec.volumes, f"{uid}:{gid or uid}", workdir)
            environment = [*(image.get("Env") or []), *spec.env]
            inside = ["/usr/bin/env", "-i", "-C", workdir, *environment, *command]
            argv = ["unshare", "--mount", "sh", "-c", script, "sh", *inside]
        except BaseException:
            cleanup()
            raise
        return supervise(argv, cleanup=cleanup)


def chroot_script(rootfs: Path, volumes: Sequence[tuple[str, str]], user: str, workdir: str) -> str:
    """The shell that makes `rootfs` a read-only root in a private mount namespace and enters
    it as `user`, running its own arguments there (``env -i ... COMMAND``, from the image)."""
    root = shlex.quote(str(rootfs))
    targets = [(shlex.quote(str(Path(s).resolve())), shlex.quote(t)) for s, t in volumes]
    lines = [
        "set -eu",
        # Mount points go into the working container's own (throwaway) layer while it is still
        # writable, as a container runtime makes them.
        f"mkdir -p {root}/proc {root}/dev {root}/tmp {root}{shlex.quote(workdir)}",
        *(f'mkdir -p "$(dirname {root}{t})" && touch {root}{t}' for _, t in targets),
        f"mount --bind {root} {root}",
        f"mount -t proc -o nosuid,nodev,noexec proc {root}/proc",
        f"mount -t tmpfs -o nosuid,noexec,mode=755,size=64k tmpfs {root}/dev",
        f"for d in null zero full random urandom tty; do touch {root}/dev/$d; done",
        f"for d in null zero full random urandom tty; do mount --bind /dev/$d {root}/dev/$d; done",
        f"ln -s /proc/self/fd {root}/dev/fd",
        f"mount -t tmpfs -o nosuid,nodev,mode=1777,size=16m tmpfs {root}/tmp",
        *(f"mount --bind {s} {root}{t} && mount -o remount,bind,ro {root}{t}" for s, t in targets),
        f"mount -o remount,bind,ro {root}",
        f"cd {root}",
        f'exec setpriv --no-new-privs chroot --userspec={user} --groups= {root} "$@"',
    ]
    return "\n".join(lines)


def supervise(argv: Sequence[str], *, cleanup: Callable[[], None]) -> int:
    """Run `argv`, pass SIGTERM, SIGINT and SIGHUP on to it, return its status (128 + N for
    a signal N, as a shell says it); `cleanup` after."""
    child = subprocess.Popen(argv)

    def forward(signum: int, _frame: FrameType | None) -> None:
        child.send_signal(signum)

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, forward)
    try:
        code = child.wait()
    finally:
        cleanup()
    return 128 - code if code < 0 else code


def choose_builder(name: str) -> Builder:
    """The builder asked for; by default Docker where a daemon answers, else buildah (root)."""
    if name in ("auto", "docker") and shutil.which("docker"):
        done = quiet(["docker", "info", "--format", "{{.ServerVersion}}"])
        if done.returncode == 0:
            return Docker()
        if name == "docker":
            raise CannotHereError(f"no Docker daemon answers: {first_line(done.stderr)}")
    if os.geteuid() != 0:
        raise CannotHereError(
            "no Docker daemon, and the daemonless build (buildah, chroot) needs root:"
            f" this is uid {os.geteuid()}"
        )
    for tool in ("buildah", "unshare", "setpriv"):
        if not shutil.which(tool):
            raise CannotHereError(f"no Docker daemon and no {tool} (`make apt-deps` installs it)")
    probe = quiet(["unshare", "--mount", "true"])
    if probe.returncode != 0:
        raise CannotHereError(
            f"no Docker daemon and no mount namespace: {first_line(probe.stderr)}"
        )
    return Buildah()


def choose_base(builder: Builder, base: str) -> tuple[str, str]:
    """(the base to build on, why that one). `auto`: the official image where it is here;
    else the Debian base made here before (it was made because no registry answered: asking
    again on every build would only wait; IMAGE_BASE=official asks); else the official image
    pulled where a registry answers; else a Debian base made now."""
    if base not in ("auto", "official", "debian"):
        return base, "given"
    official = official_image()
    cached = builder.label(image_base.BASE_NAME, image_base.RECIPE_LABEL)
    made_here = cached == image_base.recipe_digest()
    why = "asked for"
    if base != "debian":
        if builder.exists(official):
            return official, "the official image, already here"
        if base == "auto" and made_here:
            return image_base.BASE_NAME, "made here before; IMAGE_BASE=official asks a registry"
        error = builder.pull(official)
        if error is None:
            return official, "the official image, pulled"
        if base == "official":
            raise RuntimeError(f"cannot pull {official}: {error}")
        why = f"{official} not reachable: ...{error[-70:]}"
    if made_here:
        return image_base.BASE_NAME, f"made here before; {why}"
    if os.geteuid() != 0 or not shutil.which("debootstrap"):
        raise CannotHereError(f"{why}; making a Debian base needs root and debootstrap")
    started = time.monotonic()
    image_base.make_base(builder.commit_rootfs, say)
    took = time.monotonic() - started
    return image_base.BASE_NAME, f"made here now, in {took:.0f} s; {why}"


def build(options: argparse.Namespace) -> int:
    """`build`: the image, from the base `choose_base` picks; its log in build/."""
    started = time.monotonic()
    try:
        builder = choose_builder(options.builder)
        base, why = choose_base(builder, options.base)
    except CannotHereError as reason:
        say(f"cannot build here: {reason}")
        return CANNOT
    say(f"{builder.name}; base {base} ({why})")
    args = ["--build-arg", f"PYTHON_IMAGE={base}", "--build-arg", f"VERSION={options.version}"]
    if options.pip_index_url:
        args += ["--build-arg", f"PIP_INDEX_URL={options.pip_index_url}"]
    secret = options.pip_ca if options.pip_ca and Path(options.pip_ca).is_file() else None
    LOG.parent.mkdir(exist_ok=True)
    with LOG.open("w", encoding="utf-8") as log:
        argv = builder.build_argv(options.tag, args, secret)
        env = {**os.environ, "DOCKER_BUILDKIT": "1"}  # Docker: the build secret needs BuildKit
        done = subprocess.run(argv, stdout=log, stderr=subprocess.STDOUT, check=False, env=env)
    if done.returncode != 0:
        lines = LOG.read_text(encoding="utf-8").splitlines()
        sys.stdout.write("\n".join(lines[-LOG_TAIL:]) + "\n")
        say(f"the build failed (exit {done.returncode}); its whole log: {LOG.relative_to(ROOT)}")
        return done.returncode
    took = time.monotonic() - started
    say(f"{options.tag} built in {took:.0f} s: {builder.size(options.tag)}")
    return 0


def run(options: argparse.Namespace) -> int:
    """`run`: the image read-only as its user, until it exits."""
    volumes = []
    for volume in options.volume:
        source, _, target = volume.partition(":")
        volumes.append((source, target))
    spec = RunSpec(
        options.image, tuple(options.env), tuple(volumes), options.entrypoint, tuple(options.args)
    )
    try:
        return choose_builder(options.builder).run(spec)
    except CannotHereError as reason:
        say(f"cannot run an image here: {reason}")
        return CANNOT


def machine_ca_bundle() -> str:
    """The CA bundle this machine trusts: pip's (``$PIP_CERT``), else OpenSSL's
    (``$SSL_CERT_FILE``, ``$REQUESTS_CA_BUNDLE``), else the system's, which holds every CA
    added with update-ca-certificates (a proxy's that re-signs the package index, say: the
    build's pip fails on such a proxy without it). Empty where there is none."""
    candidates = [os.environ.get(name, "") for name in ("PIP_CERT", "SSL_CERT_FILE")]
    candidates += [os.environ.get("REQUESTS_CA_BUNDLE", ""), SYSTEM_CA_BUNDLE]
    return next((path for path in candidates if path and Path(path).is_file()), "")


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (the module's docstring)."""
    parser = argparse.ArgumentParser(description=first_line(__doc__ or ""))
    parser.add_argument(
        "--builder",
        choices=("auto", "docker", "buildah"),
        default=os.environ.get("IMAGE_BUILDER") or "auto",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("build", help="build deploy/Dockerfile")
    make.add_argument("--tag", default="tienlen-engine:dev")
    make.add_argument("--version", default="0.1.0")
    make.add_argument("--base", default="auto", help="auto, official, debian or a reference")
    make.add_argument("--pip-index-url", default=os.environ.get("PIP_INDEX_URL", ""))
    make.add_argument("--pip-ca", default=machine_ca_bundle())
    start = commands.add_parser("run", help="run the image read-only as its user")
    start.add_argument("--env", action="append", default=[], metavar="K=V")
    start.add_argument("--volume", action="append", default=[], metavar="SRC:DST")
    start.add_argument("--entrypoint")
    start.add_argument("image")
    start.add_argument("args", nargs=argparse.REMAINDER)
    options = parser.parse_args(argv)
    return build(options) if options.command == "build" else run(options)


if __name__ == "__main__":
    sys.exit(main())
