"""Choice options take the members of their own StrEnum (`tienlen_rules.choices`): the rule set
holds members, so the engine's comparisons are type-checked, and a member is written as its
text, so DescribeRules, the tokens and the docs show the same names."""

from __future__ import annotations

from enum import StrEnum

import pytest

from tienlen_rules import (
    OPTIONS,
    PRESETS,
    ChopOnLastCard,
    FrozenPays,
    OptionSpec,
    OptionType,
    Scoring,
    build_rules,
    format_option_value,
)

CHOICES = [spec for spec in OPTIONS if spec.type is OptionType.CHOICE]


@pytest.mark.parametrize("spec", CHOICES, ids=lambda spec: spec.name)
def test_a_choice_option_s_values_are_the_members_of_one_enum(spec: OptionSpec) -> None:
    enum = type(spec.default)
    assert issubclass(enum, StrEnum)
    assert spec.choices == tuple(enum)


@pytest.mark.parametrize("spec", CHOICES, ids=lambda spec: spec.name)
def test_every_preset_and_every_override_builds_enum_members(spec: OptionSpec) -> None:
    name = spec.name
    enum = type(spec.default)
    for variant in PRESETS:
        assert type(getattr(build_rules(variant), name)) is enum, variant
    for member in enum:
        rules = build_rules("southern", {name: member.value.upper()})  # any case parses
        assert getattr(rules, name) is member


def test_a_choice_member_is_written_as_its_text() -> None:
    rules = build_rules("hue", {"frozen_pays": "whole_table", "scoring": "points"})
    values = rules.option_values()
    assert values["chop_on_last_card"] is ChopOnLastCard.CHOPPER_ONLY
    assert values["frozen_pays"] is FrozenPays.WHOLE_TABLE
    assert values["scoring"] is Scoring.POINTS
    assert [format_option_value(values[n]) for n in ("chop_on_last_card", "frozen_pays")] == [
        "chopper_only",
        "whole_table",
    ]
    assert rules.overrides == (("frozen_pays", "whole_table"), ("scoring", "points"))
    assert all(type(text) is str for _, text in rules.overrides)
