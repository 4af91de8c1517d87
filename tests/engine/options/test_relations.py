"""The options' relation cases of relations.txt: under each line's preset and options, its play
beats, chops or does not beat its table (RULES §3, §5, §6, §10). The format is in the file's
header."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.datafile import Relation, relation_cases

RELATIONS = Path(__file__).with_name("relations.txt")


@pytest.mark.parametrize("case", relation_cases(RELATIONS))
def test_a_play_beats_chops_or_does_not_beat_the_table_as_the_options_say(
    case: Relation,
) -> None:
    case.check()
