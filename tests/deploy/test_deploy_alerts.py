"""The alert rules do what they say with data: promtool's unit tests (alert-tests.yaml).

test_deploy_observability.py checks what the rules read (metric and label names, selectors);
this runs them, with Prometheus' own engine, on traffic on the web port only, on both ports,
and none: the rules a call can trip (errors, latency, token refusals) count both ports' calls,
a 0/0 ratio stays quiet, and the web port's own saturation pages where it should.

promtool comes with Debian's `prometheus` package (`make apt-deps`); without it these tests
skip and say so, except in CI, where a missing promtool is a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
RULES = REPO / "deploy" / "k8s" / "optional" / "prometheusrule.yaml"
TESTS = Path(__file__).with_name("alert-tests.yaml")
CASES = ("web port only", "mixed traffic", "no traffic")
# The token rule as it was before the web port was counted (issue 37): its denominator is the
# gRPC calls alone, so web-only traffic divides by zero, and it pages.
GRPC_ONLY_TOKEN_RULE = """sum(rate(tienlen_tokens_rejected_total[5m]))
  /
sum(rate(grpc_server_started_total{grpc_service="tienlen.v1.TienLenEngine"}[5m]))
  > 0.01
"""


def promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        message = "promtool is not installed: `make apt-deps` (Debian's prometheus package)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


def rule_groups() -> dict[str, Any]:
    (doc,) = [d for d in yaml.safe_load_all(RULES.read_text(encoding="utf-8")) if d]
    spec: dict[str, Any] = doc["spec"]
    return spec


def run_tests(directory: Path, groups: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    """promtool's unit tests against these rule groups (written where the tests expect them)."""
    (directory / "rules.yaml").write_text(yaml.safe_dump(groups), encoding="utf-8")
    shutil.copyfile(TESTS, directory / TESTS.name)
    return subprocess.run(
        [promtool(), "test", "rules", TESTS.name],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_rules_are_valid_for_prometheus(tmp_path: Path) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump(rule_groups()), encoding="utf-8")
    checked = subprocess.run(
        [promtool(), "check", "rules", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_rules_pass_their_unit_tests(tmp_path: Path) -> None:
    result = run_tests(tmp_path, rule_groups())
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_unit_tests_cover_web_only_mixed_and_idle_traffic_and_every_rule() -> None:
    tests = yaml.safe_load(TESTS.read_text(encoding="utf-8"))["tests"]
    names = [test["name"] for test in tests]
    for case in CASES:
        assert any(name.startswith(case) for name in names), f"no {case!r} case"
    (idle,) = [test for test in tests if test["name"] == "no traffic"]
    quiet = {check["alertname"] for check in idle["alert_rule_test"] if check["exp_alerts"] == []}
    every = {rule["alert"] for group in rule_groups()["groups"] for rule in group["rules"]}
    assert quiet == every, f"the idle case does not check {sorted(every - quiet)}"


def test_a_token_rule_that_counts_grpc_calls_only_fails_the_web_only_case(
    tmp_path: Path,
) -> None:
    # The unit tests can fail: with the old denominator, the web-only case pages.
    groups = rule_groups()
    for group in groups["groups"]:
        for rule in group["rules"]:
            if rule["alert"] == "TienLenTokensRejected":
                rule["expr"] = GRPC_ONLY_TOKEN_RULE
    result = run_tests(tmp_path, groups)
    report = result.stdout + result.stderr
    assert result.returncode != 0
    assert "name: web port only, a normal token refusal rate" in report
    assert "alertname: TienLenTokensRejected" in report
