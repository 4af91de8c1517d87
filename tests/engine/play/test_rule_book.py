"""RULES §4 sentence by sentence: who leads, rounds (*vòng bài*), passing (*qua tay*), the
lead after a finished player (*hưởng sái*) and finishing, under every preset.

Each test quotes the rule-book sentence it proves. `tests/engine/play/test_southern.py` and
`test_scenarios_play.py` prove them for the Southern game; here every preset plays them.
"""

from __future__ import annotations

import pytest
from helpers.tables import Reason, Table, deal, later

from tienlen_rules import apply
from tienlen_rules.cards import THREE_OF_CLUBS, THREE_OF_SPADES, parse_set
from tienlen_rules.errors import IllegalMove
from tienlen_rules.events import GameOver, PlayerFinished, RoundWon
from tienlen_rules.state import pass_turn

PRESETS = ("southern", "northern", "hue", "da_nang", "dau", "dem_la")
STARTING_CARD_PRESETS = ("southern", "northern", "da_nang", "dau")


def _play_out(t: Table) -> None:
    """Finish the game: everyone passes when there is a play to beat, and leads a single."""
    while not t.over:
        if t.state.table is None:
            t.play(t.to_act, min(t.legal(t.to_act), key=parse_set))
        else:
            t.passes(t.to_act)


@pytest.mark.parametrize("variant", STARTING_CARD_PRESETS)
def test_s4_first_game_the_spade_three_holder_leads_and_the_lead_must_contain_it(
    variant: str,
) -> None:
    """§4: "In the first game of a match ..., the holder of ♠3 leads, and the lead must contain
    ♠3 (a single, or any combination that includes it)" — in every preset that names ♠3
    (Đấu: the ♠3 holder, not the dealer, leads)."""
    t = deal(variant, "9H 10H", "4D 5D", "3S 4S 5S 9D", dealer=0)
    assert t.to_act == 2
    assert t.state.must_include == THREE_OF_SPADES
    assert t.refused(2, "9D") == Reason.MUST_INCLUDE_STARTING_CARD
    assert t.refused(0, "9H") == Reason.NOT_YOUR_TURN
    assert t.can_play(2, "3S")
    assert t.can_play(2, "3S 4S 5S")


def test_s4_hue_the_club_three_replaces_the_spade_three() -> None:
    """§4: "Variant Huế: ♣3 instead of ♠3." """
    t = deal("hue", "3S 10H", "4D 5D", "3C 4C 5C 9D")
    assert t.to_act == 2
    assert t.state.must_include == THREE_OF_CLUBS
    assert t.refused(2, "9D") == Reason.MUST_INCLUDE_STARTING_CARD
    assert t.can_play(2, "3C 4C 5C")


@pytest.mark.parametrize("variant", ["southern", "northern", "da_nang"])
def test_s4_without_the_spade_three_the_lowest_dealt_card_leads_and_must_be_included(
    variant: str,
) -> None:
    """§4: "[ours] If nobody holds ♠3 (2–3 players), the holder of the lowest dealt card leads
    and must include that card." """
    t = deal(variant, "9H 10H", "4D 5D 6D", "3H 8C")
    assert t.to_act == 2
    assert t.state.must_include == parse_set("3H").bit_length() - 1
    assert t.refused(2, "8C") == Reason.MUST_INCLUDE_STARTING_CARD
    t.play(2, "3H")


def test_s4_dem_la_the_first_leader_is_drawn_and_leads_anything() -> None:
    """§4: "Variant đếm lá: the first game's leader is drawn at random (fair)." — the drawn
    leader need not hold ♠3 and may lead any combination."""
    leaders = set()
    for seed in range(40):
        t = deal("dem_la", "3S 9H", "4D 5D", "6S 7S", seed=seed)
        assert t.state.must_include == -1
        assert t.can_play(t.to_act, next(iter(sorted(t.legal(t.to_act)))))
        leaders.add(t.to_act)
    assert leaders == {0, 1, 2}


@pytest.mark.parametrize("variant", PRESETS)
def test_s4_in_later_games_the_previous_winner_leads_with_any_combination(variant: str) -> None:
    """§4: "In later games the previous game's winner leads with any combination."; §9: "the
    next game's leader is the previous winner"."""
    t = later(variant, "4D 5D", "9H", "6C", leader=1)
    t.play(1, "9H")
    _play_out(t)
    assert t.state.winner == 1
    nxt = t.next_game("3S 4S", "6D 7D", "8H 9C")
    assert not nxt.state.first_game
    assert nxt.to_act == 1
    assert nxt.state.must_include == -1
    assert nxt.can_play(1, "7D")


@pytest.mark.parametrize("variant", PRESETS)
def test_s4_a_player_who_passes_is_out_of_the_round_until_a_new_round_starts(
    variant: str,
) -> None:
    """§4: "each player still in the round either beats the last play or passes. A player who
    passes is out of this round (qua tay) until a new round starts; they may not come back
    in" — then "When every other player still in the round has passed since the last play,
    the player who made the last play leads a new round with any combination"."""
    t = later(variant, "4S 9S JD 3H", "5S 10S KD", "6S 7D 8D", leader=0)
    t.play(0, "4S").passes(1).play(2, "6S")
    assert t.refused(1, "10S") == Reason.LOCKED_OUT_OF_ROUND
    t.play(0, "9S").passes(2)
    assert t.of(RoundWon) == [RoundWon(0, 0)]
    assert t.to_act == 0
    assert t.state.table is None
    t.play(0, "JD")
    assert t.to_act == 1  # the seat that passed is back in the new round
    t.play(1, "KD")


@pytest.mark.parametrize("variant", PRESETS)
def test_s4_play_can_go_round_the_table_many_times_within_one_round(variant: str) -> None:
    """§4: "Play can go round the table many times within one round." """
    t = later(variant, "3D 6D 9D", "4D 7D 10D", "5D 8D JD 3C", leader=0)
    for card in ("3D", "4D", "5D", "6D", "7D", "8D", "9D"):
        t.play(t.to_act, card)
    assert t.of(RoundWon) == []
    assert t.state.table_seat == 0


@pytest.mark.parametrize("variant", PRESETS)
def test_s4_the_leader_of_a_round_may_not_pass(variant: str) -> None:
    """§4: "The leader plays any combination." — a round's leader can't pass."""
    t = later(variant, "4S 9S", "5S 10S", "6S 7D", leader=0)
    with pytest.raises(IllegalMove) as caught:
        apply(t.state, pass_turn(0))
    assert caught.value.reason == Reason.LEADER_CANNOT_PASS


@pytest.mark.parametrize("variant", [v for v in PRESETS if v != "dem_la"])
def test_s4_huong_sai_the_lead_passes_to_the_next_player_who_still_holds_cards(
    variant: str,
) -> None:
    """§4: "If that player has already gone out, the lead passes to the next player in seat
    order who still holds cards (hưởng sái)." — and "The others may still try to beat that last
    play"."""
    t = later(variant, "4S 8S", "5S 10H", "6S 7D", leader=0)
    t.play(0, "4S").play(1, "5S").play(2, "6S").play(0, "8S")
    assert t.of(PlayerFinished)[0] == PlayerFinished(0, 1, False)
    assert t.to_act == 1  # the others may still beat the last play
    t.passes(1, 2)
    assert t.of(RoundWon) == [RoundWon(0, 1)]
    assert t.to_act == 1


@pytest.mark.parametrize("variant", [v for v in PRESETS if v not in {"dem_la", "dau"}])
def test_s4_players_finish_in_order_and_the_last_still_holding_cards_is_last(
    variant: str,
) -> None:
    """§4: "players finish in order and take places 1st, 2nd, … ; the last player still holding
    cards is last"; "The game ends when only one player still holds cards"."""
    t = later(variant, "4S 9H", "5S 10H", "6S JH", "7S QH KH", leader=0)
    t.play(0, "4S").play(1, "5S").play(2, "6S").play(3, "7S").passes(0, 1, 2)
    t.play(3, "QH").passes(0, 1, 2)  # nobody beats ♥Q: seat 3 leads again
    t.play(3, "KH")
    assert t.of(PlayerFinished)[-1] == PlayerFinished(3, 1, False)
    t.passes(0, 1, 2).play(0, "9H")
    assert t.of(PlayerFinished)[-1] == PlayerFinished(0, 2, False)
    t.play(1, "10H")
    assert t.over
    assert t.places == (2, 3, 4, 1)


def test_s4_dem_la_the_game_ends_when_the_first_player_finishes() -> None:
    """§4: "The game ends when only one player still holds cards ..., or earlier where the
    scoring scheme says so (đếm lá ends when the first player finishes)." """
    t = later("dem_la", "4S", "5S 10H", "6S JH", "7S QH", leader=0)
    t.play(0, "4S")
    assert t.over
    assert t.of(GameOver)
    assert t.state.winner == 0
