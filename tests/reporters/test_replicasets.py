"""ReplicaSets of Applications: reported as their app's, by state rather than pod by pod,
with images as name, tag and digest; app events carry what each workload runs."""

from __future__ import annotations

from typing import Any

import pytest

from reporters.events.replicasets import image
from reporters.pipeline import Pipeline
from reporters.state.store import Store
from tests.support.reporter_apps import NEW, app, finished

DIGEST = "sha256:" + "e" * 64


@pytest.mark.parametrize(
    ("reference", "name", "tag", "digest"),
    [
        ("nginx", "nginx", "", ""),
        ("nginx:1.27", "nginx", "1.27", ""),
        ("localhost:5000/shop", "localhost:5000/shop", "", ""),
        ("localhost:5000/shop:2.0", "localhost:5000/shop", "2.0", ""),
        (f"ghcr.io/acme/shop:1.4.0@{DIGEST}", "ghcr.io/acme/shop", "1.4.0", DIGEST),
        (f"ghcr.io/acme/shop@{DIGEST}", "ghcr.io/acme/shop", "", DIGEST),
    ],
)
def test_image_references_split_into_name_tag_and_digest(
    reference: str, name: str, tag: str, digest: str
) -> None:
    assert image(reference) == {"name": name, "tag": tag, "digest": digest}


def shop_app(**kw: Any) -> dict[str, Any]:
    one = app(**kw)
    one["metadata"]["labels"] = {
        "promoflow.dev/product": "shop",
        "promoflow.dev/environment": "dev",
    }
    one["status"]["resources"] = [
        {
            "group": "apps",
            "version": "v1",
            "kind": "Deployment",
            "namespace": "shop",
            "name": "web",
        },
        {"version": "v1", "kind": "Service", "namespace": "shop", "name": "web"},
    ]
    return one


def replicaset(
    name: str, revision: str, replicas: int, ready: int, image_ref: str, owner: str = "web"
) -> dict[str, Any]:
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": name,
            "namespace": "shop",
            "resourceVersion": f"{replicas}{ready}",
            "annotations": {"deployment.kubernetes.io/revision": revision},
            "ownerReferences": [
                {"apiVersion": "apps/v1", "kind": "Deployment", "name": owner, "controller": True}
            ],
        },
        "spec": {
            "replicas": replicas,
            "template": {"spec": {"containers": [{"name": "web", "image": image_ref}]}},
        },
        "status": {"replicas": replicas, "readyReplicas": ready, "availableReplicas": ready},
    }


def test_a_rollout_reports_progressing_ready_and_the_old_set_scaled_down() -> None:
    pipeline = Pipeline(Store(), ["stdout"])
    pipeline.handle("argocd/shop-dev", shop_app())
    old = replicaset("web-1", "1", 3, 3, "ghcr.io/acme/shop:1.0.0")
    assert [e.change.type for e in pipeline.handle("replicasets:shop/web-1", old)] == [
        "replicaset.ready"
    ]
    types = []
    for ready in (0, 1, 2, 3):  # pods become ready one by one: two reports, not four
        new = replicaset("web-2", "2", 3, ready, f"ghcr.io/acme/shop:1.1.0@{DIGEST}")
        types += [e.change.type for e in pipeline.handle("replicasets:shop/web-2", new)]
    types += [
        e.change.type
        for e in pipeline.handle("replicasets:shop/web-1", replicaset("web-1", "1", 0, 0, "x"))
    ]
    assert types == ["replicaset.progressing", "replicaset.ready", "replicaset.scaled-down"]
    [ready] = [e for e in pipeline.handle("replicasets:shop/web-2", None)] or [None]
    assert ready is None  # a deleted ReplicaSet is no news: its workload's next one is


def test_a_replicaset_event_is_its_apps_with_its_labels_and_images() -> None:
    store = Store()
    pipeline = Pipeline(store, ["stdout"])
    pipeline.handle("argocd/shop-dev", shop_app())
    rs = replicaset("web-2", "2", 2, 2, f"ghcr.io/acme/shop:1.1.0@{DIGEST}")
    [event] = pipeline.handle("replicasets:shop/web-2", rs)
    sent = event.cloudevent()
    assert sent["subject"] == "argocd/shop-dev" and sent["data"]["product"] == "shop"
    assert sent["data"]["workload"] == "Deployment/web"
    assert sent["data"]["images"] == [
        {"container": "web", "name": "ghcr.io/acme/shop", "tag": "1.1.0", "digest": DIGEST}
    ]
    assert (sent["data"]["replicas"], sent["data"]["ready"]) == (2, 2)
    [row] = [r for r in store.pending("stdout") if r.event["type"].startswith("replicaset.")]
    assert row.event["id"] == sent["id"]


def test_replicasets_of_no_app_of_this_replica_are_remembered_not_reported() -> None:
    pipeline = Pipeline(Store(), ["stdout"])
    orphan = replicaset("cache-1", "1", 1, 1, "redis:7", owner="cache")
    assert pipeline.handle("replicasets:shop/cache-1", orphan) == []
    assert "replicasets:shop/cache-1" in pipeline.seen


def test_a_deployed_app_carries_the_images_each_workload_runs() -> None:
    pipeline = Pipeline(Store(), ["stdout"])
    pipeline.handle("argocd/shop-dev", shop_app(sync="OutOfSync"))
    pipeline.handle(
        "replicasets:shop/web-1", replicaset("web-1", "1", 0, 0, "ghcr.io/acme/shop:1.0.0")
    )
    pipeline.handle(
        "replicasets:shop/web-2",
        replicaset("web-2", "2", 2, 2, f"ghcr.io/acme/shop:1.1.0@{DIGEST}"),
    )
    done = shop_app(revision=NEW, op=finished(), reconciled="2026-11-24T10:01:05Z")
    [deployed] = [
        e for e in pipeline.handle("argocd/shop-dev", done) if e.change.type == "app.deployed"
    ]
    assert deployed.change.data["workloads"] == [
        {
            "kind": "Deployment",
            "namespace": "shop",
            "name": "web",
            "images": [
                {"container": "web", "name": "ghcr.io/acme/shop", "tag": "1.1.0", "digest": DIGEST}
            ],
        }
    ]
