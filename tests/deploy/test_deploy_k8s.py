"""The Kubernetes manifests in deploy/k8s are valid and agree with each other and the image.

Validation is offline: kubernetes-validate ships the OpenAPI schemas of each Kubernetes release,
and every document is checked, strictly (unknown fields are errors), against one fixed version.
"""

from __future__ import annotations

import base64
import re
import shlex
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
K8S_DIR = REPO / "deploy" / "k8s"
OPTIONAL_DIR = K8S_DIR / "optional"
DOCKERFILE = REPO / "deploy" / "Dockerfile"

# The oldest Kubernetes release the manifests promise to work on (gRPC probes are GA since 1.27).
KUBERNETES_VERSION = "1.31.0"

GRPC_PORT = 50051
METRICS_PORT = 9464
HEALTH_SERVICE = "tienlen.v1.TienLenEngine"

Doc = dict[str, Any]


def load_docs(path: Path) -> list[Doc]:
    docs = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d is not None]
    assert docs, f"{path} holds no YAML document"
    for doc in docs:
        assert isinstance(doc, dict), f"{path}: a document is not a mapping"
    return docs


def kustomization() -> Doc:
    (doc,) = load_docs(K8S_DIR / "kustomization.yaml")
    return doc


def resource_files() -> list[Path]:
    return [K8S_DIR / name for name in kustomization()["resources"]]


def all_resources() -> list[Doc]:
    return [doc for path in resource_files() for doc in load_docs(path)]


def one(kind: str, name: str | None = None) -> Doc:
    found = [
        d
        for d in all_resources()
        if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)
    ]
    assert len(found) == 1, f"expected exactly one {kind} {name or ''}, found {len(found)}"
    return found[0]


def deployment() -> Doc:
    return one("Deployment", "tienlen-engine")


def engine_container() -> Doc:
    containers = deployment()["spec"]["template"]["spec"]["containers"]
    (container,) = [c for c in containers if c["name"] == "engine"]
    assert isinstance(container, dict)
    return container


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(key) == value for key, value in selector.items())


def pod_labels() -> dict[str, str]:
    labels = deployment()["spec"]["template"]["metadata"]["labels"]
    assert isinstance(labels, dict)
    return labels


def container_env() -> dict[str, str]:
    """The engine's effective plain-value environment: ConfigMaps from envFrom, then env."""
    env: dict[str, str] = {}
    for source in engine_container().get("envFrom", []):
        if "configMapRef" in source:
            data = one("ConfigMap", source["configMapRef"]["name"])["data"]
            env.update(data)
    for item in engine_container().get("env", []):
        if "value" in item:
            env[item["name"]] = item["value"]
    return env


# --- every document parses and validates -------------------------------------------------------


def test_kustomization_lists_every_manifest_and_each_exists() -> None:
    listed = kustomization()["resources"]
    assert len(listed) == len(set(listed)), "a resource is listed twice"
    for name in listed:
        assert (K8S_DIR / name).is_file(), f"kustomization resource {name} does not exist"
    on_disk = {p.name for p in K8S_DIR.glob("*.yaml")} - {"kustomization.yaml"}
    assert on_disk == set(listed), "every manifest in deploy/k8s is applied by the kustomization"


def test_kustomization_namespace_is_created_by_it() -> None:
    assert one("Namespace")["metadata"]["name"] == kustomization()["namespace"]


@pytest.mark.parametrize(
    "path",
    # kustomization.yaml is kustomize's own file, not a Kubernetes API object.
    sorted(p for p in K8S_DIR.glob("*.yaml") if p.name != "kustomization.yaml"),
    ids=lambda p: p.name,
)
def test_manifest_is_valid_for_kubernetes_version(path: Path) -> None:
    for doc in load_docs(path):
        try:
            kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(
                f"{path.name}: {doc['kind']}/{doc['metadata']['name']} is invalid for "
                f"Kubernetes {KUBERNETES_VERSION} at {'.'.join(map(str, exc.path))}: {exc.message}"
            )


def test_validator_rejects_an_invalid_manifest() -> None:
    # The validator really runs offline with schemas: a misspelt field must fail.
    broken = yaml.safe_load(
        """
        apiVersion: v1
        kind: Service
        metadata: {name: x}
        spec: {ports: [{port: 1, protcol: TCP}]}
        """
    )
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSION, strict=True)


def test_optional_operator_resources_are_not_in_the_kustomization() -> None:
    # They need the Prometheus Operator's CRDs, which a plain cluster does not have.
    listed = set(kustomization()["resources"])
    kinds = set()
    for path in sorted(OPTIONAL_DIR.glob("*.yaml")):
        assert path.name not in listed
        for doc in load_docs(path):
            assert doc["apiVersion"] == "monitoring.coreos.com/v1"
            kinds.add(doc["kind"])
    assert kinds == {"ServiceMonitor", "PrometheusRule"}


# --- the Deployment --------------------------------------------------------------------------


def test_deployment_runs_three_replicas_and_selects_its_own_pods() -> None:
    spec = deployment()["spec"]
    assert spec["replicas"] == 3
    assert selects(spec["selector"]["matchLabels"], pod_labels())
    assert spec["strategy"]["rollingUpdate"]["maxUnavailable"] == 0


def test_container_has_requests_and_limits() -> None:
    resources = engine_container()["resources"]
    for kind in ("requests", "limits"):
        assert {"cpu", "memory"} <= set(resources[kind]), f"{kind} must set cpu and memory"


def test_probes_are_native_grpc_on_the_health_service() -> None:
    container = engine_container()
    ports = {p["containerPort"] for p in container["ports"]}
    for probe_name in ("startupProbe", "readinessProbe", "livenessProbe"):
        probe = container[probe_name]
        assert probe["grpc"]["port"] == GRPC_PORT, probe_name
        assert probe["grpc"]["port"] in ports
    # Readiness follows the engine service's own status, which goes NOT_SERVING on SIGTERM.
    assert container["readinessProbe"]["grpc"]["service"] == HEALTH_SERVICE


def shutdown_grace_seconds() -> float:
    """The server's --grace, from the container args or TIENLEN_SHUTDOWN_GRACE (default 10)."""
    args = engine_container().get("args", [])
    for i, arg in enumerate(args):
        if arg == "--grace":
            return float(args[i + 1])
        if arg.startswith("--grace="):
            return float(arg.split("=", 1)[1])
    return float(container_env().get("TIENLEN_SHUTDOWN_GRACE", "10"))


def drain_delay_seconds() -> float:
    """The server's --drain-delay, from the container args or TIENLEN_DRAIN_DELAY (default 0)."""
    args = engine_container().get("args", [])
    for i, arg in enumerate(args):
        if arg == "--drain-delay":
            return float(args[i + 1])
        if arg.startswith("--drain-delay="):
            return float(arg.split("=", 1)[1])
    return float(container_env().get("TIENLEN_DRAIN_DELAY", "0"))


def prestop_sleep_seconds() -> int:
    command = engine_container()["lifecycle"]["preStop"]["exec"]["command"]
    words = shlex.split(command[-1]) if command[0] in {"sh", "/bin/sh"} else command
    assert words[0] in {"sleep", "/bin/sleep"}, f"preStop is not a sleep: {command}"
    return int(words[1])


def test_termination_grace_covers_prestop_sleep_drain_and_server_grace() -> None:
    pod = deployment()["spec"]["template"]["spec"]
    grace = shutdown_grace_seconds()
    sleep = prestop_sleep_seconds()
    drain = drain_delay_seconds()
    assert sleep >= 1, "the preStop sleep lets endpoint removal propagate before SIGTERM"
    assert drain >= 1, "health-checking clients get time to move away before the port closes"
    assert grace >= 1
    assert pod["terminationGracePeriodSeconds"] > sleep + drain + grace, (
        "the kubelet would SIGKILL the server while it still drains in-flight calls"
    )


def test_pod_runs_non_root_with_read_only_root_filesystem() -> None:
    pod = deployment()["spec"]["template"]["spec"]
    container = engine_container()
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
    security = container["securityContext"]
    assert security["readOnlyRootFilesystem"] is True
    assert security["allowPrivilegeEscalation"] is False
    assert security["capabilities"]["drop"] == ["ALL"]
    assert pod["automountServiceAccountToken"] is False


def test_pod_user_is_the_image_user() -> None:
    users = [
        line.split()[1]
        for line in DOCKERFILE.read_text(encoding="utf-8").splitlines()
        if line.startswith("USER ")
    ]
    assert users, "the Dockerfile sets no USER"
    uid, _, gid = users[-1].partition(":")
    security = deployment()["spec"]["template"]["spec"]["securityContext"]
    assert security["runAsUser"] == int(uid)
    if gid:
        assert security["runAsGroup"] == int(gid)


def test_image_name_is_the_one_kustomize_rewrites() -> None:
    names = {image["name"] for image in kustomization()["images"]}
    assert engine_container()["image"] in names


def test_prometheus_annotations_point_at_the_metrics_port() -> None:
    annotations = deployment()["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/path"] == "/metrics"
    ports = {p["name"]: p["containerPort"] for p in engine_container()["ports"]}
    assert int(annotations["prometheus.io/port"]) == ports["metrics"] == METRICS_PORT
    assert int(container_env()["TIENLEN_METRICS_PORT"]) == METRICS_PORT
    assert int(container_env()["TIENLEN_PORT"]) == ports["grpc"] == GRPC_PORT


def test_keys_come_from_the_secret() -> None:
    (item,) = [e for e in engine_container()["env"] if e["name"] == "TIENLEN_KEYS"]
    ref = item["valueFrom"]["secretKeyRef"]
    secret = one("Secret", ref["name"])
    assert ref["key"] in secret.get("stringData", {}) or ref["key"] in secret.get("data", {})


def test_example_keys_are_well_formed_and_marked_as_examples() -> None:
    secret_file = K8S_DIR / "secret.yaml"
    assert "REPLACE" in secret_file.read_text(encoding="utf-8"), "the example is clearly marked"
    value = one("Secret", "tienlen-engine-keys")["stringData"]["TIENLEN_KEYS"]
    kids = []
    for entry in value.split(","):
        kid, sep, material = entry.strip().partition(":")
        assert sep, f"{entry!r} is not kid:base64url"
        assert re.fullmatch(r"[A-Za-z0-9._-]{1,32}", kid), kid
        raw = base64.urlsafe_b64decode(material + "=" * (-len(material) % 4))
        assert len(raw) == 32, f"key {kid} is {len(raw)} bytes, not 32"
        kids.append(kid)
    assert len(kids) == len(set(kids)), "key ids are unique"
    assert all("example" in kid or "replace" in kid for kid in kids)


# --- Services, HPA, PDB ----------------------------------------------------------------------


def test_services_select_the_pods_and_name_existing_ports() -> None:
    container_ports = {p["name"] for p in engine_container()["ports"]}
    services = [d for d in all_resources() if d["kind"] == "Service"]
    assert len(services) == 2
    for service in services:
        assert selects(service["spec"]["selector"], pod_labels())
        grpc_ports = [p for p in service["spec"]["ports"] if p["name"] == "grpc"]
        assert len(grpc_ports) == 1, "each Service has a port named grpc"
        assert grpc_ports[0]["appProtocol"] == "grpc"
        assert grpc_ports[0]["port"] == GRPC_PORT
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in container_ports


def test_one_cluster_ip_and_one_headless_service() -> None:
    main = one("Service", "tienlen-engine")
    headless = one("Service", "tienlen-engine-headless")
    assert main["spec"].get("type", "ClusterIP") == "ClusterIP"
    assert main["spec"].get("clusterIP") != "None"
    assert headless["spec"]["clusterIP"] == "None"
    # Draining pods must leave DNS so that round_robin clients stop picking them.
    assert headless["spec"].get("publishNotReadyAddresses", False) is False


def test_hpa_scales_the_deployment_on_cpu_from_three() -> None:
    hpa = one("HorizontalPodAutoscaler")
    assert hpa["apiVersion"] == "autoscaling/v2"
    target = hpa["spec"]["scaleTargetRef"]
    assert (target["apiVersion"], target["kind"], target["name"]) == (
        "apps/v1",
        "Deployment",
        deployment()["metadata"]["name"],
    )
    assert hpa["spec"]["minReplicas"] == deployment()["spec"]["replicas"]
    assert hpa["spec"]["maxReplicas"] > hpa["spec"]["minReplicas"]
    (metric,) = hpa["spec"]["metrics"]
    assert metric["type"] == "Resource"
    assert metric["resource"]["name"] == "cpu"
    # Utilization is relative to the CPU request, so the container must have one.
    assert "cpu" in engine_container()["resources"]["requests"]


def test_pdb_keeps_a_majority_of_replicas() -> None:
    pdb = one("PodDisruptionBudget")
    assert selects(pdb["spec"]["selector"]["matchLabels"], pod_labels())
    replicas = deployment()["spec"]["replicas"]
    if "maxUnavailable" in pdb["spec"]:
        assert 1 <= pdb["spec"]["maxUnavailable"] < replicas / 2
    else:
        assert replicas / 2 < pdb["spec"]["minAvailable"] < replicas


def test_service_monitor_scrapes_the_metrics_port_of_the_engine_service() -> None:
    (monitor,) = load_docs(OPTIONAL_DIR / "servicemonitor.yaml")
    assert monitor["kind"] == "ServiceMonitor"
    matched = [
        d
        for d in all_resources()
        if d["kind"] == "Service"
        and selects(monitor["spec"]["selector"]["matchLabels"], d["metadata"]["labels"])
    ]
    assert [s["metadata"]["name"] for s in matched] == ["tienlen-engine"], (
        "exactly one Service is scraped, or every pod would be scraped twice"
    )
    port_names = {p["name"] for p in matched[0]["spec"]["ports"]}
    for endpoint in monitor["spec"]["endpoints"]:
        assert endpoint["port"] in port_names
        assert endpoint["path"] == "/metrics"


# --- the settings are the server's own ----------------------------------------------------------


def pod_environment() -> dict[str, str]:
    """Everything the engine container gets as TIENLEN_* variables, the Secret included."""
    env = dict(container_env())
    for item in engine_container().get("env", []):
        ref = item.get("valueFrom", {}).get("secretKeyRef")
        if ref:
            secret = one("Secret", ref["name"])
            env[item["name"]] = secret["stringData"][ref["key"]]
    return env


def test_every_setting_is_one_the_server_reads() -> None:
    from tienlen_service.config import OPTIONS

    known = {option.env for option in OPTIONS}
    given = {name for name in pod_environment() if name.startswith("TIENLEN_")}
    assert given <= known, f"the server ignores {sorted(given - known)}"


def test_server_parses_the_pod_settings_to_what_the_manifests_assume() -> None:
    from tienlen_service.config import parse_config
    from tienlen_service.tokens import KeyRing

    config, _ = parse_config(engine_container().get("args", []), pod_environment())
    assert config.port == GRPC_PORT
    assert config.metrics_port == METRICS_PORT
    assert config.grace == shutdown_grace_seconds()
    assert config.drain_delay == drain_delay_seconds()
    assert config.max_connection_age > 0, "clients must re-balance onto new pods"
    assert config.keys is not None
    KeyRing.from_spec(config.keys)  # the example keys are well-formed for the server too


def test_readme_names_only_settings_the_server_reads() -> None:
    from tienlen_service.config import OPTIONS

    known = {option.env for option in OPTIONS}
    text = (REPO / "deploy" / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"\bTIENLEN_[A-Z_]*[A-Z]\b", text))
    named -= {n for n in named if n.startswith("TIENLEN_NGINX_")}  # the nginx template's
    assert named, "the README documents the settings"
    assert named <= known, f"deploy/README.md names unknown settings {sorted(named - known)}"


def test_the_readmes_quote_the_manifests_numbers() -> None:
    from tienlen_service.config import parse_config

    config, _ = parse_config(engine_container().get("args", []), pod_environment())
    pod = deployment()["spec"]["template"]["spec"]

    def n(value: float) -> str:
        return f"{value:g}"

    sleep, drain, grace = prestop_sleep_seconds(), config.drain_delay, config.grace
    period = pod["terminationGracePeriodSeconds"]
    readme = (REPO / "docs" / "OPERATIONS.md").read_text(encoding="utf-8")
    assert f"use {n(sleep)} s + {n(drain)} s + {n(grace)} s < {n(period)} s" in readme
    assert f"the manifests use {n(drain)} s" in readme
    operators = (REPO / "deploy" / "README.md").read_text(encoding="utf-8")
    for quoted in (
        f"hook sleeps {n(sleep)} s",
        f"`TIENLEN_DRAIN_DELAY={n(drain)}`",
        f"`TIENLEN_SHUTDOWN_GRACE={n(grace)}`",
        f"`terminationGracePeriodSeconds: {n(period)}`",
        f"{n(sleep)} + {n(drain)} + {n(grace)}",
        f"(the manifests set {config.workers})",
        f"({n(config.max_connection_age)} s in the manifests)",
    ):
        assert quoted in operators, quoted
