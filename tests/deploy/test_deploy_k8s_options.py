"""What an operator turns on or sizes in deploy/k8s beyond the base: the deal key, a laptop.

- The deal key (docs/SECURITY.md, "Who deals") is a component, off unless an overlay lists it:
  a Secret the operator creates outside git, mounted read-only where the service reads it,
  readable by the service's group only, its file a list of keys (so a rotation overlaps).
- The dev overlay fits one laptop node (kind, minikube): one replica, a small request, an HPA
  from one, and the image tag `make image` builds.

Every rendering here also passes test_deploy_k8s.py's checks (schemas, security, settings):
the `rendered` fixture includes production with the deal key on.
"""

from __future__ import annotations

import re

from helpers.kustomize import K8S_DIR, REPO, Rendered

COMPONENT = K8S_DIR / "components" / "deal-key"
DEAL_KEY_SECRET = "tienlen-engine-deal-key"
# One laptop node shared with the cluster's own pods and everything else a developer runs.
LAPTOP_CPU_BUDGET = 0.25
# What a replica holds resident under load (bench/README.md, "Memory"): the request must cover it.
RESIDENT_MIB = 60


def cores(quantity: str) -> float:
    return float(quantity[:-1]) / 1000 if quantity.endswith("m") else float(quantity)


def mebibytes(quantity: str) -> float:
    return float(quantity[:-2]) * {"Mi": 1.0, "Gi": 1024.0}[quantity[-2:]]


def deal_key_volume(rendered: Rendered) -> tuple[dict[str, object], dict[str, object]] | None:
    """The deal key's volume and its mount in the engine container, None without them."""
    volumes = [v for v in rendered.pod.get("volumes", []) if "secret" in v]
    if not volumes:
        return None
    (volume,) = volumes
    (mount,) = [m for m in rendered.container["volumeMounts"] if m["name"] == volume["name"]]
    return volume, mount


def test_the_deal_key_is_off_unless_an_overlay_lists_the_component(
    production: Rendered, dev: Rendered
) -> None:
    for rendered in (production, dev):
        assert deal_key_volume(rendered) is None
        assert "TIENLEN_DEAL_KEY_FILE" not in rendered.config_env()
    production_file = (K8S_DIR / "overlays" / "production" / "kustomization.yaml").read_text()
    assert "#   - ../../components/deal-key" in production_file, "it says how to turn it on"


def test_the_deal_key_is_a_secret_mounted_read_only_where_the_service_reads_it(
    with_deal_key: Rendered,
) -> None:
    found = deal_key_volume(with_deal_key)
    assert found is not None
    volume, mount = found
    secret = volume["secret"]
    assert isinstance(secret, dict)
    assert secret["secretName"] == DEAL_KEY_SECRET
    assert not secret.get("optional"), "a missing Secret stops the pod, as for the token keys"
    assert with_deal_key.all("Secret") == [], "created outside git, never rendered"
    assert mount["readOnly"] is True
    (item,) = secret["items"]
    path = f"{mount['mountPath']}/{item['path']}"
    assert with_deal_key.config_env()["TIENLEN_DEAL_KEY_FILE"] == path

    from tienlen_service.config import parse_config

    config, _ = parse_config(with_deal_key.args, with_deal_key.config_env())
    assert config.deal_key_file == path


def test_only_the_services_group_can_read_the_deal_key(with_deal_key: Rendered) -> None:
    found = deal_key_volume(with_deal_key)
    assert found is not None
    secret = found[0]["secret"]
    assert isinstance(secret, dict)
    mode = secret["defaultMode"]
    assert mode & 0o040, "the group (fsGroup) reads it"
    assert not mode & 0o007, "nobody else does"
    assert not mode & 0o222, "and nobody writes it"
    security = with_deal_key.pod["securityContext"]
    assert security["fsGroup"] == security["runAsGroup"]


def test_the_deal_key_docs_give_the_secret_and_the_rotation() -> None:
    text = (REPO / "deploy" / "README.md").read_text(encoding="utf-8")
    assert DEAL_KEY_SECRET in text
    component = (COMPONENT / "kustomization.yaml").read_text(encoding="utf-8")
    assert f"secret generic {DEAL_KEY_SECRET}" in component
    assert "second line" in component, "how a rotation overlaps"


def test_the_dev_overlay_fits_one_laptop_node(dev: Rendered) -> None:
    replicas = dev.deployment["spec"]["replicas"]
    hpa = dev.one("HorizontalPodAutoscaler")["spec"]
    requests = dev.container["resources"]["requests"]
    limits = dev.container["resources"]["limits"]
    assert replicas == 1
    assert hpa["minReplicas"] == 1
    assert hpa["maxReplicas"] * cores(requests["cpu"]) <= LAPTOP_CPU_BUDGET
    assert RESIDENT_MIB < mebibytes(requests["memory"]) <= mebibytes(limits["memory"])
    assert cores(limits["cpu"]) >= 1, "a game of bots still runs at one core"


def test_the_dev_overlay_runs_the_image_make_image_builds(dev: Rendered) -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    (built,) = re.findall(r"^IMAGE \?= (\S+)$", makefile, re.MULTILINE)
    assert dev.container["image"] == built
    assert dev.container["imagePullPolicy"] == "IfNotPresent", "a loaded image, no registry"


def test_the_web_port_can_be_turned_off_in_one_setting() -> None:
    from tienlen_service.config import parse_config

    config, _ = parse_config([], {"TIENLEN_WEB_PORT": "0"})
    assert config.web_port is None
    text = (REPO / "deploy" / "README.md").read_text(encoding="utf-8")
    assert 'TIENLEN_WEB_PORT: "0"' in text
