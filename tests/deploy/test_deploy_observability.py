"""The Grafana dashboard and the alert rules query only metrics the service exports.

A dashboard panel or an alert on a misspelt metric shows "No data" or never fires, silently;
so every PromQL expression is parsed for its metric names and label matchers, and they are
checked against what a real server's /metrics exposes. The alerts' selectors are evaluated
against the engine's real methods (from the protobuf descriptor): the latency alerts must
select unary calls only, with the bots apart, and no rule may hang on a scrape job's name.
Calls come on two ports, gRPC (grpc_server_*) and the web port (tienlen_web_*): every call
panel and call alert reads both. What the rules do with data is test_deploy_alerts.py's
(promtool).
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
DASHBOARD = REPO / "deploy" / "grafana" / "tienlen-dashboard.json"
RULES = REPO / "deploy" / "k8s" / "optional" / "prometheusrule.yaml"
README = REPO / "deploy" / "README.md"
DEPLOYMENT = REPO / "deploy" / "k8s" / "base" / "deployment.yaml"
ENGINE_SERVICE = "tienlen.v1.TienLenEngine"

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
    "tienlen_tokens_decoded_total",
    "tienlen_tokens_verified_total",
    "tienlen_bot_searches_total",
    "tienlen_web_started_total",
    "tienlen_web_handled_total",
    "tienlen_web_refused_total",
    "tienlen_web_connections_refused_total",
}
HISTOGRAMS = {
    "grpc_server_handling_seconds",
    "tienlen_web_handling_seconds",
    "tienlen_bot_search_seconds",
}
GAUGES = {"tienlen_rpcs_in_flight", "tienlen_build_info", "tienlen_web_connections"}
# Each gRPC call family and its web port twin (same method labels; `transport`, no `grpc_type`).
PORT_TWINS = {
    "grpc_server_started_total": "tienlen_web_started_total",
    "grpc_server_handled_total": "tienlen_web_handled_total",
    "grpc_server_handling_seconds_bucket": "tienlen_web_handling_seconds_bucket",
    "grpc_server_handling_seconds_sum": "tienlen_web_handling_seconds_sum",
    "grpc_server_handling_seconds_count": "tienlen_web_handling_seconds_count",
}
# prometheus_client's process and GC collectors, registered in the server's own registry.
RUNTIME = {
    "process_cpu_seconds_total",
    "process_resident_memory_bytes",
    "process_open_fds",
    "process_max_fds",
    "python_gc_collections_total",
    "python_gc_objects_uncollectable_total",
}
EXPORTED = (
    COUNTERS
    | GAUGES
    | RUNTIME
    | {f"{h}_{suffix}" for h in HISTOGRAMS for suffix in ("bucket", "sum", "count")}
)
# Prometheus' own series about each scrape target, allowed in alerts.
SCRAPE_SERIES = {"up"}
# Labels Prometheus adds to every series of a target. `job` is left out on purpose: its value
# is whatever a Prometheus set-up names the scrape, so no rule may depend on it.
TARGET_LABELS = {"instance"}

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


def scrape(url: str) -> dict[str, set[str]]:
    """Series name -> its label names, as a /metrics page exposes them."""
    from prometheus_client.parser import text_string_to_metric_families

    with urllib.request.urlopen(url, timeout=10) as response:
        text = response.read().decode()
    labels: dict[str, set[str]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels.setdefault(sample.name, set()).update(sample.labels)
    return labels


@pytest.fixture
def scraped(server_factory: Callable[..., Any]) -> dict[str, set[str]]:
    """What a real server's /metrics exposes right after start."""
    running = server_factory()
    assert running.metrics_url
    return scrape(running.metrics_url)


@pytest.fixture
def series_labels(
    server_metrics: dict[str, tuple[str, tuple[str, ...]]], scraped: dict[str, set[str]]
) -> dict[str, set[str]]:
    """Every series the server exports -> the label names it carries (without target labels).

    The service's own metrics by their declared labels (a labelled metric shows no series
    before its first use); the runtime collectors' as a real server exposes them."""
    suffixes = {"counter": ("_total",), "histogram": ("_bucket", "_sum", "_count"), "gauge": ("",)}
    labels = {name: set(names) for name, names in scraped.items()}
    for name, (kind, names) in server_metrics.items():
        for suffix in suffixes[kind]:
            extra = {"le"} if suffix == "_bucket" else set()
            labels.setdefault(name + suffix, set()).update(set(names) | extra)
    return labels


def test_the_metric_contract_here_is_what_the_server_exports(
    series_labels: dict[str, set[str]],
) -> None:
    # EXPORTED is what the dashboard and alerts may query; a metric renamed in the code must
    # fail here, not show "No data" in Grafana.
    missing = EXPORTED - set(series_labels)
    assert not missing, f"the server no longer exports {sorted(missing)}"


def test_process_and_gc_series_are_in_the_servers_own_registry(
    scraped: dict[str, set[str]],
) -> None:
    # prometheus_client puts them in its global registry only; the server uses a registry of
    # its own, so without registering them the saturation alerts would never have data.
    assert set(scraped) >= RUNTIME
    assert scraped["python_gc_collections_total"] == {"generation"}


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


def test_no_two_dashboard_panels_cover_the_same_cells() -> None:
    # Grafana would push an overlapping panel somewhere of its own choosing.
    shown = [p for p in dashboard()["panels"] if "gridPos" in p]
    for i, a in enumerate(shown):
        for b in shown[i + 1 :]:
            ga, gb = a["gridPos"], b["gridPos"]
            apart = (
                ga["x"] + ga["w"] <= gb["x"]
                or gb["x"] + gb["w"] <= ga["x"]
                or ga["y"] + ga["h"] <= gb["y"]
                or gb["y"] + gb["h"] <= ga["y"]
            )
            assert apart, f"{a['title']!r} and {b['title']!r} overlap"


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
        ("tienlen_bot_searches_total", "outcome"),
        ("tienlen_bot_search_seconds_bucket", "bot"),
        ("tienlen_web_handled_total", "transport"),
        ("tienlen_web_refused_total", "reason"),
        ("tienlen_web_connections_refused_total", "reason"),
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


# --- label matchers: the right labels, values that exist, the selection each alert means --------


SELECTOR = re.compile(r"\b([A-Za-z_:][A-Za-z0-9_:]*)\s*\{([^}]*)\}")
MATCHER = re.compile(r'\s*(\w+)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*)"\s*,?')
GRPC_TYPES = {"unary", "client_stream", "server_stream", "bidi_stream"}
GRPC_CODES = {
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
}

Matcher = tuple[str, str, str]


def selectors(expr: str) -> list[tuple[str, list[Matcher]]]:
    """Each `metric{...}` of an expression with its label matchers (label, operator, value)."""
    found = []
    for match in SELECTOR.finditer(expr):
        body = match.group(2)
        matchers = [(m.group(1), m.group(2), m.group(3)) for m in MATCHER.finditer(body)]
        assert "".join(m.group(0) for m in MATCHER.finditer(body)).strip() == body.strip(), (
            f"unparsed matcher in {match.group(0)!r}"
        )
        found.append((match.group(1), matchers))
    return found


def matches(matchers: list[Matcher], labels: dict[str, str]) -> bool:
    """Whether a series with these labels is selected (PromQL: regexes are anchored)."""
    for label, op, value in matchers:
        actual = labels.get(label, "")
        if op == "=" and actual != value:
            return False
        if op == "!=" and actual == value:
            return False
        if op == "=~" and not re.fullmatch(value, actual):
            return False
        if op == "!~" and re.fullmatch(value, actual):
            return False
    return True


def engine_methods() -> dict[str, str]:
    """The engine's methods -> grpc_type, from the protobuf descriptor the server serves."""
    from tienlen.v1 import service_pb2

    kinds = {
        (False, False): "unary",
        (False, True): "server_stream",
        (True, False): "client_stream",
        (True, True): "bidi_stream",
    }
    service = service_pb2.DESCRIPTOR.services_by_name[ENGINE_SERVICE.rsplit(".", 1)[1]]
    return {m.name: kinds[m.client_streaming, m.server_streaming] for m in service.methods}


def engine_calls_selected(matchers: list[Matcher], metric: str = "grpc_server_") -> set[str]:
    """The engine methods whose series a selector of the call metrics picks (matchers on other
    labels, such as the dashboard's job variable, are left aside). The web port's series
    (`tienlen_web_*`) have no `grpc_type`: it serves unary calls only."""
    rpc_labels = {"grpc_service", "grpc_method", "grpc_type"}
    matchers = [m for m in matchers if m[0] in rpc_labels]
    web = metric.startswith("tienlen_web_")
    return {
        method
        for method, kind in engine_methods().items()
        if (kind == "unary" or not web)
        and matches(
            matchers,
            {"grpc_service": ENGINE_SERVICE, "grpc_method": method}
            | ({} if web else {"grpc_type": kind}),
        )
    }


def rule(name: str) -> dict[str, Any]:
    (found,) = [r for r in rules() if r["alert"] == name]
    return found


def all_exprs() -> list[str]:
    return [r["expr"] for r in rules()] + dashboard_exprs()


def test_selector_parser_and_matcher() -> None:
    (sel,) = selectors('rate(x_total{a="1", b!~"P.*|Q"}[5m])')
    assert sel == ("x_total", [("a", "=", "1"), ("b", "!~", "P.*|Q")])
    assert matches(sel[1], {"a": "1", "b": "R"})
    assert not matches(sel[1], {"a": "1", "b": "Play"})
    assert not matches(sel[1], {"a": "2", "b": "R"})


def test_every_matcher_names_a_label_the_series_has(series_labels: dict[str, set[str]]) -> None:
    for expr in all_exprs():
        for metric, matchers in selectors(expr):
            assert metric in series_labels, f"{metric} is not exported"
            allowed = series_labels[metric] | TARGET_LABELS | {"job"}
            for label, _, _ in matchers:
                assert label in allowed, f"{metric} has no label {label!r} (in {expr!r})"


def test_every_matcher_value_can_occur() -> None:
    methods = engine_methods()
    values = {
        "grpc_service": {ENGINE_SERVICE},
        "grpc_method": set(methods),
        "grpc_type": GRPC_TYPES,
        "grpc_code": GRPC_CODES,
        "generation": {"0", "1", "2"},
        "transport": {"connect", "grpc_web"},
    }
    for expr in all_exprs():
        for metric, matchers in selectors(expr):
            for label, op, value in matchers:
                if label not in values:
                    continue
                known = values[label]
                if op in {"=", "!="}:
                    assert value in known, f"{metric}: {label} is never {value!r}"
                else:
                    hits = {v for v in known if re.fullmatch(value, v)}
                    for alternative in value.split("|"):
                        assert any(re.fullmatch(alternative, v) for v in known), (
                            f"{metric}: {label} never matches {alternative!r}"
                        )
                    assert hits, f"{metric}: {label}=~{value!r} matches nothing"


def test_no_rule_depends_on_a_scrape_job_name() -> None:
    for alert in rules():
        for _, matchers in selectors(alert["expr"]):
            assert "job" not in {label for label, _, _ in matchers}, alert["alert"]
        assert not re.search(r"\b(?:by|without|on|ignoring)\s*\([^)]*\bjob\b", alert["expr"])


def test_replicas_down_fires_with_zero_replicas() -> None:
    expr = rule("TienLenEngineReplicasDown")["expr"]
    # Every replica exports tienlen_build_info; with none left `count()` is empty (no alert),
    # so absent() must carry the zero case.
    assert re.search(r"count\(\s*tienlen_build_info\s*\)\s*<\s*2", expr)
    assert re.search(r"\bor\b\s*absent\(\s*tienlen_build_info\s*\)", expr)
    assert "up" not in metric_names(expr)


def latency_selectors(expr: str) -> list[tuple[str, list[Matcher]]]:
    return [
        (metric, m)
        for metric, m in selectors(expr)
        if metric.startswith(("grpc_server_handling_", "tienlen_web_handling_"))
    ]


def test_slow_calls_is_the_unary_slo_without_streams_or_bots_on_both_ports() -> None:
    found = latency_selectors(rule("TienLenEngineSlowCalls")["expr"])
    unary = {m for m, kind in engine_methods().items() if kind == "unary"}
    assert "SuggestMove" in unary
    assert "PlayStream" in engine_methods()
    assert "PlayStream" not in unary
    assert sorted(metric.split("_")[0] for metric, _ in found) == ["grpc", "tienlen"]
    for metric, matchers in found:
        assert engine_calls_selected(matchers, metric) == unary - {"SuggestMove"}, metric


def test_bots_have_their_own_latency_alert_on_both_ports() -> None:
    found = latency_selectors(rule("TienLenEngineSlowBots")["expr"])
    assert sorted(metric.split("_")[0] for metric, _ in found) == ["grpc", "tienlen"]
    for metric, matchers in found:
        assert engine_calls_selected(matchers, metric) == {"SuggestMove"}, metric
    threshold = float(rule("TienLenEngineSlowBots")["expr"].rsplit(">", 1)[1])
    assert threshold > float(rule("TienLenEngineSlowCalls")["expr"].rsplit(">", 1)[1])


def test_no_latency_query_reads_streams() -> None:
    # A stream's handling time is its lifetime: its p99 says nothing about speed.
    for expr in all_exprs():
        for metric, matchers in latency_selectors(expr):
            selected = engine_calls_selected(matchers, metric)
            assert selected, expr
            assert all(engine_methods()[m] == "unary" for m in selected), expr


def joins_both_ports(expr: str) -> bool:
    """Whether every gRPC call family `expr` reads is joined with its web twin by `or`: the
    two never share a label set, so `or` keeps both, where `+` or `sum() + sum()` would
    drop a method one port has not served yet, or all of it while a port has no series."""
    names = metric_names(expr)
    for grpc_name, web_name in PORT_TWINS.items():
        if grpc_name in names:
            if web_name not in names:
                return False
            pattern = rf"{grpc_name}\{{[^}}]*\}}\[[^\]]*\]\)\s*or\s*rate\({web_name}\b"
            if not re.search(pattern, expr):
                return False
    return True


def test_joins_of_both_ports_are_recognised() -> None:
    grpc = 'rate(grpc_server_started_total{a="b"}[5m])'
    web = 'rate(tienlen_web_started_total{a="b"}[5m])'
    assert joins_both_ports(f"sum({grpc} or {web})")
    assert not joins_both_ports(f"sum({grpc})")
    assert not joins_both_ports(f"sum({grpc}) + sum({web})")


@pytest.mark.parametrize(
    "name",
    [
        "TienLenEngineServerErrors",
        "TienLenEngineSlowCalls",
        "TienLenEngineSlowBots",
        "TienLenTokensRejected",
    ],
)
def test_call_alerts_read_both_ports(name: str) -> None:
    expr = rule(name)["expr"]
    assert metric_names(expr) & set(PORT_TWINS.values()), f"{name} never sees a web call"
    assert joins_both_ports(expr), f"{name} does not join the two ports with `or`"


def test_every_call_panel_reads_both_ports() -> None:
    for panel in panels():
        exprs = [t["expr"] for t in panel.get("targets", [])]
        grpc_only = [e for e in exprs if metric_names(e) & set(PORT_TWINS)]
        reads_web = any(metric_names(e) & set(PORT_TWINS.values()) for e in exprs)
        for expr in grpc_only:
            # Either the expression joins both ports, or the panel has a web target beside it.
            assert joins_both_ports(expr) or reads_web, f"{panel['title']!r}: {expr}"


def test_the_web_port_has_its_saturation_alert() -> None:
    expr = rule("TienLenEngineWebPortFull")["expr"]
    (selector,) = selectors(expr)
    assert selector == (
        "tienlen_web_connections_refused_total",
        [("reason", "=", "CONNECTION_LIMIT")],
    )
    from tienlen_service.web.guard import REASONS

    assert "CONNECTION_LIMIT" in REASONS


def test_process_alerts_watch_cpu_memory_fds_and_gc() -> None:
    watched = {
        "process_cpu_seconds_total",
        "process_resident_memory_bytes",
        "process_open_fds",
        "python_gc_objects_uncollectable_total",
    }
    for alert in rules():
        names = metric_names(alert["expr"])
        if names & RUNTIME:
            # process_* and python_gc_* come from every Python target: only the engine's count.
            assert re.search(r"\band on \(instance\) tienlen_build_info\b", alert["expr"])
            watched -= names
    assert not watched, f"no alert on {sorted(watched)}"


def mebibytes(quantity: str) -> float:
    units = {"Mi": 1.0, "Gi": 1024.0}
    return float(quantity[:-2]) * units[quantity[-2:]]


def test_memory_alert_fires_before_the_container_limit() -> None:
    (deployment,) = [d for d in yaml.safe_load_all(DEPLOYMENT.read_text(encoding="utf-8")) if d]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    limit = mebibytes(container["resources"]["limits"]["memory"])
    threshold = float(rule("TienLenEngineMemoryHigh")["expr"].rsplit(">", 1)[1]) / 2**20
    assert 0.5 * limit < threshold < limit


def test_dashboard_has_a_saturation_row() -> None:
    data = dashboard()
    (row,) = [p for p in data["panels"] if p["type"] == "row" and p["title"] == "Saturation"]
    below = [
        p for p in data["panels"] if p["type"] != "row" and p["gridPos"]["y"] > row["gridPos"]["y"]
    ]
    shown = set().union(*(metric_names(t["expr"]) for p in below for t in p["targets"]))
    assert {
        "process_cpu_seconds_total",
        "tienlen_rpcs_in_flight",
        "process_resident_memory_bytes",
        "process_open_fds",
        "python_gc_collections_total",
    } <= shown
