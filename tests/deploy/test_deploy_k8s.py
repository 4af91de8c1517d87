"""The Kubernetes manifests in deploy/k8s render, are valid, and are safe by default.

They are a kustomize base and two overlays. What is checked is what `kubectl kustomize` renders
(what `kubectl apply -k` would send), not the files one by one:

- `deploy/k8s` (= `overlays/production`) renders no Secret at all: the keys are an externally
  managed Secret the pods name, so no apply ever puts a published key over the real one;
- `overlays/dev` generates its Secret from a key file the developer makes (git-ignored), and
  tells the service that it is a dev run;
- both are valid, strictly (unknown fields are errors), against the OpenAPI schemas of one
  fixed Kubernetes release, offline (kubernetes-validate ships them);
- a security review's list: default-deny NetworkPolicy with only the engine's ports open to
  the right peers, a dedicated ServiceAccount without a token, zone spread, a CPU request the
  HPA can act on, and an HPA that waits for clients to re-balance before scaling down.

Rendering needs `kubectl` (its built-in kustomize); the machine image has it. Without it the
rendering tests skip and say so.
"""

from __future__ import annotations

import base64
import dataclasses
import re
import shlex
import shutil
from pathlib import Path

import kubernetes_validate
import pytest
import yaml
from helpers.kustomize import (
    DEV_KEY_FILE,
    K8S_DIR,
    REPO,
    Doc,
    Rendered,
    kustomize,
    load_docs,
    render,
    selects,
)

BASE_DIR = K8S_DIR / "base"
DEV_DIR = K8S_DIR / "overlays" / "dev"
PRODUCTION_DIR = K8S_DIR / "overlays" / "production"
OPTIONAL_DIR = K8S_DIR / "optional"
DOCKERFILE = REPO / "deploy" / "Dockerfile"

# The oldest Kubernetes release the manifests promise to work on (gRPC probes are GA since 1.27).
KUBERNETES_VERSION = "1.31.0"

GRPC_PORT = 50051
WEB_PORT = 8080
METRICS_PORT = 9464
HEALTH_SERVICE = "tienlen.v1.TienLenEngine"
KEYS_SECRET = "tienlen-engine-keys"
FRONTEND_LABEL = ("tienlen.io/engine-client", "true")
# What one replica's single Python process can use: the interpreter lock keeps the engine's
# work on one core (grpcio's own threads add a little, bench/README.md).
PROCESS_CPU_CEILING = 1.0
# Flags the dev overlay passes that the service-hardening work adds (--dev: accept the
# published example key; --reflection: serve gRPC reflection). Tolerated as unknown to the
# server only until that work is merged: once OPTIONS has them, nothing is tolerated.
PENDING_SERVICE_FLAGS = frozenset({"--dev", "--reflection"})

# --- the layout: a base and two overlays ---------------------------------------------------------


def kustomization(directory: Path) -> Doc:
    (doc,) = load_docs(directory / "kustomization.yaml")
    return doc


def test_base_lists_every_manifest_of_its_folder() -> None:
    listed = kustomization(BASE_DIR)["resources"]
    assert len(listed) == len(set(listed)), "a resource is listed twice"
    on_disk = {p.name for p in BASE_DIR.glob("*.yaml")} - {"kustomization.yaml"}
    assert on_disk == set(listed), "every manifest in base/ is applied by its kustomization"


def test_deploy_k8s_is_the_production_overlay() -> None:
    # `kubectl apply -k deploy/k8s` (the command people remember) is production's, never dev's.
    assert kustomization(K8S_DIR)["resources"] == ["overlays/production"]
    assert kustomization(PRODUCTION_DIR)["resources"] == ["../../base"]
    assert kustomization(DEV_DIR)["resources"] == ["../../base"]


def test_production_and_the_shortcut_render_the_same(production: Rendered) -> None:
    assert render(PRODUCTION_DIR) == production.docs


def test_no_file_of_the_manifests_holds_key_material() -> None:
    # A kid:base64url(32 bytes) value anywhere under deploy/ would be a published key.
    key = re.compile(r"[A-Za-z0-9._-]{1,32}:([A-Za-z0-9_-]{43}=?)(?![A-Za-z0-9_-])")
    for path in sorted((REPO / "deploy").rglob("*")):
        if not path.is_file() or path.name == DEV_KEY_FILE:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in key.finditer(text):
            raw = base64.urlsafe_b64decode(match.group(1) + "=" * (-len(match.group(1)) % 4))
            assert len(raw) != 32, f"{path.relative_to(REPO)} holds a key: {match.group(0)[:12]}…"
    assert not (DEV_DIR / DEV_KEY_FILE).exists() or _git_ignored(DEV_DIR / DEV_KEY_FILE)


def _git_ignored(path: Path) -> bool:
    patterns = (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()
    return str(path.relative_to(REPO)) in patterns


def test_dev_key_file_is_git_ignored() -> None:
    assert _git_ignored(DEV_DIR / DEV_KEY_FILE)


# --- keys: never rendered in production, generated locally in dev --------------------------------


def test_production_renders_no_secret(production: Rendered) -> None:
    assert production.all("Secret") == [], "re-applying would overwrite the real keys"
    ref = production.secret_refs()["TIENLEN_KEYS"]
    assert ref == {"name": KEYS_SECRET, "key": "TIENLEN_KEYS"}, "named, to be created outside"
    assert "optional" not in ref, "a missing Secret must stop the pod, not start it keyless"


def test_dev_overlay_generates_its_secret_from_the_local_key_file(
    dev: Rendered, dev_tree: Path
) -> None:
    (secret,) = dev.all("Secret")
    # The generated name carries a hash of the content: a new key file rolls the pods.
    assert secret["metadata"]["name"].startswith(KEYS_SECRET + "-")
    ref = dev.secret_refs()["TIENLEN_KEYS"]
    assert ref["name"] == secret["metadata"]["name"]
    value = base64.b64decode(secret["data"][ref["key"]]).decode()
    written = (dev_tree / "overlays" / "dev" / DEV_KEY_FILE).read_text(encoding="utf-8")
    assert f"TIENLEN_KEYS={value}\n" == written


def test_dev_overlay_does_not_render_without_the_key_file(tmp_path: Path) -> None:
    # No silent fallback to a shared key: without the developer's own key, nothing renders.
    tree = tmp_path / "k8s"
    shutil.copytree(K8S_DIR, tree, ignore=shutil.ignore_patterns(DEV_KEY_FILE))
    result = kustomize(tree / "overlays" / "dev")
    assert result.returncode != 0
    assert DEV_KEY_FILE in result.stderr


def test_dev_key_is_one_the_server_takes(dev: Rendered) -> None:
    from tienlen_service.tokens import KeyRing

    (secret,) = dev.all("Secret")
    KeyRing.from_spec(base64.b64decode(secret["data"]["TIENLEN_KEYS"]).decode())


def test_dev_says_dev_and_serves_reflection_production_does_neither(
    production: Rendered, dev: Rendered
) -> None:
    assert {"--dev", "--reflection"} <= set(dev.args)
    assert not {"--dev", "--reflection"} & set(production.args)
    assert production.config_env()["TIENLEN_DEPLOYMENT"] != dev.config_env()["TIENLEN_DEPLOYMENT"]


def test_server_parses_the_dev_settings_as_a_dev_run_with_reflection(dev: Rendered) -> None:
    from tienlen_service.config import OPTIONS, parse_config

    if PENDING_SERVICE_FLAGS - {option.flag for option in OPTIONS}:
        pytest.skip("the server has no --dev/--reflection yet (service hardening not merged)")
    (secret,) = dev.all("Secret")
    keys = base64.b64decode(secret["data"]["TIENLEN_KEYS"]).decode()
    config, _ = parse_config(dev.args, {**dev.config_env(), "TIENLEN_KEYS": keys})
    settings = dataclasses.asdict(config)
    assert settings["dev"] is True
    assert settings["reflection"] is True


def test_overlay_flags_are_the_servers(rendered: Rendered) -> None:
    from tienlen_service.config import OPTIONS

    known = {option.flag for option in OPTIONS}
    flags = {arg.split("=", 1)[0] for arg in rendered.args if arg.startswith("--")}
    pending = PENDING_SERVICE_FLAGS - known
    assert flags - known <= pending, f"the server has no flag {sorted(flags - known - pending)}"


# --- every rendered document is valid ------------------------------------------------------------


def test_rendered_manifests_are_valid_for_kubernetes_version(rendered: Rendered) -> None:
    for doc in rendered.docs:
        try:
            kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)
        except kubernetes_validate.ValidationError as exc:
            pytest.fail(
                f"{doc['kind']}/{doc['metadata']['name']} is invalid for Kubernetes "
                f"{KUBERNETES_VERSION} at {'.'.join(map(str, exc.path))}: {exc.message}"
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


def test_everything_lands_in_the_namespace_it_creates(rendered: Rendered) -> None:
    namespace = rendered.one("Namespace")["metadata"]["name"]
    for doc in rendered.docs:
        if doc["kind"] != "Namespace":
            assert doc["metadata"].get("namespace") == namespace, doc["metadata"]["name"]
    labels = rendered.one("Namespace")["metadata"]["labels"]
    assert labels["pod-security.kubernetes.io/enforce"] == "restricted"


def test_optional_operator_resources_are_not_rendered(rendered: Rendered) -> None:
    # They need the Prometheus Operator's CRDs, which a plain cluster does not have.
    kinds = set()
    for path in sorted(OPTIONAL_DIR.glob("*.yaml")):
        for doc in load_docs(path):
            assert doc["apiVersion"] == "monitoring.coreos.com/v1"
            kinds.add(doc["kind"])
    assert kinds == {"ServiceMonitor", "PrometheusRule"}
    assert not kinds & {d["kind"] for d in rendered.docs}


# --- what a security review asks for ------------------------------------------------------------


def test_namespace_denies_all_traffic_by_default(rendered: Rendered) -> None:
    deny = [
        p
        for p in rendered.all("NetworkPolicy")
        if p["spec"]["podSelector"] == {}
        and set(p["spec"]["policyTypes"]) == {"Ingress", "Egress"}
        and not p["spec"].get("ingress")
        and not p["spec"].get("egress")
    ]
    assert len(deny) == 1, "one default-deny policy over every pod, both directions"


def _allowed(rendered: Rendered) -> list[tuple[Doc, set[int]]]:
    """The engine's ingress rules: (peer list, container port numbers they may reach)."""
    ports = rendered.port_numbers()
    policies = [
        p
        for p in rendered.all("NetworkPolicy")
        if p["spec"]["podSelector"] != {}
        and selects(p["spec"]["podSelector"]["matchLabels"], rendered.pod_labels)
    ]
    assert len(policies) == 1, "one policy opens the engine's pods"
    rules: list[tuple[Doc, set[int]]] = []
    for rule in policies[0]["spec"].get("ingress", []):
        numbers = set()
        for port in rule["ports"]:
            assert port.get("protocol", "TCP") == "TCP"
            numbers.add(ports[port["port"]] if isinstance(port["port"], str) else port["port"])
        assert rule.get("from"), "every rule names its peers (no rule open to everyone)"
        rules.append((rule, numbers))
    assert not policies[0]["spec"].get("egress"), "the engine makes no outbound connection"
    return rules


def test_frontends_reach_the_grpc_and_web_ports_only(rendered: Rendered) -> None:
    frontend_rules = [
        numbers
        for rule, numbers in _allowed(rendered)
        if any(
            peer.get("podSelector", {}).get("matchLabels", {}).get(FRONTEND_LABEL[0])
            == FRONTEND_LABEL[1]
            for peer in rule["from"]
        )
    ]
    assert frontend_rules == [{GRPC_PORT, WEB_PORT}]


def test_monitoring_reaches_the_metrics_port_only(rendered: Rendered) -> None:
    reach_metrics = [(rule, n) for rule, n in _allowed(rendered) if METRICS_PORT in n]
    assert len(reach_metrics) == 1
    rule, numbers = reach_metrics[0]
    assert numbers == {METRICS_PORT}
    for peer in rule["from"]:
        assert "podSelector" not in peer
        assert peer["namespaceSelector"]["matchLabels"]["kubernetes.io/metadata.name"]


def test_pods_run_as_a_dedicated_service_account_without_a_token(rendered: Rendered) -> None:
    name = rendered.pod["serviceAccountName"]
    assert name not in {"", "default"}
    account = rendered.one("ServiceAccount", name)
    assert account["automountServiceAccountToken"] is False
    assert rendered.pod["automountServiceAccountToken"] is False
    bound = [d for d in rendered.docs if d["kind"] in {"RoleBinding", "ClusterRoleBinding"}]
    assert bound == [], "the engine calls no Kubernetes API: no role is bound to it"


def test_pods_spread_over_zones_and_nodes(rendered: Rendered) -> None:
    constraints = rendered.pod["topologySpreadConstraints"]
    keys = [c["topologyKey"] for c in constraints]
    assert keys[:2] == ["topology.kubernetes.io/zone", "kubernetes.io/hostname"]
    for constraint in constraints:
        assert selects(constraint["labelSelector"]["matchLabels"], rendered.pod_labels)
        assert constraint["maxSkew"] == 1


def test_pod_runs_non_root_with_read_only_root_filesystem(rendered: Rendered) -> None:
    pod = rendered.pod
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["securityContext"]["runAsUser"] != 0
    assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
    security = rendered.container["securityContext"]
    assert security["readOnlyRootFilesystem"] is True
    assert security["allowPrivilegeEscalation"] is False
    assert security["capabilities"]["drop"] == ["ALL"]


def test_pod_user_is_the_image_user(production: Rendered) -> None:
    users = [
        line.split()[1]
        for line in DOCKERFILE.read_text(encoding="utf-8").splitlines()
        if line.startswith("USER ")
    ]
    assert users, "the Dockerfile sets no USER"
    uid, _, gid = users[-1].partition(":")
    security = production.pod["securityContext"]
    assert security["runAsUser"] == int(uid)
    if gid:
        assert security["runAsGroup"] == int(gid)


# --- the Deployment --------------------------------------------------------------------------


def test_deployment_selects_its_own_pods_and_production_runs_three(
    rendered: Rendered, production: Rendered
) -> None:
    spec = rendered.deployment["spec"]
    assert selects(spec["selector"]["matchLabels"], rendered.pod_labels)
    assert spec["strategy"]["rollingUpdate"]["maxUnavailable"] == 0
    assert production.deployment["spec"]["replicas"] == 3  # the dev overlay's 1: a laptop


def cores(quantity: str) -> float:
    return float(quantity[:-1]) / 1000 if quantity.endswith("m") else float(quantity)


def test_cpu_request_lets_the_hpa_act_before_the_process_saturates(production: Rendered) -> None:
    resources = production.container["resources"]
    for kind in ("requests", "limits"):
        assert {"cpu", "memory"} <= set(resources[kind]), f"{kind} must set cpu and memory"
    request, limit = cores(resources["requests"]["cpu"]), cores(resources["limits"]["cpu"])
    target = production.one("HorizontalPodAutoscaler")["spec"]["metrics"][0]["resource"]
    utilization = target["target"]["averageUtilization"] / 100
    # The HPA scales at `utilization` x request; a replica cannot use more than its process's
    # ceiling, so a larger product would never be reached and the HPA would never scale out.
    assert request * utilization < PROCESS_CPU_CEILING
    # And the request is what a loaded replica really uses (deploy/README.md, measured), so
    # the scheduler does not pack four busy replicas on one core.
    assert request >= 0.5 * PROCESS_CPU_CEILING
    # The limit leaves grpcio's own threads room above the interpreter's core: no throttling.
    assert limit > PROCESS_CPU_CEILING


def test_probes_are_native_grpc_on_the_health_service(production: Rendered) -> None:
    container = production.container
    ports = {p["containerPort"] for p in container["ports"]}
    for probe_name in ("startupProbe", "readinessProbe", "livenessProbe"):
        probe = container[probe_name]
        assert probe["grpc"]["port"] == GRPC_PORT, probe_name
        assert probe["grpc"]["port"] in ports
    # Readiness follows the engine service's own status, which goes NOT_SERVING on SIGTERM.
    assert container["readinessProbe"]["grpc"]["service"] == HEALTH_SERVICE


def _flag_or_env(rendered: Rendered, flag: str, env: str, default: str) -> float:
    args = rendered.args
    for i, arg in enumerate(args):
        if arg == flag:
            return float(args[i + 1])
        if arg.startswith(flag + "="):
            return float(arg.split("=", 1)[1])
    return float(rendered.config_env().get(env, default))


def shutdown_grace_seconds(rendered: Rendered) -> float:
    """The server's --grace, from the container args or TIENLEN_SHUTDOWN_GRACE (default 10)."""
    return _flag_or_env(rendered, "--grace", "TIENLEN_SHUTDOWN_GRACE", "10")


def drain_delay_seconds(rendered: Rendered) -> float:
    """The server's --drain-delay, from the container args or TIENLEN_DRAIN_DELAY (default 0)."""
    return _flag_or_env(rendered, "--drain-delay", "TIENLEN_DRAIN_DELAY", "0")


def prestop_sleep_seconds(rendered: Rendered) -> int:
    command = rendered.container["lifecycle"]["preStop"]["exec"]["command"]
    words = shlex.split(command[-1]) if command[0] in {"sh", "/bin/sh"} else command
    assert words[0] in {"sleep", "/bin/sleep"}, f"preStop is not a sleep: {command}"
    return int(words[1])


def test_termination_grace_covers_prestop_sleep_drain_and_server_grace(
    rendered: Rendered,
) -> None:
    grace = shutdown_grace_seconds(rendered)
    sleep = prestop_sleep_seconds(rendered)
    drain = drain_delay_seconds(rendered)
    assert sleep >= 1, "the preStop sleep lets endpoint removal propagate before SIGTERM"
    assert drain >= 1, "health-checking clients get time to move away before the port closes"
    assert grace >= 1
    assert rendered.pod["terminationGracePeriodSeconds"] > sleep + drain + grace, (
        "the kubelet would SIGKILL the server while it still drains in-flight calls"
    )


def test_image_is_the_one_the_overlay_names(rendered: Rendered) -> None:
    image = rendered.container["image"]
    assert re.fullmatch(r"[\w./-]+:[\w.-]+", image), f"{image} has no explicit tag"


def test_prometheus_annotations_point_at_the_metrics_port(production: Rendered) -> None:
    annotations = production.deployment["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/path"] == "/metrics"
    ports = production.port_numbers()
    assert int(annotations["prometheus.io/port"]) == ports["metrics"] == METRICS_PORT
    assert int(production.config_env()["TIENLEN_METRICS_PORT"]) == METRICS_PORT
    assert int(production.config_env()["TIENLEN_PORT"]) == ports["grpc"] == GRPC_PORT
    assert ports["web"] == WEB_PORT


# --- Services, HPA, PDB ----------------------------------------------------------------------


def test_services_select_the_pods_and_name_existing_ports(production: Rendered) -> None:
    container_ports = set(production.port_numbers())
    services = production.all("Service")
    assert len(services) == 2
    for service in services:
        assert selects(service["spec"]["selector"], production.pod_labels)
        grpc_ports = [p for p in service["spec"]["ports"] if p["name"] == "grpc"]
        assert len(grpc_ports) == 1, "each Service has a port named grpc"
        assert grpc_ports[0]["appProtocol"] == "grpc"
        assert grpc_ports[0]["port"] == GRPC_PORT
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in container_ports


def test_one_cluster_ip_and_one_headless_service(production: Rendered) -> None:
    main = production.one("Service", "tienlen-engine")
    headless = production.one("Service", "tienlen-engine-headless")
    assert main["spec"].get("type", "ClusterIP") == "ClusterIP"
    assert main["spec"].get("clusterIP") != "None"
    assert headless["spec"]["clusterIP"] == "None"
    # Draining pods must leave DNS so that round_robin clients stop picking them.
    assert headless["spec"].get("publishNotReadyAddresses", False) is False


def test_hpa_scales_the_deployment_on_cpu_from_three(production: Rendered) -> None:
    hpa = production.one("HorizontalPodAutoscaler")
    assert hpa["apiVersion"] == "autoscaling/v2"
    target = hpa["spec"]["scaleTargetRef"]
    assert (target["apiVersion"], target["kind"], target["name"]) == (
        "apps/v1",
        "Deployment",
        production.deployment["metadata"]["name"],
    )
    assert hpa["spec"]["minReplicas"] == production.deployment["spec"]["replicas"]
    assert hpa["spec"]["maxReplicas"] > hpa["spec"]["minReplicas"]
    (metric,) = hpa["spec"]["metrics"]
    assert metric["type"] == "Resource"
    assert metric["resource"]["name"] == "cpu"
    # Utilization is relative to the CPU request, so the container must have one.
    assert "cpu" in production.container["resources"]["requests"]


def test_hpa_waits_for_clients_to_rebalance_before_scaling_down(production: Rendered) -> None:
    from tienlen_service.config import parse_config

    config, _ = parse_config(production.args, production.config_env())
    behavior = production.one("HorizontalPodAutoscaler")["spec"]["behavior"]
    # Clients reach a new pod only once their connection reached its maximum age (and its
    # grace): until then new pods idle, and a shorter window would remove them unused.
    rebalanced = config.max_connection_age + config.max_connection_age_grace
    assert config.max_connection_age > 0
    assert behavior["scaleDown"]["stabilizationWindowSeconds"] > rebalanced
    assert behavior["scaleUp"]["stabilizationWindowSeconds"] == 0


def test_pdb_keeps_a_majority_of_replicas(production: Rendered) -> None:
    pdb = production.one("PodDisruptionBudget")
    assert selects(pdb["spec"]["selector"]["matchLabels"], production.pod_labels)
    replicas = production.deployment["spec"]["replicas"]
    if "maxUnavailable" in pdb["spec"]:
        assert 1 <= pdb["spec"]["maxUnavailable"] < replicas / 2
    else:
        assert replicas / 2 < pdb["spec"]["minAvailable"] < replicas


def test_service_monitor_scrapes_the_metrics_port_of_the_engine_service(
    production: Rendered,
) -> None:
    (monitor,) = load_docs(OPTIONAL_DIR / "servicemonitor.yaml")
    assert monitor["kind"] == "ServiceMonitor"
    matched = [
        d
        for d in production.all("Service")
        if selects(monitor["spec"]["selector"]["matchLabels"], d["metadata"]["labels"])
    ]
    assert [s["metadata"]["name"] for s in matched] == ["tienlen-engine"], (
        "exactly one Service is scraped, or every pod would be scraped twice"
    )
    port_names = {p["name"] for p in matched[0]["spec"]["ports"]}
    for endpoint in monitor["spec"]["endpoints"]:
        assert endpoint["port"] in port_names
        assert endpoint["path"] == "/metrics"


# --- the settings are the server's own ----------------------------------------------------------


def test_every_setting_is_one_the_server_reads(rendered: Rendered) -> None:
    from tienlen_service.config import OPTIONS

    known = {option.env for option in OPTIONS}
    given = set(rendered.config_env()) | set(rendered.secret_refs())
    given = {name for name in given if name.startswith("TIENLEN_")}
    assert given <= known, f"the server ignores {sorted(given - known)}"


def test_server_parses_the_production_settings_to_what_the_manifests_assume(
    production: Rendered,
) -> None:
    from tienlen_service.config import parse_config

    config, _ = parse_config(production.args, production.config_env())
    assert config.port == GRPC_PORT
    assert config.metrics_port == METRICS_PORT
    assert config.grace == shutdown_grace_seconds(production)
    assert config.drain_delay == drain_delay_seconds(production)
    assert config.max_connection_age > 0, "clients must re-balance onto new pods"
    assert config.seal
    assert config.require_sealed
    assert config.require_seat_tokens


def test_readme_names_only_settings_the_server_reads() -> None:
    from tienlen_service.config import OPTIONS

    known = {option.env for option in OPTIONS}
    text = (REPO / "deploy" / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"\bTIENLEN_[A-Z_]*[A-Z]\b", text))
    named -= {n for n in named if n.startswith("TIENLEN_NGINX_")}  # the nginx template's
    assert named, "the README documents the settings"
    assert named <= known, f"deploy/README.md names unknown settings {sorted(named - known)}"


def test_the_readmes_quote_the_manifests_numbers(production: Rendered) -> None:
    from tienlen_service.config import parse_config

    config, _ = parse_config(production.args, production.config_env())

    def n(value: float) -> str:
        return f"{value:g}"

    sleep, drain, grace = prestop_sleep_seconds(production), config.drain_delay, config.grace
    period = production.pod["terminationGracePeriodSeconds"]
    resources = production.container["resources"]
    hpa = production.one("HorizontalPodAutoscaler")["spec"]
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
        f"requests {resources['requests']['cpu']} CPU / {resources['requests']['memory']}",
        f"limits {resources['limits']['cpu']} CPU / {resources['limits']['memory']}",
        f"`stabilizationWindowSeconds: {hpa['behavior']['scaleDown']['stabilizationWindowSeconds']}`",
    ):
        assert quoted in operators, quoted
