"""The `tienlen` command-line tool against a real server: `main(argv)` with captured output
(and one run as a process, to see that bad input never ends in a traceback)."""

from __future__ import annotations

import io
import re
import socket
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
from tienlen_client import (
    ChopSettled,
    Combination,
    InstantWin,
    Played,
    PlayersFrozen,
    TienLenClient,
)
from tienlen_client.cli import main
from tienlen_client.cli.narrate import Narrator, settlement_lines
from tienlen_client.cli.style import Style

ANSI = "\033["
PROCESS_TIMEOUT = 120.0
MOVE_LINE = re.compile(r"^\s+\d+\s+seat (\d) \((\w+)\)\s+(plays|passes)")


@pytest.fixture
def address(process_factory: Callable[..., Any]) -> str:
    # A server of its own process: an in-process one would log into the stdout the tests read
    # the tool's output from.
    return str(process_factory().start_and_wait())


def tienlen(
    capsys: pytest.CaptureFixture[str], *argv: str, stdin: str | None = None
) -> tuple[int, str, str]:
    """Run `tienlen ARGV`; (exit status, stdout, stderr)."""
    capsys.readouterr()  # what came before (the server's start) is not the tool's
    if stdin is not None:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(sys, "stdin", io.StringIO(stdin))
            code = main(list(argv))
    else:
        code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- rules, deal -----------------------------------------------------------------------------


def test_rules_lists_the_presets_the_bots_and_every_option_with_its_default(
    capsys: pytest.CaptureFixture[str], address: str
) -> None:
    code, out, err = tienlen(capsys, "rules", "--address", address)
    assert (code, err) == (0, "")
    with TienLenClient(address) as client:
        rules = client.describe_rules()
    for variant in rules.variants:
        assert f"  {variant.name}" in out
    assert ", ".join(rules.bots) in out
    stake = rules.option("stake")
    assert re.search(rf"^  stake\s+{re.escape(stake.default)}\s", out, re.MULTILINE)
    assert ANSI not in out  # not a terminal: no colours


def test_rules_of_one_preset_marks_what_differs_from_southern(
    capsys: pytest.CaptureFixture[str], address: str
) -> None:
    code, out, _ = tienlen(capsys, "rules", "hue", "--address", address)
    assert code == 0
    assert out.startswith("hue — Huế")
    assert re.search(r"^ \*starting_card\s+3C\s", out, re.MULTILINE)
    assert re.search(r"^  stake\s+100\s", out, re.MULTILINE)  # the same as southern: unmarked


def test_deal_shows_every_hand_of_the_seeded_deal(
    capsys: pytest.CaptureFixture[str], address: str
) -> None:
    code, out, _ = tienlen(capsys, "deal", "--seed", "7", "--address", address)
    assert code == 0
    hands = re.findall(r"^  seat (\d) \(13\): (.+)$", out, re.MULTILINE)
    assert [seat for seat, _ in hands] == ["0", "1", "2", "3"]
    cards = [card for _, hand in hands for card in hand.split()]
    assert len(cards) == len(set(cards)) == 52
    assert "seat 1 leads, with 3S" in out
    assert "3S" in dict(hands)["1"].split()
    assert tienlen(capsys, "deal", "--seed", "7", "--address", address)[1] == out  # same seed


# --- watch -----------------------------------------------------------------------------------


def test_watch_plays_a_seeded_game_to_its_settlement_move_by_move(
    capsys: pytest.CaptureFixture[str], address: str
) -> None:
    code, out, err = tienlen(
        capsys, "watch", "--seed", "7", "--bots", "greedy,montecarlo", "--address", address
    )
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "southern, 4 players, seed 7"
    moves = [m.groups() for line in lines if (m := MOVE_LINE.match(line))]
    assert len(moves) > 20
    assert {(seat, bot) for seat, bot, _ in moves} <= {
        ("0", "greedy"),
        ("1", "montecarlo"),
        ("2", "greedy"),
        ("3", "montecarlo"),
    }
    assert "Game over." in out
    table = out[out.index("Settlement") :]
    assert (
        len(re.findall(r"^  \d\s+(greedy|montecarlo)\s+\d(st|nd|rd|th)", table, re.MULTILINE)) == 4
    )


def test_watch_shows_the_combinations_the_service_bots_play(
    capsys: pytest.CaptureFixture[str], address: str
) -> None:
    # The old demo bot only ever played singles; the service's bots play what a game has.
    labels = set()
    for seed in (1, 2, 3):
        _, out, _ = tienlen(
            capsys, "watch", "--seed", str(seed), "--bots", "greedy", "--address", address
        )
        labels |= set(re.findall(r"\s(pair|triple|straight of \d+|\d consecutive pairs)\s", out))
    assert {"pair", "triple"} <= labels
    assert any(label.startswith("straight") for label in labels)


def test_colours_only_when_asked_or_on_a_terminal(
    capsys: pytest.CaptureFixture[str], address: str
) -> None:
    _, plain, _ = tienlen(capsys, "deal", "--seed", "7", "--address", address)
    _, coloured, _ = tienlen(
        capsys, "deal", "--seed", "7", "--color", "always", "--address", address
    )
    assert ANSI not in plain
    assert ANSI in coloured
    assert "3♠" in coloured  # suits drawn on a colour terminal


def test_the_narrator_calls_out_chops_frozen_hands_instant_wins_and_rotten_cards(
    address: str,
) -> None:
    narrator = Narrator(["a", "b", "c", "d"])
    pairs = Combination("CONSECUTIVE_PAIRS", 3, ("3C", "3D", "4C", "4D", "5S", "5C"))
    lines = narrator.lines(
        [
            Played(3, pairs, True, False, False, 1),
            ChopSettled(2, 3, 200, ("2S",), 1),
            PlayersFrozen((1, 2), (3, 4)),
            InstantWin(1, "four_twos"),
        ]
    )
    assert "3 consecutive pairs" in lines[0]
    assert "CHOP! (chặt)" in lines[0]
    assert "chop paid: seat 2 pays seat 3 200 for 2S" in lines[1]
    assert "FROZEN (cóng): seat 1, seat 2 never played a card" in lines[2]
    assert "INSTANT WIN (tới trắng): seat 1 wins on the deal with four twos" in lines[3]
    with TienLenClient(address) as client:  # a real settlement with a rotten 2 and cóng
        game = client.new_game(hands=["3S", "4S 5S 2H", "6S 7S", "8S 9S"])
        game = client.play(game, 0, "3S")
    table = "\n".join(settlement_lines(game, narrator.names, Style()))
    assert re.search(r"^  1\s+b\s+2nd\s+frozen", table, re.MULTILINE)
    assert "seat 1 was left holding 2H" in table
    assert "rotten cards (thối)" in table


# --- play ------------------------------------------------------------------------------------


def test_play_reads_the_persons_moves_from_stdin_and_answers_bad_ones_in_words(
    capsys: pytest.CaptureFixture[str], address: str
) -> None:
    # Seat 1 holds 3S in the deal of seed 7 and leads: it must include it.
    moves = "3X\n4S\nhint\nmoves\n" + "auto\n" * 200
    code, out, err = tienlen(
        capsys,
        "play",
        "--seed",
        "7",
        "--seat",
        "1",
        "--bots",
        "greedy",
        "--address",
        address,
        stdin=moves,
    )
    assert (code, err) == (0, "")
    assert "you are seat 1" in out
    assert "your play must include 3S" in out
    assert "not allowed: bad card '3X': unknown suit 'X'" in out
    assert "not allowed: 4S is not in seat 1's hand" in out
    assert "greedy would play 3S (single)" in out
    assert re.search(r"^\s+1\s+seat 1 \(you\)\s+plays\s+3S\s", out, re.MULTILINE)
    assert "Settlement" in out


def test_play_ends_with_a_line_on_stderr_when_the_input_ends(
    capsys: pytest.CaptureFixture[str], address: str
) -> None:
    code, _, err = tienlen(
        capsys, "play", "--seed", "7", "--seat", "1", "--address", address, stdin="pass\n"
    )
    assert code == 1
    assert err == "tienlen: the input ended\n"


# --- bad input: one line on stderr, a non-zero status ---------------------------------------


BAD_INPUT = [  # (arguments, exit status, what stderr's one line says)
    (["watch", "--preset", "martian"], 1, "unknown preset 'martian'; the presets are southern"),
    (["watch", "--bots", "smart"], 1, "unknown bot 'smart'; the bots are greedy"),
    (["rules", "martian"], 1, "unknown preset 'martian'"),
    (["deal", "--players", "9"], 1, "9 players"),
    (["deal", "--option", "stake"], 1, "write NAME=VALUE"),
    (["deal", "--option", "colour=red"], 1, "colour"),
    (["play", "--seat", "7"], 2, "--seat 7: the seats are 0 to 3"),
    (["watch", "--players", "x"], 2, "argument --players: invalid int value: 'x'"),
    (["shuffle"], 2, "invalid choice: 'shuffle'"),
]


def test_bad_input_is_one_line_on_stderr_and_a_nonzero_status(
    capsys: pytest.CaptureFixture[str], address: str
) -> None:
    for argv, status, message in BAD_INPUT:
        code, out, err = tienlen(capsys, *argv, "--address", address)
        assert code == status, argv
        assert err.count("\n") == 1, (argv, err)
        assert err.startswith("tienlen"), argv
        assert message in err, (argv, err)
        assert "Traceback" not in out + err


def test_an_unreachable_service_is_one_line_and_status_1_not_a_traceback() -> None:
    address = f"127.0.0.1:{closed_port()}"
    result = subprocess.run(  # our own interpreter and module
        [sys.executable, "-m", "tienlen_client.cli", "watch", "--address", address],
        capture_output=True,
        text=True,
        timeout=PROCESS_TIMEOUT,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(f"tienlen: no answer from the service at {address}")
    assert "is it running?" in result.stderr
