"""Every message the codec writes by hand is declared once (codec/_layouts.py) and its layout
covers the message: each field is written, in field-number order, or named as never written,
with the reason; each message field it writes has a layout of its own or is serialised by
protobuf. A field added to the proto and not to its layout fails here, whichever message."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pytest
from helpers.codec_games import edge_states

from tienlen.v1 import game_pb2, moves_pb2, service_pb2, state_pb2
from tienlen_service import codec  # noqa: F401 - every fast path, so every layout is declared
from tienlen_service.codec import _layouts
from tienlen_service.codec import state as payload
from tienlen_service.codec._wire import Layout, declared_layouts

if TYPE_CHECKING:
    from collections.abc import Mapping

    from google.protobuf.message import Message

LAYOUTS = declared_layouts()
# What the fast paths write whole: the answers of every move and the state token's payload.
ROOTS = (
    game_pb2.GameUpdate,
    service_pb2.ApplyMoveResponse,
    service_pb2.PlayStreamResponse,
    state_pb2.GameState,
)


@dataclass
class _Declared:
    """What the checks read of a layout (a stand-in can be checked without declaring it)."""

    message: type[Message]
    fields: tuple[str, ...]
    serialised: frozenset[str] = frozenset()
    never: Mapping[str, str] = field(default_factory=dict)


def layout_problems(layout: Layout | _Declared) -> list[str]:
    """What is wrong with a layout against its message's descriptor (nothing: [])."""
    desc = layout.message.DESCRIPTOR
    numbers = {f.name: f.number for f in desc.fields}
    written, never = set(layout.fields), set(layout.never)
    problems = [
        f"{desc.full_name}.{name} is in the proto but not in its layout (codec/_layouts.py)"
        for name in sorted(set(numbers) - written - never)
    ]
    problems += [
        f"{name} is not a field of {desc.full_name}" for name in (written | never) - set(numbers)
    ]
    problems += [f"{name} is both written and never written" for name in written & never]
    problems += [
        f"{name} is never written, without a reason"
        for name, why in layout.never.items()
        if not why
    ]
    order = [numbers[name] for name in layout.fields if name in numbers]
    if order != sorted(order) or len(set(order)) != len(order):
        problems.append(f"{desc.full_name}: not written once each in field-number order: {order}")
    return problems


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda layout: layout.name)
def test_a_layout_lists_every_field_of_its_message_in_field_number_order(layout: Layout) -> None:
    assert layout_problems(layout) == []


def test_the_check_reports_a_field_of_the_proto_the_layout_leaves_out() -> None:
    """The check above fails for a field the layout does not list (as for a field added to
    the proto and not to codec/_layouts.py), one listed out of order, and one listed twice."""
    fields = _layouts.TABLE_VIEW.fields
    without = _Declared(game_pb2.TableView, tuple(f for f in fields if f != "dealer"))
    assert layout_problems(without) == [
        "tienlen.v1.TableView.dealer is in the proto but not in its layout (codec/_layouts.py)"
    ]
    swapped = _Declared(game_pb2.TableView, (fields[1], fields[0], *fields[2:]))
    assert len(layout_problems(swapped)) == 1
    twice = _Declared(game_pb2.TableView, (*fields, "dealer"))
    assert len(layout_problems(twice)) == 1
    reasonless = _Declared(service_pb2.PlayStreamResponse, ("tag", "applied"), never={"error": ""})
    assert len(layout_problems(reasonless)) == 2  # `batch` missing, `error` without a reason


def _held(layout: Layout) -> list[str]:
    """The messages a layout's encoder writes field by field itself (not serialised)."""
    held = []
    for name in layout.fields:
        message = layout.message.DESCRIPTOR.fields_by_name[name].message_type
        if message is not None and name not in layout.serialised:
            held.append(message.full_name)
    return held


def test_every_message_written_by_hand_has_its_layout_and_every_layout_is_written() -> None:
    """From the answers and the payload down: a message field is either serialised by
    protobuf from the mapping's message, or written by hand under a layout of its own; and
    no layout is declared for a message nothing writes."""
    by_name = {layout.name: layout for layout in LAYOUTS}
    reached: set[str] = set()
    todo = [root.DESCRIPTOR.full_name for root in ROOTS]
    while todo:
        name = todo.pop()
        if name in reached:
            continue
        assert name in by_name, f"{name} is written by hand but has no layout"
        reached.add(name)
        todo += _held(by_name[name])
    assert reached == set(by_name)


def test_a_message_is_declared_once_and_its_encoder_writes_only_what_it_lists() -> None:
    with pytest.raises(ValueError, match="already declared"):
        Layout(game_pb2.TableView, _layouts.TABLE_VIEW.fields)
    with pytest.raises(ValueError, match="not in its layout"):
        _layouts.PLAY_STREAM_RESPONSE.tag("error")  # never written by hand
    with pytest.raises(ValueError, match="serialised field"):
        Layout(moves_pb2.Play, (), serialised=("cards",))
    assert moves_pb2.Play.DESCRIPTOR.full_name not in {layout.name for layout in LAYOUTS}


def test_the_fields_a_game_keeps_are_the_serialised_ones_and_a_move_changes_the_others() -> None:
    """The payload joins the runs of fields a game keeps (serialised by protobuf once per
    game, from `_game_pb`) and those a move changes (written per move, `_move_pb`'s), in the
    layout's order: a field the mapping puts in one half and the layout in the other fails."""
    kept = _layouts.GAME_STATE.serialised
    for state in edge_states():
        per_game = payload._game_pb(b"id", state.rules, state.match, b"s" * 16)
        per_move = payload._move_pb(state)
        assert {f.name for f, _ in per_game.ListFields()} <= kept
        assert not {f.name for f, _ in per_move.ListFields()} & kept
