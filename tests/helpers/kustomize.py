"""Rendering the kustomizations of deploy/k8s as `kubectl apply -k` would send them, and the
lookups the manifest tests need (tests/deploy/test_deploy_k8s*.py; the fixtures that render
each overlay are in tests/deploy/conftest.py).

Rendering needs `kubectl` (its built-in kustomize); without it a rendering test skips and says
so.
"""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
K8S_DIR = REPO / "deploy" / "k8s"
DEV_KEY_FILE = "keys.env"

Doc = dict[str, Any]


def load_docs(path: Path) -> list[Doc]:
    docs = [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d is not None]
    assert docs, f"{path} holds no YAML document"
    for doc in docs:
        assert isinstance(doc, dict), f"{path}: a document is not a mapping"
    return docs


def find_kubectl() -> str | None:
    return shutil.which("kubectl")


def kustomize(directory: Path) -> subprocess.CompletedProcess[str]:
    kubectl = find_kubectl()
    if kubectl is None:
        pytest.skip("kubectl is not installed: the kustomizations cannot be rendered here")
    return subprocess.run(
        [kubectl, "kustomize", str(directory)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "KUBECONFIG": os.devnull},  # rendering never needs a cluster
    )


def render(directory: Path) -> list[Doc]:
    result = kustomize(directory)
    assert result.returncode == 0, f"kubectl kustomize {directory} failed:\n{result.stderr}"
    docs = [d for d in yaml.safe_load_all(result.stdout) if d is not None]
    assert docs, f"{directory} renders nothing"
    return docs


def dev_key_line() -> str:
    """A key file as the documented command makes it (a fresh random key, never committed)."""
    material = base64.urlsafe_b64encode(os.urandom(32)).decode().rstrip("=")
    return f"TIENLEN_KEYS=dev:{material}\n"


class Rendered:
    """One rendering of a kustomization, with the lookups the tests need."""

    def __init__(self, docs: list[Doc]) -> None:
        self.docs = docs

    def all(self, kind: str) -> list[Doc]:
        return [d for d in self.docs if d["kind"] == kind]

    def one(self, kind: str, name: str | None = None) -> Doc:
        found = [d for d in self.all(kind) if name is None or d["metadata"]["name"] == name]
        assert len(found) == 1, f"expected exactly one {kind} {name or ''}, found {len(found)}"
        return found[0]

    @property
    def deployment(self) -> Doc:
        return self.one("Deployment", "tienlen-engine")

    @property
    def pod(self) -> Doc:
        spec = self.deployment["spec"]["template"]["spec"]
        assert isinstance(spec, dict)
        return spec

    @property
    def container(self) -> Doc:
        (container,) = [c for c in self.pod["containers"] if c["name"] == "engine"]
        assert isinstance(container, dict)
        return container

    @property
    def pod_labels(self) -> dict[str, str]:
        labels = self.deployment["spec"]["template"]["metadata"]["labels"]
        assert isinstance(labels, dict)
        return labels

    @property
    def args(self) -> list[str]:
        args = self.container.get("args", [])
        assert isinstance(args, list)
        return args

    def port_numbers(self) -> dict[str, int]:
        return {p["name"]: p["containerPort"] for p in self.container["ports"]}

    def config_env(self) -> dict[str, str]:
        """The engine's plain-value environment: ConfigMaps from envFrom, then env values."""
        env: dict[str, str] = {}
        for source in self.container.get("envFrom", []):
            if "configMapRef" in source:
                env.update(self.one("ConfigMap", source["configMapRef"]["name"])["data"])
        for item in self.container.get("env", []):
            if "value" in item:
                env[item["name"]] = item["value"]
        return env

    def secret_refs(self) -> dict[str, dict[str, str]]:
        """Environment variable -> its secretKeyRef."""
        return {
            item["name"]: item["valueFrom"]["secretKeyRef"]
            for item in self.container.get("env", [])
            if "secretKeyRef" in item.get("valueFrom", {})
        }


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(key) == value for key, value in selector.items())
