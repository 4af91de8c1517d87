"""The Grafana dashboard and the alert rules query only metrics the service exports.

A dashboard panel or an alert on a misspelt metric shows "No data" or never fires, silently;
so every PromQL expression is parsed for its metric names, and they are checked against the
service's metric contract (tienlen_service exports exactly these).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
DASHBOARD = REPO / "deploy" / "grafana" / "tienlen-dashboard.json"
RULES = REPO / "deploy" / "k8s" / "optional" / "prometheusrule.yaml"
README = REPO / "deploy" / "README.md"

COUNTERS = {
    "grpc_server_started_total",
    "grpc_server_handled_total",
    "tienlen_games_started_total",
    "tienlen_moves_applied_total",
    "tienlen_moves_rejected_total",
    "tienlen_games_finished_total",
    "tienlen_instant_wins_total",
    "tienlen_chops_total",
    "tienlen_tokens_rejected_total",
}
HISTOGRAMS = {"grpc_server_handling_seconds"}
EXPORTED = COUNTERS | {f"{h}_{suffix}" for h in HISTOGRAMS for suffix in ("bucket", "sum", "count")}
# Prometheus' own series about each scrape target, allowed in alerts.
SCRAPE_SERIES = {"up"}

KEYWORDS = {
    "by",
    "without",
    "on",
    "ignoring",
    "group_left",
    "group_right",
    "and",
    "or",
    "unless",
    "bool",
    "offset",
    "inf",
    "nan",
}


def metric_names(expr: str) -> set[str]:
    """The metric names a PromQL expression reads (functions, labels and keywords removed)."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)  # string literals (label values)
    text = re.sub(r"\$\{[^}]*\}|\$\w+", "", text)  # Grafana variables
    text = re.sub(r"\{[^}]*\}", " ", text)  # label matchers
    text = re.sub(r"\[[^\]]*\]", " ", text)  # ranges and subqueries
    text = re.sub(
        r"\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text
    )  # label lists
    names = set()
    for match in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", text):
        following = text[match.end() :].lstrip()
        if following.startswith("("):
            continue  # a function or an aggregation
        start = match.start()
        if start and (text[start - 1].isdigit() or text[start - 1] == "."):
            continue  # the exponent or unit of a number
        if match.group().lower() in KEYWORDS:
            continue
        names.add(match.group())
    return names


def dashboard() -> dict[str, Any]:
    data = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def panels() -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = []
    for panel in dashboard()["panels"]:
        result.append(panel)
        result.extend(panel.get("panels", []))  # panels inside collapsed rows
    return result


def dashboard_exprs() -> list[str]:
    return [t["expr"] for p in panels() for t in p.get("targets", [])]


def rules() -> list[dict[str, Any]]:
    (doc,) = [d for d in yaml.safe_load_all(RULES.read_text(encoding="utf-8")) if d]
    return [rule for group in doc["spec"]["groups"] for rule in group["rules"]]


# ---------------------------------------------------------------------------------------------


def test_metric_name_parser() -> None:
    expr = (
        'histogram_quantile(0.99, sum by (le, grpc_method) (rate(grpc_server_handling_seconds_bucket{job=~"$job", grpc_code!="OK"}[$__rate_interval])))'
        " / ignoring(grpc_code) group_left() sum(rate(bogus_total[5m] offset 1h)) > 1e3 and on (x) up"
    )
    assert metric_names(expr) == {"grpc_server_handling_seconds_bucket", "bogus_total", "up"}


def test_the_metric_contract_here_is_what_the_server_exports(
    server_metrics: dict[str, tuple[str, tuple[str, ...]]],
) -> None:
    # COUNTERS and HISTOGRAMS are what the dashboard and alerts may query; a metric renamed in
    # the code must fail here, not show "No data" in Grafana.
    suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count"), "gauge": ("",)}
    series = {
        name + suffix for name, (kind, _) in server_metrics.items() for suffix in suffixes[kind]
    }
    missing = EXPORTED - series
    assert not missing, f"the server no longer exports {sorted(missing)}"


def test_dashboard_is_a_grafana_dashboard() -> None:
    data = dashboard()
    assert data["title"]
    assert data["uid"]
    assert isinstance(data["schemaVersion"], int)
    ids = [p["id"] for p in panels()]
    assert len(ids) == len(set(ids)), "panel ids are unique"
    for panel in panels():
        grid = panel["gridPos"]
        assert grid["x"] >= 0, panel["title"]
        assert grid["x"] + grid["w"] <= 24, panel["title"]
        if panel["type"] != "row":
            assert panel["targets"], f"panel {panel['title']!r} queries nothing"
            assert panel["datasource"]["uid"] == "${datasource}", "the data source is a variable"
    variables = {v["name"] for v in data["templating"]["list"]}
    assert "datasource" in variables


def test_dashboard_queries_only_exported_metrics() -> None:
    exprs = dashboard_exprs()
    queries = [v["definition"] for v in dashboard()["templating"]["list"] if v["type"] == "query"]
    assert exprs
    for expr in exprs:
        names = metric_names(expr)
        assert names, f"no metric in {expr!r}"
        assert names <= EXPORTED, f"unknown metric(s) {names - EXPORTED} in {expr!r}"
    for query in queries:
        (metric,) = re.findall(r"label_values\(\s*(\w+)\s*,", query)
        assert metric in EXPORTED, query


def test_dashboard_shows_every_exported_metric() -> None:
    used = set().union(*(metric_names(e) for e in dashboard_exprs()))
    missing = (COUNTERS | {f"{h}_bucket" for h in HISTOGRAMS}) - used
    assert not missing, f"no panel shows {sorted(missing)}"


@pytest.mark.parametrize("quantile", ["0.5", "0.99"])
def test_dashboard_has_latency_quantiles_from_the_histogram(quantile: str) -> None:
    pattern = (
        rf"histogram_quantile\(\s*{re.escape(quantile)}\s*,.*grpc_server_handling_seconds_bucket"
    )
    assert any(re.search(pattern, e) for e in dashboard_exprs())


def test_dashboard_breaks_down_by_the_contract_labels() -> None:
    text = "\n".join(dashboard_exprs())
    for metric, label in [
        ("grpc_server_handled_total", "grpc_method"),
        ("grpc_server_handled_total", "grpc_code"),
        ("tienlen_games_started_total", "variant"),
        ("tienlen_games_finished_total", "variant"),
        ("tienlen_moves_rejected_total", "reason"),
        ("tienlen_chops_total", "variant"),
        ("tienlen_tokens_rejected_total", "reason"),
    ]:
        assert re.search(rf"by \([^)]*\b{label}\b[^)]*\) \(rate\({metric}\b", text), (
            f"no panel shows {metric} by {label}"
        )


def test_alert_rules_query_only_exported_metrics() -> None:
    assert rules()
    for rule in rules():
        names = metric_names(rule["expr"])
        assert names, rule["alert"]
        assert names <= EXPORTED | SCRAPE_SERIES, (
            f"{rule['alert']}: unknown metric(s) {names - EXPORTED - SCRAPE_SERIES}"
        )
        assert rule["labels"]["severity"] in {"page", "ticket"}
        assert rule["annotations"]["summary"]


def test_readme_alert_examples_are_the_shipped_rules() -> None:
    blocks = re.findall(r"```yaml\n(.*?)```", README.read_text(encoding="utf-8"), re.DOTALL)
    documented = [
        rule
        for block in blocks
        if "alert:" in block
        for group in yaml.safe_load(block)["groups"]
        for rule in group["rules"]
    ]
    assert documented, "deploy/README.md shows the alert rules"
    assert documented == rules(), "README and optional/prometheusrule.yaml have drifted apart"
