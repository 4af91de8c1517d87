"""The kustomizations of deploy/k8s rendered once per module: production, dev (with a key file
made as the README says), production with the deal-key component turned on, and each of them
(`rendered`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.kustomize import DEV_KEY_FILE, K8S_DIR, Rendered, dev_key_line, render


@pytest.fixture(scope="module")
def production() -> Rendered:
    return Rendered(render(K8S_DIR))


@pytest.fixture(scope="module")
def dev_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of deploy/k8s with the dev key file made as the README says (never in the repo)."""
    tree = tmp_path_factory.mktemp("k8s") / "k8s"
    shutil.copytree(K8S_DIR, tree, ignore=shutil.ignore_patterns(DEV_KEY_FILE))
    (tree / "overlays" / "dev" / DEV_KEY_FILE).write_text(dev_key_line(), encoding="utf-8")
    return tree


@pytest.fixture(scope="module")
def dev(dev_tree: Path) -> Rendered:
    return Rendered(render(dev_tree / "overlays" / "dev"))


@pytest.fixture(scope="module")
def with_deal_key(dev_tree: Path) -> Rendered:
    """Production with the deal key on, as its kustomization says to turn it on."""
    overlay = dev_tree / "overlays" / "with-deal-key"
    overlay.mkdir(exist_ok=True)
    (overlay / "kustomization.yaml").write_text(
        "apiVersion: kustomize.config.k8s.io/v1beta1\n"
        "kind: Kustomization\n"
        "resources:\n  - ../production\n"
        "components:\n  - ../../components/deal-key\n",
        encoding="utf-8",
    )
    return Rendered(render(overlay))


@pytest.fixture(params=["production", "dev", "with_deal_key"])
def rendered(request: pytest.FixtureRequest) -> Rendered:
    result: Rendered = request.getfixturevalue(request.param)
    return result
