"""The chop cases of relations.txt: each line's bomb chops, or does not chop, its 2 or bomb
(RULES §3, §5). The format is in the file's header."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.datafile import Relation, relation_cases


@pytest.mark.parametrize("case", relation_cases(Path(__file__).with_name("relations.txt")))
def test_a_bomb_chops_exactly_the_twos_and_smaller_bombs_its_table_says(case: Relation) -> None:
    case.check()
