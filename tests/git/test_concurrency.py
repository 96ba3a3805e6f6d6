"""Ten promotions into the same branch at once: every one lands, none is lost or forced."""

from __future__ import annotations

import re
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor

import yaml

from tests.git.conftest import (
    VALUES_DEV,
    VALUES_STAGING,
    GitHost,
    promote_args,
    run_step,
    step_json,
)

PRODUCTS = [f"svc{i}" for i in range(10)]


def test_ten_products_promoted_at_once(host: GitHost, server_kind: str) -> None:
    """On each kind of server (git's defaults first): all land, in a straight line."""
    remote = host.create()
    files: dict[str, str | None] = {"README.md": "gitops\n"}
    for i, product in enumerate(PRODUCTS):
        files[f"envs/dev/{product}/values.yaml"] = VALUES_DEV.replace("1.4.2", f"2.0.{i}")
        files[f"envs/staging/{product}/values.yaml"] = VALUES_STAGING
    seed = remote.commit(files)
    start = threading.Barrier(len(PRODUCTS))

    def promote(i: int) -> subprocess.CompletedProcess[str]:
        product = PRODUCTS[i]
        args = promote_args(remote)
        for flag, value in (
            ("--product", product),
            ("--source-path", f"envs/dev/{product}"),
            ("--target-path", f"envs/staging/{product}"),
        ):
            args[args.index(flag) + 1] = value
        # Both transports race each other: even products native, odd ones the git CLI.
        env = host.env(PROMOFLOW_GIT_TRANSPORT="native" if i % 2 == 0 else "cli")
        start.wait(timeout=30)
        return run_step(*args, env=env, timeout=120)

    with ThreadPoolExecutor(max_workers=len(PRODUCTS)) as pool:
        results = list(pool.map(promote, range(len(PRODUCTS))))

    for r in results:  # how it fetched, and the note that a push had to be retried
        assert re.fullmatch(
            r"git: [^\n]+(\npushed after \d+ attempts \(the branch moved meanwhile\))?",
            r.stderr.strip(),
        ), r.stderr
    outputs = [step_json(r) for r in results]
    commits = [o["commit"] for o in outputs]
    assert all(o["changed"] for o in outputs)
    assert len(set(commits)) == len(PRODUCTS)
    head = remote.head()
    for i, (product, output) in enumerate(zip(PRODUCTS, outputs, strict=True)):
        assert output["files"] == [f"envs/staging/{product}/values.yaml"]
        remote.git("merge-base", "--is-ancestor", output["commit"], head)  # not lost
        changed = remote.git("diff-tree", "--no-commit-id", "--name-only", "-r", output["commit"])
        assert changed.split() == output["files"]  # each commit holds only its own product
        staging = yaml.safe_load(remote.show(f"envs/staging/{product}/values.yaml"))
        assert staging["image"]["tag"] == f"2.0.{i}"
        assert staging["replicas"] == 2
    # A straight line of exactly ten promotions on top of the seed: no merges, no extras.
    log = remote.git("rev-list", "--parents", f"{seed}..{head}").splitlines()
    assert len(log) == len(PRODUCTS)
    assert all(len(line.split()) == 2 for line in log)
    assert sorted(line.split()[0] for line in log) == sorted(commits)
    assert remote.count() == len(PRODUCTS) + 1
    remote.assert_fast_forwards_only()
    remote.assert_fsck()
    assert len(remote.ref_updates()) == len(PRODUCTS) + 1
