"""``promoflow history`` read back from a repository written by real promotions (the
promote step itself, over smart HTTP), with what people do beside them: hand commits, a
revert, a rollback, a parallel product, a force-push, a note recorded twice."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pygit2
import pytest

from orchestrator.adapters.git import GitRemote
from orchestrator.adapters.githistory import HistoryRepository
from orchestrator.adapters.gitnotes import add_note
from orchestrator.commands.history import as_data
from orchestrator.graph.plan import plan_product
from orchestrator.history.note import GateResult, Verification, render
from orchestrator.history.read import read_history
from orchestrator.loading import load_config
from orchestrator.steps.promote import promote
from orchestrator.steps.request import request_from_config
from tests.git.conftest import EXAMPLES, GitHost, Remote

GOLDEN = Path(__file__).parent / "golden" / "shop.json"
BOT = pygit2.Signature("promoflow", "promoflow@example.com")


def values(tag: str, digest: str = "sha256:" + "0" * 64) -> str:
    return (
        f'image:\n  repository: ghcr.io/acme/shop\n  tag: "{tag}"\n  digest: {digest}\n'
        "chart:\n  version: 1.0.0\n"
    )


def kustomization(tag: str) -> str:
    return f'images:\n  - name: ghcr.io/acme/checkout\n    newTag: "{tag}"\n'


class Writer:
    """Promotions and notes as promoflow's steps write them, into ``remote``."""

    def __init__(self, host: GitHost, remote: Remote) -> None:
        self.host, self.remote = host, remote
        self.config = load_config(EXAMPLES)[0]

    def promote(self, product: str, env: str, run: str, **options: Any) -> str:
        request = request_from_config(self.config, product, env, run=run, **options)
        request = dataclasses.replace(request, repo=self.remote.url)
        with GitRemote(self.remote.url, self.host.credentials) as git:
            result = promote(git, request)
        assert result.changed
        return result.commit

    def note(self, commit: str, outcome: str, *gates: GateResult, approved: str = "") -> None:
        record = Verification(
            outcome, gates, "2026-11-20T10:04:00Z", "2026-11-20T10:01:00Z",
            approved_by=(approved,) if approved else (),
        )  # fmt: skip
        with GitRemote(self.remote.url, self.host.credentials) as git:
            add_note(git, commit, render(record), BOT)


OK = (GateResult("sync", True), GateResult("health", True))


def written(host: GitHost) -> tuple[Remote, list[str]]:
    """The repository, and its commits in the order they were made."""
    remote = host.create()
    made = [remote.commit({
        "README.md": "gitops\n",
        **{f"envs/{e}/shop/values.yaml": values("1.4.0") for e in ("dev", "staging", "prod-us")},
        "regions/eu/shop/values.yaml": values("1.4.0"),
        "overlays/dev/checkout/kustomization.yaml": kustomization("2.0.0"),
        "overlays/dev/checkout/configmap.env": "LOG_LEVEL=info\n",
    })]  # fmt: skip
    w = Writer(host, remote)
    digest = {"image.digest": "sha256:" + "a" * 64}
    made.append(w.promote("shop", "dev", "r1", version="1.5.0", version_fields=digest,
                          requested_by="alice@example.com"))  # fmt: skip
    w.note(made[-1], "verified", *OK)
    made.append(w.promote("shop", "staging", "r1", version="1.5.0"))
    w.note(made[-1], "verified", *OK, GateResult("soak", True, "10m"))
    made.append(w.promote("checkout", "dev", "r2", version="2.1.0"))  # another product
    w.note(made[-1], "verified", *OK)
    made.append(
        remote.commit(
            {"envs/dev/shop/values.yaml": values("1.5.1-hotfix")}, message="hotfix: pin 1.5.1"
        )
    )  # by hand
    made.append(w.promote("shop", "dev", "r3", version="1.6.0",
                          version_fields={"image.digest": "sha256:" + "b" * 64}))  # fmt: skip
    w.note(made[-1], "failed", GateResult("sync", True),
           GateResult("health", False, "Degraded: back-off restarting"))  # fmt: skip
    made.append(
        remote.commit(
            {"envs/dev/shop/values.yaml": values("1.5.0", "sha256:" + "a" * 64)},
            message=f'Revert "hotfix: pin 1.5.1"\n\nThis reverts commit {made[4]}.\n',
        )
    )
    made.append(w.promote("shop", "dev", "r4", version="1.4.0", rollback=True,
                          version_fields={"image.digest": "sha256:" + "c" * 64}))  # fmt: skip
    w.note(made[-1], "failed", GateResult("health", False, "Progressing"))
    w.note(made[-1], "verified", *OK, approved="bob@example.com (roll it)")  # retried
    made.append(remote.commit({"README.md": "gitops, documented\n"}, message="docs"))
    # promoted, noted, then force-pushed away
    dropped = w.promote("shop", "staging", "r5", version="1.4.0", rollback=True)
    w.note(dropped, "verified", *OK)
    remote.git("update-ref", "refs/heads/main", made[-1], dropped)
    return remote, made


def normalized(data: dict[str, Any], made: list[str], url: str) -> dict[str, Any]:
    text = json.dumps(data, indent=2, sort_keys=True).replace(url, "<repository>")
    for number, sha in enumerate(made):
        text = text.replace(sha, f"<commit {number}>").replace(sha[:12], f"<commit {number}>")
    return json.loads(re.sub(r'"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"', '"<time>"', text))


@pytest.mark.parametrize("transport", ["native", "cli"], indirect=True)
def test_history_of_real_promotions(
    host: GitHost, transport: str, tmp_path: Path, update_golden: bool
) -> None:
    host.allow_filter = True
    remote, made = written(host)
    plan = plan_product(load_config(EXAMPLES)[0], "shop")
    repository = HistoryRepository(remote.url, host.credentials, tmp_path / "cache")
    try:
        found = read_history(plan, repository)
        data = normalized(as_data(found), made, remote.url)
        if update_golden:
            GOLDEN.parent.mkdir(exist_ok=True)
            GOLDEN.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
        assert data == json.loads(GOLDEN.read_text())
        # the same answer warm, from the cache; and per environment, since a commit
        dev = read_history(plan, repository, ["dev"])
        assert [p.commit for p in dev.promotions] == [
            p.commit for p in found.promotions if p.environment == "dev"
        ]
        assert read_history(plan, repository).promotions == found.promotions
    finally:
        repository.close()


def test_a_later_read_walks_only_what_is_new_and_sees_what_a_fresh_one_sees(
    host: GitHost, tmp_path: Path
) -> None:
    """New promotions and notes since the last read, then a force-push that drops some:
    each time the kept read agrees with one from an empty cache."""
    host.allow_filter = True
    remote, made = written(host)
    plan = plan_product(load_config(EXAMPLES)[0], "shop")

    def fresh() -> list[Any]:
        cold = HistoryRepository(remote.url, host.credentials, tmp_path / f"c{len(made)}")
        try:
            return read_history(plan, cold).promotions
        finally:
            cold.close()

    kept = HistoryRepository(remote.url, host.credentials, tmp_path / "kept")
    try:
        assert read_history(plan, kept).promotions == fresh()
        w = Writer(host, remote)
        made.append(w.promote("shop", "staging", "r6", version="1.4.0", rollback=True))
        w.note(made[-1], "verified", *OK)
        w.note(made[3], "verified", *OK)  # a note added later to an older commit
        later = read_history(plan, kept).promotions
        assert later == fresh()
        assert later[0].commit == made[-1] and later[0].verified
        remote.git("update-ref", "refs/heads/main", made[5])  # force-pushed back
        made.append("-")  # a new cache folder for the fresh read
        after = read_history(plan, kept).promotions
        assert after == fresh()
        assert made[6] not in {p.commit for p in after}
    finally:
        kept.close()


def test_the_command_shows_a_table_per_environment(host: GitHost, tmp_path: Path) -> None:
    import subprocess
    import sys

    host.allow_filter = True
    remote, made = written(host)
    done = subprocess.run(
        [sys.executable, "-m", "orchestrator.entry", "history", "-c", str(EXAMPLES), "-p", "shop",
         "--repo", remote.url, "--cache", str(tmp_path / "c"), "-o", "wide"],
        capture_output=True, text=True, env=host.env(), check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].strip() == "dev" and "staging" in [line.strip() for line in lines]
    rollback = next(line for line in lines if made[7][:12] in line)
    assert "1.4.0" in rollback and "verified" in rollback and "rollback 1.5.0 -> 1.4.0" in rollback
    failed = next(line for line in lines if made[5][:12] in line)
    assert "failed" in failed and "health FAILED" in failed
    hand = next(line for line in lines if made[4][:12] in line)
    assert "1.5.1-hotfix" in hand and "hand" in hand and "seed" in hand
    assert "1 notes name commits no longer on the branch" in done.stdout
    assert host.credentials.token not in done.stdout + done.stderr
