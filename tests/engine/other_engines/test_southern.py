"""Other implementations' test suites, ported as Southern rule scenarios (RULES §1-§8).

Each test below restates a case from another public Tiến Lên / Thirteen engine's own test suite,
written against this engine in card notation, with a one-line comment naming the repository and
file it comes from. Where that implementation expects something RULES.md does not say, the test
follows RULES.md and the difference is listed here (the Northern, Huế, Đấu and đếm lá cases are
in tests/engine/other_engines/test_presets.py). Their plain beat and chop cases, one line each
with the same source comments, are data: tests/engine/combinations/relations.txt (singles,
pairs, straights) and tests/engine/chops/relations.txt (chops).

Sources (GitHub repository: test files read):

- uongsuadaubung/tien-len: tests/engine/{combinations,validator,instant-win,chop-cascade,
  edge-cases,game-flow,three-spades-rule,prohibit-ending-with-two}.test.ts,
  crates/tien_len_core/tests/{combination,engine}_tests.rs
- binhrobles/thirteen: packages/game-logic/__tests__/{play,move-validator,game-state}.test.ts
- ishkanan/tienlen: api/game/cards_test.go
- nguyenank/tien-len: src/tests/{compareCards,validCombination,turnOrder,winners}.test.js
- Flexiblefabric/Tien-Len: tests/test_rules.py
- spencerng94/thirteen-cards: utils/gameLogic.test.ts
- LarryBui/ThirteenV4: Server/tests/integration/{pig_chopping,bomb_gameplay,invalid_moves}.test.ts
- idoodis/tien-len-showdown: tests/rules/{combos,compare,engine}.test.ts

Where they differ from RULES.md (the tests here follow RULES.md):

| source | their expectation | RULES.md (this engine) |
|---|---|---|
| binhrobles move-validator | a suited run is beaten only by a suited run | §3: a straight is beaten by any higher straight of the same length |
| binhrobles move-validator | 5 consecutive pairs chop a triple of 2s | §5: a triple of 2s can't be chopped |
| nguyenank compareCards | a four of a kind does not chop a pair of 2s | §5: it does |
| Flexiblefabric test_rules | a four of a kind beats any non-bomb (a pair of 4s) | §3, §5: a bomb only chops 2s and smaller bombs |
| Flexiblefabric test_rules | option: hearts lowest, the 3♥ leads | §1: suit order is fixed; ♠3 (♣3 in Huế) leads |
| ishkanan cards_test | consecutive triples, consecutive fours of a kind are combinations | §3: consecutive triples only in Đấu; consecutive fours never |
| uongsuadaubung chop-cascade | each chop is paid when it is made; amounts in their own units; option to pay each link separately | §5, §8: the whole chain is paid once it ends, by the last chopped player, at the penalty values |
| uongsuadaubung prohibit-ending-with-two | going out on a 2 (or a pair of 2s) is an illegal move | §4: allowed in the South; Northern and Huế rank you last (variants file) |
| uongsuadaubung game-flow, edge-cases | explicit test deals skip the instant-win check (13 black cards; four 2s) | §7: every deal is checked; the deals are instant wins here |
| nguyenank turnOrder, winners | "tiến lên": once everyone passed, the round's winner goes on playing over their own cards | §4: the winner of the round leads a new round, everyone back in |
"""

from __future__ import annotations

import pytest
from helpers.moves import (
    SOUTHERN,
    combo,
    must,
    of_type,
    refusal,
    rules,
    run,
    run_events,
    settled,
    start,
    start_events,
    transfers,
)

from tienlen_rules import new_game
from tienlen_rules.cards import parse_card
from tienlen_rules.combinations import Kind
from tienlen_rules.errors import Reason
from tienlen_rules.events import (
    ChopSettled,
    GameOver,
    InstantWin,
    Played,
    PlayerFinished,
    PlayersFrozen,
    RoundWon,
)
from tienlen_rules.settlement import TransferReason
from tienlen_rules.state import play as play_move

NO_INSTANT_WINS = rules(instant_wins="none")
#: Their turn-order tests let a player go out before the others have played; here that freezes
#: them (cóng, RULES §7) and ends the game, so those scenarios switch freezing off.
NO_FREEZING = rules(freezing=False)


def instant(*hands: str, first_game: bool = False) -> tuple[int, str] | None:
    """(seat, pattern) of this deal's instant winner, or None when the game is played."""
    _, events = start_events(*hands, first_game=first_game)
    wins = of_type(events, InstantWin)
    return (wins[0].seat, wins[0].pattern) if wins else None


# --------------------------------------------------------------------------- combinations (§3)


@pytest.mark.parametrize(
    ("cards", "kind", "length", "top"),
    [
        # uongsuadaubung/tien-len tests/engine/combinations.test.ts
        ("3S", Kind.SINGLE, 1, "3S"),
        ("2H", Kind.SINGLE, 1, "2H"),
        ("7S 7H", Kind.PAIR, 2, "7H"),
        ("10S 10C 10H", Kind.TRIPLE, 3, "10H"),
        ("3S 4D 5C", Kind.STRAIGHT, 3, "5C"),
        ("10S JD QC KH AS", Kind.STRAIGHT, 5, "AS"),
        ("4S 4D 5C 5H 6S 6D", Kind.CONSECUTIVE_PAIRS, 3, "6D"),
        ("9S 9C 9D 9H", Kind.FOUR_OF_A_KIND, 4, "9H"),
        ("2S 2C 2D 2H", Kind.FOUR_OF_A_KIND, 4, "2H"),
        ("7S 7D 8C 8H 9S 9D 10C 10H", Kind.CONSECUTIVE_PAIRS, 4, "10H"),
        ("3S 3D 4S 4D 5S 5D 6S 6D 7S 7D", Kind.CONSECUTIVE_PAIRS, 5, "7D"),
        # binhrobles/thirteen packages/game-logic/__tests__/play.test.ts (determineCombo)
        ("AS AH AC", Kind.TRIPLE, 3, "AH"),
        ("AS AH AC AD", Kind.FOUR_OF_A_KIND, 4, "AH"),
        ("JS JC JD JH", Kind.FOUR_OF_A_KIND, 4, "JH"),
        ("3S 4C 5H 6D 7S 8C", Kind.STRAIGHT, 6, "8C"),
        # ishkanan/tienlen api/game/cards_test.go (TestPatternCheck)
        ("3S 3C 3D", Kind.TRIPLE, 3, "3D"),
        ("3S 3C 4D 4H 5S 5C 6D 6H", Kind.CONSECUTIVE_PAIRS, 4, "6H"),
        # nguyenank/tien-len src/tests/compareCards.test.js (validCombination)
        ("8S 8D 9C 9S 10H 10D", Kind.CONSECUTIVE_PAIRS, 3, "10H"),
        ("7S 7H 8S 8D 9C 9S 10H 10D", Kind.CONSECUTIVE_PAIRS, 4, "10H"),
        # spencerng94/thirteen-cards utils/gameLogic.test.ts; Flexiblefabric/Tien-Len tests/test_rules.py
        ("3S 3H 4S 4H 5S 5H", Kind.CONSECUTIVE_PAIRS, 3, "5H"),
        ("7S 8S 9S", Kind.STRAIGHT, 3, "9S"),
    ],
)
def test_each_combination_type_is_recognised_with_its_top_card(
    cards: str, kind: Kind, length: int, top: str
) -> None:
    """RULES §3: single (rác), pair (đôi), triple (sám cô), straight (sảnh), consecutive pairs
    (đôi thông), four of a kind (tứ quý); compared by their strongest card."""
    found = must(cards)
    assert (found.kind, found.length, found.top) == (kind, length, parse_card(top))


def test_straights_run_from_three_cards_up_to_the_dragon_three_to_ace() -> None:
    """RULES §3: a straight (sảnh) is 3 to 12 consecutive ranks in any suits."""
    # ishkanan/tienlen api/game/cards_test.go: every prefix of 3♠..A♥ from 3 cards is a straight
    ranks = ["3S", "4S", "5S", "6S", "7C", "8C", "9C", "10C", "JD", "QD", "KD", "AH"]
    for n in range(3, 13):
        found = must(" ".join(ranks[:n]))
        assert (found.kind, found.length) == (Kind.STRAIGHT, n)


@pytest.mark.parametrize(
    "cards",
    [
        "QS KD AH 2S",  # uongsuadaubung/tien-len tests/engine/combinations.test.ts
        "AS 2S 3S",  # uongsuadaubung/tien-len: no wrapping round through the 2
        "3S 4C 2H",  # uongsuadaubung/tien-len crates/tien_len_core/tests/combination_tests.rs
        "KS AC 2H",  # binhrobles/thirteen packages/game-logic/__tests__/play.test.ts
        "2H KD AD",  # nguyenank/tien-len src/tests/compareCards.test.js
        "2H 4S 3C",  # nguyenank/tien-len src/tests/validCombination.test.js
        "KS KD AS AH 2S 2D",  # uongsuadaubung/tien-len: consecutive pairs without a 2 either
        "3C 3S 4S 2C 4H 2H",  # nguyenank/tien-len src/tests/compareCards.test.js
    ],
)
def test_no_straight_or_consecutive_pairs_contains_a_two(cards: str) -> None:
    """RULES §3: straights and consecutive pairs contain no 2 (heo)."""
    assert combo(cards) is None


@pytest.mark.parametrize(
    "cards",
    [
        "7S 8S",  # uongsuadaubung/tien-len tests/engine/combinations.test.ts (not a pair)
        "10S 10C JH",  # uongsuadaubung/tien-len (not a triple)
        "3S 4D 6C",  # uongsuadaubung/tien-len (a gap)
        "3S 3D 4C 5H",  # uongsuadaubung/tien-len (a repeated rank)
        "4S 4D 5C 5H 7S 7D",  # uongsuadaubung/tien-len (pairs not consecutive)
        "3S 3H 4C",  # Flexiblefabric/Tien-Len tests/test_rules.py
        "3S 4S",  # Flexiblefabric/Tien-Len tests/test_rules.py ("Invalid combo")
        "3S 7H",  # binhrobles/thirteen move-validator.test.ts
        "3S 5C 7H",  # binhrobles/thirteen play.test.ts (a gap)
        "3S 4C",  # binhrobles/thirteen play.test.ts (too short)
        "3S 3C 5S 5C 6S 6C",  # binhrobles/thirteen play.test.ts (not consecutive)
        "9C 10D",  # nguyenank/tien-len src/tests/compareCards.test.js
        "9D 10C 10H",  # nguyenank/tien-len
        "9D 7S 10H",  # nguyenank/tien-len
        "9C 9S 10H 10D 9H 8D",  # nguyenank/tien-len (a triple is not a pair)
        "9C 9S 10H 10D 7S 7H",  # nguyenank/tien-len (not consecutive)
        "5S 6H",  # idoodis/tien-len-showdown tests/rules/combos.test.ts
        "AS 2C 3D",  # idoodis/tien-len-showdown (a 2 inside)
        "3S 3C 4D 5S 5C",  # idoodis/tien-len-showdown (a pair missing)
    ],
)
def test_cards_that_form_no_combination_are_not_a_play(cards: str) -> None:
    """RULES §3: a play must be exactly one combination."""
    assert combo(cards) is None


@pytest.mark.parametrize(
    "cards",
    [
        "3S 3C 3D 4S 4C 4D 5S 5C 5D",  # ishkanan/tienlen api/game/cards_test.go (patternSeqTriples)
        "3S 3C 3D 4S 4C 4D 5S 5C 5D 6S 6C 6D",  # ishkanan/tienlen (4 consecutive triples)
        "3S 3C 3D 3H 4S 4C 4D 4H 5S 5C 5D 5H",  # ishkanan/tienlen (patternSeqQuads)
    ],
)
def test_consecutive_triples_and_fours_are_no_southern_combination(cards: str) -> None:
    """RULES §3: consecutive triples (sám cô thông) are a combination only in Đấu; consecutive
    fours of a kind are none. ishkanan/tienlen accepts both; we follow RULES.md."""
    assert combo(cards) is None


# --------------------------------------------------------------------------- beating (§3)


@pytest.mark.parametrize(
    ("new", "table"),
    [
        ("3S 4D 5C 6H", "4S 5D 6C"),  # uongsuadaubung/tien-len validator.test.ts
        ("4S 5D 6C", "3S 4D 5C 6H"),  # uongsuadaubung/tien-len
        ("6S 7C 8H 9D", "3S 4C 5H"),  # binhrobles/thirteen move-validator.test.ts
    ],
)
def test_straights_of_different_lengths_do_not_beat_each_other(new: str, table: str) -> None:
    """RULES §3: "same length only"."""
    state = start(f"{table} QH", f"{new} KH")
    state = run(state, f"0: {table}")
    assert refusal(state, f"1: {new}") == Reason.WRONG_TYPE_OR_LENGTH


def test_a_play_must_have_the_type_of_the_table() -> None:
    """RULES §3: to beat a play you must play the same type."""
    # binhrobles/thirteen packages/game-logic/__tests__/move-validator.test.ts ("must match combo type")
    state = run(start("5S 9H", "7S 7H 10H"), "0: 5S")
    assert refusal(state, "1: 7S 7H") == Reason.WRONG_TYPE_OR_LENGTH


def test_a_four_of_a_kind_does_not_beat_a_pair_that_is_not_twos() -> None:
    """RULES §3, §5: a four of a kind chops 2s and smaller bombs only; on a pair of 4s it is the
    wrong type. Flexiblefabric/Tien-Len lets any bomb beat any non-bomb; we follow RULES.md."""
    # Flexiblefabric/Tien-Len tests/test_rules.py ("Bomb beats non-bomb")
    state = run(start("4H 4C 9H", "7S 7H 7C 7D 10H"), "0: 4H 4C")
    assert refusal(state, "1: 7S 7H 7C 7D") == Reason.WRONG_TYPE_OR_LENGTH


# --------------------------------------------------------------------------- chops (§5)


def test_a_bomb_never_chops_a_play_that_holds_something_besides_twos() -> None:
    """RULES §5: chops are played on 2s and bombs; a 2 inside another play is no target."""
    # nguyenank/tien-len src/tests/compareCards.test.js ("should not allow chops on non 2's")
    assert combo("2H 10S") is None


def test_three_consecutive_pairs_chop_a_two_led_in_a_new_round_after_a_pass() -> None:
    """RULES §4-§5: a pass locks a player out only until the round ends; in the next round they
    may chop the 2 in turn."""
    # LarryBui/ThirteenV4 Server/tests/integration/pig_chopping.test.ts (test 1); bomb_gameplay.test.ts
    state = start("3S 2H 9H", "3C 3D 4S 4C 5S 5C 10H", "8S JH", "9S QH", first_game=True)
    state = run(state, "0: 3S", "1: -", "2: -", "3: -", "0: 2H")
    state, events = run_events(state, "1: 3C 3D 4S 4C 5S 5C")
    assert of_type(events, Played)[0].chop


def test_three_consecutive_pairs_cannot_chop_after_passing_in_the_round() -> None:
    """RULES §4-§5: only 4 consecutive pairs chop out of turn; 3 consecutive pairs after a pass
    in the same round are locked out (qua tay)."""
    # LarryBui/ThirteenV4 Server/tests/integration/invalid_moves.test.ts ("Chop After Pass")
    state = start("3S 2H 9H", "3C 3D 4S 4C 5S 5C 10H", "8S JH", "9S QH", first_game=True)
    state = run(state, "0: 3S", "1: -", "2: -", "3: -", "0: 2H", "1: -", "2: -")
    assert refusal(state, "1: 3C 3D 4S 4C 5S 5C") == Reason.LOCKED_OUT_OF_ROUND


def test_three_consecutive_pairs_do_not_chop_a_pair_of_twos_in_play() -> None:
    """RULES §5: 3 consecutive pairs chop a single 2 only."""
    # LarryBui/ThirteenV4 Server/tests/integration/invalid_moves.test.ts ("Invalid Chop")
    state = start("3S 2S 2C 9H", "3C 3D 4S 4C 5S 5C 10H", "8S JH", "9S QH", first_game=True)
    state = run(state, "0: 3S", "1: -", "2: -", "3: -", "0: 2S 2C")
    assert refusal(state, "1: 3C 3D 4S 4C 5S 5C") == Reason.WRONG_TYPE_OR_LENGTH


@pytest.mark.parametrize(
    ("pigs", "bomb"),
    [
        ("2H", "5S 5C 5D 5H"),  # LarryBui/ThirteenV4 pig_chopping.test.ts ("Quad chops Single 2")
        ("2S 2C", "AS AC AD AH"),  # LarryBui/ThirteenV4 ("Quad chops Pair 2")
        ("2S 2C", "3C 3D 4S 4C 5S 5C 6S 6C"),  # LarryBui/ThirteenV4 ("4-Pine chops Pair 2")
    ],
)
def test_bombs_chop_twos_through_the_engine(pigs: str, bomb: str) -> None:
    """RULES §5: the chop is a legal move and is recorded as a chop."""
    state = start(f"3S {pigs} 9H", f"{bomb} 10H", "8S JH", "9S QH", first_game=True)
    state = run(state, "0: 3S", "1: -", "2: -", "3: -", f"0: {pigs}")
    state, events = run_events(state, f"1: {bomb}")
    assert of_type(events, Played)[0].chop


def test_four_consecutive_pairs_chop_a_two_in_the_round_after_passing_or_out_of_turn() -> None:
    """RULES §5: 4 consecutive pairs chop a 2 out of turn (không cần vòng), even after passing."""
    # uongsuadaubung/tien-len tests/engine/edge-cases.test.ts ("4 Đôi Thông ... kể cả khi đã Bỏ Lượt")
    four_pairs = "4S 4D 5S 5D 6S 6D 7S 7D"
    hands = ("3S 2H 9H", f"{four_pairs} 10H", "8S 9S 10S", "JS QS KS")
    # Their scenario: p2 passed on the 3♠, the round ended, and p1 led 2♥: p2 chops in turn.
    state = run(start(*hands, first_game=True), "0: 3S", "1: -", "2: -", "3: -", "0: 2H")
    state, events = run_events(state, f"1: {four_pairs}")
    assert of_type(events, Played)[0].chop
    assert not of_type(events, Played)[0].out_of_turn
    # Passing on the 2 itself in the same round: the chop comes out of turn.
    state = run(start(*hands, first_game=True), "0: 3S", "1: -", "2: -", "3: -", "0: 2H", "1: -")
    assert state.to_act == 2
    state, events = run_events(state, f"1: {four_pairs}")
    assert of_type(events, Played)[0].chop
    assert of_type(events, Played)[0].out_of_turn


def test_a_four_chained_chop_is_legal_two_three_pairs_four_four_pairs() -> None:
    """RULES §5 (chặt chồng): 2♥ ← 3 consecutive pairs ← four of a kind ← 4 consecutive pairs;
    when the chain ends the four's player pays 1 + 1½ + 2 = 4½ stakes to the last chopper."""
    # uongsuadaubung/tien-len tests/engine/edge-cases.test.ts ("Chặt Chồng: Heo -> 3 Đôi Thông -> Tứ Quý -> 4 Đôi Thông")
    hands = ("3S 2H 3H", "4S 4D 5S 5D 6S 6D 4H", "7S 7C 7D 7H 5H", "8S 8D 9S 9D 10S 10D JS JD 6H")
    state = run(start(*hands, first_game=True), "0: 3S", "1: -", "2: -", "3: -", "0: 2H")
    state, events = run_events(
        state, "1: 4S 4D 5S 5D 6S 6D", "2: 7S 7C 7D 7H", "3: 8S 8D 9S 9D 10S 10D JS JD"
    )
    assert all(p.chop for p in of_type(events, Played))
    state, events = run_events(state, "0: -", "1: -", "2: -")
    assert [(e.payer, e.payee, e.amount, e.links) for e in of_type(events, ChopSettled)] == [
        (2, 3, 450, 3)
    ]


def test_a_single_chop_is_paid_by_the_chopped_player_when_the_chain_ends() -> None:
    """RULES §5, §8: A's ♠2 chopped by B's 3 consecutive pairs: A pays B ½ stake (50 chips),
    settled when the chain ends (uongsuadaubung/tien-len pays at once, in its own units)."""
    # uongsuadaubung/tien-len tests/engine/chop-cascade.test.ts ("1. Vòng Chặt Đơn Lẻ")
    hands = ("2S 3C", "3S 3H 4S 4H 5S 5H 4C", "6S 6C 6D 6H 5C", "7S 7H 8S 8H 9S 9H 10S 10H JD")
    state, events = run_events(start(*hands), "0: 2S", "1: 3S 3H 4S 4H 5S 5H")
    assert of_type(events, Played)[1].chop
    assert state.chop_payments == ()  # the chain can still be chopped: nothing paid yet
    state, events = run_events(state, "2: -", "3: -", "0: -")
    assert [(e.payer, e.payee, e.amount) for e in of_type(events, ChopSettled)] == [(0, 1, 50)]


def test_stacked_chops_the_last_chopped_player_pays_the_whole_chain() -> None:
    """RULES §5 (chặt chồng): 2♠ ← 3 consecutive pairs ← four of a kind: B pays C ½ + 1½ = 2
    stakes, A pays nothing."""
    # uongsuadaubung/tien-len tests/engine/chop-cascade.test.ts ("2. Chặt Chồng Liên Hoàn 2 Cấp")
    hands = ("2S 3C", "3S 3H 4S 4H 5S 5H 4C", "6S 6C 6D 6H 5C", "7S 7H 8S 8H 9S 9H 10S 10H JD")
    state = run(start(*hands), "0: 2S", "1: 3S 3H 4S 4H 5S 5H", "2: 6S 6C 6D 6H")
    state, events = run_events(state, "3: -", "0: -", "1: -")
    assert [(e.payer, e.payee, e.amount, e.links) for e in of_type(events, ChopSettled)] == [
        (1, 2, 200, 2)
    ]


def test_stacked_chops_three_links_the_four_of_a_kind_pays_the_four_consecutive_pairs() -> None:
    """RULES §5: 2♠ ← 3 consecutive pairs ← four of a kind ← 4 consecutive pairs: C pays D
    ½ + 1½ + 2 = 4 stakes; A and B pay nothing."""
    # uongsuadaubung/tien-len tests/engine/chop-cascade.test.ts ("3. Chặt Chồng Liên Hoàn 3 Cấp")
    hands = ("2S 3C", "3S 3H 4S 4H 5S 5H 4C", "6S 6C 6D 6H 5C", "7S 7H 8S 8H 9S 9H 10S 10H JD")
    state = run(
        start(*hands),
        "0: 2S",
        "1: 3S 3H 4S 4H 5S 5H",
        "2: 6S 6C 6D 6H",
        "3: 7S 7H 8S 8H 9S 9H 10S 10H",
    )
    state, events = run_events(state, "0: -", "1: -", "2: -")
    assert [(e.payer, e.payee, e.amount, e.links) for e in of_type(events, ChopSettled)] == [
        (2, 3, 400, 3)
    ]


def test_chopping_a_red_two_with_three_consecutive_pairs_pays_one_stake() -> None:
    """RULES §8: a red 2 (♦2, ♥2) is worth 1 stake when chopped."""
    # uongsuadaubung/tien-len tests/engine/game-flow.test.ts ("Phạt chặt Heo tức thì")
    hands = ("3S 2H 3C", "4S 4D 5S 5D 6S 6D 8H", "7S 8S 9S", "10S JS QS")
    state = run(start(*hands, first_game=True), "0: 3S", "1: -", "2: -", "3: -", "0: 2H")
    state, events = run_events(state, "1: 4S 4D 5S 5D 6S 6D", "2: -", "3: -", "0: -")
    assert [(e.payer, e.payee, e.amount) for e in of_type(events, ChopSettled)] == [(0, 1, 100)]


@pytest.mark.parametrize(
    ("pigs", "chips"),
    [("2S 2C", 100), ("2S 2H", 150), ("2D 2H", 200)],
)
def test_a_chopped_pair_of_twos_is_worth_the_sum_of_its_two_cards(pigs: str, chips: int) -> None:
    """RULES §8: a pair of 2s is worth the sum of its cards: two black ½ + ½, mixed ½ + 1, two
    red 1 + 1 stakes (the same ratios as uongsuadaubung/tien-len's 2x, 3x, 4x bet)."""
    # uongsuadaubung/tien-len tests/engine/economy.test.ts ("Chặt Đôi Heo (2 Đen vs 1 Đỏ 1 Đen vs 2 Đỏ)")
    state = start(f"{pigs} 9H", "5S 5D 5C 5H 10H", "3S JH")
    state, events = run_events(state, f"0: {pigs}", "1: 5S 5D 5C 5H", "2: -", "0: -")
    assert [(e.payer, e.payee, e.amount) for e in of_type(events, ChopSettled)] == [(0, 1, chips)]


# --------------------------------------------------------------------------- leading (§4)


def test_a_dealt_game_gives_thirteen_cards_each_and_the_first_game_needs_three_of_spades() -> None:
    """RULES §2, §4: 13 cards each; a first game is led by the ♠3 holder, with the ♠3."""
    # uongsuadaubung/tien-len crates/tien_len_core/tests/engine_tests.rs (test_start_new_game_deals_13_cards)
    for seed in range(1, 6):
        state, events = new_game(SOUTHERN, 4, seed=seed, first_game=True)
        assert [hand.bit_count() for hand in state.hands] == [13, 13, 13, 13]
        if of_type(events, InstantWin):  # valid too, as in the source
            continue
        assert state.must_include == parse_card("3S")
        assert state.hands[state.to_act] >> parse_card("3S") & 1


def test_the_holder_of_three_of_spades_leads_the_first_game() -> None:
    """RULES §4: in a first game the ♠3 holder leads."""
    # binhrobles/thirteen packages/game-logic/__tests__/game-state.test.ts ("starting player ... 3♠")
    state = start("5S 6C", "3S 4H", "7D 8C", "9H 10S", first_game=True)
    assert state.to_act == 1


def test_a_full_deal_where_several_hands_qualify_is_won_by_the_three_of_spades_holder() -> None:
    """RULES §7: every deal is checked for instant wins; several qualify (a dragon, 12+ cards of
    one colour): the first in seat order from the would-be leader (the ♠3 holder) wins."""
    # uongsuadaubung/tien-len tests/engine/game-flow.test.ts ("Khởi tạo ván 1 ... 3♠ đi trước")
    hands = (
        "4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2S 2C",
        "3S 4D 5D 6D 7D 8D 9D 10D JD QD KD AD 2D",
        "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 2H",
        "3D 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",
    )
    assert instant(*hands, first_game=True) == (1, "dragon")
    # Their test deal skips the instant-win check; without instant wins the ♠3 holder leads.
    state = start(*hands, first_game=True, ruleset=NO_INSTANT_WINS)
    assert (state.to_act, state.must_include) == (1, parse_card("3S"))


@pytest.mark.parametrize(
    ("lead", "allowed"),
    [
        ("3S", True),  # uongsuadaubung/tien-len tests/engine/validator.test.ts
        ("3S 4D 5C", True),  # uongsuadaubung/tien-len
        ("3D", False),  # uongsuadaubung/tien-len
        ("4D 5C 6C", False),  # uongsuadaubung/tien-len
        ("4D", False),  # Flexiblefabric/Tien-Len tests/test_rules.py; spencerng94/thirteen-cards
    ],
)
def test_the_first_lead_of_a_first_game_must_contain_three_of_spades(
    lead: str, *, allowed: bool
) -> None:
    """RULES §4: the first lead contains ♠3, alone or inside any combination."""
    state = start("3S 3D 4D 5C 6C 9H", "7H 8H", first_game=True)
    if allowed:
        assert run(state, f"0: {lead}").table_seat == 0
    else:
        assert refusal(state, f"0: {lead}") == Reason.MUST_INCLUDE_STARTING_CARD


def test_two_players_without_three_of_spades_the_lowest_dealt_card_leads() -> None:
    """RULES §4 [ours]: if nobody holds ♠3 (2-3 players), the holder of the lowest dealt card
    leads and must include it."""
    # idoodis/tien-len-showdown tests/rules/engine.test.ts ("starts with the seat holding the lowest dealt card")
    without_three_of_spades = 0
    for seed in range(1, 9):
        state, events = new_game(SOUTHERN, 2, seed=seed, first_game=True)
        if of_type(events, InstantWin):
            continue
        lowest = min(hand & -hand for hand in state.hands).bit_length() - 1
        without_three_of_spades += lowest != parse_card("3S")
        assert state.must_include == lowest
        assert state.hands[state.to_act] >> lowest & 1
        other = (state.hands[state.to_act] & ~(1 << lowest)).bit_length() - 1
        assert refusal(state, play_move(state.to_act, [other])) == (
            Reason.MUST_INCLUDE_STARTING_CARD
        )
    assert without_three_of_spades  # the seeds include deals that leave ♠3 out


def test_two_players_when_the_other_passes_the_leader_leads_again() -> None:
    """RULES §4: with two players one pass ends the round."""
    # idoodis/tien-len-showdown tests/rules/engine.test.ts ("controller re-leads with empty trick")
    state, events = run_events(start("3S 9H", "4D 5D", first_game=True), "0: 3S", "1: -")
    assert of_type(events, RoundWon) == [RoundWon(0, 0)]
    assert (state.to_act, state.table) == (0, None)


def test_the_leader_cannot_pass() -> None:
    """RULES §4: the leader of a round plays a combination; passing is for followers."""
    # Flexiblefabric/Tien-Len tests/test_rules.py ("Passing on the opening turn is forbidden");
    # binhrobles/thirteen game-state.test.ts ("can't pass with power"); idoodis/tien-len-showdown engine.test.ts
    state = start("3S", "4H", "7C", "9S", first_game=True)
    assert refusal(state, "0: -") == Reason.LEADER_CANNOT_PASS


def test_a_fresh_round_may_be_led_with_any_card() -> None:
    """RULES §4: outside the first lead of a first game, the leader plays any combination."""
    # spencerng94/thirteen-cards utils/gameLogic.test.ts ("allows leading with any card on a fresh round");
    # binhrobles/thirteen move-validator.test.ts ("opening moves ... accepts any valid combo")
    for lead in ("5S", "5S 5H", "3S 4C 5H"):
        assert run(start("3S 4C 5S 5H 9D", "7H 8H"), f"0: {lead}").table_seat == 0
    assert refusal(start("3S 7H 9D", "8H"), "0: 3S 7H") == Reason.NOT_A_COMBINATION


# --------------------------------------------------------------------------- turns and rounds (§4)


def test_play_goes_round_and_the_last_player_to_play_leads_when_everyone_else_passed() -> None:
    """RULES §4: seat order; when every other player has passed since the last play, its player
    leads a new round (vòng mới)."""
    # uongsuadaubung/tien-len tests/engine/game-flow.test.ts ("Vòng chơi: ... Giành Cái")
    hands = ("3S 6S 7S 8S", "4S 7D 8D 9D", "5S 9C 10C JC", "6C 10H JH QH")
    state = start(*hands, first_game=True)
    state = run(state, "0: 3S")
    assert state.to_act == 1
    state = run(state, "1: 4S")
    assert state.to_act == 2
    state = run(state, "2: 5S")
    assert state.to_act == 3
    state, events = run_events(state, "3: -", "0: -", "1: -")
    assert of_type(events, RoundWon) == [RoundWon(2, 2)]
    assert (state.to_act, state.table) == (2, None)


def test_the_round_returns_to_its_last_player_after_three_passes() -> None:
    """RULES §4: the leader's play stands when the other three pass."""
    # binhrobles/thirteen packages/game-logic/__tests__/game-state.test.ts ("round resets when all others pass")
    hands = ("3S 5C KH", "4H 6D AC", "7C 8H 10S", "9S 10D JC")
    state, events = run_events(start(*hands, first_game=True), "0: 3S", "1: -", "2: -", "3: -")
    assert of_type(events, RoundWon) == [RoundWon(0, 0)]
    assert (state.to_act, state.table) == (0, None)


def test_a_player_who_passed_is_skipped_and_cannot_play_until_the_round_ends() -> None:
    """RULES §4 (qua tay): a pass locks the player out of the round."""
    # LarryBui/ThirteenV4 Server/tests/integration/invalid_moves.test.ts ("Play After Pass");
    # binhrobles/thirteen game-state.test.ts ("pass locks player out of round");
    # nguyenank/tien-len src/tests/turnOrder.test.js ("should skip any players who have passed")
    state = start("3S 9H", "4S 5S", "6S 10H", "7S JH", first_game=True)
    state = run(state, "0: 3S", "1: -", "2: 6S", "3: -")
    assert state.to_act == 0
    assert refusal(state, "1: 5S") == Reason.LOCKED_OUT_OF_ROUND
    state, events = run_events(state, "0: -")
    assert of_type(events, RoundWon) == [RoundWon(2, 2)]  # seat 1 is not asked again
    assert state.to_act == 2
    assert refusal(state, "1: 5S") == Reason.NOT_YOUR_TURN


def test_playing_out_of_turn_is_refused() -> None:
    """RULES §4: players act in seat order."""
    # LarryBui/ThirteenV4 invalid_moves.test.ts ("Out of Turn"); binhrobles/thirteen game-state.test.ts
    state = run(start("3S 9H", "4S 10H", "5S JH", "6S QH", first_game=True), "0: 3S")
    assert refusal(state, "2: 5S") == Reason.NOT_YOUR_TURN


def test_a_card_not_in_hand_cannot_be_played() -> None:
    """A play is made of the player's own cards."""
    # binhrobles/thirteen packages/game-logic/__tests__/game-state.test.ts ("rejects card not in hand")
    state = start("3S", "4H", "7C", "9S", first_game=True)
    assert refusal(state, "0: AH") == Reason.CARD_NOT_IN_HAND


# --------------------------------------------------------------------------- finishing (§4)


def test_a_player_going_out_takes_first_place_and_the_lead_passes_to_the_next_seat() -> None:
    """RULES §4 (hưởng sái): the winner's last play stands; the next player in seat order who
    still holds cards leads the new round, and the game goes on for the other places."""
    # uongsuadaubung/tien-len tests/engine/game-flow.test.ts ("... tiếp tục thi đấu tìm Nhì, Ba, Bét")
    hands = ("3S 3D", "5S 6S 7S 8S", "9S 10S JS QS", "KS AS 2S 2D")
    state, events = run_events(start(*hands, first_game=True, ruleset=NO_FREEZING), "0: 3S 3D")
    assert of_type(events, PlayerFinished) == [PlayerFinished(0, 1, ranked_last=False)]
    assert not state.over
    assert state.to_act == 1
    state = run(state, "1: -", "2: -")
    assert state.to_act == 3
    state, events = run_events(state, "3: -")
    assert of_type(events, RoundWon) == [RoundWon(0, 1)]
    assert state.to_act == 1


def test_after_the_last_card_the_others_may_still_beat_it_and_win_the_round() -> None:
    """RULES §4: the others may still beat the finishing play; whoever makes the last play of
    the round leads the next one."""
    # uongsuadaubung/tien-len tests/engine/game-flow.test.ts ("... có thể chặt hoặc bắt bài tiếp tục")
    state = start("3S", "5S 6S", "7S 8S", "9S 10S", first_game=True, ruleset=NO_FREEZING)
    state = run(state, "0: 3S")
    assert state.to_act == 1
    state = run(state, "1: 5S", "2: 7S", "3: -")
    assert state.to_act == 1  # seat 0 has gone out and is skipped
    state, events = run_events(state, "1: -")
    assert of_type(events, RoundWon) == [RoundWon(2, 2)]


def test_the_lead_after_a_winning_last_card_goes_to_the_next_seat_clockwise() -> None:
    """RULES §4 (hưởng sái): the round's last player went out: the next seat holding cards leads."""
    # binhrobles/thirteen packages/game-logic/__tests__/game-state.test.ts ("gives power to the next player")
    state = start("3S", "5C 6D", "7H 8C", "9S 10D", first_game=True, ruleset=NO_FREEZING)
    state, events = run_events(state, "0: 3S", "1: -", "2: -", "3: -")
    assert of_type(events, RoundWon) == [RoundWon(0, 1)]
    assert state.to_act == 1


def test_when_the_round_ends_on_a_player_who_went_out_the_lead_skips_to_the_next_holder() -> None:
    """RULES §4: seats 1 and 2 go out in one round; when 3 and 0 pass, seat 3 (next after the
    last player, seat 2) leads."""
    # nguyenank/tien-len src/tests/winners.test.js ("should pass to the next player on if no clear next player")
    state = start("4H KC 2H", "KH", "AH", "2C 5H", ruleset=NO_FREEZING)
    state = run(state, "0: 4H", "1: KH", "2: AH")
    assert state.places[1:3] == (1, 2)
    state, events = run_events(state, "3: -", "0: -")
    assert of_type(events, RoundWon) == [RoundWon(2, 3)]
    assert state.to_act == 3


def test_the_game_ends_when_one_player_holds_cards_places_in_order_of_going_out() -> None:
    """RULES §4: players finish in order; the last one still holding cards is last."""
    # binhrobles/thirteen packages/game-logic/__tests__/game-state.test.ts ("emits game_over when only 1 player remains")
    state = start("3S", "4H", "5C", "6D", first_game=True, ruleset=NO_FREEZING)
    state, events = run_events(state, "0: 3S", "1: 4H", "2: 5C")
    assert of_type(events, GameOver) == [GameOver((1, 2, 3, 4))]


def test_places_follow_the_order_of_going_out() -> None:
    """RULES §4: seats 1, 2, 0 go out in that order; seat 3 is last."""
    # nguyenank/tien-len src/tests/winners.test.js ("should skip players who have won")
    state = start("4H KC 2H", "KH", "AH", "2C 5H", ruleset=NO_FREEZING)
    state = run(state, "0: 4H", "1: KH", "2: AH", "3: 2C", "0: 2H", "3: -")
    assert state.to_act == 0
    state = run(state, "0: KC")
    assert state.over
    assert state.places == (3, 1, 2, 4)


# --------------------------------------------------------------------------- frozen (§7)


def test_a_two_player_game_ends_when_the_first_player_goes_out() -> None:
    """RULES §4, §7-§8: with two players the game ends at the first finish; the other, who never
    played, is frozen and pays 2L (4 stakes)."""
    # uongsuadaubung/tien-len tests/engine/custom-modes-settlement.test.ts ("6. GameEngine Solo 1v1")
    state, events = run_events(start("3S", "4S 5S 6S", first_game=True), "0: 3S")
    assert of_type(events, GameOver) == [GameOver((1, 2))]
    assert transfers(settled(state)) == [(1, 0, 400)]


def test_players_who_have_not_played_when_the_first_player_goes_out_are_frozen() -> None:
    """RULES §7-§8 (cóng): the first player goes out with their first play; the three others
    never played: all frozen, the game ends, each pays 2L and their 2s and bombs."""
    # uongsuadaubung/tien-len tests/engine/game-flow.test.ts ("Kiểm tra luật Cóng")
    hands = ("3S 4S 5S", "2S 2C 2D 2H", "6S 7S 8S", "9S 10S JS")
    assert instant(*hands, first_game=True) == (1, "four_twos")  # their deal skips the check
    state = start(*hands, first_game=True, ruleset=NO_INSTANT_WINS)
    state, events = run_events(state, "0: 3S 4S 5S")
    assert of_type(events, PlayersFrozen) == [PlayersFrozen((1, 2, 3), (2, 3, 4))]
    assert state.over
    result = settled(state)
    assert transfers(result, TransferReason.FROZEN) == [(1, 0, 400), (2, 0, 400), (3, 0, 400)]
    assert sum(a for _, _, a in transfers(result, TransferReason.ROTTEN)) == 300  # ½+½+1+1


# --------------------------------------------------------------------------- instant wins (§7)


@pytest.mark.parametrize(
    ("hand", "pattern"),
    [
        # uongsuadaubung/tien-len tests/engine/instant-win.test.ts
        ("3S 4D 5C 6H 7S 8D 9C 10H JS QD KC AH 2S", "dragon"),
        ("3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2H", "same_suit_dragon"),
        ("2S 2C 2D 2H 3S 4S 5S 6S 7S 8S 9S 10S JS", "four_twos"),
        ("3S 3D 4S 4D 5S 5D 6S 6D 7S 7D 9S 10S JS", "five_consecutive_pairs"),
        ("3S 3D 5S 5D 7S 7D 9S 9D JS JD KS KD 2S", "six_pairs"),
        ("3D 3H 4D 4H 5D 6H 7D 8H 9D 10H JD QH KD", "twelve_of_one_colour"),
        ("3S 3C 4S 4C 5S 6C 7S 8C 9S 10C JS QC KS", "twelve_of_one_colour"),
    ],
)
def test_any_game_instant_wins(hand: str, pattern: str) -> None:
    """RULES §7 (tới trắng), any game: the dragon 3..A (a 13th card doesn't matter), the
    same-suit dragon, four 2s, 5 consecutive pairs, 6 pairs, 12+ cards of one colour
    (uongsuadaubung/tien-len asks for 13; 13 are 12 or more)."""
    other = "6D" if "6D" not in hand else "6C"
    assert instant(other, hand) == (1, pattern)


def test_four_threes_win_instantly_only_in_a_first_game() -> None:
    """RULES §7: four 3s (tứ quý 3) are a first-game instant win, nothing in a later game."""
    # uongsuadaubung/tien-len tests/engine/instant-win.test.ts ("Tứ Quý 3 ở Ván Đầu Tiên")
    hand = "3S 3C 3D 3H 4S 5S 6S 7S 8S 9S 10S JS QS"
    assert instant("KD", hand, first_game=True) == (1, "four_threes")
    assert instant("KD", hand, first_game=False) is None


# --------------------------------------------------------------------------- settlement (§8)


def test_finishing_on_a_two_is_allowed_in_the_south() -> None:
    """RULES §4: in the Southern game a player may go out with a 2 or a pair of 2s, and takes
    the place earned. uongsuadaubung/tien-len refuses the move (an option there); see the
    variants file for the Huế and Northern "ranks last" rules."""
    # uongsuadaubung/tien-len tests/engine/prohibit-ending-with-two.test.ts
    for last in ("2H", "2S 2H"):
        state = start(f"5C AH {last}", "6D 8D", "7D 9D")
        state = run(state, "0: 5C", "1: 6D", "2: 7D", "0: AH", "1: -", "2: -")
        state, events = run_events(state, f"0: {last}")
        assert of_type(events, PlayerFinished) == [PlayerFinished(0, 1, ranked_last=False)]


def test_rotten_twos_and_four_of_a_kind_left_in_the_last_hand() -> None:
    """RULES §8 (thối): ♠2 ½ + ♥2 1 + four 9s 2 = 3½ stakes, paid by the last player."""
    # uongsuadaubung/tien-len tests/engine/edge-cases.test.ts ("Tính điểm phạt thối Heo Đen vs Heo Đỏ vs Tứ Quý")
    state = start("3C 5C", "4S 2S 2H 9S 9C 9D 9H 6D")
    state = run(state, "0: 3C", "1: 4S", "0: 5C")
    assert state.over
    assert sum(a for _, _, a in transfers(settled(state), TransferReason.ROTTEN)) == 350
