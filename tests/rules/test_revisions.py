"""Rules revisions: a game keeps the defaults it was dealt under when a release changes one."""

from __future__ import annotations

import pytest

from tienlen_service.rules import revisions
from tienlen_service.rules.options import OPTIONS_BY_NAME, PRESETS, parse_option_value
from tienlen_service.rules.revisions import (
    DEFAULT_CHANGES,
    RULES_REVISION,
    DefaultChange,
    NewerRevisionError,
    pinned_overrides,
)
from tienlen_service.rules.ruleset import build_rules


def test_every_recorded_change_names_an_option_its_old_value_and_a_revision_in_order() -> None:
    assert [c.revision for c in DEFAULT_CHANGES] == sorted(c.revision for c in DEFAULT_CHANGES)
    assert {c.revision for c in DEFAULT_CHANGES} == set(range(1, RULES_REVISION + 1))
    for change in DEFAULT_CHANGES:
        spec = OPTIONS_BY_NAME[change.option]
        parse_option_value(spec, change.previous)  # a value the option takes
        assert set(change.presets) <= set(PRESETS)
        assert change.why


def test_the_current_revision_pins_nothing() -> None:
    assert pinned_overrides("southern", RULES_REVISION, (("stake", "50"),)) == (("stake", "50"),)


def test_revision_0_plays_5_consecutive_pairs_as_they_were_dealt_chopping_nothing() -> None:
    pinned = pinned_overrides("southern", 0, (("stake", "50"),))
    assert pinned == (("long_pairs_chop", "nothing"), ("stake", "50"))
    assert build_rules("southern", dict(pinned)).long_pairs_chop == "nothing"
    assert build_rules("southern").long_pairs_chop == "ladder"


def test_a_revision_newer_than_the_code_is_refused() -> None:
    with pytest.raises(NewerRevisionError, match=f"revision {RULES_REVISION + 1}"):
        pinned_overrides("southern", RULES_REVISION + 1, ())
    with pytest.raises(NewerRevisionError):
        pinned_overrides("southern", -1, ())


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
    monkeypatch.setattr(revisions, "RULES_REVISION", 4)
    assert "lead_stealing" in PRESETS["hue"]
    assert pinned_overrides("hue", 0, ()) == (("pass_lockout", "false"), ("stake", "10"))
    assert pinned_overrides("hue", 1, ()) == (("pass_lockout", "false"), ("stake", "20"))
    assert pinned_overrides("southern", 1, ()) == (("lead_stealing", "false"), ("stake", "20"))
    assert pinned_overrides("southern", 3, (("lead_stealing", "true"),)) == (
        ("lead_stealing", "true"),
    )
