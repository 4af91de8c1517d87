"""The rules a frontend reads (issue #25): DescribeRules' constraints between options, the
effective values a game's view carries, and the constraint a refusal names."""

from __future__ import annotations

import pytest
from google.rpc import error_details_pb2

from tienlen.v1 import rules_pb2
from tienlen_rules import CONSTRAINTS, SetupError, build_rules
from tienlen_service import codec
from tienlen_service.statuses import error_status


def test_describe_rules_lists_every_constraint_as_data() -> None:
    described = {c.name: c for c in codec.constraints_to_pb()}
    assert list(described) == [c.name for c in CONSTRAINTS]
    points = described["points_penalty_values"]
    assert points.kind == rules_pb2.CONSTRAINT_KIND_DERIVED_VALUE
    assert [(w.option, list(w.values), w.negated) for w in points.when] == [
        ("scoring", ["points"], False)
    ]
    assert {v.name: v.value for v in points.values}["penalty_two_hearts"] == "4"
    pairs = described["needs_consecutive_pairs"]
    assert pairs.kind == rules_pb2.CONSTRAINT_KIND_APPLIES_WHEN
    assert "penalty_three_pairs" in pairs.options
    whole = described["whole_chips"]
    assert (whole.kind, whole.refusal) == (
        rules_pb2.CONSTRAINT_KIND_REFUSED_UNLESS,
        "FRACTIONAL_AMOUNT",
    )


def test_a_view_carries_the_values_the_scoring_scheme_derives() -> None:
    spec = codec.rules_to_pb(build_rules("southern", {"scoring": "points"}))
    effective = {v.name: v.value for v in spec.effective_values}
    assert effective["scoring"] == "points"
    assert effective["penalty_two_diamonds"] == "3"  # the real price of ♦2 at this table
    assert dict(spec.options) == {"scoring": "points"}


def test_a_view_of_a_preset_game_carries_no_effective_value() -> None:
    assert list(codec.rules_to_pb(build_rules("dem_la")).effective_values) == []
    spec = codec.rules_to_pb(build_rules("dem_la", {"scoring": "places"}))
    assert [(v.name, v.value) for v in spec.effective_values] == [("scoring", "places")]


def test_effective_values_are_ignored_on_the_way_in() -> None:
    spec = rules_pb2.RuleSetSpec(
        variant="southern",
        effective_values=[rules_pb2.OptionValue(name="penalty_two_hearts", value="9")],
    )
    assert codec.rules_from_pb(spec).penalty_two_hearts == 1


def error_info(refused: SetupError) -> error_details_pb2.ErrorInfo:
    """The ErrorInfo of the status the service answers a refusal with."""
    status = error_status(refused, None)
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    assert any(d.Unpack(info) for d in status.details if d.Is(info.DESCRIPTOR))
    return info


def test_a_refusal_names_the_broken_constraint_in_its_error_info() -> None:
    with pytest.raises(SetupError) as refused:
        build_rules("southern", {"stake": 1})
    info = error_info(refused.value)
    assert info.reason == "FRACTIONAL_AMOUNT"
    assert info.metadata["constraint"] == "whole_chips"


def test_following_suit_with_mixed_pairs_is_refused_naming_its_constraint() -> None:
    # Issue #38: follow_suit needs same_colour_pairs and single_suit_straights.
    spec = rules_pb2.RuleSetSpec(variant="southern", options={"follow_suit": "true"})
    with pytest.raises(SetupError) as refused:
        codec.rules_from_pb(spec)
    info = error_info(refused.value)
    assert info.reason == "INCOMPATIBLE_OPTIONS"
    assert info.metadata["constraint"] == "follow_suit_needs_one_colour_and_suit"
    described = {c.name: c for c in codec.constraints_to_pb()}
    refused = described["follow_suit_needs_one_colour_and_suit"]
    assert (refused.kind, refused.refusal) == (
        rules_pb2.CONSTRAINT_KIND_REFUSED_UNLESS,
        "INCOMPATIBLE_OPTIONS",
    )


def test_a_refusal_read_from_the_wire_still_names_its_constraint() -> None:
    # NewGame reads the rules through the codec, which re-roots the field path: the constraint
    # must survive it (it was dropped there, so NewGame's ErrorInfo named no constraint).
    with pytest.raises(SetupError) as refused:
        codec.rules_from_pb(rules_pb2.RuleSetSpec(variant="southern", options={"stake": "1"}))
    exc = refused.value
    assert (exc.code, exc.field, exc.constraint) == (
        "FRACTIONAL_AMOUNT",
        "rules.options.stake",
        "whole_chips",
    )
