"""The hand-written wire encodings (codec._wire and the fast paths) against their mappings: the
bytes protobuf would write, and the same messages once parsed."""

from __future__ import annotations

import pytest
from helpers.codec_games import (
    VARIANTS,
    assert_wire_is_the_message,
    match_states,
    match_steps,
    random_events,
    table_steps,
)
from helpers.tables import cards, later

import tienlen_rules as game
from tienlen.v1 import events_pb2, game_pb2, service_pb2, state_pb2
from tienlen_rules import events as ev
from tienlen_rules.ruleset import build_rules
from tienlen_rules.seat_view import SPECTATOR, view
from tienlen_rules.settlement import settle
from tienlen_service import codec
from tienlen_service.codec import _wire as wire


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_wire_view_is_byte_for_byte_the_serialised_view_message(variant: str) -> None:
    for state in match_states(variant, 23)[::3]:
        for seat in (-1, *range(state.players)):
            seat_view = view(state, seat)
            wanted = codec.view_to_pb(seat_view, state)
            assert_wire_is_the_message(codec.view_to_wire(seat_view, state), wanted)


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_spectator_view_of_every_answer_is_the_engines_spectator_view(variant: str) -> None:
    """The answers write the spectator's view from the state (no SeatView built first): it
    must be byte for byte the view of the engine's `view(state, SPECTATOR)`, hand-less."""
    for state in match_states(variant, 29):
        wanted = codec.view_to_pb(view(state, SPECTATOR), state)
        assert_wire_is_the_message(codec.spectator_view_to_wire(state), wanted)
        assert not wanted.hand


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
        assert_wire_is_the_message(wire_bytes, codec.view_to_pb(seat_view, state))
        follow = game_pb2.TableView.FromString(wire_bytes)
        assert follow.HasField("follow_rules")
        assert follow.follow_rules == game_pb2.FollowRules(
            pass_lockout=pass_lockout == "true",
            lead_stealing=lead_stealing == "true",
            steal_winner_pairs_lead=steal_winner_pairs_lead == "true",
        )


def test_a_wire_view_covers_negative_totals_a_dealer_and_a_finished_game() -> None:
    states = match_states("southern", 5)
    assert any(min(s.match.totals) < 0 for s in states)
    assert any(s.match.dealer > 0 for s in states)
    assert states[-1].over


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_wire_update_is_byte_for_byte_the_serialised_update_message(variant: str) -> None:
    """Every answer that moves a game sends `update_to_wire`'s bytes as they are: they must be
    the mapping's, with the view and without it (UPDATE_VIEW_BASIC), and so must the answers
    of ApplyMove and PlayStream (one move, or a batch) that hold them."""
    token, game_id = bytes(range(200)), b"\x07" * codec.GAME_ID_BYTES
    for seed in range(3):
        steps = match_steps(variant, seed)
        replayed = [(s._replace(match=s.match._replace(replayed=True)), e) for s, e in steps[::7]]
        for state, events in [*steps, *replayed]:
            for with_view in (True, False):
                wanted = codec.update_to_pb(token, game_id, state, events, with_view=with_view)
                update = codec.update_to_wire(token, game_id, state, events, with_view=with_view)
                assert_wire_is_the_message(update, wanted)
                answer = service_pb2.ApplyMoveResponse(game=wanted)
                assert_wire_is_the_message(codec.apply_answer_wire(update), answer)
                for tag in ("", "table 7 · move 12"):
                    streamed = service_pb2.PlayStreamResponse(tag=tag, applied=answer)
                    wire_answer = codec.stream_applied_wire(tag, answer.SerializeToString())
                    assert_wire_is_the_message(wire_answer, streamed)
                    result = service_pb2.StreamMoveResult(tag=tag, applied=answer)
                    batched = service_pb2.PlayStreamResponse(
                        tag=tag, batch=service_pb2.MoveBatchResult(results=[result, result])
                    )
                    assert_wire_is_the_message(
                        codec.stream_batch_wire(tag, [wire_answer, wire_answer]), batched
                    )


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_wire_update_of_a_live_table_is_byte_for_byte_the_serialised_update_message(
    variant: str,
) -> None:
    """The table's people (RULES §9): player ids, bankrolls and cut payments, time-outs and
    seats on auto, leavers and forfeits, empty seats after a seat change, and the seats that
    could chop out of turn, given to the host (`chops`) or not."""
    token, game_id = b"t" * 90, b"\x01" * codec.GAME_ID_BYTES
    seen = {"empty": variant == "dau", "auto": False, "left": False, "owed": False}
    for seed in range(4):
        for state, events in table_steps(variant, seed):
            for with_view, chops in ((True, True), (True, False), (False, True)):
                wanted = codec.update_to_pb(
                    token, game_id, state, events, with_view=with_view, chops=chops
                )
                update = codec.update_to_wire(
                    token, game_id, state, events, with_view=with_view, chops=chops
                )
                assert_wire_is_the_message(update, wanted)
                seen["owed"] |= any(t.owed for t in wanted.settlement.transfers)
                if with_view and chops:
                    statuses = wanted.view.seats
                    seen["empty"] |= any(s.empty for s in statuses)
                    seen["auto"] |= any(s.auto for s in statuses)
                    seen["left"] |= any(s.left for s in statuses)
                    assert list(wanted.view.chop_seats) == list(wanted.chop_seats)
                if not chops:
                    assert not wanted.chop_seats
                    assert not wanted.view.chop_seats
    assert all(seen.values()), seen


def test_the_seats_that_could_chop_out_of_turn_are_written_for_the_host_only() -> None:
    # Seats 2 and 3 hold 4 consecutive pairs, which chop seat 0's 2 out of turn (RULES §9.5).
    table = later(
        "southern", "2S 9D", "8H 9H", "3C 3D 4C 4D 5C 5D 6C 6D", "7C 7D 8C 8D 9C 9S 10C 10D"
    )
    state, events = game.apply(table.state, game.play(0, [cards("2S").bit_length() - 1]))
    for chops in (True, False):
        wanted = codec.update_to_pb(b"t", b"g", state, events, chops=chops)
        assert_wire_is_the_message(
            codec.update_to_wire(b"t", b"g", state, events, chops=chops), wanted
        )
        assert wanted.chop_open
        assert wanted.view.chop_open
        assert list(wanted.chop_seats) == ([2, 3] if chops else [])
        assert list(wanted.view.chop_seats) == ([2, 3] if chops else [])
    seat_view = codec.view_to_pb(game.view(state, 2), state)
    assert not seat_view.chop_seats  # never in a seat's view
    assert seat_view.chop_open  # the public pause signal


def test_a_wire_update_of_a_finished_game_carries_its_settlement_and_no_seat_to_act() -> None:
    state, events = match_steps("southern", 4)[-2]
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


@pytest.mark.parametrize("variant", VARIANTS)
def test_wire_events_are_byte_for_byte_the_serialised_event_messages(variant: str) -> None:
    events = [e for seed in range(6) for e in random_events(variant, seed)]
    wanted = game_pb2.GameUpdate(events=[codec.event_to_pb(e) for e in events])
    assert_wire_is_the_message(codec.events_to_wire(events), wanted)


def test_wire_events_cover_every_kind_and_edge_values() -> None:
    events = [e for seed in range(60) for e in random_events("southern", seed)]
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
        ev.GameOver((1, -1, 2)),  # an empty seat (RULES §9.1): place 0 on the wire
        ev.TimedOut(3, 7),
        ev.TimedOut(0, 0),
        ev.AutoPlay(2, on=True),
        ev.AutoPlay(0, on=False),
        ev.PlayerLeft(1, forfeit=True, place=4),
        ev.PlayerLeft(0, forfeit=False, place=0),
        ev.SeatVacated(3, "Lan Anh ✓", -(2**62)),
        ev.SeatVacated(0, "", 0),
        ev.SeatTaken(2, "p-42"),
        ev.SeatTaken(0, ""),
    ]
    kinds = {type(e) for e in events}
    assert len(kinds) == len(events_pb2.Event.DESCRIPTOR.oneofs_by_name["kind"].fields)
    for event in events:
        wanted = game_pb2.GameUpdate(events=[codec.event_to_pb(event)])
        assert_wire_is_the_message(codec.events_to_wire([event]), wanted)


def test_a_wire_view_writes_negative_numbers_a_signed_payload_may_carry_as_protobuf_does() -> None:
    """A decoded state holds what its payload said (a dealer of -1, a negative game or move
    number): the view's looked-up varints must not index them, but encode them as protobuf
    does (ten bytes)."""
    state, _ = game.new_game(build_rules("southern"), 4, seed=12)
    odd = state._replace(match=state.match._replace(dealer=-1, game_number=-2), move_count=-3)
    for seat in (-1, 0):
        seat_view = view(odd, seat)
        assert_wire_is_the_message(
            codec.view_to_wire(seat_view, odd), codec.view_to_pb(seat_view, odd)
        )
