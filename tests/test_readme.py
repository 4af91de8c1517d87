"""The README's documented tables stay true to the code they describe."""

from __future__ import annotations

from pathlib import Path

from scripts.presets_table import presets_list, presets_table
from scripts.rule_options_doc import DOC, options_doc

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_presets_table_is_generated_from_the_option_data() -> None:
    text = README.read_text(encoding="utf-8")
    assert presets_table() in text, (
        "README's preset table is stale: run python scripts/presets_table.py"
    )
    assert presets_list() in text


def test_the_rule_options_page_is_generated_from_the_option_data() -> None:
    assert DOC.read_text(encoding="utf-8") == options_doc(), (
        "docs/RULE-OPTIONS.md is stale: run python scripts/rule_options_doc.py"
    )


def test_readme_error_table_lists_every_engine_reason_code() -> None:
    from tienlen_service.rules.errors import Reason

    text = README.read_text(encoding="utf-8")
    missing = [r.value for r in Reason if f"`{r.value}`" not in text]
    assert not missing, f"README error table lacks {missing}"
