"""The README's documented tables stay true to the code they describe."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from scripts.presets_table import presets_list, presets_table
from scripts.rule_options_doc import DOC, options_doc

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
NODE_SAMPLE_TEST = ROOT / "clients" / "node" / "test" / "readme-sample.test.ts"


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


def test_readme_typescript_sample_is_the_one_the_node_tests_run() -> None:
    # clients/node/test/readme-sample.test.ts runs the sample between its markers against the
    # real server; the README must show exactly those lines.
    test_text = NODE_SAMPLE_TEST.read_text(encoding="utf-8")
    begin, end = "// README sample begin\n", "    // README sample end"
    run = textwrap.dedent(test_text[test_text.index(begin) + len(begin) : test_text.index(end)])
    (shown,) = re.findall(r"```ts\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    assert shown == run.replace("server.address", '"127.0.0.1:50051"')
