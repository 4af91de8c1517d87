"""The combinations' relation cases of relations.txt: each line's play beats, chops or does not
beat its table (RULES §1, §3, §5). The format is in the file's header."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.datafile import Relation, relation_cases


@pytest.mark.parametrize("case", relation_cases(Path(__file__).with_name("relations.txt")))
def test_a_play_beats_chops_or_does_not_beat_the_table_by_type_length_and_top_card(
    case: Relation,
) -> None:
    case.check()
