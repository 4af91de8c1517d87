"""Rules revisions: a game keeps the defaults it was dealt under when a release changes one."""

from __future__ import annotations

import pytest

from tienlen_rules import revisions
from tienlen_rules.option_values import parse_option_value
from tienlen_rules.options import OPTIONS_BY_NAME
from tienlen_rules.presets import PRESETS
from tienlen_rules.revisions import (
    CONG_DECIDED_ONCE,
    DEFAULT_CHANGES,
    READING_CHANGES,
    RULES_REVISION,
    DefaultChange,
    keeps_old_reading,
    pinned_defaults,
)
from tienlen_rules.ruleset import build_rules


def test_every_recorded_change_names_an_option_its_old_value_and_a_revision_in_order() -> None:
    assert [c.revision for c in DEFAULT_CHANGES] == sorted(c.revision for c in DEFAULT_CHANGES)
    assert [c.revision for c in READING_CHANGES] == sorted(c.revision for c in READING_CHANGES)
    revisions = {c.revision for c in (*DEFAULT_CHANGES, *READING_CHANGES)}
    assert revisions == set(range(1, RULES_REVISION + 1))
    for change in DEFAULT_CHANGES:
        parse_option_value(OPTIONS_BY_NAME[change.option], change.previous)  # a value it takes
        assert set(change.presets) <= set(PRESETS)
        assert change.why
    for reading in READING_CHANGES:
        assert reading.reading
        assert reading.previous
        assert reading.why


def test_a_game_dealt_before_a_reading_changed_keeps_the_old_reading() -> None:
    assert keeps_old_reading(1, CONG_DECIDED_ONCE)
    assert keeps_old_reading(0, CONG_DECIDED_ONCE)
    assert not keeps_old_reading(RULES_REVISION, CONG_DECIDED_ONCE)
    assert not keeps_old_reading(RULES_REVISION + 1, CONG_DECIDED_ONCE)


def test_new_games_are_dealt_under_the_current_revision_which_pins_nothing() -> None:
    assert build_rules("southern").revision == RULES_REVISION
    assert pinned_defaults("southern", RULES_REVISION) == {}


def test_revision_0_plays_5_consecutive_pairs_as_they_were_dealt_chopping_nothing() -> None:
    old = build_rules("southern", {"stake": 50}, revision=0)
    assert old.long_pairs_chop == "nothing"
    assert old.overrides == (("stake", "50"),)  # the pin is not an override: tokens keep
    assert old.revision == 0  # what the release that dealt the game wrote
    assert build_rules("southern").long_pairs_chop == "ladder"
    assert build_rules("southern", {"long_pairs_chop": "ladder"}, revision=0).long_pairs_chop == (
        "ladder"
    )  # the game's own override wins


def test_a_revision_newer_than_the_code_is_played_with_the_defaults_it_knows() -> None:
    newer = build_rules("southern", revision=RULES_REVISION + 1)
    assert newer.revision == RULES_REVISION + 1  # kept, for the replicas that know it
    assert newer.option_values() == build_rules("southern").option_values()


def test_a_game_gets_the_value_in_force_when_it_was_dealt_across_several_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # stake: 10 until revision 1, 20 until revision 2, then the default; pass_lockout changed
    # for Huế only at revision 3; a change to an option Huế sets itself leaves Huế alone.
    changes = (
        DefaultChange(1, "stake", "10", (), "test"),
        DefaultChange(2, "stake", "20", (), "test"),
        DefaultChange(3, "pass_lockout", "false", ("hue",), "test"),
        DefaultChange(4, "lead_stealing", "false", (), "test"),
    )
    monkeypatch.setattr(revisions, "DEFAULT_CHANGES", changes)
    assert "lead_stealing" in PRESETS["hue"]
    assert pinned_defaults("hue", 0) == {"stake": "10", "pass_lockout": "false"}
    assert pinned_defaults("hue", 1) == {"stake": "20", "pass_lockout": "false"}
    assert pinned_defaults("southern", 1) == {"stake": "20", "lead_stealing": "false"}
    assert pinned_defaults("southern", 4) == {}


def test_rule_sets_of_two_revisions_are_not_the_same_rules() -> None:
    # Caches keyed by a rule set (the rotten split, the encoders) must not hand one revision's
    # answer to the other: revision 0's 5 consecutive pairs are no bomb, revision 1's are.
    old, new = build_rules("southern", revision=0), build_rules("southern")
    assert old.bomb_values != new.bomb_values
    assert old != new
    assert len({old, new}) == 2
    assert old == build_rules("southern", revision=0)
