"""The READMEs' Python samples run as written and print what their comments say.

Each ```python block of the README and of the Python client's README is run on its own (a
fresh namespace: its imports are its own) against a real server (its address in place of the
READMEs' 127.0.0.1:50051); every `print(...)  # value` line's value (the comment, up to an
explanation after " — ") must come out, in order.
A README that drifted from the client or the rules would send its readers astray first.

docs/HOSTS.md's worked host (its section "A worked host") runs as written too, against a service
that checks seat tokens, the client holding the host's deal key: its own assertions check the
totals, seat tokens and leads of a four-game match at each step.
"""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers.dealing import DEAL_KEY

ROOT = Path(__file__).resolve().parents[2]
READMES = (ROOT / "README.md", ROOT / "docs" / "API.md", ROOT / "clients" / "python" / "README.md")
README_ADDRESS = "127.0.0.1:50051"
HOSTS = ROOT / "docs" / "HOSTS.md"
_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)
_PRINTED = re.compile(r"^\s*print\(.*\)\s+# (.+?)\s*$")


def _samples() -> list[str]:
    return [s for readme in READMES for s in _BLOCK.findall(readme.read_text(encoding="utf-8"))]


def expected_lines(sample: str) -> list[str]:
    """The values the sample's comments say its prints show, in order."""
    return [
        m.group(1).split(" — ")[0] for line in sample.splitlines() if (m := _PRINTED.match(line))
    ]


def test_the_readme_has_python_samples_with_expected_output() -> None:
    samples = _samples()
    assert len(samples) >= 3
    assert expected_lines(samples[0])  # the full game says what it prints


def assert_printed_in_order(printed: list[str], sample: str, where: str = "the sample") -> None:
    """Every value the sample's comments promise was printed, in that order."""
    wanted_lines = expected_lines(sample)
    assert wanted_lines, f"{where} says what it prints"
    position = 0
    for wanted in wanted_lines:
        while position < len(printed) and printed[position] != wanted:
            position += 1
        assert position < len(printed), (
            f"{where} should print {wanted!r} (in order); it printed {printed}"
        )
        position += 1


def test_each_readme_python_sample_runs_on_its_own_and_prints_what_it_says(
    server_factory: Callable[..., Any],
) -> None:
    # Each in a namespace of its own, as a reader pasting one sample alone would run it: a
    # sample that leans on an earlier one's import or variables fails here.
    running = server_factory()
    for index, sample in enumerate(_samples()):
        assert README_ADDRESS in sample
        namespace: dict[str, Any] = {"__name__": f"readme_sample_{index}"}
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(  # the README's own sample, run as a reader would
                compile(
                    sample.replace(README_ADDRESS, running.address), f"README[{index}]", "exec"
                ),
                namespace,
            )
        printed = out.getvalue().splitlines()
        if expected_lines(sample):
            assert_printed_in_order(printed, sample, f"README sample {index}")


def worked_host() -> str:
    """The Python block of docs/HOSTS.md's "A worked host" section (the only one there)."""
    text = HOSTS.read_text(encoding="utf-8")
    section = text[text.index("\n## A worked host\n") :]
    end = section.find("\n## ", 1)
    (block,) = _BLOCK.findall(section if end < 0 else section[:end])
    return str(block)


def test_the_hosts_page_worked_host_runs_as_written(
    server_factory: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    running = server_factory(require_seat_tokens=True, seal=True)
    monkeypatch.setenv("TIENLEN_DEAL_KEY", DEAL_KEY)  # the host's credential, as the page says
    sample = worked_host()
    assert README_ADDRESS in sample
    namespace: dict[str, Any] = {"__name__": "hosts_worked_host"}
    exec(  # the page's own host, run as a host developer would copy it
        compile(sample.replace(README_ADDRESS, running.address), "HOSTS.md", "exec"), namespace
    )
    # The match it played: four games, the last with the people the page says.
    game = namespace["table"].game
    assert (game.game_number, game.finished) == (4, True)
    assert [seat.player_id for seat in game.view.seats] == ["an", "binh", "giang", "hoa"]
