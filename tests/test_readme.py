"""The README's and docs/' documented tables stay true to the code they describe; every
relative link in the docs resolves inside the repository."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from scripts.presets_table import presets_list, presets_table
from scripts.rule_options_doc import DOC, options_doc

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
API = DOCS / "API.md"
NODE_SAMPLE_TEST = ROOT / "clients" / "node" / "test" / "readme-sample.test.ts"
NODE_README = ROOT / "clients" / "node" / "README.md"
NODE_WORKED_HOST_TEST = ROOT / "clients" / "node" / "test" / "worked-host.test.ts"


def test_the_presets_page_table_is_generated_from_the_option_data() -> None:
    text = (DOCS / "PRESETS.md").read_text(encoding="utf-8")
    assert presets_table() in text, (
        "docs/PRESETS.md's table is stale: run python scripts/presets_table.py"
    )
    assert presets_list() in text


def test_the_rule_options_page_is_generated_from_the_option_data() -> None:
    assert DOC.read_text(encoding="utf-8") == options_doc(), (
        "docs/RULE-OPTIONS.md is stale: run python scripts/rule_options_doc.py"
    )


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
    assert _ts_block(API) == _marked(test_text, "README sample")
    import_line, blank, body = _ts_block(NODE_README).partition("\n\n")
    assert import_line.startswith("import {")
    assert blank
    assert import_line.endswith('from "@tienlen/engine-client";')
    assert body == _marked(test_text, "client README sample")


def test_the_hosts_page_typescript_host_is_the_one_the_node_test_runs() -> None:
    # clients/node/test/worked-host.test.ts runs the lines between its markers against the real
    # server; docs/HOSTS.md's "A worked host" shows exactly those lines, after import lines that
    # are the test's own.
    test_text = NODE_WORKED_HOST_TEST.read_text(encoding="utf-8")
    (block,) = re.findall(r"```ts\n(.*?)```", section("A worked host"), re.DOTALL)
    imports, blank, body = str(block).partition("\n\n")
    assert blank
    assert imports.splitlines()
    for line in imports.splitlines():
        assert line.startswith("import ")
        assert f"\n{line}\n" in test_text, f"the test does not import as the page does: {line}"
    assert body == _marked(test_text, "worked host")


def _documents() -> list[Path]:
    """The README first, then the pages of docs/."""
    return [README, *sorted(DOCS.glob("*.md"))]


def section(title: str, text: str | None = None) -> str:
    """The text of the section headed `title` (any level), up to the next heading of its level
    or above: in `text`, or else in the first of the README and docs/ pages that has it."""
    if text is None:
        pattern = re.compile(rf"^#+ {re.escape(title)}\n", re.MULTILINE)
        texts = [p.read_text(encoding="utf-8") for p in _documents()]
        text = next((t for t in texts if pattern.search(t)), "")
    match = re.search(rf"^(#+) {re.escape(title)}\n", text, re.MULTILINE)
    assert match, f"no section {title!r}"
    body = text[match.end() :]
    end = re.search(rf"^#{{1,{len(match.group(1))}}} ", body, re.MULTILINE)
    return body[: end.start()] if end else body


def table_rows(text: str) -> list[list[str]]:
    """The cells of every row of the Markdown tables in `text` (header and rule rows left out)."""
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in text.splitlines()
        if line.startswith("|")
    ]
    return [row for row in rows[1:] if not set(row[0]) <= set("- :")] if rows else []


def ticked(cell: str) -> list[str]:
    """The `code` spans of a table cell."""
    return re.findall(r"`([^`]+)`", cell)


def test_readme_configuration_table_is_the_options_flag_variable_and_default() -> None:
    from tienlen_service.config import OPTIONS

    rows = [row for row in table_rows(section("Configuration")) if row[0].startswith("`--")]
    documented = [
        (ticked(flag)[0], ticked(env)[0], default.replace("`", ""))
        for flag, env, default, _ in rows
    ]
    assert documented == [(o.flag, o.env, o.default) for o in OPTIONS]


def exposed(
    server_metrics: dict[str, tuple[str, tuple[str, ...]]],
) -> dict[str, tuple[str, tuple[str, ...]]]:
    """The metrics by the name /metrics exposes them under (a counter's with `_total`)."""
    return {
        name + ("_total" if kind == "counter" else ""): (kind, labels)
        for name, (kind, labels) in server_metrics.items()
    }


def test_readme_metrics_table_is_every_exported_metric_with_its_type_and_labels(
    server_metrics: dict[str, tuple[str, tuple[str, ...]]],
) -> None:
    documented = {
        ticked(name)[0]: (kind, tuple(ticked(labels)))
        for name, kind, labels, _ in table_rows(section("Metrics"))
    }
    assert documented == exposed(server_metrics)


def test_deploy_readme_metrics_are_exported_with_those_labels(
    server_metrics: dict[str, tuple[str, tuple[str, ...]]],
) -> None:
    text = (ROOT / "deploy" / "README.md").read_text(encoding="utf-8")
    exported = exposed(server_metrics)
    rows = table_rows(section("Metrics, dashboard and alerts", text))
    assert rows, "deploy/README.md lists the metrics"
    for names, labels, _ in rows:
        label_names = tuple(label.strip() for label in ",".join(ticked(labels)).split(","))
        for name in ticked(names):
            assert name in exported, f"deploy/README.md names {name}, which is not exported"
            assert label_names == exported[name][1], name


def test_deploy_readme_settings_pair_each_flag_with_its_variable_and_default() -> None:
    from tienlen_service.config import OPTIONS

    by_flag = {o.flag: o for o in OPTIONS}
    text = (ROOT / "deploy" / "README.md").read_text(encoding="utf-8")
    rows = [row for row in table_rows(section("Settings", text)) if row[0].startswith("`--")]
    assert rows, "deploy/README.md lists the settings"
    for flags, envs, default, _ in rows:
        options = [
            by_flag[flag] for flag in (f for cell in ticked(flags) for f in cell.split(", "))
        ]
        named = [env.split("=")[0] for cell in ticked(envs) for env in cell.split(", ")]
        if named == ["TIENLEN_TLS_*"]:
            assert all(o.env.startswith("TIENLEN_TLS_") for o in options)
        else:
            assert named == [o.env for o in options], flags
        if len(options) == 1 and not options[0].default.startswith("("):
            assert default.startswith(options[0].default), (flags, default)


# The calls that put a free-form (str) reason code in an ErrorInfo, and which argument holds it.
# IllegalMove and TokenError take a `Reason` / `TokenReason`: those enums are their lists.
_REASON_ARGS = {"SetupError": 0, "FieldError": 0, "rich_status": 1}


def returned_reasons() -> dict[str, set[str]]:
    """Every `ErrorInfo.reason` the service can return -> the gRPC status codes it comes with.

    Read from the source: each call that raises a coded error (or builds a status) names its
    reason as a constant; a call that re-raises a caught error's reason (`exc.code`) adds none.
    """
    import ast
    import importlib

    from tienlen_rules.errors import Reason
    from tienlen_service import statuses
    from tienlen_service.observability import MALFORMED_REQUEST, REQUEST_TOO_LARGE
    from tienlen_service.tokens import TokenReason

    reasons: dict[str, set[str]] = {str(r): {"FAILED_PRECONDITION"} for r in Reason}
    for r in TokenReason:
        reasons[str(r)] = {"INVALID_ARGUMENT"}
    reasons[MALFORMED_REQUEST] = {"INVALID_ARGUMENT"}
    reasons[REQUEST_TOO_LARGE] = {"RESOURCE_EXHAUSTED"}
    paths = [
        p
        for package in ("tienlen_rules", "tienlen_service")
        for p in (ROOT / package).rglob("*.py")
    ]
    for path in sorted(paths):
        module = importlib.import_module(
            ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        )
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            position = _REASON_ARGS.get(node.func.id)
            if position is None or len(node.args) <= position:
                continue
            arg = node.args[position]
            if "exc" in {n.id for n in ast.walk(arg) if isinstance(n, ast.Name)}:
                continue  # passes on the reason of an error raised elsewhere (counted there)
            where = f"{path.name}:{node.lineno}: {ast.unparse(arg)}"
            try:
                value = eval(compile(ast.Expression(arg), str(path), "eval"), vars(module))
            except NameError:
                value = None  # a local variable: which reason it holds can't be read here
            assert isinstance(value, str), f"name the reason as a constant at {where}"
            if node.func.id == "rich_status":
                codes = {ast.unparse(node.args[0]).rpartition(".")[2]}
            elif node.func.id == "SetupError" and value in statuses.PRECONDITION_CODES:
                codes = {"FAILED_PRECONDITION"}
            else:
                codes = {"INVALID_ARGUMENT"}
            reasons.setdefault(str(value), set()).update(codes)
    return reasons


def test_readme_error_table_is_every_reason_the_service_returns_with_its_status() -> None:
    returned = returned_reasons()
    documented: dict[str, str] = {}
    for reasons, status, _ in table_rows(section("Errors")):
        for reason in ticked(reasons):
            documented[reason] = ticked(status)[0]
    assert set(documented) == set(returned)
    wrong = {r: (s, returned[r]) for r, s in documented.items() if s not in returned[r]}
    assert not wrong, f"README states another status for {wrong}"


def test_readme_rpc_table_is_every_method_of_the_service() -> None:
    from tienlen.v1 import service_pb2

    service = service_pb2.DESCRIPTOR.services_by_name["TienLenEngine"]
    rows = table_rows(section("RPCs"))
    assert [ticked(row[0])[0] for row in rows] == [m.name for m in service.methods]


def test_readme_names_every_bot_suggest_move_takes() -> None:
    from tienlen_rules.bots import BOTS

    (row,) = [row for row in table_rows(section("RPCs")) if row[0] == "`SuggestMove`"]
    assert set(BOTS) <= set(ticked(row[1])), "the SuggestMove row names every bot"
    text = section("Bots and the self-play simulator")
    assert all(f"`{bot}`" in text for bot in BOTS)


def test_readme_rpc_table_names_every_field_of_each_request_and_response() -> None:
    from tienlen.v1 import service_pb2

    service = service_pb2.DESCRIPTOR.services_by_name["TienLenEngine"]
    rows = {ticked(row[0])[0]: row for row in table_rows(section("RPCs"))}
    for method in service.methods:
        _, request, response = rows[method.name]
        for message, cell in ((method.input_type, request), (method.output_type, response)):
            named = set(ticked(cell))
            missing = [f.name for f in message.fields if f.name not in named]
            assert not missing, f"{method.name}: the README doesn't name {message.name}.{missing}"


def make_targets() -> dict[str, tuple[list[str], str]]:
    """The Makefile's documented targets: name -> (prerequisites, `## help` text)."""
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return {
        name: (prerequisites.split(), help_text.strip())
        for name, prerequisites, help_text in re.findall(
            r"^([a-z-]+):([^#\n]*)## (.*)$", text, re.MULTILINE
        )
    }


def test_readme_development_lists_what_make_test_runs_in_order() -> None:
    prerequisites, _ = make_targets()["test"]
    text = section("Development")
    named = [name for name in re.findall(r"`([a-z-]+)`", text) if name in make_targets()]
    assert named[: len(prerequisites)] == prerequisites


def test_every_phony_make_target_has_a_help_text() -> None:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    (phony,) = re.findall(r"^\.PHONY:((?:.*\\\n)*.*)$", text, re.MULTILINE)
    assert set(phony.replace("\\\n", " ").split()) == set(make_targets())


def test_readme_names_every_event_the_service_logs() -> None:
    import ast

    levels = {"debug", "info", "warning", "error", "exception", "critical"}
    events = set()
    for path in (ROOT / "tienlen_service").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in levels
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                events.add(node.args[0].value)
    assert {"rpc", "serving", "stopped"} <= events, "the log calls were found"
    text = section("Running it")
    missing = {e for e in events if f"`{e}`" not in text and f'"event": "{e}"' not in text}
    assert not missing, f"README 'Running it' doesn't name the log events {sorted(missing)}"


def test_readme_prose_quotes_the_defaults() -> None:
    from tienlen_service.config import Config
    from tienlen_service.metrics import HANDLING_BUCKETS

    defaults = Config()
    text = README.read_text(encoding="utf-8")
    assert f"`http://HOST:{defaults.metrics_port}/metrics`" in section("Metrics")
    assert f"runs the service on :{defaults.port}" in text
    assert (HANDLING_BUCKETS[0], HANDLING_BUCKETS[-1]) == (0.0001, 10.0)
    assert "buckets 0.1 ms … 10 s" in section("Metrics")
    limits = section("Limits")
    assert f"`--max-request-bytes` ({defaults.max_request_bytes // 1024} KiB)" in limits
    assert f"`--drain-delay` seconds, {defaults.drain_delay:g} by default" in section("Shutdown")


# --------------------------------------------------------------------------- the docs as a whole

README_MOST_BYTES = 12_000
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def _linking_documents() -> list[Path]:
    """The README, docs/, and the READMEs of the clients, deploy/ and bench/."""
    others = [p for folder in ("clients", "deploy", "bench") for p in (ROOT / folder).rglob("*.md")]
    return [*_documents(), *(p for p in others if "node_modules" not in p.parts)]


def test_the_readme_is_an_entrance_not_a_reference() -> None:
    size = len(README.read_bytes())
    assert size <= README_MOST_BYTES, f"README.md is {size} bytes: move reference text to docs/"


@pytest.mark.parametrize("document", _linking_documents(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves_inside_the_repository(document: Path) -> None:
    broken = []
    for target in _LINK.findall(document.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue  # a web address or an anchor on the same page
        resolved = (document.parent / target.split("#")[0]).resolve()
        if not resolved.is_relative_to(ROOT) or not resolved.exists():
            broken.append(target)
    assert not broken, f"{document.relative_to(ROOT)} links to {broken}"
