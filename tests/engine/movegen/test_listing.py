"""A seat's legal-move listing (`legal_listing`): the documented order, the groups and the chop
flags, RULES §3, §5. This is the one test of the order and of the flags: ListLegalMoves and
ValidateMove hand out what the engine lists (tests/service/test_rpcs.py checks only that).

The order: the pass first when it is legal, then the plays by type, length, top card, then the
cards. A play's `chop` flag is the flag `apply` records in its `Played` event.
"""

from __future__ import annotations

import random

import pytest
from helpers.moves import play, rules, start

from tienlen_rules import (
    Kind,
    Played,
    apply,
    build_rules,
    cards_of,
    chops,
    format_cards,
    legal_listing,
    legal_plays,
    new_game,
    pass_turn,
)
from tienlen_rules import play as play_move
from tienlen_rules.listing import PASS, sort_key
from tienlen_rules.state import GameState


def texts(state: GameState, seat: int) -> list[str]:
    return [
        "pass" if m.combination is None else format_cards(m.combination.cards)
        for m in legal_listing(state, seat).moves
    ]


def test_the_pass_comes_first_then_plays_by_type_length_and_strength() -> None:
    state = start("3S 9S", "4S 10S 10C JC QC KC", "5S JS", "6S QS")
    state = play(state, 0, "3S")
    assert texts(state, 1) == ["pass", "4S", "10S", "10C", "JC", "QC", "KC"]


def test_a_lead_lists_singles_pairs_straights_then_consecutive_pairs() -> None:
    state = start("9D 10D", "6S 6C 7S 7C 8S 8C", "5D 9S", "6D 10H", leader=1)
    assert texts(state, 1) == [
        *("6S", "6C", "7S", "7C", "8S", "8C"),
        *("6S 6C", "7S 7C", "8S 8C"),
        *("6S 7S 8S", "6C 7S 8S", "6S 7C 8S", "6C 7C 8S"),
        *("6S 7S 8C", "6C 7S 8C", "6S 7C 8C", "6C 7C 8C"),
        "6S 6C 7S 7C 8S 8C",
    ]


def test_a_lead_lists_every_play_in_sort_order_and_cannot_pass() -> None:
    state = start("3S 3C 4S 5S 5C 6D", "9S", "10S", "JS")
    listing = legal_listing(state, 0)
    assert not listing.can_pass
    assert PASS not in listing.moves
    combos = [m.combination for m in listing.moves]
    assert combos == sorted(combos, key=lambda c: sort_key(c) if c else (0, 0, 0, 0))
    kinds = [c.kind for c in combos if c]
    assert kinds == sorted(kinds)
    assert texts(state, 0)[:6] == ["3S", "3C", "4S", "5S", "5C", "6D"]  # singles, weakest first
    assert "3S 4S 5S 6D" in texts(state, 0)
    assert "3S 3C" in texts(state, 0)
    # A straight of 3 comes before every straight of 4, whatever its top card.
    straights = [format_cards(c.cards) for c in combos if c and c.kind == Kind.STRAIGHT]
    assert straights.index("3S 4S 5S") < straights.index("3S 4S 5S 6D")
    assert straights.index("4S 5C 6D") < straights.index("3S 4S 5S 6D")


def test_groups_count_every_play_by_type_and_length_in_listing_order() -> None:
    state = start("3S 3C 4S 5S 5C 6D", "9S", "10S", "JS")
    listing = legal_listing(state, 0)
    assert list(listing.groups) == sorted(listing.groups)
    assert listing.groups == {
        (Kind.SINGLE, 1): 6,
        (Kind.PAIR, 2): 2,
        (Kind.STRAIGHT, 3): 6,  # 3-4-5 (2x1x2) and 4-5-6 (1x2x1)
        (Kind.STRAIGHT, 4): 4,  # 3-4-5-6 (2x1x2x1)
    }
    assert sum(listing.groups.values()) == len(listing.moves)


def test_a_filter_keeps_one_group_and_drops_the_pass() -> None:
    state = start("3S 9S", "4S 4C 10S 10C", "5S JS", "6S QS")
    state = play(state, 0, "3S")
    listing = legal_listing(state, 1)
    assert listing.can_pass
    assert listing.matching() == listing.moves
    assert listing.moves[0] is PASS
    singles = listing.matching(Kind.SINGLE)
    assert [format_cards(m.combination.cards) for m in singles if m.combination] == [
        "4S",
        "4C",
        "10S",
        "10C",
    ]
    assert listing.matching(length=1) == singles
    assert listing.matching(Kind.PAIR) == ()  # a single is on the table: no pair may follow


def test_a_chop_is_flagged_and_a_plain_beat_is_not() -> None:
    state = start("2S 9S", "3C 3D 4S 4C 5S 5C 10S", "6S JS", "7S QS")
    state = play(state, 0, "2S")
    flagged = {
        format_cards(m.combination.cards): m.chop
        for m in legal_listing(state, 1).moves
        if m.combination
    }
    assert flagged == {"3C 3D 4S 4C 5S 5C": True}  # only 3 consecutive pairs go over the 2
    state = start("3S 9S", "4S 4C 10S 10C", "5S JS", "6S QS")
    state = play(state, 0, "9S")
    assert not any(m.chop for m in legal_listing(state, 1).moves)


def test_an_out_of_turn_chop_is_listed_for_a_seat_not_to_act() -> None:
    # Southern: 4 consecutive pairs chop a 2 out of turn (chặt không cần vòng).
    state = start("2S 9S", "10S JS", "3S 3C 4S 4C 5S 5C 6S 6C 8S", "7S QS")
    state = play(state, 0, "2S")
    assert state.to_act == 1
    listing = legal_listing(state, 2)
    assert not listing.can_pass
    assert [
        (format_cards(m.combination.cards), m.chop) for m in listing.moves if m.combination
    ] == [("3S 3C 4S 4C 5S 5C 6S 6C", True)]


def test_a_seat_with_nothing_to_do_lists_nothing() -> None:
    state = start("3S 9S", "4S 10S", "5S JS", "6S QS")
    listing = legal_listing(state, 2)
    assert listing.moves == ()
    assert not listing.can_pass
    assert listing.groups == {}


PRESETS = ("southern", "northern", "hue", "da_nang", "dau", "dem_la")


@pytest.mark.parametrize("variant", PRESETS)
def test_the_listing_is_the_legal_plays_and_every_chop_flag_is_what_apply_records(
    variant: str,
) -> None:
    """Seeded games of every preset, played with random listed moves for 40 games: at every
    step, for every seat, the listing holds exactly the legal plays (and the pass when legal),
    and applying a listed play records a `Played` event with the listed chop flag."""
    ruleset = build_rules(variant)
    rng = random.Random(variant)
    chops_seen = steps = 0
    for game in range(40):
        players = 3 if ruleset.deal_all_cards else 4
        state, _ = new_game(ruleset, players, seed=game)
        while not state.over:
            for seat in range(players):
                listing = legal_listing(state, seat)
                plays, can_pass = legal_plays(state, seat)
                assert listing.can_pass == can_pass
                assert (listing.moves[:1] == (PASS,)) == can_pass
                listed = [m.combination for m in listing.moves if m.combination]
                assert sorted(listed, key=sort_key) == listed
                assert set(listed) == set(plays)
                assert len(listed) == len(plays)
                for entry in listing.moves:
                    combo = entry.combination
                    if combo is None:
                        continue
                    assert entry.chop == chops(state, combo)
                    _, events = apply(state, play_move(seat, tuple(cards_of(combo.cards))))
                    played = next(e for e in events if isinstance(e, Played))
                    assert played.chop == entry.chop, (variant, game, format_cards(combo.cards))
                    chops_seen += entry.chop
            seat = state.to_act
            choices = legal_listing(state, seat).moves
            combo = choices[rng.randrange(len(choices))].combination
            move = (
                pass_turn(seat) if combo is None else play_move(seat, tuple(cards_of(combo.cards)))
            )
            state, _ = apply(state, move)
            steps += 1
    assert steps > 40 * players, "the games were too short to prove anything"
    assert chops_seen, f"no chop was listed in 40 {variant} games: the flag went untested"


FOLLOWING = rules(follow_suit=True, same_colour_pairs=True, single_suit_straights=True)


def test_rules_keep_the_listing_to_the_legal_plays() -> None:
    state = start("3S 9S", "4S 4C 10S", "5S JS", "6S QS", ruleset=FOLLOWING)
    state = play(state, 0, "3S")
    assert texts(state, 1) == ["pass", "4S", "10S"]  # following suit: no ♣4
