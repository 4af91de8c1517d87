"""Cóng under every scheme (issue #38): one decision says who is frozen, at which finish, under
which scheme (places, points or the card count) and with which exemption, and the view and the
events say frozen exactly where the settlement charges FROZEN.

- `freeze_exempt_unplayed` is the Đà Nẵng rule of the win ("về nhất", sources 000/001/002): it
  spares the players who have not played only at the finish that takes 1st. A later finish
  that judges cóng (`freeze_at` = every_finish, or until_win before the win) freezes whoever has
  still not played.
- The card count (*đếm lá*) freezes at the win, the only finish it has: the exemption spares
  there too, and a frozen loser is shown frozen (PlayersFrozen, the view's flag) as it is
  charged (FROZEN, everything doubled).

Stake 100 chips; L = 2 stakes.
"""

from __future__ import annotations

from collections.abc import Mapping

from helpers.tables import Table, TransferReason, cards, later, transfers

from tienlen_rules import new_game
from tienlen_rules.events import GameOver, PlayerFinished, PlayersFrozen
from tienlen_rules.ruleset import build_rules
from tienlen_rules.seat_view import view
from tienlen_rules.settlement import settle

EVERY_FINISH_SPARING_ONE = {"freeze_at": "every_finish", "freeze_exempt_unplayed": 1}


def frozen_seats(t: Table) -> set[int]:
    """The seats the state, the view, the events and the settlement call frozen: one set, which
    the test asserts they agree on."""
    state = t.state
    in_state = {s for s in range(state.players) if state.frozen >> s & 1}
    in_view = {s for s in range(state.players) if view(state).frozen >> s & 1}
    in_events = {s for e in t.of(PlayersFrozen) for s in e.seats}
    charged = {p for p, _, _ in transfers(settle(state), TransferReason.FROZEN)}
    assert in_state == in_view == in_events == charged, (in_state, in_view, in_events, charged)
    return in_state


# --------------------------------------------------------------------------------------------
# freeze_at = every_finish: the exemption spares at the win only.
# --------------------------------------------------------------------------------------------


def test_every_finish_freezes_a_player_spared_at_the_win_once_another_goes_out() -> None:
    # Issue #38, finding 1. Seat 0 wins with seat 2 the one player unplayed: exactly
    # freeze_exempt_unplayed = 1, so seat 2 is spared and plays on. Seat 1 goes out 2nd with
    # seat 2 still unplayed: "a player spared by freeze_exempt_unplayed is frozen if still
    # unplayed when another goes out": seat 2 pays 2L (4 stakes) to the winner instead of its
    # place transfer, and seat 1 pays 2nd -> 1st (a stake) as usual.
    t = later("southern", "10S KS", "JS 4H", "3C 5C 6C", options=EVERY_FINISH_SPARING_ONE)
    t.play(0, "10S").play(1, "JS").passes(2).play(0, "KS")
    assert t.of(PlayersFrozen) == []  # spared at the win
    t.passes(1).play(1, "4H")
    assert t.of(PlayersFrozen) == [PlayersFrozen((2,), (3,))]
    assert t.over
    assert t.places == (1, 2, 3)
    assert list(t.settle().net) == [500, -100, -400]
    assert frozen_seats(t) == {2}


def test_every_finish_with_four_players_ends_the_game_when_the_spared_player_is_frozen() -> None:
    # 4 players: seat 0 wins with only seat 2 unplayed (spared); seat 1 goes out 2nd, and seat 2,
    # still unplayed, is frozen then: it takes 4th and has no more turns, seat 3 is left holding
    # cards and takes 3rd, and the game ends (it went on, seat 2 keeping its turns).
    t = later(
        "southern", "10S KS", "JS 4H", "3C 5C 6C", "QS 8D 9D", options=EVERY_FINISH_SPARING_ONE
    )
    t.play(0, "10S").play(1, "JS").passes(2).play(3, "QS").play(0, "KS")
    t.passes(1, 3).play(1, "4H")
    assert t.of(PlayersFrozen) == [PlayersFrozen((2,), (4,))]
    assert t.over
    assert t.places == (1, 2, 4, 3)
    # Seat 2 pays 2L to the winner; 3rd (seat 3) pays 2nd (seat 1) a stake; no last -> 1st.
    assert list(t.settle().net) == [400, 100, -400, -100]
    assert frozen_seats(t) == {2}


def test_until_win_freezes_at_a_finish_ranked_last_whatever_the_exemption() -> None:
    # Huế ranks a player going out on a 2 last. freeze_at = until_win judges that finish: seat 0
    # goes out on ♠2 (4th) with seat 3 the one player unplayed and seats 1 and 2 left to play
    # for 1st. The exemption (1) is the Đà Nẵng rule of the win: it doesn't spare seat 3 here.
    t = later(
        "hue",
        "5S 2S",
        "6S 9S JS",
        "7S 10S QS",
        "3C 4C 8D",
        options={"freeze_at": "until_win", "freeze_exempt_unplayed": 1},
    )
    t.play(0, "5S").play(1, "6S").play(2, "7S").passes(3).play(0, "2S")
    assert t.of(PlayersFrozen) == [PlayersFrozen((3,), (3,))]
    assert t.places == (4, 0, 0, 3)
    t.passes(1, 2).play(1, "9S").play(2, "10S").passes(1).play(2, "QS")
    assert t.over
    assert frozen_seats(t) == {3}


def test_the_exemption_still_spares_at_the_win_under_every_judging_scheme() -> None:
    # Đà Nẵng (freeze_exempt_unplayed = 2): at the win exactly two players have not played, so
    # nobody is frozen and play goes on, whatever freeze_at says.
    for freeze_at in ("first_finish", "every_finish", "until_win"):
        t = later(
            "da_nang",
            "9S KS",
            "4S JD 5H",
            "5S 6D QD",
            "7C 8C 10H",
            options={"freeze_at": freeze_at},
        )
        t.play(0, "9S").play(1, "JD").passes(2, 3).play(0, "KS")
        assert t.of(PlayersFrozen) == [], freeze_at
        assert not t.over


# --------------------------------------------------------------------------------------------
# The card count (đếm lá): frozen at the win, with the exemption, and shown frozen.
# --------------------------------------------------------------------------------------------


def test_card_count_spares_exactly_freeze_exempt_unplayed_players() -> None:
    # Issue #38, finding 2: đếm lá with freeze_exempt_unplayed = 2: seat 0 wins with seats 2
    # and 3 exactly the two unplayed: nobody is frozen, each pays a stake per card left.
    t = later(
        "dem_la",
        "9S KS",
        "4S JD",
        "5S 6D QD",
        "7C 8C 10H",
        options={"freeze_exempt_unplayed": 2},
    )
    t.play(0, "9S").play(1, "JD").passes(2, 3).play(0, "KS")
    assert t.over
    assert list(t.settle().net) == [700, -100, -300, -300]
    assert frozen_seats(t) == set()


def test_card_count_shows_a_frozen_loser_frozen_where_it_charges_it() -> None:
    # Issue #38: under the card count a doubled loser was charged FROZEN but never shown frozen
    # (no PlayersFrozen, the view's flag unset). Seats 2 and 3 never played: each pays its 3
    # cards doubled, 6 stakes, and is frozen in the state, the view and the events.
    t = later("dem_la", "9S KS", "4S JD", "5S 6D QD", "7C 8C 10H")
    t.play(0, "9S").play(1, "JD").passes(2, 3).play(0, "KS")
    assert t.over
    assert list(t.settle().net) == [1300, -100, -600, -600]
    assert frozen_seats(t) == {2, 3}
    frozen = t.of(PlayersFrozen)
    assert frozen == [PlayersFrozen((2, 3), (3, 4))]
    # In order: the winner's finish, the freeze, then the end with the same places.
    kinds = [type(e) for e in t.events if isinstance(e, PlayerFinished | PlayersFrozen | GameOver)]
    assert kinds == [PlayerFinished, PlayersFrozen, GameOver]
    assert t.of(GameOver)[0].places == (1, 2, 3, 4)


def test_card_count_frozen_losers_take_the_last_places_as_in_every_scheme() -> None:
    # RULES §7 [ours]: the frozen take the last places. Seat 2 never played and holds 1 card;
    # seat 1 played and holds 4: seat 2 is 3rd all the same (by cards left it would be 2nd).
    t = later("dem_la", "9S KS", "4S JD 5H 6H 7H", "QD")
    t.play(0, "9S").play(1, "JD").passes(2).play(0, "KS")
    assert t.of(PlayersFrozen) == [PlayersFrozen((2,), (3,))]
    assert t.places == (1, 2, 3)
    assert list(t.settle().net) == [600, -400, -200]
    assert frozen_seats(t) == {2}


def test_card_count_on_another_preset_shows_frozen_as_it_charges_it() -> None:
    # Southern played by the card count: seat 0 goes out at once; seats 1 and 2 never played,
    # their 2 and 1 cards are doubled.
    t = later("southern", "9S", "3C 4C", "JD", options={"scoring": "card_count"})
    t.play(0, "9S")
    assert t.over
    assert frozen_seats(t) == {1, 2}
    assert list(t.settle().net) == [600, -400, -200]


def test_card_count_without_freezing_shows_and_charges_nobody_frozen() -> None:
    t = later("dem_la", "9S KS", "4S JD", "5S 6D QD", options={"freezing": False})
    t.play(0, "9S").play(1, "JD").passes(2).play(0, "KS")
    assert frozen_seats(t) == set()
    assert list(t.settle().net) == [400, -100, -300]


# --------------------------------------------------------------------------------------------
# A game dealt before rules revision 2 keeps the reading it was dealt under (old tokens).
# --------------------------------------------------------------------------------------------


def dealt_under_revision_1(variant: str, *hands: str, options: Mapping[str, object]) -> Table:
    """A later game (seat 0 leads) of a table whose token says rules revision 1."""
    ruleset = build_rules(variant, options, revision=1)
    state, events = new_game(
        ruleset, len(hands), hands=[cards(h) for h in hands], first_game=False, leader=0
    )
    return Table(state, list(events))


def test_a_game_dealt_under_revision_1_spares_at_every_finish_as_it_did() -> None:
    t = dealt_under_revision_1(
        "southern", "10S KS", "JS 4H", "3C 5C 6C", options=EVERY_FINISH_SPARING_ONE
    )
    t.play(0, "10S").play(1, "JS").passes(2).play(0, "KS").passes(1).play(1, "4H")
    assert t.of(PlayersFrozen) == []
    assert list(t.settle().net) == [300, -100, -200]


def test_a_card_count_game_dealt_under_revision_1_charges_every_unplayed_loser_as_it_did() -> None:
    # The old reading: the exemption ignored, the frozen charged by the settlement alone (its
    # finished token holds nobody frozen, and still settles so).
    t = dealt_under_revision_1(
        "dem_la", "9S KS", "4S JD", "5S 6D QD", "7C 8C 10H", options={"freeze_exempt_unplayed": 2}
    )
    t.play(0, "9S").play(1, "JD").passes(2, 3).play(0, "KS")
    assert t.of(PlayersFrozen) == []
    assert t.state.frozen == 0
    result = t.settle()
    assert list(result.net) == [1300, -100, -600, -600]
    assert {p for p, _, _ in transfers(result, TransferReason.FROZEN)} == {2, 3}
