"""The self-play simulator (tools/simulate.py): a quick run reports, broken invariants stop the
run with a replayable dump. The invariant checks themselves: tests/engine/properties/test_invariants.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tienlen_rules.combinations import Combination
from tienlen_rules.state import GameState
from tools import simulate


def test_a_quick_run_reports_win_rates_lengths_and_special_cases(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = simulate.main(
        [
            "--games",
            "40",
            "--bots",
            "greedy,random,random,random",
            "--seed",
            "3",
            "--match-length",
            "5",
        ]
    )
    assert code == 0
    captured = capsys.readouterr()
    out = captured.out
    assert "40 games, variant southern" in out
    assert "win rate" in out
    assert "95% CI" in out
    assert "average game length" in out
    assert "games/s" in out
    assert "transfers: place" in out
    assert "40/40 games" in captured.err  # the progress line


@pytest.mark.parametrize(
    ("variant", "bots"),
    [
        ("dau", "greedy,random,random"),
        ("hue", "random,random"),
        ("dem_la", "greedy,greedy,random,random"),
    ],
)
def test_every_preset_runs_clean(
    variant: str, bots: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        simulate.main(["--games", "15", "--bots", bots, "--variant", variant, "--no-progress"]) == 0
    )
    assert f"15 games, variant {variant}" in capsys.readouterr().out


def test_a_run_is_reproducible_from_its_seed(capsys: pytest.CaptureFixture[str]) -> None:
    args = [
        "--games",
        "12",
        "--bots",
        "random,random,random,random",
        "--seed",
        "9",
        "--no-progress",
    ]
    simulate.main(args)
    first = capsys.readouterr().out.splitlines()
    simulate.main(args)
    second = capsys.readouterr().out.splitlines()
    timing = [i for i, line in enumerate(first) if "games/s" in line]
    assert [line for i, line in enumerate(first) if i not in timing] == [
        line for i, line in enumerate(second) if i not in timing
    ]


def test_options_reach_the_rules(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        simulate.main(
            [
                "--games",
                "10",
                "--option",
                "stake=10",
                "--no-progress",
                "--bots",
                "greedy,greedy,greedy,greedy",
            ]
        )
        == 0
    )
    assert "'stake': '10'" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("variant", "failing_step"), [("southern", 25), ("dem_la", 25), ("hue", 300)]
)
def test_a_broken_invariant_stops_the_run_and_dumps_a_replayable_game(
    variant: str,
    failing_step: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Also in a later game of a match (Huế: lead stealing) and with a random first leader."""
    real = simulate.check_turn
    calls = {"n": 0}

    def broken(state: GameState) -> tuple[list[Combination], bool]:
        calls["n"] += 1
        if calls["n"] == failing_step:
            raise simulate.InvariantError("planted failure")
        return real(state)

    monkeypatch.setattr(simulate, "check_turn", broken)
    code = simulate.main(
        ["--games", "5", "--seed", "4", "--dump-dir", str(tmp_path), "--no-progress"]
    )
    assert code == 1
    assert "planted failure" in capsys.readouterr().err
    [dump] = list(tmp_path.glob("tienlen-failure-*.json"))
    data = json.loads(dump.read_text(encoding="utf-8"))
    assert data["seed"] == 4
    assert data["game_number"] > 1 or failing_step < 100
    assert data["error"] == "InvariantError: planted failure"
    assert len(data["hands"]) == 4
    assert data["moves"]
    monkeypatch.undo()
    assert simulate.main(["--replay", str(dump)]) == 0  # the engine itself was fine


def test_replaying_an_illegal_move_reports_it(tmp_path: Path) -> None:
    dump = tmp_path / "bad.json"
    data = {
        "variant": "southern",
        "options": {},
        "players": 2,
        "hands": ["3S 4S", "5D 6D"],
        "first_game": True,
        "leader": 0,
        "dealer": 0,
        "totals": [0, 0],
        "game_number": 1,
        "moves": [{"seat": 0, "cards": "4S"}],  # the first lead must hold ♠3
    }
    dump.write_text(json.dumps(data), encoding="utf-8")
    lines: list[str] = []
    assert not simulate.replay(dump, lines.append)
    assert "MUST_INCLUDE_STARTING_CARD" in lines[-1]


def test_the_wilson_interval_brackets_the_rate() -> None:
    lo, hi = simulate.wilson(25, 100)
    assert lo < 0.25 < hi
    assert (round(lo, 3), round(hi, 3)) == (0.175, 0.343)
    assert simulate.wilson(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize(
    ("variant", "bots"),
    [
        ("southern", "greedy,random,greedy,random"),
        ("dem_la", "greedy,random,greedy,random"),  # a drawn first leader: the engine's draw
        ("dau", "greedy,random,random"),
        ("northern", "random,random,greedy,greedy"),
    ],
)
def test_the_simulator_agrees_with_the_service(
    server_factory: Any,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    variant: str,
    bots: str,
) -> None:
    running = server_factory()
    code = simulate.main(
        [
            "--games",
            "4",
            "--match-length",
            "2",
            "--variant",
            variant,
            "--bots",
            bots,
            "--via-service",
            running.address,
            "--no-progress",
            "--dump-dir",
            str(tmp_path),
        ]
    )
    assert code == 0, capsys.readouterr().err


def test_a_table_that_cannot_be_dealt_is_a_clear_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = simulate.main(["--games", "1", "--variant", "dau", "--no-progress"])  # 4 bots
    assert code == 2
    assert "exactly 3 players" in capsys.readouterr().err
