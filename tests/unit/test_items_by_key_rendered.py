"""Items by key, checked with the readers that run them: files promoted through a
``[field=value]`` selector or a Kustomize image rule, rendered by the real ``kubectl
kustomize`` and ``helm template``, deploy the promoted image on the named item, whatever
order the list is in."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from orchestrator.steps import kustomize_image
from orchestrator.yamledit import edit
from tests.tools.binaries import ensure

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: shop}
spec:
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec:
      containers:
        - {name: web, image: ghcr.io/acme/web:0.1.0}
        - {name: worker, image: ghcr.io/acme/worker:0.1.0}
"""
DEV = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources: [../../base]
images:
  - {name: ghcr.io/acme/web, newTag: 2.0.0}
  - {name: ghcr.io/acme/worker, newTag: 1.7.0}
"""


def kustomize(root: Path, overlay: str) -> dict[str, str]:
    """Container name -> image, as ``kubectl kustomize`` renders the overlay."""
    (root / "base").mkdir(parents=True, exist_ok=True)
    (root / "base" / "deployment.yaml").write_text(DEPLOYMENT)
    (root / "base" / "kustomization.yaml").write_text("resources: [deployment.yaml]\n")
    target = root / "envs" / "staging"
    target.mkdir(parents=True, exist_ok=True)
    (target / "kustomization.yaml").write_text(overlay)
    rendered = subprocess.run(
        [str(ensure("kubectl")), "kustomize", str(target)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    spec = yaml.safe_load(rendered)["spec"]["template"]["spec"]
    return {c["name"]: c["image"] for c in spec["containers"]}


def promoted(source: str, target: str) -> str:
    updates, create = kustomize_image.copy_updates(
        source, target, "ghcr.io/acme/web", "dev/kustomization.yaml", "staging/kustomization.yaml"
    )
    return edit(target, updates, "staging/kustomization.yaml", create=create)


OVERLAYS = {
    "reordered": "resources: [../../base]\nimages:\n"
    "  - {name: ghcr.io/acme/worker, newTag: 1.6.0}\n"
    "  - {name: ghcr.io/acme/web, newTag: 1.9.0}\n",
    "without the entry": "resources: [../../base]\nimages:\n"
    "  - {name: ghcr.io/acme/worker, newTag: 1.6.0}\n",
    "without images": "resources: [../../base]\n",
    "with a stale digest": "resources: [../../base]\nimages:\n"
    "  - name: ghcr.io/acme/web\n    newTag: 1.9.0\n    digest: sha256:" + "0" * 64 + "\n",
}


@pytest.mark.parametrize("overlay", list(OVERLAYS), ids=list(OVERLAYS))
def test_a_kustomize_image_rule_renders_the_promoted_tag(tmp_path: Path, overlay: str) -> None:
    images = kustomize(tmp_path, promoted(DEV, OVERLAYS[overlay]))
    assert images["web"] == "ghcr.io/acme/web:2.0.0"
    assert images["worker"] in ("ghcr.io/acme/worker:1.6.0", "ghcr.io/acme/worker:0.1.0")


def test_a_digest_replaces_the_tag_and_the_mirror_stays(tmp_path: Path) -> None:
    digest = "sha256:" + "ab" * 32
    source = DEV.replace(
        "{name: ghcr.io/acme/web, newTag: 2.0.0}", f"{{name: ghcr.io/acme/web, digest: '{digest}'}}"
    )
    target = "resources: [../../base]\nimages:\n  - name: ghcr.io/acme/web\n"
    target += "    newName: mirror.eu/acme/web\n    newTag: 1.9.0\n"
    images = kustomize(tmp_path, promoted(source, target))
    assert images["web"] == f"mirror.eu/acme/web@{digest}"


def test_the_version_source_sets_the_named_images_tag(tmp_path: Path) -> None:
    updates, create = kustomize_image.version_updates("ghcr.io/acme/web", "2.1.0", {})
    text = edit(OVERLAYS["with a stale digest"], updates, "k.yaml", create=create)
    assert kustomize(tmp_path, text)["web"] == "ghcr.io/acme/web:2.1.0"


CHART = {
    "Chart.yaml": "apiVersion: v2\nname: shop\nversion: 0.1.0\n",
    "templates/deployment.yaml": """\
apiVersion: apps/v1
kind: Deployment
metadata: {name: shop}
spec:
  selector: {matchLabels: {app: shop}}
  template:
    metadata: {labels: {app: shop}}
    spec:
      containers:
{{- range .Values.containers }}
        - name: {{ .name }}
          image: "{{ .repository }}:{{ .tag }}"
{{- end }}
""",
}
HELM_DEV = """\
containers:
  - {name: web, repository: ghcr.io/acme/web, tag: 2.0.0}
  - {name: worker, repository: ghcr.io/acme/worker, tag: 1.7.0}
"""
HELM_STAGING = """\
containers:
  # the worker was listed first here
  - {name: worker, repository: ghcr.io/acme/worker, tag: 1.6.0}
  - {name: web, repository: ghcr.io/acme/web, tag: 1.9.0}
"""


def helm(root: Path, values: str) -> dict[str, str]:
    for name, text in CHART.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "values.yaml").write_text(values)
    rendered = subprocess.run(
        [str(ensure("helm")), "template", "shop", str(root)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    docs = [d for d in yaml.safe_load_all(rendered) if d]
    spec = docs[0]["spec"]["template"]["spec"]
    return {c["name"]: c["image"] for c in spec["containers"]}


def test_a_selector_promotes_the_named_container_in_a_helm_chart(tmp_path: Path) -> None:
    from orchestrator.yamledit import read

    path = "containers[name=web].tag"
    text = edit(HELM_STAGING, {path: read(HELM_DEV, path)}, "values.yaml")
    assert helm(tmp_path, text) == {
        "worker": "ghcr.io/acme/worker:1.6.0",
        "web": "ghcr.io/acme/web:2.0.0",
    }
    assert text.startswith("containers:\n  # the worker was listed first here\n")


def test_an_entry_is_added_in_the_style_kustomize_edit_writes(tmp_path: Path) -> None:
    """``kustomize edit`` writes list items at the key's indentation (``- name:`` under
    ``images:``), as Kargo's example repositories hold them: the added entry follows."""
    overlay = (
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"
        "- ../../base\nnamespace: guestbook-staging\nimages:\n- name: ghcr.io/acme/worker\n"
        "  newTag: v0.0.1\n"
    )
    text = promoted(DEV, overlay)
    assert text == overlay + "- name: ghcr.io/acme/web\n  newTag: 2.0.0\n"
    assert kustomize(tmp_path, text)["web"] == "ghcr.io/acme/web:2.0.0"
