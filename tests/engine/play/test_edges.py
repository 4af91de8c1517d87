"""RULES §4-§6 edge cases found unpinned by an audit of the rule book against the suite: each
test quotes the sentence it proves and plays it through the engine from an explicit deal.
"""

from __future__ import annotations

import pytest
from helpers.tables import Reason, later

from tienlen_rules.events import Played, RoundWon

FOUR_PAIRS = "7S 7C 8S 8C 9S 9C 10S 10C"


@pytest.mark.parametrize("variant", ["southern", "hue", "da_nang"])
def test_s4_an_out_of_turn_chop_lets_only_the_chopper_back_in_the_others_who_passed_stay_out(
    variant: str,
) -> None:
    """§4: "A player who passes is out of this round (qua tay) until a new round starts; they
    may not come back in, except by an out-of-turn chop where the variant allows it (§5)." The
    exception is the chopper's alone: another player who passed stays out, and the round ends
    when the players still in it have passed, the chopper leading the next one."""
    t = later(variant, "5S 5H KH", "6S 6H JD", f"{FOUR_PAIRS} QD", "2D 2H 4C")
    t.play(0, "5S 5H").passes(1, 2).play(3, "2D 2H")
    assert t.to_act == 0  # seats 1 and 2 passed: they are out of this round
    t.play(2, FOUR_PAIRS)  # 4 consecutive pairs chop a pair of 2s out of turn, after passing
    assert t.of(Played)[-1].out_of_turn
    assert t.of(Played)[-1].chop
    assert t.to_act == 3  # play continues from the chopper
    assert t.state.passed >> 1 & 1  # seat 1 is still out...
    assert t.refused(1, "JD") == Reason.LOCKED_OUT_OF_ROUND  # ...and may not come back in
    t.passes(3)
    assert t.to_act == 0  # seat 1 is skipped
    t.passes(0)
    assert t.of(RoundWon)[-1] == RoundWon(2, 2)
    assert t.to_act == 2
    assert t.state.passed == 0  # a new round: everyone is back in


def test_s6_northern_a_pair_of_twos_of_two_colours_is_no_pair_even_on_a_pair() -> None:
    """§6: "A pair must be two cards of the same colour" — a pair of 2s included, although
    (§10) "A pair of 2s may be played on any pair that is not 2s": ♠2♥2 is refused as no
    combination, ♠2♣2 goes on the red pair ♦5♥5."""
    t = later("northern", "5D 5H 9S", "2S 2C 2H 8C", "JS")
    t.play(0, "5D 5H")
    assert t.refused(1, "2S 2H") == Reason.NOT_A_COMBINATION
    assert t.refused(1, "2C 2H") == Reason.NOT_A_COMBINATION
    assert t.legal(1) == {"2S 2C"}
    t.play(1, "2S 2C")
