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
NODE_README = ROOT / "clients" / "node" / "README.md"


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


def _marked(text: str, name: str) -> str:
    """The dedented lines between a `// NAME begin` and a `// NAME end` marker line."""
    begin = text.index(f"// {name} begin\n") + len(f"// {name} begin\n")
    end = text.rindex("\n", 0, text.index(f"// {name} end")) + 1
    return textwrap.dedent(text[begin:end]).replace("server.address", '"127.0.0.1:50051"')


def _ts_block(readme: Path) -> str:
    (block,) = re.findall(r"```ts\n(.*?)```", readme.read_text(encoding="utf-8"), re.DOTALL)
    return str(block)


def test_readme_typescript_samples_are_the_ones_the_node_tests_run() -> None:
    # clients/node/test/readme-sample.test.ts runs the samples between its markers against the
    # real server (the Node client README's full game checks its printed values too); the
    # READMEs must show exactly those lines.
    test_text = NODE_SAMPLE_TEST.read_text(encoding="utf-8")
    assert _ts_block(README) == _marked(test_text, "README sample")
    import_line, blank, body = _ts_block(NODE_README).partition("\n\n")
    assert import_line.startswith("import {")
    assert blank
    assert import_line.endswith('from "@tienlen/engine-client";')
    assert body == _marked(test_text, "client README sample")
