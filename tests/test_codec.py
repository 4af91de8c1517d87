"""The codec: engine values <-> tienlen.v1 messages, the state <-> token payload, the state
cache, and the view's and the events' fast paths byte for byte against their mappings."""

from __future__ import annotations

import hashlib
import json
import os
import random
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tienlen.v1 import (
    cards_pb2,
    events_pb2,
    game_pb2,
    moves_pb2,
    rules_pb2,
    service_pb2,
    state_pb2,
)
from tienlen_rules import events as ev
from tienlen_rules import game
from tienlen_rules.cards import cards_of, parse_card, parse_set
from tienlen_rules.errors import CardParseError, SetupError
from tienlen_rules.options import OPTIONS
from tienlen_rules.presets import PRESETS
from tienlen_rules.revisions import RULES_REVISION
from tienlen_rules.ruleset import build_rules
from tienlen_rules.seat_view import SPECTATOR, SeatView, view
from tienlen_rules.settlement import settle
from tienlen_rules.state import ChopPayment, GameState, Match, Move
from tienlen_service import codec
from tienlen_service.codec import FieldError, StateDecodeError
from tienlen_service.codec import _wire as wire
from tienlen_service.game_ids import GameId
from tienlen_service.state_cache import StateCache

VARIANTS = tuple(PRESETS)


def _players(variant: str) -> int:
    return 3 if variant == "dau" else 4


def random_game(variant: str, seed: int, rng: random.Random) -> list[GameState]:
    """Every state of one game played with random legal moves."""
    rules = build_rules(variant)
    state, _ = game.new_game(rules, _players(variant), seed=seed)
    states = [state]
    while not state.over and len(states) < 400:
        candidates = [
            (seat, m) for seat in range(state.players) for m in game.legal_moves(state, seat)
        ]
        _, move = rng.choice(candidates)
        state, _ = game.apply(state, move)
        states.append(state)
    return states


# --- cards -------------------------------------------------------------------------------------


def test_every_card_maps_to_rank_and_suit_enums_and_back() -> None:
    for card in range(52):
        pb = codec.card_to_pb(card)
        assert pb.rank == card // 4 + 1
        assert pb.suit == card % 4 + 1
        assert codec.card_from_pb(pb, "card") == card


def test_card_enums_follow_the_rule_book_order() -> None:
    assert codec.card_to_pb(parse_card("3S")) == cards_pb2.Card(
        rank=cards_pb2.RANK_THREE, suit=cards_pb2.SUIT_SPADES
    )
    assert codec.card_to_pb(parse_card("10D")) == cards_pb2.Card(
        rank=cards_pb2.RANK_TEN, suit=cards_pb2.SUIT_DIAMONDS
    )
    assert codec.card_to_pb(parse_card("2H")) == cards_pb2.Card(
        rank=cards_pb2.RANK_TWO, suit=cards_pb2.SUIT_HEARTS
    )


def test_card_text_round_trips_through_the_wire_form() -> None:
    cases = {"3S": "3S", "10D": "10D", "TD": "10D", "qh": "QH", "2H": "2H", "3♠": "3S", "aC": "AC"}
    for text, canonical in cases.items():
        assert codec.card_to_text(codec.card_from_text(text)) == canonical


@pytest.mark.parametrize(
    ("card", "field"),
    [
        (
            cards_pb2.Card(rank=cards_pb2.RANK_UNSPECIFIED, suit=cards_pb2.SUIT_HEARTS),
            "move.cards[0].rank",
        ),
        (
            cards_pb2.Card(rank=cards_pb2.RANK_ACE, suit=cards_pb2.SUIT_UNSPECIFIED),
            "move.cards[0].suit",
        ),
        (
            cards_pb2.Card(rank=cards_pb2.Rank.ValueType(14), suit=cards_pb2.SUIT_SPADES),
            "move.cards[0].rank",
        ),
        (
            cards_pb2.Card(rank=cards_pb2.RANK_THREE, suit=cards_pb2.Suit.ValueType(-3)),
            "move.cards[0].suit",
        ),
    ],
)
def test_an_invalid_wire_card_names_its_field(card: cards_pb2.Card, field: str) -> None:
    with pytest.raises(FieldError) as info:
        codec.cards_from_pb([card], "move.cards")
    assert info.value.reason == "INVALID_CARD"
    assert info.value.field == field


def test_card_text_errors_are_parse_errors() -> None:
    with pytest.raises(CardParseError):
        codec.card_from_text("1X")
    with pytest.raises(CardParseError):
        codec.card_to_text(cards_pb2.Card())


def test_a_card_listed_twice_in_an_explicit_hand_is_an_invalid_deal() -> None:
    hand = [codec.card_to_pb(parse_card("3S")), codec.card_to_pb(parse_card("3S"))]
    with pytest.raises(SetupError) as info:
        codec.hand_from_pb(hand, "explicit.hands[0].cards")
    assert info.value.code == "INVALID_DEAL"
    assert info.value.field == "explicit.hands[0].cards[1]"


def test_plays_keep_duplicates_so_the_engine_can_refuse_them() -> None:
    three = codec.card_to_pb(parse_card("3S"))
    move = codec.move_from_pb(moves_pb2.Move(play=moves_pb2.Play(cards=[three, three])), 1)
    assert move.cards == (0, 0)
    assert move.seat == 1


def test_a_move_without_play_or_pass_is_a_field_error() -> None:
    with pytest.raises(FieldError) as info:
        codec.move_from_pb(moves_pb2.Move(), 0)
    assert info.value.field == "move"


# --- rules -------------------------------------------------------------------------------------


def test_rule_spec_round_trips_through_the_wire() -> None:
    rules = codec.rules_from_pb(rules_pb2.RuleSetSpec(variant="hue", options={"stake": "50"}))
    assert rules.variant == "hue"
    assert rules.stake == 50
    assert codec.rules_from_pb(codec.rules_to_pb(rules)) == rules


def test_the_spec_of_a_game_dealt_before_a_default_changed_names_the_value_it_keeps() -> None:
    # A client reads a view's rules against today's defaults; dealt anew, the spec plays the
    # same rules as the old game.
    old = build_rules("southern", {"stake": "50"}, revision=0)
    spec = codec.rules_to_pb(old)
    assert dict(spec.options) == {"stake": "50", "long_pairs_chop": "nothing"}
    assert codec.rules_from_pb(spec).option_values() == old.option_values()
    mine = build_rules("southern", {"long_pairs_chop": "ladder"}, revision=0)
    assert dict(codec.rules_to_pb(mine).options) == {"long_pairs_chop": "ladder"}


def test_an_empty_variant_means_southern() -> None:
    assert codec.rules_from_pb(rules_pb2.RuleSetSpec()).variant == "southern"


@pytest.mark.parametrize(
    ("spec", "code", "field"),
    [
        (rules_pb2.RuleSetSpec(variant="martian"), "UNKNOWN_VARIANT", "rules.variant"),
        (rules_pb2.RuleSetSpec(options={"nope": "1"}), "UNKNOWN_OPTION", "rules.options.nope"),
        (
            rules_pb2.RuleSetSpec(options={"stake": "many"}),
            "INVALID_OPTION_VALUE",
            "rules.options.stake",
        ),
        (rules_pb2.RuleSetSpec(options={"stake": "1"}), "FRACTIONAL_AMOUNT", "rules.options.stake"),
        (
            rules_pb2.RuleSetSpec(options={"place_last_to_first": "99999999999"}),
            "AMOUNT_TOO_LARGE",
            "rules.options.place_last_to_first",
        ),
    ],
)
def test_rules_that_cannot_exist_name_the_field(
    spec: rules_pb2.RuleSetSpec, code: str, field: str
) -> None:
    with pytest.raises(SetupError) as info:
        codec.rules_from_pb(spec)
    assert (info.value.code, info.value.field) == (code, field)


def test_every_option_is_described() -> None:
    described = [codec.option_to_pb(spec) for spec in OPTIONS]
    assert [o.name for o in described] == [o.name for o in OPTIONS]
    assert all(o.description and o.type != rules_pb2.OPTION_TYPE_UNSPECIFIED for o in described)


def test_every_variant_lists_every_option_value() -> None:
    variants = codec.variants_to_pb()
    assert [v.name for v in variants] == list(PRESETS)
    for variant in variants:
        assert len(variant.option_values) == len(OPTIONS)
        rules = build_rules(variant.name, {o.name: o.value for o in variant.overrides})
        assert rules.option_values() == build_rules(variant.name).option_values()
    assert not variants[0].overrides  # southern is the default


# --- state <-> payload -------------------------------------------------------------------------


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
    state, _ = game.new_game(build_rules(variant), _players(variant), seed=seed)
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
        wanted = codec.state_to_pb(state, b"same-id").SerializeToString(deterministic=True)
        assert codec.encode_state(state, b"same-id") == wanted


def test_a_matchs_secret_and_its_replayed_mark_are_in_the_payload_byte_for_byte() -> None:
    """A match's secret rides with its id (`game_ids.GameId`) and a replayed match says so
    (`Match.replayed`): both written after the fields a move changes, as protobuf writes
    them, and read back; a payload without them (a match older than both) is read as one
    with no secret, not replayed."""
    secret_id = GameId(b"i" * 16, b"s" * 16)
    rng = random.Random("secrets")
    for variant in VARIANTS:
        for state in random_game(variant, 1, rng)[::10]:
            for marked in (state, state._replace(match=state.match._replace(replayed=True))):
                for game_id in (secret_id, GameId(b"i" * 16), b"plain-id"):
                    wanted = codec.state_to_pb(marked, game_id).SerializeToString(
                        deterministic=True
                    )
                    payload = codec.encode_state(marked, game_id)
                    assert payload == wanted
                    decoded, decoded_id = codec.decode_state(payload)
                    assert decoded == marked
                    assert decoded_id == game_id
                    assert decoded_id.secret == getattr(game_id, "secret", b"")  # type: ignore[attr-defined]
    with pytest.raises(StateDecodeError, match="secret"):
        codec.decode_state(state_pb2.GameState(match_secret=b"short").SerializeToString())


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
        _payload(to_act=5),
        _payload(table_seat=-2),
        _payload(chain=[state_pb2.ChainLinkState(seat=7, cards=1)]),
        _payload(chain=[state_pb2.ChainLinkState(seat=1, cards=2)]),  # no chop: 1 link
        _payload(hands=[1 << 60, 2]),
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


def _match_states(variant: str, seed: int) -> list[GameState]:
    """Every state of a random game, then of the match's next game (match totals that are not
    zero, some negative; a dealer and a game number)."""
    rng = random.Random(seed)
    first = random_game(variant, seed, rng)
    if not first[-1].over:
        return first
    state, _ = game.next_game(first[-1], seed=seed + 1)
    states = [state]
    while not state.over and len(states) < 400:
        seat = state.to_act
        state, _ = game.apply(state, rng.choice(game.legal_moves(state, seat)))
        states.append(state)
    return first + states


def _edge_states() -> list[GameState]:
    """Fields random matches rarely reach: states of random games up to the first chop chain,
    freeze and instant win, then every field pushed to its edge values (payloads encode fields,
    whatever game they come from)."""
    wanted = {"chain", "chop", "frozen", "instant win"}
    seen: list[GameState] = []
    for seed in range(400):
        for state in random_game("southern", seed, random.Random(seed)):
            found = {
                "chain": bool(state.chain),
                "chop": bool(state.chop_payments),
                "frozen": bool(state.frozen),
                "instant win": state.instant_winner >= 0,
            }
            if any(found[k] for k in wanted):
                wanted -= {k for k, v in found.items() if v}
                seen.append(state)
        if not wanted:
            break
    assert not wanted, f"no random game reached {wanted}"
    base = seen[0]
    edges = [
        base._replace(chain_victim_out=True, steal_open=True, first_game=False),
        base._replace(to_act=-1, table_seat=-1, must_include=51, instant_winner=3),
        base._replace(instant_pattern="tứ quý heo", compensation_seat=2, move_count=10**6),
        base._replace(chain=((0, 0), (3, (1 << 52) - 1)), passed=0b1111, frozen=0b1010),
        base._replace(
            chop_payments=(ChopPayment(-1, 0, 0, 0), ChopPayment(3, 2, 2**62, (1 << 52) - 1))
        ),
        base._replace(match=Match(2**31 - 1, (-(2**62), 0, 5, -1), 2**64 - 1, 3)),
        base._replace(match=Match(0, (0, 0, 0, 0), 0, 0), places=(0, -1, 4, 0)),
    ]
    return [*seen, *edges]


PINNED_PAYLOADS = Path(__file__).with_name("pinned_state_payloads.json")
PINNED_SEEDS = range(20)
PINNED_GAME_IDS = (bytes(range(16)), b"")  # alternately: a game id, and none (proto3 omits it)


def _payload_digests() -> dict[str, dict[str, int | str]]:
    """Per preset, the payloads of every state of matches from seeds 0..19 (and the edge
    states): how many, and the SHA-256 of them all, each prefixed by its length."""
    groups = {v: [s for seed in PINNED_SEEDS for s in _match_states(v, seed)] for v in VARIANTS}
    groups["edge values"] = _edge_states()
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
    """The move's fields are written by hand (`_move_wire`): every state of random matches
    of every preset, and every edge value, gives exactly the mapping's bytes."""
    states = _edge_states() if variant == "edge values" else _match_states(variant, 31)
    for i, state in enumerate(states):
        game_id = PINNED_GAME_IDS[i % 2]
        wanted = codec.state_to_pb(state, game_id).SerializeToString(deterministic=True)
        assert codec.encode_state(state, game_id) == wanted


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


# --- the state cache ----------------------------------------------------------------------------


class _Signer:
    """A stand-in token codec: a token is b"T" + payload; counts the verifications."""

    def __init__(self) -> None:
        self.verified = 0

    def sign(self, payload: bytes) -> bytes:
        return b"T" + payload

    def verify(self, token: bytes) -> bytes:
        self.verified += 1
        if not token.startswith(b"T"):
            raise ValueError("not a token")
        return token[1:]


def test_a_token_this_replica_signed_is_neither_verified_nor_decoded_again() -> None:
    cache, signer = StateCache(), _Signer()
    state, _ = game.new_game(build_rules("southern"), 4, seed=4)
    token = cache.encode(state, b"g", signer.sign)
    assert token == b"T" + codec.encode_state(state, b"g")
    hit = cache.decode(token, signer.verify)
    assert hit[0] is state  # remembered, not rebuilt
    assert hit == codec.decode_state(token[1:])
    assert signer.verified == 0


def test_a_verified_token_is_remembered_for_the_next_decode_of_the_same_token() -> None:
    cache, signer = StateCache(), _Signer()
    state, _ = game.new_game(build_rules("northern"), 4, seed=5)
    token = signer.sign(codec.encode_state(state, b"g"))  # another replica's
    first = cache.decode(token, signer.verify)
    assert first == (state, b"g")
    assert cache.decode(token, signer.verify)[0] is first[0]
    assert signer.verified == 1


def test_the_state_cache_forgets_the_oldest_state_beyond_its_size() -> None:
    cache, signer = StateCache(size=2), _Signer()
    states = [game.new_game(build_rules("southern"), 4, seed=s)[0] for s in range(3)]
    tokens = [cache.encode(s, b"g", signer.sign) for s in states]
    assert len(cache) == 2
    assert cache.decode(tokens[2], signer.verify)[0] is states[2]
    assert signer.verified == 0
    again = cache.decode(tokens[0], signer.verify)  # forgotten: verified and decoded anew
    assert again == (states[0], b"g")
    assert again[0] is not states[0]
    assert signer.verified == 1
    with pytest.raises(ValueError, match="at least one"):
        StateCache(size=0)


def test_a_refused_token_or_a_payload_that_holds_no_game_is_not_remembered() -> None:
    cache, signer = StateCache(), _Signer()
    with pytest.raises(ValueError, match="not a token"):
        cache.decode(
            b"X" + codec.encode_state(game.new_game(build_rules("southern"), 4, seed=1)[0], b"g"),
            signer.verify,
        )
    with pytest.raises(StateDecodeError):
        cache.decode(b"T\xff\xff\xff", signer.verify)
    assert len(cache) == 0


def test_threads_sharing_a_state_cache_get_their_own_states() -> None:
    cache, signer = StateCache(size=8), _Signer()
    states = [game.new_game(build_rules("southern"), 4, seed=s)[0] for s in range(40)]
    tokens = [signer.sign(codec.encode_state(s, b"g")) for s in states]
    errors: list[int] = []

    def work(offset: int) -> None:
        for i in range(400):
            k = (i * 7 + offset) % len(states)
            if cache.decode(tokens[k], signer.verify)[0] != states[k]:
                errors.append(k)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(cache) <= 8


# --- events, settlement, views -------------------------------------------------------------------


def sent_events(events: tuple[ev.Event, ...]) -> list[events_pb2.Event]:
    """The wire events the service sends, as messages."""
    return list(game_pb2.GameUpdate.FromString(codec.events_to_wire(events)).events)


def sent_view(seat_view: SeatView, state: GameState) -> game_pb2.TableView:
    """The wire view the service sends, as a message."""
    return game_pb2.TableView.FromString(codec.view_to_wire(seat_view, state))


def test_events_map_one_to_one_and_never_carry_hands() -> None:
    rng = random.Random(5)
    rules = build_rules("southern")
    state, events = game.new_game(rules, 4, seed=11)
    seen: set[str] = set()
    while True:
        wire = sent_events(events)
        assert len(wire) == len(events)
        for event in wire:
            kind = event.WhichOneof("kind")
            assert kind is not None
            seen.add(kind)
        if state.over:
            break
        candidates = [(seat, m) for seat in range(4) for m in game.legal_moves(state, seat)]
        state, events = game.apply(state, rng.choice(candidates)[1])
    assert {"game_started", "played", "turn_passed", "game_over", "player_finished"} <= seen
    assert "held_beat" not in events_pb2.Passed.DESCRIPTOR.fields_by_name


def test_a_played_event_carries_its_combination() -> None:
    hands = [parse_set("3S 3C 4D"), parse_set("5S 6S"), parse_set("7H"), parse_set("8H")]
    state, _ = game.new_game(build_rules("southern"), 4, hands=hands)
    state, events = game.apply(state, Move(0, (0, 1), is_pass=False))
    played = sent_events(events)[0].played
    assert played.seat == 0
    assert played.combination.type == moves_pb2.COMBINATION_TYPE_PAIR
    assert [codec.card_to_text(c) for c in played.combination.cards] == ["3S", "3C"]
    assert codec.card_to_text(played.combination.top) == "3C"
    assert played.cards_left == 1


def test_settlement_maps_every_transfer() -> None:
    hands = [parse_set("3S"), parse_set("4S 2H")]
    state, _ = game.new_game(build_rules("southern"), 2, hands=hands)
    state, _ = game.apply(state, Move(0, (0,), is_pass=False))
    assert state.over
    engine = settle(state)
    wire = codec.settlement_to_pb(engine)
    assert list(wire.net) == list(engine.net)
    assert list(wire.places) == list(engine.places)
    assert [(t.payer, t.payee, t.amount) for t in wire.transfers] == [
        (t.payer, t.payee, t.amount) for t in engine.transfers
    ]
    assert wire.zero_sum
    assert {t.reason for t in wire.transfers} <= set(range(1, 10))
    assert [r.label for r in wire.rotten] == [r.label for r in engine.rotten]


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_view_lists_the_played_cards_and_the_viewers_hand_weakest_first(variant: str) -> None:
    for state in random_game(variant, 11, random.Random(variant))[::7]:
        for seat in (-1, *range(state.players)):
            wire = sent_view(view(state, seat), state)
            assert list(wire.played) == codec.cards_to_pb(state.played)
            hand = state.hands[seat] if seat >= 0 else 0
            assert list(wire.hand) == codec.cards_to_pb(hand)
            assert wire.rules == codec.rules_to_pb(state.rules)


def test_a_spectator_view_has_no_hand_and_a_seat_view_only_its_own() -> None:
    state, _ = game.new_game(build_rules("southern"), 4, seed=9)
    spectator = sent_view(view(state, -1), state)
    assert not spectator.HasField("seat")
    assert len(spectator.hand) == 0
    assert [s.cards_left for s in spectator.seats] == [13] * 4
    for seat in range(4):
        mine = sent_view(view(state, seat), state)
        assert mine.seat == seat
        held = {codec.card_from_pb(c, "hand") for c in mine.hand}
        assert held == set(cards_of(state.hands[seat]))
        others = 0
        for other in range(4):
            if other != seat:
                others |= state.hands[other]
        assert not any(others >> c & 1 for c in held)


# --- the fast paths (codec._wire) byte for byte against the mappings ---------------------------


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_wire_view_is_byte_for_byte_the_serialised_view_message(variant: str) -> None:
    states = _match_states(variant, 23)[::3]
    for state in [*states, *map(_replayed, states[::4])]:
        for seat in (-1, *range(state.players)):
            seat_view = view(state, seat)
            wanted = codec.view_to_pb(seat_view, state).SerializeToString(deterministic=True)
            assert codec.view_to_wire(seat_view, state) == wanted


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_spectator_view_of_every_answer_is_the_engines_spectator_view(variant: str) -> None:
    """The answers write the spectator's view from the state (no SeatView built first): it
    must be byte for byte the view of the engine's `view(state, SPECTATOR)`, hand-less."""
    for state in _match_states(variant, 29):
        wanted = codec.view_to_wire(view(state, SPECTATOR), state)
        assert codec.spectator_view_to_wire(state) == wanted
        assert not game_pb2.TableView.FromString(wanted).hand


@pytest.mark.parametrize("pass_lockout", ["true", "false"])
@pytest.mark.parametrize("lead_stealing", ["true", "false"])
@pytest.mark.parametrize("steal_winner_pairs_lead", ["true", "false"])
def test_a_wire_view_carries_the_rule_values_a_follower_needs(
    pass_lockout: str, lead_stealing: str, steal_winner_pairs_lead: str
) -> None:
    """Every follow_rules value, each set and unset (an empty FollowRules is still written:
    its presence says the service resolved them)."""
    overrides = {
        "pass_lockout": pass_lockout,
        "lead_stealing": lead_stealing,
        "steal_winner_pairs_lead": steal_winner_pairs_lead,
    }
    state, _ = game.new_game(
        build_rules("southern", overrides), 4, seed=3, first_game=False, leader=0
    )
    for seat in (-1, 0):
        seat_view = view(state, seat)
        wire_bytes = codec.view_to_wire(seat_view, state)
        wanted = codec.view_to_pb(seat_view, state).SerializeToString(deterministic=True)
        assert wire_bytes == wanted
        follow = game_pb2.TableView.FromString(wire_bytes)
        assert follow.HasField("follow_rules")
        assert follow.follow_rules == game_pb2.FollowRules(
            pass_lockout=pass_lockout == "true",
            lead_stealing=lead_stealing == "true",
            steal_winner_pairs_lead=steal_winner_pairs_lead == "true",
        )


def test_a_wire_view_covers_negative_totals_a_dealer_and_a_finished_game() -> None:
    states = _match_states("southern", 5)
    assert any(min(s.match.totals) < 0 for s in states)
    assert any(s.match.dealer > 0 for s in states)
    assert states[-1].over


def _replayed(state: GameState) -> GameState:
    """The same state in a match replayed from a record (`Match.replayed`)."""
    return state._replace(match=state.match._replace(replayed=True))


def _match_steps(variant: str, seed: int) -> list[tuple[GameState, tuple[ev.Event, ...]]]:
    """Every step (the state after it, its events) of a random game and of the match's next
    game: deals, plays, passes, out-of-turn chops, game ends with their settlements."""
    rng = random.Random(seed)
    state, events = game.new_game(build_rules(variant), _players(variant), seed=seed)
    steps = [(state, events)]
    for _ in range(2):
        while not state.over:
            seat = rng.randrange(state.players)
            moves = game.legal_moves(state, seat) or game.legal_moves(state, state.to_act)
            state, events = game.apply(state, rng.choice(moves))
            steps.append((state, events))
        state, events = game.next_game(state, seed=seed + 1)
        steps.append((state, events))
    return steps


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_wire_update_is_byte_for_byte_the_serialised_update_message(variant: str) -> None:
    """Every answer that moves a game sends `update_to_wire`'s bytes as they are: they must be
    the mapping's, with the view and without it (UPDATE_VIEW_BASIC), and so must the answers
    of ApplyMove and PlayStream (one move, or a batch) that hold them."""
    token, game_id = bytes(range(200)), b"\x07" * codec.GAME_ID_BYTES
    for seed in range(3):
        steps = _match_steps(variant, seed)
        for state, events in [*steps, *((_replayed(s), e) for s, e in steps[::7])]:
            for with_view in (True, False):
                wanted = codec.update_to_pb(token, game_id, state, events, with_view=with_view)
                update = codec.update_to_wire(token, game_id, state, events, with_view=with_view)
                assert update == wanted.SerializeToString(deterministic=True)
                answer = service_pb2.ApplyMoveResponse(game=wanted)
                assert codec.apply_answer_wire(update) == answer.SerializeToString()
                for tag in ("", "table 7 · move 12"):
                    streamed = service_pb2.PlayStreamResponse(tag=tag, applied=answer)
                    wire_answer = codec.stream_applied_wire(tag, answer.SerializeToString())
                    assert wire_answer == streamed.SerializeToString(deterministic=True)
                    batched = service_pb2.PlayStreamResponse(tag=tag, batch=[streamed, streamed])
                    assert codec.stream_batch_wire(
                        tag, [wire_answer, wire_answer]
                    ) == batched.SerializeToString(deterministic=True)


def test_a_wire_update_of_a_finished_game_carries_its_settlement_and_no_seat_to_act() -> None:
    state, events = _match_steps("southern", 4)[-2]
    assert state.over
    update = game_pb2.GameUpdate.FromString(
        codec.update_to_wire(b"token", b"id", state, events, with_view=False)
    )
    assert update.finished
    assert not update.HasField("to_act")
    assert not update.HasField("view")
    assert update.settlement == codec.settlement_to_pb(settle(state))


@pytest.mark.parametrize(
    "value", [0, 1, 127, 128, 300, 2**31 - 1, -1, -(2**31), 2**63 - 1, -(2**63), 2**64 - 1]
)
def test_varints_match_protobuf_for_every_width_and_sign(value: int) -> None:
    if value != 0 and value < 2**63:  # a proto3 int64 of 0 is not written at all
        as_int64 = game_pb2.SeatStatus(match_total=value).SerializeToString()
        assert as_int64 == wire.tag(game_pb2.SeatStatus, "match_total") + wire.varint(value)
    if value >= 0:  # the seed is optional: a 0 is written
        as_uint64 = state_pb2.MatchState(seed=value).SerializeToString()
        assert as_uint64 == wire.tag(state_pb2.MatchState, "seed") + wire.varint(value)


def test_tags_follow_the_descriptors_and_only_for_encodings_written_by_hand() -> None:
    sizes = events_pb2.GameStarted(hand_sizes=[13, 13, 1]).SerializeToString()
    assert sizes == wire.packed_varints(wire.tag(events_pb2.GameStarted, "hand_sizes"), [13, 13, 1])
    with pytest.raises(KeyError):
        wire.tag(state_pb2.GameState, "no_such_field")
    with pytest.raises(ValueError, match="no hand encoding"):  # a double: nothing writes one
        wire.tag(service_pb2.BotLevel, "strength_vs_greedy")


@pytest.mark.parametrize("value", [0, 1, -1, 2, -2, 51, 2**31 - 1, -(2**31)])
def test_zigzag_varints_match_protobuf_for_every_sign(value: int) -> None:
    wanted = state_pb2.GameState(to_act=value).SerializeToString()
    assert wire.sint_field(wire.tag(state_pb2.GameState, "to_act"), value) == wanted


@pytest.mark.parametrize("value", [0, 1, 2**52 - 1, 2**64 - 1])
def test_fixed64s_match_protobuf_alone_and_packed(value: int) -> None:
    table = state_pb2.GameState(table=value).SerializeToString()
    assert wire.fixed64(wire.tag(state_pb2.GameState, "table"), value) == table
    for count in (0, 1, 4, 20):  # 20: past the prebuilt packers
        hands = (value,) * count
        wanted = state_pb2.GameState(hands=hands).SerializeToString()
        assert wire.packed_fixed64(wire.tag(state_pb2.GameState, "hands"), hands) == wanted


def _random_events(variant: str, seed: int) -> list[ev.Event]:
    """Every event of a random game and of the match's next game."""
    return [event for _, events in _match_steps(variant, seed) for event in events]


@pytest.mark.parametrize("variant", VARIANTS)
def test_wire_events_are_byte_for_byte_the_serialised_event_messages(variant: str) -> None:
    events = [e for seed in range(6) for e in _random_events(variant, seed)]
    wanted = game_pb2.GameUpdate(events=[codec.event_to_pb(e) for e in events])
    assert codec.events_to_wire(events) == wanted.SerializeToString(deterministic=True)


def test_wire_events_cover_every_kind_and_edge_values() -> None:
    events = [e for seed in range(60) for e in _random_events("southern", seed)]
    events += [
        ev.ChopSettled(-1, 3, 2**62, (1 << 52) - 1, 7, True),
        ev.ChopSettled(0, 0, 0, 0, 0),
        ev.InstantWin(3, "tứ quý heo"),
        ev.InstantWin(0, ""),
        ev.GameStarted(2**31 - 1, 0, -1, first_game=False, dealer=3, hand_sizes=()),
        ev.PlayersFrozen((), ()),
        ev.Passed(0, held_beat=1),
        ev.TurnPassed(0),
        ev.RoundWon(0, 0),
        ev.PlayerFinished(0, 0, ranked_last=True),
        ev.GameOver(()),
    ]
    kinds = {type(e) for e in events}
    assert len(kinds) == len(events_pb2.Event.DESCRIPTOR.oneofs_by_name["kind"].fields)
    for event in events:
        wanted = game_pb2.GameUpdate(events=[codec.event_to_pb(event)])
        assert codec.events_to_wire([event]) == wanted.SerializeToString(deterministic=True)
