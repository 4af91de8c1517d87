"""Affinity without state (deploy/README.md, "Affinity"): the balancer examples hash the game id
the clients send as call metadata, so a game's calls go to one replica (a state cache hit),
while a call naming no game is spread and any replica still answers any call. nginx's
template is checked in test_deploy_nginx.py; here the Envoy and ingress-nginx examples."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import kubernetes_validate
import yaml
from tienlen_client.request_ids import GAME_ID_HEADER

REPO = Path(__file__).resolve().parents[2]
ENVOY = REPO / "deploy" / "envoy" / "envoy.yaml"
INGRESS = REPO / "deploy" / "k8s" / "examples" / "ingress-nginx-affinity.yaml"
NODE_HEADERS = REPO / "clients" / "node" / "src" / "request-ids.ts"
KUBERNETES_VERSION = "1.31.0"


def test_both_clients_name_the_game_in_the_same_header() -> None:
    node = NODE_HEADERS.read_text(encoding="utf-8")
    assert re.search(rf'GAME_ID_HEADER = "{re.escape(GAME_ID_HEADER)}"', node)


def test_envoy_hashes_a_games_calls_to_one_healthy_replica() -> None:
    config: dict[str, Any] = yaml.safe_load(ENVOY.read_text(encoding="utf-8"))
    (listener,) = config["static_resources"]["listeners"]
    manager = listener["filter_chains"][0]["filters"][0]["typed_config"]
    (route,) = manager["route_config"]["virtual_hosts"][0]["routes"]
    assert route["route"]["hash_policy"] == [{"header": {"header_name": GAME_ID_HEADER}}]
    (cluster,) = config["static_resources"]["clusters"]
    assert route["route"]["cluster"] == cluster["name"]
    assert cluster["lb_policy"] == "RING_HASH"
    (check,) = cluster["health_checks"]
    assert check["grpc_health_check"]["service_name"] == "tienlen.v1.TienLenEngine"


def test_ingress_nginx_hashes_the_game_and_spreads_calls_naming_none() -> None:
    docs = [d for d in yaml.safe_load_all(INGRESS.read_text(encoding="utf-8")) if d]
    kinds = {d["kind"]: d for d in docs}
    assert set(kinds) == {"ConfigMap", "Ingress"}
    for doc in docs:
        kubernetes_validate.validate(doc, KUBERNETES_VERSION, strict=True)
    variable = "$http_" + GAME_ID_HEADER.replace("-", "_")
    snippet = kinds["ConfigMap"]["data"]["http-snippet"]
    assert f"map {variable} $tienlen_affinity" in snippet
    assert '"" $request_id;' in snippet
    annotations = kinds["Ingress"]["metadata"]["annotations"]
    assert annotations["nginx.ingress.kubernetes.io/upstream-hash-by"] == "$tienlen_affinity"
    assert annotations["nginx.ingress.kubernetes.io/backend-protocol"] == "GRPC"
