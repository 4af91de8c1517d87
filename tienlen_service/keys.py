"""The service's keys: a `KeyRing` of named keys, each derived into the sub-keys it is used as.

Each configured key (32 random bytes recommended, 16 at least) is never used directly;
four sub-keys are derived from it with HKDF-SHA256 — one per purpose (``info`` = "tienlen
mac", "tienlen seal", "tienlen seat", "tienlen deal") — so a MAC, a ciphertext, a seat token
and a deal's seed can never be confused for one another. The first key of the ring signs; every key verifies, which is how
keys are rotated without breaking the games in progress.

A key is configured as ``kid:base64url-material`` (`KeyRing.from_spec`, or a file of such
lines, `KeyRing.from_file`); `KeyRing.generate` makes a throwaway one for a development run.
`DealKey` is the host's separate credential for seeded and explicit deals. The state and seat
tokens that use the keys are `tokens.py`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import re
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

MIN_KEY_BYTES: Final = 16
GENERATED_KEY_BYTES: Final = 32
_KID_RE: Final = re.compile(r"[A-Za-z0-9._-]{1,32}")

_INFO_MAC: Final = b"tienlen mac"
_INFO_SEAL: Final = b"tienlen seal"
_INFO_SEAT: Final = b"tienlen seat"
_INFO_DEAL: Final = b"tienlen deal"
MIN_DEAL_KEY_CHARS: Final = 22
"""A deal key is at least 22 characters (128 bits as base64url)."""

#: SHA-256 of the key material published as an example in this repository (the deploy
#: manifests shipped it before their dev overlay generated its own key): anyone can read it, so tokens signed with it can be forged. A server
#: refuses to start with it unless told it is a development run (`--dev`).
PUBLISHED_EXAMPLE_KEYS: Final = frozenset(
    {"1dc4e8424347ab7d61485ed809ed71fb63ec632ba1db87a429a39e0f0ae8f7b4"}
)


class KeyConfigError(ValueError):
    """A key specification that can't be used (the message never repeats key material)."""


def _derive(material: bytes, info: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(material)


class KeyedMac:
    """HMAC-SHA256 under one key, with the key's two padded blocks hashed once (RFC 2104:
    H(K ^ opad || H(K ^ ipad || m))), so that a MAC costs two copies of a hash state, two
    updates and two digests (`mac_of`): a fifth fewer instructions than copying a keyed
    `hmac.HMAC` (bench/README.md), and all of it under the GIL (not `hmac.digest()`, whose
    one-shot OpenSSL HMAC releases the GIL on every call, which in a loaded threaded server
    hands the GIL to another thread and costs a context switch per token; hashlib keeps it
    below 2 KiB of data)."""

    __slots__ = ("inner", "outer")

    def __init__(self, key: bytes) -> None:
        if len(key) > _SHA256_BLOCK:  # pragma: no cover - derived sub-keys are 32 bytes
            key = hashlib.sha256(key).digest()
        block = key.ljust(_SHA256_BLOCK, b"\0")
        self.inner = hashlib.sha256(bytes(b ^ 0x36 for b in block))
        self.outer = hashlib.sha256(bytes(b ^ 0x5C for b in block))


_SHA256_BLOCK: Final = 64


def mac_of(keyed: KeyedMac, data: bytes) -> bytes:
    """HMAC-SHA256 of `data` under the key of `keyed` (whose hash states are only copied)."""
    inner = keyed.inner.copy()
    inner.update(data)
    outer = keyed.outer.copy()
    outer.update(inner.digest())
    return outer.digest()


@dataclass(frozen=True, slots=True, repr=False)
class DerivedKey:
    """One configured key, as it is used: its id, and its sub-keys for the state tokens' MAC,
    the seat tokens' MAC and sealing (AES-GCM)."""

    kid: str
    kid_bytes: bytes
    mac: KeyedMac  # keyed with the MAC sub-key (see `mac_of`)
    seat_mac: KeyedMac  # keyed with the seat sub-key
    deal_mac: KeyedMac  # keyed with the deal sub-key
    aead: AESGCM

    @classmethod
    def derive(cls, kid: str, material: bytes) -> DerivedKey:
        """The sub-keys of `material` (HKDF-SHA256, one `info` per purpose)."""
        return cls(
            kid=kid,
            kid_bytes=kid.encode("ascii"),
            mac=KeyedMac(_derive(material, _INFO_MAC)),
            seat_mac=KeyedMac(_derive(material, _INFO_SEAT)),
            deal_mac=KeyedMac(_derive(material, _INFO_DEAL)),
            aead=AESGCM(_derive(material, _INFO_SEAL)),
        )


def _decode_material(kid: str, text: str) -> bytes:
    """Key material is base64url (padding optional); standard base64 is accepted too."""
    cleaned = text.strip()
    padded = cleaned + "=" * (-len(cleaned) % 4)
    try:
        material = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        raise KeyConfigError(f"key {kid!r}: the key material is not base64url") from None
    if len(material) < MIN_KEY_BYTES:
        raise KeyConfigError(
            f"key {kid!r}: {len(material)} bytes of key material; at least {MIN_KEY_BYTES} "
            f"(32 recommended) are required"
        )
    return material


class KeyRing:
    """The configured keys, in order: the first signs, every one verifies.

    Specification text: ``kid1:base64url,kid2:base64url`` (commas or new lines between keys,
    ``#`` starts a comment in a file). Key ids are 1–32 characters of ``[A-Za-z0-9._-]``.
    """

    __slots__ = ("_by_kid", "_keys", "generated", "published_kids")

    def __init__(self, keys: Iterable[tuple[str, bytes]], *, generated: bool = False) -> None:
        derived: list[DerivedKey] = []
        seen: set[str] = set()
        published: list[str] = []
        for kid, material in keys:
            if not _KID_RE.fullmatch(kid):
                raise KeyConfigError(
                    f"key id {kid!r}: use 1-32 characters of letters, digits, '.', '_', '-'"
                )
            if kid in seen:
                raise KeyConfigError(f"key id {kid!r} appears twice")
            if len(material) < MIN_KEY_BYTES:
                raise KeyConfigError(
                    f"key {kid!r}: at least {MIN_KEY_BYTES} bytes of key material are required"
                )
            seen.add(kid)
            derived.append(DerivedKey.derive(kid, material))
            if hashlib.sha256(material).hexdigest() in PUBLISHED_EXAMPLE_KEYS:
                published.append(kid)
        if not derived:
            raise KeyConfigError("no keys: give at least one kid:base64url key")
        self.published_kids: tuple[str, ...] = tuple(published)
        """The key ids whose material is a published example key (see PUBLISHED_EXAMPLE_KEYS)."""
        self._keys: tuple[DerivedKey, ...] = tuple(derived)
        self._by_kid: dict[bytes, DerivedKey] = {k.kid_bytes: k for k in derived}
        self.generated = generated
        """True for a ring made by `generate()`: fine on a laptop, never in production."""

    @classmethod
    def from_spec(cls, spec: str) -> KeyRing:
        """Parse ``kid1:base64url,kid2:base64url`` (the first key signs)."""
        entries: list[tuple[str, bytes]] = []
        for raw_line in spec.splitlines():
            line = raw_line.split("#", 1)[0]
            for raw_entry in line.split(","):
                entry = raw_entry.strip()
                if not entry:
                    continue
                kid, sep, text = entry.partition(":")
                kid = kid.strip()
                if not sep or not kid:
                    raise KeyConfigError(
                        "each key is written kid:base64url (a key id, a colon, the key)"
                    )
                entries.append((kid, _decode_material(kid, text)))
        return cls(entries)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str] | Path) -> KeyRing:
        """Read a key specification from a file (one ``kid:base64url`` per line, ``#`` comments)."""
        try:
            with open(path, encoding="utf-8") as handle:  # noqa: PTH123 - str or Path alike
                text = handle.read()
        except OSError as exc:
            raise KeyConfigError(
                f"can't read the keys file {os.fspath(path)!r}: {exc.strerror}"
            ) from None
        return cls.from_spec(text)

    @classmethod
    def generate(cls) -> KeyRing:
        """Make a ring of one fresh random key, for local use.

        Tokens die with the process and other replicas can't read them.
        """
        kid = "local-" + secrets.token_hex(4)
        return cls([(kid, secrets.token_bytes(GENERATED_KEY_BYTES))], generated=True)

    @staticmethod
    def new_spec_entry(kid: str) -> str:
        """Make a ``kid:base64url`` entry of 32 fresh random bytes (for operators making keys)."""
        if not _KID_RE.fullmatch(kid):
            raise KeyConfigError(
                f"key id {kid!r}: use 1-32 characters of letters, digits, '.', '_', '-'"
            )
        return (
            f"{kid}:{base64.urlsafe_b64encode(secrets.token_bytes(GENERATED_KEY_BYTES)).decode()}"
        )

    @property
    def signing_kid(self) -> str:
        """The key id that signs new tokens."""
        return self._keys[0].kid

    @property
    def kids(self) -> tuple[str, ...]:
        """Every key id, the signing one first."""
        return tuple(k.kid for k in self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return f"KeyRing(kids={self.kids!r}, generated={self.generated})"

    def _signing(self) -> DerivedKey:
        return self._keys[0]

    def _lookup(self, kid: bytes) -> DerivedKey | None:
        return self._by_kid.get(kid)

    def _all(self) -> tuple[DerivedKey, ...]:
        return self._keys


class DealKey:
    """The host's credential for seeded and explicit deals (``--deal-key-file``): a secret
    of at least `MIN_DEAL_KEY_CHARS` characters that only the host holds and sends in
    `deal_key`. Compared in constant time (as SHA-256 digests, so the length doesn't show).

    Several keys may be given (the file: one a line): any of them is accepted, so that a
    rotation overlaps. Add the new key beside the old on every replica, move the host to it,
    then drop the old (docs/SECURITY.md, *Who deals*)."""

    __slots__ = ("_digests",)

    def __init__(self, *secrets: str) -> None:
        if not secrets:
            raise KeyConfigError("no deal key: the deal key file holds no key")
        digests = []
        for secret in (s.strip() for s in secrets):
            if len(secret) < MIN_DEAL_KEY_CHARS:
                raise KeyConfigError(
                    f"a deal key has {len(secret)} characters; at least {MIN_DEAL_KEY_CHARS} are"
                    " required (e.g. python -c 'import secrets; print(secrets.token_urlsafe(32))')"
                )
            digests.append(hashlib.sha256(secret.encode()).digest())
        self._digests = tuple(digests)

    @classmethod
    def from_file(cls, path: str | os.PathLike[str] | Path) -> DealKey:
        """Read the deal keys from a file: one a line, blank lines and ``#`` comments skipped
        (surrounding white space ignored)."""
        try:
            with open(path, encoding="utf-8") as handle:  # noqa: PTH123
                lines = [line.strip() for line in handle]
        except OSError as exc:
            raise KeyConfigError(f"cannot read the deal key file: {exc.strerror}") from None
        return cls(*(line for line in lines if line and not line.startswith("#")))

    def check(self, given: str) -> bool:
        """Whether `given` is one of the deal keys (constant time: every key is compared)."""
        digest = hashlib.sha256(given.strip().encode()).digest()
        found = False
        for known in self._digests:
            found |= hmac.compare_digest(digest, known)
        return found

    def __repr__(self) -> str:
        return "DealKey(<secret>)"
