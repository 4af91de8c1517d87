"""The command line as a newcomer meets it: a bad number says what was expected, and --help
groups the flags by what they are for."""

from __future__ import annotations

import pytest

from tienlen_service.config import OPTIONS, build_parser, parse_config


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--port", "abc"], "argument --port: 'abc' is not a port number (0..65535)"),
        (["--web-port", "80x"], "argument --web-port: '80x' is not a port number (0..65535)"),
        (["--workers", "two"], "argument --workers: 'two' is not a whole number (1 or more)"),
        (["--grace", "soon"], "argument --grace: 'soon' is not a number of seconds >= 0"),
    ],
)
def test_a_value_that_is_not_a_number_says_what_was_expected(
    argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        parse_config(argv, {})
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert expected in err
    assert "invalid" not in err  # not argparse's "invalid _port value"


def test_help_groups_every_flag_under_a_heading() -> None:
    parser = build_parser()
    groups = {
        group.title: [a.option_strings[0] for a in group._group_actions]
        for group in parser._action_groups
    }
    grouped = [flag for title, flags in groups.items() if title != "options" for flag in flags]
    assert sorted(grouped) == sorted(opt.flag for opt in OPTIONS), "every setting in one group"
    assert "--port" in groups["listening"]
    assert "--keys" in groups["tokens and keys"]
    assert "--log-level" in groups["logging"]
    text = parser.format_help()
    listening = text.index("\nlistening:")
    assert listening < text.index("\n  --port PORT", listening) < text.index("\nlogging:")
