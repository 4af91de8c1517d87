"""The state token's payload: every state round trips, the bytes are the mapping's message and
the pinned ones, and a payload that holds no game is refused."""

from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path

import pytest
from helpers.codec_games import (
    VARIANTS,
    assert_wire_is_the_message,
    edge_states,
    match_states,
    players,
    random_game,
    table_steps,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import tienlen_rules as game
from tienlen.v1 import rules_pb2, state_pb2
from tienlen_rules.revisions import RULES_REVISION
from tienlen_rules.ruleset import build_rules
from tienlen_service import codec
from tienlen_service.codec import StateDecodeError
from tienlen_service.game_ids import GameId


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_state_of_a_game_round_trips(variant: str) -> None:
    rng = random.Random(variant)
    for seed in range(3):
        for state in random_game(variant, seed, rng):
            payload = codec.encode_state(state, b"game-id")
            assert codec.decode_state(payload) == (state, b"game-id")


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(min_value=0, max_value=2**64 - 1), variant=st.sampled_from(VARIANTS))
def test_seeded_deals_round_trip(seed: int, variant: str) -> None:
    state, _ = game.new_game(build_rules(variant), players(variant), seed=seed)
    assert codec.decode_state(codec.encode_state(state, b"")) == (state, b"")


def test_serialisation_is_deterministic() -> None:
    state, _ = game.new_game(build_rules("southern", {"stake": 50, "freezing": False}), 4, seed=3)
    assert codec.encode_state(state, b"x") == codec.encode_state(state, b"x")


def test_a_payload_is_the_whole_messages_bytes_when_one_game_id_changes_rules_and_match() -> None:
    """The payload is written in pieces, the per-game ones remembered by game id: a later
    state under the same id with other rules or another match (the next game of the match, or
    anyone's state reusing the id) still gets exactly the mapping's bytes."""
    states = [
        game.new_game(build_rules("southern"), 4, seed=1)[0],
        game.new_game(build_rules("southern", {"stake": 50}), 4, seed=1)[0],
        game.new_game(build_rules("northern"), 4, seed=2)[0],
    ]
    states.append(states[0]._replace(match=states[0].match._replace(totals=(5, -5, 0, 0))))
    states.append(states[0]._replace(match=states[0].match._replace(game_number=2)))
    for state in [*states, *reversed(states)]:
        wanted = codec.state_to_pb(state, b"same-id")
        assert_wire_is_the_message(codec.encode_state(state, b"same-id"), wanted)


def test_a_random_deal_keeps_its_random_seed_marker() -> None:
    state, _ = game.new_game(build_rules("southern"), 4)
    decoded, _ = codec.decode_state(codec.encode_state(state, b""))
    assert decoded.match.seed == -1


def _payload(**fields: object) -> bytes:
    base: dict[str, object] = {
        "variant": "southern",
        "hands": [1, 2],
        "dealt": [1, 2],
        "places": [0, 0],
        "match": state_pb2.MatchState(totals=[0, 0]),
    }
    return state_pb2.GameState(**(base | fields)).SerializeToString()  # type: ignore[arg-type]


def test_a_minimal_consistent_payload_decodes() -> None:
    state, game_id = codec.decode_state(_payload(game_id=b"g", to_act=1, table=0b11, table_seat=0))
    assert state.players == 2
    assert state.table is not None
    assert game_id == b"g"


def test_a_game_dealt_before_a_default_changed_is_played_with_the_old_default() -> None:
    # Revision 1 made 5+ consecutive pairs chop (long_pairs_chop: nothing -> ladder). A token
    # from before revisions were recorded carries no rules_revision: its game keeps "nothing",
    # and its next state is written as that release wrote it (no revision, no new option), so
    # its replicas still read it during a rolling update.
    assert RULES_REVISION >= 1
    old, _ = codec.decode_state(_payload())
    assert (old.rules.long_pairs_chop, old.rules.revision, old.rules.overrides) == (
        "nothing",
        0,
        (),
    )
    assert codec.encode_state(old, b"") == _payload()  # byte for byte what it was
    now, _ = codec.decode_state(_payload(rules_revision=RULES_REVISION))
    assert (now.rules.long_pairs_chop, now.rules.revision) == ("ladder", RULES_REVISION)
    assert state_pb2.GameState.FromString(codec.encode_state(now, b"")).rules_revision == (
        RULES_REVISION
    )


def test_an_old_games_own_override_wins_over_the_pinned_default() -> None:
    mine = [rules_pb2.OptionValue(name="long_pairs_chop", value="ladder")]
    state, _ = codec.decode_state(_payload(overrides=mine))
    assert state.rules.long_pairs_chop == "ladder"


def test_a_state_from_a_newer_rules_revision_keeps_its_revision() -> None:
    newer, _ = codec.decode_state(_payload(rules_revision=RULES_REVISION + 1))
    assert newer.rules.long_pairs_chop == "ladder"  # the defaults this code knows
    again = state_pb2.GameState.FromString(codec.encode_state(newer, b""))
    assert again.rules_revision == RULES_REVISION + 1


@pytest.mark.parametrize(
    "payload",
    [
        b"\xff\xff\xff",
        state_pb2.GameState().SerializeToString(),
        _payload(variant=""),
        _payload(match=state_pb2.MatchState(totals=[0])),
        _payload(places=[0, 0, 0]),
        _payload(places=[0, 5]),  # a place beyond the table: the view would index past its end
        _payload(places=[-1, 0]),
        _payload(places=[-2, 0]),
        _payload(places=[3, 0]),
        _payload(to_act=5),
        _payload(to_act=2),
        _payload(table_seat=-2),
        _payload(instant_winner=2),
        _payload(compensation_seat=-3),
        _payload(match=state_pb2.MatchState(totals=[0, 0], dealer=2)),
        _payload(chain=[state_pb2.ChainLinkState(seat=7, cards=1)]),
        _payload(chain=[state_pb2.ChainLinkState(seat=1, cards=2)]),  # no chop: 1 link
        _payload(hands=[1 << 60, 2]),
        _payload(hands=[1, 4], dealt=[1, 2]),  # a card held that was not dealt
        _payload(hands=[1, 2], dealt=[3, 2]),  # a card dealt twice: one held, not dealt
        _payload(must_include=52),
        _payload(variant="martian"),
        _payload(overrides=[rules_pb2.OptionValue(name="stake", value="lots")]),
        _payload(table=(1 << 0) | (1 << 40)),
        _payload(rules_revision=-1),
    ],
)
def test_payloads_that_hold_no_game_are_refused(payload: bytes) -> None:
    with pytest.raises(StateDecodeError):
        codec.decode_state(payload)


PINNED_PAYLOADS = Path(__file__).with_name("pinned_state_payloads.json")
PINNED_SEEDS = range(20)
PINNED_GAME_IDS = (bytes(range(16)), b"")  # alternately: a game id, and none (proto3 omits it)


def _payload_digests() -> dict[str, dict[str, int | str]]:
    """Per preset, the payloads of every state of matches from seeds 0..19 (and the edge
    states): how many, and the SHA-256 of them all, each prefixed by its length."""
    groups = {v: [s for seed in PINNED_SEEDS for s in match_states(v, seed)] for v in VARIANTS}
    groups["edge values"] = edge_states()
    digests: dict[str, dict[str, int | str]] = {}
    for name, states in groups.items():
        digest = hashlib.sha256()
        for i, state in enumerate(states):
            payload = codec.encode_state(state, PINNED_GAME_IDS[i % 2])
            digest.update(len(payload).to_bytes(4, "big") + payload)
        digests[name] = {"states": len(states), "sha256": digest.hexdigest()}
    return digests


@pytest.mark.parametrize("variant", [*VARIANTS, "edge values"])
def test_a_payload_is_byte_for_byte_the_serialised_state_message(variant: str) -> None:
    """The move's fields are written by hand (`_payload_wire`): every state of random matches
    of every preset, and every edge value, gives exactly the mapping's bytes and message."""
    states = edge_states() if variant == "edge values" else match_states(variant, 31)
    for i, state in enumerate(states):
        game_id = PINNED_GAME_IDS[i % 2]
        wanted = codec.state_to_pb(state, game_id)
        assert_wire_is_the_message(codec.encode_state(state, game_id), wanted)


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_payload_of_a_live_table_is_byte_for_byte_the_serialised_state_message(
    variant: str,
) -> None:
    """The table's people (RULES §9) in the payload: player ids, occupants and bankrolls in the
    match, time-outs, seats on auto, leavers and forfeits, empty seats; and it decodes back."""
    for seed in range(4):
        for i, (state, _) in enumerate(table_steps(variant, seed)):
            game_id = PINNED_GAME_IDS[i % 2]
            payload = codec.encode_state(state, game_id)
            assert_wire_is_the_message(payload, codec.state_to_pb(state, game_id))
            decoded, _ = codec.decode_state(payload)
            assert decoded == state


def test_state_token_payloads_are_byte_for_byte_the_pinned_ones() -> None:
    """The bytes inside every state token stay what they were: the digests were made by the
    hand-written encoder the service used before its payloads were encoded by protobuf, over
    every state of 20 random matches of every preset (some 19,000 states) and the edge values.
    Equal counts with another digest: the encoding changed. Other counts: the games changed
    (an engine fix); then pin them anew (TIENLEN_PIN_PAYLOADS=1) once the change is meant."""
    digests = _payload_digests()
    if os.environ.get("TIENLEN_PIN_PAYLOADS") == "1":
        PINNED_PAYLOADS.write_text(json.dumps(digests, indent=1) + "\n", encoding="utf-8")
    assert digests == json.loads(PINNED_PAYLOADS.read_text(encoding="utf-8"))


def test_a_payload_of_a_game_this_replica_wrote_decodes_from_its_moves_fields_alike() -> None:
    """A replica that serialised a game's kept fields (game id, rules, match) parses only the
    fields a move changes of that game's payloads: the same states as the whole decode."""
    from tienlen_service.codec import state_decode

    game_id = bytes(range(16))
    for variant in VARIANTS:
        for state in match_states(variant, 37)[::5]:
            payload = codec.encode_state(state, game_id)  # remembers the game's runs
            assert codec.decode_state(payload) == (state, game_id)
            assert state_decode._decode_whole(payload) == (state, game_id)
            head = codec.state_to_pb(state, game_id)
            start = (
                len(payload)
                - len(head.SerializeToString(deterministic=True))
                + len(
                    state_pb2.GameState(
                        game_id=game_id, variant=head.variant, overrides=head.overrides
                    ).SerializeToString(deterministic=True)
                )
            )
            seats = state.players
            assert state_decode._seat_masks(payload, start, seats) == (state.hands, state.dealt)
            assert state_decode._seat_masks(payload, start, seats - 1) is None  # not its width


def test_a_payload_whose_kept_fields_differ_from_the_remembered_ones_decodes_whole() -> None:
    """The same game id with other rules, another match, or a payload cut short: the bytes
    around the move's fields are not the ones remembered, so it is decoded whole (or refused)."""
    game_id = bytes(range(16, 32))
    state, _ = game.new_game(build_rules("southern"), 4, seed=41)
    codec.encode_state(state, game_id)
    others = [
        state._replace(match=state.match._replace(totals=(7, -7, 0, 0), dealer=2)),
        state._replace(rules=build_rules("southern", {"stake": 50})),
        state._replace(match=state.match._replace(seed=-1)),
    ]
    for other in others:
        payload = codec.state_to_pb(other, game_id).SerializeToString(deterministic=True)
        assert codec.decode_state(payload) == (other, game_id)
    whole = codec.encode_state(state, game_id)
    for cut in (1, 5, len(whole) // 2):
        with pytest.raises(StateDecodeError):
            codec.decode_state(whole[:-cut])


def test_a_matchs_secret_and_its_replayed_mark_are_in_the_payload_byte_for_byte() -> None:
    """A match's secret rides with its id (`game_ids.GameId`) and a replayed match says so
    (`Match.replayed`): both written after the fields a move changes, as protobuf writes
    them, and read back; a payload without them (a match older than both) is read as one
    with no secret, not replayed."""
    secret_id = GameId(b"i" * 16, b"s" * 16)
    for variant in VARIANTS:
        for state in match_states(variant, 1)[::10]:
            for marked in (state, state._replace(match=state.match._replace(replayed=True))):
                for game_id in (secret_id, GameId(b"i" * 16), b"plain-id"):
                    wanted = codec.state_to_pb(marked, game_id)
                    payload = codec.encode_state(marked, game_id)
                    assert_wire_is_the_message(payload, wanted)
                    decoded, decoded_id = codec.decode_state(payload)
                    assert decoded == marked
                    assert decoded_id == game_id
                    assert decoded_id.secret == getattr(game_id, "secret", b"")  # type: ignore[attr-defined]
    with pytest.raises(StateDecodeError, match="secret"):
        codec.decode_state(state_pb2.GameState(match_secret=b"short").SerializeToString())


def test_a_live_tables_payload_with_a_secret_is_read_fast_and_exactly() -> None:
    """A replica reads back what it wrote from the move's fields alone (`state_decode`): at a
    live table the move's fields, the match and the table's people (time-outs, leavers) come
    in that order before the secret, and the fast read gives the same state as the whole."""
    secret_id = GameId(b"t" * 16, b"k" * 16)
    for variant in VARIANTS:
        for state, _ in table_steps(variant, 2)[::5]:
            payload = codec.encode_state(state, secret_id)  # this replica's runs, cached
            fast, fast_id = codec.decode_state(payload)
            assert fast == state
            assert fast_id.secret == secret_id.secret  # type: ignore[attr-defined]
