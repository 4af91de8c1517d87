"""RULES §9.5 "Out-of-turn chops at a live table": which seats could chop out of turn now (told
to the host only), the public pause signal, and the claim the engine lets win."""

from __future__ import annotations

from helpers.tables import later

from tienlen_rules import chop_open, chop_seats, first_claim

# Seats 2 and 3 each hold 4 consecutive pairs, which chop a 2 out of turn (RULES §5).
HANDS = (
    "2S 9D",
    "8H 9H",
    "3C 3D 4C 4D 5C 5D 6C 6D",
    "7C 7D 8C 8D 9C 9S 10C 10D",
)


def test_the_host_is_told_every_seat_that_could_chop_out_of_turn_nearest_first() -> None:
    table = later("southern", *HANDS).play(0, "2S")
    assert chop_open(table.state)
    assert chop_seats(table.state) == (2, 3)  # not seat 0 (its own play), not seat 1 (to act)


def test_passes_do_not_close_the_chance() -> None:
    table = later("southern", *HANDS).play(0, "2S").passes(1)
    assert chop_seats(table.state) == (3,)  # seat 2 is to act: its chop is a play in turn
    table.passes(2)
    assert table.to_act == 3
    assert chop_seats(table.state) == (2,)  # seat 2 passed, and may still chop out of turn


def test_when_several_claim_the_seat_nearest_after_the_chopped_player_takes_it() -> None:
    table = later("southern", *HANDS).play(0, "2S")
    assert first_claim(table.state, [3, 2]) == 2
    assert first_claim(table.state, [3]) == 3
    assert first_claim(table.state, [1]) == -1  # seat 1 holds no bomb


def test_a_table_no_bomb_could_chop_out_of_turn_opens_no_pause() -> None:
    table = later("southern", *HANDS).play(0, "9D")
    assert not chop_open(table.state)
    assert chop_seats(table.state) == ()
    assert not chop_open(later("southern", *HANDS).state)  # a round being led


def test_the_pause_signal_does_not_depend_on_who_holds_a_bomb() -> None:
    table = later("southern", "2S 9D", "8H 9H", "3C 4C", "7C 8C").play(0, "2S")
    assert chop_open(table.state)  # nobody holds 4 consecutive pairs: the host pauses anyway
    assert chop_seats(table.state) == ()


def test_a_seat_on_auto_is_listed_but_a_seat_whose_player_left_is_not() -> None:
    table = later("southern", *HANDS, options={"auto_after_timeouts": 1}).timeout(0)
    table.timeout(1)  # seat 1 on auto too
    table = later("southern", *HANDS).leave(3).play(0, "2S")
    assert chop_seats(table.state) == (2,)


def test_dau_lists_only_its_out_of_turn_bombs() -> None:
    # Đấu: 4 consecutive pairs chop a 2 only in turn; 3 consecutive triples chop out of turn.
    pairs = later("dau", "2S 9D", "10H JH", "3C 3D 4C 4D 5C 5D 6C 6D").play(0, "2S")
    assert chop_seats(pairs.state) == ()
    triples = later("dau", "2S 9D", "10H JH", "7C 7D 7H 8C 8D 8H 9C 9S 9H").play(0, "2S")
    assert chop_seats(triples.state) == (2,)
