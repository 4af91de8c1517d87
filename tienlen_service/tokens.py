"""State tokens and seat tokens: the game state travels to the client signed, and optionally sealed.

The service keeps no state between calls, so the client carries it: every response returns the
serialised game state as an opaque *state token*, and the next request hands it back. The
token must therefore be tamper-proof (HMAC-SHA256 under a server key) and, when sealing is on,
unreadable (AES-GCM), so a player holding it can't read the other hands.

Wire layout of a state token (all lengths in bytes)::

    offset  size  field
    0       1     version: 2 with an issue time (when a maximum age is set), else 1 (none)
    1       1     flags: bit 0 = sealed; the other bits must be 0
    2       1     n = length of the key id (1..32)
    3       n     key id, ASCII [A-Za-z0-9._-] — in the clear, so the verifier picks the key
    3+n     1     m = length of the deployment id (1..64)
    4+n     m     deployment id, ASCII — in the clear, and covered by the tag
    4+n+m   8     (version 2 only) issue time: Unix seconds, big-endian — in the clear, under the tag
    ...           body: the payload, or (sealed) a 12-byte random nonce + AES-GCM(payload)
    end-32  32    HMAC-SHA256 over everything before it

Why an issue time: a stateless service can't tell a replayed old token from the latest one
(docs/SECURITY.md); the host must keep the latest itself. The issue time lets a deployment cap
how long any token lives (`max_age`, refused as TOKEN_EXPIRED), which bounds what a leaked or
hoarded token can do. Tokens are stamped only where a maximum age is set: without one, a token
stays a pure function of the state (any replica, at any time, mints the same bytes). A token
without an issue time is refused where a maximum age is set, as its age is unknown.

Why the deployment id is in the clear *and* under the MAC: two deployments may (wrongly) share
key material; a token of one must not be accepted by the other. Because the tag covers the
deployment id, a token names its deployment truthfully once its tag verifies, so the refusal
can say exactly why (TOKEN_WRONG_DEPLOYMENT) instead of a vague bad signature — and a forger
can't move a token between deployments.

The keys (a `KeyRing`, each key derived into its sub-keys, and the host's `DealKey`) are `keys.py`.

Seat tokens and the seeds of random next deals are keyed by the match's secret
(`game_ids.GameId.secret`, carried in the state payload), not by a key of the ring: they depend
on no signing key, so a match outlives a key rotation whole, as its re-signed state does, and
any token of a finished game deals the same next game whichever key signed it. A match started
before secrets has none: its seat tokens and next deals use the ring's sub-keys, as then.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import re
import struct
import time
from enum import StrEnum
from typing import TYPE_CHECKING, Final

from cryptography.exceptions import InvalidTag

from tienlen_service.entropy import random_bytes
from tienlen_service.game_ids import secret_of
from tienlen_service.keys import (
    GENERATED_KEY_BYTES,
    MIN_KEY_BYTES,
    PUBLISHED_EXAMPLE_KEYS,
    DerivedKey,
    KeyConfigError,
    KeyedMac,
    KeyRing,
    mac_of,
)

__all__ = [
    "GENERATED_KEY_BYTES",
    "MIN_KEY_BYTES",
    "PUBLISHED_EXAMPLE_KEYS",
    "KeyConfigError",
    "KeyRing",
    "TokenCodec",
    "TokenError",
    "TokenReason",
    "deployment_problem",
]

if TYPE_CHECKING:
    from collections.abc import Callable

VERSION: Final = 2
"""The format with an issue time (made where a maximum age is set)."""
VERSION_NO_TIME: Final = 1
"""The format without (made where no maximum age is set, and before the issue time existed)."""
ISSUED_BYTES: Final = 8
_ISSUED: Final = struct.Struct(">Q")
FLAG_SEALED: Final = 0x01
_KNOWN_FLAGS: Final = FLAG_SEALED
TAG_BYTES: Final = 32
NONCE_BYTES: Final = 12
GCM_TAG_BYTES: Final = 16
SEAT_TAG_BYTES: Final = 16
"""Seat tokens carry 128 bits of HMAC: enough against guessing, short enough to paste."""
MAX_SEAT: Final = 0xFFFF
MATCH_KEYED: Final = "(match)"
"""What `check_seat_token` answers for a seat token keyed by its match's secret (no key of
the ring is needed for it), in place of a key id."""

_DEPLOYMENT_RE: Final = re.compile(r"[A-Za-z0-9._:/-]{1,64}")
_SEAT_TOKEN_RE: Final = re.compile(r"[A-Za-z0-9_-]{22}")


class TokenReason(StrEnum):
    """Why a state token was refused; stable codes, returned in `ErrorInfo.reason`."""

    TOKEN_MALFORMED = "TOKEN_MALFORMED"  # noqa: S105 - a reason code, not a secret
    """Not a token of this service: empty, truncated, unknown version or flags, bad lengths."""
    TOKEN_UNKNOWN_KEY = "TOKEN_UNKNOWN_KEY"  # noqa: S105 - a reason code, not a secret
    """Signed by a key id this server doesn't have (retired, or another system's)."""
    TOKEN_BAD_SIGNATURE = "TOKEN_BAD_SIGNATURE"  # noqa: S105 - a reason code, not a secret
    """The tag doesn't verify: the token was altered or forged."""
    TOKEN_WRONG_DEPLOYMENT = "TOKEN_WRONG_DEPLOYMENT"  # noqa: S105 - a reason code, not a secret
    """A genuine token, but made by another deployment (which shares key material with us)."""
    TOKEN_UNSEALED_REQUIRED = "TOKEN_UNSEALED_REQUIRED"  # noqa: S105 - a reason code, not a secret
    """An unsealed token where this server requires sealed ones."""
    TOKEN_EXPIRED = "TOKEN_EXPIRED"  # noqa: S105 - a reason code, not a secret
    """Older than the deployment's maximum token age (or of the first format, with no time)."""


class TokenError(Exception):
    """A state token that is refused; `reason` is a `TokenReason`, `message` a sentence.

    The message never contains token bytes or key material.
    """

    def __init__(self, reason: TokenReason, message: str) -> None:
        super().__init__(f"{reason}: {message}")
        self.reason = reason
        self.message = message


def deployment_problem(deployment: str) -> str | None:
    """Why `deployment` can't be a deployment id (it travels in every token), or None."""
    if _DEPLOYMENT_RE.fullmatch(deployment):
        return None
    return f"deployment id {deployment!r}: use 1-64 characters of letters, digits, '._:/-'"


class TokenCodec:
    """Signs (and optionally seals) state payloads into tokens, and verifies them back.

    `seal`: new tokens are encrypted with AES-GCM. `require_sealed`: unsealed tokens are
    refused (TOKEN_UNSEALED_REQUIRED); off by default, so that turning sealing on doesn't break
    the games in progress — turn it on once the unsealed tokens have aged out.
    `deployment`: the id bound into every tag; a token of another deployment is refused.
    `max_age`: seconds a token lives after its issue time (0: no limit, and tokens carry no
    issue time); `admit` refuses older ones, and unstamped ones. `clock`: the time (Unix
    seconds) tokens are stamped and checked with.
    """

    __slots__ = (
        "_clock",
        "_deal_prefix",
        "_dep_header",
        "_deployment",
        "_header",
        "_header_sizes",
        "_keyring",
        "_known",
        "_max_age",
        "_require_sealed",
        "_seal",
        "_seat_prefix",
    )

    def __init__(
        self,
        keyring: KeyRing,
        *,
        seal: bool,
        deployment: str = "tienlen",
        require_sealed: bool = False,
        max_age: float = 0.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        problem = deployment_problem(deployment)
        if problem is not None:
            raise KeyConfigError(problem)
        self._max_age = max_age
        self._clock = clock
        self._keyring = keyring
        self._seal = seal
        self._require_sealed = require_sealed
        self._deployment = deployment
        dep = deployment.encode("ascii")
        self._dep_header = bytes([len(dep)]) + dep
        # Without an issue time the header of a new token is the same for every token (the
        # signing key is the ring's first for the codec's life): made once.
        signing = keyring._signing()  # noqa: SLF001 - the ring and the codec are one unit
        flags = FLAG_SEALED if seal else 0
        self._header = (
            bytes((VERSION_NO_TIME, flags, len(signing.kid_bytes)))
            + signing.kid_bytes
            + self._dep_header
        )
        # The headers a token of this deployment may start with, under each configured key:
        # version, flags, key id, deployment (`decode`'s fast path).
        self._known: dict[bytes, tuple[DerivedKey, bool, bool]] = {}
        for key in keyring._all():  # noqa: SLF001
            for version in (VERSION, VERSION_NO_TIME):
                for sealed in (True, False) if not require_sealed else (True,):
                    known = (
                        bytes((version, FLAG_SEALED if sealed else 0, len(key.kid_bytes)))
                        + key.kid_bytes
                        + self._dep_header
                    )
                    self._known[known] = (key, version == VERSION, sealed)
        self._header_sizes = tuple(sorted({len(h) for h in self._known}))
        self._seat_prefix = b"tienlen seat token\x00" + self._dep_header
        self._deal_prefix = b"tienlen next deal\x00" + self._dep_header

    @property
    def keyring(self) -> KeyRing:
        """The key ring (for start-up logs: key ids only)."""
        return self._keyring

    @property
    def deployment(self) -> str:
        """The deployment id bound into every token."""
        return self._deployment

    @property
    def seal(self) -> bool:
        """Whether new tokens are sealed."""
        return self._seal

    @property
    def require_sealed(self) -> bool:
        """Whether unsealed tokens are refused."""
        return self._require_sealed

    def encode(self, payload: bytes) -> bytes:
        """Sign (and, when sealing, encrypt) `payload` under the signing key."""
        key = self._keyring._signing()  # noqa: SLF001 - the ring and the codec are one unit
        flags = FLAG_SEALED if self._seal else 0
        if self._max_age > 0:
            header = (
                bytes((VERSION, flags, len(key.kid_bytes)))
                + key.kid_bytes
                + self._dep_header
                + _ISSUED.pack(max(0, int(self._clock())))
            )
        else:
            header = self._header
        if self._seal:
            nonce = random_bytes(NONCE_BYTES)
            # The header (version, flags, key id, deployment) is the associated data: the
            # ciphertext can't be moved under another header even before the HMAC is checked.
            body = nonce + key.aead.encrypt(nonce, bytes(payload), header)
        else:
            body = bytes(payload)
        prefix = header + body
        return prefix + mac_of(key.mac, prefix)

    def decode(self, token: bytes) -> bytes:
        """Verify `token` and return its payload; raise `TokenError` (and nothing else).

        A token of this deployment under a configured key starts with one of a few headers
        known in advance (`_known`: version, flags, key id and deployment, the sealed ones only
        where unsealed tokens are refused): its payload is returned as soon as its tag
        verifies. Anything else (or a tag that does not verify) is read field by field
        (`_decode_checked`), which says why it is refused."""
        if type(token) is bytes:
            for size in self._header_sizes:
                known = self._known.get(token[:size])
                if known is not None:
                    payload = self._verified_payload(token, size, known)
                    if payload is not None:
                        return payload
                    break
        return self._decode_checked(token)

    @staticmethod
    def _verified_payload(
        data: bytes, size: int, known: tuple[DerivedKey, bool, bool]
    ) -> bytes | None:
        """The payload of a token whose header (`size` bytes) is known (its key, whether it
        carries an issue time, whether it is sealed), None unless it is whole and its tag
        verifies."""
        key, timed, sealed = known
        body_at = size + ISSUED_BYTES if timed else size
        tag_at = len(data) - TAG_BYTES
        if tag_at < body_at + (NONCE_BYTES + GCM_TAG_BYTES if sealed else 0):
            return None
        if not hmac.compare_digest(mac_of(key.mac, data[:tag_at]), data[tag_at:]):
            return None
        if not sealed:
            return data[body_at:tag_at]
        nonce = data[body_at : body_at + NONCE_BYTES]
        try:
            return key.aead.decrypt(nonce, data[body_at + NONCE_BYTES : tag_at], data[:body_at])
        except InvalidTag:  # unreachable with a consistent key ring: read it field by field
            return None

    def _decode_checked(self, token: bytes) -> bytes:
        """`decode`, field by field: every check, and the reason of a refusal."""
        try:
            data = token if type(token) is bytes else bytes(token)
        except (TypeError, ValueError):
            raise TokenError(TokenReason.TOKEN_MALFORMED, "the state token is not bytes") from None
        size = len(data)
        if size == 0:
            raise TokenError(TokenReason.TOKEN_MALFORMED, "the state token is empty")
        version = data[0]
        if version not in (VERSION, VERSION_NO_TIME):
            raise TokenError(
                TokenReason.TOKEN_MALFORMED, "the state token has an unknown format version"
            )
        # Smallest possible token: version, flags, kid length, 1-byte kid, deployment length,
        # 1-byte deployment, tag.
        if size < 5 + 1 + TAG_BYTES:
            raise TokenError(TokenReason.TOKEN_MALFORMED, "the state token is truncated")
        flags = data[1]
        if flags & ~_KNOWN_FLAGS:
            raise TokenError(TokenReason.TOKEN_MALFORMED, "the state token has unknown flags")
        kid_len = data[2]
        dep_at = 3 + kid_len
        if kid_len == 0 or dep_at >= size - TAG_BYTES:
            raise TokenError(TokenReason.TOKEN_MALFORMED, "the state token is truncated")
        dep_len = data[dep_at]
        body_at = dep_at + 1 + dep_len + (ISSUED_BYTES if version == VERSION else 0)
        tag_at = size - TAG_BYTES
        if dep_len == 0 or body_at > tag_at:
            raise TokenError(TokenReason.TOKEN_MALFORMED, "the state token is truncated")
        sealed = bool(flags & FLAG_SEALED)
        if sealed and tag_at - body_at < NONCE_BYTES + GCM_TAG_BYTES:
            raise TokenError(TokenReason.TOKEN_MALFORMED, "the sealed state token is truncated")

        key = self._keyring._lookup(data[3:dep_at])  # noqa: SLF001
        if key is None:
            raise TokenError(
                TokenReason.TOKEN_UNKNOWN_KEY,
                "the state token was signed by a key this server does not have",
            )
        prefix = data[:tag_at]
        expected = mac_of(key.mac, prefix)
        if not hmac.compare_digest(expected, data[tag_at:]):
            raise TokenError(
                TokenReason.TOKEN_BAD_SIGNATURE,
                "the state token's signature does not verify (altered or forged)",
            )
        if data[dep_at : dep_at + 1 + dep_len] != self._dep_header:
            raise TokenError(
                TokenReason.TOKEN_WRONG_DEPLOYMENT,
                "the state token was made by another deployment",
            )
        if not sealed:
            if self._require_sealed:
                raise TokenError(
                    TokenReason.TOKEN_UNSEALED_REQUIRED,
                    "this server accepts sealed state tokens only",
                )
            return data[body_at:tag_at]
        nonce = data[body_at : body_at + NONCE_BYTES]
        try:
            return key.aead.decrypt(nonce, data[body_at + NONCE_BYTES : tag_at], data[:body_at])
        except InvalidTag:
            # Unreachable unless the key ring itself is inconsistent: the HMAC already proved
            # the bytes are ours. Still a refusal, never a crash.
            raise TokenError(
                TokenReason.TOKEN_BAD_SIGNATURE, "the sealed state token does not decrypt"
            ) from None

    def admit(self, token: bytes) -> str:
        """The key id of a token already known good (`decode` accepted it, or this codec made
        it), after checking its age against `max_age`: TokenError(TOKEN_EXPIRED) when older.

        Apart from `decode` because a replica remembers the states of tokens it made or
        checked (state_cache.StateCache) and skips `decode` for them; their age still counts."""
        kid_end = 3 + token[2]
        if self._max_age > 0:
            if token[0] == VERSION_NO_TIME:
                raise TokenError(
                    TokenReason.TOKEN_EXPIRED,
                    "the state token carries no issue time (an older format) and this server "
                    "limits token age",
                )
            time_at = kid_end + 1 + token[kid_end]
            (issued,) = _ISSUED.unpack_from(token, time_at)
            age = self._clock() - issued
            if age > self._max_age:
                raise TokenError(
                    TokenReason.TOKEN_EXPIRED,
                    f"the state token is {int(age)} s old; this server accepts tokens up to "
                    f"{self._max_age:g} s old (play on from the latest token)",
                )
        return token[3:kid_end].decode("ascii")

    def _seat_tag(self, key: DerivedKey, game_id: bytes, seat: int, occupant: int) -> bytes:
        message = self._seat_prefix + seat.to_bytes(2, "big") + game_id
        if occupant:  # a newcomer (RULES §9.1): bound to who sits there, not only the seat
            message += occupant.to_bytes(8, "big")
        return mac_of(key.seat_mac, message)[:SEAT_TAG_BYTES]

    def _match_seat_tag(self, secret: bytes, game_id: bytes, seat: int, occupant: int) -> bytes:
        message = self._seat_prefix + seat.to_bytes(2, "big") + game_id
        if occupant:  # a newcomer (RULES §9.1): bound to who sits there, not only the seat
            message += occupant.to_bytes(8, "big")
        return _match_mac(secret, message)[:SEAT_TAG_BYTES]

    def seat_token(self, game_id: bytes, seat: int, occupant: int = 0) -> str:
        """Mint the capability token that lets its holder act for `seat` in game `game_id`.

        Base64url of a 128-bit HMAC over (deployment, seat, game id) and, for a player who sat
        down between games, its `occupant` number (the match state's: a newcomer's token is not
        the token of the player who left that seat), under the match's secret
        (`game_ids.GameId`), or, in a match older than secrets, under the signing key.
        """
        if not 0 <= seat <= MAX_SEAT:
            raise ValueError(f"seat {seat} is out of range")
        secret = secret_of(game_id)
        if secret:
            tag = self._match_seat_tag(secret, bytes(game_id), seat, occupant)
        else:
            tag = self._seat_tag(self._keyring._signing(), bytes(game_id), seat, occupant)  # noqa: SLF001
        return base64.urlsafe_b64encode(tag).rstrip(b"=").decode("ascii")

    def check_seat_token(
        self, game_id: bytes, seat: int, token: str, occupant: int = 0
    ) -> str | None:
        """What vouches for `token` as the seat token of `seat` (sat in by `occupant`) in
        `game_id`: `MATCH_KEYED` (the match's secret), or, in a match older than secrets, the id
        of the configured key it was minted under; None when it is not that seat's token.

        Never raises; compares in constant time and, for an older match, tries every key (so
        its tokens keep working while their key is still configured).
        """
        if not isinstance(token, str) or not _SEAT_TOKEN_RE.fullmatch(token):
            return None
        if not isinstance(seat, int) or not 0 <= seat <= MAX_SEAT:
            return None
        try:
            given = base64.urlsafe_b64decode(token + "==")
            gid = bytes(game_id)
        except (binascii.Error, ValueError, TypeError):
            return None
        secret = secret_of(game_id)
        if secret:
            ok = hmac.compare_digest(self._match_seat_tag(secret, gid, seat, occupant), given)
            return MATCH_KEYED if ok else None
        found = None
        for key in self._keyring._all():  # noqa: SLF001
            # No early exit: the time taken doesn't tell which key (if any) matched.
            if hmac.compare_digest(self._seat_tag(key, gid, seat, occupant), given):
                found = key.kid
        return found

    def deal_seed(self, token: bytes, game_id: bytes, game_number: int) -> int:
        """The seed of game `game_number`'s random deal in the match `game_id`, for a token
        already known good (`decode` accepted it): a 63-bit HMAC over (deployment, game
        number, game id) under the match's secret (`game_ids.GameId`), or, in a match older
        than secrets, under the deal sub-key of the key that signed `token`.

        So the next deal is fixed by the finished game (NextGame asked twice deals the same
        hands: nobody can re-deal until the hands suit them) and unpredictable to whoever
        can't read the state. Keyed by the match, not by a key: any token of the finished game,
        whichever key signed it (during a rotation, two may), deals the same hands."""
        message = self._deal_prefix + struct.pack(">I", game_number) + bytes(game_id)
        secret = secret_of(game_id)
        if secret:
            return int.from_bytes(_match_mac(secret, message)[:8], "big") >> 1
        key = self._keyring._lookup(token[3 : 3 + token[2]])  # noqa: SLF001
        if key is None:  # pragma: no cover - decode accepted the token, so its key is here
            raise TokenError(
                TokenReason.TOKEN_UNKNOWN_KEY, "the state token's key is not configured"
            )
        return int.from_bytes(mac_of(key.deal_mac, message)[:8], "big") >> 1


def _match_mac(secret: bytes, message: bytes) -> bytes:
    """HMAC-SHA256 of `message` under a match's secret (hashed under the GIL, as `mac_of`),
    the secret's padded blocks hashed once per match (a few calls of a match ask alike)."""
    keyed = _MATCH_KEYS.get(secret)
    if keyed is None:
        if len(_MATCH_KEYS) >= _MATCH_KEYS_SIZE:
            _MATCH_KEYS.clear()
        keyed = _MATCH_KEYS[secret] = KeyedMac(secret)
    return mac_of(keyed, message)


# Matches' secrets keyed lately; cleared when full (a miss costs two block hashes).
_MATCH_KEYS: Final[dict[bytes, KeyedMac]] = {}
_MATCH_KEYS_SIZE: Final = 4096
