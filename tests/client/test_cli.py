"""The `tienlen` command-line tool against a real server: `main(argv)` with captured output
(and one run as a process, to see that bad input never ends in a traceback)."""

from __future__ import annotations

import io
import re
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tienlen_client import (
    ChopSettled,
    Combination,
    GameRecord,
    InstantWin,
    Played,
    PlayersFrozen,
    TienLenClient,
)
from tienlen_client.cli import main
from tienlen_client.cli.narrate import Narrator, settlement_lines
from tienlen_client.cli.replay import Replayer
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
    (["watch", "--bots", "smart"], 1, "unknown bot 'smart'; the bots are counting, expert, greedy"),
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


# --- records: watch --save, play --save, replay -------------------------------------------------


def test_watch_saves_the_games_record_and_replay_draws_it_to_the_same_settlement(
    address: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "game.tlr"
    code, watched, _ = tienlen(
        capsys, "watch", "--address", address, "--seed", "7", "--players", "3", "--save", str(path)
    )
    assert code == 0
    record = GameRecord.from_text(path.read_text(encoding="utf-8"))
    assert record.names == ("greedy", "montecarlo", "greedy")
    assert record.result is not None
    code, replayed, err = tienlen(capsys, "replay", "--address", address, str(path))
    assert (code, err) == (0, "")
    # The same moves, drawn as watch draws them, and the same settlement table.
    assert _moves(replayed) == _moves(watched)
    assert len(_moves(replayed)) == len(record.moves)
    settlement = replayed[replayed.index("Settlement") :]
    assert settlement in watched
    with TienLenClient(address) as client:
        assert client.replay(record).settlement is not None
        assert client.replay(record).settlement.net == record.result.net  # type: ignore[union-attr]


def test_play_saves_the_record_so_far_when_the_person_leaves(
    address: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "mine.tlr"
    code, _, _ = tienlen(
        capsys,
        "play", "--address", address, "--seed", "3", "--players", "2", "--bots", "greedy",
        "--save", str(path),
        stdin="auto\nquit\n",
    )  # fmt: skip
    assert code == 1  # leaving the table is not a finished game
    record = GameRecord.from_text(path.read_text(encoding="utf-8"))
    assert record.result is None  # [Result "unfinished"]
    assert record.names == ("you", "greedy")
    assert any(move.seat == 0 for move in record.moves)  # the person's "auto" move is in it
    code, out, err = tienlen(capsys, "replay", "--address", address, str(path))
    assert (code, err) == (0, "")
    assert "the game is unfinished" in out


def test_replay_of_a_record_with_an_illegal_move_names_the_move_and_the_reason(
    address: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    hands = ("3S 4S 5S 9H", "6S 7S 8S 9S")
    with TienLenClient(address) as client:
        game = client.new_game(hands=list(hands))
        game = client.play(game, 0, ["3S"])
        game = client.play(game, 1, ["6S"])
        text = game.record().to_text()
    path = tmp_path / "altered.tlr"
    path.write_text(text.replace("2. 1: 6S", "2. 1: 9H"), encoding="utf-8")  # 9H is seat 0's
    code, out, err = tienlen(capsys, "replay", "--address", address, str(path))
    assert code == 1
    assert err.count("\n") == 1
    assert err.startswith(f"tienlen: {path}: move 2 ")
    assert "CARD_NOT_IN_HAND" in err
    assert _moves(out) == ["1 seat 0 (player) plays"]  # drawn up to the move at fault


def test_replay_of_a_malformed_file_is_the_parse_error_with_line_and_column(
    address: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "bad.tlr"
    path.write_text(
        '[Variant "southern"]\n[Players "2"]\n[Leader "0"]\n'
        '[Hand0 "3S 11S"]\n[Hand1 "4S"]\n\n[Result "unfinished"]\n',
        encoding="utf-8",
    )
    code, out, err = tienlen(capsys, "replay", "--address", address, str(path))
    assert (code, out) == (1, "")
    assert err == (
        f"tienlen: {path}: not a game record: line 4, column 12: "
        "INVALID_CARD: bad card '11S': unknown rank '11'\n"
    )


def test_replay_of_a_record_whose_result_is_not_the_games_says_so(
    address: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "game.tlr"
    assert (
        tienlen(capsys, "watch", "--address", address, "--seed", "5", "--save", str(path))[0] == 0
    )
    text = path.read_text(encoding="utf-8")
    net = text[text.index('[Net "') :].splitlines()[0]
    path.write_text(text.replace(net, '[Net "0 0 0 0"]'), encoding="utf-8")
    code, out, err = tienlen(capsys, "replay", "--address", address, str(path))
    assert code == 1
    assert "Settlement" in out  # the game as its moves play it
    assert err.count("\n") == 1
    assert "RECORD_RESULT_MISMATCH" in err


def test_replay_problems_never_end_in_a_traceback(address: str, tmp_path: Path) -> None:
    path = tmp_path / "cut.tlr"
    path.write_text('[Variant "southern"]\n[Players "2"]\n[Leader "0"]\n', encoding="utf-8")
    for target in (str(path), str(tmp_path / "missing.tlr")):
        done = subprocess.run(
            [sys.executable, "-m", "tienlen_client.cli", "replay", "--address", address, target],
            capture_output=True,
            text=True,
            timeout=PROCESS_TIMEOUT,
            check=False,
        )
        assert done.returncode == 1
        assert "Traceback" not in done.stderr
        assert done.stderr.startswith(f"tienlen: {target}: ")


def _moves(out: str) -> list[str]:
    """The move lines of a drawn game, without their padding: number, seat, name, verb."""
    return [
        " ".join(match.group(0).split())
        for line in out.splitlines()
        if (match := MOVE_LINE.match(line)) is not None
    ]


def test_replay_of_a_match_file_replays_each_game_in_turn(
    address: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    with TienLenClient(address, record_hands=True) as client:
        game = client.new_game("southern", 2, seed=11)
        for number in (1, 2):
            for _ in range(200):
                if game.finished:
                    break
                seat = game.to_act
                assert seat is not None
                move = client.suggest(game, seat, "greedy")
                game = (
                    client.pass_turn(game, seat)
                    if move is None or move.is_pass
                    else client.play(game, seat, move.cards)
                )
            assert game.finished, f"game {number} did not end"
            if number == 1:
                game = client.next_game(game, seed=12)
        text = game.match_record().to_text()
    path = tmp_path / "match.tlr"
    path.write_text(text, encoding="utf-8")
    code, out, err = tienlen(capsys, "replay", "--address", address, str(path))
    assert (code, err) == (0, "")
    assert out.count("Settlement") == 2
    assert "Game 1 dealt" in out
    assert "Game 2 dealt" in out


def test_replay_step_waits_for_enter_between_moves_on_a_terminal(address: str) -> None:
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    with TienLenClient(address) as client:
        game = client.new_game(hands=["3S 4S 5S 9H", "6S 7S 8S 9S"])
        game = client.play(game, 0, ["3S"])
        game = client.pass_turn(game, 1)
        record = game.record()
        out = io.StringIO()
        keys = Terminal("\n\n")
        replayer = Replayer(client, out, Style(), step=True, stdin=keys)
        replayer.replay_game(record, "game.tlr")
    assert out.getvalue().count("(Enter: next move)") == 2  # before move 1 and move 2
    assert keys.read() == ""  # both Enters were read
