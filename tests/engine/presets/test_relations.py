"""The presets' relation cases of relations.txt: each line's play beats, chops or does not
beat its table under that preset (RULES §3, §5, §6, §10). The format is in the file's header."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.datafile import Relation, relation_cases


@pytest.mark.parametrize("case", relation_cases(Path(__file__).with_name("relations.txt")))
def test_a_play_beats_chops_or_does_not_beat_the_table_as_each_preset_says(
    case: Relation,
) -> None:
    case.check()
