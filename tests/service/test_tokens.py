"""State tokens and seat tokens: signed, optionally sealed, bound to a deployment, rotatable."""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tienlen.v1 import cards_pb2, moves_pb2, service_pb2
from tienlen_rules.cards import parse_set
from tienlen_service import codec as wire_codec
from tienlen_service.keys import KeyedMac, mac_of
from tienlen_service.metrics import Metrics
from tienlen_service.servicer import TienLenServicer
from tienlen_service.tokens import (
    FLAG_SEALED,
    ISSUED_BYTES,
    TAG_BYTES,
    KeyConfigError,
    KeyRing,
    TokenCodec,
    TokenError,
    TokenReason,
)

KEY_A = bytes(range(32))
KEY_B = bytes(range(100, 132))
SPEC_A = "a:" + base64.urlsafe_b64encode(KEY_A).decode()
SPEC_B = "b:" + base64.urlsafe_b64encode(KEY_B).decode()
# A payload whose bytes are easy to spot: a sealed token must not show them.
PAYLOAD = b"HAND:3S 4S 5S 6S 7S|HAND:2H 2D AC KC" * 4

RING_A = KeyRing.from_spec(SPEC_A)
CODEC = TokenCodec(RING_A, seal=False)
SEALED = TokenCodec(RING_A, seal=True)


def reason_of(codec: TokenCodec, token: bytes) -> TokenReason:
    with pytest.raises(TokenError) as caught:
        codec.decode(token)
    return caught.value.reason


# -- round trips --------------------------------------------------------------------------------


@pytest.mark.parametrize("codec", [CODEC, SEALED], ids=["signed", "sealed"])
def test_a_token_decodes_to_its_payload(codec: TokenCodec) -> None:
    assert codec.decode(codec.encode(PAYLOAD)) == PAYLOAD
    assert codec.decode(codec.encode(b"")) == b""


def test_the_key_id_travels_in_the_clear_so_the_verifier_can_pick_the_key() -> None:
    token = CODEC.encode(PAYLOAD)
    assert token[0] == 1
    assert token[2] == 1
    assert token[3:4] == b"a"


def test_a_sealed_token_hides_the_hands() -> None:
    token = SEALED.encode(PAYLOAD)
    assert token[1] & FLAG_SEALED
    # No 6 bytes of the payload appear in the token (a shorter window, such as b"3S", turns up
    # in random ciphertext now and then).
    windows = {PAYLOAD[i : i + 6] for i in range(len(PAYLOAD) - 5)}
    assert not any(token[i : i + 6] in windows for i in range(len(token) - 5))


def test_sealing_uses_a_fresh_nonce_each_time() -> None:
    assert SEALED.encode(PAYLOAD) != SEALED.encode(PAYLOAD)


def test_a_signed_token_is_deterministic() -> None:
    # Unsealed tokens are a pure function of the payload: any replica mints the same bytes.
    assert CODEC.encode(PAYLOAD) == TokenCodec(KeyRing.from_spec(SPEC_A), seal=False).encode(
        PAYLOAD
    )

    # Stamped ones (where a maximum age is set), of the payload and the second of issue.
    def at_noon() -> float:
        return 1_780_000_000.5

    one = TokenCodec(RING_A, seal=False, max_age=60, clock=at_noon)
    other = TokenCodec(KeyRing.from_spec(SPEC_A), seal=False, max_age=60, clock=at_noon)
    assert one.encode(PAYLOAD) == other.encode(PAYLOAD)


def test_any_codec_reads_sealed_and_unsealed_tokens_alike() -> None:
    # Turning sealing on (or off) must not break the games in progress.
    assert CODEC.decode(SEALED.encode(PAYLOAD)) == PAYLOAD
    assert SEALED.decode(CODEC.encode(PAYLOAD)) == PAYLOAD


def test_unsealed_tokens_are_refused_only_when_sealing_is_required() -> None:
    strict = TokenCodec(RING_A, seal=True, require_sealed=True)
    assert reason_of(strict, CODEC.encode(PAYLOAD)) is TokenReason.TOKEN_UNSEALED_REQUIRED
    assert strict.decode(SEALED.encode(PAYLOAD)) == PAYLOAD


# -- refusals -----------------------------------------------------------------------------------


def test_every_single_bit_flip_is_refused() -> None:
    for sealed in (CODEC, SEALED):
        token = sealed.encode(PAYLOAD)
        for i in range(len(token)):
            for bit in (0x01, 0x80):
                tampered = bytearray(token)
                tampered[i] ^= bit
                with pytest.raises(TokenError):
                    sealed.decode(bytes(tampered))


def test_a_flipped_payload_byte_is_a_bad_signature() -> None:
    token = bytearray(CODEC.encode(PAYLOAD))
    token[20] ^= 0x10
    assert reason_of(CODEC, bytes(token)) is TokenReason.TOKEN_BAD_SIGNATURE


def test_every_truncation_is_refused() -> None:
    for codec in (CODEC, SEALED):
        token = codec.encode(PAYLOAD)
        for length in range(len(token)):
            with pytest.raises(TokenError) as caught:
                codec.decode(token[:length])
            assert caught.value.reason in {
                TokenReason.TOKEN_MALFORMED,
                TokenReason.TOKEN_BAD_SIGNATURE,
            }


def test_an_empty_token_is_malformed() -> None:
    assert reason_of(CODEC, b"") is TokenReason.TOKEN_MALFORMED


def test_an_unknown_version_or_flag_is_malformed() -> None:
    token = bytearray(CODEC.encode(PAYLOAD))
    token[0] = 3
    assert reason_of(CODEC, bytes(token)) is TokenReason.TOKEN_MALFORMED
    token = bytearray(CODEC.encode(PAYLOAD))
    token[1] |= 0x40
    assert reason_of(CODEC, bytes(token)) is TokenReason.TOKEN_MALFORMED


def test_a_token_of_a_key_id_we_do_not_have_is_an_unknown_key() -> None:
    other = TokenCodec(KeyRing.from_spec(SPEC_B), seal=False)
    assert reason_of(CODEC, other.encode(PAYLOAD)) is TokenReason.TOKEN_UNKNOWN_KEY


def test_a_token_signed_by_a_foreign_key_with_our_key_id_is_a_bad_signature() -> None:
    impostor = TokenCodec(
        KeyRing.from_spec("a:" + base64.urlsafe_b64encode(KEY_B).decode()), seal=False
    )
    assert reason_of(CODEC, impostor.encode(PAYLOAD)) is TokenReason.TOKEN_BAD_SIGNATURE
    sealed_impostor = TokenCodec(impostor.keyring, seal=True)
    assert reason_of(SEALED, sealed_impostor.encode(PAYLOAD)) is TokenReason.TOKEN_BAD_SIGNATURE


def test_another_deployment_sharing_our_keys_is_refused_by_name() -> None:
    staging = TokenCodec(RING_A, seal=False, deployment="staging")
    production = TokenCodec(RING_A, seal=False, deployment="production")
    assert reason_of(production, staging.encode(PAYLOAD)) is TokenReason.TOKEN_WRONG_DEPLOYMENT
    sealed_staging = TokenCodec(RING_A, seal=True, deployment="staging")
    assert (
        reason_of(production, sealed_staging.encode(PAYLOAD)) is TokenReason.TOKEN_WRONG_DEPLOYMENT
    )


def test_renaming_the_deployment_inside_a_token_breaks_its_signature() -> None:
    # "tienlen" -> "tienlem": same length, so only the tag can catch it.
    token = CODEC.encode(PAYLOAD)
    forged = token.replace(b"tienlen", b"tienlem", 1)
    assert forged != token
    assert reason_of(TokenCodec(RING_A, seal=False, deployment="tienlem"), forged) is (
        TokenReason.TOKEN_BAD_SIGNATURE
    )


def test_errors_never_echo_the_token_or_the_payload() -> None:
    token = bytearray(CODEC.encode(PAYLOAD))
    token[-1] ^= 1
    with pytest.raises(TokenError) as caught:
        CODEC.decode(bytes(token))
    assert "HAND" not in str(caught.value)
    assert caught.value.message
    assert str(caught.value).startswith("TOKEN_BAD_SIGNATURE")


def test_non_bytes_input_is_malformed_not_a_crash() -> None:
    with pytest.raises(TokenError):
        CODEC.decode(None)  # type: ignore[arg-type]
    with pytest.raises(TokenError):
        CODEC.decode("a string")  # type: ignore[arg-type]
    assert CODEC.decode(bytearray(CODEC.encode(b"x"))) == b"x"
    assert CODEC.decode(memoryview(CODEC.encode(b"x"))) == b"x"


# -- rotation -----------------------------------------------------------------------------------


def test_rotation_keeps_old_tokens_valid_while_their_key_is_configured() -> None:
    old = TokenCodec(KeyRing.from_spec(SPEC_A), seal=True)
    # Step 1: the new key is added second (verifies only); step 2: it moves first (signs).
    step1 = TokenCodec(KeyRing.from_spec(f"{SPEC_A},{SPEC_B}"), seal=True)
    step2 = TokenCodec(KeyRing.from_spec(f"{SPEC_B},{SPEC_A}"), seal=True)
    step3 = TokenCodec(KeyRing.from_spec(SPEC_B), seal=True)
    minted_before = old.encode(PAYLOAD)
    assert step1.decode(minted_before) == PAYLOAD
    assert step2.decode(minted_before) == PAYLOAD
    minted_after = step2.encode(PAYLOAD)
    assert step1.decode(minted_after) == PAYLOAD  # replicas still on step 1 read it
    assert step3.decode(minted_after) == PAYLOAD
    # Step 3: the old key is gone, and so are its tokens.
    assert reason_of(step3, minted_before) is TokenReason.TOKEN_UNKNOWN_KEY


# -- fuzz ---------------------------------------------------------------------------------------


@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=600))
def test_arbitrary_bytes_raise_only_token_error(data: bytes) -> None:
    for codec in (CODEC, SEALED):
        with pytest.raises(TokenError):
            codec.decode(data)


@settings(max_examples=300)
@given(
    st.binary(max_size=200),
    st.booleans(),
    st.lists(
        st.tuples(st.integers(min_value=0, max_value=10_000), st.integers(0, 255)),
        min_size=1,
        max_size=4,
    ),
    st.integers(min_value=0, max_value=3),
)
def test_mutated_tokens_are_refused_or_unchanged(
    payload: bytes, sealed: bool, edits: list[tuple[int, int]], cut: int
) -> None:
    codec = SEALED if sealed else CODEC
    token = codec.encode(payload)
    mutated = bytearray(token)
    for position, value in edits:
        mutated[position % len(mutated)] = value
    mutated_bytes = bytes(mutated[: len(mutated) - cut])
    assume(mutated_bytes != token)
    with pytest.raises(TokenError):
        codec.decode(mutated_bytes)


@settings(max_examples=200)
@given(st.binary(max_size=300))
def test_any_payload_round_trips(payload: bytes) -> None:
    assert CODEC.decode(CODEC.encode(payload)) == payload
    assert SEALED.decode(SEALED.encode(payload)) == payload


# -- key rings ----------------------------------------------------------------------------------


def test_a_key_spec_lists_keys_in_order_and_the_first_signs() -> None:
    ring = KeyRing.from_spec(f" {SPEC_B} , {SPEC_A} ")
    assert ring.kids == ("b", "a")
    assert ring.signing_kid == "b"
    assert len(ring) == 2
    assert not ring.generated


def test_key_material_may_be_padded_unpadded_or_standard_base64() -> None:
    raw = bytes(range(200, 232))
    for text in (
        base64.urlsafe_b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
        base64.b64encode(raw).decode(),
    ):
        ring = KeyRing.from_spec(f"k:{text}")
        token = TokenCodec(ring, seal=False).encode(b"x")
        assert TokenCodec(KeyRing([("k", raw)]), seal=False).decode(token) == b"x"


def test_a_keys_file_has_one_key_per_line_and_comments(tmp_path) -> None:
    path = tmp_path / "keys.txt"
    path.write_text(f"# rotated 2026-11\n{SPEC_B}\n\n{SPEC_A}  # old, remove in December\n")
    assert KeyRing.from_file(path).kids == ("b", "a")
    with pytest.raises(KeyConfigError, match="can't read"):
        KeyRing.from_file(tmp_path / "missing.txt")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "no keys"),
        ("# only a comment", "no keys"),
        ("justakey", "kid:base64url"),
        (":" + SPEC_A.split(":")[1], "kid:base64url"),
        ("a:not base64!!", "not base64url"),
        ("a:" + base64.urlsafe_b64encode(b"short").decode(), "at least 16"),
        (f"{SPEC_A},{SPEC_A}", "twice"),
        ("bad id:" + SPEC_A.split(":")[1], "key id"),
        ("x" * 33 + ":" + SPEC_A.split(":")[1], "key id"),
    ],
)
def test_bad_key_specs_are_refused_with_a_reason(spec: str, message: str) -> None:
    with pytest.raises(KeyConfigError, match=message) as caught:
        KeyRing.from_spec(spec)
    assert SPEC_A.split(":")[1] not in str(caught.value)


def test_a_key_ring_never_shows_its_key_material() -> None:
    text = repr(RING_A) + str(RING_A)
    assert "a" in RING_A.kids
    assert SPEC_A.split(":")[1] not in text
    assert KEY_A.hex() not in text


def test_generated_rings_are_marked_and_unique() -> None:
    one, two = KeyRing.generate(), KeyRing.generate()
    assert one.generated
    assert one.signing_kid != two.signing_kid
    token = TokenCodec(one, seal=False).encode(b"x")
    assert reason_of(TokenCodec(two, seal=False), token) is TokenReason.TOKEN_UNKNOWN_KEY


def test_a_new_spec_entry_is_a_usable_32_byte_key() -> None:
    entry = KeyRing.new_spec_entry("prod-2026-11")
    ring = KeyRing.from_spec(entry)
    assert ring.kids == ("prod-2026-11",)
    with pytest.raises(KeyConfigError):
        KeyRing.new_spec_entry("no spaces")


@pytest.mark.parametrize("deployment", ["", "has space", "x" * 65, "é"])
def test_a_deployment_id_must_be_short_ascii(deployment: str) -> None:
    with pytest.raises(KeyConfigError):
        TokenCodec(RING_A, seal=False, deployment=deployment)


# -- seat tokens --------------------------------------------------------------------------------

GAME = b"\x01" * 16


def test_a_seat_token_opens_its_own_seat_only() -> None:
    token = CODEC.seat_token(GAME, 2)
    assert CODEC.check_seat_token(GAME, 2, token)
    assert not CODEC.check_seat_token(GAME, 1, token)
    assert not CODEC.check_seat_token(b"\x02" * 16, 2, token)


def test_seat_tokens_are_url_safe_and_short() -> None:
    token = CODEC.seat_token(GAME, 0)
    assert len(token) == 22
    assert token.replace("-", "").replace("_", "").isalnum()


def test_a_seat_token_of_another_deployment_or_key_is_refused() -> None:
    token = CODEC.seat_token(GAME, 0)
    assert not TokenCodec(RING_A, seal=False, deployment="other").check_seat_token(GAME, 0, token)
    assert not TokenCodec(KeyRing.from_spec(SPEC_B), seal=False).check_seat_token(GAME, 0, token)


def test_seat_tokens_survive_a_key_rotation() -> None:
    token = CODEC.seat_token(GAME, 3)
    rotated = TokenCodec(KeyRing.from_spec(f"{SPEC_B},{SPEC_A}"), seal=True)
    assert rotated.check_seat_token(GAME, 3, token)
    assert rotated.seat_token(GAME, 3) != token


@pytest.mark.parametrize(
    "token", ["", "x", "A" * 22, "A" * 21 + "!", "A" * 23, None, 5, b"bytes-are-not-a-token!!"]
)
def test_garbage_seat_tokens_are_false_not_errors(token: object) -> None:
    assert CODEC.check_seat_token(GAME, 0, token) is False  # type: ignore[arg-type]


def test_out_of_range_seats() -> None:
    token = CODEC.seat_token(GAME, 0)
    assert CODEC.check_seat_token(GAME, -1, token) is False
    assert CODEC.check_seat_token(GAME, 1 << 20, token) is False
    with pytest.raises(ValueError, match="out of range"):
        CODEC.seat_token(GAME, -1)


def test_a_token_tag_is_hmac_sha256_sized() -> None:
    assert len(CODEC.encode(b"")) == 3 + 1 + 1 + len("tienlen") + TAG_BYTES
    stamped = TokenCodec(RING_A, seal=False, max_age=60)
    assert len(stamped.encode(b"")) == 3 + 1 + 1 + len("tienlen") + ISSUED_BYTES + TAG_BYTES


def _hkdf(material: bytes, info: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(material)


def test_the_tag_is_hmac_sha256_under_the_hkdf_derived_mac_key() -> None:
    token = CODEC.encode(PAYLOAD)
    prefix, tag = token[:-TAG_BYTES], token[-TAG_BYTES:]
    assert tag == hmac.digest(_hkdf(KEY_A, b"tienlen mac"), prefix, hashlib.sha256)
    seat = base64.urlsafe_b64decode(CODEC.seat_token(GAME, 2) + "==")
    expected = hmac.digest(
        _hkdf(KEY_A, b"tienlen seat"),
        b"tienlen seat token\x00\x07tienlen" + (2).to_bytes(2, "big") + GAME,
        "sha256",
    )
    assert seat == expected[: len(seat)]


def test_tokens_never_use_the_one_shot_hmac_that_gives_the_gil_away(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # hmac.digest() releases the GIL on every call: a context switch per token in a loaded
    # threaded server (bench/README.md §5). Signing, verifying, sealing and seat tokens must
    # hash under the GIL.
    def forbidden(*_args: object) -> bytes:
        raise AssertionError("hmac.digest gives the GIL away")

    monkeypatch.setattr(hmac, "digest", forbidden)
    for codec in (CODEC, SEALED):
        assert codec.decode(codec.encode(PAYLOAD)) == PAYLOAD
    assert CODEC.check_seat_token(GAME, 1, CODEC.seat_token(GAME, 1))


# --- the servicer's state cache: a token it signed is not verified again -------------------


class _CountingCodec(TokenCodec):
    """The real token codec, counting the tokens it verifies."""

    verified = 0

    def decode(self, token: bytes) -> bytes:
        self.verified += 1
        return super().decode(token)


class _Context:
    def abort_with_status(self, status: object) -> None:
        raise _Refused(status)


class _Refused(Exception):  # noqa: N818 - what the test context raises for an abort
    pass


def _servicer(keys: KeyRing) -> tuple[TienLenServicer, _CountingCodec]:
    tokens = _CountingCodec(keys, seal=False)
    return TienLenServicer(tokens=tokens, metrics=Metrics()), tokens


def _first_play(token: bytes) -> service_pb2.ApplyMoveRequest:
    play = moves_pb2.Move(play=moves_pb2.Play(cards=[wire_codec.card_from_text("3S")]))
    return service_pb2.ApplyMoveRequest(state_token=token, seat=0, move=play)


def test_a_replica_does_not_verify_again_a_token_it_signed_but_verifies_every_other() -> None:
    keys = KeyRing.from_spec(KeyRing.new_spec_entry("cache"))
    mine, my_tokens = _servicer(keys)
    other, _ = _servicer(keys)  # another replica of the same deployment
    hands = ["3S 4S 5S", "6S 7S 8S", "9S 10S JS", "QS KS AS"]
    new_game = service_pb2.NewGameRequest(
        explicit=service_pb2.ExplicitDeal(
            hands=[cards_pb2.Hand(cards=wire_codec.cards_to_pb(parse_set(h))) for h in hands]
        )
    )
    ctx: Any = _Context()
    token = mine.NewGame(new_game, ctx).game.state_token
    mine.ApplyMove(_first_play(token), ctx)
    assert my_tokens.verified == 0  # its own token: neither verified nor decoded again
    theirs = other.NewGame(new_game, ctx).game.state_token
    mine.ApplyMove(_first_play(theirs), ctx)
    mine.ApplyMove(_first_play(theirs), ctx)
    assert my_tokens.verified == 1  # verified once, then remembered
    tampered = bytearray(token)
    tampered[-1] ^= 1
    with pytest.raises(_Refused):
        mine.ApplyMove(_first_play(bytes(tampered)), ctx)
    assert my_tokens.verified == 2


@pytest.mark.parametrize("size", [0, 1, 55, 56, 63, 64, 65, 200, 3000])
def test_a_keyed_mac_is_hmac_sha256_of_its_key(size: int) -> None:
    """Tokens are signed with the key's padded blocks hashed once (`keys.KeyedMac`): the tag
    must be RFC 2104's HMAC-SHA256, for data around a block's edges and past 2 KiB."""
    key, data = bytes(range(32)), bytes(i % 251 for i in range(size))
    assert mac_of(KeyedMac(key), data) == hmac.new(key, data, hashlib.sha256).digest()
