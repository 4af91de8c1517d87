"""RULES §1-§2 sentence by sentence: cards, seats and the deal, under every preset.

Each test quotes the rule-book sentence it proves. §1's card order and notation are proved in
`tests/engine/cards_deal/test_southern.py` for the engine as a whole (the order is not a rule option); these
tests cover what the presets change: how many cards are dealt and to whom.
"""

from __future__ import annotations

import pytest
from helpers.tables import deal, rules

from tienlen_rules import new_game
from tienlen_rules.cards import FULL_DECK, parse_set
from tienlen_rules.errors import SetupError

THIRTEEN_CARD_PRESETS = ("southern", "northern", "hue", "da_nang", "dem_la")


@pytest.mark.parametrize("variant", THIRTEEN_CARD_PRESETS)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_s2_each_player_gets_13_cards_and_the_rest_stay_out_of_play_in_every_preset(
    variant: str, players: int
) -> None:
    """§2: "Each player gets 13 cards. With fewer than 4 players the remaining cards stay face
    down, out of play." — in every preset but Đấu (instant wins off so every deal is played)."""
    ruleset = rules(variant, instant_wins="none")
    state, _ = new_game(ruleset, players, seed=31)
    union = 0
    for hand in state.hands:
        assert hand.bit_count() == 13
        assert not union & hand
        union |= hand
    assert union.bit_count() == 13 * players
    assert state.played == 0  # the cards not dealt are not in play either


@pytest.mark.parametrize("variant", THIRTEEN_CARD_PRESETS)
def test_s2_two_to_four_players_and_no_more_in_every_preset(variant: str) -> None:
    """§2: "2 to 4 players in the standard game"."""
    ruleset = rules(variant)
    for players in (1, 5):
        with pytest.raises(SetupError) as caught:
            new_game(ruleset, players, seed=1)
        assert caught.value.code == "INVALID_PLAYER_COUNT"


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_s2_dau_an_explicit_deal_may_give_the_dealer_18_cards_but_never_19(dealer: int) -> None:
    """§2: "Variant Tiến lên Đấu (3 players): all 52 cards are dealt, 17 + 17 + 18"; §10:
    "explicit deals may give any disjoint hands (1–13 cards; 1–18 in Đấu)"."""
    eighteen = "3S 3C 4S 4C 5D 6D 7D 8D 9D 10D JD QD KD AD 2D 9S 10S JS"
    state, _ = new_game(
        rules("dau"),
        3,
        hands=[parse_set(eighteen), parse_set("3D"), parse_set("4D")],
        dealer=dealer,
    )
    assert state.hands[0].bit_count() == 18
    with pytest.raises(SetupError) as caught:
        new_game(
            rules("dau"),
            3,
            hands=[parse_set(eighteen + " QS"), parse_set("3H"), parse_set("4H")],
            dealer=dealer,
        )
    assert caught.value.code == "INVALID_DEAL"


def test_s2_dau_the_seeded_deal_gives_every_card_and_the_dealer_18() -> None:
    """§2: "all 52 cards are dealt, 17 + 17 + 18; the dealer (cái) gets 18." — over many
    seeds, whoever deals."""
    for seed in range(20):
        dealer = seed % 3
        state, _ = new_game(rules("dau", instant_wins="none"), 3, seed=seed, dealer=dealer)
        union = 0
        for hand in state.hands:
            union |= hand
        assert union == FULL_DECK
        assert [h.bit_count() for h in state.hands] == [18 if s == dealer else 17 for s in range(3)]


@pytest.mark.parametrize("variant", ["southern", "hue", "da_nang", "dem_la"])
def test_s2_redeal_option_refuses_four_twos_under_every_preset_that_counts_them(
    variant: str,
) -> None:
    """§2: "Redeal option: some tables redeal when one hand holds all four 2s (sources
    000/001), while the Southern game counts four 2s as an instant win. Option, default:
    instant win." """
    hands = ("2S 2C 2D 2H 9S", "4S 5D", "6S 7D")
    won = deal(variant, *hands, first_game=False, leader=0)
    assert won.over
    assert won.state.instant_pattern == "four_twos"
    with pytest.raises(SetupError) as caught:
        deal(variant, *hands, options={"four_twos": "redeal"}, first_game=False, leader=0)
    assert caught.value.code == "REDEAL_REQUIRED"
