"""Readings the option docs left open (issue #38), each settled closest to the sources and
written as a rule in docs/RULE-OPTIONS.md ("Readings settled for combined options",
`constraints.READINGS`): góp 3 with the other leads, the four 3s' lay-down, same-suit straight
bombs, the four 2s' redeal, the dealer after đền bài, cóng paying the whole table when every
opponent is frozen, the player left alone with the frozen at 4 players, the player left holding
cards in 1st, thối hai outside thối, stealing where 3 consecutive pairs are a bomb, and hands
of more than 13 cards. The exemption of cóng with until_win: tests/engine/specials/
test_freezing_schemes.py.

Stake 100 chips; L = 2 stakes.
"""

from __future__ import annotations

import pytest
from helpers.tables import Table, TransferReason, cards, deal, later, relation, rules, transfers

from tienlen_rules import new_game, next_game
from tienlen_rules.beating import Beat
from tienlen_rules.cards import TWOS
from tienlen_rules.constraints import CONSTRAINTS_BY_NAME, READINGS, ConstraintKind
from tienlen_rules.errors import Reason, SetupError
from tienlen_rules.events import InstantWin, PlayersFrozen
from tienlen_rules.ruleset import build_rules

GOP_3 = {"starting_card_every_game": True}


def compensated(variant: str = "southern", **options: object) -> Table:
    """Đền bài (RULES §7): seat 0 leads ♠10, then ♠3, and goes out; seat 1 could beat ♠10 with
    ♠J while nobody else could, and passed; every opponent is frozen, so seat 1 pays for them
    all."""
    t = later(variant, "10S 3S", "JS 3C", "4C 4D 5C 5D 6C 6H", "5H 6D", options=options)
    t.play(0, "10S").passes(1, 2, 3).play(0, "3S")
    assert t.over
    assert t.of(PlayersFrozen) == [PlayersFrozen((1, 2, 3), (2, 3, 4))]
    return t


def test_every_reading_settled_is_written_in_the_option_docs() -> None:
    text = " ".join(READINGS).lower()
    for words in (
        "góp 3",
        "four 3s",
        "same-suit straight",
        "four_twos = redeal",
        "dealer",
        "whole_table",
        "alone_with_frozen_pays_place",
        "left holding cards",
        "rotten_two_flat",
        "steal",
        "14",
        "freeze_exempt_unplayed",
    ):
        assert words.lower() in text, words


# --------------------------------------------------------------------------------------------
# Góp 3 (starting_card_every_game) and the other rules of the lead.
# --------------------------------------------------------------------------------------------


def test_gop_3_a_later_game_is_led_by_the_starting_card_holder_with_anything() -> None:
    # Source 000: "người chơi nào có ♠3 sẽ được ưu tiên đánh trước" — priority to lead, no duty
    # to play the card (that is the first game's rule, RULES §4).
    table = rules(**GOP_3)
    state, _ = new_game(
        table, 3, hands=[cards("9S"), cards("4D KD"), cards("3S 8H")], first_game=False
    )
    assert not state.first_game
    assert (state.to_act, state.must_include) == (2, -1)
    t = Table(state)
    assert t.can_play(2, "8H")


def test_gop_3_with_a_random_first_leader_draws_the_first_game_only() -> None:
    # first_game_leader = random decides a first game (đếm lá's fair draw); góp 3 the others.
    table = rules(**GOP_3, first_game_leader="random")
    hands = [cards("9S"), cards("4D KD"), cards("3S 8H")]
    firsts = {new_game(table, 3, hands=hands, seed=s)[0] for s in range(12)}
    assert {f.to_act for f in firsts} == {0, 1, 2}
    assert {f.must_include for f in firsts} == {-1}
    state, _ = new_game(table, 3, hands=hands, first_game=False, seed=1)
    assert (state.to_act, state.must_include) == (2, -1)


def test_gop_3_without_the_starting_card_dealt_the_lowest_card_leads_with_anything() -> None:
    # 2-3 players: ♠3 may be out of play. RULES §4 [ours]: the lowest dealt card's holder leads;
    # only a first game's lead must contain it, and the random draw of missing_starting_card
    # is a first game's (a later game is led by the cards, as góp 3 says).
    for missing in ("lowest_card", "lowest_card_free", "random"):
        table = rules(**GOP_3, missing_starting_card=missing)
        state, _ = new_game(
            table, 3, hands=[cards("9S"), cards("3C KD"), cards("4S 8H")], first_game=False
        )
        assert (state.to_act, state.must_include) == (1, -1), missing


def test_gop_3_leads_the_game_after_an_instant_win_whether_or_not_it_is_a_first_game() -> None:
    # Four 2s win at once; the next game is a first game again (RULES §7 [ours]): ♠3 leads and
    # must be played. With first_game_after_instant_win off the instant winner would lead it
    # (source 004), but góp 3 names the leader of every game: the ♠3 holder leads, freely, and
    # the game is no first game (no first-game instant wins, cướp cái open).
    hands = [cards("2S 2C 2D 2H 9S"), cards("3D 4D"), cards("5D 6D")]
    for first_again, must in ((True, 0), (False, -1)):
        table = rules(**GOP_3, first_game_after_instant_win=first_again)
        won, events = new_game(table, 3, hands=hands, first_game=False)
        assert [e for e in events if isinstance(e, InstantWin)] == [InstantWin(0, "four_twos")]
        after, _ = next_game(won, hands=[cards("7D"), cards("8D 9D"), cards("3S 10D")])
        assert after.first_game is first_again
        assert (after.to_act, after.must_include) == (2, must)


def test_gop_3_leads_the_game_after_den_bai_not_the_compensating_player() -> None:
    # Without góp 3 the compensating player leads the next game (source 000: "người đền bài sẽ
    # được đi trước"); with it, the ♠3 holder leads every game, whoever won or compensated.
    t = compensated()
    assert t.settle().next_leader == 1
    after, _ = next_game(t.state, hands=[cards(h) for h in ("7D", "8D", "9D", "3S 10D")])
    assert after.to_act == 1
    g = compensated(**GOP_3)
    after, _ = next_game(g.state, hands=[cards(h) for h in ("7D", "8D", "9D", "3S 10D")])
    assert after.to_act == 3


def test_gop_3_with_cuop_cai_the_lead_is_stolen_from_the_starting_card_holder() -> None:
    # Cướp cái takes the first lead of a game that is not a first game from whoever would make
    # it: under góp 3, the ♠3 holder (sources 000/002 name the previous winner, who leads
    # there).
    table = rules(**GOP_3, lead_stealing=True)
    state, _ = new_game(
        table,
        3,
        hands=[cards("9S 9C 10S 10C JS JC 4H"), cards("4D KD"), cards("3S 8H")],
        first_game=False,
    )
    t = Table(state)
    assert t.to_act == 2
    t.play(0, "9S 9C 10S 10C JS JC")
    assert t.state.table_seat == 0
    assert t.to_act == 1


# --------------------------------------------------------------------------------------------
# Four 3s lay down the 2s (four_threes_lay_down_twos).
# --------------------------------------------------------------------------------------------


LAY_DOWN = {"four_threes_lay_down_twos": True}


def test_a_player_whose_twos_were_laid_down_has_not_played_and_is_frozen() -> None:
    # Laying the 2s down is part of the deal, not a play: seat 2 never played when seat 0 went
    # out, so it is frozen; its ♠2, out of play, is charged nothing. Seat 1's four 3s are a
    # bomb in its hand: 2L + 2 stakes.
    t = later("southern", "KS", "3S 3C 3D 3H 5D", "2S 7C 8C", options=LAY_DOWN)
    assert t.state.hands[2] == cards("7C 8C")
    t.play(0, "KS")
    assert t.of(PlayersFrozen) == [PlayersFrozen((1, 2), (2, 3))]
    assert list(t.settle().net) == [1000, -600, -400]


def test_an_instant_win_is_judged_on_the_hands_after_the_lay_down() -> None:
    # The lay-down is part of the deal and tới trắng is judged right after it: four 2s laid
    # down win nothing (a game that is not a first game: four 3s are a first-game win only).
    t = later("southern", "2S 2C 2D 2H 9S", "3S 3C 3D 3H 5D", "7C 8C", options=LAY_DOWN)
    assert t.of(InstantWin) == []
    assert t.state.hands[0] == cards("9S")
    assert not any(h & TWOS for h in t.state.hands)


# --------------------------------------------------------------------------------------------
# Same-suit straight bombs (suited_straight_chops).
# --------------------------------------------------------------------------------------------

SUITED = {"suited_straight_chops": True}


def test_a_higher_same_suit_straight_on_one_is_an_ordinary_beat_not_a_chop() -> None:
    # Sources 000/002 list only 2s as what they stop ("chặn được hai ... đôi hai"): one on
    # another is the ordinary beat of a higher straight of the same length, unpaid.
    north = rules("northern", **SUITED)
    assert relation("5D 6D 7D 8D 9D", "2H", north) == Beat.CHOPS
    assert relation("5D 6D 7D 8D 9D 10D", "2S 2C", north) == Beat.CHOPS
    assert relation("6D 7D 8D 9D 10D", "5D 6D 7D 8D 9D", north) == Beat.BEATS


def test_a_same_suit_straight_chop_is_paid_the_two_and_never_rots() -> None:
    # Seat 1 chops ♥2 with ♦5-♦9: paid the ♥2's value (1 stake). Seat 0 ends last holding
    # ♣6-♣10: no thối (it is no hàng, sources 000/002 value no straight).
    t = later("northern", "2H 6C 7C 8C 9C 10C", "5D 6D 7D 8D 9D JD", options=SUITED)
    t.play(0, "2H").play(1, "5D 6D 7D 8D 9D").passes(0).play(1, "JD")
    assert t.over
    result = t.settle()
    assert transfers(result, TransferReason.CHOP) == [(0, 1, 100)]
    assert transfers(result, TransferReason.ROTTEN) == []


@pytest.mark.parametrize("chop_table", ["southern", "hue", "da_nang", "dau", "none"])
def test_same_suit_straights_chop_under_every_chop_table(chop_table: str) -> None:
    # The option adds its rows to whichever chop table the table plays (RULES §5: "Option (some
    # places)"); a straight that is not of one suit chops nothing.
    table = rules("southern", chop_table=chop_table, **SUITED)
    assert relation("5D 6D 7D 8D 9D", "2H", table) == Beat.CHOPS
    assert relation("5D 6S 7D 8D 9D", "2H", table) != Beat.CHOPS


# --------------------------------------------------------------------------------------------
# four_twos = redeal where four 2s are no instant win.
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("dau", {}),
        ("southern", {"instant_wins": "none"}),
        ("southern", {"instant_wins_on_short_hands": False}),
    ],
)
def test_four_twos_redeal_redeals_whatever_the_instant_win_list(
    variant: str, options: dict[str, object]
) -> None:
    # Sources 000/001 state it as a rule of the deal ("Nếu có 4 cây heo trong bộ thì chia lại
    # bài"), not as a replacement of the instant win: a hand dealt all four 2s is dealt again.
    redeal = rules(variant, four_twos="redeal", **options)
    players = 3 if variant == "dau" else 4
    hands = [cards("2S 2C 2D 2H 9S"), cards("3D 4D"), cards("5D 6D"), cards("7D")][:players]
    with pytest.raises(SetupError) as refused:
        new_game(redeal, len(hands), hands=hands, first_game=False, leader=0)
    assert refused.value.code == "REDEAL_REQUIRED"
    # A seed whose first deal gives a hand all four 2s (found with the deal as it falls) is
    # dealt again under redeal.
    plain = rules(variant, **options)
    seed = next(
        s
        for s in range(5000)
        if any(
            h & TWOS == TWOS
            for h in new_game(plain, players, seed=s, first_game=False, leader=0)[0].dealt
        )
    )
    state, _ = new_game(redeal, players, seed=seed, first_game=False, leader=0)
    assert all(h & TWOS != TWOS for h in state.dealt)


# --------------------------------------------------------------------------------------------
# The dealer after đền bài; cóng that pays the whole table when every opponent is frozen.
# --------------------------------------------------------------------------------------------


def test_after_den_bai_the_winner_deals_and_the_compensating_player_leads() -> None:
    # Source 000: "người chia bài thường là người đã thắng nhất ở ván liền trước" (the dealer is
    # the one who came 1st); "người đền bài sẽ được đi trước" (the compensator leads).
    t = compensated()
    after, _ = next_game(t.state, seed=5)
    assert (after.match.dealer, after.to_act) == (0, 1)


@pytest.mark.parametrize(("compensation", "payers"), [(True, {1}), (False, {1, 2, 3})])
def test_whole_table_with_every_opponent_frozen_pays_the_winner_alone(
    compensation: bool, payers: set[int]
) -> None:
    # "Cóng 3 nhà: cả ba nhà đền tới trắng" (sources 000/001/002): each frozen player owes the
    # instant-win amount (L) to every player not frozen — the winner alone; đền bài, where the
    # table plays it, moves the whole debt onto the compensating player (3 × L).
    t = compensated(frozen_pays="whole_table", compensation=compensation)
    result = t.settle()
    assert list(result.net) == ([600, -600, 0, 0] if compensation else [600, -200, -200, -200])
    assert {tr.payer for tr in result.transfers} == payers
    assert {tr.payee for tr in result.transfers} == {0}


def test_alone_with_frozen_pays_place_changes_nothing_at_four_players() -> None:
    # The one left alone with two frozen players (of four) takes 2nd: its place transfer would
    # be 3rd -> 2nd, and the 3rd is frozen, which pays its frozen amount instead.
    hands = ("3S 5S 7S", "4S 6S 2H", "8D 9D", "10D 2C")
    nets = []
    for on in (True, False):
        t = later("southern", *hands, options={"alone_with_frozen_pays_place": on})
        t.play(0, "3S").play(1, "4S").passes(2, 3).play(0, "5S").play(1, "6S").play(0, "7S")
        assert t.over
        nets.append(list(t.settle().net))
    assert nets[0] == nets[1] == [850, 0, -400, -450]


# --------------------------------------------------------------------------------------------
# The player left holding cards in 1st; thối hai outside thối.
# --------------------------------------------------------------------------------------------


def test_the_player_left_holding_cards_in_first_place_pays_no_thoi() -> None:
    # Huế: seats 0 and 1 go out on 2s and rank last (RULES §10: the first of them the very
    # last); seat 2, left holding ♥2 and four 7s, takes 1st: nobody is above it to collect thối,
    # and it leads the next game as the winner.
    t = later("hue", "4S 2S", "5S 2C", "6S 7S 7C 7D 7H 2H 9D")
    t.play(0, "4S").play(1, "5S").play(2, "6S").play(0, "2S").play(1, "2C")
    assert t.over
    assert t.places == (3, 2, 1)
    result = t.settle()
    assert transfers(result, TransferReason.ROTTEN) == []
    assert list(result.net) == [-200, -100, 300]
    after, _ = next_game(t.state, seed=3)
    assert after.to_act == 2


def test_rotten_two_flat_prices_the_twos_wherever_a_hand_is_charged_as_for_thoi() -> None:
    # Thối hai (13 stakes once for any 2s) is what a hand's 2s cost wherever the rule book
    # charges them "as for thối": a frozen player's hand (cóng) and an instant-win loser's with
    # đếm heo. A chop of a 2 is paid at the 2's penalty value (RULES §10, Northern).
    flat = {"rotten_two_flat": 13}
    frozen = later("southern", "KS", "2S 2H 5D", options=flat)
    frozen.play(0, "KS")
    assert transfers(frozen.settle(), TransferReason.ROTTEN) == [(1, 0, 1300)]
    pigs = later(
        "southern", "3D 3H 4D 4H 5D 5H 6D 6H 7D 7H", "2S 8S", options={**flat, "count_pigs": True}
    )
    assert pigs.of(InstantWin) == [InstantWin(0, "five_consecutive_pairs")]
    assert transfers(pigs.settle(), TransferReason.ROTTEN) == [(1, 0, 1300)]
    count = later("dem_la", "9S", "4C 2S 2H 5D", leader=1, options=flat)
    count.play(1, "4C").play(0, "9S")
    assert list(count.settle().net) == [1600, -1600]  # 3 cards + 13, not 3 + 2 + 4
    chop = later("southern", "2H 4H", "3S 3C 4S 4C 5S 5C 9D", options=flat)
    chop.play(0, "2H").play(1, "3S 3C 4S 4C 5S 5C").passes(0).play(1, "9D")
    assert transfers(chop.settle(), TransferReason.CHOP) == [(0, 1, 100)]


# --------------------------------------------------------------------------------------------
# Stealing the lead where 3 consecutive pairs are a bomb.
# --------------------------------------------------------------------------------------------

STEALING = {"lead_stealing": True}


def test_a_steal_back_is_a_paid_chop_where_three_pairs_are_a_bomb() -> None:
    # Southern chop table: 3 consecutive pairs chop smaller ones (RULES §5), so the previous
    # winner (seat 0) stealing the lead back with a higher 3 consecutive pairs chops, and is
    # paid 1½ stakes by the player it stole from; the first steal, made on an empty table,
    # chopped nothing. In Huế 3 consecutive pairs are no bomb: the same steal-back is unpaid.
    for variant, chops in (("southern", [(1, 0, 150)]), ("hue", [])):
        t = later(variant, "6S 6C 7S 7C 8S 8C", "3S 3C 4S 4C 5S 5C JD", options=STEALING)
        t.play(1, "3S 3C 4S 4C 5S 5C")
        assert not t.state.unplayed >> 1 & 1  # a steal is a play
        t.play(0, "6S 6C 7S 7C 8S 8C")
        assert t.over
        assert transfers(t.settle(), TransferReason.CHOP) == chops, variant


def test_without_stealing_over_the_winners_pairs_the_winner_still_steals_back() -> None:
    # steal_winner_pairs_lead = false closes stealing over the previous winner's own opening
    # 3 consecutive pairs (seat 2 may not take it out of turn); it doesn't stop the previous
    # winner stealing back a steal.
    options = {**STEALING, "steal_winner_pairs_lead": False}
    t = later("hue", "6S 6C 7S 7C 8S 8C QD", "3S 3C 4S 4C 5S 5C JD", "9H 10H", options=options)
    t.play(1, "3S 3C 4S 4C 5S 5C")
    assert t.to_act == 2
    assert t.can_play(0, "6S 6C 7S 7C 8S 8C")
    hands = ("6S 6C 7S 7C 8S 8C QD", "9H 10H", "9S 9C 10S 10C JS JC")
    for steal_over_winner in (True, False):
        own = later(
            "hue", *hands, options={**options, "steal_winner_pairs_lead": steal_over_winner}
        )
        own.play(0, "6S 6C 7S 7C 8S 8C")
        assert own.to_act == 1
        assert own.can_play(2, "9S 9C 10S 10C JS JC") is steal_over_winner
        if not steal_over_winner:
            assert own.refused(2, "9S 9C 10S 10C JS JC") == Reason.CANNOT_STEAL_LEAD


# --------------------------------------------------------------------------------------------
# Hands of more than 13 cards; what the card count makes of the cóng options.
# --------------------------------------------------------------------------------------------


def test_hands_of_more_than_13_cards_only_where_the_table_deals_every_card() -> None:
    # RULES §10: explicit deals of 1-13 cards, 1-18 where all 52 are dealt (Đấu's 17/17/18);
    # cards_per_hand never allows more than 13, and deal_all_cards allows 18 on any preset.
    long_hand = "3S 4S 5S 6S 7S 9S 10D JD QD KD AD 3H 4H 5H"
    for variant, options in (("southern", {}), ("dau", {"deal_all_cards": False})):
        with pytest.raises(SetupError) as refused:
            deal(variant, long_hand, "5D", "6D", options=options, first_game=False, leader=0)
        assert refused.value.code == "INVALID_DEAL"
    t = deal(
        "southern",
        long_hand,
        "5D",
        "6D",
        options={"deal_all_cards": True},
        first_game=False,
        leader=0,
    )
    assert t.state.hands[0].bit_count() == 14


@pytest.mark.parametrize("variant", ["northern", "hue"])
def test_under_the_card_count_the_first_player_out_wins_whatever_it_goes_out_on(
    variant: str,
) -> None:
    # Source 004: "ván chơi sẽ kết thúc ngay khi có người đánh hết ... người đó cũng là người
    # chiến thắng" — going out on a 2 ranks nobody last where the card count prices no place
    # (it went on, the player holding no card and paying nothing).
    t = later(variant, "5S 2S", "6S 9S JS", "7S 10S QS", options={"scoring": "card_count"})
    t.play(0, "5S").play(1, "6S").play(2, "7S").play(0, "2S")
    assert t.over
    assert t.places[0] == 1
    assert list(t.settle().net) == [400, -200, -200]  # two cards left each
    old = new_game(
        build_rules(variant, {"scoring": "card_count"}, revision=1),
        3,
        hands=[cards("5S 2S"), cards("6S 9S JS"), cards("7S 10S QS")],
        first_game=False,
        leader=0,
    )[0]
    old_table = Table(old).play(0, "5S").play(1, "6S").play(2, "7S").play(0, "2S")
    assert not old_table.over  # a game dealt before revision 2 ranks it last, as dealt


def test_under_the_card_count_freeze_at_and_whole_table_change_nothing() -> None:
    # The card count ends at the win, the one finish that judges cóng: freeze_at is among the
    # options it leaves aside (`needs_places`), as frozen_pays; alone_with_frozen_pays_place
    # matters only where the frozen pay the winner and the others play on.
    assert "freeze_at" in CONSTRAINTS_BY_NAME["needs_places"].options
    assert "finish_on_two" in CONSTRAINTS_BY_NAME["needs_places"].options
    assert "frozen_pays" in CONSTRAINTS_BY_NAME["needs_places"].options
    alone = CONSTRAINTS_BY_NAME["needs_frozen_paying_the_winner"]
    assert alone.options == ("alone_with_frozen_pays_place",)
    nets = set()
    for freeze_at in ("first_finish", "every_finish", "until_win"):
        t = later("dem_la", "9S KS", "4S JD", "5S 6D QD", options={"freeze_at": freeze_at})
        t.play(0, "9S").play(1, "JD").passes(2).play(0, "KS")
        nets.add(tuple(t.settle().net))
    assert nets == {(700, -100, -600)}


# --------------------------------------------------------------------------------------------
# The one combination refused: following suit with mixed pairs or straights.
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variant", "options", "field"),
    [
        ("southern", {"follow_suit": True}, "options.same_colour_pairs"),
        (
            "southern",
            {"follow_suit": True, "same_colour_pairs": True},
            "options.single_suit_straights",
        ),
        ("northern", {"same_colour_pairs": False}, "options.same_colour_pairs"),
        ("northern", {"single_suit_straights": False}, "options.single_suit_straights"),
    ],
)
def test_following_suit_with_mixed_pairs_or_straights_is_refused_naming_its_constraint(
    variant: str, options: dict[str, object], field: str
) -> None:
    # RULES §6: the North follows a pair's colour and a straight's suit ("đồng chất, đồng màu");
    # a pair or straight of mixed colours or suits has none to follow, and no source says what
    # follows it: refused rather than guessed (the engine followed a mixed pair as black).
    with pytest.raises(SetupError) as refused:
        build_rules(variant, options)
    error = refused.value
    assert (error.code, error.constraint, error.field) == (
        "INCOMPATIBLE_OPTIONS",
        "follow_suit_needs_one_colour_and_suit",
        field,
    )
    constraint = CONSTRAINTS_BY_NAME[error.constraint]
    assert (constraint.kind, constraint.refusal) == (
        ConstraintKind.REFUSED_UNLESS,
        "INCOMPATIBLE_OPTIONS",
    )
    assert set(constraint.options) == {"follow_suit", "same_colour_pairs", "single_suit_straights"}


def test_following_suit_is_played_with_pairs_of_one_colour_and_straights_of_one_suit() -> None:
    build_rules("northern")
    build_rules(
        "southern", {"follow_suit": True, "same_colour_pairs": True, "single_suit_straights": True}
    )
    build_rules("northern", {"follow_suit": False, "same_colour_pairs": False})


def test_a_game_dealt_before_the_refusal_is_played_as_it_was_dealt() -> None:
    # Rules revision 2 refuses the combination; a token of revision 1 keeps its game going.
    old = build_rules("southern", {"follow_suit": True}, revision=1)
    assert old.follow_suit
    assert not old.same_colour_pairs
