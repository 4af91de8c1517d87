"""The base image of deploy/Dockerfile where no registry answers: Debian made with debootstrap.

deploy/Dockerfile builds on any base with ``python3`` (venv and ensurepip included),
``groupadd``/``useradd`` and CA certificates. The official ``python`` image is one; where no
registry answers (a machine that reaches only package mirrors), this module makes another from
Debian's own packages: ``debootstrap --variant=minbase`` of the suite the official image is
built on, with ``python3``, ``python3-venv`` and ``ca-certificates``, upgraded from the suite's
security and updates archives where the machine's apt knows them, and slimmed as the official
slim images are (no apt lists or caches, no manuals, no locales). It is committed to the local
container storage as `BASE_NAME` with a label holding a digest of the recipe, and reused while
that label matches: made once per machine (about a minute), not per build.

The Debian mirror is the one this machine's apt uses (``/etc/apt/sources.list`` or
``sources.list.d/*.sources``), or ``$DEBIAN_MIRROR``; nothing here names a host of its own.
Needs root (debootstrap, chroot) and ``debootstrap`` (``make apt-deps`` installs it).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

SUITE = "bookworm"
"""The Debian release of the official image the Dockerfile defaults to (3.11.x-slim-bookworm)."""
PACKAGES = ("python3", "python3-venv", "ca-certificates")
BASE_NAME = f"localhost/tienlen-python-base:{SUITE}"
RECIPE_LABEL = "io.tienlen.base-recipe"
# Removed after the install, as the official slim images do: nothing the service reads.
SLIM_PATHS = (
    "var/cache/apt",
    "var/lib/apt/lists",
    "usr/share/man",
    "usr/share/info",
    "usr/share/locale",
    "usr/share/doc",
    "var/log",
)
# Files of the machine that made the base, which debootstrap copies in; a runtime sets its own.
HOST_FILES = ("etc/hostname", "etc/resolv.conf")
BASE_CONFIG = (
    ("--env", "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"),
    ("--env", "LANG=C.UTF-8"),
    ("--cmd", "python3"),
)
# The host's apt settings that the upgrade inside the new root follows (a proxy, a mirror
# whose Release files are not fresh): read with apt-config, passed with -o.
APT_SETTINGS = (
    "Acquire::http::Proxy",
    "Acquire::https::Proxy",
    "Acquire::Check-Valid-Until",
    "Acquire::Check-Date",
)


def recipe_digest() -> str:
    """What the base is made of; a change of it (or of this file) makes the base anew."""
    text = Path(__file__).read_text(encoding="utf-8")
    return hashlib.sha256(f"{SUITE} {PACKAGES} {text}".encode()).hexdigest()[:16]


def apt_sources(root: Path = Path("/etc/apt")) -> list[tuple[str, str]]:
    """(uri, suite) of every Debian source this machine's apt uses, both file formats."""
    found: list[tuple[str, str]] = []
    lists = [root / "sources.list", *sorted((root / "sources.list.d").glob("*.list"))]
    for path in lists:
        if path.is_file():
            for line in path.read_text(encoding="utf-8").splitlines():
                words = re.sub(r"\[[^]]*\]", "", line.split("#", 1)[0]).split()
                if len(words) >= 3 and words[0] == "deb":
                    found.append((words[1], words[2]))
    for path in sorted((root / "sources.list.d").glob("*.sources")):
        for stanza in re.split(r"\n\s*\n", path.read_text(encoding="utf-8")):
            pairs = (line.partition(":") for line in stanza.splitlines() if line[:1] != "#")
            fields = {key.strip().lower(): value.strip() for key, _, value in pairs}
            if "deb" in fields.get("types", "").split() and fields.get("enabled", "yes") != "no":
                found += [
                    (uri, suite)
                    for uri in fields.get("uris", "").split()
                    for suite in fields.get("suites", "").split()
                ]
    return found


def mirror_for(suite: str, sources: Sequence[tuple[str, str]]) -> str | None:
    """The machine's mirror for `suite` (``$DEBIAN_MIRROR`` first for the release itself)."""
    if suite == SUITE and os.environ.get("DEBIAN_MIRROR"):
        return os.environ["DEBIAN_MIRROR"]
    return next((uri for uri, name in sources if name == suite), None)


def apt_options() -> list[str]:
    """``-o Name=value`` for each of `APT_SETTINGS` the host's apt sets."""
    options: list[str] = []
    for name in APT_SETTINGS:
        done = subprocess.run(
            ["apt-config", "shell", "VALUE", name], capture_output=True, text=True, check=False
        )
        match = re.fullmatch(r"VALUE='(.*)'\n?", done.stdout)
        if match:
            options += ["-o", f"{name}={match.group(1)}"]
    return options


def make_rootfs(root: Path, log: Callable[[str], None]) -> None:
    """Make the suite's root filesystem in `root` (debootstrap), upgrade it from its security
    and updates archives, and slim it."""
    sources = apt_sources()
    mirror = mirror_for(SUITE, sources)
    if mirror is None:
        raise RuntimeError(f"no Debian mirror for {SUITE}: set DEBIAN_MIRROR")
    started = time.monotonic()
    include = f"--include={','.join(PACKAGES)}"
    quietly(["debootstrap", "--variant=minbase", include, SUITE, str(root), mirror])
    log(f"debootstrap {SUITE} ({', '.join(PACKAGES)}): {time.monotonic() - started:.0f} s")
    extra = [
        f"deb {uri} {suite} main"
        for suite in (f"{SUITE}-updates", f"{SUITE}-security")
        if (uri := mirror_for(suite, sources)) is not None
    ]
    if extra:
        started = time.monotonic()
        # Only the updates' lists are read for the upgrade (a few hundred kB, not the
        # release's tens of MB); the image's sources.list names all three archives after.
        sources_list = root / "etc/apt/sources.list"
        release = sources_list.read_text(encoding="utf-8")
        sources_list.write_text("\n".join(extra) + "\n", encoding="utf-8")
        shutil.copyfile("/etc/resolv.conf", root / "etc/resolv.conf")
        apt = ["chroot", str(root), "apt-get", "-q", *apt_options()]
        quietly([*apt, "update"])
        quietly([*apt, "-y", "upgrade"])
        sources_list.write_text(release + "\n".join(extra) + "\n", encoding="utf-8")
        suites = ", ".join(line.split()[2] for line in extra)
        log(f"upgraded from {suites}: {time.monotonic() - started:.0f} s")
    for relative in HOST_FILES:
        (root / relative).unlink(missing_ok=True)
    for relative in SLIM_PATHS:
        target = root / relative
        if target.is_dir():
            # Keep the directories (and the copyright files a licence scan reads).
            for child in target.iterdir():
                if relative == "usr/share/doc" and child.is_dir():
                    for item in child.iterdir():
                        if item.name != "copyright":
                            remove(item)
                else:
                    remove(child)


def quietly(argv: Sequence[str]) -> None:
    """Run `argv`; its output is shown only if it fails."""
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0:
        sys.stdout.write(done.stdout[-4000:] + done.stderr[-4000:])
        raise subprocess.CalledProcessError(done.returncode, argv)


def remove(path: Path) -> None:
    """Remove a file, a link or a directory tree."""
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()


Commit = Callable[[Path, Sequence[tuple[str, str]], str], None]
"""Stores a root filesystem as an image: (root, config flags, reference)."""


def make_base(commit: Commit, log: Callable[[str], None]) -> str:
    """Make the Debian base in a scratch directory and hand its root to `commit` (which stores
    it as `BASE_NAME` with the given config and the recipe label); return `BASE_NAME`."""
    with tempfile.TemporaryDirectory(prefix="tienlen-base-") as scratch:
        root = Path(scratch) / "rootfs"
        make_rootfs(root, log)
        config = [*BASE_CONFIG, ("--label", f"{RECIPE_LABEL}={recipe_digest()}")]
        commit(root, config, BASE_NAME)
    return BASE_NAME
