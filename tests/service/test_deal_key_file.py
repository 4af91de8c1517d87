"""The deal key's file and what the settings say of it (docs/SECURITY.md, *Who deals*).

The file holds one key a line (blank lines and # comments skipped): a secret store that writes
newlines adds nothing to a key, and a second line is a key of its own (the one a rotation keeps
beside the new one), never part of the first. And the help and OPERATIONS.md say what the server
does: without a deal key, where seat tokens are checked, NewGame's chosen deals are refused as
NextGame's are.
"""

from __future__ import annotations

from pathlib import Path

from tienlen_service.config import OPTIONS
from tienlen_service.keys import DealKey

ROOT = Path(__file__).resolve().parents[2]
KEY = "first-line-deal-key-0123456789"


def test_each_line_of_the_deal_key_file_is_a_key_and_never_part_of_another(
    tmp_path: Path,
) -> None:
    path = tmp_path / "deal-key"
    path.write_text(f"\n  {KEY}  \nan-older-key-kept-below-it\n", encoding="utf-8")
    key = DealKey.from_file(path)
    assert key.check(KEY)
    assert key.check("an-older-key-kept-below-it")  # a rotation's overlap
    assert not key.check(f"{KEY}\nan-older-key-kept-below-it")


def test_the_help_and_operations_say_newgame_deals_need_the_key_too() -> None:
    (option,) = [o for o in OPTIONS if o.flag == "--deal-key-file"]
    assert "one key a line" in option.help
    assert "NewGame's and NextGame's are refused where --require-seat-tokens is on" in option.help
    operations = (ROOT / "docs" / "OPERATIONS.md").read_text(encoding="utf-8")
    (row,) = [line for line in operations.splitlines() if line.startswith("| `--deal-key-file`")]
    assert "one key a line" in row
    assert "NewGame's and NextGame's are refused where `--require-seat-tokens` is on" in row
